"""Figures of a fight experiment, from its summary.json alone: win rate per variant, the paired
effect of each variant against the baseline, how many throws a win takes, and how the monster's
life falls throw by throw. PNG files through matplotlib (the caller picks the backend)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

from sim.files import save_figure

DPI = 110
MAX_LINES = 8  # variants drawn as lines in one panel (more: an even pick, the baseline first)


def _save(fig, path: Path) -> Path:
    fig.tight_layout()
    save_figure(fig, path, dpi=DPI)
    plt.close(fig)
    return path


def _rows(variants: list[dict], key: str, scale: float = 100.0):
    names = [v["name"] for v in variants]
    r = [v[key] for v in variants]
    val = (
        np.array(
            [
                x.get("rate", x.get("value")) if x.get("rate", x.get("value")) is not None else np.nan
                for x in r
            ],
            float,
        )
        * scale
    )
    lo = np.array([x["lo"] if x.get("lo") is not None else np.nan for x in r], float) * scale
    hi = np.array([x["hi"] if x.get("hi") is not None else np.nan for x in r], float) * scale
    return names, val, lo, hi


def win_rates(path: Path, summary: dict, conf_label: str) -> Path:
    """Win rate per variant with its Wilson interval."""
    vs = summary["variants"]
    names, val, lo, hi = _rows(vs, "won")
    fig, ax = plt.subplots(figsize=(7.5, 0.9 + 0.38 * len(vs)))
    y = np.arange(len(vs))[::-1]
    ax.errorbar(val, y, xerr=[val - lo, hi - val], fmt="o", color="C0", capsize=3)
    for yi, v in zip(y, val, strict=True):
        ax.annotate(f"{v:.1f} %", (v, yi), textcoords="offset points", xytext=(6, 5), fontsize=8)
    ax.set_yticks(
        y,
        [
            f"{n}  ({v['monster_life']} life)" if v.get("monster_life") is not None else n
            for n, v in zip(names, vs, strict=True)
        ],
    )
    ax.set_xlim(0, 100)
    ax.set_xlabel(f"fights won (%), {conf_label} Wilson intervals")
    ax.set_title(
        f"{summary['experiment']['name']}: win rate, {summary['experiment']['fights']} fights per variant"
    )
    ax.grid(axis="x", alpha=0.3)
    return _save(fig, path)


def differences(path: Path, summary: dict, conf_label: str) -> Path:
    """Each variant's win rate minus the baseline's, on paired fights, with Newcombe's interval."""
    ds = summary["differences"]
    names, val, lo, hi = _rows(ds, "won")
    fig, ax = plt.subplots(figsize=(7.5, 0.9 + 0.38 * len(ds)))
    y = np.arange(len(ds))[::-1]
    colors = ["C2" if v > 0 else "C3" if v < 0 else "0.4" for v in np.nan_to_num(val)]
    for yi, v, a, b, c in zip(y, val, lo, hi, colors, strict=True):
        ax.errorbar([v], [yi], xerr=[[v - a], [b - v]], fmt="o", color=c, capsize=3)
    ax.axvline(0, color="0.3", lw=0.8)
    ax.set_yticks(y, names)
    ax.set_xlabel(
        f"won minus {summary['experiment']['baseline']} (percentage points), {conf_label} paired intervals"
    )
    ax.set_title("effect on the win rate (paired fights)")
    ax.grid(axis="x", alpha=0.3)
    return _save(fig, path)


def _pick(summary: dict) -> list[dict]:
    """The variants drawn as lines: the experiment's `curves`, else the baseline and an even pick."""
    variants = summary["variants"]
    wanted = summary["experiment"].get("curves")
    if wanted:
        return [v for v in variants if v["name"] in wanted]
    if len(variants) <= MAX_LINES:
        return variants
    baseline = summary["experiment"]["baseline"]
    base = [v for v in variants if v["name"] == baseline]
    rest = [v for v in variants if v["name"] != baseline]
    idx = np.unique(np.linspace(0, len(rest) - 1, MAX_LINES - len(base)).round().astype(int))
    return base + [rest[i] for i in idx]


def throws_to_win(path: Path, summary: dict) -> Path:
    """Distribution of the number of throws in won fights (share of each variant's wins)."""
    vs = _pick(summary)
    fig, ax = plt.subplots(figsize=(7.5, 4.2))
    for i, v in enumerate(vs):
        d = v["distributions"]["throws_to_win"]
        if not d["n"]:
            continue
        t = np.array(sorted(int(k) for k in d["counts"]))
        share = np.array([d["counts"][str(k)] for k in t]) / d["n"]
        ax.step(
            t,
            100 * share,
            where="mid",
            color=f"C{i % 10}",
            label=f"{v['name']} (median {d['quantiles']['50']:g}, {d['n']} wins)",
        )
    ax.set_xlabel("throws in the fight (won fights)")
    ax.set_ylabel("share of wins (%)")
    shown = (
        "" if len(vs) == len(summary["variants"]) else f" — {len(vs)} of {len(summary['variants'])} variants"
    )
    ax.set_title(f"throws to win{shown}")
    ax.set_ylim(bottom=0)
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    return _save(fig, path)


def survival(path: Path, summary: dict) -> Path:
    """Left: share of fights whose monster is still standing after t throws. Right: the monster's
    remaining life after t throws (median and quartiles; a lost fight keeps its last value)."""
    vs = _pick(summary)
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(11, 4.2))
    for i, v in enumerate(vs):
        s = v["survival"]
        t = np.array(s["throw"])
        c = f"C{i % 10}"
        a1.step(t, 100 * np.array(s["alive"]), where="post", color=c, label=v["name"])
        a2.plot(t, s["life_p50"], color=c, label=v["name"])
        a2.fill_between(t, s["life_p25"], s["life_p75"], color=c, alpha=0.12, lw=0)
    a1.set_xlabel("throw number")
    a1.set_ylabel("monster still standing (%)")
    a1.set_ylim(0, 101)
    shown = (
        "" if len(vs) == len(summary["variants"]) else f" ({len(vs)} of {len(summary['variants'])} variants)"
    )
    a1.set_title(f"survival of the monster{shown}")
    a2.set_xlabel("throw number")
    a2.set_ylabel("monster life left (median, quartiles)")
    a2.set_title("the monster's life throw by throw")
    a2.set_ylim(bottom=0)
    for a in (a1, a2):
        a.grid(alpha=0.3)
    a1.legend(fontsize=8)
    return _save(fig, path)


def draw_fight_figures(
    store, exp, summary: dict, drawing: Callable[[str], None] = lambda name: None
) -> list[Path]:
    """All figures of a finished fight experiment, written to OUT/figures/; returns their paths.
    `drawing` is told each figure's file name as its drawing starts (`Steps.part`)."""
    fig_dir = store.root / "figures"
    fig_dir.mkdir(exist_ok=True)
    conf_label = f"{round(100 * exp.spec.confidence):g} %"
    drawing("win_rate.png")
    out = [win_rates(fig_dir / "win_rate.png", summary, conf_label)]
    if summary["differences"]:
        drawing("differences.png")
        out.append(differences(fig_dir / "differences.png", summary, conf_label))
    drawing("throws_to_win.png")
    out.append(throws_to_win(fig_dir / "throws_to_win.png", summary))
    drawing("survival.png")
    out.append(survival(fig_dir / "survival.png", summary))
    return out
