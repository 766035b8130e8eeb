"""Where a run was made: what decides whether its records replay bit for bit somewhere else.

The engine's arithmetic is the same on every CPU of one kind as far as `dfsim determinism
--across-cpus` can tell (no BLAS, no CPU-chosen numpy kernel on the way of a throw), so a record
replays bit for bit wherever the same packages run on the same kind of CPU. Other package versions
(another pybullet, numpy, glibc...), another Python or another CPU architecture promise only the same
statistics: a chaotic throw turns a last-bit difference into another outcome. A run folder's
manifest keeps this machine's description; `reproducibility` says which of the three cases a
replay on this machine is in (docs/physics.md, "What is reproducible").
"""

from __future__ import annotations

import platform
import sys
from functools import lru_cache
from importlib import metadata
from typing import Any

# the packages whose arithmetic a throw goes through (or whose output a record holds)
PACKAGES = ("pybullet", "numpy", "scipy", "shapely", "pandas", "pyarrow")


def _version(name: str) -> str | None:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.lower().startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


@lru_cache(maxsize=1)
def machine() -> dict[str, Any]:
    """This machine's description, as a run's manifest keeps it."""
    libc = " ".join(platform.libc_ver()).strip() or "unknown"
    return {
        "python": ".".join(str(v) for v in sys.version_info[:3]),
        "architecture": platform.machine(),
        "system": platform.system(),
        "libc": libc,
        "cpu": _cpu_model(),
        "packages": {name: _version(name) for name in PACKAGES},
    }


def reproducibility(made: dict[str, Any] | None, here: dict[str, Any] | None = None) -> str:
    """One sentence: what a replay here of records made on `made` can promise."""
    here = here or machine()
    if not isinstance(made, dict):
        return (
            "the run folder does not say where it was made (an older dfsim): if this is not the machine "
            "and package set that made it, only its statistics are promised to agree"
        )
    diff = [
        f"{k} {made.get(k)} there, {here[k]} here"
        for k in ("python", "architecture", "system", "libc")
        if made.get(k) != here[k]
    ]
    packages = made.get("packages") if isinstance(made.get("packages"), dict) else {}
    diff += [
        f"{name} {packages.get(name)} there, {v} here"
        for name, v in here["packages"].items()
        if packages.get(name) != v
    ]
    if diff:
        return (
            "made with other packages or another platform (" + "; ".join(diff) + "): only the statistics "
            "are promised to agree, not each throw"
        )
    if made.get("cpu") != here["cpu"]:
        return (
            f"made on another CPU ({made.get('cpu')}) with the same packages: the same bits are expected "
            "(`dfsim determinism --across-cpus` finds no CPU-chosen arithmetic); a difference is a CPU "
            "difference that check cannot emulate, and only the statistics are promised"
        )
    return "made on this kind of machine with these packages: every record replays bit for bit"


def run_reproducibility(machines: Any) -> str:
    """`reproducibility` of a run from its manifest's `machines` (a run resumed on several machines
    promises what its least alike machine allows)."""
    if not isinstance(machines, list) or not machines:
        return reproducibility(None)
    cases = [reproducibility(m) for m in machines]
    return next((c for c in cases if not c.startswith("made on this")), cases[0])
