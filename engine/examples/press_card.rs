//! Times the press file of a two-sided business card, natively: a 12 MP photo full bleed on
//! the front, eleven lines of text on the back, crop marks and slug. Prints the median and
//! the fastest of `ROUNDS` files (after one that warms the engine's caches), in ms.
//!
//! Written against the engine's API as it stood before issue 55 too (options from JSON, the
//! fields each version knows), so `bench/press-ab.sh` can build it in an older checkout and
//! time both in one run: `cargo run --release -p presspack-engine --example press_card`.

use std::collections::HashMap;
use std::io::Cursor;
use std::time::Instant;

use image::ImageEncoder;
use presspack_engine::model::{Catalogue, Pack, Template};
use presspack_engine::press::{PressOptions, press_pages};
use presspack_engine::render::{Engine, ImageInput};
use presspack_engine::text::FontBook;

const ROUNDS: usize = 15;

/// A 4000 x 3000 photo-like JPEG: smooth gradients under fine noise (as the press bench's).
fn photo() -> Vec<u8> {
    let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
    let image = image::RgbImage::from_fn(4000, 3000, |x, y| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let noise = (seed & 31) as u32;
        image::Rgb([
            ((x / 16 + noise) % 256) as u8,
            ((y / 12 + noise) % 256) as u8,
            (((x + y) / 28 + noise) % 256) as u8,
        ])
    });
    let mut jpeg = Vec::new();
    image::codecs::jpeg::JpegEncoder::new_with_quality(Cursor::new(&mut jpeg), 90)
        .write_image(image.as_raw(), 4000, 3000, image::ExtendedColorType::Rgb8)
        .unwrap();
    jpeg
}

fn main() {
    let mut engine = Engine::new(FontBook::builtin());
    for (_, xml) in presspack_assets::TEMPLATES {
        engine.add_template(Template::parse(xml).unwrap()).unwrap();
    }
    let lines: Vec<serde_json::Value> = (1..=11)
        .map(|n| {
            serde_json::json!({"type": "textData", "linkId": format!("back_line_{n}"),
                "text": format!("Line {n}: Ada Lovelace, Analytical Engines Ltd"),
                "colour": {"type": "RGB", "r": 30, "g": 60, "b": 140}})
        })
        .collect();
    let pack = serde_json::json!({
        "numCards": 50,
        "sides": [
            {"type": "image", "sideNum": 1, "templateCode": "businesscard_full_image_landscape",
             "data": [{"type": "imageData", "linkId": "variable_image_front",
                "resourceUri": "store://photo",
                "imageBox": {"center": {"x": 44, "y": 29.5}, "width": 88.5, "height": 66.4,
                             "angle": 0}}]},
            {"type": "details", "sideNum": 1, "templateCode": "businesscard_full_text_landscape",
             "data": lines}
        ],
        "imageBasket": {"items": []}
    });
    let product = Catalogue::builtin().product("businesscard").unwrap();
    let pack = Pack::parse(&pack.to_string(), "pack", product).unwrap();
    let pages = press_pages(&pack);
    let options: PressOptions = serde_json::from_value(serde_json::json!({
        "title": "Order 1042, pack 7", "created": 1_700_000_000, "marks": true,
        "slug": "Order 1042 pack 7"
    }))
    .unwrap();
    let jpeg = photo();
    let images: HashMap<String, ImageInput<'_>> = HashMap::from([(
        "store://photo".to_owned(),
        ImageInput {
            bytes: &jpeg,
            enhance: false,
        },
    )]);
    let mut times: Vec<f64> = (0..=ROUNDS)
        .map(|_| {
            let start = Instant::now();
            let (pdf, _) = engine.press(&pages, &options, &images).unwrap();
            std::hint::black_box(pdf);
            start.elapsed().as_secs_f64() * 1000.0
        })
        .skip(1)
        .collect();
    times.sort_by(f64::total_cmp);
    println!(
        "median {:.2} ms, fastest {:.2} ms",
        times[ROUNDS / 2],
        times[0]
    );
}
