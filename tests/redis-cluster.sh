#!/usr/bin/env bash
# A local Redis Cluster for the tests: three masters (no replicas) of Debian's redis-server on
# free loopback ports, their files in DIR.
#
#   tests/redis-cluster.sh start DIR   starts it; prints the seed URLs, comma-separated, for
#                                      PRESSPACK_TEST_REDIS_CLUSTER (or PRESSPACK_REDIS_URL
#                                      with PRESSPACK_REDIS_CLUSTER=true)
#   tests/redis-cluster.sh stop DIR    stops it and leaves DIR empty
set -euo pipefail

command=${1:-}
dir=${2:-}
if [ -z "$command" ] || [ -z "$dir" ]; then
  echo "usage: $0 start|stop DIR" >&2
  exit 2
fi

# Is anything listening on 127.0.0.1:$1?
listening() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

case "$command" in
start)
  command -v redis-server >/dev/null && command -v redis-cli >/dev/null || {
    echo "redis-server and redis-cli are needed (Debian: redis-server redis-tools)" >&2
    exit 1
  }
  mkdir -p "$dir"
  ports=()
  # A node needs its port and the cluster bus port 10000 above it.
  for port in $(seq 7101 7999); do
    if ! listening "$port" && ! listening $((port + 10000)); then
      ports+=("$port")
      [ ${#ports[@]} = 3 ] && break
    fi
  done
  [ ${#ports[@]} = 3 ] || { echo "no three free ports between 7101 and 7999" >&2; exit 1; }
  for port in "${ports[@]}"; do
    redis-server --port "$port" --bind 127.0.0.1 --daemonize yes \
      --cluster-enabled yes --cluster-config-file "nodes-$port.conf" --cluster-node-timeout 5000 \
      --dir "$dir" --pidfile "$dir/redis-$port.pid" --logfile "$dir/redis-$port.log" \
      --save "" --appendonly no
  done
  for port in "${ports[@]}"; do
    for _ in $(seq 1 50); do
      redis-cli -p "$port" ping >/dev/null 2>&1 && break
      sleep 0.1
    done
  done
  redis-cli --cluster create "${ports[@]/#/127.0.0.1:}" --cluster-replicas 0 --cluster-yes \
    >"$dir/create.log" 2>&1 || { cat "$dir/create.log" >&2; exit 1; }
  # Every node must agree that all slots are served before the tests start.
  for port in "${ports[@]}"; do
    for attempt in $(seq 1 100); do
      redis-cli -p "$port" cluster info 2>/dev/null | grep -q '^cluster_state:ok' && break
      [ "$attempt" = 100 ] && { echo "cluster node $port never became ready" >&2; exit 1; }
      sleep 0.1
    done
  done
  urls=("${ports[@]/#/redis://127.0.0.1:}")
  (IFS=,; echo "${urls[*]}")
  ;;
stop)
  for pidfile in "$dir"/redis-*.pid; do
    [ -e "$pidfile" ] || continue
    kill "$(cat "$pidfile")" 2>/dev/null || true
  done
  sleep 0.5
  rm -rf "${dir:?}"/*
  ;;
*)
  echo "usage: $0 start|stop DIR" >&2
  exit 2
  ;;
esac
