//! Press files over HTTP: `svc.pack.renderPackPdf` and `svc.pack.preflightPack` (a stored
//! pack's press file and proof, made by the engine under wasmtime from the print renditions
//! in the store), and an order's press files (made by the durable job, reached through the
//! webhook's signed address and the operator CLI); checked with qpdf and poppler-utils.

use std::process::Command;

use serde_json::json;

use presspack::domain::orders::press_files::{PRESS_FILES, PRESS_JOBS_DONE, PressFileLinks};
use presspack::infra::secrets::SecretKey;

use crate::customers::new_pack;
use crate::every_store;
use crate::helpers::{
    ApiResponse, Credentials, StoreKind, TestApp, create_key, every_permission, spawn_app,
    spawn_app_with,
};
use crate::shop::{Receiver, Shopper};

every_store!(
    a_pack_s_press_file_holds_its_print_rendition_text_and_die_line,
    a_proof_is_small_and_preflight_reports_the_photo_s_resolution,
    press_parameters_and_access_are_checked,
    an_order_s_press_files_are_made_stored_and_reach_partner_and_operator,
    press_file_addresses_are_signed_and_expire,
    an_order_without_press_files_gets_them_from_the_cli,
);

const PHOTO: &[u8] = include_bytes!("../../engine/tests/scenes/images/photo.jpg");

/// A business card whose front is the uploaded photo, full bleed and not enhanced (so the
/// press file can embed the file as it is), and whose back has a line of text; with
/// `physical_spec`. Its pack id.
async fn card(app: &TestApp, physical_spec: &str) -> String {
    card_with(app, physical_spec, &[]).await
}

/// [`card`] with more createPack parameters.
async fn card_with(app: &TestApp, physical_spec: &str, extra: &[(&str, &str)]) -> String {
    let mut photo = app.upload_accepted("photo.jpg", PHOTO.to_vec(), &[]).await;
    photo["shouldEnhance"] = json!(false);
    let pack = json!({
        "sides": [
            {"type": "image", "sideNum": 1, "templateCode": "businesscard_full_image_landscape",
             "data": [{"type": "imageData", "linkId": "variable_image_front",
                       "resourceUri": photo["resourceUri"],
                       "imageBox": {"center": {"x": 44, "y": 29.5}, "width": 88.5, "height": 59, "angle": 0}}]},
            {"type": "details", "sideNum": 1, "templateCode": "businesscard_full_text_landscape",
             "data": [{"type": "textData", "linkId": "back_line_1", "text": "Grace Hopper"}]}
        ],
        "imageBasket": {"items": [photo]}
    })
    .to_string();
    let mut params = vec![("pack", pack.as_str()), ("physicalSpec", physical_spec)];
    params.extend_from_slice(extra);
    app.create_pack("businesscard", &params).await["packId"]
        .as_str()
        .unwrap()
        .to_owned()
}

async fn render_pdf(app: &TestApp, pack_id: &str, kind: &str) -> ApiResponse {
    app.get(&[
        ("method", "svc.pack.renderPackPdf"),
        ("packId", pack_id),
        ("kind", kind),
    ])
    .await
}

