"""Times SchedCAT's G-EDF tests (its C++ core, through its SWIG module) and its Python
Bertogna-Cirinei G-FP test on kairos's SchedCAT oracle files, and checks SchedCAT's verdicts
against the ones recorded in the files. kairos's harness: it only calls SchedCAT's public
Python and native classes. scripts/bench-schedcat-reference.sh builds SchedCAT and runs it.

    PYTHONPATH=SCHEDCAT python schedcat_oracle_bench.py [--runs N] [--tests LIST]
        [--rta-min-step S] [--rta-rounds R] [--bcli-rounds R] FILE.jsonl...

SCHEDCAT is a folder holding SchedCAT's `schedcat` package with its native module built
(`schedcat/sched/native.py` and `_sched.so`). Runs under Python 2.7 (SchedCAT's own
interpreter) or Python 3; under Python 3 SchedCAT's Python layer (`schedcat.model.tasks`,
`schedcat.sched.fp`) does not import, so the native task sets are built directly (as
`schedcat.sched.get_native_taskset` does) and BCL_FP_RM is skipped.

Keys, as in the files' "verdicts":
  GFB   native.GFBGedf(m)                       BAK  native.BakerGedf(m)
  BCL   native.BCLGedf(m)                       BCLI native.BCLIterativeGedf(m, bcli_rounds)
  RTA   native.RTAGedf(m, rta_min_step, rta_rounds)
  BCL_FP_RM  schedcat.sched.fp.bertogna.is_schedulable(m, ts), Python, tasks sorted by period
             (stable: ties keep the file's order), slack-aware, as SchedCAT's default.

What is timed, per file and test: one pass of the test over every set of the file, in one
list comprehension, `[test(ts) for ts in sets]`, with Python's garbage collector off (as
timeit does), timed with timeit.default_timer; --runs passes, the median reported. Not
timed: reading and parsing the file, building the TaskSystem / native TaskSet of each set,
constructing the native test objects (one per file and test: a file has one m), and the
rate-monotonic sort for BCL_FP_RM. For the C++ tests the time includes the Python loop and
one SWIG call per set; OVERHEAD is that loop with a trivial native call
(`TaskSet.get_task_count`) instead of the test, for scale.

Output, one line each:
  INFO <key> <value...>
  RESULT <file-stem> <KEY> <sets> <median-s> <min-s> <max-s> <disagreements> <compared>
  OVERHEAD <file-stem> <sets> <median-s>
  SKIP <KEY> <reason>
where disagreements counts sets whose verdict differs from the file's (compared: sets that
carry a verdict for KEY), or whose verdict changed between runs.
"""
from __future__ import division, print_function

import gc
import json
import os
import platform
import sys
from timeit import default_timer as clock

import schedcat.sched as sched

if not sched.using_native:
    sys.exit("error: SchedCAT's native module (schedcat/sched/native.py, _sched.so) is not built")
import schedcat.sched.native as native

try:
    import schedcat.model.tasks as tasks
    import schedcat.sched.fp.bertogna as bertogna
    PY_LAYER = None
except (ImportError, SyntaxError) as e:  # SchedCAT's Python layer is Python 2
    tasks = bertogna = None
    PY_LAYER = "%s: %s" % (type(e).__name__, e)

CXX_KEYS = ["GFB", "BAK", "BCL", "BCLI", "RTA"]
ALL_KEYS = CXX_KEYS + ["BCL_FP_RM"]


def parse_args(argv):
    opts = dict(runs=5, tests=ALL_KEYS, rta_min_step=0, rta_rounds=25, bcli_rounds=0)
    files = []
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "--runs":
            opts["runs"] = int(argv[i + 1]); i += 2
        elif a == "--tests":
            opts["tests"] = [k for k in argv[i + 1].split(",") if k]; i += 2
        elif a == "--rta-min-step":
            opts["rta_min_step"] = int(argv[i + 1]); i += 2
        elif a == "--rta-rounds":
            opts["rta_rounds"] = int(argv[i + 1]); i += 2
        elif a == "--bcli-rounds":
            opts["bcli_rounds"] = int(argv[i + 1]); i += 2
        elif a in ("-h", "--help"):
            print(__doc__); sys.exit(0)
        elif a.startswith("-"):
            sys.exit("error: unknown option %s" % a)
        else:
            files.append(a); i += 1
    for k in opts["tests"]:
        if k not in ALL_KEYS:
            sys.exit("error: unknown test %s (%s)" % (k, ",".join(ALL_KEYS)))
    if not files or opts["runs"] < 1:
        sys.exit(__doc__)
    return opts, files


