"""How soon the studio answers a released slider, beside the quickstart's time in the same run.

Usage: python benchmarks/studio_latency.py [--bank DIR] [--bank-throws N] [--workers W] [--games G]
           [--repeats R] [--move a|b ...] [--set KEY=VALUE ... --slider KEY=FROM:TO]
           [--quickstart-s SECONDS] [--json]

Two moves by default, each timed from the slider's release to the first answer and to a 95 % interval
of ±3 points (the interval the page shows: the games' part and the bank's own part in quadrature):

  (a) the base game at Hard for four casual heroes, "extra white dice" released at 4 after 0 (the
      designer's move; the win rate stays near 0);
  (b) the base game at Normal for three casual heroes, "monster life" released at -8 after 0 (a win
      rate near one half: the slowest to narrow).

First the bank is completed for both positions of each slider by `dfsim game` itself (`--games G`,
its bank part included), with its own progress on stderr: not timed, its time printed apart. The bank
is `--bank`, else $DFSIM_BANK, else the user's (~/.cache/dfsim/throw-bank), in the bank's current
format; `--bank-throws` sizes its entries (default: the bank's precision rule). Then for each repeat
`dfsim studio` is started as the user starts it, the slider at its first value is posted as the page
posts it (`POST /api/play`) and answered to the end, then its release at the second value is posted
and that job polled every 10 ms: the times measured are the second answer's (the page polls every
200 ms, so it shows each at most 0.2 s later). Then the quickstart (`dfsim run
experiments/quickstart.toml`, empty cache) is timed, unless `--quickstart-s` gives a time measured
elsewhere on the same machine, and every time is also given as a multiple of it. CPU seconds of the
studio process beside each wall time (a shared machine's wall time depends on what else runs).

    nice -n 19 python benchmarks/studio_latency.py --bank-throws 40 --games 300 --repeats 1 --workers 1
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

from sim.games.throw_bank import ThrowBank
from sim.studio.play import half_width

ROOT = Path(__file__).resolve().parents[1]
DFSIM = [sys.executable, "-m", "sim.cli"]
MOVES: dict[str, tuple[str, dict[str, Any], tuple[str, Any, Any]]] = {
    "a": ("Hard, 4 casual heroes, extra white dice 0 -> 4",
          {"difficulty": "hard", "party.size": 4, "throws.skill": "casual"}, ("house_rules.extra_white_dice", 0, 4)),
    "b": ("Normal, 3 casual heroes, monster life 0 -> -8",
          {"difficulty": "normal", "party.size": 3, "throws.skill": "casual"}, ("house_rules.monster_life_bonus", 0, -8)),
}
HALF = 0.03  # ±3 points
CAP = 20_000


def set_words(setting: dict[str, Any]) -> list[str]:
    return [w for k, v in setting.items() for w in ("--set", f"{k}={json.dumps(v) if not isinstance(v, str) else v}")]


def complete_bank(bank: Path, throws: int | None, workers: int | None, seed: int, games: int,
                  setting: dict[str, Any], slider: tuple[str, Any, Any]) -> float:
    """Record what the bank lacks for both slider positions, as `dfsim game` does (its games and its
    bank part's bootstrap replays), its progress on stderr; seconds taken."""
    t0 = time.monotonic()
    key, *values = slider
    for v in values:
        cmd = [*DFSIM, "game", "base", "--games", str(games), "--seed", str(seed), *set_words(setting | {key: v}),
               "--bank", str(bank)]
        cmd += ["--bank-throws", str(throws)] if throws else []
        cmd += ["--workers", str(workers)] if workers else []
        print("benchmark: " + " ".join(cmd[2:]), file=sys.stderr, flush=True)
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return time.monotonic() - t0


def post(url: str, data: dict) -> dict:
    req = urllib.request.Request(url, json.dumps(data).encode(), {"Content-Type": "application/json"})
    return json.load(urllib.request.urlopen(req, timeout=60))


def get(url: str) -> dict:
    return json.load(urllib.request.urlopen(url, timeout=60))


def cpu_s(pid: int) -> float | None:
    """User + system CPU seconds of a process so far (Linux /proc; None elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return None


def shown_half(r: dict[str, Any]) -> float | None:
    """The half-width of the interval the page shows once the answer is whole (None before): with the
    bank's part when the studio replays bootstrap banks."""
    s = r.get("summary")
    if not s or r.get("n", 0) < 100:
        return None
    if r.get("bank_replicates"):
        wb = s.get("won_with_bank")
        return half_width(wb) if wb and wb.get("complete") else None
    return half_width(s["won"])


def release(base: str, pid: int, seed: int, fixed: dict, key: str, value: Any) -> dict:
    """Post one slider release and poll its job: seconds to the first answer, to the first answer with
    the bank's part and to ±3 points."""
    setting = {"seed": seed, "set": fixed | {key: value}}
    c0 = cpu_s(pid)
    t0 = time.perf_counter()
    job = post(base + "api/play", {"setting": setting, "target": HALF, "cap": CAP})["job"]
    first = banked = three = None
    n_first = n_three = 0
    while True:
        snap = get(base + f"api/job/{job}")
        now = time.perf_counter() - t0
        r = snap["result"]
        if first is None and r.get("n"):
            first, n_first = now, r["n"]
        wb = r.get("summary", {}).get("won_with_bank")
        if banked is None and wb and wb.get("complete"):
            banked = now
        h = shown_half(r)
        if three is None and h is not None and h <= HALF:
            three, n_three = now, r["n"]
        if snap["state"] not in ("queued", "running"):
            break
        time.sleep(0.01)
    c1 = cpu_s(pid)
    if snap["state"] != "done":
        raise SystemExit(f"studio job ended {snap['state']}: {snap['error']}")
    won = r["summary"]["won"]
    wb = r["summary"].get("won_with_bank") or {}
    return {"seed": seed, key: value, "first_answer_s": round(first, 3), "first_games": n_first,
            "with_bank_part_s": round(banked, 3) if banked is not None else None,
            "pm3_s": round(three, 3) if three is not None else None, "pm3_games": n_three,
            "studio_cpu_s": round(c1 - c0, 2) if c0 is not None and c1 is not None else None,
            "rate": won["rate"], "lo": wb.get("lo", won["lo"]), "hi": wb.get("hi", won["hi"]),
            "bank_half_width": wb.get("bank_half_width"), "games_half_width": wb.get("games_half_width"),
            "games": r["n"], "stopped": r["stopped"],
            "recorded_while_timed": snap["progress"].get("recorded", 0)}


def quickstart(work: Path) -> tuple[float, float]:
    """Wall and CPU seconds of the quickstart from an empty cache."""
    env = {**os.environ, "DFSIM_CACHE_DIR": str(work / "cache")}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    subprocess.run([*DFSIM, "run", str(ROOT / "experiments" / "quickstart.toml"), "--out", str(work / "qs"), "--quiet"],
                   cwd=work, env=env, check=True, capture_output=True)
    wall = time.monotonic() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def median(xs: list[float]) -> float | None:
    xs = sorted(xs)
    return xs[len(xs) // 2] if xs else None


def time_move(label: str, fixed: dict, slider: tuple, a: argparse.Namespace, bank: Path) -> dict[str, Any]:
    """Complete the bank for the move, then time its release in `a.repeats` fresh studios."""
    seed = 1
    build_s = complete_bank(bank, a.bank_throws, a.workers, seed, a.games, fixed, slider)
    print(f"benchmark: bank {bank} complete for {label} ({build_s:.0f} s, not timed below)", file=sys.stderr, flush=True)
    cmd = [*DFSIM, "studio", "--bank", str(bank)] + (["--bank-throws", str(a.bank_throws)] if a.bank_throws else [])
    cmd += ["--workers", str(a.workers)] if a.workers else []
    runs = []
    for _ in range(a.repeats):
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        try:
            base = p.stdout.readline().split()[2]
            get(base + "api/state")
            before = release(base, p.pid, seed, fixed, slider[0], slider[1])  # where it stood: answered, then moved
            after = release(base, p.pid, seed, fixed, slider[0], slider[2])
        finally:
            p.terminate()
            p.wait(timeout=30)
        runs.append({"before": before, "after": after})
        print(f"benchmark: {label}: first answer {after['first_answer_s']} s ({after['first_games']} games), "
              f"±3 points {after['pm3_s']} s ({after['pm3_games']} games); {100 * after['rate']:.1f} % "
              f"[{100 * after['lo']:.1f}, {100 * after['hi']:.1f}], stopped: {after['stopped']}", file=sys.stderr, flush=True)
    after = [r["after"] for r in runs]
    return {
        "move": label, "setting": fixed, "slider": list(slider), "bank_build_s": round(build_s, 1),
        "first_answer_s": median([r["first_answer_s"] for r in after]),
        "with_bank_part_s": median([r["with_bank_part_s"] for r in after if r["with_bank_part_s"] is not None]),
        "pm3_s": median([r["pm3_s"] for r in after if r["pm3_s"] is not None]),
        "pm3_games": median([r["pm3_games"] for r in after if r["pm3_s"] is not None]),
        "studio_cpu_s": median([r["studio_cpu_s"] for r in after if r["studio_cpu_s"] is not None]),
        "runs": runs,
    }


def parse_value(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return text


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bank", help="bank folder (default: $DFSIM_BANK, else ~/.cache/dfsim/throw-bank)")
    ap.add_argument("--bank-throws", type=int, default=None, help="throws per scenario (default: the bank's precision rule)")
    ap.add_argument("--workers", type=int, default=None, help="worker processes recording the bank (default: all cores)")
    ap.add_argument("--games", type=int, default=2000, help="games dfsim game plays to complete the bank (default 2000)")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--move", action="append", choices=sorted(MOVES), help="the moves timed (default: a and b)")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="another move's setting (with --slider)")
    ap.add_argument("--slider", metavar="KEY=FROM:TO", help="another move's control (with --set)")
    ap.add_argument("--quickstart-s", type=float, help="the quickstart's time measured elsewhere on this machine (not run)")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    moves = [MOVES[m] for m in (a.move or sorted(MOVES))]
    if a.slider:
        key, _, span = a.slider.partition("=")
        lo, _, hi = span.partition(":")
        fixed = {k: parse_value(v) for k, v in (x.split("=", 1) for x in a.set)}
        moves = [(f"{', '.join(f'{k}={v}' for k, v in fixed.items())}, {key} {lo} -> {hi}", fixed,
                  (key, parse_value(lo), parse_value(hi)))]
    bank = ThrowBank(a.bank, a.bank_throws).dir  # the folder dfsim would use
    results = [time_move(label, fixed, slider, a, bank) for label, fixed, slider in moves]
    if a.quickstart_s:
        qs, qs_cpu, qs_from = a.quickstart_s, None, "given (--quickstart-s)"
    else:
        with tempfile.TemporaryDirectory() as work:
            qs, qs_cpu = quickstart(Path(work))
        qs_from = "measured in this run"
    for r in results:
        for k in ("first_answer_s", "with_bank_part_s", "pm3_s"):
            r[k.replace("_s", "_per_quickstart")] = round(r[k] / qs, 4) if r[k] is not None else None
    out = {
        "quickstart_s": round(qs, 2), "quickstart_cpu_s": round(qs_cpu, 2) if qs_cpu is not None else None,
        "quickstart": qs_from, "bank": str(bank),
        "bank_throws": a.bank_throws or "by precision", "repeats": a.repeats, "cores": os.cpu_count(),
        "load_1min_at_end": round(os.getloadavg()[0], 2), "moves": results,
    }
    if a.json:
        print(json.dumps(out))
        return
    print(f"quickstart: {out['quickstart_s']} s ({qs_from}); bank {bank}, throws per scenario {out['bank_throws']}; "
          f"{a.repeats} repeat(s), medians; {out['cores']} cores, load {out['load_1min_at_end']} at the end")
    for tag, r in zip("abcdefgh", results, strict=False):
        last = r["runs"][-1]["after"]

        def took(k: str, r: dict = r) -> str:
            if r[k] is None:
                return "not reached"
            return f"{r[k]} s ({r[k.replace('_s', '_per_quickstart')]:.4f} x quickstart)"

        games = f", {r['pm3_games']} games" if r["pm3_s"] is not None else ""
        bank_hw = last["bank_half_width"]
        bank_part = f"±{100 * bank_hw:.1f} points" if bank_hw is not None else "not computed"
        recorded = last["recorded_while_timed"]
        print(f"({tag}) {r['move']}: first answer {took('first_answer_s')}; ±3 points {took('pm3_s')}{games}; "
              f"{100 * last['rate']:.1f} % [{100 * last['lo']:.1f}, {100 * last['hi']:.1f}] (of which the bank's "
              f"{bank_part}); stopped: {last['stopped']}; studio CPU {r['studio_cpu_s']} s"
              + (f"; recorded {recorded} scenarios while timed" if recorded else ""))

if __name__ == "__main__":
    main()
