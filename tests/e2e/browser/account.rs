//! The account's mailed links in real headless Chromium: a customer signs up, follows the
//! link in the address confirmation, forgets their password, asks for a link from the
//! sign-in page, follows it and chooses a new one, and is signed in with it.

use super::{click, fill, path, screenshot, text};
use crate::chromium::browser;
use crate::every_store;
use crate::helpers::{StoreKind, spawn_app_with};
use crate::mail::{SmtpServer, link_in, mail_to};

every_store!(a_customer_confirms_their_address_and_resets_their_password_in_chromium);

async fn a_customer_confirms_their_address_and_resets_their_password_in_chromium(kind: StoreKind) {
    let smtp = SmtpServer::start();
    let app = spawn_app_with(kind, |config| mail_to(config, smtp.port, 200)).await;
    let store = kind.name();
    let email = format!("links.{:x}@example.com", rand::random::<u64>());
    let (browser, _driver) = browser().await;
    let open = |path: String| {
        let (browser, address) = (&browser, &app.address);
        async move { browser.goto(&format!("{address}{path}")).await.unwrap() }
    };

    open("/account/signup".to_owned()).await;
    fill(&browser, "#signup-name", "Ann Example").await;
    fill(&browser, "#signup-email", &email).await;
    fill(&browser, "#signup-password", "correct horse battery").await;
    click(&browser, "form[action='/account/signup'] button").await;
    let confirmation = &smtp.wait_for(1).await[0];
    open(link_in(confirmation, "/account/confirm/")).await;
    assert!(
        text(&browser)
            .await
            .contains(&format!("{email} is confirmed as your address"))
    );
    screenshot(&browser, &format!("account-confirmed-{store}")).await;

    // Signed out, the password forgotten: from the sign-in page to a new password.
    click(&browser, "form[action='/account/signout'] button").await;
    assert_eq!(path(&browser).await, "/account/signin");
    click(&browser, "a[href='/account/reset']").await;
    fill(&browser, "#reset-email", &email).await;
    click(&browser, "form[action='/account/reset'] button").await;
    assert!(
        text(&browser)
            .await
            .contains("a link to choose a new password is on its way")
    );
    screenshot(&browser, &format!("account-reset-asked-{store}")).await;
    let reset = &smtp.wait_for(2).await[1];
    open(link_in(reset, "/account/reset/")).await;
    screenshot(&browser, &format!("account-new-password-{store}")).await;
    fill(&browser, "#new-password", "a brand new password").await;
    click(&browser, "form[action^='/account/reset/'] button").await;
    assert_eq!(path(&browser).await, "/account/password-changed");
    assert!(text(&browser).await.contains("Your new password is set"));
    screenshot(&browser, &format!("account-password-changed-{store}")).await;
}
