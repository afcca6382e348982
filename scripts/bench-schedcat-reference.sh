#!/usr/bin/env bash
# Side-by-side analysis times: SchedCAT (Brandenburg's Schedulability test Collection And
# Toolkit: C++ core, Python/SWIG wrapper) against kairos, the same tests on the same task sets,
# kairos's SchedCAT oracle files (crates/kairos-analysis/tests/data/schedcat/*.jsonl, 500 sets
# each), one thread on each side, in one run and interleaved.
#
#   scripts/bench-schedcat-reference.sh [options] SCHEDCAT_CHECKOUT
#
# SCHEDCAT_CHECKOUT  a checkout of SchedCAT (its root: native/ and schedcat/). Nothing is written
#                    into it: native/{Makefile,include,interface,src}, the schedcat/ package and
#                    config.mk (if any) are copied to a scratch folder, where SchedCAT's own
#                    Makefile builds its native module (`make -C native _sched.so`: SWIG, -O2
#                    -march=native, GMP) against --python, and the module is linked in as
#                    SchedCAT's top-level Makefile does (schedcat/sched/{_sched.so,native.py}).
#
# Options
#   --oracles DIR   oracle files to time: DIR/*.jsonl (default crates/kairos-analysis/tests/data/schedcat)
#   --repeat N      repeat the whole kairos-then-SchedCAT measurement N times; medians over the
#                   repetitions are reported (default 3)
#   --runs N        SchedCAT timed passes per file and test in each repetition, median taken
#                   (default 5, as `kairos bench --oracles` takes the median of 5)
#   --tests LIST    SchedCAT keys, comma-separated (default GFB,BAK,BCL,BCLI,RTA,BCL_FP_RM)
#   --python PY     interpreter SchedCAT is built for and run with (default python2.7: SchedCAT's
#                   Makefile default; its Python layer is Python 2 only, so with a Python 3 the
#                   C++ tests are timed and BCL_FP_RM is skipped)
#   --harness FILE  the SchedCAT timing harness (default scripts/schedcat_oracle_bench.py)
#   --build         `cargo build --release --bin kairos` first (default: use target/release/kairos)
#   --keep          keep the scratch folder (SchedCAT build, raw outputs)
# Environment: SWIG (default swig), MAKEFLAGS as usual.
#
# What is timed (one thread on each side, every set of every file)
#   SchedCAT (the harness): per file and test, one pass of the test over the file's 500 sets,
#     `[test(ts) for ts in sets]`, garbage collector off, median of --runs passes. The C++ tests,
#     through the SWIG module: GFB GFBGedf(m), BAK BakerGedf(m), BCL BCLGedf(m), BCLI
#     BCLIterativeGedf(m, 0) (no round limit), RTA RTAGedf(m, 0, 25) (minimum fixed-point step
#     0, at most 25 rounds), each is_schedulable(ts) with its precondition checks. The Python
#     test: BCL_FP_RM schedcat.sched.fp.bertogna.is_schedulable(m, ts) on the set sorted by
#     period (stable). Not timed: parsing, building each set's TaskSystem and native TaskSet,
#     constructing the test objects (once per file), the sort. The C++ times include the Python
#     loop and one SWIG call per set; "loop" is that loop with a trivial native call instead,
#     for scale (it is not subtracted).
#   kairos: `kairos bench --oracles DIR --json`, its per-file, per-test seconds: one pass of the
#     test over the file's sets, already converted to kairos tasks (nanoseconds), median of 5
#     passes, in-process: gfb, bak, bcl, bcl-iterative, gedf-rta (25 rounds) and gfp-bc. Its
#     batch (threads) timings are run too but not used.
#   ratio = SchedCAT s / kairos s. BCL_FP_RM is set against gfp-bc, the published
#     Bertogna-Cirinei G-FP test, which caps each interference term at R - C + 1 where SchedCAT's
#     Python does not (docs/analysis-oracle.md): a close relative, not the same computation.
#   Verdicts: the harness compares SchedCAT's verdict on every set with the one recorded in the
#     file ("disagree" column; it also counts a verdict that changes between passes).
# Requires: a C++ compiler, make, swig, GMP (libgmp-dev), the Python's headers, python3 (for
#   the tables), the kairos binary.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ORACLES="$ROOT/crates/kairos-analysis/tests/data/schedcat"
REPEAT=3
RUNS=5
TESTS=GFB,BAK,BCL,BCLI,RTA,BCL_FP_RM
PY=python2.7
HARNESS="$ROOT/scripts/schedcat_oracle_bench.py"
BUILD=0
KEEP=0
SWIG=${SWIG:-swig}

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit "${1:-0}"; }

