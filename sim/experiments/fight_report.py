"""How hard a fight is, over many fights: outcome rates and mean costs of `FightResult`s."""

from __future__ import annotations

from typing import Any

import numpy as np

from sim.experiments.statistics import mean_interval, wilson


def summarize(results: list) -> dict[str, Any]:
    """How hard the fight is, over many fights: outcome rates (Wilson 95 %) and mean costs (t 95 %)."""
    n = len(results)
    rows = [r.record() for r in results]
    out: dict[str, Any] = {"n": n}
    for k in ("won", "lost", "backed-down", "unfinished"):
        out[k.replace("-", "_")] = wilson(sum(r["outcome"] == k for r in rows), n).as_dict()
    out["epic_shot"] = wilson(sum(r["epic_shot"] for r in rows), n).as_dict()
    for k in ("rounds", "throws", "hero_damage", "white_dice_used", "retrievals", "fainted", "scars", "gold"):
        x = np.array([r[k] for r in rows], dtype=float)
        out[k] = mean_interval(x).as_dict() if n > 1 else {"value": float(x.mean())}
    reasons: dict[str, int] = {}
    for r in rows:
        if r["lost_reason"]:
            reasons[r["lost_reason"]] = reasons.get(r["lost_reason"], 0) + 1
    out["lost_reasons"] = reasons
    return out
