//! Issue 26's goal 4, wasmtime against native (docs/benchmarks.md): the photo side and the
//! text side laid out and drawn at 1024 px, the text side's layout report (createPack's
//! check for overflowing text), and a 40-character line measured, natively,
//! under wasmtime with the service's settings, and under wasmtime without epoch
//! interruption (no call time limit: what the limit's checks cost), in alternating blocks of
//! about 20 ms, 41 rounds. The criterion benchmark times one build after the other, and on
//! a shared machine the drift between them moved a ratio by a third; alternating puts the
//! drift on all alike. Prints each one's median time per call and the median of the
//! rounds' ratios to native. Run with `cargo bench -p presspack-bench --bench wasm-ratio`
//! (the variation compiles the module afresh: a minute).

mod cases;

use std::hint::black_box;
use std::time::{Duration, Instant};

use presspack::infra::engine::EngineHost;
use presspack_engine::wire::Op;

const ROUNDS: usize = 41;
const BLOCK: Duration = Duration::from_millis(20);

/// Seconds per call of `calls` runs of `call`.
fn per_call(calls: u32, call: &mut dyn FnMut()) -> f64 {
    let start = Instant::now();
    for _ in 0..calls {
        call();
    }
    start.elapsed().as_secs_f64() / f64::from(calls)
}

/// The median, and the lowest and highest.
fn spread(values: &mut [f64]) -> (f64, f64, f64) {
    values.sort_by(f64::total_cmp);
    (
        values[values.len() / 2],
        values[0],
        values[values.len() - 1],
    )
}

fn show(seconds: f64) -> String {
    if seconds < 1e-3 {
        format!("{:.2} µs", seconds * 1e6)
    } else {
        format!("{:.3} ms", seconds * 1e3)
    }
}

fn main() {
    let mut native = cases::native_engine();
    let module = cases::guest_module();
    let service = cases::wasm_engine(&EngineHost::config(), &module, true);
    let mut no_epoch = EngineHost::config();
    no_epoch.epoch_interruption(false);
    let no_epoch = cases::wasm_engine(&no_epoch, &module, false);
    let calls = [
        (
            "photo side, lay out and draw",
            Op::Draw,
            cases::photo_side_frame(),
        ),
        (
            "text side, lay out and draw",
            Op::Draw,
            cases::text_side_frame(),
        ),
        (
            "text side, layout report (createPack's check)",
            Op::Report,
            cases::report_input(),
        ),
        (
            "measure a 40-character line",
            Op::Measure,
            cases::measure_input(),
        ),
    ];
    println!(
        "| case | native | wasmtime | ratio, median of {ROUNDS} rounds (lowest-highest) | \
         wasmtime without epoch interruption | ratio |"
    );
    println!("|---|---|---|---|---|---|");
    for (case, op, input) in calls {
        // All must answer alike for the comparison to mean anything.
        let expected = native.call(op, &input).unwrap();
        for wasm in [&service, &no_epoch] {
            assert_eq!(wasm.call_blocking(op, &input).unwrap(), expected);
        }
        let mut run_native = || drop(black_box(native.call(op, &input).unwrap()));
        // A drawn side's pixels stay in the module's memory, where the server encodes them.
        let wasm_call = |wasm: &EngineHost| {
            black_box(
                wasm.call_blocking_with(op, &input, |out| out.len())
                    .unwrap(),
            );
        };
        let mut runs: [&mut dyn FnMut(); 3] =
            [&mut run_native, &mut || wasm_call(&service), &mut || {
                wasm_call(&no_epoch)
            }];
        let slowest = runs
            .iter_mut()
            .map(|run| per_call(20, *run))
            .fold(0.0, f64::max);
        let block = ((BLOCK.as_secs_f64() / slowest) as u32).max(1);
        let mut times: [Vec<f64>; 3] = Default::default();
        let mut ratios: [Vec<f64>; 2] = Default::default();
        for _ in 0..ROUNDS {
            let round: Vec<f64> = runs.iter_mut().map(|run| per_call(block, *run)).collect();
            for (all, time) in times.iter_mut().zip(&round) {
                all.push(*time);
            }
            for (all, time) in ratios.iter_mut().zip(&round[1..]) {
                all.push(time / round[0]);
            }
        }
        let [native_time, service_time, no_epoch_time] = times.map(|mut t| spread(&mut t).0);
        let [service_ratio, no_epoch_ratio] = ratios.map(|mut r| spread(&mut r));
        println!(
            "| {case} | {} | {} | {:.2}x ({:.2}-{:.2}x) | {} | {:.2}x ({:.2}-{:.2}x) |",
            show(native_time),
            show(service_time),
            service_ratio.0,
            service_ratio.1,
            service_ratio.2,
            show(no_epoch_time),
            no_epoch_ratio.0,
            no_epoch_ratio.1,
            no_epoch_ratio.2,
        );
    }
}
