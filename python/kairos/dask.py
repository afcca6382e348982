"""The Dask driver of `kairos experiment --dask ADDRESS`.

`kairos experiment` starts `python -m kairos.dask` and writes one JSON object to its standard
input: {"address", "config_name", "config_text", "shards": [[point, start, end], ...]}. The
driver connects a `distributed.Client` to the scheduler at `address`, submits one task per
shard (`experiment_shard`, run by a worker with this package installed) and prints one JSON
line per finished shard, {"point", "start", "verdicts"}, in the order they finish; kairos folds
them. Any cluster Dask reaches works: a LocalCluster, dask-jobqueue on Slurm, dask-kubernetes.

From Python, `sweep(client_or_address, config_path, out=...)` runs the same command.
"""
import json
import os
import subprocess
import sys
from typing import Optional

from . import _kairos


def experiment_shard(name: str, text: str, point: int, start: int, end: int) -> list:
    """The verdicts of samples start..end of point `point` (runs on a worker)."""
    return json.loads(_kairos.experiment_shard(name, text, point, start, end))


def _drive(job: dict) -> int:
    from distributed import Client, as_completed

    with Client(job["address"]) as client:
        futures = {}
        for point, start, end in job["shards"]:
            future = client.submit(
                experiment_shard, job["config_name"], job["config_text"], point, start, end, pure=False
            )
            futures[future] = (point, start)
        for future in as_completed(futures):
            point, start = futures[future]
            line = {"point": point, "start": start, "verdicts": future.result()}
            sys.stdout.write(json.dumps(line) + "\n")
            sys.stdout.flush()
    return 0


def sweep(cluster, config: str, out: Optional[str] = None, kairos_bin: str = "kairos", extra=()) -> dict:
    """`kairos experiment CONFIG --dask ADDRESS --json`: `cluster` is a Client, a cluster
    object (its scheduler address is used) or an address; returns the command's summary."""
    address = getattr(cluster, "scheduler_address", None) or getattr(getattr(cluster, "scheduler", None), "address", None) or str(cluster)
    args = [kairos_bin, "experiment", os.fspath(config), "--dask", address, "--python", sys.executable, "--json", "--quiet", *extra]
    if out is not None:
        args += ["--out-dir", os.fspath(out)]
    done = subprocess.run(args, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(done.stderr.strip())
    return json.loads(done.stdout)


if __name__ == "__main__":
    try:
        sys.exit(_drive(json.load(sys.stdin)))
    except Exception as error:  # reported to kairos, which stops and says so
        sys.stdout.write(json.dumps({"error": f"{type(error).__name__}: {error}"}) + "\n")
        sys.exit(1)
