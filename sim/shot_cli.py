"""`dfsim props`: list the built-in props; loading this module also registers the prop kind, so
`dfsim check boards/props/NAME.toml` validates prop files. Auto-loaded by sim/cli.py."""

from __future__ import annotations

import json

from . import prop as _prop  # noqa: F401  (registers the "prop" kind with the catalog)


def _list_props(args) -> int:
    from .catalog import list_kind

    specs = list_kind("prop")
    if args.json:
        print(json.dumps([s.model_dump(mode="json") | {"source": s.source} for s in specs]))
        return 0
    for s in specs:
        pl = s.placement
        print(f"{s.name:<14}{' (estimated)' if s.estimated else '':<13} {s.shape.type:<12} {s.material:<10} "
              f"at {pl.anchor} {pl.x_mm:+g},{pl.y_mm:+g},{pl.z_mm:+g} mm")
    return 0


def add_shot_commands(sub) -> None:
    p = sub.add_parser("props", help="list built-in props (Firewall, Fire Ring, Lava mat, ...)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=_list_props)
    r = sub.add_parser("shot-report", help="per-predicate failure rates, Far Shot cost and a ranking figure for a run")
    r.add_argument("out", help="the output folder of `dfsim run` (e.g. results/shot-requirements)")
    r.add_argument("--json", action="store_true")
    r.set_defaults(func=_cmd_shot_report)
    a = sub.add_parser("sda-rolloff", help="Super Dungeon Arena scenario roll and roll-off odds from a free-roll run")
    a.add_argument("out", help="the output folder of `dfsim run sda-rolloff`")
    a.add_argument("--stars", help="what each face label counts, e.g. star=1,2-star=2 (default)")
    a.add_argument("--variant", default="blue-die")
    a.add_argument("--json", action="store_true")
    a.set_defaults(func=_cmd_sda)


# ------------------------------------------------------------------ shot-report ----
def shot_report(out_dir) -> dict:
    """From a finished `dfsim run` of a shot experiment (e.g. experiments/shot-requirements.toml):
    per variant the hit rate and mean damage (from summary.json) plus the failure rate of every
    requirement predicate (from the records: each throw reports all of its predicates); for every
    variant named "X.far-*" the paired change in hit rate against "X-*" (the Far Shot's cost, on the
    same draws); one figure ranking all variants by hit rate. Writes OUT/shot-report.json and
    OUT/figures/shot-ranking.png."""
    from pathlib import Path

    import numpy as np
    import pyarrow.parquet as pq

    from .errors import SpecError
    from .statistics import paired_rate_difference, wilson

    out = Path(out_dir)
    try:
        summary = json.loads((out / "summary.json").read_text())
        table = pq.read_table(out / "records.parquet", columns=["variant", "index", "result", "requirements", "hero_damage"])
    except FileNotFoundError as exc:
        raise SpecError(out, "", f"not a finished run folder ({exc.filename} missing)") from None
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
        rows.append({
            "variant": name,
            "n": n,
            "hit_rate": v["hit_rate"],
            "damage": v["damage"],
            "hero_damage_mean": float(sub["hero_damage"].mean()) if n else float("nan"),
            "requirement_failed": {k: wilson(c, n, conf).as_dict() for k, c in fails.items()},
            "requirement_touched": {k: wilson(c, n, conf).as_dict() for k, c in touched.items() if c},
        })
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
        far.append({"shot": base, "skill": skill, "with_far": r["hit_rate"]["rate"], "without": by_name[ref]["hit_rate"]["rate"],
                    "difference": paired_rate_difference(ha, hb, conf).as_dict()})
    report = {"confidence": conf, "variants": rows, "far_cost": far}
    (out / "shot-report.json").write_text(json.dumps(report, indent=1, default=float))
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
    fig.savefig(path, dpi=120)
    plt.close(fig)


def _cmd_shot_report(args) -> int:
    rep = shot_report(args.out)
    if args.json:
        print(json.dumps(rep, default=float))
        return 0
    for r in sorted(rep["variants"], key=lambda r: -r["hit_rate"]["rate"]):
        h = r["hit_rate"]
        fails = ", ".join(f"{k} {100 * v['rate']:.0f}%" for k, v in r["requirement_failed"].items() if v["count"])
        print(f"{r['variant']:<26} n={r['n']:<5} hit {100 * h['rate']:5.1f}% [{100 * h['lo']:4.1f}, {100 * h['hi']:4.1f}]"
              f"  damage {r['damage']['value']:.2f}  failed: {fails or '-'}")
    for f in rep["far_cost"]:
        d = f["difference"]
        print(f"far cost {f['shot']:<12} {100 * d['value']:+5.1f} pp [{100 * d['lo']:+5.1f}, {100 * d['hi']:+5.1f}]")
    return 0


# ------------------------------------------------------------------ sda-rolloff ----
SDA_SCENARIOS = {"blank": "Destruction", "star": "King of the Hill", "2-star": "Crystal Capture", "heart": "Crystal Capture"}


def sda_rolloff(out_dir, stars: dict[str, int] | None = None, variant: str = "blue-die") -> dict:
    """Super Dungeon Arena from the free-roll records of one blue die (experiments/sda-rolloff.toml):
    the scenario roll's odds, and the player-one roll-off played through the recorded faces in throw
    order (3 dice each, six faces per attempt, ties rerolled), next to the exact answer for
    independent dice with the measured face frequencies."""
    from pathlib import Path

    import numpy as np
    import pyarrow.parquet as pq

    from .errors import SpecError
    from .statistics import mean_interval, wilson

    stars = stars or {"star": 1, "2-star": 2}
    out = Path(out_dir)
    try:
        df = pq.read_table(out / "records.parquet", columns=["variant", "index", "face", "result"]).to_pandas()
        conf = json.loads((out / "summary.json").read_text())["experiment"].get("confidence", 0.95)
    except FileNotFoundError as exc:
        raise SpecError(out, "", f"not a finished run folder ({exc.filename} missing)") from None
    sub = df[(df["variant"] == variant) & (df["result"] != "void")].sort_values("index")
    if sub.empty:
        raise SpecError(out, "variant", f"no settled throws of variant '{variant}'")
    faces = sub["face"].tolist()
    n = len(faces)
    labels = sorted(set(faces))
    face_rates = {f: wilson(faces.count(f), n, conf).as_dict() for f in labels}
    scen: dict[str, int] = {}
    for f in faces:
        s = SDA_SCENARIOS.get(f, f"unmapped:{f}")
        scen[s] = scen.get(s, 0) + 1
    scenario = {k: wilson(c, n, conf).as_dict() for k, c in scen.items()}
    # roll-off through the recorded faces
    vals = [stars.get(f, 0) for f in faces]
    attempts, ties, rolls_needed, rolls = 0, 0, [], 0
    for k in range(0, n - 5, 6):
        a, b = sum(vals[k:k + 3]), sum(vals[k + 3:k + 6])
        attempts += 1
        rolls += 1
        if a == b:
            ties += 1
            continue
        rolls_needed.append(rolls)
        rolls = 0
    # exact, for independent dice with the measured face frequencies
    p = {}
    for f in labels:
        p[stars.get(f, 0)] = p.get(stars.get(f, 0), 0.0) + faces.count(f) / n
    one = np.zeros(max(p) + 1)
    for v, q in p.items():
        one[v] += q
    three = np.convolve(np.convolve(one, one), one)
    p_tie = float(np.sum(three**2))
    report = {
        "variant": variant, "n_faces": n, "stars": stars, "faces": face_rates, "scenario_roll": scenario,
        "rolloff": {
            "attempts": attempts,
            "tie_rate": wilson(ties, attempts, conf).as_dict() if attempts else None,
            "rolls_per_rolloff": mean_interval(np.array(rolls_needed, float), conf, "t").as_dict() if len(rolls_needed) > 1 else None,
            "exact_tie_probability": p_tie,
            "exact_rolls_per_rolloff": 1.0 / (1.0 - p_tie) if p_tie < 1 else float("inf"),
            "star_total_distribution": {str(i): float(x) for i, x in enumerate(three)},
        },
    }
    (out / "sda-rolloff.json").write_text(json.dumps(report, indent=1, default=float))
    return report


def _cmd_sda(args) -> int:
    stars = None
    if args.stars:
        stars = {}
        for item in args.stars.split(","):
            k, _, v = item.partition("=")
            stars[k.strip()] = int(v)
    rep = sda_rolloff(args.out, stars, args.variant)
    if args.json:
        print(json.dumps(rep, default=float))
        return 0
    print(f"{rep['n_faces']} settled free rolls of one blue die ({rep['variant']})")
    for f, r in rep["faces"].items():
        print(f"  face {f:<8} {100 * r['rate']:5.1f}% [{100 * r['lo']:4.1f}, {100 * r['hi']:4.1f}]")
    for s, r in rep["scenario_roll"].items():
        print(f"  scenario {s:<18} {100 * r['rate']:5.1f}% [{100 * r['lo']:4.1f}, {100 * r['hi']:4.1f}]")
    ro = rep["rolloff"]
    if ro["tie_rate"]:
        t = ro["tie_rate"]
        print(f"  roll-off ties {100 * t['rate']:.1f}% [{100 * t['lo']:.1f}, {100 * t['hi']:.1f}] over {ro['attempts']} attempts"
              f" (exact for independent dice: {100 * ro['exact_tie_probability']:.1f}%, {ro['exact_rolls_per_rolloff']:.2f} rolls per roll-off)")
    return 0
