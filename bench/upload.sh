#!/usr/bin/env bash
# The upload benchmark (docs/benchmarks.md): a 12 MP JPEG through uploadImage to all its
# renditions next to vipsthumbnail making the same renditions, and the server's peak memory.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v vipsthumbnail >/dev/null; then
  if [ "$(id -u)" = 0 ]; then apt-get install -y libvips-tools; else sudo apt-get install -y libvips-tools; fi
fi
cargo build --release -p presspack -p presspack-bench
exec target/release/presspack-upload-bench "$@"
