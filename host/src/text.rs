//! `svc.text.measure`: a text's width, height and line count once set in a font, by the
//! same engine (and layout code) that draws it. Lengths in the reply are millimetres.

use presspack_engine::model::Font;
use presspack_engine::render::MeasureRequest;
use presspack_engine::text::MAX_TEXT_CHARS;
use presspack_engine::wire::Op;

use crate::api::{ApiError, Call, ErrorCode, Reply};
use crate::app::AppState;
use crate::render::engine_error;

/// Millimetres per point (1 pt = 1/72 in).
const MM_PER_POINT: f64 = 25.4 / 72.0;

fn number(call: &Call<'_>, name: &str) -> Result<Option<f64>, ApiError> {
    call.params
        .text(name, 32)?
        .map(|value| {
            value
                .parse::<f64>()
                .ok()
                .filter(|n| n.is_finite() && *n > 0.0 && *n <= 1000.0)
                .ok_or_else(|| {
                    ApiError::invalid(
                        name,
                        format!("expected a number above 0 and at most 1000, got {value:?}"),
                    )
                })
        })
        .transpose()
}

pub async fn measure(state: &AppState, call: &Call<'_>) -> Result<Reply, ApiError> {
    let params = call.params;
    let text = params.required("text")?;
    if text.chars().count() > MAX_TEXT_CHARS {
        return Err(ApiError::invalid(
            "text",
            format!("must be at most {MAX_TEXT_CHARS} characters"),
        ));
    }
    let size = number(call, "fontSize")?.ok_or_else(|| ApiError::missing("fontSize"))?;
    let size = match params.required("fontSizeUnits")? {
        "mm" => size,
        "pt" => size * MM_PER_POINT,
        other => {
            return Err(ApiError::invalid(
                "fontSizeUnits",
                format!("expected mm or pt, got {:?}", crate::api::truncate(other)),
            ));
        }
    };
    let font: Font = params
        .json("font", ErrorCode::InvalidParameter)?
        .ok_or_else(|| ApiError::missing("font"))?;
    let wrapping_width = number(call, "wrappingWidth")?;
    let leading = number(call, "leading")?;
    match (wrapping_width, leading) {
        (Some(_), None) => return Err(ApiError::missing("leading")),
        (None, Some(_)) => {
            return Err(ApiError::invalid(
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
    let input = serde_json::to_vec(&request).expect("requests serialise");
    let output = state
        .engine
        .call(Op::Measure, input)
        .await
        .map_err(engine_error)?;
    Ok(Reply::document("application/json", output))
}