ARGS=()
while [ $# -gt 0 ]; do
    case "$1" in
        --oracles) ORACLES=$2; shift 2 ;;
        --repeat) REPEAT=$2; shift 2 ;;
        --runs) RUNS=$2; shift 2 ;;
        --tests) TESTS=$2; shift 2 ;;
        --python) PY=$2; shift 2 ;;
        --harness) HARNESS=$2; shift 2 ;;
        --build) BUILD=1; shift ;;
        --keep) KEEP=1; shift ;;
        -h|--help) usage 0 ;;
        -*) echo "unknown option $1" >&2; usage 2 ;;
        *) ARGS+=("$1"); shift ;;
    esac
done
[ ${#ARGS[@]} -eq 1 ] || usage 2
CHECKOUT=$(cd "${ARGS[0]}" && pwd)
ORACLES=$(cd "$ORACLES" && pwd)

for f in native/Makefile native/interface/sched.i native/src/edf/rta.cpp \
         native/include/edf/bcl_iterative.h schedcat/sched/__init__.py schedcat/sched/fp/bertogna.py; do
    [ -f "$CHECKOUT/$f" ] || { echo "error: $CHECKOUT/$f missing (give the root of a SchedCAT checkout)" >&2; exit 2; }
done
[ -f "$HARNESS" ] || { echo "error: harness $HARNESS missing" >&2; exit 2; }
command -v "$PY" > /dev/null || { echo "error: $PY not found (--python)" >&2; exit 2; }
command -v "$SWIG" > /dev/null || { echo "error: $SWIG not found (Debian: apt-get install swig)" >&2; exit 2; }
FILES=()
for f in "$ORACLES"/*.jsonl; do [ -f "$f" ] && FILES+=("$f"); done
[ ${#FILES[@]} -gt 0 ] || { echo "error: no *.jsonl in $ORACLES" >&2; exit 2; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/bench-schedcat-ref.XXXXXX")
if [ "$KEEP" = 1 ]; then echo "scratch folder: $WORK"; else trap 'rm -rf "$WORK"' EXIT; fi

# ---------------------------------------------------------------- SchedCAT build (scratch)
SC="$WORK/schedcat"
mkdir -p "$SC"
extra=()
[ -f "$CHECKOUT/config.mk" ] && extra+=(config.mk)
# sources only: no objects, modules or links a build in the checkout may have left
tar -C "$CHECKOUT" --exclude='*.o' --exclude='*.so' --exclude='*.dll' --exclude='*.pyc' \
    --exclude='native.py' --exclude='native/*.py' --exclude='native/interface/*_wrap.cc' \
    -cf - native/Makefile native/include native/interface native/src schedcat "${extra[@]}" \
    | tar -C "$SC" -xf -
PYINC=$("$PY" -c 'import sysconfig; print(sysconfig.get_paths()["include"])')
[ -f "$PYINC/Python.h" ] || { echo "error: no Python.h in $PYINC (headers of $PY)" >&2; exit 2; }
echo "== building SchedCAT's native module (make -C native _sched.so) for $("$PY" -c 'import platform; print(platform.python_version())')"
make -s -C "$SC/native" -j"$(nproc)" _sched.so PYTHON="$PY" PYTHON_INC="-I$PYINC" SWIG="$SWIG" \
    > "$WORK/build.log" 2>&1 || { tail -20 "$WORK/build.log"; echo "error: SchedCAT build failed" >&2; exit 1; }
ln -s ../../native/_sched.so "$SC/schedcat/sched/_sched.so"
ln -s ../../native/sched.py "$SC/schedcat/sched/native.py"
PYTHONPATH="$SC" "$PY" -c 'import schedcat.sched as s; assert s.using_native' \
    || { echo "error: SchedCAT's native module does not load" >&2; exit 1; }

KAIROS="$ROOT/target/release/kairos"
if [ "$BUILD" = 1 ] || [ ! -x "$KAIROS" ]; then
    echo "== cargo build --release --bin kairos"
    (cd "$ROOT" && cargo build --release --bin kairos)
fi

SC_REV=$(git -C "$CHECKOUT" rev-parse --short HEAD 2>/dev/null || echo 'not a git checkout')
echo "== $(date -u '+%F %T UTC'), $(nproc) CPU(s), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "   SchedCAT $SC_REV, $($PY --version 2>&1), $(${CXX:-g++} --version 2>/dev/null | head -1)"
echo "   kairos $(cd "$ROOT" && git rev-parse --short HEAD 2>/dev/null || echo '?'); files: $ORACLES (${#FILES[@]})"

for rep in $(seq 1 "$REPEAT"); do
    D="$WORK/rep$rep"; mkdir -p "$D"
    echo "== repetition $rep/$REPEAT: kairos, then SchedCAT, back to back"
    "$KAIROS" bench --oracles "$ORACLES" --json > "$D/kairos.json"
    PYTHONPATH="$SC" "$PY" "$HARNESS" --runs "$RUNS" --tests "$TESTS" \
        --rta-min-step 0 --rta-rounds 25 --bcli-rounds 0 "${FILES[@]}" > "$D/schedcat.txt"
    grep '^SKIP' "$D/schedcat.txt" | sed 's/^/   /' || true
done

python3 - "$WORK" "$REPEAT" "$RUNS" <<'PY'
import json, os, statistics, sys
work, repeat, runs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
kname = {"GFB": "gfb", "BAK": "bak", "BCL": "bcl", "BCLI": "bcl-iterative",
         "RTA": "gedf-rta", "BCL_FP_RM": "gfp-bc"}
sc, loop, agree, kai, order = {}, {}, {}, {}, []
for rep in range(1, repeat + 1):
    d = os.path.join(work, "rep%d" % rep)
    for f in json.load(open(os.path.join(d, "kairos.json")))["files"]:
        for test, s in f["seconds"].items():
            kai.setdefault((f["file"], test), []).append(s)
    for line in open(os.path.join(d, "schedcat.txt")):
        p = line.split()
        if p and p[0] == "RESULT":
            key = (p[1], p[2])
            if key not in sc:
                order.append(key)
            sc.setdefault(key, []).append(float(p[4]))
            dis, n = agree.get(key, (0, 0))
            agree[key] = (dis + int(p[7]), n + int(p[8]))
        elif p and p[0] == "OVERHEAD":
            loop.setdefault(p[1], []).append(float(p[3]))

med = statistics.median
print()
print("seconds per file (all its sets), medians of %d repetition(s) of: SchedCAT's median of %d pass(es), "
      "kairos's median of 5" % (repeat, runs))
hdr = "%-46s %-10s %-14s %11s %11s %9s %10s %11s" % (
    "file", "SchedCAT", "kairos", "SchedCAT s", "kairos s", "ratio", "loop s", "disagree*")
print(hdr)
print("-" * len(hdr))
ratios = []
for f, key in order:
    k = kname[key]
    s, ks = med(sc[(f, key)]), kai.get((f, k))
    kmed = med(ks) if ks else None
    ratio = s / kmed if kmed else None
    if ratio:
        ratios.append((ratio, f, key))
    dis, n = agree[(f, key)]
    print("%-46s %-10s %-14s %11.5f %11s %9s %10.5f %11s" % (
        f, key, k, s, "%.5f" % kmed if kmed else "-", "%.1fx" % ratio if ratio else "-",
        med(loop.get(f, [0])), "%d/%d" % (dis, n)))
if ratios:
    lo, hi = min(ratios), max(ratios)
    print("\nratio range: %.1fx (%s %s) to %.1fx (%s %s); disagreements with the files' verdicts: %d of %d"
          % (lo[0], lo[1], lo[2], hi[0], hi[1], hi[2],
             sum(a for a, _ in agree.values()), sum(n for _, n in agree.values())))
print("* SchedCAT verdicts differing from the file's / sets compared, summed over the repetitions")
print("loop s: the SchedCAT pass with a trivial native call per set instead of the test (included in its C++ times)")
print("BCL_FP_RM (SchedCAT's Python) is set against kairos's gfp-bc, the published test with the R - C + 1 cap")
PY
