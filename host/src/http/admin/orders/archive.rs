//! The press files of many orders as one ZIP archive with a manifest (`manifest.csv`): the
//! orders ticked in the list, or every order a filter selects. The archive streams: one file
//! is read from the blob store at a time, and the next only once every piece of it has been
//! written to the client, so the server holds one file however many orders there are and
//! however slowly the client reads. The manifest
//! comes last, so that it can say which file could not be read as the archive was sent.

use std::sync::Arc;

use axum::body::{Body, Bytes};
use axum::extract::{Query, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, mpsc};

use crate::domain::ids::OrderNumber;
use crate::domain::orders::bundle::{self, BundledPack, MAX_ORDERS};
use crate::domain::orders::record::{Paperwork, record_paperwork};
use crate::domain::services::Services;
use crate::http::admin::orders::export::{row, selected_numbers};
use crate::http::admin::orders::list::Filter;
use crate::http::admin::session::{ConsoleError, Staff};
use crate::http::pages::error::PageError;
use crate::http::pages::forms::Fields;
use crate::http::pages::layout::when;
use crate::http::state::ServicesState;
use crate::infra::zip::ZipWriter;

/// The manifest's columns.
const MANIFEST: [&str; 9] = [
    "order",
    "line",
    "product",
    "paper",
    "finish",
    "quantity",
    "file",
    "preflight",
    "note",
];

/// Pieces of the archive in flight between the task reading files and the client, and their
/// size: slices of the file being sent, not copies.
const IN_FLIGHT: usize = 2;
const PIECE: usize = 256 * 1024;

/// A file's bytes with the permit to hold them: the permit goes back, and the next file may be
/// read, when the last piece of this one has been written and dropped.
struct HeldFile {
    data: Bytes,
    _permit: OwnedSemaphorePermit,
}

impl AsRef<[u8]> for HeldFile {
    fn as_ref(&self) -> &[u8] {
        &self.data
    }
}

/// `GET /admin/orders/press-files.zip?state=&verdict=&…`: the press files of every order the
/// list with these filters shows (at most [`MAX_ORDERS`]).
pub async fn of_filter(
    State(ServicesState(services)): State<ServicesState>,
    staff: Staff,
    Query(query): Query<Fields>,
) -> Result<Response, ConsoleError> {
    let by = staff.operator()?.signature();
    let filter = Filter::read(&query).map_err(PageError::bad_request)?;
    let Some(numbers) = selected_numbers(&services, filter, MAX_ORDERS).await? else {
        let problem = format!(
            "An archive holds the press files of at most {MAX_ORDERS} orders: filter the list to fewer."
        );
        return Err(
            PageError::new(StatusCode::PAYLOAD_TOO_LARGE, "Too many orders", problem).into(),
        );
    };
    archive(services, &numbers, &by).await
}

/// The archive of `numbers`' press files, as a download for `by` (each order records it);
/// refused before anything is sent when it would not fit in a ZIP file.
pub async fn archive(
    services: Arc<Services>,
    numbers: &[OrderNumber],
    by: &str,
) -> Result<Response, ConsoleError> {
    let (packs, unknown) = bundle::plan(services.store.as_ref(), numbers).await?;
    let sizes = (packs.iter()).filter_map(|p| {
        p.blob
            .as_ref()
            .map(|(_, bytes)| (p.file_name.len(), *bytes))
    });
    if !ZipWriter::fits(sizes) {
        let problem =
            "These press files pass 4 GiB, more than one archive holds: choose fewer orders.";
        return Err(
            PageError::new(StatusCode::PAYLOAD_TOO_LARGE, "Too many files", problem).into(),
        );
    }
    let now = services.clock.unix_seconds();
    let store = services.store.as_ref();
    record_paperwork(store, numbers, Paperwork::PressFiles, now, by).await?;
    let (sender, mut receiver) = mpsc::channel::<Result<Bytes, std::io::Error>>(IN_FLIGHT);
    tokio::spawn(async move {
        if let Err(error) = send_archive(&services, packs, unknown, now, &sender).await {
            // The download ends short: the client sees it cut off, not complete.
            tracing::warn!(%error, "the press-file archive stopped");
            let _ = sender.send(Err(std::io::Error::other(error))).await;
        }
    });
    let stream = futures_util::stream::poll_fn(move |context| receiver.poll_recv(context));
    let name = format!(
        "attachment; filename=\"press-files-{}.zip\"",
        &when(now)[..10]
    );
    Ok((
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/zip"),
            ),
            (
                header::CONTENT_DISPOSITION,
                HeaderValue::from_str(&name).unwrap_or(HeaderValue::from_static("attachment")),
            ),
            (header::CACHE_CONTROL, HeaderValue::from_static("no-store")),
        ],
        Body::from_stream(stream),
    )
        .into_response())
}

/// Sends each made file, then the manifest and the directory, through `sender`. `Ok` also
/// when the client went away (nobody is left to send to).
async fn send_archive(
    services: &Services,
    mut packs: Vec<BundledPack>,
    unknown: Vec<OrderNumber>,
    now: u64,
    sender: &mpsc::Sender<Result<Bytes, std::io::Error>>,
) -> Result<(), String> {
    let mut zip = ZipWriter::new(now);
    // One file held at a time (see `HeldFile`).
    let one_file = Arc::new(Semaphore::new(1));
    for pack in &mut packs {
        let Some((blob, _)) = &pack.blob else {
            continue;
        };
        let permit = Arc::clone(&one_file)
            .acquire_owned()
            .await
            .map_err(|e| e.to_string())?;
        let data = match services.blobs.get(blob).await {
            Ok(Some(data)) => data,
            Ok(None) => {
                pack.missing = Some("missing from the blob store".to_owned());
                continue;
            }
            Err(error) => {
                pack.missing = Some(format!("could not be read: {error}"));
                continue;
            }
        };
        let header = zip.header(&pack.file_name, &data)?;
        if sender.send(Ok(header.into())).await.is_err() {
            return Ok(());
        }
        let held = Bytes::from_owner(HeldFile {
            data,
            _permit: permit,
        });
        for start in (0..held.len()).step_by(PIECE) {
            let piece = held.slice(start..held.len().min(start + PIECE));
            if sender.send(Ok(piece)).await.is_err() {
                return Ok(());
            }
        }
    }
    let manifest = manifest(&packs, &unknown);
    let header = zip.header("manifest.csv", manifest.as_bytes())?;
    for piece in [header, manifest.into_bytes(), zip.finish()?] {
        if sender.send(Ok(piece.into())).await.is_err() {
            return Ok(());
        }
    }
    Ok(())
}

/// The manifest: a line per ordered pack, and one per order number that names no order.
fn manifest(packs: &[BundledPack], unknown: &[OrderNumber]) -> String {
    let mut text = row(&MANIFEST);
    for pack in packs {
        let (line, quantity) = (pack.line.to_string(), pack.quantity.to_string());
        let (file, note) = match &pack.missing {
            Some(why) => ("", why.as_str()),
            None => (pack.file_name.as_str(), ""),
        };
        text += &row(&[
            &pack.order,
            &line,
            &pack.product,
            &pack.paper,
            &pack.finish,
            &quantity,
            file,
            pack.verdict.code(),
            note,
        ]);
    }
    for number in unknown {
        text += &row(&[number, "", "", "", "", "", "", "", "no such order"]);
    }
    text
}
