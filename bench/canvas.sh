#!/usr/bin/env bash
# The design canvas's keystroke-to-preview benchmark in headless Chromium (docs/benchmarks.md):
# runs the ignored e2e test that types into the demo canvas and prints the figures.
# Needs Debian's chromium and chromium-driver, as the browser tests do.
set -euo pipefail
cd "$(dirname "$0")/.."
exec cargo test --release -p presspack --test e2e canvas_keystroke_benchmark -- --ignored --nocapture
