//! `svc.text.measure`: a text's width, height and line count once set in a font, by the
//! same engine (and layout code) that draws it. Lengths in the reply are millimetres.

use presspack_engine::model::Font;
use presspack_engine::render::MeasureRequest;
use presspack_engine::text::MAX_TEXT_CHARS;

use crate::domain::error::{DomainError, ErrorCode};
use crate::domain::services::Services;
use crate::http::rpc::call::{Call, Reply};

/// Millimetres per point (1 pt = 1/72 in).
const MM_PER_POINT: f64 = 25.4 / 72.0;

fn number(call: &Call<'_>, name: &str) -> Result<Option<f64>, DomainError> {
    call.params
        .text(name, 32)?
        .map(|value| {
            value
                .parse::<f64>()
                .ok()
                .filter(|n| n.is_finite() && *n > 0.0 && *n <= 1000.0)
                .ok_or_else(|| {
                    DomainError::invalid(
                        name,
                        format!("expected a number above 0 and at most 1000, got {value:?}"),
                    )
                })
        })
        .transpose()
}

pub async fn measure(services: &Services, call: &Call<'_>) -> Result<Reply, DomainError> {
    let params = call.params;
    let text = params.required("text")?;
    if text.chars().count() > MAX_TEXT_CHARS {
        return Err(DomainError::invalid(
            "text",
            format!("must be at most {MAX_TEXT_CHARS} characters"),
        ));
    }
    let size = number(call, "fontSize")?.ok_or_else(|| DomainError::missing("fontSize"))?;
    let size = match params.required("fontSizeUnits")? {
        "mm" => size,
        "pt" => size * MM_PER_POINT,
        other => {
            return Err(DomainError::invalid(
                "fontSizeUnits",
                format!(
                    "expected mm or pt, got {:?}",
                    crate::http::rpc::params::truncate(other)
                ),
            ));
        }
    };
    let font: Font = params
        .json("font", ErrorCode::InvalidParameter)?
        .ok_or_else(|| DomainError::missing("font"))?;
    let wrapping_width = number(call, "wrappingWidth")?;
    let leading = number(call, "leading")?;
    match (wrapping_width, leading) {
        (Some(_), None) => return Err(DomainError::missing("leading")),
        (None, Some(_)) => {
            return Err(DomainError::invalid(
                "leading",
                "is allowed only with wrappingWidth",
            ));
        }
        _ => {}
    }
    let request = MeasureRequest {
        text: text.to_owned(),
        font_family: font.font_family,
        bold: font.bold,
        italic: font.italic,
        size,
        wrapping_width,
        leading,
    };
    Reply::json(&services.engine.measure(&request).await?)
}
