//! The design canvas (`web-demo/`): the `edit` drop-in's editor and the standalone demo.
//! The host serves the canvas's script and style, the engine's browser build (the same wasm
//! engine as the server's, through wasm-bindgen, with this host's fonts and templates), the
//! stored image renditions it draws, and the owner's design: read as JSON, saved back with
//! the same checks and warnings as updatePack.

use std::collections::HashMap;
use std::sync::{Arc, LazyLock};

use axum::Json;
use axum::body::Bytes;
use axum::extract::{Path, Query, RawQuery, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use maud::{Markup, html};
use presspack_engine::model::{PreflightLimits, Product, Warning};
use presspack_engine::package::{WASM_FILE, assets_module, face_file};
use presspack_engine::render::BoxType;
use presspack_engine::text::FontCatalogue;
use serde::Serialize;
use serde_json::value::RawValue;
use sha2::{Digest, Sha256};

use crate::domain::brand::Swatch;
use crate::domain::designs::{self, Design as RegisteredDesign};
use crate::domain::error::{DomainError, ErrorCode};
use crate::domain::ids::PackId;
use crate::domain::packs::{self, AlsoRecord, PackRecord, PackToCreate, SHOP_CREATOR, StoredPack};
use crate::domain::{dropins, ownership, sides};
use crate::http::pages::error::PageError;
use crate::http::pages::forms::Fields;
use crate::http::pages::layout;
use crate::http::pages::sessions::{Visitor, over_hourly_limit};
use crate::http::pages::static_files::{BROTLI_QUALITY, Source};
use crate::http::state::{AppState, ServicesState};
use crate::infra::compress::gunzip;
use crate::infra::store::Delivery;

/// The editor's scripts and style, by their path under `/web-demo/`.
const EDITOR_FILES: [(&str, &str); 13] = [
    ("canvas.js", include_str!("../../../../web-demo/canvas.js")),
    (
        "canvas.css",
        include_str!("../../../../web-demo/canvas.css"),
    ),
    (
        "editor/designer.js",
        include_str!("../../../../web-demo/editor/designer.js"),
    ),
    (
        "editor/designs.js",
        include_str!("../../../../web-demo/editor/designs.js"),
    ),
    (
        "editor/dom.js",
        include_str!("../../../../web-demo/editor/dom.js"),
    ),
    (
        "editor/fields.js",
        include_str!("../../../../web-demo/editor/fields.js"),
    ),
    (
        "editor/fixes.js",
        include_str!("../../../../web-demo/editor/fixes.js"),
    ),
    (
        "editor/geometry.js",
        include_str!("../../../../web-demo/editor/geometry.js"),
    ),
    (
        "editor/history.js",
        include_str!("../../../../web-demo/editor/history.js"),
    ),
    (
        "editor/images.js",
        include_str!("../../../../web-demo/editor/images.js"),
    ),
    (
        "editor/save.js",
        include_str!("../../../../web-demo/editor/save.js"),
    ),
    (
        "editor/stage.js",
        include_str!("../../../../web-demo/editor/stage.js"),
    ),
    (
        "editor/warnings.js",
        include_str!("../../../../web-demo/editor/warnings.js"),
    ),
];
const SAMPLE_PACK: &str = presspack_assets::SAMPLE_PACK;
const SAMPLE_PRODUCT: &str = "businesscard";
/// The npm package's entry module; `assets.js` beside it is written per host (its fonts and
/// templates).
const ENGINE_INDEX: &str = include_str!("../../../../npm/index.js");
const ENGINE_GLUE: &str = presspack_engine_wasm::WEB_GLUE;
/// The browser build's wasm is embedded gzipped: sent as it is to browsers that accept gzip
/// but not brotli, inflated once for the rest.
const ENGINE_WASM_GZIP: &[u8] = presspack_engine_wasm::WEB_WASM_GZIP;
static ENGINE_WASM: LazyLock<Bytes> = LazyLock::new(|| gunzip(ENGINE_WASM_GZIP).into());
/// Brotli-compressed once per process, for all its servers: about a second of work, which
/// [`prepare_engine_wasm`] does at start rather than in a first visitor's request.
static ENGINE_WASM_BROTLI: LazyLock<Bytes> =
    LazyLock::new(|| crate::infra::compress::brotli(&ENGINE_WASM, BROTLI_QUALITY).into());

/// Compresses the browser's wasm (blocking): a server calls it off its async threads as it
/// starts.
pub fn prepare_engine_wasm() {
    LazyLock::force(&ENGINE_WASM_BROTLI);
}

/// Largest design a customer saves (the pack JSON); packs are a few kilobytes.
pub const MAX_DESIGN_BYTES: usize = 512 * 1024;

/// A design as the canvas loads it.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Design<'a> {
    product: &'a str,
    /// The product's cards per pack (the editor's fix for a pack of another size).
    num_cards: u32,
    name: String,
    pack: &'a RawValue,
    /// The templates a side of this product may use.
    templates: Vec<&'a str>,
    /// Where to POST the design back; none for the demo.
    save_url: Option<String>,
    /// The demo's: where to POST the design to keep it as a new pack of the visitor's.
    #[serde(skip_serializing_if = "Option::is_none")]
    start_url: Option<&'static str>,
    warnings: &'a [Warning],
    /// The resolutions the press warns and blocks pictures at: the editor's warnings judge
    /// by them, so it refuses what the server would.
    preflight_limits: PreflightLimits,
    /// The shop's colours, offered beside the free picker.
    palette: &'a [Swatch],
    /// The product's designs, offered as starting points.
    designs: Vec<DesignChoice>,
    /// Open on the designs: the pack was not started from one.
    choose_design: bool,
    /// For a guest (a visitor without an account): where to create an account or sign in
    /// after saving, to keep the design and order it.
    #[serde(skip_serializing_if = "Option::is_none")]
    guest: Option<GuestLinks>,
}

