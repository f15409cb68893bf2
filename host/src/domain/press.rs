//! Press files of packs: the PDF/X-4 a press prints (crop marks, slug line, every pixel of
//! each image) or a small proof for a customer, each with its preflight report. The engine
//! makes them from the pack's stored sides, in its sandbox, like every render.

use bytes::Bytes;
use presspack_engine::images::plan_print_images;
use presspack_engine::model::{Pack, PhysicalSpec, Side};
use presspack_engine::press::{PressOptions, PressReport, ROUNDED_CORNER_RADIUS, press_pages};
use presspack_engine::wire::{MAX_FRAME_BYTES, PressPageInput};
use serde_json::value::RawValue;

use crate::domain::error::{DomainError, ErrorCode};
use crate::domain::images::{FetchedImage, fetch_renditions, plan_error};
use crate::domain::orders::record::OrderLine;
use crate::domain::packs::{PackRecord, stored_pack};
use crate::domain::services::Services;
use crate::infra::store::Kind;

/// Resolution of a proof's images at their printed size, dots per inch: sharp on a screen,
/// a fraction of the press file's size.
pub const PROOF_DPI: f64 = 150.0;

/// The print renditions one press file may embed, bytes: what one engine call carries,
/// with room for the pages.
pub const MAX_PRESS_IMAGE_BYTES: usize = MAX_FRAME_BYTES - (16 << 20);

/// Which press file to make.
#[derive(Debug, Clone, Copy)]
pub enum PressKind<'a> {
    /// For the press: crop marks and a slug line starting with `slug`.
    Press { slug: &'a str },
    /// For a customer or partner to look at: no marks, images at [`PROOF_DPI`].
    Proof,
}

/// What a press file prints: a pack as stored, or as an order line holds it (as ordered).
pub struct PackToPrint<'a> {
    pub pack: Pack,
    /// The physical spec's finishing option (`rounded_corners` draws a die line).
    pub finishing_option: &'a str,
}

impl PackToPrint<'_> {
    /// A pack as stored.
    pub fn stored<'a>(
        services: &Services,
        record: &'a PackRecord,
    ) -> Result<PackToPrint<'a>, DomainError> {
        PackToPrint::read(
            services,
            &record.product,
            &record.pack,
            &record.physical_spec,
        )
    }

    /// A pack as an order line holds it.
    pub fn ordered<'a>(
        services: &Services,
        line: &'a OrderLine,
    ) -> Result<PackToPrint<'a>, DomainError> {
        PackToPrint::read(services, &line.product, &line.pack, &line.physical_spec)
    }

    fn read<'a>(
        services: &Services,
        product: &str,
        pack: &RawValue,
        spec: &'a PhysicalSpec,
    ) -> Result<PackToPrint<'a>, DomainError> {
        Ok(PackToPrint {
            pack: stored_pack(services, product, pack)?,
            finishing_option: &spec.finishing_option,
        })
    }
}

/// The press file of a pack, titled `title`, and its preflight report.
pub async fn press_file(
    services: &Services,
    print: &PackToPrint<'_>,
    title: &str,
    kind: PressKind<'_>,
) -> Result<(PressReport, Vec<u8>), DomainError> {
    let pack = &print.pack;
    let pages = press_pages(pack);
    if pages.is_empty() {
        return Err(DomainError::new(
            ErrorCode::InvalidPack,
            "packId: the pack has no sides to print",
        ));
    }
    let sides: Vec<&Side> = pages.iter().map(|page| &page.side).collect();
    let planned = plan_print_images(&sides, &pack.image_basket, |code| {
        services.templates.get(code).map(|entry| &entry.template)
    })
    .map_err(plan_error)?;
    let images = fetch_renditions(services, planned).await?;
    // Counted before the engine is asked: its call carries them all at once.
    let image_bytes: usize = images.iter().map(|image| image.bytes.len()).sum();
    if image_bytes > MAX_PRESS_IMAGE_BYTES {
        return Err(DomainError::new(
            ErrorCode::InvalidPack,
            format!(
                "packId: the pack's images are {} MB at print resolution, more than one press \
                 file takes ({} MB)",
                image_bytes >> 20,
                MAX_PRESS_IMAGE_BYTES >> 20
            ),
        ));
    }
    let settings = services.images.settings();
    let options = PressOptions {
        title: title.to_owned(),
        created: services.clock.unix_millis() / 1000,
        marks: matches!(kind, PressKind::Press { .. }),
        slug: match kind {
            PressKind::Press { slug } => Some(slug.to_owned()),
            PressKind::Proof => None,
        },
        die_line_radius: (print.finishing_option == "rounded_corners")
            .then_some(ROUNDED_CORNER_RADIUS),
        proof_dpi: matches!(kind, PressKind::Proof).then_some(PROOF_DPI),
        guides: matches!(kind, PressKind::Proof),
        condition_name: settings.press_condition.clone(),
        condition: None,
        limits: settings.preflight_limits(),
        ink: settings.ink_settings(),
    };
    let pages: Vec<PressPageInput> = pages
        .iter()
        .map(|page| PressPageInput {
            side: serde_json::to_value(&page.side).expect("sides serialise"),
            copies: page.copies,
        })
        .collect();
    Ok(services
        .engine
        .press(
            &pages,
            &options,
            &FetchedImage::inputs(&images),
            settings.press_profile_bytes.as_deref(),
        )
        .await?)
}

/// Values kept for good: `{order}:{line}:{pack}` (see [`proof_id`]) -> the blob of that
/// line's proof.
pub const ORDERED_PROOFS: Kind = Kind::new("ordered-proof");

/// The id of the proof of line `line` of order `number` while it holds pack `pack_id` (new
/// artwork gives the line another pack, and another proof).
pub fn proof_id(number: &str, line: usize, pack_id: &str) -> String {
    format!("{number}:{line}:{pack_id}")
}

/// The proof of line `index` of order `order_number`, as ordered, for its customer. What was
/// ordered never changes: it is made once (one maker at a time in a process), stored as a
/// blob of the order's, and read from there afterwards.
pub async fn ordered_proof(
    services: &Services,
    order_number: &str,
    index: usize,
    line: &OrderLine,
) -> Result<Bytes, DomainError> {
    let id = proof_id(order_number, index, &line.pack_id);
    let _making = services
        .proof_makers
        .take(std::slice::from_ref(&id), None)
        .await;
    let store = services.store.as_ref();
    if let Some(blob) = store.get_blob(ORDERED_PROOFS, &id).await?
        && let Some(pdf) = services.blobs.get(&String::from_utf8_lossy(&blob)).await?
    {
        return Ok(pdf);
    }
    let print = PackToPrint::ordered(services, line)?;
    let title = format!("Order {order_number} proof: {}", line.name);
    let (_, pdf) = press_file(services, &print, &title, PressKind::Proof).await?;
    let pdf = Bytes::from(pdf);
    let owner = format!("order:{order_number}");
    let blob = services.blobs.put(&owner, pdf.clone()).await?;
    store
        .put_blob(ORDERED_PROOFS, &id, blob.as_bytes(), None)
        .await?;
    Ok(pdf)
}
