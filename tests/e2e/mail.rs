//! E-mail to customers through a real SMTP server (aiosmtpd, from tests/requirements.txt,
//! writing each message to a maildir): the order confirmation with its proofs, the shipping
//! notice, names that try to add recipients, a server that is down, and none configured; the
//! account's links (confirming the address, resetting the password).

use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use base64::Engine;
use presspack::config::Config;
use serde_json::Value;

use crate::console::signed_in_operator;
use crate::customers::new_pack;
use crate::every_store;
use crate::helpers::email_address;
use crate::helpers::{StoreKind, TestApp, spawn_app, spawn_app_with};
use crate::shop::Shopper;

every_store!(
    customers_get_their_confirmation_with_proofs_and_the_shipping_notice,
    mail_waits_for_a_server_that_is_down_and_never_fails_the_order,
    a_confirmation_goes_without_a_proof_that_cannot_be_made,
    without_a_server_no_mail_is_queued_and_the_page_says_so,
    sign_up_mails_a_link_that_confirms_the_address_once,
    a_reset_link_works_once_ends_other_sessions_and_tells_nothing_of_unknown_addresses,
    the_shop_name_brands_pages_console_and_mail,
    the_console_counts_mail_sent_and_lists_what_waits_or_was_given_up,
);

/// aiosmtpd on loopback, storing what it receives in a maildir; stopped when dropped.
pub struct SmtpServer {
    pub port: u16,
    maildir: tempfile::TempDir,
    child: Child,
}

/// A port nothing listens on, below the kernel's ephemeral range (32768 and up on Linux):
/// a port handed out by `bind(0)` is also what the next outgoing connection or another
/// test's listener may take before the server here binds it.
pub fn free_port() -> u16 {
    use std::sync::atomic::{AtomicU16, Ordering};
    static NEXT: AtomicU16 = AtomicU16::new(0);
    let seed = (std::process::id() as u16).wrapping_mul(7919);
    loop {
        let port = 20_000 + (seed.wrapping_add(NEXT.fetch_add(1, Ordering::Relaxed)) % 12_000);
        if TcpListener::bind(("127.0.0.1", port)).is_ok() {
            return port;
        }
    }
}

impl SmtpServer {
    /// aiosmtpd on a free port, trying another if one is taken between choosing and binding.
    pub fn start() -> SmtpServer {
        for _ in 0..5 {
            if let Some(server) = SmtpServer::try_start_on(free_port()) {
                return server;
            }
        }
        panic!("aiosmtpd could not listen on any of five ports");
    }

    /// aiosmtpd on `port`, chosen before the server the test configures with it.
    pub fn start_on(port: u16) -> SmtpServer {
        SmtpServer::try_start_on(port)
            .unwrap_or_else(|| panic!("aiosmtpd could not listen on {port}"))
    }