/// A design the editor offers: choosing it starts the pack from the design, the customer's
/// text kept, and a save records its code (`?design=`).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct DesignChoice {
    code: String,
    label: String,
    pack: Box<RawValue>,
}

impl DesignChoice {
    async fn offered(state: &AppState, product: &str) -> Result<Vec<DesignChoice>, PageError> {
        Ok(designs::for_product(state.services.store.as_ref(), product)
            .await?
            .into_iter()
            .map(|design| DesignChoice {
                label: design.label().to_owned(),
                code: design.code,
                pack: design.pack,
            })
            .collect())
    }
}

/// The account pages a guest's editor offers, each returning to the `edit` drop-in.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct GuestLinks {
    sign_up: String,
    sign_in: String,
}

impl GuestLinks {
    fn back_to(edit: &str) -> GuestLinks {
        let next: String = form_urlencoded::byte_serialize(edit.as_bytes()).collect();
        GuestLinks {
            sign_up: format!("/account/signup?next={next}"),
            sign_in: format!("/account/signin?next={next}"),
        }
    }
}

/// The editor's files as its pages name them, content-hashed (`?v=`) so that browsers keep
/// them for a year and an upgrade changes every name whose file changed.
struct EditorHead {
    /// The import map: `@presspack/engine` and every module the editor imports, by plain
    /// path, mapped to its versioned name.
    import_map: String,
    script: String,
    stylesheet: String,
}

impl EditorHead {
    fn of(state: &Arc<AppState>) -> EditorHead {
        let mut imports = serde_json::Map::new();
        for (path, _) in EDITOR_FILES
            .iter()
            .filter(|(path, _)| path.starts_with("editor/"))
        {
            imports.insert(format!("/web-demo/{path}"), versioned(state, path).into());
        }
        for file in ["index.js", "presspack_engine.js", "assets.js"] {
            let url = versioned(state, &format!("engine/{file}"));
            if file == "index.js" {
                imports.insert("@presspack/engine".to_owned(), url.clone().into());
            }
            imports.insert(format!("/web-demo/engine/{file}"), url.into());
        }
        EditorHead {
            import_map: serde_json::json!({ "imports": imports }).to_string(),
            script: versioned(state, "canvas.js"),
            stylesheet: versioned(state, "canvas.css"),
        }
    }

