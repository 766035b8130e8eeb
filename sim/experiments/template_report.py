"""`dfsim template-report OUT`: the template odds of a finished run (experiments/template-odds.toml).

Reads OUT/records.parquet (the runner's records with the tpl_ / partial_as_ columns of
sim/engine/templates.py) and writes OUT/template-odds.json and one comparison figure,
OUT/figures/template-odds.png. Per variant: hit rate, the chance the die lands fully / partly on a
template (95 % Wilson intervals), what the partial landings count as under each partial-template
option, mean damage per throw with its 95 % percentile-bootstrap interval (never below 0; paired
on the same throws, its difference to the variant "none-<skill>" without a template, with a paired t
interval), and for flipped templates the flip statistics.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from sim.engine.run_folder import RECORDS, check_run_kind, read_resolved, results_folder
from sim.engine.templates import flip_summary
from sim.errors import SpecError
from sim.experiments.statistics import mean_interval, paired_mean_difference, wilson
from sim.files import save_figure, write_atomic
from sim.rules.templates import PARTIAL_OPTIONS


def _rate(k: int, n: int) -> dict[str, float]:
    iv = wilson(int(k), int(n), 0.95)
    return {"value": k / n if n else float("nan"), "lo": iv.lo, "hi": iv.hi}


def _finite(x: float) -> float | None:
    return float(x) if np.isfinite(x) else None


def _mean(col: pd.Series) -> dict[str, Any]:
    """Mean with its 95 % percentile-bootstrap interval (None bounds below 2 throws)."""
    e = mean_interval(col.to_numpy(float), 0.95, method="bootstrap")
    return {"value": _finite(e.value), "lo": _finite(e.lo), "hi": _finite(e.hi), "method": e.method}


def template_report(out: str | Path, figure: bool = True) -> dict[str, Any]:
    """Template odds per variant of a finished template-odds run (hit, full/partial landings, damage, flip
    statistics), plus a figure unless `figure` is False."""
    out = results_folder(out, "RESULTS", (RECORDS,))
    resolved = read_resolved(out)
    check_run_kind(out, resolved, "throws", "template-report")
    if not any((c.get("inputs") or {}).get("templates") for c in resolved.get("cells") or []):
        raise SpecError(
            out,
            "RESULTS",
            "no variant of this run lays or flips a template; template-report reads a run with templates "
            "(e.g. `dfsim run template-odds`)",
        )
    path = out / RECORDS
    df = pd.read_parquet(path)
    for col in ("tpl_full", "partial_template", "template"):
        if col not in df.columns:
            df[col] = np.nan
    variants: dict[str, Any] = {}
    for name, g in df.groupby("variant", sort=False):
        g = g.sort_values("index")
        n = len(g)
        has_tpl = "tpl_on_board" in g.columns and g["tpl_on_board"].notna().any()
        on_tpl = g["template"].fillna("").astype(str) != ""
        full = g["tpl_full"].fillna(False).astype(bool) if has_tpl else pd.Series(False, index=g.index)
        partial = g["partial_template"].fillna(False).astype(bool)
        row: dict[str, Any] = {
            "n": n,
            "templates": sorted(
                {
                    t
                    for v in g.get("tpl_on_board", pd.Series(dtype=str)).dropna()
                    for t in str(v).split(",")
                    if t
                }
            ),
            "hit_rate": _rate(int((g["result"] == "hit").sum()), n),
            "counted_on_template": _rate(int(on_tpl.sum()), n),
            "fully_on_template": _rate(int(full.sum()), n),
            "partly_on_template": _rate(int(partial.sum()), n),
            "mean_damage": float(g["damage"].mean()),
            "mean_hero_damage": float(g["hero_damage"].mean()),
            "insta_kill_rate": float(g["insta_kill"].astype(bool).mean()),
            # intervals (95 %): mean damage by percentile bootstrap (damage is never negative)
            "damage": _mean(g["damage"]),
            "hero_damage": _mean(g["hero_damage"]),
            "insta_kill": _rate(int(g["insta_kill"].astype(bool).sum()), n),
        }
        if has_tpl:
            part = g[partial]
            row["partial_counted_as"] = {
                opt: part[f"partial_as_{opt}"].fillna("").astype(str).value_counts().to_dict()
                for opt in PARTIAL_OPTIONS
            }
            if g["tpl_pieces"].fillna(0).sum() > 0:
                row["flips"] = flip_summary(g)
        variants[str(name)] = row
    # paired damage differences: "<tpl>.<kind>-<skill>..." vs "none-<skill>"
    for name, row in variants.items():
        if name.startswith("none-") or not row.get("templates"):
            continue
        skill = "expert" if "expert" in name else "casual"
        base = df[df["variant"] == f"none-{skill}"]
        if base.empty:
            continue
        a = df[df["variant"] == name].set_index("index")["damage"]
        b = base.set_index("index")["damage"]
        common = a.index.intersection(b.index)
        diff = (a.loc[common] - b.loc[common]).to_numpy(float)
        if len(diff):
            e = paired_mean_difference(a.loc[common].to_numpy(float), b.loc[common].to_numpy(float), 0.95)
            half = (e.hi - e.lo) / 2 if len(diff) > 1 and np.isfinite(e.hi) else None
            row["damage_vs_none"] = {
                "baseline": f"none-{skill}",
                "pairs": len(diff),
                "mean": float(diff.mean()),
                "lo": _finite(e.lo),
                "hi": _finite(e.hi),
                "method": e.method,
                "half_width_95": half,
            }
    result = {"run": str(out), "variants": variants}
    write_atomic(out / "template-odds.json", json.dumps(result, indent=2, default=float))
    if figure:
        result["figure"] = str(_figure(out, variants))
    return result


def _figure(out: Path, variants: dict[str, Any]) -> Path:
    import matplotlib.pyplot as plt  # the backend is the caller's (the CLI draws with Agg)

    names = list(variants)
    y = np.arange(len(names))
    fig, axes = plt.subplots(1, 3, figsize=(15, 0.45 * len(names) + 1.8), sharey=True)
    for ax, key, title in (
        (axes[0], "fully_on_template", "die fully on the template"),
        (axes[1], "partly_on_template", "die partly on the template"),
    ):
        v = np.array([variants[n][key]["value"] for n in names], float) * 100
        lo = np.array([variants[n][key]["lo"] or 0 for n in names], float) * 100
        hi = np.array([variants[n][key]["hi"] or 0 for n in names], float) * 100
        ax.barh(
            y, v, xerr=[np.clip(v - lo, 0, None), np.clip(hi - v, 0, None)], color="tab:orange", alpha=0.8
        )
        ax.set_xlabel("% of throws (95 % Wilson)")
        ax.set_title(title)
    dm = np.array([variants[n]["mean_damage"] for n in names], float)
    dlo = np.array(
        [np.nan if variants[n]["damage"]["lo"] is None else variants[n]["damage"]["lo"] for n in names]
    )
    dhi = np.array(
        [np.nan if variants[n]["damage"]["hi"] is None else variants[n]["damage"]["hi"] for n in names]
    )
    axes[2].barh(
        y,
        dm,
        xerr=[np.nan_to_num(dm - dlo), np.nan_to_num(dhi - dm)],
        color="tab:blue",
        alpha=0.8,
        error_kw={"linewidth": 0.8, "capsize": 2},
        label="mean damage per throw (95 % bootstrap)",
    )
    hw = [variants[n].get("damage_vs_none", {}) for n in names]
    base = [variants.get(h.get("baseline", ""), {}).get("mean_damage", np.nan) if h else np.nan for h in hw]
    axes[2].scatter(base, y, color="k", marker="|", s=200, label="same throws, no template")
    axes[2].set_xlabel("damage to the monster")
    axes[2].set_title("mean damage per throw")
    axes[2].legend(loc="lower right", fontsize=8)
    axes[0].set_yticks(y, names)
    axes[0].invert_yaxis()
    fig.suptitle("Template odds (flipped or laid templates; same dice releases in every variant)")
    fig.tight_layout()
    (out / "figures").mkdir(exist_ok=True)
    path = out / "figures" / "template-odds.png"
    save_figure(fig, path, dpi=110)
    plt.close(fig)
    return path