    /// None when aiosmtpd exits (the port was taken) before it listens.
    fn try_start_on(port: u16) -> Option<SmtpServer> {
        let maildir = tempfile::tempdir().unwrap();
        let mut server = SmtpServer {
            port,
            child: Command::new("python3")
                .args(["-m", "aiosmtpd", "-n", "-l"])
                .arg(format!("127.0.0.1:{port}"))
                .args(["-c", "aiosmtpd.handlers.Mailbox"])
                // A path that does not exist yet: Python's Maildir makes it with its folders.
                .arg(maildir.path().join("box"))
                .stdout(Stdio::null())
                .spawn()
                .expect("python3 runs aiosmtpd (pip install -r tests/requirements.txt)"),
            maildir,
        };
        for _ in 0..100 {
            if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
                return Some(server);
            }
            if server.child.try_wait().unwrap().is_some() {
                return None;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        panic!("aiosmtpd did not listen on {port} (pip install -r tests/requirements.txt)");
    }

    /// The messages received, oldest first, once there are `count` (within a minute).
    pub async fn wait_for(&self, count: usize) -> Vec<Mail> {
        self.wait_for_matching(count, |_| true).await
    }

    /// The messages whose subject starts with `subject`, as [`SmtpServer::wait_for`].
    pub async fn wait_for_matching_subject(&self, subject: &str, count: usize) -> Vec<Mail> {
        self.wait_for_matching(count, |mail| mail.header("Subject").starts_with(subject))
            .await
    }

    /// The messages about orders (not the account's links), as [`SmtpServer::wait_for`].
    pub async fn order_mail(&self, count: usize) -> Vec<Mail> {
        self.wait_for_matching(count, |mail| {
            mail.header("Subject").starts_with("Your order")
        })
        .await
    }

    async fn wait_for_matching(&self, count: usize, wanted: impl Fn(&Mail) -> bool) -> Vec<Mail> {
        for _ in 0..600 {
            let mut files: Vec<PathBuf> = std::fs::read_dir(self.maildir.path().join("box/new"))
                .map(|entries| entries.map(|e| e.unwrap().path()).collect())
                .unwrap_or_default();
            files.sort_by_key(|f| std::fs::metadata(f).unwrap().modified().unwrap());
            let mails: Vec<Mail> = files
                .iter()
                .map(|f| Mail(std::fs::read_to_string(f).unwrap()))
                .filter(&wanted)
                .collect();
            if mails.len() >= count {
                return mails;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        panic!("{count} messages did not arrive within a minute");
    }
}

impl Drop for SmtpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A message as delivered (headers, then the MIME body).
pub struct Mail(String);

impl Mail {
    fn headers(&self) -> &str {
        self.0
            .split_once("\n\n")
            .or_else(|| self.0.split_once("\r\n\r\n"))
            .unwrap()
            .0
    }

    /// A header's value (unfolded).
    pub fn header(&self, name: &str) -> String {
        let unfolded = self.headers().replace("\r\n ", " ").replace("\n ", " ");
        unfolded
            .lines()
            .find_map(|l| l.strip_prefix(&format!("{name}: ")))
            .unwrap_or_default()
            .trim()
            .to_owned()
    }

    /// The body with quoted-printable soft breaks joined.
    pub fn text(&self) -> String {
        self.0.replace("=\r\n", "").replace("=\n", "")
    }

    /// The PDF attachments: (file name, bytes).
    fn pdfs(&self) -> Vec<(String, Vec<u8>)> {
        let text = self.0.replace("\r\n", "\n");
        text.split("Content-Disposition: attachment; filename=\"")
            .skip(1)
            .map(|part| {
                let (name, rest) = part.split_once('"').unwrap();
                let body = rest.split_once("\n\n").unwrap().1;
                let encoded: String = body
                    .lines()
                    .take_while(|l| !l.starts_with("--") && !l.is_empty())
                    .collect();
                let bytes = base64::engine::general_purpose::STANDARD
                    .decode(encoded)
                    .unwrap();
                (name.to_owned(), bytes)
            })
            .collect()
    }
}

async fn app_mailing_to(kind: StoreKind, port: u16, retry_ms: u64) -> TestApp {
    spawn_app_with(kind, |config| mail_to(config, port, retry_ms)).await
}

/// Sends mail to the SMTP server on loopback `port`, retrying every `retry_ms`.
pub fn mail_to(config: &mut Config, port: u16, retry_ms: u64) {
    config.mail.smtp_host = Some("127.0.0.1".into());
    config.mail.smtp_port = Some(port);
    config.mail.smtp_security = presspack::infra::mail::SmtpSecurity::None;
    config.mail.mail_from = "Print Shop <orders@print.example>".parse().unwrap();
    config.mail.retry_delays = vec![Duration::from_millis(retry_ms); 20];
}

/// A signed-up customer with `email`, their address confirmed, who ordered one pack; the order
/// number. Mail about orders goes to confirmed addresses only; the address's own link is dealt
/// with first (sent, or given up while the mail server is down), as before its owner follows it.
async fn order_one_pack(app: &TestApp, shopper: &Shopper, email: &str) -> String {
    shopper.sign_up(email).await;
    account_mail_finished(app).await;
    confirm_address(app, email).await;
    let (pack, _) = new_pack(app, &[]).await;
    shopper.order(app, &[&pack]).await
}

/// Waits (up to a minute) until no account message (a link, a notice) is waiting.
async fn account_mail_finished(app: &TestApp) {
    for _ in 0..600 {
        let listed = app.cli(&["mail", "list", "--json"]);
        let all: Vec<Value> = serde_json::from_slice(&listed.stdout).unwrap();
        let waiting = all
            .iter()
            .any(|m| m.get("orderNumber").is_none() && m["state"] == "pending");
        if !waiting {
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("account messages still waiting after a minute");
}

fn unique_email() -> String {
    format!("mail.{:x}@example.com", rand::random::<u64>())
}

/// `presspack mail list --json`: the messages about orders (not the account's links).
fn mail_list(app: &TestApp) -> Vec<Value> {
    let listed = app.cli(&["mail", "list", "--json"]);
    assert!(listed.status.success());
    let all: Vec<Value> = serde_json::from_slice(&listed.stdout).unwrap();
    all.into_iter()
        .filter(|mail| mail.get("orderNumber").is_some())
        .collect()
}

async fn customers_get_their_confirmation_with_proofs_and_the_shipping_notice(kind: StoreKind) {
    let smtp = SmtpServer::start();
    let app = app_mailing_to(kind, smtp.port, 60_000).await;
    let shopper = Shopper::new(&app);
    let email = unique_email();
    let number = order_one_pack(&app, &shopper, &email).await;
    let page = shopper.get(&format!("/orders/{number}/confirmation")).await;
    assert!(page.body.contains("is on its way to"), "{}", page.body);

    let mails = smtp.order_mail(1).await;
    let confirmation = &mails[0];
    assert_eq!(
        confirmation.header("Subject"),
        format!("Your order {number}")
    );
    assert!(
        confirmation
            .header("From")
            .contains("<orders@print.example>")
    );
    assert!(confirmation.header("To").contains(&email));
    assert_eq!(confirmation.header("X-RcptTo"), email);
    // Named after its queued job, so a message sent twice is recognisably the same one.
    assert_eq!(
        confirmation.header("Message-ID"),
        format!("<mail_{number}_confirmed@print.example>")
    );
    let text = confirmation.text();
    assert!(text.contains("Hello Ann Example,"), "{text}");
    assert!(
        text.contains(
            "Your invoice INV-000001 is attached; please pay within 14 days, quoting INV-000001."
        ),
        "{text}"
    );
    assert!(
        text.contains(&format!("{}/orders/{number}", app.address)),
        "{text}"
    );
    let pdfs = confirmation.pdfs();
    assert_eq!(pdfs.len(), 2);
    assert_eq!(pdfs[0].0, format!("{number}-1-proof.pdf"));
    assert!(pdfs[0].1.starts_with(b"%PDF-"));
    // The invoice, as the customer downloads it.
    assert_eq!(pdfs[1].0, "invoice-INV-000001.pdf");
    assert!(crate::press::pdf_text(&pdfs[1].1).contains(&format!("Order: {number}")));

    // The operator's command runs with the server's configuration: it queues the notice.
    let port = smtp.port.to_string();
    let settings = [
        ("PRESSPACK_SMTP_HOST", "127.0.0.1"),
        ("PRESSPACK_SMTP_PORT", port.as_str()),
        ("PRESSPACK_SMTP_SECURITY", "none"),
    ];
    for args in [
        &["orders", "start", &number][..],
        &[
            "orders",
            "ship",
            &number,
            "--carrier",
            "Royal Mail",
            "--tracking",
            "RM123456785GB",
        ],
    ] {
        let moved = app.cli_with(args, &settings);
        assert!(
            moved.status.success(),
            "{}",
            String::from_utf8_lossy(&moved.stderr)
        );
    }
    let mails = smtp.order_mail(2).await;
    let notice = &mails[1];
    assert_eq!(
        notice.header("Subject"),
        format!("Your order {number} has shipped")
    );
    let text = notice.text();
    assert!(
        text.contains("on its way with Royal Mail, tracking number RM123456785GB"),
        "{text}"
    );
    assert!(notice.pdfs().is_empty());
    let notice_id = notice.header("Message-ID");
    assert!(
        notice_id.starts_with(&format!("<mail_{number}_chg_"))
            && notice_id.ends_with("@print.example>"),
        "{notice_id}"
    );

    // A name that looks like more recipients stays a name: one recipient, the customer.
    let other = Shopper::new(&app);
    let email = unique_email();
    other.sign_up(&email).await;
    confirm_address(&app, &email).await;
    let (pack, _) = new_pack(&app, &[]).await;
    let body = crate::customers::add_to_cart(&app, &pack, "1").await;
    other
        .open_drop_in(&crate::customers::local(&body["dropIns"]["cart"]))
        .await;
    let form = other.get("/checkout").await;
    let mut fields = vec![
        ("checkout".to_owned(), form.hidden("checkout").unwrap()),
        ("cart".to_owned(), form.hidden("cart").unwrap()),
        ("line1".to_owned(), "1 Print Street".to_owned()),
        ("city".to_owned(), "London".to_owned()),
        ("postcode".to_owned(), "E1 6AN".to_owned()),
        ("country".to_owned(), "United Kingdom".to_owned()),
    ];
    fields.extend(form.approvals());
    let injected = "Ann\r\nBcc: evil@example.com";
    fields.push(("name".to_owned(), injected.to_owned()));
    let borrowed: Vec<(&str, &str)> = fields
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    let refused = other.post(&form, "/checkout", &borrowed).await;
    assert!(refused.body.contains("on one line"), "{}", refused.body);
    fields.pop();
    fields.push((
        "name".to_owned(),
        "Eve, Bcc <evil@example.com>; \"Zoë\"".to_owned(),
    ));
    let borrowed: Vec<(&str, &str)> = fields
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    let placed = other.post(&form, "/checkout", &borrowed).await;
    assert!(placed.path.ends_with("/confirmation"), "{}", placed.body);
    let mails = smtp.order_mail(3).await;
    let third = &mails[2];
    assert_eq!(third.header("X-RcptTo"), email);
    assert!(!third.headers().lines().any(|l| l.starts_with("Bcc:")));

    // The last message is recorded as sent just after the SMTP server has it.
    let mut listed = mail_list(&app);
    for _ in 0..600 {
        if listed.iter().all(|m| m["state"] == "done") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
        listed = mail_list(&app);
    }
    assert_eq!(listed.len(), 3);
    assert!(listed.iter().all(|m| m["state"] == "done"), "{listed:?}");
}

async fn mail_waits_for_a_server_that_is_down_and_never_fails_the_order(kind: StoreKind) {
    let port = free_port();
    let app = app_mailing_to(kind, port, 300).await;
    let shopper = Shopper::new(&app);
    let email = unique_email();
    // The order is placed although no server answers.
    let number = order_one_pack(&app, &shopper, &email).await;
    let mut failed = None;
    for _ in 0..600 {
        let listed = mail_list(&app);
        if let Some(mail) = listed.iter().find(|m| m["lastError"].is_string()) {
            failed = Some(mail.clone());
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let failed = failed.expect("an attempt failed and was recorded");
    assert_eq!(failed["state"], "pending");
    assert!(
        failed["lastError"].as_str().unwrap().contains("SMTP"),
        "{failed}"
    );
    // The server comes up: the message goes out on a retry.
    let smtp = SmtpServer::start_on(port);
    let mails = smtp.order_mail(1).await;
    assert_eq!(mails[0].header("Subject"), format!("Your order {number}"));
    // Every attempt names the message the same way (the failed ones too, were they to have
    // reached the customer).
    assert_eq!(
        mails[0].header("Message-ID"),
        format!("<{}@print.example>", failed["id"].as_str().unwrap())
    );
    for _ in 0..600 {
        let listed = mail_list(&app);
        if listed[0]["state"] == "done" {
            assert!(listed[0]["attempts"].as_u64().unwrap() >= 2, "{listed:?}");
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("the message was not recorded as sent");
}

async fn without_a_server_no_mail_is_queued_and_the_page_says_so(kind: StoreKind) {
    let app = spawn_app(kind).await;
    let shopper = Shopper::new(&app);
    let number = order_one_pack(&app, &shopper, &unique_email()).await;
    let page = shopper.get(&format!("/orders/{number}/confirmation")).await;
    assert!(
        page.body.contains("This shop sends no e-mail"),
        "{}",
        page.body
    );
    assert!(mail_list(&app).is_empty());
}

async fn a_confirmation_goes_without_a_proof_that_cannot_be_made(kind: StoreKind) {
    // The server is down while the order is placed, so the message waits; meanwhile the
    // ordered pack loses what its proof needs (its sides).
    let port = free_port();
    let app = app_mailing_to(kind, port, 300).await;
    // The address is not confirmed yet: the message waits for it, and no proof is made.
    let shopper = Shopper::new(&app);
    let email = unique_email();
    shopper.sign_up(&email).await;
    let (pack, _) = new_pack(&app, &[]).await;
    let number = shopper.order(&app, &[&pack]).await;
    app.change_stored_order(&number, |order| {
        order["lines"][0]["pack"]["sides"] = serde_json::json!([]);
    })
    .await;
    confirm_address(&app, &email).await;

    let smtp = SmtpServer::start_on(port);
    let mails = smtp.order_mail(1).await;
    assert_eq!(mails[0].header("Subject"), format!("Your order {number}"));
    // No proof; the invoice, which needs none, still goes.
    let pdfs: Vec<String> = mails[0].pdfs().into_iter().map(|(name, _)| name).collect();
    assert_eq!(pdfs, ["invoice-INV-000001.pdf"]);
    let text = mails[0].text();
    assert!(
        text.contains("except pack 1: it could not be made, and the shop will contact you"),
        "{text}"
    );
}

/// The path of the account link (`prefix` and its token) in `mail`.
pub fn link_in(mail: &Mail, prefix: &str) -> String {
    let text = mail.text();
    let start = text.find(prefix).expect("the message has the link") + prefix.len();
    let token: String = text[start..]
        .chars()
        .take_while(char::is_ascii_hexdigit)
        .collect();
    assert_eq!(token.len(), 64, "{text}");
    format!("{prefix}{token}")
}

/// Marks `email`'s address confirmed, as following its mailed link does.
pub async fn confirm_address(app: &TestApp, email: &str) {
    let customer = customer_of(app, email).await;
    let holder = presspack::domain::account_links::LinkHolder {
        customer_id: customer.id,
        email: customer.email.to_string(),
        session_generation: customer.session_generation,
    };
    presspack::domain::customers::confirm_address(app.store.as_ref(), &holder)
        .await
        .unwrap()
        .expect("the address is the account's");
}

async fn customer_of(app: &TestApp, email: &str) -> presspack::domain::customers::Customer {
    presspack::domain::customers::find_by_email(app.store.as_ref(), &email_address(email))
        .await
        .unwrap()
        .unwrap()
}

async fn sign_up_mails_a_link_that_confirms_the_address_once(kind: StoreKind) {
    // The mail server is down at first: the message waits, holding its link.
    let port = free_port();
    let app = app_mailing_to(kind, port, 200).await;
    let email = unique_email();
    Shopper::new(&app).sign_up(&email).await;
    let mut waiting = None;
    for _ in 0..600 {
        let listed = app.cli(&["mail", "list", "--json"]);
        let listed = String::from_utf8_lossy(&listed.stdout).into_owned();
        if listed.contains("lastError") {
            waiting = Some(listed);
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // A listing is read by people and pasted into tickets: it never shows a live link.
    let waiting = waiting.expect("an attempt failed and was recorded");
    assert!(waiting.contains("\"pending\""), "{waiting}");
    assert!(!waiting.contains("/account/confirm/"), "{waiting}");
    let smtp = SmtpServer::start_on(port);
    let mail = &smtp.wait_for(1).await[0];
    assert_eq!(mail.header("Subject"), "Confirm your e-mail address");
    assert_eq!(mail.header("X-RcptTo"), email);
    assert!(!customer_of(&app, &email).await.email_confirmed);
    // Whoever opens the mailed link confirms the address (no session needed), once.
    let link = link_in(mail, "/account/confirm/");
    let page = Shopper::new(&app).get(&link).await;
    assert_eq!(page.status, 200);
    assert!(
        page.body.contains("is confirmed as your address"),
        "{}",
        page.body
    );
    assert!(customer_of(&app, &email).await.email_confirmed);
    assert_eq!(Shopper::new(&app).get(&link).await.status, 410);
    let made_up = format!("/account/confirm/{}", "0".repeat(64));
    assert_eq!(Shopper::new(&app).get(&made_up).await.status, 410);
    assert_eq!(
        Shopper::new(&app).get("/account/confirm/x").await.status,
        410
    );
}

async fn a_reset_link_works_once_ends_other_sessions_and_tells_nothing_of_unknown_addresses(
    kind: StoreKind,
) {
    let smtp = SmtpServer::start();
    let app = app_mailing_to(kind, smtp.port, 200).await;
    let email = unique_email();
    let owner = Shopper::new(&app);
    owner.sign_up(&email).await;
    smtp.wait_for(1).await;

    let stranger = Shopper::new(&app);
    let ask = |address: String| {
        let stranger = &stranger;
        async move {
            let form = stranger.get("/account/reset").await;
            stranger
                .post(&form, "/account/reset", &[("email", &address)])
                .await
        }
    };
    let nobody = unique_email();
    let unknown = ask(nobody.clone()).await;
    let known = ask(email.clone()).await;
    assert_eq!((unknown.status, known.status), (200, 200));
    assert_eq!(
        unknown.body.replace(&nobody, "ADDRESS"),
        known.body.replace(&email, "ADDRESS"),
        "the same answer for an address with and without an account"
    );
    let mails = smtp.wait_for(2).await;
    let reset = &mails[1];
    assert_eq!(reset.header("Subject"), "Choose a new password");
    assert_eq!(reset.header("X-RcptTo"), email);
    let link = link_in(reset, "/account/reset/");

    // Opening the link uses nothing; a password that cannot be set leaves it working.
    let form = stranger.get(&link).await;
    assert_eq!(form.status, 200);
    let short = stranger.post(&form, &link, &[("password", "short")]).await;
    assert_eq!(short.status, 400);
    assert!(short.body.contains("password: use 8 to 128 characters"));
    // Sent twice at once: one sets the password, the other finds the link used.
    let new_password = [("password", "a brand new password")];
    let (one, two) = tokio::join!(
        stranger.post(&form, &link, &new_password),
        stranger.post(&form, &link, &new_password),
    );
    let mut statuses = [one.status, two.status];
    statuses.sort();
    assert_eq!(statuses, [200, 410]);
    let done = if one.status == 200 { &one } else { &two };
    assert_eq!(done.path, "/account/password-changed");
    assert_eq!(
        stranger.get("/orders").await.status,
        200,
        "signed in by the reset"
    );
    assert_eq!(stranger.get(&link).await.status, 410);
    // The owner's earlier session has ended; the old password no longer works.
    assert_eq!(owner.get("/orders").await.status, 401);
    let sign_in = |password: &'static str| {
        let (owner, email) = (&owner, &email);
        async move {
            let form = owner.get("/account/signin").await;
            owner
                .post(
                    &form,
                    "/account/signin",
                    &[("email", email), ("password", password)],
                )
                .await
        }
    };
    assert_eq!(sign_in("correct horse battery").await.status, 401);
    assert_eq!(sign_in("a brand new password").await.path, "/cart");
    assert!(customer_of(&app, &email).await.email_confirmed);

    // Three links an hour per address: the fourth is refused and sends nothing.
    assert_eq!(ask(email.clone()).await.status, 200);
    assert_eq!(ask(email.clone()).await.status, 200);
    assert_eq!(ask(email.clone()).await.status, 429);
    let mails = smtp.wait_for(4).await;
    assert!(mails[2..].iter().all(|m| m.header("X-RcptTo") == email));
    let listed = app.cli(&["mail", "list", "--json"]);
    let listed: Vec<Value> = serde_json::from_slice(&listed.stdout).unwrap();
    // The request for the address without an account was queued too, and sent nothing.
    assert_eq!(listed.len(), 5, "{listed:?}");

    // A link not used yet is a key to the account: once its message is sent, neither the
    // stored record nor a listing holds it (nor any other link the account was sent).
    let unused = link_in(&mails[3], "/account/reset/");
    let mut links = vec![link_in(&mails[0], "/account/confirm/")];
    links.extend(mails[1..].iter().map(|m| link_in(m, "/account/reset/")));
    let records = sent_mail_records(&app, 5).await;
    let listed = app.cli(&["mail", "list", "--json"]);
    let listed = String::from_utf8_lossy(&listed.stdout);
    for link in &links {
        let token = &link[link.len() - 64..];
        assert!(records.iter().all(|r| !r.contains(token)), "{records:?}");
        assert!(!listed.contains(token), "{listed}");
    }
    assert!(
        records.iter().any(|r| r.contains("password_reset")),
        "{records:?}"
    );
    assert_eq!(
        stranger.get(&unused).await.status,
        200,
        "the link still works"
    );
    // Low: every link sent before a reset kept working after it, so a link left in a
    // mailbox (or a forwarded message) could set the password again later. The reset by
    // one of two links ends the other.
    let earlier = link_in(&mails[2], "/account/reset/");
    let form = stranger.get(&earlier).await;
    let done = stranger
        .post(&form, &earlier, &[("password", "the third password")])
        .await;
    assert_eq!(done.path, "/account/password-changed", "{}", done.body);
    let form = stranger.get(&unused).await;
    let late = stranger
        .post(&form, &unused, &[("password", "a fourth password")])
        .await;
    assert_eq!(late.status, 410, "{}", late.body);
    assert_eq!(sign_in("the third password").await.path, "/cart");
}

/// The stored records of the `count` mail jobs once all are sent (the record moves to the
/// finished kind just after the server has the message).
async fn sent_mail_records(app: &TestApp, count: usize) -> Vec<String> {
    use presspack::domain::mail::MAILS_DONE;
    for _ in 0..200 {
        let ids = app.store.list(MAILS_DONE).await.unwrap();
        if ids.len() == count {
            let mut records = Vec::new();
            for id in ids {
                let record = app.store.get(MAILS_DONE, &id).await.unwrap().unwrap();
                records.push(String::from_utf8(record.value).unwrap());
            }
            return records;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("the mail jobs did not finish");
}

async fn the_shop_name_brands_pages_console_and_mail(kind: StoreKind) {
    let smtp = SmtpServer::start();
    let app = spawn_app_with(kind, |config| {
        mail_to(config, smtp.port, 200);
        config.brand.shop_name = "Letterpress & Co".to_owned();
    })
    .await;
    let shopper = Shopper::new(&app);
    let page = shopper.sign_up(&unique_email()).await;
    for path in [
        "/cart",
        "/account/signin",
        "/admin/signin",
        "/orders/PP-NOSUCHORDER",
    ] {
        let page = shopper.get(path).await;
        assert!(
            page.body.contains("Letterpress &amp; Co</title>"),
            "{path}: {}",
            page.body
        );
        assert!(
            page.body
                .contains("Printed with care by Letterpress &amp; Co"),
            "{path}"
        );
        assert!(!page.body.contains("Presspack"), "{path}");
    }
    assert!(
        page.body
            .contains("<span class=\"mark\" aria-hidden=\"true\">L</span>")
    );
    let mail = &smtp.wait_for(1).await[0];
    let text = mail.text().replace("\r\n", "\n");
    // The signature's "-- " (a trailing space is "=20" in quoted-printable).
    assert!(text.contains("\n--=20\nLetterpress & Co\n"), "{text}");
    assert!(text.contains("Letterpress &amp; Co</p>"), "{text}");
    let bad = Config::load(None, |name| {
        (name == "PRESSPACK_SHOP_NAME").then(|| "Two\nLines".to_owned())
    });
    let refused = bad.expect_err("a name on two lines is refused").to_string();
    assert!(refused.contains("PRESSPACK_SHOP_NAME"), "{refused}");
}

/// Every queued message as the CLI lists it, once none is waiting (within a minute).
pub async fn all_mail_finished(app: &TestApp, count: usize) -> Vec<Value> {
    for _ in 0..600 {
        let listed = app.cli(&["mail", "list", "--json"]);
        assert!(listed.status.success());
        let all: Vec<Value> = serde_json::from_slice(&listed.stdout).unwrap();
        if all.len() == count && all.iter().all(|m| m["state"] != "pending") {
            return all;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("{count} messages were not all finished within a minute");
}

async fn the_console_counts_mail_sent_and_lists_what_waits_or_was_given_up(kind: StoreKind) {
    use presspack::domain::mail::{MAILS_DONE, MAILS_GAVE_UP};
    use presspack::infra::store::INDEXES_BUILT;
    // No server at first, and one retry: the first customer's messages are given up.
    let port = free_port();
    let app = spawn_app_with(kind, |config| {
        mail_to(config, port, 100);
        config.mail.retry_delays = vec![Duration::from_millis(100)];
    })
    .await;
    let operator = signed_in_operator(&app).await;
    let first = order_one_pack(&app, &Shopper::new(&app), &unique_email()).await;
    all_mail_finished(&app, 2).await;
    // Then the server is up: the second customer's address link and confirmation go out.
    let smtp = SmtpServer::start_on(port);
    let second = order_one_pack(&app, &Shopper::new(&app), &unique_email()).await;
    smtp.order_mail(1).await;
    let all = all_mail_finished(&app, 4).await;
    let states: Vec<&str> = all.iter().map(|m| m["state"].as_str().unwrap()).collect();
    assert_eq!(
        states.iter().filter(|s| **s == "gave_up").count(),
        2,
        "{all:?}"
    );

    let shown = |page: &crate::shop::Page| {
        assert!(
            page.body.contains("2 sent · 2 waiting or given up"),
            "{}",
            page.body
        );
        assert_eq!(page.body.matches("class=\"mail-job\"").count(), 2);
        assert_eq!(page.body.matches(">given up<").count(), 2);
        assert!(page.body.contains(&first));
        assert!(!page.body.contains(&second));
    };
    shown(&operator.get("/admin/mail").await);

    // A store from before the indexes of finished messages: the same page, from the records.
    for mail in &all {
        let id = mail["id"].as_str().unwrap();
        app.store.unschedule(MAILS_DONE, id).await.unwrap();
        app.store.unschedule(MAILS_GAVE_UP, id).await.unwrap();
    }
    assert!(
        app.store
            .delete(INDEXES_BUILT, MAILS_DONE.as_str())
            .await
            .unwrap()
    );
    shown(&operator.get("/admin/mail").await);
    assert_eq!(all_mail_finished(&app, 4).await.len(), 4);
    // And again when the operator rebuilds the indexes.
    for mail in &all {
        app.store
            .unschedule(MAILS_GAVE_UP, mail["id"].as_str().unwrap())
            .await
            .unwrap();
    }
    assert!(app.cli(&["indexes", "rebuild"]).status.success());
    shown(&operator.get("/admin/mail").await);
}
