#!/usr/bin/env bash
# The press-file archive benchmark (docs/benchmarks.md): the console's ZIP of 200 orders'
# press files, downloaded fast and slowly, and how much the server's memory grows meanwhile.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -p presspack -p presspack-bench --bin presspack --bin presspack-press-archive-bench
exec target/release/presspack-press-archive-bench "$@"
