//! `svc.pack.renderPackPdf` and `svc.pack.preflightPack` (Presspack's own, outside the MOO
//! namespace): a stored pack's press file or proof as PDF, and the preflight of its press
//! file as JSON.

use serde::Serialize;

use presspack_engine::press::PressReport;

use crate::domain::error::DomainError;
use crate::domain::ids::PackId;
use crate::domain::press::{PackToPrint, PressKind, press_file};
use crate::domain::services::Services;
use crate::http::rpc::call::{Call, Reply};
use crate::http::rpc::packs::load;

/// The press file of the call's pack: `kind` is `proof` (the default) or `press`.
async fn requested_press_file(
    services: &Services,
    call: &Call<'_>,
    default_kind: &str,
) -> Result<(PackId, PressReport, Vec<u8>), DomainError> {
    let stored = load(services, call).await?;
    let slug = format!("Pack {}", stored.id);
    let kind = match call.params.text("kind", 16)?.unwrap_or(default_kind) {
        "proof" => PressKind::Proof,
        "press" => PressKind::Press { slug: &slug },
        other => {
            return Err(DomainError::invalid(
                "kind",
                format!("expected proof or press, got {other:?}"),
            ));
        }
    };
    let print = PackToPrint::stored(services, &stored.record)?;
    let (report, pdf) = press_file(services, &print, &slug, kind).await?;
    Ok((stored.id, report, pdf))
}

/// `svc.pack.renderPackPdf`: the PDF.
pub async fn render_pack_pdf(services: &Services, call: &Call<'_>) -> Result<Reply, DomainError> {
    let (_, _, pdf) = requested_press_file(services, call, "proof").await?;
    Ok(Reply::document("application/pdf", pdf))
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PreflightEnvelope {
    pack_id: PackId,
    #[serde(flatten)]
    report: PressReport,
}

/// `svc.pack.preflightPack`: what preflight finds in the pack's press file.
pub async fn preflight_pack(services: &Services, call: &Call<'_>) -> Result<Reply, DomainError> {
    let (pack_id, report, _) = requested_press_file(services, call, "press").await?;
    Reply::json(&PreflightEnvelope { pack_id, report })
}
