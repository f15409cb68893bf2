//! `svc.pack.renderPackPdf` and `svc.pack.preflightPack` over HTTP: a stored pack's press
//! file and proof, made by the engine under wasmtime from the print renditions in the store,
//! checked with qpdf and poppler-utils.

use std::process::Command;

use serde_json::json;

use crate::every_store;
use crate::helpers::{
    ApiResponse, Credentials, StoreKind, TestApp, create_key, every_permission, spawn_app,
};

every_store!(
    a_pack_s_press_file_holds_its_print_rendition_text_and_die_line,
    a_proof_is_small_and_preflight_reports_the_photo_s_resolution,
    press_parameters_and_access_are_checked,
);

const PHOTO: &[u8] = include_bytes!("../../engine/tests/scenes/images/photo.jpg");

/// A business card whose front is the uploaded photo, full bleed and not enhanced (so the
/// press file can embed the file as it is), and whose back has a line of text; with
/// `physical_spec`. Its pack id.
async fn card(app: &TestApp, physical_spec: &str) -> String {
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
    app.create_pack(
        "businesscard",
        &[("pack", &pack), ("physicalSpec", physical_spec)],
    )
    .await["packId"]
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
