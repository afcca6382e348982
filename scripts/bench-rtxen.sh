#!/usr/bin/env bash
# The whole simulated RT-Xen study (examples/experiments/rtxen-{light,medium,heavy}.toml: 20
# utilizations x 25 sets, each analysed under 8 guest/VMM combinations and simulated for 10 s
# under 13 configurations) timed from scratch, per distribution and in total.
#
#   scripts/bench-rtxen.sh [KAIROS] [--jobs N]
#
# KAIROS defaults to target/release/kairos (build it first: cargo build --release). The results
# go to a temporary folder, removed at the end; the summary of each run is kept in its log.
set -euo pipefail
cd "$(dirname "$0")/.."
kairos=${1:-target/release/kairos}
shift || true
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
since() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; }
total_start=$(date +%s.%N)
for d in light medium heavy; do
  start=$(date +%s.%N)
  "$kairos" experiment "examples/experiments/rtxen-$d.toml" --out-dir "$out/$d" --fresh --quiet "$@" >"$out/$d.log"
  printf 'rtxen-%-7s %7s s  (%s points)\n' "$d" "$(since "$start")" "$(grep -c . "$out/$d/points.jsonl")"
done
printf 'total          %7s s on %s CPU(s)\n' "$(since "$total_start")" "$(nproc)"
