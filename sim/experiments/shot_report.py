"""The shot report of a finished run: requirement failure rates, the Far Shot's cost, a ranking."""

from __future__ import annotations

import json


def shot_report(out_dir) -> dict:
    """From a finished `dfsim run` of a shot experiment (e.g. experiments/shot-requirements.toml):
    per variant the hit rate and mean damage (from summary.json) plus the failure rate of every
    requirement predicate (from the records: each throw reports all of its predicates); for every
    variant named "X.far-*" the paired change in hit rate against "X-*" (the Far Shot's cost, on the
    same draws); one figure ranking all variants by hit rate. Writes OUT/shot-report.json and
    OUT/figures/shot-ranking.png."""

    import numpy as np

    from sim.engine.run_folder import SUMMARY, RunFolder
    from sim.experiments.statistics import paired_rate_difference, wilson
    from sim.files import write_atomic

    run = RunFolder.open(out_dir, "RESULTS", (SUMMARY,), kind="throws", command="shot-report")
    out = run.root
    summary = run.summary()
    table = run.records(["variant", "index", "result", "requirements", "hero_damage"])
    conf = summary["experiment"].get("confidence", 0.95)
    df = table.to_pandas()
    rows = []
    for v in summary["variants"]:
        name = v["variant"]
        sub = df[df["variant"] == name]
        fails: dict[str, int] = {}
        touched: dict[str, int] = {}
        for req in sub["requirements"]:
            for item in filter(None, str(req).split(",")):
                k, _, st = item.partition("=")
                fails[k] = fails.get(k, 0) + (st == "failed")
                touched[k] = touched.get(k, 0) + (st == "touched")
        n = len(sub)
        rows.append(
            {
                "variant": name,
                "n": n,
                "hit_rate": v["hit_rate"],
                "damage": v["damage"],
                "hero_damage_mean": float(sub["hero_damage"].mean()) if n else float("nan"),
                "requirement_failed": {k: wilson(c, n, conf).as_dict() for k, c in fails.items()},
                "requirement_touched": {k: wilson(c, n, conf).as_dict() for k, c in touched.items() if c},
            }
        )
    far = []
    by_name = {r["variant"]: r for r in rows}
    for r in rows:
        if ".far-" not in r["variant"]:
            continue
        base, skill = r["variant"].split(".far-", 1)
        ref = f"{base}-{skill}"
        if ref not in by_name:
            continue
        a = df[df["variant"] == r["variant"]].sort_values("index")
        b = df[df["variant"] == ref].sort_values("index")
        common = np.intersect1d(a["index"], b["index"])
        ha = a.set_index("index").loc[common, "result"].eq("hit").to_numpy()
        hb = b.set_index("index").loc[common, "result"].eq("hit").to_numpy()
        far.append(
            {
                "shot": base,
                "skill": skill,
                "with_far": r["hit_rate"]["rate"],
                "without": by_name[ref]["hit_rate"]["rate"],
                "difference": paired_rate_difference(ha, hb, conf).as_dict(),
            }
        )
    report = {"confidence": conf, "variants": rows, "far_cost": far}
    write_atomic(out / "shot-report.json", json.dumps(report, indent=1, default=float))
    _ranking_figure(out / "figures" / "shot-ranking.png", rows, conf)
    return report


def _ranking_figure(path, rows, conf) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = sorted(rows, key=lambda r: r["hit_rate"]["rate"])
    path.parent.mkdir(parents=True, exist_ok=True)
    fig, ax = plt.subplots(figsize=(8, max(3, 0.22 * len(rows))))
    colours = {"novice": "#d95f02", "casual": "#1b9e77", "expert": "#7570b3"}
    for i, r in enumerate(rows):
        h = r["hit_rate"]
        skill = r["variant"].rsplit("-", 1)[-1]
        ax.barh(i, h["rate"], color=colours.get(skill, "#999999"), alpha=0.8)
        ax.plot([h["lo"], h["hi"]], [i, i], color="black", lw=1)
    ax.set_yticks(range(len(rows)), [r["variant"] for r in rows], fontsize=7)
    ax.set_xlim(0, 1)
    ax.set_xlabel(f"hit rate ({100 * conf:.0f} % Wilson interval)")
    ax.set_title("Specific throws ranked by hit rate")
    handles = [plt.Rectangle((0, 0), 1, 1, color=c) for c in colours.values()]
    ax.legend(handles, list(colours), loc="lower right", fontsize=7)
    fig.tight_layout()
    from sim.files import save_figure

    save_figure(fig, path, dpi=120)
    plt.close(fig)
