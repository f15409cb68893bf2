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
use crate::auth::keys::{ApiKey, Permission};
use crate::auth::rate::{self, RateState};
use crate::auth::{self, AuthRule, SignedRequest};
use crate::{cart, images, packs, render, templates, text};

/// A successful reply: a document and its default content type.
pub struct Reply {
    content_type: &'static str,
    body: Vec<u8>,
    /// `Cache-Control: max-age`, for documents that never change while they exist.
    max_age: Option<std::time::Duration>,
}

impl Reply {
    /// A document of the given type (PNG, XML, a URL as text).
    pub fn document(content_type: &'static str, body: Vec<u8>) -> Reply {
        Reply {
            content_type,
            body,
            max_age: None,
        }
    }

    /// Lets clients and proxies keep the reply for `max_age`.
    pub fn cache_for(mut self, max_age: std::time::Duration) -> Reply {
        self.max_age = Some(max_age);
        self
    }

    pub fn json(value: &impl Serialize) -> Result<Reply, ApiError> {
        let body = serde_json::to_vec(value)
            .map_err(|e| ApiError::new(ErrorCode::Internal, format!("cannot encode reply: {e}")))?;
        Ok(Reply::document("application/json", body))
    }
}

/// A call as handlers see it: its parameters and the API key that signed it, if any.
pub struct Call<'a> {
    pub params: &'a Params,
    pub key: Option<ApiKey>,
}

type HandlerFuture<'a> = Pin<Box<dyn Future<Output = Result<Reply, ApiError>> + Send + 'a>>;
type Handler = for<'a> fn(&'a AppState, &'a Call<'a>) -> HandlerFuture<'a>;

/// One row of the dispatch table: the `method` name, how calls are authorised, and the
/// handler.
pub struct Operation {
    pub name: &'static str,
    pub auth: AuthRule,
    handler: Handler,
}

const fn operation(name: &'static str, auth: AuthRule, handler: Handler) -> Operation {
    Operation {
        name,
        auth,
        handler,
    }
}

use AuthRule::{NotAllowed, Open, Optional, Required};
use Permission::{
    AddToCart, Create, CreateTrialPack, GetTemplate, ImportImage, Read, RenderSide, Update,
};

/// Every operation of the API, by `method` name, with the spec's Authentication table.
pub const OPERATIONS: &[Operation] = &[
    operation("svc.pack.createPack", Required(Create), |s, c| {
        Box::pin(packs::create_pack(s, c))
    }),
    operation(
        "svc.pack.createTrialPartnerPack",
        Required(CreateTrialPack),
        |s, c| Box::pin(packs::create_trial_partner_pack(s, c)),
    ),
    operation("svc.pack.getPack", Required(Read), |s, c| {
        Box::pin(packs::get_pack(s, c))
    }),
    operation("svc.pack.getPhysicalSpec", Required(Read), |s, c| {
        Box::pin(packs::get_physical_spec(s, c))
    }),
    operation("svc.pack.updatePack", Required(Update), |s, c| {
        Box::pin(packs::update_pack(s, c))
    }),
    operation("svc.pack.updatePhysicalSpec", Required(Update), |s, c| {
        Box::pin(packs::update_physical_spec(s, c))
    }),
    operation("svc.pack.addToCart", Required(AddToCart), |s, c| {
        Box::pin(cart::add_to_cart(s, c))
    }),
    operation("svc.pack.renderSide", Required(RenderSide), |s, c| {
        Box::pin(render::render_side(s, c))
    }),
    operation("svc.pack.renderSideUrl", Required(RenderSide), |s, c| {
        Box::pin(render::render_side_url(s, c))
    }),
    // The URL renderSideUrl returns may be passed on to anyone; its id is unguessable.
    operation("svc.pack.getRenderedSide", Open, |s, c| {
        Box::pin(render::get_rendered_side(s, c))
    }),
    operation("svc.template.getTemplate", Optional(GetTemplate), |s, c| {
        Box::pin(templates::get_template(s, c))
    }),
    operation("svc.image.uploadImage", NotAllowed, |s, c| {
        Box::pin(images::upload_image(s, c))
    }),
    operation("svc.image.importImage", Required(ImportImage), |s, c| {
        Box::pin(images::import_image(s, c))
    }),
    operation("svc.text.measure", Open, |s, c| {
        Box::pin(text::measure(s, c))
    }),
];

fn find_operation(params: &Params) -> Result<&'static Operation, ApiError> {
    let name = params.required("method")?;
    OPERATIONS.iter().find(|op| op.name == name).ok_or_else(|| {
        let names: Vec<&str> = OPERATIONS.iter().map(|op| op.name).collect();
        ApiError::new(
            ErrorCode::UnknownMethod,
            format!(
                "method: {:?} is not an operation; operations are {}",
                truncate(name),
                names.join(", ")
            ),
        )
    })
}

