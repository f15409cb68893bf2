#!/usr/bin/env bash
# Fuzzes the input parsers (docs/fuzzing.md): builds presspack-fuzz in release mode and runs
# every target (or those named) for --seconds each (default 60). Inputs that panic are kept
# in fuzz/crashes/<target>/; the exit status is 1 if there were any.
# Example: `bench/fuzz.sh --seconds 300 image pack_json`.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -p presspack-fuzz
exec target/release/presspack-fuzz "$@"