def native_taskset(rows):
    ts = native.TaskSet()
    for c, t, d in rows:
        ts.add_task(c, t, d)
    return ts


def task_system(rows):
    return tasks.TaskSystem([tasks.SporadicTask(c, t, d) for c, t, d in rows])


def median(xs):
    xs = sorted(xs)
    n = len(xs)
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2


def timed(fn, runs):
    """fn() runs one pass and returns its verdicts; returns (seconds per run, verdicts per run)."""
    secs, verdicts = [], []
    gc_was_on = gc.isenabled()
    gc.disable()
    try:
        for _ in range(runs):
            t0 = clock()
            v = fn()
            t1 = clock()
            secs.append(t1 - t0)
            verdicts.append(v)
    finally:
        if gc_was_on:
            gc.enable()
    return secs, verdicts


def main():
    opts, files = parse_args(sys.argv[1:])
    print("INFO python %s" % platform.python_version())
    print("INFO native %s" % os.path.realpath(native.__file__))
    print("INFO params RTA min_fixpoint_step=%d max_rounds=%d; BCLI max_rounds=%d; runs=%d"
          % (opts["rta_min_step"], opts["rta_rounds"], opts["bcli_rounds"], opts["runs"]))
    keys = list(opts["tests"])
    if "BCL_FP_RM" in keys and bertogna is None:
        print("SKIP BCL_FP_RM SchedCAT's Python layer does not import under Python %s (%s)"
              % (platform.python_version(), PY_LAYER))
        keys.remove("BCL_FP_RM")
    sys.stdout.flush()

    for path in files:
        name = os.path.splitext(os.path.basename(path))[0]
        lines = [json.loads(l) for l in open(path) if l.strip()]
        ms = sorted(set(o["m"] for o in lines))
        ms_of = [o["m"] for o in lines]
        rows = [[(int(c), int(t), int(d)) for c, t, d in o["tasks"]] for o in lines]
        expected = [o.get("verdicts", {}) for o in lines]
        # SchedCAT's own conversion when its Python layer is there, else the same calls direct.
        if tasks is not None:
            nsets = [sched.get_native_taskset(task_system(r)) for r in rows]
        else:
            nsets = [native_taskset(r) for r in rows]
        n = len(nsets)

        count = native.TaskSet.get_task_count
        secs, _ = timed(lambda: [count(ts) for ts in nsets], opts["runs"])
        print("OVERHEAD %s %d %.6f" % (name, n, median(secs)))
        sys.stdout.flush()

        for key in keys:
            if key in CXX_KEYS:
                def make(m, key=key):
                    if key == "GFB":
                        return native.GFBGedf(m)
                    if key == "BAK":
                        return native.BakerGedf(m)
                    if key == "BCL":
                        return native.BCLGedf(m)
                    if key == "BCLI":
                        return native.BCLIterativeGedf(m, opts["bcli_rounds"])
                    return native.RTAGedf(m, opts["rta_min_step"], opts["rta_rounds"])
                if len(ms) == 1:
                    test = make(ms[0]).is_schedulable
                    fn = lambda: [test(ts) for ts in nsets]
                else:  # several core counts in one file: one test object per m, still untimed
                    by_m = dict((m, make(m).is_schedulable) for m in ms)
                    calls = [(by_m[m], ts) for m, ts in zip(ms_of, nsets)]
                    fn = lambda: [f(ts) for f, ts in calls]
            else:
                systems = [task_system(r) for r in rows]
                for s in systems:
                    s.sort_by_period()  # rate-monotonic priorities; list.sort is stable
                bcl_fp = bertogna.is_schedulable
                pairs = list(zip(ms_of, systems))
                fn = lambda: [bcl_fp(m, s) for m, s in pairs]
            secs, verdicts = timed(fn, opts["runs"])
            got = verdicts[0]
            compared = disagree = 0
            for i in range(n):
                stable = all(bool(v[i]) == bool(got[i]) for v in verdicts)
                if key in expected[i]:
                    compared += 1
                    if not stable or bool(got[i]) != bool(expected[i][key]):
                        disagree += 1
                elif not stable:
                    disagree += 1
            print("RESULT %s %s %d %.6f %.6f %.6f %d %d"
                  % (name, key, n, median(secs), min(secs), max(secs), disagree, compared))
            sys.stdout.flush()


if __name__ == "__main__":
    main()
