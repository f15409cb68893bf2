#!/usr/bin/env bash
# The engine share benchmark (docs/benchmarks.md): another partner's renderSide p99 while one
# key keeps six heavy renderPackPdf calls in flight, against the idle server, in one run.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -p presspack -p presspack-bench
exec target/release/presspack-engine-share-bench "$@"
