"""Would another CPU give the same bits? A fingerprint of the engine's arithmetic, and a check of it in
fresh processes made to compute as other CPUs do.

A chaotic throw turns any last-bit difference into a different outcome, so a run is bit-reproducible
across machines only if every number on its way is computed the same way. The libraries underneath
choose code by CPU at run time: OpenBLAS its kernels (`OPENBLAS_CORETYPE` picks one by hand), numpy
its SIMD loops (`NPY_DISABLE_CPU_FEATURES` switches them off), glibc its libm variants
(`GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX2,-FMA` hides those CPU features). Each variant below is one
such choice; the fingerprint (a few throws, a laid and a flipped template, home-rig rows) is made in
each with its own empty cache, so every solved quantity is solved again under that arithmetic.
Equal fingerprints mean this machine cannot tell the variants apart; it says nothing of a CPU whose
hardware rounds differently or of other package builds (docs/physics.md, "What is reproducible").
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass

FINGERPRINT_SEED = 20261201
THROWS = 6  # per part: enough for a chaotic run-out to show any difference, cheap in a test
NOMINAL = (1.55, 32.0)  # a fixed aimed release (m/s, deg): the aim solve is not part of the print


@dataclass(frozen=True)
class Variant:
    """One way of computing as another CPU would: a name and the environment that makes it so."""

    name: str
    env: dict[str, str]


def _digest(rows: list) -> str:
    return hashlib.sha256(json.dumps(rows, sort_keys=True, default=repr).encode()).hexdigest()[:16]


def _throws(templates: list | None = None) -> str:
    from sim.engine.worlds import build_thrower
    from sim.specs.scenario import Scenario

    th = build_thrower(Scenario.build(skill="casual", templates=templates, source="fingerprint"))
    try:
        th.set_nominal(NOMINAL)
        return _digest([th.throw(FINGERPRINT_SEED, k).record() for k in range(THROWS)])
    finally:
        th.physics.close()


def _flip() -> str:
    from sim.specs.board import load_board
    from sim.specs.flip import FlipProfile
    from sim.specs.template import load_template
    from sim.world.flip import flip_template

    board, spec = load_board("magma"), load_template("fireball")
    rows = [
        r.to_json()
        for k in range(3)
        for r in flip_template(
            board, spec, FINGERPRINT_SEED, k, "casual", FlipProfile.from_dict({}, "fingerprint")
        )
    ]
    return _digest(rows)


def _rig() -> str:
    from sim.engine.rigs import MaterialRig, PairFactors
    from sim.specs.die import load_die

    rig = MaterialRig(load_die("hero-d8"), "wood")
    try:
        rig.set_pair(PairFactors(0.4, 0.5, 0.95))
        rows = [rig.ramp(h, a, yaw) for h, a in ((40.0, 30.0), (60.0, 35.0)) for yaw in (7.0, 61.0, 103.0)]
        rows += [rig.drop(h) for h in (100.0, 200.0)]
    finally:
        rig.close()
    return _digest(rows)


PARTS: dict[str, Callable[[], str]] = {
    "throws": _throws,
    "laid template": lambda: _throws([{"name": "fireball", "x_mm": 40.0, "y_mm": 20.0, "yaw_deg": 30.0}]),
    "flip": _flip,
    "home rig": _rig,
}


def fingerprint() -> dict[str, str]:
    """A short hash of each part's records, made in this process."""
    return {name: make() for name, make in PARTS.items()}


def _numpy_features() -> list[str]:
    """The SIMD targets numpy found beyond its baseline here (each can be switched off)."""
    import importlib

    for name in ("numpy._core._multiarray_umath", "numpy.core._multiarray_umath"):  # numpy 2, numpy 1
        try:
            umath = importlib.import_module(name)
            break
        except ImportError:
            continue
    else:
        return []
    found = getattr(umath, "__cpu_features__", {})
    return [f for f in getattr(umath, "__cpu_dispatch__", []) if found.get(f)]


def variants() -> list[Variant]:
    """The CPU variants this machine can emulate (x86-64: BLAS kernels, numpy SIMD, libm's FMA/AVX2)."""
    out = [Variant("as this CPU is", {})]
    if platform.machine() not in ("x86_64", "AMD64"):
        return out  # the switches below name x86-64 kernels and features
    out += [
        Variant("OpenBLAS Prescott kernels (SSE3)", {"OPENBLAS_CORETYPE": "Prescott"}),
        Variant("OpenBLAS Haswell kernels (AVX2, FMA)", {"OPENBLAS_CORETYPE": "Haswell"}),
        Variant("OpenBLAS SkylakeX kernels (AVX-512)", {"OPENBLAS_CORETYPE": "SkylakeX"}),
    ]
    feats = _numpy_features()
    if feats:
        out.append(
            Variant("numpy without SIMD beyond its baseline", {"NPY_DISABLE_CPU_FEATURES": " ".join(feats)})
        )
    out.append(Variant("glibc libm without FMA and AVX2", {"GLIBC_TUNABLES": "glibc.cpu.hwcaps=-AVX2,-FMA"}))
    return out


def fingerprint_in(variant: Variant, timeout_s: float = 300.0) -> dict[str, str]:
    """The fingerprint made in a fresh process under `variant`, with an empty cache of its own."""
    with tempfile.TemporaryDirectory(prefix="dfsim-fingerprint-") as cache:
        env = {**os.environ, **variant.env, "DFSIM_CACHE_DIR": cache}
        if "NPY_DISABLE_CPU_FEATURES" not in variant.env:
            env.pop("NPY_DISABLE_CPU_FEATURES", None)
        proc = subprocess.run(
            [sys.executable, "-m", "sim.engine.portability"],
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout_s,
            check=False,
        )
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        raise RuntimeError(f"fingerprint under '{variant.name}' failed: {last}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def compare(progress: Callable[[str], None] | None = None) -> list[tuple[Variant, dict[str, str], list[str]]]:
    """Each variant's fingerprint and the parts that differ from the first variant's."""
    rows: list[tuple[Variant, dict[str, str], list[str]]] = []
    ref: dict[str, str] | None = None
    for v in variants():
        if progress:
            progress(v.name)
        fp = fingerprint_in(v)
        ref = ref or fp
        rows.append((v, fp, [p for p in fp if fp[p] != ref[p]]))
    return rows


if __name__ == "__main__":
    print(json.dumps(fingerprint()))
