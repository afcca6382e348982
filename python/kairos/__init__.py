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
import tempfile
from typing import Any, Dict, List, Optional, Tuple, Union

import pandas as pd

from . import _kairos

__all__ = [
    "check",
    "analyze",
    "simulate",
    "policies",
    "generate",
    "synthesize",
    "report",
    "read_run",
    "Simulation",
    "Synthesis",
    "Run",
    "KairosError",
]

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


def analyze(
    workload: Workload,
    overheads: Optional[Union[str, "os.PathLike[str]"]] = None,
    quantile: str = "max",
) -> Dict[str, Any]:
    """`kairos analyze --json` with the default tests: `schedulable`, `shown_by`, `tests`
    (each test's verdict and evidence), `skipped`; with `overheads` (a profile file, as
    `kairos bench overheads --out` writes) or a workload's own `[overheads]`, also
    `overheads`: the verdicts with those costs charged at `quantile` ("max", "p999" or "p99")."""
    profile = _source(overheads) if overheads is not None else None
    return json.loads(_call(_kairos.analyze, *_source(workload), profile, quantile))


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


def policies() -> List[Dict[str, Any]]:
    """Every policy kairos offers: `name`, `summary` and `takes` (the input kinds it runs), the
    list `kairos simulate --help` shows."""
    return json.loads(_kairos.policies())


def simulate(
    workload: Workload,
    policy: Optional[str] = None,
    duration: Optional[str] = None,
    seed: int = 0,
    execution_times: str = "wcet",
    overrun_probability: float = 0.0,
    max_events: int = _kairos.DEFAULT_MAX_EVENTS,
) -> Simulation:
    """`kairos simulate --json [--policy POLICY] [--duration D] [--seed S] [--exec E]
    [--overrun-probability P] [--max-events N]` on a workload, a SimSo configuration, a
    mixed-criticality DAG system (its tables synthesized, then run with jobs overrunning with
    probability P) or a VM system (its `[vmm]` and guests on the VCPUs its interfaces give);
    without a policy, the input's default (`kairos simulate --help`). The jobs frame comes from
    the run's trace: a run whose trace would pass `max_events` is refused before it starts,
    with its estimate; raise `max_events` to run it."""
    name, text = _source(workload)
    metrics, jobs = _call(_kairos.simulate, name, text, policy, duration, seed, execution_times, overrun_probability, max_events)
    frame = pd.DataFrame(json.loads(jobs))
    return Simulation(json.loads(metrics), frame)


def report(
    workload: Workload,
    out: Union[str, "os.PathLike[str]"],
    policies: Optional[List[str]] = None,
    duration: Optional[str] = None,
    seed: int = 0,
    overrun: float = 0.2,
) -> Dict[str, Any]:
    """`kairos report --json -o OUT`: one self-contained HTML page written to `out` (a workload's
    analysis and each policy's simulation, an MC-DAG system's tables and mode changes, or a VM
    system's interfaces and two-level schedule); returns `out`, `file`, `kind`, `duration_ns`
    and `runs` (per simulation its policy, jobs released and completed, deadline misses)."""
    name, text = _source(workload)
    written = _call(_kairos.report, name, text, os.fspath(out), policies, duration, seed, overrun)
    return json.loads(written)


def generate(utilization: float, cores: int = 4, count: int = 1, seed: int = 0, **options: Any) -> List[Dict[str, Any]]:
    """`kairos gen`: `count` task sets of total `utilization`, each the JSON workload
    `kairos gen --out set.json` writes (usable as `simulate`'s workload). `kairos gen`'s other
    flags as keywords: tasks=10, method="randfixedsum", periods="log-uni-short",
    max_task_utilization=0.5; an unknown keyword is an error."""
    if options.pop("imprecise", False):  # `kairos gen --imprecise` is `--method imprecise`
        options["method"] = "imprecise"
    request = dict(utilization=utilization, cores=cores, count=count, seed=seed, **options)
    request = {key: value for key, value in request.items() if value is not None}
    return json.loads(_call(_kairos.generate, json.dumps(request)))


class Synthesis(dict):
    """`kairos synth --json` as a dict (keys also attributes), plus `tables`: the scheduling
    tables (`kairos synth --out`'s JSON) when the system is schedulable, else None."""

    def __init__(self, report: Dict[str, Any], tables: Optional[Dict[str, Any]]):
        super().__init__(report)
        self.tables = tables

    def __getattr__(self, name: str) -> Any:
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None


def synthesize(system: Workload, policy: str = "gedzl", cores: Optional[int] = None, slot: str = "1ms") -> Synthesis:
    """`kairos synth SYSTEM --json --policy POLICY [--cores M] [--slot D]` for a
    mixed-criticality DAG system (a kairos file, an MC-DAG framework .xml, or a dict)."""
    flags = (policy, cores, slot)
    if isinstance(system, dict):
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "system.json")
            with open(path, "w", encoding="utf-8") as handle:
                json.dump(system, handle)
            report, tables = _call(_kairos.synthesize, path, *flags)
    else:
        report, tables = _call(_kairos.synthesize, os.fspath(system), *flags)
    return Synthesis(json.loads(report), json.loads(tables) if tables else None)


class Run(dict):
    """A real run's `kairos run --json` result (keys also attributes), plus `tasks_frame` (one
    row per task) and `histogram(name)`: the HDR histogram as a DataFrame of value_ns, count."""

    def __init__(self, result: Dict[str, Any]):
        super().__init__(result)
        self.tasks_frame = pd.DataFrame(result.get("tasks", []))

    def __getattr__(self, name: str) -> Any:
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None

    def histogram(self, name: str) -> pd.DataFrame:
        buckets = self["histograms"][name]["buckets"]
        return pd.DataFrame(buckets, columns=["value_ns", "count"])


def read_run(path: Union[str, "os.PathLike[str]"]) -> Run:
    """Reads what `kairos run ... --json > RUN.json` wrote (real runs need real-time privilege,
    so they are made by the command and read here)."""
    with open(os.fspath(path), encoding="utf-8") as handle:
        return Run(json.load(handle))
