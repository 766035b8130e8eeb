"""The quickstart scaled up, run by the local executor and by a local Dask cluster: the same records?

Usage: python benchmarks/dask_scale.py [--scale 100] [--workers 2] [--chunk 200] [--keep DIR] [--json]

Writes the quickstart experiment with `throws` multiplied by --scale (two variants, so 1000 x scale
throws in all), runs it with `--executor local` and with `--executor dask` (a LocalCluster of
--workers single-threaded workers on this machine), and compares the two records tables row by row
after sorting by (variant, index): throw k depends only on (seed, k), never on the executor, the
worker count or the order chunks finish, so they must be identical. Prints wall time and throws per
second of each run, per worker too. Figures are skipped (they are not what is measured). Exit
status 1 when the records differ.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path

import pandas as pd
import tomllib

from sim.experiments.runner import run_experiment

ROOT = Path(__file__).resolve().parents[1]


def scaled_experiment(folder: Path, scale: int, chunk: int) -> Path:
    """The quickstart experiment file with `scale` times the throws, written in `folder`."""
    spec = tomllib.loads((ROOT / "experiments" / "quickstart.toml").read_text())
    throws = int(spec["throws"]) * scale
    lines = [f'name = "quickstart-x{scale}"', f'description = "The quickstart, {scale} times the throws."',
             f"seed = {int(spec['seed'])}", f"throws = {throws}", f"chunk_throws = {min(chunk, throws)}", "", "[defaults]"]
    for key, value in spec["defaults"].items():
        lines.append(f"{key} = {json.dumps(value)}")
    for variant in spec["variants"]:
        lines += ["", "[[variants]]"] + [f"{k} = {json.dumps(v)}" for k, v in variant.items()]
    path = folder / f"quickstart-x{scale}.toml"
    path.write_text("\n".join(lines) + "\n")
    return path


def timed_run(path: Path, out: Path, executor: str, workers: int) -> tuple[pd.DataFrame, float]:
    """Records (sorted by variant and index) and wall seconds of one run."""
    t0 = time.perf_counter()
    res = run_experiment(path, out=out, workers=workers, executor=executor, quiet=True, figures=False)
    wall = time.perf_counter() - t0
    keys = [c for c in ("variant", "cell", "index") if c in res.records.columns]
    return res.records.sort_values(keys).reset_index(drop=True), wall


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scale", type=int, default=100, help="times the quickstart's throws (default 100: 100,000 throws)")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--chunk", type=int, default=200, help="throws per chunk (the quickstart's 50 below that)")
    ap.add_argument("--keep", help="write the run folders here (default: a temporary folder, removed)")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="dfsim-dask-scale-") as tmp:
        base = Path(a.keep) if a.keep else Path(tmp)
        base.mkdir(parents=True, exist_ok=True)
        path = scaled_experiment(base, a.scale, a.chunk)
        rows, tables = [], {}
        for executor in ("local", "dask"):
            recs, wall = timed_run(path, base / executor, executor, a.workers)
            tables[executor] = recs
            rows.append({"executor": executor, "workers": a.workers, "throws": len(recs), "wall_s": round(wall, 1),
                         "throws_per_s": round(len(recs) / wall, 1), "throws_per_s_per_worker": round(len(recs) / wall / a.workers, 1)})
        local, dask = tables["local"], tables["dask"]
        same = local.shape == dask.shape and list(local.columns) == list(dask.columns) and local.equals(dask)
        differing = 0 if same else int((local != dask).any(axis=1).sum()) if local.shape == dask.shape else -1
    out = {"scale": a.scale, "throws": int(len(local)), "cores": os.cpu_count(), "load_1min_at_end": round(os.getloadavg()[0], 1),
           "identical_records": bool(same), "differing_rows": differing, "runs": rows}
    if a.json:
        print(json.dumps(out))
    else:
        print(f"quickstart x{a.scale}: {out['throws']} throws, {a.workers} workers, {out['cores']} cores, load {out['load_1min_at_end']}")
        for r in rows:
            print(f"  {r['executor']:<6} {r['wall_s']:>8.1f} s  {r['throws_per_s']:>7.1f} throws/s  ({r['throws_per_s_per_worker']:.1f} per worker)")
        print("  records identical" if same else f"  records DIFFER ({differing} rows)")
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
