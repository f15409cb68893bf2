//! Every kept crash input and every seed runs through its target without a panic, and a
//! short fixed-seed fuzzing round of each target finds none (the same inputs every run).

use presspack_fuzz::{Rng, TARGETS, mutate, regressions, run_once, seeds};

#[test]
fn kept_inputs_and_seeds_do_not_panic() {
    for target in TARGETS {
        let inputs = regressions(target)
            .into_iter()
            .map(|(path, bytes)| (path.display().to_string(), bytes))
            .chain(seeds(target).into_iter().map(|b| ("a seed".to_owned(), b)));
        for (name, input) in inputs {
            if let Some(message) = run_once(target, &input) {
                panic!("{}: {name} panicked: {message}", target.name);
            }
        }
    }
}

#[test]
fn a_fixed_round_of_mutations_does_not_panic() {
    const ROUNDS: usize = 300;
    for target in TARGETS {
        let corpus = seeds(target);
        let mut rng = Rng::new(20261123);
        for round in 0..ROUNDS {
            let (base, other) = (
                &corpus[rng.below(corpus.len())],
                &corpus[rng.below(corpus.len())],
            );
            let input = mutate(base, other, &mut rng, 256 * 1024);
            if let Some(message) = run_once(target, &input) {
                panic!("{} round {round} panicked: {message}", target.name);
            }
        }
    }
}
