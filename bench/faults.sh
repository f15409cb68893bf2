#!/usr/bin/env bash
# The load and fault test (docs/benchmarks.md): two hosts on a private Redis with AOF, a
# mixed workload at a fixed rate, one host and then Redis (and with `--blobs s3` the S3
# server) killed and restarted mid-run, every acknowledged write checked afterwards. Loopback
# only; needs redis-server and redis-cli. Arguments go to presspack-faults, e.g.
# `bench/faults.sh --seconds 180 --rate 40` or `bench/faults.sh --blobs s3`.
set -euo pipefail
cd "$(dirname "$0")/.."
case " $* " in
*" s3 "* | *"=s3 "*) tests/s3-server.sh install ;;
esac
cargo build --release -p presspack -p presspack-bench
exec target/release/presspack-faults "$@"
