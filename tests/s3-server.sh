#!/usr/bin/env bash
# A local S3-compatible server for the tests: s3s-fs (crates.io; an S3 server on a directory)
# on a free loopback port, its bucket and files in DIR. The binary is built once into
# target/s3s by `cargo install` and kept there.
#
#   tests/s3-server.sh install        builds s3s-fs into target/s3s unless it is there
#   tests/s3-server.sh start DIR      starts it; prints `endpoint,access key,secret,bucket`
#                                     for PRESSPACK_TEST_S3
#   tests/s3-server.sh stop DIR       stops it and leaves DIR empty
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
version=0.14.1 # the newest that builds with the pinned toolchain (0.17 needs Rust 1.96)
binary=$root/target/s3s/bin/s3s-fs

command=${1:-}
dir=${2:-}
usage() { echo "usage: $0 install | start DIR | stop DIR" >&2; exit 2; }

# Is anything listening on 127.0.0.1:$1?
listening() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

install() {
  if [ -x "$binary" ] && "$binary" --version 2>/dev/null | grep -q "$version"; then
    return
  fi
  cargo install s3s-fs --version "$version" --features binary --locked --root "$root/target/s3s" \
    >&2
}

case "$command" in
install) install ;;
start)
  [ -n "$dir" ] || usage
  install
  mkdir -p "$dir/data/presspack-test"
  port=$(for p in $(seq 7201 7299); do listening "$p" || { echo "$p"; break; }; done)
  [ -n "$port" ] || { echo "no free port between 7201 and 7299" >&2; exit 1; }
  key=presspack-test-key
  secret=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
  "$binary" --host 127.0.0.1 --port "$port" --access-key "$key" --secret-key "$secret" \
    "$dir/data" >"$dir/s3s-fs.log" 2>&1 &
  echo $! >"$dir/s3s-fs.pid"
  for attempt in $(seq 1 100); do
    listening "$port" && break
    [ "$attempt" = 100 ] && { cat "$dir/s3s-fs.log" >&2; echo "s3s-fs did not start" >&2; exit 1; }
    sleep 0.1
  done
  echo "http://127.0.0.1:$port,$key,$secret,presspack-test"
  ;;
stop)
  [ -n "$dir" ] || usage
  if [ -f "$dir/s3s-fs.pid" ]; then
    kill "$(cat "$dir/s3s-fs.pid")" 2>/dev/null || true
  fi
  rm -rf "${dir:?}"/*
  ;;
*) usage ;;
esac
