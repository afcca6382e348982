#!/bin/sh
# The OS-latency suite against its physical floor, side by side in one run: compiles
# scripts/oslat-floor.c (the same calls in a tight loop, mean per call), runs it and
# `kairos platform latency` on the same CPU, and prints each median over the floor.
# Needs root (SCHED_FIFO), cc and python3. Usage: scripts/oslat-floor.sh [CPU] [KAIROS]
set -eu
cpu=${1:-0}
kairos=${2:-target/release/kairos}
here=$(dirname "$0")
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
cc -O2 -Wall -o "$bin/floor" "$here/oslat-floor.c"
"$bin/floor" "$cpu" > "$bin/floor.txt"
"$kairos" platform latency --bench syscall,pipe,ctx,sem --cpu "$cpu" --json --quiet > "$bin/kairos.json"
python3 - "$bin/floor.txt" "$bin/kairos.json" <<'PY'
import json, sys
floor = dict((l.split()[0], float(l.split()[1])) for l in open(sys.argv[1]))
suite = {b["name"]: b for b in json.load(open(sys.argv[2]))["benchmarks"]}
print(f"{'bench':<8} {'floor ns':>9} {'MCET ns':>9} {'ratio':>6}")
for name in ("syscall", "pipe", "ctx", "sem"):
    m = suite[name]["mcet_ns"]
    print(f"{name:<8} {floor[name]:>9.0f} {m:>9} {m / floor[name]:>6.2f}")
PY
