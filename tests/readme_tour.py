"""The README's tour, run as written (long commands at small sizes through their own flags, listed in
`SMALL`): shared by tests/test_readme.py and tests/test_readme_tour.py, which run its two halves side by
side (pytest-xdist gives each file its own worker)."""

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
# shot-requirements.toml's variants whose aims the tour solved before it (the standard shot at three
# skills: the quickstart and skill-levels; the Firewall alone and with the Far Shot: the tour's throws)
SHOT_VARIANTS = ["standard-novice", "standard-casual", "standard-expert", "firewall-casual", "firewall.far-casual"]
# long commands at small sizes, by the start of the command: extra flags (argparse: the last one wins)
SMALL = {
    # 70 variants, each with its own aim solve (a few seconds each): five whose aims are solved already,
    # three skills and a Far Shot pair for the report (the other shots' solves are the same code; every
    # shot's grid, reference throws and determinism: tests/engine/test_determinism.py)
    "dfsim run experiments/shot-requirements.toml": ["--max-throws", "24", "--workers", "2",
                                                     "--variants", ",".join(SHOT_VARIANTS)],
    # the magma board's three skills (the other board's are the same code); the casual and the expert
    # throwers' solves are the quickstart's, shared from the tour's first command (`_share`)
    "dfsim run experiments/skill-levels.toml": ["--max-throws", "24", "--workers", "2", "--variants", "magma-*"],
    # a template laid at the bullseye and aimed at, and two flipped (each laid scene is re-aimed; every
    # variant at small sizes: tests/experiments/test_template_odds.py)
    "dfsim run experiments/template-odds.toml": ["--max-throws", "24", "--workers", "2", "--variants",
                                                 "none-casual,weak-point.laid-*-casual,weak-point.flip-casual,"
                                                 "fireball.flip-casual"],
    # the fight's throws at full size (4,000 throws, about 15 s on two workers beside their four aims):
    # the tour tunes monster life on them to a coin flip, and on 24 throws a shot's hit rate is anywhere
    # within about +-16 points, the fight's win rate with it, and the coin flip may fall outside the range
    "dfsim run fight-throws": ["--workers", "2"],
    "dfsim run": ["--max-throws", "24", "--workers", "2"],  # a fight experiment: --max-fights too
    "dfsim fight reference --records": ["--fights", "300"],
    # one fight, every throw simulated (several: tests/fights/test_fight_physics.py; its progress: tests/fights/test_fight_cli.py)
    "dfsim fight reference --engine physics": ["--fights", "1"],
    "dfsim tune --set skill": ["--budget", "240"],
    "dfsim tune reference": ["--budget", "3000"],
    # three scales (the fewest --grid takes; the calibration notebook's fast mode takes four) and one between
    # (each a thrower of its own, re-aimed);
    # drops, tilts and ramps fitting the restitution and the friction (the whole fit of the example's file
    # and its recovery of the truth: tests/studies/test_calibration.py, test_skill_fit.py)
    "dfsim fit-skill": ["--throws", "100", "--grid", "3", "--fine", "1"],
    "dfsim calibrate": ["--fit", "restitution,friction"],
    "dfsim bench": ["--throws", "20", "--naive-throws", "10"],
    "dfsim converge": ["-n", "8"],
    # every design point is a scene of its own, re-aimed: three of the file's parameters (the dummy's steps
    # reuse the scene before them), not fifteen (the whole file's design: tests/studies/test_sensitivity.py)
    "dfsim sensitivity": ["--throws", "6", "--trajectories", "2", "--parameters", "board friction,speed spread,dummy"],
    # two fast checks: the command, its report folder and its verdict (every check passing at the quick
    # sizes is tests/studies/test_validation.py, which runs them all)
    "dfsim validate --quick": ["--only", "ballistic,precession"],
}
TOUR_BUDGET_S = 1500  # a half of the tour at these sizes on a 2-core machine at load 7 (other work and the rest
# of the suite beside it: 900 s was not enough, one run measured over 900 s); a hang fails, not waits


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


