//! Retention: an uploaded image that no pack or design refers to is deleted once the
//! retention time has passed since its last upload, so unsigned uploads cannot fill the
//! store for good.
//!
//! - Every upload (first or repeated) of an image not yet referred to puts it on the
//!   `Image` schedule, due after the retention time.
//! - Writing a pack or a design pins each image it names (`store://<id>...` anywhere in it):
//!   a pinned image is kept for good. Carts and orders refer to packs, so their images are
//!   pinned too. Pinning is never undone: an image a pack named once stays (the safe way
//!   round; a pack's history may be needed to reprint an order).
//! - The sweep (a server's background task every [`SWEEP_EVERY`], and `presspack images
//!   sweep`) takes what is due, marks each unpinned image swept with compare-and-swap (so a
//!   pin or an upload that got in first wins), deletes its blobs, then its record. Images
//!   stored before retention existed are on no schedule and are never swept.

use crate::domain::images::IMAGES;
use crate::infra::clock::Clock;
use std::time::Duration;

use presspack_engine::model::MAX_BASKET_ITEMS;

use crate::domain::error::{DomainError, ErrorCode};

use crate::infra::store::{self, SharedBlobs, Store, StoreError};

use super::{ImageRecord, STORE_SCHEME};

/// How often a server sweeps.
pub const SWEEP_EVERY: Duration = Duration::from_secs(10 * 60);

/// Most images one sweep step looks at.
const SWEEP_BATCH: usize = 100;

/// The image ids a pack's or design's JSON names (`store://<id>` and its renditions).
pub fn image_ids(json: &str) -> Vec<String> {
    let mut ids = Vec::new();
    let mut reader = serde_json::Deserializer::from_str(json);
    // Text that is not JSON names no image (a pack is JSON by the time it is stored).
    let walked = serde::de::DeserializeSeed::deserialize(ImageIds(&mut ids), &mut reader)
        .and_then(|()| reader.end());
    if walked.is_err() {
        ids.clear();
    }
    ids.sort_unstable();
    ids.dedup();
    ids
}

/// Collects the id of every string value that begins with `store://`, walking the JSON as
/// it is read: a pack's JSON is never built as a tree (maps and strings allocated) only to
/// be searched.
struct ImageIds<'a>(&'a mut Vec<String>);

impl<'de> serde::de::DeserializeSeed<'de> for ImageIds<'_> {
    type Value = ();

    fn deserialize<D: serde::Deserializer<'de>>(self, reader: D) -> Result<(), D::Error> {
        reader.deserialize_any(self)
    }
}

impl<'de> serde::de::Visitor<'de> for ImageIds<'_> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_str<E>(self, text: &str) -> Result<(), E> {
        if let Some(id) = text
            .strip_prefix(STORE_SCHEME)
            .and_then(|rest| rest.get(..32))
            .filter(|id| id.bytes().all(|b| b.is_ascii_hexdigit()))
        {
            self.0.push(id.to_owned());
        }
        Ok(())
    }

    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }

    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        Ok(())
    }

    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        Ok(())
    }

    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        Ok(())
    }

    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut items: A) -> Result<(), A::Error> {
        while items.next_element_seed(ImageIds(self.0))?.is_some() {}
        Ok(())
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut fields: A) -> Result<(), A::Error> {
        while fields.next_key::<serde::de::IgnoredAny>()?.is_some() {
            fields.next_value_seed(ImageIds(self.0))?;
        }
        Ok(())
    }
}

/// The most stored images one pack may name: a pack's images are its basket's items, and
/// each is read (and maybe written) when the pack is saved.
pub const MAX_PACK_IMAGES: usize = MAX_BASKET_ITEMS;

