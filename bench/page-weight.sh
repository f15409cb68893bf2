#!/usr/bin/env bash
# The design canvas's page weight in headless Chromium (docs/benchmarks.md): the bytes a first
# open of /web-demo/ downloads in a fresh browser and a repeat open, by kind of file, from the
# browser's resource timing. Runs the ignored e2e test that prints them. Needs Debian's
# chromium and chromium-driver, as the browser tests do.
set -euo pipefail
cd "$(dirname "$0")/.."
# Bytes do not depend on the build profile: the dev build is enough.
exec cargo test -p presspack --test e2e canvas_page_weight_benchmark -- --ignored --nocapture