def _with_small_sizes(cmd: str, cwd: Path) -> list[str]:
    argv = shlex.split(cmd)
    for start, extra in SMALL.items():
        if cmd.startswith(start):
            if start == "dfsim run" and _is_fight_experiment(argv[2], cwd):
                extra = [*extra, "--max-fights", "60"]
            return argv + extra
    return argv


def _is_fight_experiment(name: str, cwd: Path) -> bool:
    from sim.experiments.kinds import read

    path = cwd / name
    return read(path if path.is_file() else name)[0].name == "fights"


def dask_scheduler_address():
    """A local Dask cluster for the tour's `--scheduler tcp://HOST:8786` (a generator: the address, then closes)."""
    distributed = pytest.importorskip("distributed")
    cluster = distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None,
                                       host="127.0.0.1")
    yield cluster.scheduler_address
    cluster.close()


# the tour's second half starts here, with a run of the quickstart (on Dask) that the later lines read
SPLIT_AT = "dfsim run experiments/quickstart.toml --executor dask"


def halves() -> tuple[list[str], list[str]]:
    """The tour in two halves, each runnable alone: the first starts with the quickstart (the README's
    first command ran it), the second with a run of it on Dask; every later line reads only its own
    half's runs."""
    tour = _tour()
    assert len(tour) > 30 and tour[0] == "dfsim", tour[:3]
    i = next(k for k, line in enumerate(tour) if line.startswith(SPLIT_AT))
    return ["dfsim run experiments/quickstart.toml", *tour[:i]], tour[i:]


def run_tour(commands: list[str], tmp_path: Path, scheduler: str | None, budget_s: float = TOUR_BUDGET_S) -> list[str]:
    """Run the command lines in order in a fresh folder (the repository's data copied in); each must exit
    0 without a traceback. Returns each command's time. The first command runs with an empty cache, as
    on a new machine (what it solved then joins the test session's cache); the rest share the test
    session's cache (tests/conftest.py), so an aim another test or the other half solved is not solved
    again (cold solves: tests/engine/test_aim_cache.py)."""
    for d in DATA:
        shutil.copytree(ROOT / d, tmp_path / d)
    bindir = str(Path(sys.executable).parent)
    env = {**os.environ, "PATH": f"{bindir}{os.pathsep}{os.environ.get('PATH', '')}", "MPLBACKEND": "Agg"}
    env.pop("PYTHONPATH", None)
    shared_cache = os.environ.get("DFSIM_CACHE_DIR") or str(tmp_path / "cache")
    t0 = time.monotonic()
    took: list[str] = []
    for n, cmd in enumerate(commands):
        env["DFSIM_CACHE_DIR"] = str(tmp_path / "empty-cache") if n == 0 else shared_cache
        if "tcp://HOST:8786" in cmd:
            assert scheduler, cmd
            cmd = cmd.replace("tcp://HOST:8786", scheduler)
        argv = _with_small_sizes(cmd, tmp_path)
        left = budget_s - (time.monotonic() - t0)
        assert left > 0, f"the tour took longer than {budget_s} s before: {cmd}"
        t1 = time.monotonic()
        proc = subprocess.run(argv, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=left,
                              stdin=subprocess.DEVNULL, check=False)
        took.append(f"{time.monotonic() - t1:6.1f} s  {cmd}")
        assert proc.returncode == 0, f"{cmd!r} exited {proc.returncode}: {proc.stderr.strip()[-600:]}"
        assert "Traceback" not in proc.stderr, f"{cmd!r}: {proc.stderr[-600:]}"
        if n == 0:
            _share(tmp_path / "empty-cache", Path(shared_cache))
    return took


def _share(solved: Path, shared: Path) -> None:
    """Give the session's cache the entries the first command solved in its own empty cache, so no
    later command or test solves them again; an entry already there is left alone, one not there is
    written whole (`write_atomic`: a concurrent reader sees all of it or none)."""
    from sim.files import write_atomic

    for entry in solved.glob("*/*.json"):
        target = shared / entry.parent.name / entry.name
        if not target.exists():
            write_atomic(target, entry.read_bytes())
