#!/usr/bin/env bash
# Render speed against peers (docs/benchmarks.md, "Render speed"): the engine's browser build
# (the npm package, pkg/) under Node beside Skia (@napi-rs/canvas) and libvips (sharp), with
# the engine's scaling tables. Builds pkg/ (npm run build) and installs the peers, pinned, in
# target/bench-peers (sharp 0.33, the last for Node 18). Needs Node 18.17+ and npm.
# `bench/render-peers.sh --quick` runs each case shorter.
set -euo pipefail
cd "$(dirname "$0")/.."
npm run build --silent
peers=target/bench-peers
mkdir -p "$peers"
cat > "$peers/package.json" <<'JSON'
{ "name": "presspack-bench-peers", "private": true,
  "dependencies": { "@napi-rs/canvas": "1.1.1", "sharp": "0.33.5" } }
JSON
(cd "$peers" && npm install --no-audit --no-fund --silent)
exec node bench/render-peers.mjs "$@"
