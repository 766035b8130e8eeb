"""Another CPU gives the same bits: the engine's fingerprint (throws, a laid and a flipped template,
home-rig rows) is the same in fresh processes that compute as other CPUs do (other BLAS kernels,
numpy without SIMD, libm without FMA), and the same in a fresh process as after other work here."""

from __future__ import annotations

import pytest

from sim.engine.portability import Variant, fingerprint, fingerprint_in
from sim.vectors import least_squares, matmul, norm, row_norms

# Every emulated CPU computing the same bits (`compare()`, about 25 s) is checked by the README's tour:
# `dfsim determinism --across-cpus` exits 1 on any difference (tests/test_readme_tour.py).


def test_a_fresh_process_gives_what_this_one_gives_after_other_work():
    # this process has built other worlds and filled its caches by now (the suite runs in it)
    assert fingerprint() == fingerprint_in(Variant("fresh process", {}))


def test_the_products_agree_with_numpy():
    import numpy as np

    rng = np.random.Generator(np.random.PCG64(3))
    a, r, v = rng.normal(size=(40, 3)), rng.normal(size=(3, 3)), rng.normal(size=3)
    assert np.allclose(matmul(a, r), a @ r, rtol=0, atol=1e-14)
    assert np.allclose(matmul(r, v), r @ v, rtol=0, atol=1e-14)
    assert np.allclose(matmul(v, r), v @ r, rtol=0, atol=1e-14)
    assert norm(v) == pytest.approx(float(np.linalg.norm(v)), rel=1e-15)
    assert np.allclose(row_norms(a), np.linalg.norm(a, axis=1), rtol=1e-15)
    m = rng.integers(0, 3, size=(6, 3)).astype(float)
    y = rng.normal(size=6)
    assert np.allclose(least_squares(m, y), np.linalg.lstsq(m, y, rcond=None)[0], atol=1e-9)
    under = np.array([[1.0, 1.0, 0.0], [1.0, 0.0, 1.0]])  # two pairs, three materials: the smallest fit
    assert np.allclose(least_squares(under, [0.3, -0.2]), np.linalg.lstsq(under, [0.3, -0.2], rcond=None)[0], atol=1e-9)


def test_no_blas_on_the_way_of_a_throw():
    # numpy's @, dot, inner, einsum, matmul and linalg go through BLAS/LAPACK kernels chosen by CPU;
    # in the package they go through sim/vectors.py instead (the viewer only draws, so it may use them)
    import ast
    from pathlib import Path

    sim = Path(__file__).resolve().parents[2] / "sim"
    banned = {"dot", "inner", "einsum", "matmul", "tensordot", "vdot", "linalg"}
    found = []
    for path in sim.rglob("*.py"):
        rel = path.relative_to(sim).as_posix()
        if rel == "vectors.py" or rel.startswith("viewer/"):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
                found.append(f"{rel}:{node.lineno}: @")
            elif (isinstance(node, ast.Attribute) and node.attr in banned and isinstance(node.value, ast.Name)
                  and node.value.id in ("np", "numpy")):
                found.append(f"{rel}:{node.lineno}: np.{node.attr}")
            elif isinstance(node, ast.Attribute) and node.attr == "dot" and not isinstance(node.value, ast.Name):
                found.append(f"{rel}:{node.lineno}: .dot")
    assert not found, "use sim.vectors (matmul, dot, norm, row_norms, least_squares) instead:\n" + "\n".join(found)