    /// The policy's source for the import map, an inline script: its SHA-256.
    fn import_map_source(&self) -> String {
        use base64::Engine as _;
        use sha2::Digest as _;
        let digest = sha2::Sha256::digest(self.import_map.as_bytes());
        format!(
            "'sha256-{}'",
            base64::engine::general_purpose::STANDARD.encode(digest)
        )
    }

    /// The editor, mounted in a page: it loads its design from `source`.
    fn page(
        &self,
        visitor: &Visitor,
        title: &str,
        before: Markup,
        source: &str,
        after: Markup,
    ) -> Response {
        let content = html! {
            (before)
            div #designer.designer data-source=(source) data-csrf=(visitor.csrf_token)
                data-stylesheet=(self.stylesheet) {
                p.notice role="status" { "Loading the design editor…" }
                noscript { p.notice { "The design editor needs JavaScript." } }
            }
            script type="importmap" { (maud::PreEscaped(&self.import_map)) }
            script type="module" src=(self.script) {}
            (after)
        };
        layout::canvas_page(visitor, title, content, &self.import_map_source())
    }
}

/// `/web-demo/{path}?v=<version>`: the name of one of the editor's files (or the engine's,
/// under `engine/`) that browsers may keep.
fn versioned(state: &Arc<AppState>, path: &str) -> String {
    let source = match path.strip_prefix("engine/") {
        Some(file) => engine_source(state, file),
        None => editor_source(path),
    };
    match source {
        Some(source) => {
            let version = state
                .static_files
                .version(&format!("web-demo/{path}"), source);
            format!("/web-demo/{path}?v={version}")
        }
        None => format!("/web-demo/{path}"),
    }
}

/// `GET /web-demo/`: the canvas with a sample pack (nothing is saved).
pub async fn demo_page(State(state): State<Arc<AppState>>, visitor: Visitor) -> Response {
    let before = html! {
        p.lead { "Try the design canvas on a sample business card. Save keeps it as your own design: in your account when you are signed in, otherwise on this browser for seven days." }
    };
    EditorHead::of(&state).page(
        &visitor,
        "Design canvas",
        before,
        "/web-demo/sample.json",
        html! {},
    )
}

/// The `edit` drop-in for the pack's owner.
pub fn edit_page(
    state: &Arc<AppState>,
    visitor: &Visitor,
    pack_id: &str,
    pack: &PackRecord,
    (finish, finish_label): (&str, &str),
) -> Response {
    let (before, after) = match visitor.customer {
        Some(_) => (
            html! { p.lead { strong { (pack.display_name()) } " · your changes are saved to your account when you press Save." } },
            html! { p.actions { a.secondary #finish-editing href=(finish) { (finish_label) } } },
        ),
        // A guest designs at once; the editor's account buttons save first.
        None => (
            html! { p.lead { strong { (pack.display_name()) } " · design it now. Save keeps it on this browser for seven days; create an account or sign in to keep it and order it." } },
            html! {},
        ),
    };
    EditorHead::of(state).page(
        visitor,
        "Edit your design",
        before,
        &design_url(pack_id, visitor, pack),
        after,
    )
}

fn templates_of<'a>(state: &'a AppState, product: &Product) -> Vec<&'a str> {
    state
        .services
        .templates
        .codes()
        .filter(|code| {
            state
                .services
                .templates
                .get(code)
                .is_some_and(|entry| product.fits(&entry.template))
        })
        .collect()
}

