#!/usr/bin/env bash
# The order list benchmark (docs/benchmarks.md): the console's first page of the work to do
# and a page filtered by state, with 1,000 and with 100,000 orders, on the embedded store and
# on Redis (PRESSPACK_BENCH_REDIS_URL, default redis://127.0.0.1:6379). Its Redis keys are
# removed afterwards.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -p presspack-bench --bin presspack-order-list-bench
output=$(target/release/presspack-order-list-bench "$@")
echo "$output"
prefix=$(echo "$output" | sed -n 's/^(Redis keys under \(.*\))$/\1/p')
if [ -n "$prefix" ] && command -v redis-cli >/dev/null; then
  redis-cli -u "${PRESSPACK_BENCH_REDIS_URL:-redis://127.0.0.1:6379}" --scan --pattern "${prefix}*" |
    xargs -r -n 500 redis-cli -u "${PRESSPACK_BENCH_REDIS_URL:-redis://127.0.0.1:6379}" del >/dev/null
fi
