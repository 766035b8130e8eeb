"""Super Dungeon Arena roll-offs from a free-roll run: scenario roll and roll-off odds."""

from __future__ import annotations

import json

SDA_SCENARIOS = {
    "blank": "Destruction",
    "star": "King of the Hill",
    "2-star": "Crystal Capture",
    "heart": "Crystal Capture",
}


def roll_faces(rec: dict) -> list[str] | None:
    """The faces of every die of one roll, from its record (die 0's `face`, then `die1_face`, ...), or
    None when a die did not settle: a roll with a die still moving or lost is rolled again."""
    n = int(rec.get("n_dice", 1) or 1)
    results = [rec["result"], *(rec.get(f"die{i}_result") for i in range(1, n))]
    if any(r is None or r == "void" for r in results):
        return None
    return [rec["face"], *(rec[f"die{i}_face"] for i in range(1, n))]


def sda_rolloff(
    out_dir,
    stars: dict[str, int] | None = None,
    variant: str = "blue-die",
    rolloff_variant: str = "three-blue-dice",
) -> dict:
    """Super Dungeon Arena from a free-roll run (experiments/sda-rolloff.toml). The scenario roll ("player
    one rolls a single blue die") from `variant`'s one-die throws; the player-one roll-off ("each player
    rolls three blue dice ... Reroll in the case of a tie") from `rolloff_variant`'s throws, each one
    player's three dice thrown together (they collide), taken two rolls (player one, player two) per
    attempt in throw order, a tie rolled again; next to the exact answer for independent dice with the
    face frequencies measured on those same dice."""
    import pyarrow.parquet as pq

    from sim.errors import SpecError
    from sim.experiments.statistics import wilson

    stars = stars or {"star": 1, "2-star": 2}
    from sim.engine.run_folder import RECORDS, SUMMARY, check_run_kind, read_resolved, results_folder
    from sim.files import write_atomic

    out = results_folder(out_dir, "RESULTS", (RECORDS, SUMMARY))
    check_run_kind(out, read_resolved(out), "throws", "sda-rolloff")
    try:
        df = pq.read_table(out / RECORDS).to_pandas()
        conf = json.loads((out / SUMMARY).read_text())["experiment"].get("confidence", 0.95)
    except FileNotFoundError as exc:
        raise SpecError(out, "", f"not a finished run folder ({exc.filename} missing)") from None
    sub = df[(df["variant"] == variant) & (df["result"] != "void")].sort_values("index")
    if sub.empty:
        raise SpecError(out, "variant", f"no settled throws of variant '{variant}'")
    faces = sub["face"].tolist()
    n = len(faces)
    face_rates = {f: wilson(faces.count(f), n, conf).as_dict() for f in sorted(set(faces))}
    scen: dict[str, int] = {}
    for f in faces:
        s = SDA_SCENARIOS.get(f, f"unmapped:{f}")
        scen[s] = scen.get(s, 0) + 1
    scenario = {k: wilson(c, n, conf).as_dict() for k, c in scen.items()}
    rolls_df = df[df["variant"] == rolloff_variant].sort_values("index")
    if rolls_df.empty:
        raise SpecError(
            out,
            "variant",
            f"no throws of the roll-off variant '{rolloff_variant}' (three blue dice thrown together)",
        )
    n_dice = int(rolls_df["n_dice"].iloc[0])
    if n_dice < 2 or (rolls_df["n_dice"] != n_dice).any():
        raise SpecError(
            out,
            "variant",
            f"the roll-off variant '{rolloff_variant}' must throw the same several dice every throw "
            f"(it has {sorted(set(rolls_df['n_dice']))} dice)",
        )
    rolls = [r for r in (roll_faces(rec) for rec in rolls_df.to_dict("records")) if r is not None]
    report = {
        "variant": variant,
        "n_faces": n,
        "stars": stars,
        "faces": face_rates,
        "scenario_roll": scenario,
        "rolloff": _rolloff(rolls, stars, conf, n_dice, rolloff_variant, len(rolls_df)),
    }
    write_atomic(out / "sda-rolloff.json", json.dumps(report, indent=1, default=float))
    return report


def _rolloff(
    rolls: list[list[str]], stars: dict[str, int], conf: float, n_dice: int, variant: str, thrown: int
) -> dict:
    """The roll-off played through the recorded rolls, and the exact odds for independent dice."""
    import numpy as np

    from sim.experiments.statistics import mean_interval, wilson

    totals = [sum(stars.get(f, 0) for f in r) for r in rolls]
    attempts, ties, rolls_needed, tries = 0, 0, [], 0
    for k in range(0, len(totals) - 1, 2):
        attempts += 1
        tries += 1
        if totals[k] == totals[k + 1]:
            ties += 1
            continue
        rolls_needed.append(tries)
        tries = 0
    dice_faces = [f for r in rolls for f in r]
    m = len(dice_faces)
    p: dict[int, float] = {}
    for f in set(dice_faces):
        p[stars.get(f, 0)] = p.get(stars.get(f, 0), 0.0) + dice_faces.count(f) / m
    one = np.zeros(max(p, default=0) + 1)
    for v, q in p.items():
        one[v] += q
    dist = np.ones(1)
    for _ in range(n_dice):
        dist = np.convolve(dist, one)
    p_tie = float(np.sum(dist**2))
    return {
        "variant": variant,
        "dice_per_roll": n_dice,
        "rolls": len(rolls),
        "rerolled_unsettled": thrown - len(rolls),
        "faces": {f: wilson(dice_faces.count(f), m, conf).as_dict() for f in sorted(set(dice_faces))},
        "attempts": attempts,
        "tie_rate": wilson(ties, attempts, conf).as_dict() if attempts else None,
        "rolls_per_rolloff": mean_interval(np.array(rolls_needed, float), conf, "t").as_dict()
        if len(rolls_needed) > 1
        else None,
        "exact_tie_probability": p_tie,
        "exact_rolls_per_rolloff": 1.0 / (1.0 - p_tie) if p_tie < 1 else float("inf"),
        "star_total_distribution": {str(i): float(x) for i, x in enumerate(dist)},
    }