/// `GET /web-demo/sample.json`
pub async fn sample(State(state): State<Arc<AppState>>) -> Response {
    let product = state
        .services
        .catalogue
        .product(SAMPLE_PRODUCT)
        .expect("the catalogue sells business cards");
    let pack: &RawValue =
        serde_json::from_str(SAMPLE_PACK).expect("assets/samples/sample-pack.json is JSON");
    let designs = match DesignChoice::offered(&state, SAMPLE_PRODUCT).await {
        Ok(designs) => designs,
        Err(error) => return json_error(error.status, &error.message),
    };
    json_response(&Design {
        product: SAMPLE_PRODUCT,
        num_cards: product.num_cards,
        name: "Sample business card".into(),
        pack,
        templates: templates_of(&state, product),
        save_url: None,
        start_url: Some(START_URL),
        warnings: &[],
        preflight_limits: state.services.images.settings().preflight_limits(),
        palette: &state.services.brand.palette,
        designs,
        choose_design: false,
        guest: None,
    })
}

/// The pack whose design this visitor may load and save: their own (as a customer or a
/// guest), or, for a visitor who is not signed in and has the pack's drop-in `token`, one
/// that nobody holds: a guest designs at once, and their first save takes the pack.
async fn editable_pack(
    state: &AppState,
    visitor: &Visitor,
    pack_id: &str,
    token: Option<&str>,
) -> Result<StoredPack, PageError> {
    let store = state.services.store.as_ref();
    let no_such_pack = || PageError::not_found("There is no such pack.");
    let id = PackId::parse(pack_id).ok_or_else(no_such_pack)?;
    let stored = packs::load(&state.services, &id)
        .await
        .map_err(|e| PageError::unless_not_found(e, no_such_pack))?;
    let holder = stored.record.owner.as_deref();
    if holder.is_some() && holder == visitor.owner_id() {
        return Ok(stored);
    }
    // A customer takes a pack with the drop-in's button, never by saving.
    if visitor.customer.is_some() || !stored.record.opens_with(token) {
        return Err(no_such_pack());
    }
    if let Some(holder) = holder
        && ownership::holds(store, &state.services.clock, holder).await?
    {
        return Err(ownership::held_by_another(holder).into());
    }
    Ok(stored)
}

/// The design's address for this visitor: a guest's carries the drop-in token.
fn design_url(pack_id: &str, visitor: &Visitor, record: &PackRecord) -> String {
    match visitor.customer {
        Some(_) => format!("/packs/{pack_id}/design"),
        None => format!("/packs/{pack_id}/design?token={}", record.drop_in_token),
    }
}

/// `GET /packs/{packId}/design`: the owner's design.
pub async fn design(
    State(state): State<Arc<AppState>>,
    visitor: Visitor,
    Path(pack_id): Path<String>,
    Query(query): Query<Fields>,
) -> Response {
    let token = query.get("token").map(String::as_str);
    let stored = match editable_pack(&state, &visitor, &pack_id, token).await {
        Ok(stored) => stored,
        Err(error) => return json_error(error.status, &error.message),
    };
    let record = &stored.record;
    let Some(product) = state.services.catalogue.product(&record.product) else {
        return json_error(StatusCode::NOT_FOUND, "This product is no longer sold.");
    };
    let designs = match DesignChoice::offered(&state, &record.product).await {
        Ok(designs) => designs,
        Err(error) => return json_error(error.status, &error.message),
    };
    json_response(&Design {
        product: &record.product,
        num_cards: product.num_cards,
        name: record.display_name(),
        pack: &record.pack,
        templates: templates_of(&state, product),
        save_url: Some(design_url(&pack_id, &visitor, record)),
        start_url: None,
        warnings: &record.warnings,
        preflight_limits: state.services.images.settings().preflight_limits(),
        palette: &state.services.brand.palette,
        choose_design: record.design_code.is_none() && !designs.is_empty(),
        designs,
        guest: visitor
            .customer
            .is_none()
            .then(|| GuestLinks::back_to(&dropins::path(&pack_id, "edit", &record.drop_in_token))),
    })
}

