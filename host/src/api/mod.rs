//! The RPC endpoint `{base_url}/api/service/`: collects the parameters, picks the operation
//! named by `method` from the dispatch table, and renders its reply or the `exception`
//! envelope, honouring `errorsAsOK` and `responseContentType` on every operation.

mod error;
mod params;

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;

pub use error::{ApiError, ErrorCode};
pub use params::{Params, truncate};

use crate::app::AppState;
use crate::packs;

/// A successful reply: a document and its default content type.
pub struct Reply {
    content_type: &'static str,
    body: Vec<u8>,
}

impl Reply {
    pub fn json(value: &impl Serialize) -> Result<Reply, ApiError> {
        let body = serde_json::to_vec(value)
            .map_err(|e| ApiError::new(ErrorCode::Internal, format!("cannot encode reply: {e}")))?;
        Ok(Reply {
            content_type: "application/json",
            body,
        })
    }
}

type HandlerFuture<'a> = Pin<Box<dyn Future<Output = Result<Reply, ApiError>> + Send + 'a>>;
type Handler = for<'a> fn(&'a AppState, &'a Params) -> HandlerFuture<'a>;

/// One row of the dispatch table. `handler` is `None` for operations of the API that this
/// server does not offer yet; they answer `not_available_yet`.
pub struct Operation {
    pub name: &'static str,
    handler: Option<Handler>,
}

/// Every operation of the API, by `method` name.
pub const OPERATIONS: &[Operation] = &[
    Operation {
        name: "svc.pack.createPack",
        handler: Some(|s, p| Box::pin(packs::create_pack(s, p))),
    },
    Operation {
        name: "svc.pack.createTrialPartnerPack",
        handler: None,
    },
    Operation {
        name: "svc.pack.getPack",
        handler: Some(|s, p| Box::pin(packs::get_pack(s, p))),
    },
    Operation {
        name: "svc.pack.getPhysicalSpec",
        handler: Some(|s, p| Box::pin(packs::get_physical_spec(s, p))),
    },
    Operation {
        name: "svc.pack.updatePack",
        handler: Some(|s, p| Box::pin(packs::update_pack(s, p))),
    },
    Operation {
        name: "svc.pack.updatePhysicalSpec",
        handler: Some(|s, p| Box::pin(packs::update_physical_spec(s, p))),
    },
    Operation {
        name: "svc.pack.addToCart",
        handler: None,
    },
    Operation {
        name: "svc.pack.renderSide",
        handler: None,
    },
    Operation {
        name: "svc.pack.renderSideUrl",
        handler: None,
    },
    Operation {
        name: "svc.pack.getRenderedSide",
        handler: None,
    },
    Operation {
        name: "svc.template.getTemplate",
        handler: None,
    },
    Operation {
        name: "svc.image.uploadImage",
        handler: None,
    },
    Operation {
        name: "svc.image.importImage",
        handler: None,
    },
    Operation {
        name: "svc.text.measure",
        handler: None,
    },
];

async fn dispatch(state: &AppState, params: &Params) -> Result<Reply, ApiError> {
    let name = params.required("method")?;
    let operation = OPERATIONS
        .iter()
        .find(|op| op.name == name)
        .ok_or_else(|| {
            let names: Vec<&str> = OPERATIONS.iter().map(|op| op.name).collect();
            ApiError::new(
                ErrorCode::UnknownMethod,
                format!(
                    "method: {:?} is not an operation; operations are {}",
                    truncate(name),
                    names.join(", ")
                ),
            )
        })?;
    match operation.handler {
        Some(handler) => handler(state, params).await,
        None => Err(ApiError::new(
            ErrorCode::NotAvailableYet,
            format!("method: {name} is not available on this server yet"),
        )),
    }
}

/// How to send the reply: the common parameters every operation accepts.
struct ResponseFormat {
    errors_as_ok: bool,
    content_type: Option<HeaderValue>,
}

impl ResponseFormat {
    /// Reads `errorsAsOK` and `responseContentType`. A bad value is reported as an error,
    /// sent in the format of whatever could be read.
    fn read(params: &Params) -> (ResponseFormat, Option<ApiError>) {
        let errors_as_ok = params.bool("errorsAsOK");
        let content_type = params
            .text("responseContentType", 255)
            .and_then(|value| value.map(media_type).transpose());
        let format = ResponseFormat {
            errors_as_ok: errors_as_ok.clone().ok().flatten().unwrap_or(false),
            content_type: content_type.clone().ok().flatten(),
        };
        (format, errors_as_ok.err().or(content_type.err()))
    }

    fn respond(&self, result: Result<Reply, ApiError>) -> Response {
        let (status, default_type, body) = match result {
            Ok(reply) => (StatusCode::OK, reply.content_type, reply.body),
            Err(error) => {
                let status = if self.errors_as_ok {
                    StatusCode::OK
                } else {
                    StatusCode::INTERNAL_SERVER_ERROR
                };
                (status, "application/json", exception_body(&error))
            }
        };
        let content_type = self
            .content_type
            .clone()
            .unwrap_or_else(|| HeaderValue::from_static(default_type));
        (status, [(header::CONTENT_TYPE, content_type)], body).into_response()
    }
}

/// A syntactically valid media type (RFC 9110 section 8.3.1), safe to send as a header.
fn media_type(value: &str) -> Result<HeaderValue, ApiError> {
    let invalid = || {
        ApiError::invalid(
            "responseContentType",
            format!(
                "{:?} is not a media type such as text/plain",
                truncate(value)
            ),
        )
    };
    let is_token = |s: &str| {
        !s.is_empty()
            && s.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
    };
    let mut parts = value.split(';');
    let essence = parts.next().unwrap_or_default().trim();
    let valid_essence = essence
        .split_once('/')
        .is_some_and(|(kind, subtype)| is_token(kind) && is_token(subtype));
    let valid_parameters = parts.all(|parameter| {
        parameter
            .trim()
            .split_once('=')
            .is_some_and(|(name, value)| {
                let quoted = value.len() >= 2 && value.starts_with('"') && value.ends_with('"');
                is_token(name)
                    && (is_token(value) || (quoted && !value[1..value.len() - 1].contains('"')))
            })
    });
    if !(valid_essence && valid_parameters) {
        return Err(invalid());
    }
    HeaderValue::from_str(value).map_err(|_| invalid())
}

fn exception_body(error: &ApiError) -> Vec<u8> {
    let (code, name) = error.code.number_and_name();
    let body = serde_json::json!({
        "exception": { "message": error.message, "code": code, "name": name }
    });
    body.to_string().into_bytes()
}

/// The axum handler for `/api/service/`, GET and POST alike.
pub async fn service(State(state): State<Arc<AppState>>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    let mut params = match Params::from_query(parts.uri.query()) {
        Ok(params) => params,
        Err(error) => {
            let format = ResponseFormat {
                errors_as_ok: false,
                content_type: None,
            };
            return format.respond(Err(error));
        }
    };
    let body_read = params
        .add_body(&parts.headers, body, state.max_body_bytes)
        .await;
    let (format, format_error) = ResponseFormat::read(&params);
    let result = match body_read.err().or(format_error) {
        Some(error) => Err(error),
        None => dispatch(&state, &params).await,
    };
    if let Err(error) = &result {
        tracing::debug!(code = error.code.number_and_name().1, message = %error.message, "request failed");
    }
    format.respond(result)
}
