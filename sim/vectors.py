"""Products and lengths of small vectors and matrices that give the same bits on every CPU.

numpy's `@`, `dot`, `inner` and `linalg.norm` on float arrays call BLAS, and the BLAS bundled with
numpy (OpenBLAS) picks its kernels by CPU at run time: the same product of a die's corner points and
a rotation matrix can differ in its last bit between two machines (or under `OPENBLAS_CORETYPE`).
A last bit is enough to change a chaotic throw, so every product that feeds a simulation goes
through here instead: elementwise multiplies and adds in a fixed order, which IEEE arithmetic rounds
the same way on any CPU and any SIMD width. The arrays are tiny (3-vectors, 3x3 matrices, a few
hundred points), so the cost is nothing next to a physics step.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

ArrayLike = np.ndarray | Sequence[float] | Sequence[Sequence[float]]


def matmul(a: ArrayLike, b: ArrayLike) -> np.ndarray:
    """`a @ b` for 1-D or 2-D (or stacked) float arrays, summed left to right over the inner index."""
    x = np.asarray(a, dtype=float)
    y = np.asarray(b, dtype=float)
    if x.ndim == 0 or y.ndim == 0:
        raise ValueError("matmul: scalars have no matrix product")
    inner = x.shape[-1]
    if y.shape[0] != inner:
        raise ValueError(f"matmul: shapes {x.shape} and {y.shape} do not chain")
    if y.ndim == 1:  # (..., k) @ (k,) -> (...)
        out = x[..., 0] * y[0]
        for k in range(1, inner):
            out = out + x[..., k] * y[k]
        return out
    if x.ndim == 1:  # (k,) @ (k, m) -> (m,)
        out = x[0] * y[0]
        for k in range(1, inner):
            out = out + x[k] * y[k]
        return out
    out = x[..., :, 0:1] * y[0]  # (..., n, k) @ (k, m) -> (..., n, m)
    for k in range(1, inner):
        out = out + x[..., :, k : k + 1] * y[k]
    return out


def dot(a: ArrayLike, b: ArrayLike) -> float:
    """The dot product of two vectors, as a float."""
    x = np.asarray(a, dtype=float).ravel()
    y = np.asarray(b, dtype=float).ravel()
    if x.shape != y.shape:
        raise ValueError(f"dot: lengths {x.size} and {y.size} differ")
    total = 0.0
    for u, v in zip(x.tolist(), y.tolist()):
        total += u * v
    return total


def norm(a: ArrayLike) -> float:
    """The Euclidean length of a vector."""
    x = np.asarray(a, dtype=float)
    return math.sqrt(dot(x, x))


def row_norms(a: ArrayLike) -> np.ndarray:
    """The Euclidean length of each row (the last axis) of an array."""
    x = np.asarray(a, dtype=float)
    total = x[..., 0] * x[..., 0]
    for k in range(1, x.shape[-1]):
        total = total + x[..., k] * x[..., k]
    return np.sqrt(total)


def rowwise_dot(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The dot product of each row of `a` with the same row of `b`."""
    x = np.asarray(a, dtype=float)
    y = np.asarray(b, dtype=float)
    out = x[:, 0] * y[:, 0]
    for k in range(1, x.shape[1]):
        out = out + x[:, k] * y[:, k]
    return out


def _solve(gram: list[list[float]], b: list[float]) -> list[float]:
    """Gaussian elimination with partial pivoting, in plain floats (a few unknowns)."""
    n = len(b)
    for col in range(n):
        piv = max(range(col, n), key=lambda r: abs(gram[r][col]))
        gram[col], gram[piv] = gram[piv], gram[col]
        b[col], b[piv] = b[piv], b[col]
        for r in range(col + 1, n):
            f = gram[r][col] / gram[col][col]
            for c in range(col, n):
                gram[r][c] -= f * gram[col][c]
            b[r] -= f * b[col]
    x = [0.0] * n
    for i in reversed(range(n)):
        acc = b[i]
        for c in range(i + 1, n):
            acc -= gram[i][c] * x[c]
        x[i] = acc / gram[i][i]
    return x


def least_squares(a: ArrayLike, y: ArrayLike, ridge: float = 1e-12) -> np.ndarray:
    """The x minimising |a x - y| (the smallest such x where several fit), with LAPACK left out.

    With at least as many rows as unknowns: the normal equations (a^T a + ridge I) x = a^T y; with
    fewer: x = a^T z, (a a^T + ridge I) z = y, the smallest exact fit. Solved by elimination in plain
    floats, so the bits are the same on every CPU; for the few-unknown fits here (material factors)
    it agrees with `numpy.linalg.lstsq` to ~1e-12 when the rows fix every unknown.
    """
    m = np.asarray(a, dtype=float)
    rhs = np.asarray(y, dtype=float)
    rows, n = m.shape
    if rows >= n:
        gram = [[dot(m[:, i], m[:, j]) for j in range(n)] for i in range(n)]
        scale = max(1.0, max(gram[i][i] for i in range(n)))
        for i in range(n):
            gram[i][i] += ridge * scale
        return np.array(_solve(gram, [dot(m[:, i], rhs) for i in range(n)]))
    gram = [[dot(m[i], m[j]) for j in range(rows)] for i in range(rows)]
    scale = max(1.0, max(gram[i][i] for i in range(rows)))
    for i in range(rows):
        gram[i][i] += ridge * scale
    z = _solve(gram, [float(v) for v in rhs])
    return matmul(np.array(z), m)
