#!/usr/bin/env bash
# Press file time against an earlier commit, in one run (docs/benchmarks.md): builds the
# engine's `press_card` example (a two-sided photo card's press file, natively) in a
# checkout of BASE (default e16e01b, the head before issue 55's press colour) and in this
# working tree, then runs them turn about, five times each, and prints each one's medians
# and the ratio of their medians: once with glibc's allocator as it comes, and once with it
# keeping freed memory (as the server's wasm engine does: wasm memory never shrinks), since
# a file's few large copies (the photo's bytes) cost page faults whenever glibc has given
# that memory back. Usage: bench/press-ab.sh [BASE]
set -euo pipefail
cd "$(dirname "$0")/.."
base=${1:-e16e01b}
work=target/press-ab
mkdir -p "$work"
if [ ! -d "$work/base" ]; then
  git worktree add --detach "$work/base" "$base" >/dev/null
else
  git -C "$work/base" checkout --quiet --detach "$base"
fi
mkdir -p "$work/base/engine/examples"
cp engine/examples/press_card.rs "$work/base/engine/examples/press_card.rs"
# The same dev-dependencies and profile in both; each build its own target directory.
(cd "$work/base" && CARGO_TARGET_DIR="$PWD/../base-target" \
  cargo build --quiet --release -p presspack-engine --example press_card)
CARGO_TARGET_DIR="$work/head-target" \
  cargo build --quiet --release -p presspack-engine --example press_card
base_bin="$work/base-target/release/examples/press_card"
head_bin="$work/head-target/release/examples/press_card"
for allocator in "as it comes" "keeping freed memory"; do
  if [ "$allocator" = "keeping freed memory" ]; then
    export MALLOC_MMAP_THRESHOLD_=33554432 MALLOC_TRIM_THRESHOLD_=4294967296
  fi
  base_runs=() head_runs=()
  for _ in 1 2 3 4 5; do
    base_runs+=("$("$base_bin" | awk '{print $2}')")
    head_runs+=("$("$head_bin" | awk '{print $2}')")
  done
  python3 - "$base" "$allocator" "${base_runs[*]}" "${head_runs[*]}" <<'PY'
import statistics, sys
base, allocator = sys.argv[1], sys.argv[2]
old, new = [float(v) for v in sys.argv[3].split()], [float(v) for v in sys.argv[4].split()]
print(f"glibc {allocator}: {base} medians {old} ms; now {new} ms; "
      f"now / {base}: {statistics.median(new) / statistics.median(old):.2f}x")
PY
done
