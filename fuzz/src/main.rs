//! `presspack-fuzz [TARGET ...] [--seconds N] [--seed S]` (run by `bench/fuzz.sh`): mutates
//! each target's seeds for N seconds (default 60 per target), runs every input, and keeps each
//! input that panicked in `fuzz/crashes/<target>/<sha-256>.bin` (turn it into a regression by
//! moving it to `fuzz/regressions/<target>/` once fixed). Exits 1 if anything panicked.
//!
//! `presspack-fuzz [TARGET ...] --seed-corpus DIR` writes each target's seeds and kept
//! regressions to `DIR/<target>/` instead: the starting corpus of a cargo-fuzz run.

use std::time::{Duration, Instant};

use presspack_fuzz::{
    Rng, TARGETS, Target, mutate, regressions, run_once, seeds, target, workspace,
};
use sha2::{Digest, Sha256};

/// Longest input tried: long enough for every format's interesting parts.
const MAX_INPUT: usize = 256 * 1024;

fn main() {
    let mut names = Vec::new();
    let mut seconds = 60;
    let mut seed = 0x5EED_u64;
    let mut corpus_dir = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut number = |what: &str| -> u64 {
            args.next()
                .and_then(|v| v.parse().ok())
                .unwrap_or_else(|| usage(&format!("{what} needs a number")))
        };
        match arg.as_str() {
            "--seconds" => seconds = number("--seconds"),
            "--seed" => seed = number("--seed"),
            "--seed-corpus" => {
                corpus_dir = Some(
                    args.next()
                        .unwrap_or_else(|| usage("--seed-corpus needs a directory")),
                )
            }
            name if target(name).is_some() => names.push(name.to_owned()),
            other => usage(&format!("unknown argument {other:?}")),
        }
    }
    let targets: Vec<&Target> = if names.is_empty() {
        TARGETS.iter().collect()
    } else {
        names.iter().filter_map(|n| target(n)).collect()
    };
    if let Some(dir) = corpus_dir {
        for target in targets {
            let dir = std::path::Path::new(&dir).join(target.name);
            std::fs::create_dir_all(&dir).unwrap();
            let kept = regressions(target).into_iter().map(|(_, bytes)| bytes);
            for input in seeds(target).into_iter().chain(kept) {
                let name = hex::encode(&Sha256::digest(&input)[..16]);
                std::fs::write(dir.join(name), input).unwrap();
            }
        }
        return;
    }
    // Panics are expected findings; their default report would flood the output.
    std::panic::set_hook(Box::new(|_| {}));
    let mut crashed = false;
    for target in targets {
        crashed |= fuzz(target, Duration::from_secs(seconds), seed);
    }
    if crashed {
        std::process::exit(1);
    }
}

fn usage(problem: &str) -> ! {
    let names: Vec<&str> = TARGETS.iter().map(|t| t.name).collect();
    eprintln!(
        "presspack-fuzz: {problem}\nusage: presspack-fuzz [{}] [--seconds N] [--seed S] [--seed-corpus DIR]",
        names.join("|")
    );
    std::process::exit(2)
}

/// Fuzzes one target for `budget`; whether any input panicked.
fn fuzz(target: &Target, budget: Duration, seed: u64) -> bool {
    let corpus = seeds(target);
    let mut rng = Rng::new(seed);
    let started = Instant::now();
    let (mut runs, mut crashes) = (0u64, 0u64);
    while started.elapsed() < budget {
        let base = &corpus[rng.below(corpus.len())];
        let other = &corpus[rng.below(corpus.len())];
        let input = mutate(base, other, &mut rng, MAX_INPUT);
        runs += 1;
        if let Some(message) = run_once(target, &input) {
            crashes += 1;
            let name = hex::encode(&Sha256::digest(&input)[..16]);
            let dir = workspace().join("fuzz/crashes").join(target.name);
            std::fs::create_dir_all(&dir).unwrap();
            let path = dir.join(format!("{name}.bin"));
            std::fs::write(&path, &input).unwrap();
            println!(
                "{}: panicked ({message}); input kept in {}",
                target.name,
                path.display()
            );
        }
    }
    println!(
        "{}: {runs} inputs in {:.0} s ({:.0}/s), {crashes} panicked",
        target.name,
        started.elapsed().as_secs_f64(),
        runs as f64 / started.elapsed().as_secs_f64()
    );
    crashes > 0
}
