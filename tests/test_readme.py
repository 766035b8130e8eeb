"""The README works as written: its first two commands are the ones CI and a newcomer run, and every
command of its tour runs, in order, in a fresh folder with an empty cache (the first half here, the
second in tests/test_readme_tour.py; the commands and small sizes: tests/readme_tour.py)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from readme_tour import README, ROOT, _blocks, halves, run_tour  # noqa: E402


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


def test_the_first_half_of_the_tour_runs_as_written(tmp_path):
    print("\n".join(run_tour(halves()[0], tmp_path, None)))  # -rP shows where the time goes