/// Pins every image `json` (a pack) names, so no sweep deletes it, and returns the pixel size
/// of each of their renditions by URI (`store://<id>` is the print rendition): facts the
/// pack's warnings judge resolution by, whatever its basket claims. Images that do not exist
/// (or are being swept) are left alone: a render will report them missing.
pub async fn pin_images(store: &dyn Store, json: &str) -> Result<KnownPixels, DomainError> {
    let ids = image_ids(json);
    if ids.len() > MAX_PACK_IMAGES {
        return Err(DomainError::new(
            ErrorCode::InvalidPack,
            format!(
                "pack: names {} stored images (store:// addresses); a pack may name at most \
                 {MAX_PACK_IMAGES}",
                ids.len()
            ),
        ));
    }
    let mut known = KnownPixels::new();
    for id in ids {
        // Most images are pinned already: read first, write only when needed.
        let Some((record, _)) = store::load::<ImageRecord>(store, IMAGES, &id).await? else {
            continue;
        };
        if record.swept {
            continue;
        }
        let report = &record.report;
        known.insert(format!("{STORE_SCHEME}{id}"), (report.width, report.height));
        for rendition in &report.renditions {
            let uri = format!("{STORE_SCHEME}{id}/{}", rendition.kind.name());
            known.insert(uri, (rendition.width, rendition.height));
        }
        if !record.pinned {
            store::modify::<ImageRecord, StoreError>(store, IMAGES, &id, |record| {
                record.pinned = !record.swept;
                Ok(())
            })
            .await?;
            store.unschedule(IMAGES, &id).await?;
        }
    }
    Ok(known)
}

/// Pixel sizes of stored renditions, by URI (see [`pin_images`]).
pub type KnownPixels = std::collections::BTreeMap<String, (u32, u32)>;

/// What a sweep did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Swept {
    pub images: u64,
    pub bytes: u64,
}

/// Deletes up to `limit` images that are due and unpinned.
pub async fn sweep(
    store: &dyn Store,
    blobs: &SharedBlobs,
    clock: &Clock,
    limit: usize,
) -> Result<Swept, StoreError> {
    let mut swept = Swept::default();
    let mut looked_at = 0;
    while looked_at < limit {
        let due = store
            .due(
                IMAGES,
                clock.unix_millis(),
                SWEEP_BATCH.min(limit - looked_at),
            )
            .await?;
        if due.is_empty() {
            break;
        }
        looked_at += due.len();
        for id in due {
            if let Some(bytes) = sweep_one(store, blobs, &id).await? {
                swept.images += 1;
                swept.bytes += bytes;
            }
        }
    }
    Ok(swept)
}

/// Deletes the image `id` unless it is pinned: the bytes freed, or `None` if it was kept.
async fn sweep_one(
    store: &dyn Store,
    blobs: &SharedBlobs,
    id: &str,
) -> Result<Option<u64>, StoreError> {
    let Some((mut record, revision)) = store::load::<ImageRecord>(store, IMAGES, id).await? else {
        store.unschedule(IMAGES, id).await?;
        return Ok(None);
    };
    if record.pinned {
        store.unschedule(IMAGES, id).await?;
        return Ok(None);
    }
    // Marked first: from here on nobody is given the image, and a pin or upload that got in
    // since the record was read makes this step fail and the image stay.
    let revision = if record.swept {
        revision
    } else {
        record.swept = true;
        let value = serde_json::to_vec(&record).map_err(|e| StoreError::corrupt(e.to_string()))?;
        if !store.replace(IMAGES, id, &value, revision).await? {
            return Ok(None);
        }
        revision + 1
    };
    let mut freed = 0;
    for blob in record.blobs() {
        freed += blobs.delete(blob).await?;
    }
    store.remove(IMAGES, id, revision).await?;
    store.unschedule(IMAGES, id).await?;
    tracing::info!(image = %id, bytes = freed, "unused image deleted");
    Ok(Some(freed))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn image_ids_are_found_anywhere_in_a_pack() {
        let a = "0123456789abcdef0123456789abcdef";
        let b = "fedcba9876543210fedcba9876543210";
        let json = format!(
            r#"{{"imageBasket": {{"items": [{{"resourceUri": "store://{a}", "imageItems":
               [{{"resourceUri": "store://{a}/print"}}]}}]}},
               "sides": [{{"data": [{{"resourceUri": "store://{b}/preview"}},
               {{"resourceUri": "https://example.com/x.png"}}, {{"text": "store://short"}}]}}]}}"#
        );
        assert_eq!(image_ids(&json), [a, b]);
        assert!(image_ids("not json").is_empty());
        assert!(image_ids(&format!(r#"["store://{a}"] trailing"#)).is_empty());
        // Escaped characters are read as JSON reads them; a key is not a value; numbers,
        // booleans and nulls are walked past.
        let escaped =
            format!(r#"{{"a": [1, -2, 3.5, true, null, "store:\/\/{a}"], "store://{b}": {{}}}}"#);
        assert_eq!(image_ids(&escaped), [a]);
    }
}