/// `POST /packs/{packId}/design` (JSON pack, `X-CSRF-Token` header, `?design=CODE` once the
/// customer chose a design to start from): saves the owner's design; answers `{warnings}`. A visitor who is not signed in saves as a guest (`?token=`, the
/// drop-in's): the first save takes the pack and starts their guest session.
pub async fn save(
    State(state): State<Arc<AppState>>,
    mut visitor: Visitor,
    Path(pack_id): Path<String>,
    Query(query): Query<Fields>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let csrf = headers.get("x-csrf-token").and_then(|v| v.to_str().ok());
    if let Err(error) = visitor.check_csrf(csrf) {
        return json_error(error.status, &error.message);
    }
    let Ok(text) = std::str::from_utf8(&body) else {
        return json_error(StatusCode::BAD_REQUEST, "pack: the body is not UTF-8 JSON");
    };
    let design = match chosen_design(&state, &query).await {
        Ok(design) => design,
        Err(error) => return json_error(error.status, &error.message),
    };
    let response = match saving_owner(&state, &mut visitor, &pack_id, &query).await {
        Ok((owner, id)) => store_design(&state, &id, text, &owner, design.as_ref()).await,
        Err(error) => json_error(error.status, &error.message),
    };
    // Whatever came of the save, a guest keeps the session it started: their first save may
    // have taken the pack for it before the pack was refused.
    with_cookies(response, &visitor)
}

/// `response` with the cookies the handler set for `visitor` (a guest's new session).
fn with_cookies(mut response: Response, visitor: &Visitor) -> Response {
    for cookie in &visitor.set_cookies {
        response
            .headers_mut()
            .append(header::SET_COOKIE, cookie.clone());
    }
    response
}

/// Replaces `owner`'s pack with the design `text` started from `design`: `{warnings}`, or the
/// error for the editor.
async fn store_design(
    state: &AppState,
    pack_id: &PackId,
    text: &str,
    owner: &str,
    design: Option<&RegisteredDesign>,
) -> Response {
    let owns = |record: &PackRecord| {
        if !record.is_owned_by(owner) {
            return Err(DomainError::new(
                ErrorCode::PackNotFound,
                "There is no such pack.",
            ));
        }
        match design {
            Some(design) if design.product != record.product => Err(DomainError::invalid(
                "design",
                "not a design of this product",
            )),
            _ => Ok(()),
        }
    };
    let also = AlsoRecord {
        friendly_name: None,
        design_code: design.map(|design| design.code.as_str()),
    };
    match crate::domain::packs::replace_pack(&state.services, pack_id, text, also, owns).await {
        Ok(stored) => json_response(&serde_json::json!({ "warnings": stored.record.warnings })),
        Err(error) => {
            let status = match error.code {
                ErrorCode::PackNotFound => StatusCode::NOT_FOUND,
                ErrorCode::InvalidPack | ErrorCode::InvalidParameter => StatusCode::BAD_REQUEST,
                _ => StatusCode::INTERNAL_SERVER_ERROR,
            };
            if status == StatusCode::INTERNAL_SERVER_ERROR {
                tracing::error!(message = %error.message, "saving a design failed");
                return json_error(status, "We could not save just now. Please try again.");
            }
            json_error(status, &error.message)
        }
    }
}

/// Where the demo's design is kept as a new pack.
const START_URL: &str = "/web-demo/packs";

/// Most packs one network starts on the demo canvas in an hour (a guest also keeps at most
/// [`ownership::MAX_GUEST_PACKS`]).
const STARTED_PACKS_PER_CLIENT: u64 = 60;

/// `POST /web-demo/packs` (the canvas's pack JSON, `X-CSRF-Token` header, `?design=CODE` once
/// the visitor chose a design): keeps the demo's design as a new business card pack of the
/// visitor's, a customer's or, for a visitor without an account, a guest's (as the `edit`
/// drop-in's first save makes it); answers `{edit}`, the pack's `edit` drop-in, where the
/// editor goes on with it.
pub async fn start_pack(
    State(state): State<Arc<AppState>>,
    mut visitor: Visitor,
    Query(query): Query<Fields>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let csrf = headers.get("x-csrf-token").and_then(|v| v.to_str().ok());
    let response = match started_pack(&state, &mut visitor, &query, csrf, &body).await {
        Ok(edit) => json_response(&serde_json::json!({ "edit": edit })),
        Err(error) => json_error(error.status, &error.message),
    };
    with_cookies(response, &visitor)
}

