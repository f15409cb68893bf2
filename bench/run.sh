#!/usr/bin/env bash
# Builds in release mode and runs the load benchmark (docs/benchmarks.md).
# Arguments go to presspack-bench, e.g. `bench/run.sh --seconds 5 --concurrency 64`.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -p presspack -p presspack-bench
exec target/release/presspack-bench "$@"
