"""How soon the studio answers a released slider, beside the quickstart's time in the same run.

Usage: python benchmarks/studio_latency.py [--bank DIR] [--bank-throws N] [--repeats R]
           [--set KEY=VALUE ...] [--slider KEY=FROM:TO] [--json]

The designer's move (the default): the base game at Hard for four casual heroes (`--set
difficulty=hard --set party.size=4`), "extra white dice" released at 4 after 0 (`--slider
house_rules.extra_white_dice=0:4`). First the bank is completed for both settings (recorded if it lacks a scenario: not timed,
its time is printed apart), then `dfsim studio` is started as the user starts it and the slider's
release is posted as the page posts it (`POST /api/play`), the job polled every 10 ms: the time to the
first answer and to a 95 % interval of ±3 points (the page polls every 200 ms, so it shows each at most
0.2 s later). Each repeat starts a fresh studio (no game kept from an earlier repeat), answers the
slider at 0, then releases it at 4: the time measured is the second answer's. Then the quickstart (`dfsim run experiments/quickstart.toml`, empty cache) is timed, and every time is also
given as a share of it.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from sim.games.engine import run_games
from sim.games.spec import load_game
from sim.games.throw_bank import ThrowBank, die_alias, play

ROOT = Path(__file__).resolve().parents[1]
DFSIM = [sys.executable, "-m", "sim.cli"]
SETTING = {"difficulty": "hard", "party.size": 4}
SLIDER = ("house_rules.extra_white_dice", 0, 4)
HALF = 0.03  # ±3 points
CAP = 20_000


def complete_bank(bank: ThrowBank, seed: int, games: int, setting: dict, slider: tuple) -> float:
    """Record what the bank lacks for both slider positions (seconds taken)."""
    t0 = time.monotonic()
    key, *values = slider
    for v in values:
        spec = load_game("base", setting | {key: v}).with_seed(seed)
        alias = die_alias(spec.throws.colored_die, spec.throws.white_die)
        play(lambda src, spec=spec: run_games(spec, src, games, "default"), bank, seed, alias)
    return time.monotonic() - t0


def post(url: str, data: dict) -> dict:
    req = urllib.request.Request(url, json.dumps(data).encode(), {"Content-Type": "application/json"})
    return json.load(urllib.request.urlopen(req, timeout=60))


def get(url: str) -> dict:
    return json.load(urllib.request.urlopen(url, timeout=60))


def release(base: str, seed: int, fixed: dict, key: str, value) -> dict:
    """Post one slider release and poll its job: seconds to the first answer and to ±3 points."""
    setting = {"seed": seed, "set": fixed | {key: value}}
    t0 = time.perf_counter()
    job = post(base + "api/play", {"setting": setting, "target": HALF, "cap": CAP})["job"]
    first = three = None
    n_first = n_three = 0
    while True:
        snap = get(base + f"api/job/{job}")
        now = time.perf_counter() - t0
        r = snap["result"]
        if first is None and r.get("n"):
            first, n_first = now, r["n"]
        w = r.get("summary", {}).get("won")
        if three is None and w and r["n"] >= 100 and (w["hi"] - w["lo"]) / 2 <= HALF:
            three, n_three = now, r["n"]
        if snap["state"] not in ("queued", "running"):
            break
        time.sleep(0.01)
    if snap["state"] != "done":
        raise SystemExit(f"studio job ended {snap['state']}: {snap['error']}")
    won = r["summary"]["won"]
    return {"seed": seed, key: value, "first_answer_s": round(first, 3), "first_games": n_first,
            "pm3_s": round(three, 3) if three is not None else None, "pm3_games": n_three,
            "rate": won["rate"], "lo": won["lo"], "hi": won["hi"], "games": r["n"]}


def quickstart(work: Path) -> float:
    env = {**os.environ, "DFSIM_CACHE_DIR": str(work / "cache")}
    t0 = time.monotonic()
    subprocess.run([*DFSIM, "run", str(ROOT / "experiments" / "quickstart.toml"), "--out", str(work / "qs"), "--quiet"],
                   cwd=work, env=env, check=True, capture_output=True)
    return time.monotonic() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bank", help="bank folder (default: the user's, $DFSIM_BANK or ~/.cache/dfsim/throw-bank)")
    ap.add_argument("--bank-throws", type=int, default=None, help="throws per scenario (default: the bank's precision rule)")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="the setting (default: Hard, 4 heroes)")
    ap.add_argument("--slider", metavar="KEY=FROM:TO", help="the control moved (default: extra white dice 0:4)")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    fixed = {k: json.loads(v) if v[:1] in "-0123456789tf" else v for k, v in (x.split("=", 1) for x in a.set)} or SETTING
    slider = SLIDER
    if a.slider:
        key, _, span = a.slider.partition("=")
        lo, _, hi = span.partition(":")
        slider = (key, json.loads(lo), json.loads(hi))
    bank = ThrowBank(a.bank, a.bank_throws)
    seed = 1
    build_s = complete_bank(bank, seed, 2000, fixed, slider)  # the stop at ±3 points comes within about 1,100 games
    print(f"bank {bank.dir}: complete for both settings ({build_s:.0f} s, not timed below)", file=sys.stderr)
    cmd = [*DFSIM, "studio", "--bank", str(bank.dir)] + (["--bank-throws", str(a.bank_throws)] if a.bank_throws else [])
    runs = []
    for _ in range(a.repeats):
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        try:
            base = p.stdout.readline().split()[2]
            get(base + "api/state")
            before = release(base, seed, fixed, slider[0], slider[1])  # where it stood: answered, then moved
            after = release(base, seed, fixed, slider[0], slider[2])
        finally:
            p.terminate()
            p.wait(timeout=30)
        runs.append({"before": before, "after": after})
        print(f"{slider[0]} {slider[1]} -> {slider[2]}: first answer {after['first_answer_s']} s ({after['first_games']} games), "
              f"±3 points {after['pm3_s']} s ({after['pm3_games']} games); "
              f"{100 * after['rate']:.1f} % [{100 * after['lo']:.1f}, {100 * after['hi']:.1f}]", file=sys.stderr)
    with tempfile.TemporaryDirectory() as work:
        qs = quickstart(Path(work))
    first = sorted(r["after"]["first_answer_s"] for r in runs)
    three = sorted(r["after"]["pm3_s"] for r in runs if r["after"]["pm3_s"] is not None)
    out = {
        "quickstart_s": round(qs, 2),
        "first_answer_s_median": first[len(first) // 2],
        "pm3_s_median": three[len(three) // 2] if three else None,
        "first_answer_per_quickstart": round(first[len(first) // 2] / qs, 4),
        "pm3_per_quickstart": round(three[len(three) // 2] / qs, 4) if three else None,
        "setting": fixed,
        "slider": list(slider),
        "bank_throws": a.bank_throws,
        "cores": os.cpu_count(),
        "load_1min_at_end": round(os.getloadavg()[0], 2),
        "runs": runs,
    }
    if a.json:
        print(json.dumps(out))
    else:
        print("\n".join(f"{k}: {v}" for k, v in out.items() if k != "runs"))


if __name__ == "__main__":
    main()
