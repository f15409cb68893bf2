//! The RPC endpoint `{base_url}/api/service/`: collects the parameters, picks the operation
//! named by `method` from the dispatch table, and renders its reply or the `exception`
//! envelope, honouring `errorsAsOK` and `responseContentType` on every operation.

pub mod call;
pub mod params;

pub mod cart;
pub mod images;
pub mod orders;
pub mod packs;
pub mod press;
pub mod render;
pub mod templates;
pub mod text;

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{ConnectInfo, Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use futures_util::StreamExt;
use std::net::SocketAddr;

use call::{Call, Reply};
pub use params::{BodyEncoding, Params, truncate};

use crate::domain::error::{DomainError, ErrorCode};
use crate::domain::images::service::UploadPermit;
use crate::domain::keys::Permission;
use crate::domain::services::Services;
use crate::http::auth::rate::{self, RateState};
use crate::http::auth::{self, AuthRule, SignedRequest};
use crate::http::metrics::{self, ApiOutcome, Edge};
use crate::http::state::AppState;

type HandlerFuture<'a> = Pin<Box<dyn Future<Output = Result<Reply, DomainError>> + Send + 'a>>;
type Handler = for<'a> fn(&'a Services, &'a Call<'a>) -> HandlerFuture<'a>;

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
    AddToCart, Create, CreateTrialPack, GetTemplate, ImportImage, MarkOrdersPaid, Read, RenderSide,
    Update,
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
    // Presspack's own: a pack's press file (PDF) and its preflight.
    operation("svc.pack.renderPackPdf", Required(RenderSide), |s, c| {
        Box::pin(press::render_pack_pdf(s, c))
    }),
    operation("svc.pack.preflightPack", Required(RenderSide), |s, c| {
        Box::pin(press::preflight_pack(s, c))
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
    // Presspack's own: the shop's back office records a payment.
    operation("svc.order.markPaid", Required(MarkOrdersPaid), |s, c| {
        Box::pin(orders::mark_paid(s, c))
    }),
];

fn find_operation(params: &Params) -> Result<&'static Operation, DomainError> {
    let name = params.required("method")?;
    OPERATIONS.iter().find(|op| op.name == name).ok_or_else(|| {
        let names: Vec<&str> = OPERATIONS.iter().map(|op| op.name).collect();
        DomainError::new(
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
    client: Option<std::net::IpAddr>,
) -> (Result<Reply, DomainError>, Option<RateState>) {
    let operation = match find_operation(request.params) {
        Ok(operation) => operation,
        Err(error) => return (Err(error), None),
    };
    // Only image operations may send more than the usual body (see `read_body`).
    if request.params.body_len() > state.edge.max_body_bytes && !images::takes_image(operation.name)
    {
        return (Err(body_too_large(state.edge.max_body_bytes)), None);
    }
    let key = match auth::authorize(state, operation.auth, request).await {
        Ok(key) => key,
        // A call that proves no key counts as a call without one, so guesses (and the
        // signature checks they cost) are limited per address like any unsigned call.
        Err(error) => {
            return match rate::count_unsigned_call(state, client).await {
                Ok(Some(rate)) if rate.exceeded() => (Err(rate.error()), Some(rate)),
                Ok(rate) => (Err(error), rate),
                Err(_) => (Err(error), None),
            };
        }
    };
    let counted = match &key {
        Some(key) => rate::count_call(state, key).await,
        None => rate::count_unsigned_call(state, client).await,
    };
    let rate = match counted {
        Ok(rate) => rate,
        Err(error) => return (Err(error), None),
    };
    if let Some(rate) = rate.filter(RateState::exceeded) {
        return (Err(rate.error()), Some(rate));
    }
    // A partner's calls are its key's, whichever network its servers share.
    if let Some(key) = &key {
        crate::infra::engine::holders::only_for(format!("key {}", key.consumer_key));
    }
    let call = Call {
        params: request.params,
        key,
        client,
        base_url: &state.services.base_url,
        unsigned_upload_budget: state.unsigned_limits.upload_bytes_per_hour,
    };
    ((operation.handler)(&state.services, &call).await, rate)
}

/// How to send the reply: the common parameters every operation accepts.
struct ResponseFormat {
    errors_as_ok: bool,
    content_type: Option<HeaderValue>,
}

/// The policy of every API reply: a reply is data, never a page; nothing in it may run,
/// load or be framed, whatever a browser makes of it.
const API_CONTENT_SECURITY_POLICY: &str = "default-src 'none'; frame-ancestors 'none'";

impl ResponseFormat {
    /// Reads `errorsAsOK` and `responseContentType`. A bad value is reported as an error,
    /// sent in the format of whatever could be read.
    fn read(params: &Params) -> (ResponseFormat, Option<DomainError>) {
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

    /// The format of a request whose parameters could not be read.
    const DEFAULT: ResponseFormat = ResponseFormat {
        errors_as_ok: false,
        content_type: None,
    };

    fn respond(&self, result: Result<Reply, DomainError>) -> Response {
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
                (
                    header::CONTENT_SECURITY_POLICY,
                    HeaderValue::from_static(API_CONTENT_SECURITY_POLICY),
                ),
                (
                    header::X_CONTENT_TYPE_OPTIONS,
                    HeaderValue::from_static("nosniff"),
                ),
            ],
            body,
        )
            .into_response()
    }
}

/// The media types `responseContentType` may name: types a browser shows as data or
/// downloads, never runs. HTML, XHTML, SVG, scripts and the like would turn a reply that
/// echoes a parameter into a page running the caller's script on this origin. XML stays:
/// only getTemplate answers XML, from the operator's templates, and the policy forbids
/// scripts in any case.
const RESPONSE_TYPES: [&str; 8] = [
    "application/json",
    "text/plain",
    "application/xml",
    "text/xml",
    "text/csv",
    "application/octet-stream",
    "image/png",
    "image/jpeg",
];

/// A syntactically valid media type (RFC 9110 section 8.3.1) of [`RESPONSE_TYPES`], safe to
/// send as a header.
fn media_type(value: &str) -> Result<HeaderValue, DomainError> {
    let invalid = || {
        DomainError::invalid(
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
    if !RESPONSE_TYPES
        .iter()
        .any(|allowed| essence.eq_ignore_ascii_case(allowed))
    {
        return Err(DomainError::invalid(
            "responseContentType",
            format!(
                "{:?} is not allowed: a browser could run such a reply as a page or script; \
                 use one of {}",
                truncate(essence),
                RESPONSE_TYPES.join(", ")
            ),
        ));
    }
    HeaderValue::from_str(value).map_err(|_| invalid())
}

fn body_too_large(limit: usize) -> DomainError {
    DomainError::new(
        ErrorCode::RequestTooLarge,
        format!("the request body is larger than {limit} bytes"),
    )
}

/// The length a request declares for its body, if it declares one it can keep to.
fn declared_length(headers: &axum::http::HeaderMap) -> Option<u64> {
    headers
        .get(header::CONTENT_LENGTH)?
        .to_str()
        .ok()?
        .parse()
        .ok()
}

/// Whether a request may be an image operation, as far as its query string and the start of
/// its body tell: a large body is read on only for one.
fn may_take_image(params: &Params, start: &[u8]) -> bool {
    if let Some(method) = params.get("method") {
        return images::takes_image(method);
    }
    // A form body naming its method early says what it is; a multipart one is read on (its
    // parts come whole, and uploadImage is the multipart operation).
    start
        .split(|&b| b == b'&')
        .find_map(|pair| pair.strip_prefix(b"method="))
        .is_none_or(|method| {
            std::str::from_utf8(method).is_ok_and(|m| images::takes_image(m.trim()))
        })
}

/// Reads a request body. Up to the usual limit it is read at once; a larger one only by a
/// request that may be an image operation, while it holds one of the few upload permits
/// (taken only once the usual limit has arrived, so a slow or stalled client never holds
/// one for long: the server's pacing fails such a body, which frees the permit).
async fn read_body<'s>(
    state: &'s AppState,
    params: &Params,
    headers: &axum::http::HeaderMap,
    client: Option<std::net::IpAddr>,
    body: axum::body::Body,
) -> Result<(Bytes, Option<UploadPermit<'s>>), DomainError> {
    let usual = state.edge.max_body_bytes;
    let largest = state.services.images.max_body_bytes().max(usual);
    let declared = declared_length(headers);
    if declared.is_some_and(|length| length > largest as u64) {
        return Err(body_too_large(largest));
    }
    if declared.is_some_and(|length| length > usual as u64)
        && params
            .get("method")
            .is_some_and(|method| !images::takes_image(method))
    {
        return Err(body_too_large(usual));
    }
    let failed = |error: axum::Error| match crate::http::serve::too_slow(&error) {
        Some(min_rate) => DomainError::new(
            ErrorCode::RequestTooSlow,
            format!(
                "the request body arrived slower than {min_rate} bytes a second; send it at \
                 least that fast"
            ),
        ),
        None => DomainError::new(
            ErrorCode::RequestTooLarge,
            format!("the request body could not be read: {error}"),
        ),
    };
    let mut stream = body.into_data_stream();
    let mut read = Vec::with_capacity(declared.map_or(0, |l| l.min(usual as u64) as usize));
    let mut permit = None;
    let mut limit = usual;
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.map_err(failed)?;
        if read.len() + chunk.len() > limit {
            if permit.is_some() || !may_take_image(params, &read) {
                return Err(body_too_large(limit));
            }
            let network = client.map(crate::http::client::limit_key);
            permit = Some(state.services.images.upload_permit(network).await?);
            limit = largest;
            if read.len() + chunk.len() > limit {
                return Err(body_too_large(limit));
            }
        }
        read.extend_from_slice(&chunk);
    }
    Ok((Bytes::from(read), permit))
}

fn exception_body(error: &DomainError) -> Vec<u8> {
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
        Err(error) => return ResponseFormat::DEFAULT.respond(Err(error)),
    };
    // The permit of a large body is held until the call is answered: what it read and what
    // the engine makes of it stay bounded however many arrive at once.
    let client = parts
        .extensions
        .get::<ConnectInfo<SocketAddr>>()
        .map(|info| {
            state
                .edge
                .trusted_proxies
                .client(info.0.ip(), &parts.headers)
        });
    let (body_read, _upload_permit) =
        match read_body(&state, &params, &parts.headers, client, body).await {
            Ok((bytes, permit)) if bytes.is_empty() => (Ok(()), permit),
            Ok((bytes, permit)) => {
                let added = match BodyEncoding::of(&parts.headers) {
                    Ok(encoding) => params.add_body(encoding, bytes).await,
                    Err(error) => Err(error),
                };
                (added, permit)
            }
            Err(error) => (Err(error), None),
        };
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
            dispatch(&state, &signed, client).await
        }
    };
    let server_fault = result
        .as_ref()
        .is_err_and(|error| error.kind().is_server_fault());
    let outcome = match &result {
        Ok(_) => "ok",
        Err(error) => {
            metrics::record_failure(error, Edge::Api);
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
    response.extensions_mut().insert(ApiOutcome {
        method,
        outcome,
        server_fault,
    });
    response
}
