//! What wasmtime's settings cost the engine (docs/benchmarks.md): the photo side and the
//! text side laid out and drawn at 1024 px, and a 40-character line measured, under the
//! service's settings and under each variation of them, with the native engine as the
//! yardstick. Every variation compiles the module afresh (tens of seconds each). Run with
//! `cargo bench -p presspack-bench --bench wasmtime-settings`.

mod cases;

use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use presspack::infra::engine::EngineHost;
use presspack_engine::wire::Op;
use wasmtime::{Config, OptLevel, RegallocAlgorithm};

/// The service's settings, then one change each.
fn variations() -> Vec<(&'static str, Config)> {
    let with = |change: fn(&mut Config)| {
        let mut config = EngineHost::config();
        change(&mut config);
        config
    };
    vec![
        ("service", EngineHost::config()),
        (
            "no optimisation",
            with(|c| {
                c.cranelift_opt_level(OptLevel::None);
            }),
        ),
        (
            "optimised for speed and size",
            with(|c| {
                c.cranelift_opt_level(OptLevel::SpeedAndSize);
            }),
        ),
        (
            "no epoch interruption (no time limit)",
            with(|c| {
                c.epoch_interruption(false);
            }),
        ),
        (
            "explicit bounds checks (no signal-based traps)",
            with(|c| {
                c.signals_based_traps(false);
            }),
        ),
        (
            "NaN canonicalisation",
            with(|c| {
                c.cranelift_nan_canonicalization(true);
            }),
        ),
        (
            "single-pass register allocation",
            with(|c| {
                c.cranelift_regalloc_algorithm(RegallocAlgorithm::SinglePass);
            }),
        ),
    ]
}

fn settings_benches(c: &mut Criterion) {
    let mut native = cases::native_engine();
    let module = cases::guest_module();
    let sides = [
        ("photo side", cases::photo_side_frame()),
        ("text side", cases::text_side_frame()),
    ];
    let measure = cases::measure_input();
    let expected: Vec<Vec<u8>> = sides
        .iter()
        .map(|(_, frame)| native.call(Op::Draw, frame).unwrap())
        .collect();

    for (side, frame) in &sides {
        c.bench_function(&format!("{side}, lay out and draw: native"), |b| {
            b.iter(|| native.call(Op::Draw, frame).unwrap())
        });
    }
    c.bench_function("measure: native", |b| {
        b.iter(|| native.call(Op::Measure, &measure).unwrap())
    });
    for (name, config) in variations() {
        let wasm = cases::wasm_engine(&config, &module, false);
        for ((side, frame), expected) in sides.iter().zip(&expected) {
            // Every setting must leave the pixels as they are.
            assert_eq!(&wasm.call_blocking(Op::Draw, frame).unwrap(), expected);
            c.bench_function(&format!("{side}, lay out and draw: {name}"), |b| {
                b.iter(|| {
                    wasm.call_blocking_with(Op::Draw, frame, |drawn| drawn.len())
                        .unwrap()
                })
            });
        }
        c.bench_function(&format!("measure: {name}"), |b| {
            b.iter(|| wasm.call_blocking(Op::Measure, &measure).unwrap())
        });
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().measurement_time(Duration::from_secs(4)).sample_size(30);
    targets = settings_benches
}
criterion_main!(benches);
