"""Runs one kairos workload in SimSo 0.8.5 and prints its job counts and speed.

kairos bench embeds this script and feeds it the workload it simulates, so both simulators run
the same task set in the same run. Input on stdin, one JSON object:
  {"cores": M, "duration_ms": D, "scheduler": "simso.schedulers.EDF",
   "tasks": [{"name", "period_ms", "deadline_ms", "wcet_ms", "offset_ms"}, ...]}
Output: "key value" lines (jobs_released, jobs_completed, deadline_misses, simulate_s,
jobs_per_s_simulate). Execution time is the WCET, there are no overheads and late jobs run on
(SimSo's add_task aborts them unless told otherwise).
"""
import contextlib
import json
import os
import sys
import time


def configure(spec):
    from simso.configuration import Configuration

    cfg = Configuration()
    cfg.duration = int(spec["duration_ms"] * cfg.cycles_per_ms)
    cfg.etm = "wcet"
    for ident, task in enumerate(spec["tasks"], start=1):
        cfg.add_task(name=task["name"], identifier=ident, period=task["period_ms"],
                     activation_date=task["offset_ms"], wcet=task["wcet_ms"],
                     acet=task["wcet_ms"], deadline=task["deadline_ms"],
                     abort_on_miss=False)
    for core in range(spec["cores"]):
        cfg.add_processor(name="CPU%d" % (core + 1), identifier=core + 1)
    cfg.scheduler_info.clas = spec.get("scheduler", "simso.schedulers.EDF")
    cfg.check_all()
    return cfg


def main():
    spec = json.load(sys.stdin)
    from simso.core import Model

    model = Model(configure(spec))
    start = time.perf_counter()
    # SimSo's EDF prints on every decision; keep the formatting cost, drop the terminal I/O.
    with open(os.devnull, "w") as sink, contextlib.redirect_stdout(sink):
        model.run_model()
    elapsed = time.perf_counter() - start
    jobs = [job for task in model.task_list for job in task.jobs]
    print("jobs_released", len(jobs))
    print("jobs_completed", sum(1 for j in jobs if j.end_date is not None and not j.aborted))
    print("deadline_misses", model.results.total_exceeded_count)
    print("simulate_s", "%.6f" % elapsed)
    print("jobs_per_s_simulate", "%.1f" % (len(jobs) / elapsed))


if __name__ == "__main__":
    main()
