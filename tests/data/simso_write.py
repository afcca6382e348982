"""Writes a SimSo configuration with SimSo itself and runs it: the input of kairos's SimSo
import test. Usage: python simso_write.py OUT.xml SCHEDULER_CLASS
Prints "jobs_released N" and "jobs_completed N" for SimSo's run of the file it wrote.
The task set is fixed (two cores, utilization 1.5, periods in whole and half milliseconds,
one task with an offset and one with a constrained deadline)."""
import contextlib
import os
import sys

from simso.configuration import Configuration
from simso.core import Model

TASKS = [  # name, period ms, wcet ms, deadline ms, offset ms
    ("T1", 10, 3, 10, 0),
    ("T2", 15, 4.5, 12, 0),
    ("T3", 20, 5, 20, 2.5),
    ("T4", 7.5, 1.5, 7.5, 0),
    ("T5", 40, 6, 40, 0),
    ("T6", 25, 2.5, 25, 0),
]


def main():
    out, scheduler = sys.argv[1], sys.argv[2]
    cfg = Configuration()
    cfg.duration = 400 * cfg.cycles_per_ms
    cfg.etm = "wcet"
    for ident, (name, period, wcet, deadline, offset) in enumerate(TASKS, start=1):
        cfg.add_task(name=name, identifier=ident, period=period, activation_date=offset,
                     wcet=wcet, acet=wcet, deadline=deadline, abort_on_miss=False)
    for core in range(2):
        cfg.add_processor(name="CPU%d" % (core + 1), identifier=core + 1)
    cfg.scheduler_info.clas = scheduler
    cfg.check_all()
    cfg.save(out)
    model = Model(Configuration(out))
    with open(os.devnull, "w") as sink, contextlib.redirect_stdout(sink):
        model.run_model()
    jobs = [job for task in model.task_list for job in task.jobs]
    print("jobs_released", len(jobs))
    print("jobs_completed", sum(1 for j in jobs if j.end_date is not None and not j.aborted))


if __name__ == "__main__":
    main()
