//! The engine's benchmarks (docs/benchmarks.md): a text-only business card side and one with
//! a photo at 1024 px, laid out and drawn, and rendered to PNG (drawn, then encoded natively
//! as the host does), natively and by the wasm module under wasmtime (the same bytes-level
//! call for both), the text side also in Arabic and Chinese; measuring a 40-character line
//! in Latin, Arabic and Devanagari, and the text side's layout report
//! (createPack's check for overflowing text). Run with
//! `cargo bench -p presspack-bench --bench engine`.

mod cases;

use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use presspack::infra::engine::EngineHost;
use presspack_engine::wire::{Op, read_drawn};

/// A `Draw` answer encoded as the host encodes it.
fn png(drawn: &[u8]) -> Vec<u8> {
    read_drawn(drawn).unwrap().1.encode_png().unwrap()
}

fn engine_benches(c: &mut Criterion) {
    let mut native = cases::native_engine();
    let module = cases::guest_module();
    let wasm = cases::wasm_engine(&EngineHost::config(), &module, true);
    eprintln!("wasm module size: {} bytes", module.len());

    for (side, frame) in [
        ("text-only businesscard side", cases::text_side_frame()),
        (
            "text-only businesscard side in Arabic",
            cases::arabic_side_frame(),
        ),
        (
            "text-only businesscard side in Chinese",
            cases::chinese_side_frame(),
        ),
        ("businesscard side with a photo", cases::photo_side_frame()),
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

    let small_calls = [
        (
            "measure a 40-character line",
            Op::Measure,
            cases::measure_input(),
        ),
        (
            "measure a 40-character line in Arabic",
            Op::Measure,
            cases::arabic_measure_input(),
        ),
        (
            "measure a 40-character line in Devanagari",
            Op::Measure,
            cases::devanagari_measure_input(),
        ),
        (
            "measure 40 characters of Latin wrapped at 20 mm",
            Op::Measure,
            cases::latin_wrapped_measure_input(),
        ),
        (
            "measure 40 characters of Thai wrapped at 20 mm",
            Op::Measure,
            cases::thai_wrapped_measure_input(),
        ),
        (
            "measure 40 characters of Thai on one line",
            Op::Measure,
            cases::thai_measure_input(),
        ),
        (
            "text side, layout report (createPack's check)",
            Op::Report,
            cases::report_input(),
        ),
    ];
    for (name, op, input) in small_calls {
        let mut group = c.benchmark_group(name);
        group.throughput(Throughput::Elements(1));
        group.bench_function("native", |b| b.iter(|| native.call(op, &input).unwrap()));
        group.bench_function("wasmtime", |b| {
            b.iter(|| wasm.call_blocking(op, &input).unwrap())
        });
        group.finish();
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().measurement_time(Duration::from_secs(5)).sample_size(50);
    targets = engine_benches
}
criterion_main!(benches);