/// Finds, authorises, rate-limits and runs the call; with where its key stands in its
/// rate-limit window.
async fn dispatch(
    state: &AppState,
    request: &SignedRequest<'_>,
) -> (Result<Reply, ApiError>, Option<RateState>) {
    let operation = match find_operation(request.params) {
        Ok(operation) => operation,
        Err(error) => return (Err(error), None),
    };
    // Only image operations may send more than the usual body (see `service`).
    if request.params.body_len() > state.max_body_bytes && !images::takes_image(operation.name) {
        return (Err(body_too_large(state.max_body_bytes)), None);
    }
    let key = match auth::authorize(state, operation.auth, request).await {
        Ok(key) => key,
        Err(error) => return (Err(error), None),
    };
    let rate = match &key {
        Some(key) => match rate::count_call(state, key).await {
            Ok(rate) => rate,
            Err(error) => return (Err(error), None),
        },
        None => None,
    };
    if let Some(rate) = rate.filter(RateState::exceeded) {
        return (Err(rate.error()), Some(rate));
    }
    let call = Call {
        params: request.params,
        key,
    };
    ((operation.handler)(state, &call).await, rate)
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
        let (status, default_type, body, max_age) = match result {
            Ok(reply) => (
                StatusCode::OK,
                reply.content_type,
                reply.body,
                reply.max_age,
            ),
            Err(error) => {
                let status = if self.errors_as_ok {
                    StatusCode::OK
                } else {
                    StatusCode::INTERNAL_SERVER_ERROR
                };
                (status, "application/json", exception_body(&error), None)
            }
        };
        let content_type = self
            .content_type
            .clone()
            .unwrap_or_else(|| HeaderValue::from_static(default_type));
        let cache_control = match max_age {
            Some(age) => HeaderValue::from_str(&format!("public, max-age={}", age.as_secs()))
                .expect("a number is a valid header value"),
            None => HeaderValue::from_static("no-store"),
        };
        (
            status,
            [
                (header::CONTENT_TYPE, content_type),
                (header::CACHE_CONTROL, cache_control),
            ],
            body,
        )
            .into_response()
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

fn body_too_large(limit: usize) -> ApiError {
    ApiError::new(
        ErrorCode::RequestTooLarge,
        format!("the request body is larger than {limit} bytes"),
    )
}

/// Whether the request says its body is larger than the usual limit (or does not say).
fn declares_large_body(headers: &axum::http::HeaderMap, limit: usize) -> bool {
    match headers.get(header::CONTENT_LENGTH) {
        Some(length) => length
            .to_str()
            .ok()
            .and_then(|l| l.parse::<u64>().ok())
            .is_none_or(|length| length > limit as u64),
        None => headers.contains_key(header::TRANSFER_ENCODING),
    }
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
    // Image uploads and imports may be large: such bodies are read only while holding one of
    // a few permits, so memory stays bounded however many arrive at once. A query string
    // naming another method needs no permit: its body may not be large.
    let mut upload_permit = None;
    let mut body_limit = state.max_body_bytes;
    let may_take_image = params.get("method").is_none_or(images::takes_image);
    if may_take_image && declares_large_body(&parts.headers, state.max_body_bytes) {
        match state.images.upload_permit().await {
            Ok(permit) => upload_permit = Some(permit),
            Err(error) => {
                let format = ResponseFormat::read(&params).0;
                return format.respond(Err(error));
            }
        }
        body_limit = state.images.max_body_bytes();
    }
    let body_read = params.add_body(&parts.headers, body, body_limit).await;
    let (format, format_error) = ResponseFormat::read(&params);
    let (result, rate) = match body_read.err().or(format_error) {
        Some(error) => (Err(error), None),
        None => {
            let signed = SignedRequest {
                http_method: parts.method.as_str(),
                path: parts.uri.path(),
                authorization: parts
                    .headers
                    .get(header::AUTHORIZATION)
                    .and_then(|v| v.to_str().ok()),
                params: &params,
            };
            dispatch(&state, &signed).await
        }
    };
    drop(upload_permit);
    let outcome = match &result {
        Ok(_) => "ok",
        Err(error) => {
            tracing::debug!(code = error.code.number_and_name().1, message = %error.message, "request failed");
            error.code.number_and_name().1
        }
    };
    let method = params
        .get("method")
        .and_then(|name| OPERATIONS.iter().find(|op| op.name == name))
        .map_or("unknown", |op| op.name);
    let mut response = format.respond(result);
    if let Some(rate) = rate {
        rate.add_headers(response.headers_mut());
    }
    response
        .extensions_mut()
        .insert(crate::observe::ApiOutcome { method, outcome });
    response
}