/// The new pack's `edit` drop-in (see [`start_pack`]).
async fn started_pack(
    state: &AppState,
    visitor: &mut Visitor,
    query: &Fields,
    csrf: Option<&str>,
    body: &[u8],
) -> Result<String, PageError> {
    visitor.check_csrf(csrf)?;
    let text = std::str::from_utf8(body)
        .map_err(|_| PageError::bad_request("pack: the body is not UTF-8 JSON"))?;
    let design = chosen_design(state, query).await?;
    if design.as_ref().is_some_and(|d| d.product != SAMPLE_PRODUCT) {
        return Err(PageError::bad_request(
            "design: not a design of this product",
        ));
    }
    let product = state
        .services
        .catalogue
        .product(SAMPLE_PRODUCT)
        .expect("the catalogue sells business cards");
    let pack = presspack_engine::model::Pack::parse(text, "pack", product)
        .map_err(|e| PageError::bad_request(e.to_string()))?;
    let counts = [(
        format!("started-packs:{}", visitor.client_key()),
        STARTED_PACKS_PER_CLIENT,
    )];
    if over_hourly_limit(state.services.store.as_ref(), &counts).await? {
        return Err(PageError::new(
            StatusCode::TOO_MANY_REQUESTS,
            "Please wait",
            "Many designs were kept from your network in the last hour. Try again later.",
        ));
    }
    let owner = match &visitor.customer {
        Some(customer) => customer.id.clone(),
        None => visitor.keep_as_guest(state).await?,
    };
    let (id, record) = packs::create(
        &state.services,
        PackToCreate {
            product,
            pack: Some(pack),
            design_code: None,
            started_from: design.as_ref().map(|d| d.code.as_str()),
            physical_spec: None,
            tracking_id: None,
            friendly_name: None,
            start_again_url: None,
            trial: false,
            created_by: SHOP_CREATOR,
        },
    )
    .await?;
    ownership::take(&state.services, &id, &owner).await?;
    Ok(dropins::path(&id, "edit", &record.drop_in_token))
}

/// The design a save says the customer started from (`?design=`), if it is one; the save
/// checks it is for the pack's product.
async fn chosen_design(
    state: &AppState,
    query: &Fields,
) -> Result<Option<RegisteredDesign>, PageError> {
    let Some(code) = query.get("design") else {
        return Ok(None);
    };
    match designs::find(state.services.store.as_ref(), code).await? {
        Some(design) => Ok(Some(design)),
        None => Err(PageError::bad_request(
            "design: not a design of this product",
        )),
    }
}

/// Who a save is for (the customer who owns the pack, or a guest) and the pack. Every save of a guest's
/// takes (or keeps) the pack for them: it extends their hold, and issues their session
/// cookie afresh.
async fn saving_owner(
    state: &AppState,
    visitor: &mut Visitor,
    pack_id: &str,
    query: &Fields,
) -> Result<(String, PackId), PageError> {
    let token = query.get("token").map(String::as_str);
    let id = editable_pack(state, visitor, pack_id, token).await?.id;
    // (A customer may edit only their own pack: `editable_pack` said so.)
    if let Some(customer) = &visitor.customer {
        return Ok((customer.id.clone(), id));
    }
    let guest = visitor.keep_as_guest(state).await?;
    ownership::take(&state.services, &id, &guest).await?;
    Ok((guest, id))
}

/// Width of a design's thumbnail in the chooser, in pixels (twice its CSS size, for sharp
/// screens).
const DESIGN_THUMBNAIL_SIDE: u32 = 256;

/// Design thumbnails drawn by this process, by design code and a digest of its pack: each
/// design is drawn once, so the chooser costs the engine nothing after a first visit, and a
/// design registered again under its code is drawn afresh. At most
/// [`MAX_CACHED_THUMBNAILS`]; a full cache is emptied.
static DESIGN_THUMBNAILS: LazyLock<std::sync::Mutex<HashMap<ThumbnailKey, Bytes>>> =
    LazyLock::new(Default::default);
