"""The Python package against the kairos command: the same inputs give the same `--json`
fields, value for value. KAIROS_BIN names the command (the Rust test that runs this suite sets
it); the examples are the repository's."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import kairos

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - CI runs 3.11
    tomllib = None

REPO = Path(__file__).resolve().parents[2]
BIN = os.environ.get("KAIROS_BIN", str(REPO / "target" / "release" / "kairos"))


def cli(*args):
    """`kairos ARGS --json` run from the repository root, parsed."""
    out = subprocess.run([BIN, *args, "--json"], cwd=REPO, capture_output=True, text=True)
    return json.loads(out.stdout)


@pytest.fixture(autouse=True)
def at_repo_root(monkeypatch):
    monkeypatch.chdir(REPO)


@pytest.mark.parametrize("policy", ["gedf", "pedf", "gfp", "pfp", "edzl"])
def test_simulate_gives_the_clis_fields(policy):
    ours = kairos.simulate("examples/simso-n20-m4-u3.toml", policy=policy, duration="1s")
    theirs = cli("simulate", "examples/simso-n20-m4-u3.toml", "--policy", policy, "--duration", "1s")
    assert dict(ours) == theirs
    assert ours.jobs_released == theirs["jobs_released"] > 0


def test_the_policy_list_is_the_command_lines():
    listed = [p["name"] for p in kairos.policies()]
    help_text = subprocess.run(
        [BIN, "simulate", "--help"], capture_output=True, text=True, check=True
    ).stdout
    shown = [line.strip().split(":")[0].lstrip("- ") for line in help_text.splitlines() if line.strip().startswith("- ")]
    assert listed == shown[: len(listed)] and "table" in listed
    tables = [p for p in kairos.policies() if p["name"] == "table"][0]
    assert tables["takes"] == ["mc-dag", "mc-dag-xml"]


def test_without_a_policy_a_workload_runs_its_default_as_the_command_line_does():
    ours = kairos.simulate("examples/demo.toml", duration="200ms")
    theirs = cli("simulate", "examples/demo.toml", "--duration", "200ms")
    assert dict(ours) == theirs and ours.policy == "pfp"


def test_the_jobs_frame_agrees_with_the_per_task_metrics():
    sim = kairos.simulate("examples/demo.toml", policy="gedf", duration="1s")
    jobs = sim.jobs
    assert len(jobs) == sim.jobs_released
    assert jobs.completion_ns.notna().sum() == sim.jobs_completed
    worst = jobs.groupby("task").response_ns.max()
    for _, task in sim.tasks_frame.iterrows():
        assert worst[task["name"]] == task["response_max_ns"]
    assert (jobs.response_ns.dropna() > 0).all()


def test_a_run_past_max_events_is_refused_before_it_starts_and_a_raised_cap_runs_it():
    with pytest.raises(kairos.KairosError, match="events"):
        kairos.simulate("examples/demo.toml", policy="gedf", duration="1s", max_events=100)
    with pytest.raises(kairos.KairosError, match="at least 1"):
        kairos.simulate("examples/demo.toml", policy="gedf", duration="1s", max_events=0)
    sim = kairos.simulate("examples/demo.toml", policy="gedf", duration="1s", max_events=100_000)
    assert len(sim.jobs) == sim.jobs_released > 100


def test_the_default_cap_on_events_is_the_commands():
    import inspect
    import re

    help_text = subprocess.run([BIN, "simulate", "--help"], capture_output=True, text=True).stdout
    command = int(re.search(r"--max-events <N>.*?\[default: (\d+)\]", help_text, re.S).group(1))
    assert inspect.signature(kairos.simulate).parameters["max_events"].default == command


@pytest.mark.parametrize("path", ["examples/demo.toml", "examples/uniprocessor-rm.toml", "examples/partitioned-fp.toml"])
def test_analyze_gives_the_clis_verdicts(path):
    assert kairos.analyze(path) == cli("analyze", path)


@pytest.mark.parametrize("quantile", ["max", "p99"])
def test_analyze_with_overheads_gives_the_clis_verdicts(quantile):
    profile = "examples/overheads/example-profile.toml"
    path = "examples/uniprocessor-rm.toml"
    got = kairos.analyze(path, overheads=profile, quantile=quantile)
    assert got == cli("analyze", path, "--overheads", profile, "--overhead-quantile", quantile)
    assert got["overheads"]["quantile"] == quantile


def test_analyze_refuses_a_bad_quantile_by_name():
    with pytest.raises(kairos.KairosError, match="expected p99, p999 or max"):
        kairos.analyze("examples/uniprocessor-rm.toml", overheads="examples/overheads/example-profile.toml", quantile="p50")


@pytest.mark.parametrize("path", ["examples/demo.toml", "examples/manage/free.toml", "examples/mcdag/two-levels.toml"])
def test_check_gives_the_clis_report(path):
    assert kairos.check(path) == cli("check", path)


@pytest.mark.skipif(tomllib is None, reason="tomllib is in Python 3.11+")
def test_a_dict_is_the_same_workload_as_its_file():
    with open(REPO / "examples" / "demo.toml", "rb") as handle:
        as_dict = tomllib.load(handle)
    from_dict = kairos.simulate(as_dict, policy="pedf", duration="200ms")
    from_file = kairos.simulate("examples/demo.toml", policy="pedf", duration="200ms")
    assert dict(from_dict) == dict(from_file)
    assert from_dict.jobs.equals(from_file.jobs)


def test_errors_carry_the_located_diagnostics():
    with pytest.raises(kairos.KairosError) as caught:
        kairos.simulate({"cores": 2, "tasks": [{"name": "a", "wcet": "5ms", "period": "2ms"}]}, policy="gedf")
    messages = [d["message"] for d in caught.value.diagnostics]
    assert any("exceeds" in m for m in messages), messages
    assert all({"line", "column", "path", "hint"} <= set(d) for d in caught.value.diagnostics)
    with pytest.raises(kairos.KairosError, match="unknown policy"):
        kairos.simulate("examples/demo.toml", policy="fifo")
    with pytest.raises(kairos.KairosError, match="duration"):
        kairos.simulate("examples/demo.toml", policy="gedf", duration="soon")


def test_generate_gives_the_set_gen_writes(tmp_path):
    out = tmp_path / "set.json"
    done = subprocess.run([BIN, "gen", "--utilization", "2.5", "--tasks", "9", "--seed", "7", "--cores", "2", "--out", str(out)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    ours = kairos.generate(2.5, cores=2, seed=7, tasks=9)
    assert ours == [json.loads(out.read_text())]
    several = kairos.generate(2.5, cores=2, seed=7, tasks=9, count=3)
    assert several[0] == ours[0] and len(several) == 3 and several[1] != several[0]
    # A generated set is a workload: it simulates.
    assert kairos.simulate(several[2], policy="gedf", duration="100ms").jobs_released > 0
    with pytest.raises(kairos.KairosError, match="unknown field `periods_please`"):
        kairos.generate(1.0, periods_please="no")


def test_synthesize_gives_the_clis_report_and_tables(tmp_path):
    system = "examples/mcdag/two-levels.toml"
    tables = tmp_path / "tables.json"
    theirs = cli("synth", system, "--out", str(tables))
    ours = kairos.synthesize(system)
    for report in (theirs, ours):
        report.pop("time_ms")
        report.pop("out")
    assert dict(ours) == theirs
    assert ours.tables == json.loads(tables.read_text())


def test_read_run_reads_a_real_run(tmp_path):
    if os.geteuid() != 0:
        pytest.fail("a real run needs root (CI is root)")
    result = tmp_path / "run.json"
    with open(result, "w") as handle:
        done = subprocess.run([BIN, "run", "examples/runtime-2cores.toml", "--policy", "edf", "--duration", "1s", "--json"], stdout=handle, text=True)
    assert done.returncode == 0
    run = kairos.read_run(result)
    assert run.jobs_released == run.tasks_frame.jobs_released.sum() > 0
    latency = run.histogram("release_latency")
    assert latency["count"].sum() == run.release_latency_ns["count"]


def test_a_vm_system_simulates_on_the_vcpus_its_analysis_gives():
    system = "examples/vm/two-domains.toml"
    interfaces = kairos.analyze(system)
    assert interfaces["schedulable"] is True
    run = kairos.simulate(system, duration="200ms")
    # The analysis accepts the system, so its simulation on those VCPUs meets every deadline.
    assert run.deadline_misses == 0
    budgets = {(v["domain"], v["budget_ns"]) for v in run.vcpus}
    assert budgets == {(i["domain"], i["budget_ns"]) for i in interfaces["interfaces"]}
    # Releases in [0, 200 ms], both ends included: control has periods 20, 40 and 100 ms
    # (11 + 6 + 3 jobs), vision 33, 100 and 50 ms (7 + 3 + 5).
    released = {d["domain"]: d["jobs_released"] for d in run.domains}
    assert released == {"control": 20, "vision": 15}
    assert set(run.jobs.task.str.split("/").str[0]) == {"control", "vision"}
    with pytest.raises(kairos.KairosError, match="--policy does not apply to a VM file"):
        kairos.simulate(system, policy="gedf")


def test_an_mc_system_runs_its_tables_and_overruns_raise_the_mode():
    system = "examples/mcdag/two-levels.toml"
    calm = kairos.simulate(system, duration="80ms")
    # Tables the independent validator accepts meet every deadline when no job overruns.
    assert calm.deadline_misses == 0 and calm.mode_changes == [] and calm.max_mode == "LO"
    stressed = kairos.simulate(system, duration="80ms", overrun_probability=1.0, seed=3)
    assert stressed.max_mode == "HI" and len(stressed.mode_changes) > 0
    assert stressed.jobs_discarded > 0
    with pytest.raises(kairos.KairosError, match="mixed-criticality systems only"):
        kairos.simulate("examples/demo.toml", overrun_probability=0.5)


@pytest.mark.parametrize(
    "path,kind,runs",
    [("examples/demo.toml", "workload", 5), ("examples/mcdag/two-levels.toml", "mcdag", 1), ("examples/vm/two-domains.toml", "vm", 1)],
)
def test_report_writes_the_page_the_command_line_writes(tmp_path, path, kind, runs):
    ours = kairos.report(path, tmp_path / "ours.html", duration="200ms")
    theirs = cli("report", path, "-o", str(tmp_path / "theirs.html"), "--duration", "200ms")
    assert ours["kind"] == theirs["kind"] == kind
    assert len(ours["runs"]) == runs
    assert ours["runs"] == theirs["runs"]
    assert ours["duration_ns"] == 200_000_000
    page = (tmp_path / "ours.html").read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and "<svg" in page
