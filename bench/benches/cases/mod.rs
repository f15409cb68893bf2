//! What the engine benchmarks share: the engine natively and under wasmtime, set up alike,
//! and the calls they time (the same bytes-level call for both builds). Each benchmark uses
//! a part of it.

#![allow(dead_code)]

use std::path::Path;
use std::sync::Arc;

use presspack::infra::engine::{EngineHost, EngineLimits, EngineSetup};
use presspack::infra::fonts::Fonts;
use presspack_engine::render::{BoxType, Engine, ImageInput, MeasureRequest};
use presspack_engine::text::FontBook;
use presspack_engine::wire::{RenderHeaderInput, render_frame};
use serde_json::json;

const TEXT_TEMPLATE: &str =
    include_str!("../../../assets/templates/businesscard_full_text_landscape.xml");
const PHOTO_TEMPLATE: &str =
    include_str!("../../../assets/templates/businesscard_full_image_landscape.xml");
/// The photo the HTTP benchmark uploads (900 x 600 JPEG, its own print rendition).
const PHOTO: &[u8] = include_bytes!("../../../engine/tests/scenes/images/photo.jpg");

/// The native engine with the two templates the sides use.
pub fn native_engine() -> Engine {
    let mut native = Engine::new(FontBook::builtin());
    for template in [TEXT_TEMPLATE, PHOTO_TEMPLATE] {
        native
            .call(presspack_engine::wire::Op::AddTemplate, template.as_bytes())
            .unwrap();
    }
    native
}

/// The engine's wasm module: the service's, or for a profile the file named by
/// `PRESSPACK_BENCH_GUEST` (a guest build that keeps its function names, see
/// docs/benchmarks.md).
pub fn guest_module() -> Vec<u8> {
    match std::env::var_os("PRESSPACK_BENCH_GUEST") {
        Some(path) => std::fs::read(&path).unwrap_or_else(|e| panic!("{path:?}: {e}")),
        None => presspack::infra::engine::engine_wasm(),
    }
}

/// The wasm engine under wasmtime with `config`, one instance set up like the native one;
/// compiled modules are kept in `target/bench-engine-cache` when `cached`. With
/// `PRESSPACK_BENCH_PERFMAP` set, wasmtime writes `/tmp/perf-PID.map` for `perf report`.
pub fn wasm_engine(config: &wasmtime::Config, wasm: &[u8], cached: bool) -> Arc<EngineHost> {
    let cache = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/bench-engine-cache");
    let fonts = Fonts::load(None).unwrap();
    let mut config = config.clone();
    if std::env::var_os("PRESSPACK_BENCH_PERFMAP").is_some() {
        config.profiler(wasmtime::ProfilingStrategy::PerfMap);
    }
    EngineHost::start_with(
        &config,
        wasm,
        cached.then_some(cache.as_path()),
        EngineSetup {
            init_frame: Arc::new(fonts.init_frame()),
            templates: Arc::new(vec![TEXT_TEMPLATE.to_owned(), PHOTO_TEMPLATE.to_owned()]),
        },
        EngineLimits {
            instances: 1,
            ..EngineLimits::default()
        },
    )
    .unwrap()
}

