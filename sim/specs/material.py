"""Materials and contact pairs, and how to get intended pair values out of Bullet's product rule.

Bullet combines two bodies' friction and restitution by *multiplying* them. A pair table (die
plastic on cardboard, on wood, on plastic ...) is therefore only reachable exactly when it is a
rank-one product. We solve per-material body coefficients by weighted least squares in log space
over the pairs a scene actually uses and report the worst relative error, so a user who writes an
inconsistent table is told how far from it the engine will be.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
from pydantic import Field, field_validator, model_validator

from sim.errors import FieldError
from sim.specs.base import Name, Spec
from sim.vectors import least_squares

MAX_MATERIALS = 100


class PairSpec(Spec):
    """Friction, restitution and optional contact damping of a contact between materials a and b."""

    a: Name
    b: Name
    friction: float = Field(gt=0, le=2.0)
    restitution: float = Field(ge=0, le=1.0)
    contact_damping: float = Field(default=0.0, ge=0, le=1.0)  # die velocity damping while touching
    # rolling resistance as its lever arm (mm): a body rolling on the surface feels a torque of this
    # times the normal force against its rolling (the coefficient of rolling resistance times the rolling
    # radius); 0: none. Set on the static surface as Bullet's rolling friction (`Physics.finalize_materials`)
    rolling_resistance_mm: float = Field(default=0.0, ge=0, le=5.0)


class MaterialTable(Spec):
    """The table of material pairs: what friction / restitution a contact between two materials has."""

    name: str = "materials"
    estimated: bool = True
    notes: str = ""
    materials: list[Name] = Field(min_length=1, max_length=MAX_MATERIALS)
    pairs: list[PairSpec] = Field(min_length=1, max_length=MAX_MATERIALS * MAX_MATERIALS)

    @field_validator("materials")
    @classmethod
    def _names(cls, v: list[str]) -> list[str]:
        for i, m in enumerate(v):
            if not m.strip():
                raise FieldError(str(i), "a material needs a name")
            if m in v[:i]:
                raise FieldError(str(i), f"material '{m}' is listed twice")
        return v

    @model_validator(mode="after")
    def _known(self) -> MaterialTable:
        """Refuse pairs that name a material missing from `materials`."""
        known = set(self.materials)
        for i, p in enumerate(self.pairs):
            for side in ("a", "b"):
                if getattr(p, side) not in known:
                    raise FieldError(
                        f"pairs.{i}.{side}", f"material '{getattr(p, side)}' is not in materials"
                    )
        seen: dict[frozenset[str], int] = {}  # a second entry for a pair would be silently ignored by pair()
        for i, p in enumerate(self.pairs):
            key = frozenset((p.a, p.b))
            if key in seen:
                raise FieldError(f"pairs.{i}", f"repeats the pair {p.a}-{p.b} of pairs.{seen[key]}")
            seen[key] = i
        return self

    def pair(self, a: str, b: str) -> PairSpec | None:
        """The pair entry for two materials in either order, or None; a same-material contact matches only
        a same-material entry."""
        for p in self.pairs:
            if {p.a, p.b} == {a, b} and (a == b) == (p.a == p.b):
                return p
        return None

    def require(self, a: str, b: str, where: str) -> PairSpec:
        """The pair entry for two materials; SpecError naming `where` it is needed if the table lacks it."""
        p = self.pair(a, b)
        if p is None:
            from sim.errors import SpecError

            raise SpecError(
                self.source, "pairs", f"no pair for materials '{a}' and '{b}' (needed by {where})"
            )
        return p

    @classmethod
    def default(cls) -> MaterialTable:
        """The built-in material table (read once per process)."""
        return _default_table()


@lru_cache(maxsize=1)
def _default_table() -> MaterialTable:
    return MaterialTable.load("default", "material")


def solve_coefficients(
    pairs: dict[tuple[str, str], float], weights: dict[tuple[str, str], float] | None = None
) -> tuple[dict[str, float], float]:
    """Per-material factors c with c_a * c_b ~= value for every pair; returns (factors, worst relative
    error)."""
    mats = sorted({m for ab in pairs for m in ab})
    idx = {m: i for i, m in enumerate(mats)}
    rows, rhs, w = [], [], []
    for (a, b), v in pairs.items():
        r = np.zeros(len(mats))
        r[idx[a]] += 1
        r[idx[b]] += 1
        rows.append(r)
        rhs.append(math.log(max(v, 1e-9)))
        w.append((weights or {}).get((a, b), 1.0))
    A = np.array(rows) * np.sqrt(np.array(w))[:, None]
    y = np.array(rhs) * np.sqrt(np.array(w))
    sol = least_squares(A, y)
    coef = {m: float(math.exp(sol[idx[m]])) for m in mats}
    worst = max(abs(coef[a] * coef[b] - v) / max(v, 1e-9) for (a, b), v in pairs.items())
    return coef, float(worst)