/// A design's code and the SHA-256 of its pack.
type ThumbnailKey = (String, [u8; 32]);
const MAX_CACHED_THUMBNAILS: usize = 512;

/// `GET /designs/{code}/thumbnail.png`: the front of a design as its chooser shows it (the
/// design's sample text; the engine's render at 256 px).
pub async fn design_thumbnail(
    State(ServicesState(services)): State<ServicesState>,
    Path(code): Path<String>,
) -> Result<Response, PageError> {
    let no_such_design = || PageError::not_found("There is no such design.");
    let design = designs::find(services.store.as_ref(), &code)
        .await?
        .ok_or_else(no_such_design)?;
    let key = (code, Sha256::digest(design.pack.get()).into());
    let cached = DESIGN_THUMBNAILS.lock().unwrap().get(&key).cloned();
    let png = match cached {
        Some(png) => png,
        None => {
            let png = Bytes::from(
                sides::pack_side(
                    &services,
                    &design.product,
                    &design.pack,
                    0,
                    DESIGN_THUMBNAIL_SIDE,
                    BoxType::Cut,
                )
                .await?,
            );
            let mut cache = DESIGN_THUMBNAILS.lock().unwrap();
            if cache.len() >= MAX_CACHED_THUMBNAILS {
                cache.clear();
            }
            cache.insert(key, png.clone());
            png
        }
    };
    Ok(layout::png(png, "public, max-age=3600"))
}

/// `GET /images/{id}/{rendition}`: a stored rendition's bytes, or a redirect to a signed,
/// expiring URL of them on object storage (`s3_redirect_seconds`). The id is 128 bits of the
/// file's digest, unguessable without the file, like the API's `resourceUri`s it comes from.
pub async fn image(
    State(ServicesState(services)): State<ServicesState>,
    Path((id, rendition)): Path<(String, String)>,
) -> Response {
    let failed = |error: DomainError| {
        tracing::error!(message = %error.message, "reading an image failed");
        json_error(
            StatusCode::SERVICE_UNAVAILABLE,
            "The image store is not available.",
        )
    };
    let uri = format!("store://{id}/{rendition}");
    let stored = match crate::domain::images::find_rendition(&services, &uri).await {
        Ok(Some(stored)) => stored,
        Ok(None) => return json_error(StatusCode::NOT_FOUND, "There is no such image."),
        Err(error) => return failed(error),
    };
    // Content-addressed: the bytes behind a URL never change.
    let delivery = Delivery {
        content_type: &stored.media_type,
        cache_control: "public, max-age=31536000, immutable",
        disposition: None,
    };
    match crate::http::blob_response(services.blobs.as_ref(), &stored.blob, &delivery).await {
        Ok(Some(response)) => response,
        Ok(None) => json_error(StatusCode::NOT_FOUND, "There is no such image."),
        Err(error) => failed(error.into()),
    }
}

/// The `v` of a request's query (a versioned name's), if any.
fn asked_version(query: Option<&str>) -> Option<&str> {
    query?.split('&').find_map(|pair| pair.strip_prefix("v="))
}

/// `GET /web-demo/{file}`: the editor's entry script and style.
pub async fn asset(
    State(state): State<Arc<AppState>>,
    Path(file): Path<String>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
) -> Response {
    editor_file(&state, &file, query.as_deref(), &headers).await
}

/// `GET /web-demo/editor/{file}`: the editor's modules.
pub async fn editor_module(
    State(state): State<Arc<AppState>>,
    Path(file): Path<String>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
) -> Response {
    editor_file(
        &state,
        &format!("editor/{file}"),
        query.as_deref(),
        &headers,
    )
    .await
}

async fn editor_file(
    state: &AppState,
    path: &str,
    query: Option<&str>,
    headers: &HeaderMap,
) -> Response {
    let Some(source) = editor_source(path) else {
        return json_error(StatusCode::NOT_FOUND, "There is no such file.");
    };
    let name = format!("web-demo/{path}");
    state
        .static_files
        .respond(headers, &name, asked_version(query), source)
        .await
}

