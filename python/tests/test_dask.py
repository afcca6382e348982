"""`kairos experiment --dask` on a LocalCluster of real worker processes on the loopback
interface: the results, CSV and plots are the local run's byte for byte, and a second run
resumes (nothing left to compute)."""
import filecmp
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

import distributed  # required: the suite fails, not skips, without it

import kairos.dask

REPO = Path(__file__).resolve().parents[2]
BIN = os.environ.get("KAIROS_BIN", str(REPO / "target" / "release" / "kairos"))
CONFIG = REPO / "examples" / "experiments" / "dask-4000.toml"
OUTPUTS = ["results.csv", "acceptance.svg", "acceptance.png"]


@pytest.fixture(scope="module")
def cluster():
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None
    ) as running:
        yield running


def experiment(out, *extra):
    start = time.perf_counter()
    done = subprocess.run([BIN, "experiment", str(CONFIG), "--out-dir", str(out), "--quiet", *extra], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return time.perf_counter() - start


def test_a_sweep_on_the_cluster_is_the_local_sweep_byte_for_byte(cluster, tmp_path):
    local = experiment(tmp_path / "local")
    remote = experiment(tmp_path / "dask", "--dask", cluster.scheduler_address, "--python", sys.executable)
    for name in OUTPUTS:
        assert filecmp.cmp(tmp_path / "local" / name, tmp_path / "dask" / name, shallow=False), name
    # Both times go to the note (pytest -s shows them).
    print(f"4,000 sets: local {local:.2f} s, 2-worker LocalCluster {remote:.2f} s")
    rows = (tmp_path / "dask" / "results.csv").read_text().splitlines()
    assert len(rows) == 1 + 20 * 5, rows[:2]  # a header, then 20 points x 5 methods


def test_an_interrupted_sweep_resumes_and_python_drives_it_too(cluster, tmp_path):
    out = tmp_path / "resumed"
    experiment(out, "--dask", cluster.scheduler_address, "--python", sys.executable)
    # Drop the last finished points, as an interrupted run leaves them.
    log = out / "points.jsonl"
    lines = log.read_text().splitlines()
    log.write_text("\n".join(lines[:7]) + "\n")
    summary = kairos.dask.sweep(cluster, CONFIG, out=out, kairos_bin=BIN)
    assert len(log.read_text().splitlines()) == 20
    experiment(tmp_path / "local")
    assert filecmp.cmp(out / "results.csv", tmp_path / "local" / "results.csv", shallow=False)
    assert summary["name"] == "dask-4000", summary.keys()
