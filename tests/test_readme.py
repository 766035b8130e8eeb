"""The README works as written: its first two commands are the ones CI and a newcomer run, and every
command of its tour runs, in order, in a fresh folder with an empty cache (long ones at small sizes
through their own flags, listed in `SMALL`), and exits 0."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
# data a tour command names by path; copied into the tour's folder
DATA = ("experiments", "examples", "fights", "monsters", "boards", "shots", "notebooks")
# long commands at small sizes, by the start of the command: extra flags (argparse: the last one wins)
SMALL = {
    "dfsim run": ["--max-throws", "24", "--workers", "2"],  # a fight experiment: --max-fights too
    "dfsim fight reference --records": ["--fights", "300"],
    "dfsim tune --set skill": ["--budget", "240"],
    "dfsim tune reference": ["--budget", "3000"],
    "dfsim fit-skill": ["--throws", "40"],
    "dfsim bench": ["--throws", "20", "--naive-throws", "10"],
    "dfsim converge": ["-n", "8"],
    "dfsim sensitivity": ["--throws", "6", "--trajectories", "2"],
}
TOUR_BUDGET_S = 900  # the whole tour at these sizes on a loaded 2-core machine; a hang fails, not waits


def _blocks(text: str) -> list[str]:
    return re.findall(r"```bash\n(.*?)```", text, flags=re.S)


def _tour() -> list[str]:
    """The tour's command lines, comments removed, `a && b` split into its parts."""
    section = README.split("## A short tour", 1)[1]
    lines = []
    for raw in _blocks(section)[0].splitlines():
        line = raw.split("  #", 1)[0].strip()
        if line:
            lines += [part.strip() for part in line.split("&&")]
    return lines


def test_the_first_two_commands_are_setup_and_run_and_ci_runs_the_second():
    first, second = (b.strip() for b in _blocks(README)[:2])
    for cmd in (first, second):
        assert cmd.startswith("python3 -m venv .venv && .venv/bin/pip install -q --require-hashes -r requirements/")
        assert "\n" not in cmd
    assert first.endswith(".venv/bin/dfsim run experiments/quickstart.toml")
    assert second.endswith(".venv/bin/python -m pytest")
    ci = (ROOT / ".ci" / "run").read_text()
    install, test = second.rsplit(" && ", 1)
    assert install in ci and f"\n{test}\n" in ci + "\n", "the README's test command must be the one .ci/run runs"
    for lock in ("requirements/run.lock", "requirements/test.lock"):
        text = (ROOT / lock).read_text()
        pins = [ln for ln in text.splitlines() if re.match(r"^[A-Za-z0-9_.\-\[\]]+==", ln)]
        assert pins and all(ln.rstrip().endswith("\\") for ln in pins), f"{lock}: every pin carries hashes"


def _with_small_sizes(cmd: str, cwd: Path) -> list[str]:
    argv = shlex.split(cmd)
    for start, extra in SMALL.items():
        if cmd.startswith(start):
            if start == "dfsim run" and _is_fight_experiment(argv[2], cwd):
                extra = [*extra, "--max-fights", "60"]
            return argv + extra
    return argv


def _is_fight_experiment(name: str, cwd: Path) -> bool:
    from sim.experiments.fight_spec import FightExperimentSpec, load_any

    path = cwd / name
    return isinstance(load_any(path if path.is_file() else name)[0], FightExperimentSpec)


@pytest.fixture(scope="module")
def dask_scheduler():
    distributed = pytest.importorskip("distributed")
    cluster = distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None,
                                       host="127.0.0.1")
    yield cluster.scheduler_address
    cluster.close()


def test_every_tour_command_runs_as_written(tmp_path, dask_scheduler):
    tour = _tour()
    assert len(tour) > 30 and tour[0] == "dfsim"
    for d in DATA:
        shutil.copytree(ROOT / d, tmp_path / d)
    bindir = str(Path(sys.executable).parent)
    env = {**os.environ, "PATH": f"{bindir}{os.pathsep}{os.environ.get('PATH', '')}",
           "DFSIM_CACHE_DIR": str(tmp_path / "cache"), "MPLBACKEND": "Agg"}
    env.pop("PYTHONPATH", None)
    # the README's first command ran the quickstart before the tour (the tour replays one of its throws)
    commands = ["dfsim run experiments/quickstart.toml", *tour]
    t0 = time.monotonic()
    took: list[str] = []
    for cmd in commands:
        argv = _with_small_sizes(cmd.replace("tcp://HOST:8786", dask_scheduler), tmp_path)
        left = TOUR_BUDGET_S - (time.monotonic() - t0)
        assert left > 0, f"the tour took longer than {TOUR_BUDGET_S} s before: {cmd}"
        t1 = time.monotonic()
        proc = subprocess.run(argv, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=left,
                              stdin=subprocess.DEVNULL, check=False)
        took.append(f"{time.monotonic() - t1:6.1f} s  {cmd}")
        assert proc.returncode == 0, f"{cmd!r} exited {proc.returncode}: {proc.stderr.strip()[-600:]}"
        assert "Traceback" not in proc.stderr, f"{cmd!r}: {proc.stderr[-600:]}"
    print("\n".join(took))  # shown with -s or -rP: where the tour's time goes
