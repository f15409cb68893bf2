#!/usr/bin/env bash
# First start to listening (docs/benchmarks.md): how long `presspack serve` takes to print its
# start-up line and how long until the engine is ready, on the first start of a build (no
# compiled engine in the cache: it compiles) and on a later start (it loads the cache).
# Before the server listened at once, it listened only when the engine was ready, so the
# "ready" column is also what "listening" was then.
#
# Usage: bench/first-start.sh [BINARY [RUNS]]; BINARY defaults to target/release/presspack
# (`cargo build --release -p presspack`), RUNS to 3. Prints milliseconds per run.
set -euo pipefail
cd "$(dirname "$0")/.."
binary=${1:-target/release/presspack}
runs=${2:-3}
[ -x "$binary" ] || { echo "no $binary: build it first" >&2; exit 1; }

now_ms() { echo $(( $(date +%s%N) / 1000000 )); }

# One start with the engine cache in $1: "listening_ms ready_ms".
start() {
  local work out pid started listening ready
  work=$(mktemp -d)
  out=$work/out
  started=$(now_ms)
  PRESSPACK_LISTEN=127.0.0.1:0 PRESSPACK_DATA_DIR=$work/data PRESSPACK_ENGINE_CACHE_DIR=$1 \
    "$binary" serve >"$out" 2>&1 &
  pid=$!
  until grep -q "listening on" "$out"; do
    kill -0 "$pid" 2>/dev/null || { cat "$out" >&2; exit 1; }
    sleep 0.002
  done
  listening=$(now_ms)
  until grep -q "the engine is ready" "$out"; do sleep 0.002; done
  ready=$(now_ms)
  kill "$pid"
  wait "$pid" 2>/dev/null || true
  rm -rf "$work"
  echo "$((listening - started)) $((ready - started))"
}

printf '%-12s %14s %10s\n' start listening_ms ready_ms
for run in $(seq "$runs"); do
  cache=$(mktemp -d)
  read -r listening ready < <(start "$cache")
  printf '%-12s %14s %10s\n' "first#$run" "$listening" "$ready"
  read -r listening ready < <(start "$cache")
  printf '%-12s %14s %10s\n' "later#$run" "$listening" "$ready"
  rm -rf "$cache"
done
