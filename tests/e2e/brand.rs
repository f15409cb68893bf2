//! A page a shop can brand: its name, colour, logo and footer line from configuration, on the
//! pages (error pages too) and refused at start-up when malformed; and the shop's words where
//! the API has codes: paper options by name with descriptions, the checkout's lines as
//! quantity times unit price.

use presspack::app::Application;
use presspack::config::Config;

use crate::customers::{add_to_cart, local, new_pack};
use crate::helpers::{StoreKind, spawn_app, spawn_app_with, test_config};
use crate::shop::Shopper;

/// A 2 x 1 PNG.
fn logo_png() -> Vec<u8> {
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, 2, 1);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header().unwrap();
    writer
        .write_image_data(&[170, 51, 0, 255, 255, 255])
        .unwrap();
    writer.finish().unwrap();
    out
}

#[tokio::test]
async fn the_pages_wear_the_shops_name_colour_logo_and_footer() {
    let dir = tempfile::tempdir().unwrap();
    let logo = dir.path().join("logo.png");
    std::fs::write(&logo, logo_png()).unwrap();
    let app = spawn_app_with(StoreKind::Embedded, |config| {
        config.brand.shop_name = "Letterpress & Co".to_owned();
        config.brand.brand_colour = "#aa3300".to_owned();
        config.brand.brand_logo = Some(logo.clone());
        config.brand.footer_text = "Letterpress & Co, 1 Print Street, London".to_owned();
    })
    .await;
    let visitor = Shopper::new(&app);
    for path in ["/account/signin", "/orders/PP-NOSUCHORDER", "/admin/signin"] {
        let page = visitor.get(path).await;
        assert!(
            page.body
                .contains("<img class=\"logo\" src=\"/static/logo\""),
            "{path}"
        );
        assert!(page.body.contains("href=\"/static/brand.css\""), "{path}");
        assert!(
            page.body
                .contains("Letterpress &amp; Co, 1 Print Street, London · prices include VAT"),
            "{path}"
        );
    }
    let css = visitor.get("/static/brand.css").await;
    assert_eq!(
        css.body,
        ":root { --brand: #aa3300; --brand-dark: #7f2600; }\n"
    );
    let served = visitor
        .client
        .get(format!("{}/static/logo", app.address))
        .send()
        .await
        .unwrap();
    assert_eq!(served.headers()["content-type"], "image/png");
    assert_eq!(served.bytes().await.unwrap().to_vec(), logo_png());

    // Without a logo there is none to serve, and the mark is the name's initial.
    let plain = spawn_app(StoreKind::Embedded).await;
    let page = Shopper::new(&plain).get("/account/signin").await;
    assert!(page.body.contains("aria-hidden=\"true\">P</span>Presspack"));
    assert!(page.body.contains("Printed with care by Presspack"));
    assert_eq!(Shopper::new(&plain).get("/static/logo").await.status, 404);
}

#[tokio::test]
async fn a_malformed_brand_is_refused_naming_the_setting() {
    for (name, value, expected) in [
        (
            "PRESSPACK_BRAND_COLOUR",
            "red",
            "expected a colour as #rrggbb",
        ),
        ("PRESSPACK_FOOTER_TEXT", "two\nlines", "on one line"),
        (
            "PRESSPACK_SHOP_NAME",
            &"x".repeat(61),
            "at most 60 characters",
        ),
    ] {
        let refused = Config::load(None, |asked| (asked == name).then(|| value.to_owned()))
            .expect_err(name)
            .to_string();
        assert!(
            refused.contains(name) && refused.contains(expected),
            "{refused}"
        );
    }
    let dir = tempfile::tempdir().unwrap();
    let not_an_image = dir.path().join("logo.png");
    std::fs::write(&not_an_image, "GIF89a").unwrap();
    for (logo, expected) in [
        (not_an_image, "not a PNG, JPEG or SVG file"),
        (dir.path().join("missing.png"), "No such file"),
    ] {
        let mut config: Config = test_config(StoreKind::Embedded, dir.path());
        config.brand.brand_logo = Some(logo);
        let refused = Application::build(&config).await.err().unwrap().to_string();
        assert!(refused.starts_with("brand: brand_logo: "), "{refused}");
        assert!(refused.contains(expected), "{refused}");
    }
}

