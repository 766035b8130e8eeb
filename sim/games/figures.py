"""A game experiment's figures: win rates, where games are lost, survival by combat, titles, gold and
white dice over the game.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from sim.experiments.statistics import wilson
from sim.games.experiment import GameExperimentSpec


def draw_figures(folder: Path, spec: GameExperimentSpec, results: dict[str, list]) -> list[Path]:
    """Win rate per variant, where games are lost, survival by combat, titles, gold and white dice."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from sim.games.result import TITLES

    figdir = folder / "figures"
    figdir.mkdir(exist_ok=True)
    names = list(results)
    out = []
    fig, ax = plt.subplots(figsize=(8, 0.3 * len(names) + 1.5))
    rates = [wilson(sum(r.won for r in results[k]), len(results[k])) for k in names]
    ax.errorbar(
        [r.rate for r in rates],
        range(len(names)),
        xerr=[[r.rate - r.lo for r in rates], [r.hi - r.rate for r in rates]],
        fmt="o",
    )
    ax.set_yticks(range(len(names)), names)
    ax.set_xlabel("games won (95 % Wilson interval)")
    ax.axvline(0.5, color="grey", lw=0.5)
    fig.tight_layout()
    out.append(_save(fig, figdir / "win_rate.png"))
    fig, ax = plt.subplots(figsize=(8, 0.3 * len(names) + 1.5))
    cats = ["level 1 combat", "level 2 combat", "level 3 combat", "level 4 combat", "final boss"]
    left = np.zeros(len(names))
    for c in cats:
        vals = np.array(
            [
                sum(
                    1
                    for r in results[k]
                    if not r.won
                    and (("final boss" if r.lost_at == "final-boss" else f"level {r.lost_level} combat") == c)
                )
                / len(results[k])
                for k in names
            ]
        )
        ax.barh(range(len(names)), vals, left=left, label=c)
        left += vals
    ax.set_yticks(range(len(names)), names)
    ax.set_xlabel("share of games lost, by where")
    ax.legend(fontsize=7)
    fig.tight_layout()
    out.append(_save(fig, figdir / "lost_where.png"))
    fig, axs = plt.subplots(1, 3, figsize=(13, 4))
    for k in names:
        rs = results[k]
        most = max(r.combats for r in rs)
        alive = [np.mean([r.won or r.combats > c for r in rs]) for c in range(most + 1)]
        axs[0].step(range(most + 1), alive, where="post", label=k)
        for ax_i, key in ((1, "gold"), (2, "white_dice")):
            by = [[t[key] for r in rs for t in r.trace if t["combat"] == c + 1] for c in range(most)]
            axs[ax_i].plot(range(1, most + 1), [np.mean(b) if b else np.nan for b in by], label=k)
    axs[0].set(xlabel="combats played", ylabel="games still going (or won)", title="survival by combat")
    axs[1].set(xlabel="combat", ylabel="gold on the Chest (mean of games still going)")
    axs[2].set(xlabel="combat", ylabel="white dice on the Chest")
    if len(names) <= 10:
        axs[0].legend(fontsize=6)
    fig.tight_layout()
    out.append(_save(fig, figdir / "over_the_game.png"))
    fig, ax = plt.subplots(figsize=(8, 4))
    order = [t for _, t in TITLES]
    for k in names[:12]:
        counts = [sum(r.title == t for r in results[k]) / len(results[k]) for t in order]
        ax.plot(range(len(order)), counts, marker="o", label=k)
    ax.set_xticks(range(len(order)), [t.split()[0] for t in order], rotation=45, fontsize=7)
    ax.set_ylabel("share of games")
    ax.set_title("end-game titles")
    ax.legend(fontsize=6)
    fig.tight_layout()
    out.append(_save(fig, figdir / "titles.png"))
    return out


def _save(fig, path: Path) -> Path:
    import matplotlib.pyplot as plt

    tmp = path.with_name(path.stem + ".tmp.png")
    fig.savefig(tmp, dpi=90)
    plt.close(fig)
    os.replace(tmp, path)
    return path
