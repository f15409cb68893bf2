#!/usr/bin/env bash
# Fuzzes the input parsers (docs/fuzzing.md), every target (or those named) for --seconds
# each (default 60).
#
#   bench/fuzz.sh [TARGET ...] [--seconds N] [--seed S]
#       the stable mutation fuzzer (presspack-fuzz, release build); inputs that panic are
#       kept in fuzz/crashes/<target>/
#   bench/fuzz.sh --libfuzzer [TARGET ...] [--seconds N]
#       cargo-fuzz (libFuzzer, coverage-guided) on the nightly toolchain, installing nightly
#       and cargo-fuzz if missing; crashes are kept in fuzz/libfuzzer/artifacts/<target>/
#
# The exit status is 1 if any input crashed a target.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "${1:-}" != "--libfuzzer" ]; then
  cargo build --release -p presspack-fuzz
  exec target/release/presspack-fuzz "$@"
fi
shift

seconds=60
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
  --seconds) seconds=$2; shift 2 ;;
  -*) echo "bench/fuzz.sh: unknown option $1" >&2; exit 2 ;;
  *) targets+=("$1"); shift ;;
  esac
done
[ ${#targets[@]} -gt 0 ] || targets=(params pack_json template_xml oauth_header image)

rustup toolchain list | grep -q '^nightly' || rustup toolchain install nightly --profile minimal
# The host's build compiles the engine to wasm with the toolchain it runs under.
rustup target add wasm32-unknown-unknown --toolchain nightly
command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --locked

# Each run starts from the project's seeds and kept crash inputs, plus what earlier runs found.
corpus=target/fuzz-corpus
cargo run --quiet -p presspack-fuzz -- "${targets[@]}" --seed-corpus "$corpus"

crashed=0
for name in "${targets[@]}"; do
  # Sanitizer none: the code is Rust, whose checks panic (which libFuzzer reports) without
  # AddressSanitizer's cost; 256 KiB inputs, as the stable fuzzer's.
  cargo +nightly fuzz run --fuzz-dir fuzz/libfuzzer --sanitizer none --release "$name" \
    "$corpus/$name" -- -max_total_time="$seconds" -max_len=262144 -print_final_stats=1 \
    || crashed=1
done
exit "$crashed"