fn frame(side: serde_json::Value, images: &[(&str, ImageInput<'_>)]) -> Vec<u8> {
    render_frame(
        &RenderHeaderInput {
            side,
            overlays: vec![],
            box_type: BoxType::Bleed,
            max_side: 1024,
            partial: false,
        },
        images,
    )
}

/// A filled-in details side: eleven lines of a real card.
pub fn text_side() -> serde_json::Value {
    text_side_of(&[
        "Ada Lovelace",
        "Analytical Engine Programmer",
        "Difference Engine Ltd",
        "12 Marylebone Street",
        "London W1 2AB",
        "United Kingdom",
        "Tel +44 20 7946 0000",
        "Mob +44 7700 900000",
        "ada@example.com",
        "www.example.com",
        "@ada_lovelace",
    ])
}

/// The same card in Arabic (shaped right to left, in the Arabic fallback face).
pub fn arabic_side() -> serde_json::Value {
    text_side_of(&[
        "أدا لافليس",
        "مبرمجة المحرك التحليلي",
        "شركة محرك الفروق",
        "١٢ شارع ماريلبون",
        "لندن",
        "المملكة المتحدة",
        "هاتف ٠٠٠٠ ٧٩٤٦ ٢٠ ٤٤+",
        "جوال ٩٠٠٠٠٠ ٧٧٠٠",
        "ada@example.com",
        "www.example.com",
        "@ada_lovelace",
    ])
}

/// The same card in Chinese (Droid Sans Fallback, 49,000 glyphs).
pub fn chinese_side() -> serde_json::Value {
    text_side_of(&[
        "艾达·洛夫莱斯",
        "分析机程序员",
        "差分机有限公司",
        "马里波恩街12号",
        "伦敦",
        "英国",
        "电话 +44 20 7946 0000",
        "手机 +44 7700 900000",
        "ada@example.com",
        "www.example.com",
        "@ada_lovelace",
    ])
}

/// A details side with `lines` on its eleven lines.
fn text_side_of(lines: &[&str]) -> serde_json::Value {
    let data: Vec<_> = lines
        .iter()
        .enumerate()
        .map(|(i, text)| json!({"type": "textData", "linkId": format!("back_line_{}", i + 1), "text": text}))
        .collect();
    json!({"type": "details", "sideNum": 1, "templateCode": "businesscard_full_text_landscape", "data": data})
}

/// [`text_side`] as a `Draw` call.
pub fn text_side_frame() -> Vec<u8> {
    frame(text_side(), &[])
}

/// [`arabic_side`] and [`chinese_side`] as `Draw` calls.
pub fn arabic_side_frame() -> Vec<u8> {
    frame(arabic_side(), &[])
}

pub fn chinese_side_frame() -> Vec<u8> {
    frame(chinese_side(), &[])
}

/// A full-bleed photo side, as the HTTP benchmark renders it.
pub fn photo_side_frame() -> Vec<u8> {
    let uri = "http://www.example.com/photo.jpg";
    let side = json!({"type": "image", "sideNum": 1, "templateCode": "businesscard_full_image_landscape",
        "data": [{"type": "imageData", "linkId": "variable_image_front", "resourceUri": uri,
        "imageBox": {"center": {"x": 44, "y": 29.5}, "width": 90, "height": 60, "angle": 0}}]});
    let photo = ImageInput {
        bytes: PHOTO,
        enhance: false,
    };
    frame(side, &[(uri, photo)])
}

/// The `Report` call's input: [`text_side`] as createPack sends it to check for overflowing
/// text (the side read and written back, every default filled in).
pub fn report_input() -> Vec<u8> {
    use presspack_engine::model::{FromJson, Side};
    let side = Side::from_json(text_side(), "side").unwrap();
    serde_json::to_vec(&side).unwrap()
}

/// The `Measure` call's input: a 40-character line, as text.measure sends it.
pub fn measure_input() -> Vec<u8> {
    measure_input_of("Sphinx of black quartz, judge my vow! 40")
}

/// 40-character lines in Arabic and Devanagari: shaped, in their fallback faces.
pub fn arabic_measure_input() -> Vec<u8> {
    measure_input_of("مرحبا بالعالم هذه بطاقة عمل من لندن اليو")
}

pub fn devanagari_measure_input() -> Vec<u8> {
    measure_input_of("नमस्ते दुनिया यह लंदन का एक व्यापार कार्")
}

/// 40 characters of Latin and of Thai wrapped at 20 mm: Thai words carry no spaces, so its
/// break opportunities come from the Thai word list (`text/words.rs`), and an unwrapped Thai
/// line for the cost of the words against the shaping.
pub fn latin_wrapped_measure_input() -> Vec<u8> {
    measure_input_wrapped("Sphinx of black quartz, judge my vow! 40", Some(20.0))
}

pub fn thai_wrapped_measure_input() -> Vec<u8> {
    measure_input_wrapped(THAI_40, Some(20.0))
}

pub fn thai_measure_input() -> Vec<u8> {
    measure_input_of(THAI_40)
}

const THAI_40: &str = "ภาษาไทยเป็นภาษาที่มีระดับเสียงของคำแน่นอ";

fn measure_input_of(text: &str) -> Vec<u8> {
    measure_input_wrapped(text, None)
}

fn measure_input_wrapped(text: &str, wrapping_width: Option<f64>) -> Vec<u8> {
    let request = MeasureRequest {
        text: text.into(),
        font_family: "helvetica".into(),
        bold: false,
        italic: false,
        size: 3.5278,
        wrapping_width,
        leading: None,
    };
    assert_eq!(request.text.chars().count(), 40, "{text}");
    serde_json::to_vec(&request).unwrap()
}