/// Runs a checking tool on `pdf`; its standard output.
fn tool(program: &str, args: &[&str], pdf: &[u8]) -> String {
    let file = tempfile::Builder::new().suffix(".pdf").tempfile().unwrap();
    std::fs::write(file.path(), pdf).unwrap();
    let output = Command::new(program)
        .args(args)
        .arg(file.path())
        .args(if program == "pdftotext" {
            &["-"][..]
        } else {
            &[][..]
        })
        .output()
        .unwrap_or_else(|e| {
            panic!("{program}: {e}; install poppler-utils and qpdf (tests/run does)")
        });
    assert!(
        output.status.success(),
        "{program} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

/// A PDF as qpdf rewrites it for reading (`--qdf`: content streams uncompressed), as text.
pub fn uncompressed(pdf: &[u8]) -> String {
    let input = tempfile::Builder::new().suffix(".pdf").tempfile().unwrap();
    std::fs::write(input.path(), pdf).unwrap();
    let output = input.path().with_extension("qdf.pdf");
    let status = Command::new("qpdf")
        .args(["--qdf", "--object-streams=disable"])
        .arg(input.path())
        .arg(&output)
        .status()
        .expect("qpdf (tests/run installs it)");
    assert!(status.success(), "qpdf --qdf failed");
    let text = String::from_utf8_lossy(&std::fs::read(&output).unwrap()).into_owned();
    std::fs::remove_file(&output).unwrap();
    text
}

/// The text of a PDF, as `pdftotext` reads it.
pub fn pdf_text(pdf: &[u8]) -> String {
    tool("pdftotext", &[], pdf)
}

/// `pdfimages -list` rows: (type, width, height, encoding).
fn images(pdf: &[u8]) -> Vec<(String, u32, u32, String)> {
    tool("pdfimages", &["-list"], pdf)
        .lines()
        .skip(2)
        .map(|line| {
            let c: Vec<&str> = line.split_whitespace().collect();
            (
                c[2].to_owned(),
                c[3].parse().unwrap(),
                c[4].parse().unwrap(),
                c[8].to_owned(),
            )
        })
        .collect()
}

async fn a_pack_s_press_file_holds_its_print_rendition_text_and_die_line(kind: StoreKind) {
    let app = spawn_app(kind).await;
    let id = card(
        &app,
        r#"{"paperClass":"classic","finishingOption":"rounded_corners"}"#,
    )
    .await;
    let reply = render_pdf(&app, &id, "press").await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    assert_eq!(reply.content_type, "application/pdf");
    let pdf = &reply.bytes;
    assert!(tool("qpdf", &["--check"], pdf).contains("No syntax or stream encoding errors"));
    let info = tool("pdfinfo", &["-box"], pdf);
    assert!(
        info.lines()
            .any(|l| l.starts_with("PDF subtype:") && l.ends_with("PDF/X-4")),
        "{info}"
    );
    // The photo as uploaded: every pixel, its JPEG bytes embedded as they are.
    assert_eq!(
        images(pdf),
        [("image".to_owned(), 900, 600, "jpeg".to_owned())]
    );
    assert!(pdf.windows(PHOTO.len()).any(|w| w == PHOTO));
    let text = pdf_text(pdf);
    assert!(text.contains("Grace Hopper"), "{text}");
    // The slug names the pack; the rounded corners are a die line on a layer of its own.
    assert!(
        text.contains(&format!("Pack {id} | side image.1 | 50 cards")),
        "{text}"
    );
    let contains = |needle: &[u8]| pdf.windows(needle.len()).any(|w| w == needle);
    assert!(contains(b"/OCProperties") && contains(b"/Dieline"));
}

async fn a_proof_is_small_and_preflight_reports_the_photo_s_resolution(kind: StoreKind) {
    let app = spawn_app(kind).await;
    let id = card(
        &app,
        r#"{"paperClass":"classic","finishingOption":"square_corners"}"#,
    )
    .await;
    // A proof unless `kind` says otherwise: no marks, the photo at 150 dpi (88.5 mm is 523
    // pixels).
    let reply = app
        .get(&[("method", "svc.pack.renderPackPdf"), ("packId", &id)])
        .await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    let proof = &reply.bytes;
    let info = tool("pdfinfo", &["-box"], proof);
    let media = info.lines().find(|l| l.starts_with("MediaBox:")).unwrap();
    let bleed = info.lines().find(|l| l.starts_with("BleedBox:")).unwrap();
    assert_eq!(media[9..], bleed[9..], "{info}");
    assert_eq!(
        images(proof),
        [("image".to_owned(), 523, 349, "jpeg".to_owned())]
    );

    let report = app
        .get(&[("method", "svc.pack.preflightPack"), ("packId", &id)])
        .await
        .ok();
    assert_eq!(report["packId"], id.as_str());
    assert_eq!(report["verdict"], "warn");
    let front = &report["pages"][0];
    assert_eq!(front["side"], "image.1");
    assert_eq!(front["copies"], 50);
    assert_eq!(front["images"][0]["width"], 900);
    assert_eq!(front["images"][0]["dpi"], 258.3);
    assert_eq!(
        front["findings"],
        json!([{"severity": "warning", "code": "LOW_RESOLUTION", "linkId": "variable_image_front",
                "message": "900 x 600 pixels print at 258.3 dpi; 300 dpi is needed for a sharp print"}])
    );
    assert_eq!(report["pages"][1]["findings"], json!([]));
}

async fn press_parameters_and_access_are_checked(kind: StoreKind) {
    let app = spawn_app(kind).await;
    let id = card(
        &app,
        r#"{"paperClass":"classic","finishingOption":"square_corners"}"#,
    )
    .await;
    let message = render_pdf(&app, &id, "poster")
        .await
        .error("invalid_parameter");
    assert!(
        message.starts_with("kind: expected proof or press"),
        "{message}"
    );
    let message = app
        .get(&[("method", "svc.pack.renderPackPdf")])
        .await
        .error("missing_parameter");
    assert!(message.starts_with("packId"), "{message}");
    // A pack without sides has nothing to print.
    let empty = app
        .create_pack(
            "businesscard",
            &[("pack", r#"{"sides": [], "imageBasket": {"items": []}}"#)],
        )
        .await["packId"]
        .as_str()
        .unwrap()
        .to_owned();
    let message = render_pdf(&app, &empty, "press")
        .await
        .error("invalid_pack");
    assert_eq!(message, "packId: the pack has no sides to print");
    // Another partner's key sees no such pack; no key is not let in at all.
    let other = create_key(&app.store, &every_permission()).await;
    let reply = app
        .send(
            reqwest::Method::GET,
            &[("method", "svc.pack.renderPackPdf"), ("packId", &id)],
            &[],
            Some(&Credentials::from(&other)),
        )
        .await;
    reply.error("pack_not_found");
    let reply = app
        .send(
            reqwest::Method::GET,
            &[("method", "svc.pack.preflightPack"), ("packId", &id)],
            &[],
            None,
        )
        .await;
    reply.exception("missing_signature");
}

/// An app whose key's callback URL is `receiver`'s, with a customer who ordered the photo
/// card (tracked) and a plain card (untracked). The order number and the photo card's id.
async fn ordered_cards(app: &TestApp, receiver: &Receiver) -> (String, String) {
    receiver.take_callbacks_of(app).await;
    let photo_card = card_with(
        app,
        r#"{"paperClass":"classic","finishingOption":"square_corners"}"#,
        &[("trackingId", "shop-order-7")],
    )
    .await;
    let (plain, _) = new_pack(app, &[]).await;
    let shopper = Shopper::new(app);
    shopper
        .sign_up(&format!("press.{:x}@example.com", rand::random::<u64>()))
        .await;
    let number = shopper.order(app, &[&photo_card, &plain]).await;
    (number, photo_card)
}

/// The job that made `number`'s press files finished at its first attempt. Its done record is
/// written after the files' record, so it is waited for (a minute at most).
async fn assert_made_in_one_attempt(app: &TestApp, number: &str) {
    let mut done = None;
    for _ in 0..600 {
        done = app.store.get(PRESS_JOBS_DONE, number).await.unwrap();
        if done.is_some() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    let job = done.expect("the press-file job is recorded as done within a minute");
    let job: serde_json::Value = serde_json::from_slice(&job.value).unwrap();
    assert_eq!(
        (job["state"].as_str(), job["attempts"].as_u64()),
        (Some("done"), Some(1))
    );
}

/// The press-file address of the first webhook `receiver` gets.
async fn press_file_url(receiver: &Receiver) -> String {
    let sent = receiver.wait_for("/webhook", 1, 60).await;
    sent[0].json()["data"]["pressFile"]["url"]
        .as_str()
        .unwrap()
        .to_owned()
}

async fn with_receiver(kind: StoreKind) -> (TestApp, Receiver) {
    let receiver = Receiver::start(0).await;
    let app = spawn_app_with(kind, |config| {
        config.webhooks.allow_hosts = vec!["127.0.0.1".into()];
    })
    .await;
    (app, receiver)
}

async fn download(app: &TestApp, url: &str) -> reqwest::Response {
    app.client.get(url).send().await.unwrap()
}

async fn an_order_s_press_files_are_made_stored_and_reach_partner_and_operator(kind: StoreKind) {
    let (app, receiver) = with_receiver(kind).await;
    let (number, photo_card) = ordered_cards(&app, &receiver).await;

    // The webhook waits for the press files, so its address answers with the file at once.
    let sent = receiver.wait_for("/webhook", 1, 60).await;
    let data = &sent[0].json()["data"];
    assert_eq!(data["packId"], photo_card.as_str());
    let url = data["pressFile"]["url"].as_str().unwrap();
    assert!(
        url.starts_with(&format!("{}/press-files/{number}/0?expires=", app.address)),
        "{url}"
    );
    assert!(
        data["pressFile"]["expiresAt"]
            .as_str()
            .unwrap()
            .ends_with('Z')
    );
    let reply = download(&app, url).await;
    assert_eq!(reply.status(), 200);
    assert_eq!(reply.headers()["content-type"], "application/pdf");
    assert_eq!(
        reply.headers()["content-disposition"],
        format!("attachment; filename=\"{number}-1-press.pdf\"").as_str()
    );
    let pdf = reply.bytes().await.unwrap().to_vec();
    assert!(tool("qpdf", &["--check"], &pdf).contains("No syntax or stream encoding errors"));
    let info = tool("pdfinfo", &[], &pdf);
    assert!(info.contains("PDF/X-4"), "{info}");
    let text = pdf_text(&pdf);
    assert!(text.contains("Grace Hopper"), "{text}");
    assert!(
        text.contains(&format!(
            "Order {number} pack 1 of 2, businesscard x1 | side image.1"
        )),
        "{text}"
    );
    assert!(
        pdf.windows(PHOTO.len()).any(|w| w == PHOTO),
        "every pixel of the photo"
    );

    // The operator writes both files and sees their preflight.
    let out = tempfile::tempdir().unwrap();
    let dir = out.path().to_str().unwrap();
    let written = app.cli(&["orders", "artwork", &number, "--out", dir]);
    let stdout = String::from_utf8_lossy(&written.stdout);
    assert!(
        written.status.success(),
        "{stdout} {}",
        String::from_utf8_lossy(&written.stderr)
    );
    assert!(
        stdout.contains("-1-press.pdf") && stdout.contains("preflight: warn"),
        "{stdout}"
    );
    assert!(
        stdout.contains("image.1 warning LOW_RESOLUTION variable_image_front: 900 x 600 pixels"),
        "{stdout}"
    );
    let first = std::fs::read(out.path().join(format!("{number}-1-press.pdf"))).unwrap();
    assert_eq!(first, pdf, "the stored file, made once");
    let second = std::fs::read(out.path().join(format!("{number}-2-press.pdf"))).unwrap();
    assert!(pdf_text(&second).contains(&format!("Order {number} pack 2 of 2")));

    let shown = app.cli(&["orders", "show", &number]);
    assert!(shown.status.success());
    let shown: serde_json::Value = serde_json::from_slice(&shown.stdout).unwrap();
    let files = shown["pressFiles"].as_array().unwrap();
    assert_eq!(files.len(), 2);
    assert_eq!(files[0]["file"], format!("{number}-1-press.pdf"));
    assert_eq!(files[0]["pressFile"]["state"], "produced");
    assert_eq!(files[0]["pressFile"]["bytes"], pdf.len());
    assert_eq!(files[0]["pressFile"]["report"]["verdict"], "warn");
    assert_eq!(
        files[0]["pressFile"]["report"]["pages"][0]["findings"][0]["code"],
        "LOW_RESOLUTION"
    );
    assert_eq!(files[1]["pressFile"]["state"], "produced");
    // The job is done, once.
    assert_made_in_one_attempt(&app, &number).await;
}

async fn press_file_addresses_are_signed_and_expire(kind: StoreKind) {
    let (app, receiver) = with_receiver(kind).await;
    let (number, _) = ordered_cards(&app, &receiver).await;
    let url = press_file_url(&receiver).await;
    let (path, query) = url.split_once('?').unwrap();
    let (expires, signature) = query
        .strip_prefix("expires=")
        .unwrap()
        .split_once("&signature=")
        .unwrap();
    let mut flipped = signature.to_owned();
    let last = if flipped.ends_with('0') { "1" } else { "0" };
    flipped.replace_range(63.., last);
    let later = expires.parse::<u64>().unwrap() + 1;
    let other_line = path.replace(&format!("{number}/0"), &format!("{number}/1"));
    for forged in [
        format!("{path}?expires={expires}&signature={flipped}"),
        format!("{path}?expires={later}&signature={signature}"),
        format!("{other_line}?expires={expires}&signature={signature}"),
        format!("{path}?expires={expires}&signature="),
        format!("{path}?expires={expires}&signature={signature}0"),
    ] {
        let reply = download(&app, &forged).await;
        assert_eq!(reply.status(), 403, "{forged}");
        assert!(reply.text().await.unwrap().starts_with("signature:"));
    }
    for malformed in [
        format!("{path}?signature={signature}"),
        format!("{path}?expires={expires}&expires={expires}&signature={signature}"),
        format!("{path}?expires=soon&signature={signature}"),
    ] {
        let reply = download(&app, &malformed).await;
        assert_eq!(reply.status(), 400, "{malformed}");
        assert!(
            reply.text().await.unwrap().contains("expires"),
            "{malformed}"
        );
    }
    // An address made with the deployment's key for a time gone by has expired.
    let key = SecretKey::load_or_create(app.store.as_ref()).await.unwrap();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let links = PressFileLinks {
        base_url: &app.address,
        key: &key,
        expires: now - 1,
    };
    let reply = download(&app, &links.link(&number, 0).url).await;
    assert_eq!(reply.status(), 410);
    assert!(reply.text().await.unwrap().starts_with("expires:"));
    // A line the order does not have, signed: not found.
    let links = PressFileLinks {
        expires: now + 60,
        ..links
    };
    assert_eq!(
        download(&app, &links.link(&number, 2).url).await.status(),
        404
    );
    assert_eq!(
        download(&app, &links.link(&number, 0).url).await.status(),
        200
    );
}

/// Runs `orders artwork` until it stops saying a file is being made; its last output.
async fn artwork_when_made(app: &TestApp, number: &str, dir: &str) -> std::process::Output {
    for _ in 0..600 {
        let output = app.cli(&["orders", "artwork", number, "--out", dir]);
        if !String::from_utf8_lossy(&output.stderr).contains("is being made") {
            return output;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    panic!("the press files of {number} were not made within a minute");
}

async fn an_order_without_press_files_gets_them_from_the_cli(kind: StoreKind) {
    let (app, receiver) = with_receiver(kind).await;
    let (number, _) = ordered_cards(&app, &receiver).await;
    let url = press_file_url(&receiver).await;
    // As an order placed before press files were made: no job, no files.
    let store = app.store.as_ref();
    let forget_press_files = || async {
        // The job is recorded as done just after its files (and so the webhook) are out.
        app.press_job_finished(&number).await;
        assert!(store.delete(PRESS_JOBS_DONE, &number).await.unwrap());
        assert!(store.delete(PRESS_FILES, &number).await.unwrap());
    };
    forget_press_files().await;
    assert_eq!(download(&app, &url).await.status(), 404);
    let out = tempfile::tempdir().unwrap();
    let dir = out.path().to_str().unwrap();
    let first = app.cli(&["orders", "artwork", &number, "--out", dir]);
    assert!(!first.status.success());
    let stderr = String::from_utf8_lossy(&first.stderr);
    assert!(stderr.contains("it is queued now"), "{stderr}");
    // The running server's worker makes them.
    let made = artwork_when_made(&app, &number, dir).await;
    assert!(
        made.status.success(),
        "{}",
        String::from_utf8_lossy(&made.stderr)
    );
    assert!(out.path().join(format!("{number}-1-press.pdf")).exists());
    assert!(out.path().join(format!("{number}-2-press.pdf")).exists());

    // A pack whose photo is gone cannot be printed: its file fails with the reason (no retry
    // can bring the photo back) while the other pack's is made.
    forget_press_files().await;
    let gone = format!("{:032x}", rand::random::<u128>());
    app.change_stored_order(&number, |order| {
        let pack = order["lines"][0]["pack"].to_string();
        let photo = pack.split("store://").nth(1).unwrap()[..32].to_owned();
        order["lines"][0]["pack"] = serde_json::from_str(&pack.replace(&photo, &gone)).unwrap();
    })
    .await;
    app.cli(&["orders", "artwork", &number, "--out", dir]);
    let failed = artwork_when_made(&app, &number, dir).await;
    assert!(!failed.status.success());
    let stderr = String::from_utf8_lossy(&failed.stderr);
    assert!(
        stderr.contains("pack 1 (") && stderr.contains("cannot be printed: resourceUri"),
        "{stderr}"
    );
    assert!(!stderr.contains("pack 2"), "{stderr}");
    let reply = download(&app, &url).await;
    assert_eq!(reply.status(), 409);
    let body = reply.text().await.unwrap();
    assert!(
        body.starts_with("the pack cannot be printed as it is: resourceUri")
            && body.contains(&gone),
        "{body}"
    );
    assert_made_in_one_attempt(&app, &number).await;
}

/// With blobs on object storage and `s3_redirect_seconds`, a press file's signed address
/// answers with a redirect to a signed object URL that serves the same PDF as a download
/// named as before.
#[tokio::test]
#[ignore = "needs an S3 server in PRESSPACK_TEST_S3 (tests/s3-server.sh)"]
async fn press_files_on_object_storage_are_served_by_signed_redirects_when_asked() {
    let (location, settings) = crate::blobs::test_s3();
    let receiver = Receiver::start(0).await;
    let app = spawn_app_with(StoreKind::Embedded, |config| {
        config.webhooks.allow_hosts = vec!["127.0.0.1".into()];
        config.store.blob_store = Some(presspack::config::BlobStoreKind::S3(location));
        config.s3 = presspack::config::S3Settings {
            redirect: std::time::Duration::from_secs(300),
            ..settings
        };
    })
    .await;
    let (number, _) = ordered_cards(&app, &receiver).await;
    let url = press_file_url(&receiver).await;
    let client = crate::blobs::not_following();
    let redirect = client.get(&url).send().await.unwrap();
    assert_eq!(redirect.status(), 307);
    let signed = redirect.headers()["location"].to_str().unwrap().to_owned();
    assert!(signed.contains("X-Amz-Expires=300"), "{signed}");
    let fetched = client.get(&signed).send().await.unwrap();
    assert_eq!(fetched.status(), 200, "{signed}");
    assert_eq!(fetched.headers()["content-type"], "application/pdf");
    assert_eq!(
        fetched.headers()["content-disposition"],
        format!("attachment; filename=\"{number}-1-press.pdf\"").as_str()
    );
    let pdf = fetched.bytes().await.unwrap();
    assert!(pdf_text(&pdf).contains(&format!("Order {number} pack 1 of 2")));
}
