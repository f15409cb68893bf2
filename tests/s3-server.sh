#!/usr/bin/env bash
# A local S3-compatible server for the tests and the fault benchmark, on loopback, its state
# in DIR. Which server: PRESSPACK_S3_SERVER =
#   s3s-fs  (the default) an S3 server on a directory, from crates.io; builds in about a minute
#   garage  Garage, the distributed object store, as a single node; its build takes about
#           16 CPU-minutes (8 to 10 minutes here), too long for every CI run
# The binary is built once into target/s3s or target/garage by `cargo install` and kept there.
#
#   tests/s3-server.sh install        builds the server unless it is there
#   tests/s3-server.sh start DIR      starts it (the first time: a new bucket and key; after
#                                     `kill`: again on the same port with the same data);
#                                     prints `endpoint,access key,secret,bucket` for
#                                     PRESSPACK_TEST_S3
#   tests/s3-server.sh kill DIR       kills it (SIGKILL, as a crash), keeping its data
#   tests/s3-server.sh stop DIR       stops it and leaves DIR empty
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
server=${PRESSPACK_S3_SERVER:-s3s-fs}
bucket=presspack-test
case "$server" in
s3s-fs)
  version=0.14.1 # the newest that builds with the pinned toolchain (0.17 needs Rust 1.96)
  binary=$root/target/s3s/bin/s3s-fs
  ;;
garage)
  version=2.5.0
  binary=$root/target/garage/bin/garage
  ;;
*) echo "PRESSPACK_S3_SERVER is s3s-fs or garage, not $server" >&2; exit 2 ;;
esac

command=${1:-}
dir=${2:-}
usage() { echo "usage: $0 install | start DIR | kill DIR | stop DIR" >&2; exit 2; }

# Is anything listening on 127.0.0.1:$1?
listening() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
free_port() {
  for p in $(seq "$1" "$(($1 + 98))"); do listening "$p" || { echo "$p"; return; }; done
  echo "no free port from $1" >&2
  exit 1
}
random_hex() { od -An -N"$1" -tx1 /dev/urandom | tr -d ' \n'; }

install() {
  if [ -x "$binary" ] && "$binary" --version 2>/dev/null | grep -q "$version"; then
    return
  fi
  case "$server" in
  s3s-fs)
    cargo install s3s-fs --version "$version" --features binary --locked --root "$root/target/s3s" >&2
    ;;
  garage)
    cargo install garage --version "$version" --locked --root "$root/target/garage" >&2
    ;;
  esac
}

# Starts the server of $dir/server.env in the background; waits for its S3 port.
launch() {
  # shellcheck source=/dev/null
  . "$dir/server.env"
  case "$server" in
  s3s-fs)
    "$binary" --host 127.0.0.1 --port "$port" --access-key "$key" --secret-key "$secret" \
      "$dir/data" >>"$dir/server.log" 2>&1 &
    ;;
  garage)
    "$binary" -c "$dir/garage.toml" server >>"$dir/server.log" 2>&1 &
    ;;
  esac
  echo $! >"$dir/server.pid"
  for attempt in $(seq 1 200); do
    listening "$port" && return
    [ "$attempt" = 200 ] && { tail -20 "$dir/server.log" >&2; echo "$server did not start" >&2; exit 1; }
    sleep 0.1
  done
}

# A new server in $dir: its ports, bucket and key.
create() {
  mkdir -p "$dir"
  port=$(free_port 7201)
  case "$server" in
  s3s-fs)
    mkdir -p "$dir/data/$bucket"
    printf 'port=%s\nkey=%s\nsecret=%s\n' "$port" presspack-test-key "$(random_hex 16)" \
      >"$dir/server.env"
    launch
    ;;
  garage)
    # Its RPC and admin ports beside the S3 one; the signing region is the SDKs' default.
    rpc=$(free_port 7401)
    admin=$(free_port 7501)
    cat >"$dir/garage.toml" <<EOF
metadata_dir = "$dir/meta"
data_dir = "$dir/data"
db_engine = "sqlite"
replication_factor = 1
rpc_bind_addr = "127.0.0.1:$rpc"
rpc_public_addr = "127.0.0.1:$rpc"
rpc_secret = "$(random_hex 32)"
[s3_api]
s3_region = "us-east-1"
api_bind_addr = "127.0.0.1:$port"
root_domain = ".s3.garage.localhost"
[admin]
api_bind_addr = "127.0.0.1:$admin"
EOF
    printf 'port=%s\n' "$port" >"$dir/server.env"
    launch
    local cli=("$binary" -c "$dir/garage.toml")
    for attempt in $(seq 1 100); do
      node=$("${cli[@]}" node id -q 2>/dev/null | cut -d@ -f1) && [ -n "$node" ] && break
      [ "$attempt" = 100 ] && { echo "garage has no node id" >&2; exit 1; }
      sleep 0.1
    done
    {
      "${cli[@]}" layout assign -z local -c 1G "$node"
      "${cli[@]}" layout apply --version 1
      "${cli[@]}" bucket create "$bucket"
      "${cli[@]}" key create presspack-test-key >"$dir/key.txt"
      "${cli[@]}" bucket allow --read --write --owner "$bucket" --key presspack-test-key
    } >>"$dir/server.log" 2>&1
    key=$(awk '/^Key ID:/ {print $3}' "$dir/key.txt")
    secret=$(awk '/^Secret key:/ {print $3}' "$dir/key.txt")
    printf 'port=%s\nkey=%s\nsecret=%s\n' "$port" "$key" "$secret" >"$dir/server.env"
    ;;
  esac
}

case "$command" in
install) install ;;
start)
  [ -n "$dir" ] || usage
  install
  if [ -f "$dir/server.env" ]; then launch; else create; fi
  # shellcheck source=/dev/null
  . "$dir/server.env"
  echo "http://127.0.0.1:$port,$key,$secret,$bucket"
  ;;
kill | stop)
  [ -n "$dir" ] || usage
  if [ -f "$dir/server.pid" ]; then
    pid=$(cat "$dir/server.pid")
    kill -KILL "$pid" 2>/dev/null || true
    while kill -0 "$pid" 2>/dev/null; do sleep 0.05; done
    rm -f "$dir/server.pid"
  fi
  if [ "$command" = stop ]; then rm -rf "${dir:?}"/*; fi
  ;;
*) usage ;;
esac
