"""Super Dungeon Arena roll-offs from a free-roll run: scenario roll and roll-off odds."""

from __future__ import annotations

import json

SDA_SCENARIOS = {"blank": "Destruction", "star": "King of the Hill", "2-star": "Crystal Capture", "heart": "Crystal Capture"}


def sda_rolloff(out_dir, stars: dict[str, int] | None = None, variant: str = "blue-die") -> dict:
    """Super Dungeon Arena from the free-roll records of one blue die (experiments/sda-rolloff.toml):
    the scenario roll's odds, and the player-one roll-off played through the recorded faces in throw
    order (3 dice each, six faces per attempt, ties rerolled), next to the exact answer for
    independent dice with the measured face frequencies."""

    import numpy as np
    import pyarrow.parquet as pq

    from sim.errors import SpecError
    from sim.experiments.statistics import mean_interval, wilson

    stars = stars or {"star": 1, "2-star": 2}
    from sim.files import results_folder

    out = results_folder(out_dir, "RESULTS", ("records.parquet", "summary.json"))
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
    p: dict[int, float] = {}
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
    from sim.files import write_atomic

    write_atomic(out / "sda-rolloff.json", json.dumps(report, indent=1, default=float))
    return report