/// How to make the editor's file `path` (under `/web-demo/`), if there is one.
fn editor_source(path: &str) -> Option<Box<dyn FnOnce() -> Source + Send>> {
    let &(_, content) = EDITOR_FILES.iter().find(|(name, _)| *name == path)?;
    let content_type = if path.ends_with(".css") {
        "text/css; charset=utf-8"
    } else {
        "text/javascript; charset=utf-8"
    };
    Some(Box::new(move || Source::new(content_type, content)))
}

/// `GET /web-demo/engine/{*path}`: the engine's browser build as the npm package lays it out,
/// with this host's fonts (operator families too) and templates, so the canvas draws exactly
/// what the server draws.
pub async fn engine_file(
    State(state): State<Arc<AppState>>,
    Path(path): Path<String>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
) -> Response {
    let Some(source) = engine_source(&state, &path) else {
        return json_error(StatusCode::NOT_FOUND, "There is no such file.");
    };
    let name = format!("web-demo/engine/{path}");
    state
        .static_files
        .respond(&headers, &name, asked_version(query.as_deref()), source)
        .await
}

/// How to make the engine's file `path`, if there is one (made only the first time it is
/// asked for: see [`StaticFiles`](crate::http::pages::static_files::StaticFiles)).
fn engine_source(state: &Arc<AppState>, path: &str) -> Option<Box<dyn FnOnce() -> Source + Send>> {
    let javascript = "text/javascript; charset=utf-8";
    let state = Arc::clone(state);
    Some(match path {
        "index.js" => Box::new(move || Source::new(javascript, ENGINE_INDEX)),
        "presspack_engine.js" => Box::new(move || Source::new(javascript, ENGINE_GLUE)),
        WASM_FILE => Box::new(|| Source {
            content_type: "application/wasm",
            bytes: ENGINE_WASM.clone(),
            gzipped: Some(Bytes::from_static(ENGINE_WASM_GZIP)),
            brotli: Some(ENGINE_WASM_BROTLI.clone()),
        }),
        "assets.js" => Box::new(move || {
            let faces = state.fonts.faces.iter().map(|(name, _)| name.as_str());
            // Each URL versioned, as the import map versions the modules.
            let version = |relative: &str| {
                let path = relative.trim_start_matches("./");
                versioned(&state, &format!("engine/{path}"))
                    .split_once('?')
                    .map_or_else(String::new, |(_, query)| format!("?{query}"))
            };
            Source::new(
                javascript,
                assets_module(faces, state.services.templates.codes(), version),
            )
        }),
        "fonts/catalogue.json" => Box::new(move || {
            Source::new("application/json", catalogue_json(&state.fonts.catalogue))
        }),
        _ => {
            if let Some(file) = path.strip_prefix("fonts/") {
                let face = state
                    .fonts
                    .faces
                    .iter()
                    .position(|(name, _)| face_file(name) == file)?;
                let content_type = if file.ends_with(".dict") {
                    "application/octet-stream" // a word list
                } else {
                    "font/ttf"
                };
                return Some(Box::new(move || {
                    Source::new(
                        content_type,
                        Bytes::copy_from_slice(&state.fonts.faces[face].1),
                    )
                }));
            }
            let code = path.strip_prefix("templates/")?.strip_suffix(".xml")?;
            state.services.templates.get(code)?;
            let code = code.to_owned();
            Box::new(move || {
                let xml = state
                    .services
                    .templates
                    .get(&code)
                    .map(|entry| entry.xml.clone());
                Source::new("application/xml", xml.unwrap_or_default())
            })
        }
    })
}

fn catalogue_json(catalogue: &FontCatalogue) -> Vec<u8> {
    serde_json::to_vec(catalogue).expect("the font catalogue serialises")
}

fn json_response(value: &impl Serialize) -> Response {
    let mut response = Json(value).into_response();
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

/// `{"error": {"message"}}` with `status`: what the canvas shows when a call fails.
fn json_error(status: StatusCode, message: &str) -> Response {
    let mut response = json_response(&serde_json::json!({ "error": { "message": message } }));
    *response.status_mut() = status;
    response
}
