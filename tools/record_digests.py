"""Digests of the records a set of representative runs make: the check that a refactor changed no bit.

    python tools/record_digests.py --out /tmp/digests-before.json
    (move code)
    python tools/record_digests.py --out /tmp/digests-after.json --compare /tmp/digests-before.json

Each run goes through the `dfsim` command of the interpreter running this script, from an empty cache
(its own folder under --work) so that no solved aim of another version of the code is read: a
quickstart, template-odds (capped), house-rules-throws (capped), a resampled fight on those throws, a
physics fight and a small game from a small throw bank. A run's digest is the hash of its records
(records.parquet read as a table, so file metadata does not count) or of its JSON answer with the
timing fields left out and data-file paths cut to their built-in folder (the checkout's own path
is not a record).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import pandas as pd

TIMING = {"bank", "elapsed_s", "seconds", "time_s", "started", "finished", "wall_s", "throws_per_s", "created"}


def _strip(o):
    if isinstance(o, str):  # a data file's path names the checkout it was read from: keep the name
        return re.sub(r"/[^\s'\"]*/(?=(fights|games|decks|monsters|experiments|boards|shots)/)", "<data>/", o)
    if isinstance(o, dict):
        return {k: _strip(v) for k, v in o.items() if k not in TIMING and not k.endswith("_s")}
    if isinstance(o, list):
        return [_strip(v) for v in o]
    return o


def _hash_json(o) -> str:
    return hashlib.sha256(json.dumps(_strip(o), sort_keys=True, default=str).encode()).hexdigest()[:16]


def _hash_records(folder: Path) -> str:
    df = pd.read_parquet(folder / "records.parquet")
    return hashlib.sha256(df.to_json(orient="records", double_precision=15).encode()).hexdigest()[:16]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, help="where to write the digests (JSON)")
    ap.add_argument("--compare", help="digests written earlier: exit 1 when any differs")
    ap.add_argument("--work", help="working folder (default: a new temporary one)")
    a = ap.parse_args()
    work = Path(a.work or tempfile.mkdtemp(prefix="dfsim-digests-"))
    work.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, DFSIM_CACHE_DIR=str(work / "cache"), DFSIM_BANK=str(work / "bank"))
    dfsim = [sys.executable, "-m", "sim.cli"]

    def run(*args: str) -> str:
        print("$ dfsim " + " ".join(args), file=sys.stderr, flush=True)
        out = subprocess.run([*dfsim, *args], env=env, cwd=work, capture_output=True, text=True)
        if out.returncode != 0:
            raise SystemExit(f"dfsim {' '.join(args)} failed ({out.returncode}):\n{out.stderr[-2000:]}")
        return out.stdout

    digests: dict[str, str] = {}
    run("run", "quickstart", "--out", "quickstart", "--quiet", "--no-figures", "--workers", "2")
    digests["quickstart"] = _hash_records(work / "quickstart")
    run("run", "template-odds", "--out", "template-odds", "--quiet", "--no-figures", "--max-throws", "40", "--workers", "2")
    digests["template-odds"] = _hash_records(work / "template-odds")
    run("run", "house-rules-throws", "--out", "hrt", "--quiet", "--no-figures", "--max-throws", "100", "--workers", "2")
    digests["house-rules-throws"] = _hash_records(work / "hrt")
    digests["resampled-fight"] = _hash_json(json.loads(run("fight", "reference", "--records", "hrt", "--fights", "300", "--json")))
    digests["physics-fight"] = _hash_json(json.loads(run("fight", "reference", "--engine", "physics", "--fights", "1", "--seed", "3", "--json")))
    digests["small-game"] = _hash_json(json.loads(run("game", "base", "--games", "20", "--bank-throws", "200", "--workers", "2", "--json")))
    Path(a.out).write_text(json.dumps(digests, indent=2) + "\n")
    print(json.dumps(digests, indent=2))
    if a.compare:
        before = json.loads(Path(a.compare).read_text())
        differ = [k for k in digests if before.get(k) != digests[k]]
        for k in differ:
            print(f"DIFFERS: {k}: {before.get(k)} -> {digests[k]}")
        return 1 if differ else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
