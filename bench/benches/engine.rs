//! The engine's benchmarks (docs/benchmarks.md): a text-only business card side and one with
//! a photo at 1024 px, laid out and drawn, and rendered to PNG (drawn, then encoded natively
//! as the host does), natively and by the wasm module under wasmtime (the same bytes-level
//! call for both); and measuring a 40-character line. Run with
//! `cargo bench -p presspack-bench --bench engine`.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use presspack::infra::engine::{EngineHost, EngineLimits, EngineSetup, engine_wasm};
use presspack::infra::fonts::Fonts;
use presspack_engine::render::{BoxType, Engine, ImageInput, MeasureRequest};
use presspack_engine::text::FontBook;
use presspack_engine::wire::{Op, RenderHeaderInput, read_drawn, render_frame};
use serde_json::json;

const TEXT_TEMPLATE: &str =
    include_str!("../../assets/templates/businesscard_full_text_landscape.xml");
const PHOTO_TEMPLATE: &str =
    include_str!("../../assets/templates/businesscard_full_image_landscape.xml");
/// The photo the HTTP benchmark uploads (900 x 600 JPEG, its own print rendition).
const PHOTO: &[u8] = include_bytes!("../../engine/tests/scenes/images/photo.jpg");

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
fn text_side_frame() -> Vec<u8> {
    let lines = [
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
    ];
    let data: Vec<_> = lines
        .iter()
        .enumerate()
        .map(|(i, text)| json!({"type": "textData", "linkId": format!("back_line_{}", i + 1), "text": text}))
        .collect();
    frame(
        json!({"type": "details", "sideNum": 1, "templateCode": "businesscard_full_text_landscape", "data": data}),
        &[],
    )
}

/// A full-bleed photo side, as the HTTP benchmark renders it.
fn photo_side_frame() -> Vec<u8> {
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

/// A `Draw` answer encoded as the host encodes it.
fn png(drawn: &[u8]) -> Vec<u8> {
    read_drawn(drawn).unwrap().1.encode_png().unwrap()
}

fn measure_request() -> MeasureRequest {
    MeasureRequest {
        text: "Sphinx of black quartz, judge my vow! 40".into(),
        font_family: "helvetica".into(),
        bold: false,
        italic: false,
        size: 3.5278,
        wrapping_width: None,
        leading: None,
    }
}

fn engine_benches(c: &mut Criterion) {
    assert_eq!(measure_request().text.chars().count(), 40);
    let mut native = Engine::new(FontBook::builtin());
    for template in [TEXT_TEMPLATE, PHOTO_TEMPLATE] {
        native.call(Op::AddTemplate, template.as_bytes()).unwrap();
    }
    let fonts = Fonts::load(None).unwrap();
    let cache = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/bench-engine-cache");
    let module = engine_wasm();
    let wasm = EngineHost::start(
        &module,
        Some(&cache),
        EngineSetup {
            init_frame: Arc::new(fonts.init_frame()),
            templates: Arc::new(vec![TEXT_TEMPLATE.to_owned(), PHOTO_TEMPLATE.to_owned()]),
        },
        EngineLimits {
            instances: 1,
            ..EngineLimits::default()
        },
    )
    .unwrap();
    eprintln!("wasm module size: {} bytes", module.len());

    for (side, frame) in [
        ("text-only businesscard side", text_side_frame()),
        ("businesscard side with a photo", photo_side_frame()),
    ] {
        // Both builds must be drawing the same pixels for the comparison to mean anything.
        assert_eq!(
            native.call(Op::Draw, &frame).unwrap(),
            wasm.call_blocking(Op::Draw, &frame).unwrap()
        );
        let mut group = c.benchmark_group(format!("{side}, 1024 px, lay out and draw"));
        group.bench_function("native", |b| {
            b.iter(|| native.call(Op::Draw, &frame).unwrap())
        });
        // The pixels stay in the module's memory, where the server encodes them.
        group.bench_function("wasmtime", |b| {
            b.iter(|| {
                wasm.call_blocking_with(Op::Draw, &frame, |drawn| drawn.len())
                    .unwrap()
            })
        });
        group.finish();
        let mut group = c.benchmark_group(format!("{side}, 1024 px, render to PNG"));
        group.bench_function("native", |b| {
            b.iter(|| png(&native.call(Op::Draw, &frame).unwrap()))
        });
        group.bench_function("wasmtime", |b| {
            b.iter(|| wasm.call_blocking_with(Op::Draw, &frame, png).unwrap())
        });
        group.finish();
    }

    let request = measure_request();
    let mut group = c.benchmark_group("measure a 40-character line");
    group.throughput(Throughput::Elements(1));
    group.bench_function("native", |b| b.iter(|| native.measure(&request).unwrap()));
    let bytes = serde_json::to_vec(&request).unwrap();
    group.bench_function("wasmtime", |b| {
        b.iter(|| wasm.call_blocking(Op::Measure, &bytes).unwrap())
    });
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().measurement_time(Duration::from_secs(5)).sample_size(50);
    targets = engine_benches
}
criterion_main!(benches);
