"""kairos for Python: check, analyze and simulate multicore real-time workloads.

Every function runs the same code as the `kairos` command and returns the fields of its
`--json` output under the same names; simulations add pandas DataFrames of the tasks and of
every job. A workload is a path to a kairos file (TOML or JSON) or a dict in kairos's JSON form:

    import kairos
    sim = kairos.simulate("examples/demo.toml", policy="gedf", duration="1s")
    sim["jobs_released"], sim.deadline_misses
    sim.jobs.groupby("task").response_ns.max()
"""
import json
import os
from typing import Any, Dict, Optional, Tuple, Union

import pandas as pd

from . import _kairos

__all__ = ["check", "analyze", "simulate", "Simulation", "KairosError"]

Workload = Union[str, "os.PathLike[str]", Dict[str, Any]]


class KairosError(Exception):
    """A workload kairos refused, or a bad argument. `diagnostics` lists every located
    problem (line, column, path, message, hint) when the workload has errors."""

    def __init__(self, message: str, report: Optional[Dict[str, Any]] = None):
        super().__init__(message)
        self.message = message
        self.report = report
        self.diagnostics = (report or {}).get("diagnostics", [])


def _source(workload: Workload) -> Tuple[str, str]:
    if isinstance(workload, dict):
        return "workload.json", json.dumps(workload)
    path = os.fspath(workload)
    with open(path, encoding="utf-8") as handle:
        return path, handle.read()


def _call(function, *args):
    try:
        return function(*args)
    except _kairos.NativeError as error:
        message, report = error.args
        raise KairosError(message, json.loads(report) if report else None) from None


def check(workload: Workload) -> Dict[str, Any]:
    """`kairos check --json`: `ok`, `summary`, `errors`, `warnings`, `diagnostics`."""
    return json.loads(_call(_kairos.check, *_source(workload)))


def analyze(workload: Workload) -> Dict[str, Any]:
    """`kairos analyze --json` with the default tests: `schedulable`, `shown_by`, `tests`
    (each test's verdict and evidence), `skipped`."""
    return json.loads(_call(_kairos.analyze, *_source(workload)))


class Simulation(dict):
    """`kairos simulate --json` as a dict whose keys are also attributes, plus `tasks_frame`
    (one row per task) and `jobs` (one row per job: task, job, release_ns, deadline_ns,
    completion_ns, response_ns, missed)."""

    def __init__(self, metrics: Dict[str, Any], jobs: pd.DataFrame):
        super().__init__(metrics)
        self.jobs = jobs
        self.tasks_frame = pd.DataFrame(metrics.get("tasks", []))

    def __getattr__(self, name: str) -> Any:
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None


def simulate(
    workload: Workload,
    policy: str,
    duration: Optional[str] = None,
    seed: int = 0,
    execution_times: str = "wcet",
) -> Simulation:
    """`kairos simulate --json --policy POLICY [--duration D] [--seed S] [--exec E]`."""
    name, text = _source(workload)
    metrics, jobs = _call(_kairos.simulate, name, text, policy, duration, seed, execution_times)
    frame = pd.DataFrame(json.loads(jobs))
    return Simulation(json.loads(metrics), frame)