#[tokio::test]
async fn paper_options_have_names_and_the_checkout_shows_unit_prices() {
    let app = spawn_app(StoreKind::Embedded).await;
    let shopper = Shopper::new(&app);
    shopper
        .sign_up(&format!("brand.{:x}@example.com", rand::random::<u64>()))
        .await;
    let (_, drop_ins) = new_pack(&app, &[]).await;
    let finish = shopper.open_drop_in(&local(&drop_ins["finish"])).await;
    for words in [
        ">Luxe black core</option>",
        ">Rounded corners</option>",
        ">No laminate</option>",
        "<dt>Matte laminate</dt><dd>Soft touch, no glare</dd>",
        "<th scope=\"row\">Green</th>",
    ] {
        assert!(finish.body.contains(words), "{words}: {}", finish.body);
    }
    // Another pack (the finish drop-in made the first the customer's), two of it in the cart.
    let (pack, _) = new_pack(&app, &[]).await;
    let body = add_to_cart(&app, &pack, "2").await;
    let cart = shopper.open_drop_in(&local(&body["dropIns"]["cart"])).await;
    assert!(
        cart.body
            .contains("Classic paper, square corners, no laminate, 50 per pack")
    );
    let checkout = shopper.get("/checkout").await;
    let start = checkout.body.find("class=\"line-total\">").unwrap();
    let line = &checkout.body[start..];
    let line = &line[line.find('>').unwrap() + 1..line.find("</p>").unwrap()];
    // "2 × £14.99 = £29.98"
    let pounds = |text: &str| -> u64 {
        let digits: String = text.chars().filter(char::is_ascii_digit).collect();
        digits.parse().unwrap()
    };
    let (quantity, rest) = line.split_once(" × ").expect(line);
    let (unit, total) = rest.split_once(" = ").expect(line);
    assert_eq!(quantity, "2");
    assert!(unit.starts_with('£') && total.starts_with('£'), "{line}");
    assert_eq!(pounds(unit) * 2, pounds(total), "{line}");
}

/// The headers that decide framing, and the cookies a page sets, for `path`.
async fn framing_of(
    app: &crate::helpers::TestApp,
    path: &str,
) -> (String, Option<String>, Vec<String>) {
    let response = crate::helpers::http_client()
        .get(format!("{}{path}", app.address))
        .send()
        .await
        .unwrap();
    let headers = response.headers();
    let policy = headers["content-security-policy"].to_str().unwrap();
    let ancestors = policy
        .split(';')
        .map(str::trim)
        .find(|d| d.starts_with("frame-ancestors"))
        .unwrap()
        .to_owned();
    let deny = headers
        .get("x-frame-options")
        .map(|v| v.to_str().unwrap().to_owned());
    let cookies = headers
        .get_all("set-cookie")
        .iter()
        .map(|v| v.to_str().unwrap().to_owned())
        .collect();
    (ancestors, deny, cookies)
}

/// Nobody frames a page by default. A partner origin in `edit_frame_ancestors` may frame the
/// customer pages (the edit drop-in and the sign-in, cart and checkout it leads to), never
/// the console; behind https the cookies then go `SameSite=None; Partitioned` so the framed
/// editor keeps its sign-in. A malformed origin is refused naming the setting.
#[tokio::test]
async fn partner_origins_may_frame_the_customer_pages_and_nobody_the_console() {
    let plain = spawn_app(StoreKind::Embedded).await;
    for path in ["/web-demo/", "/account/signin", "/admin/signin"] {
        let (ancestors, deny, _) = framing_of(&plain, path).await;
        assert_eq!(ancestors, "frame-ancestors 'none'", "{path}");
        assert_eq!(deny.as_deref(), Some("DENY"), "{path}");
    }

    let framed = spawn_app_with(StoreKind::Embedded, |config| {
        config.service.base_url = Some("https://print.example".into());
        config.brand.edit_frame_ancestors = vec![
            "https://shop.example".into(),
            "https://app.shop.example:8443".into(),
        ];
    })
    .await;
    for path in ["/web-demo/", "/account/signin", "/orders/PP-NOSUCHORDER"] {
        let (ancestors, deny, _) = framing_of(&framed, path).await;
        assert_eq!(
            ancestors, "frame-ancestors 'self' https://shop.example https://app.shop.example:8443",
            "{path}"
        );
        assert_eq!(deny, None, "{path}");
    }
    let (ancestors, deny, _) = framing_of(&framed, "/admin/signin").await;
    assert_eq!(ancestors, "frame-ancestors 'none'");
    assert_eq!(deny.as_deref(), Some("DENY"));
    let (_, _, cookies) = framing_of(&framed, "/account/signin").await;
    assert!(
        !cookies.is_empty(),
        "the sign-in page sets its visitor cookie"
    );
    for cookie in &cookies {
        assert!(
            cookie.contains("SameSite=None")
                && cookie.contains("Secure")
                && cookie.contains("Partitioned"),
            "{cookie}"
        );
    }
    let (_, _, cookies) = framing_of(&plain, "/account/signin").await;
    assert!(
        cookies
            .iter()
            .all(|c| c.contains("SameSite=Lax") && !c.contains("Partitioned"))
    );

    for bad in [
        "https://shop.example/editor",
        "shop.example",
        "javascript:alert(1)",
    ] {
        let refused = Config::load(None, |asked| {
            (asked == "PRESSPACK_EDIT_FRAME_ANCESTORS")
                .then(|| format!("https://ok.example, {bad}"))
        })
        .expect_err(bad)
        .to_string();
        assert!(
            refused.contains("PRESSPACK_EDIT_FRAME_ANCESTORS") && refused.contains("origins"),
            "{refused}"
        );
    }
    let read = Config::load(None, |asked| {
        (asked == "PRESSPACK_EDIT_FRAME_ANCESTORS")
            .then(|| "HTTPS://Shop.Example/, https://b.example".to_owned())
    })
    .unwrap();
    assert_eq!(
        read.brand.edit_frame_ancestors,
        ["https://shop.example", "https://b.example"]
    );
}
