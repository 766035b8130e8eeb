"""How good is a run's first time-left estimate? The first estimate the bar shows, against the time the
throwing really took from then on, for shipped experiments.

Usage: python tools/estimates.py [EXPERIMENT ...] [--max-throws N] [--workers N]
       (default: every throw experiment in experiments/; --max-throws caps each cell, a shorter check)

Each experiment runs into a fresh temporary folder (with its own empty aim cache, so the aiming is
timed as a new user meets it). The bar's estimator (sim.experiments.progress.Eta) is watched: when it
first says "M:SS left", that number and the moment are noted; the real time left is from then to
the last chunk. Printed per experiment: both times and their ratio; the exit status is 1 when a
ratio is outside 0.5 - 2 (the promise: within 2x).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

from sim.experiments import progress
from sim.experiments.kind import Caps
from sim.experiments.kinds import resolve_any
from sim.experiments.runner import run_experiment

REPO = Path(__file__).resolve().parents[1]
FIGHT_KEYS = ("fight", "fights")


class WatchedEta(progress.Eta):
    """Eta that notes its first estimate (time, seconds said) and the time of every chunk."""

    seen: list[WatchedEta] = []

    def __init__(self, *a, **kw) -> None:
        super().__init__(*a, **kw)
        self.first: tuple[float, float] | None = None
        self.last_chunk = 0.0
        WatchedEta.seen.append(self)

    def chunk_done(self, throws: int, t: float) -> None:
        super().chunk_done(throws, t)
        self.last_chunk = t

    def text(self, remaining: int) -> str:
        out = super().text(remaining)
        r = self.rate()
        if out and self.first is None and r:
            self.first = (time.perf_counter(), max(0, remaining) / r)
        return out


def throw_experiments() -> list[Path]:
    """The shipped throw experiments (fight experiments run throw experiments of their own)."""
    out = []
    for p in sorted((REPO / "experiments").glob("*.toml")):
        text = p.read_text()
        if not any(line.split("=")[0].strip() in FIGHT_KEYS for line in text.splitlines() if "=" in line):
            out.append(p)
    return out


def measure(path: Path, max_throws: int | None, workers: int | None) -> tuple[float, float] | None:
    """(said, real) seconds left at the first estimate of one run; None when it never showed one."""
    WatchedEta.seen = []
    with tempfile.TemporaryDirectory(prefix="dfsim-estimates-") as tmp:
        os.environ["DFSIM_CACHE_DIR"] = str(Path(tmp) / "cache")
        run_experiment(str(path), out=Path(tmp) / "out", workers=workers, max_throws=max_throws, figures=False)
    eta = next((e for e in WatchedEta.seen if e.first is not None), None)
    if eta is None or eta.first is None:
        return None
    t, said = eta.first
    return said, max(1e-9, eta.last_chunk - t)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("experiments", nargs="*", help="experiment files (default: the shipped throw experiments)")
    ap.add_argument("--max-throws", type=int, default=None, help="cap throws per cell")
    ap.add_argument("--workers", type=int, default=None, help="worker processes (default: all cores)")
    a = ap.parse_args()
    progress.Eta = WatchedEta  # type: ignore[misc]  # the runner's bar builds its estimator from here
    paths = [Path(p) for p in a.experiments] or throw_experiments()
    bad = 0
    print(f"{'experiment':<22} {'cells':>5} {'first estimate':>15} {'real':>8} {'ratio':>6}")
    for p in paths:
        cells = len(resolve_any(str(p), caps=Caps.of(max_throws=a.max_throws))[1].cells)
        got = measure(p, a.max_throws, a.workers)
        if got is None:
            print(f"{p.stem:<22} {cells:>5} {'(none shown)':>15}")
            continue
        said, real = got
        ratio = said / real
        bad += not 0.5 <= ratio <= 2.0
        print(f"{p.stem:<22} {cells:>5} {said:>13.0f} s {real:>6.0f} s {ratio:>6.2f}", flush=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
