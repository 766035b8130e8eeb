"""Every number the docs quote, made again: `python tools/doc_numbers.py [--all] [--only NAME] [--write]`.

The docs quote tables and command outputs between markers,

    <!-- numbers: NAME -->
    ... the quoted block ...
    <!-- /numbers -->

and this script knows how to make each block again (the command it runs stands next to the block in
the doc). For every block it prints the numbers quoted and made now: a number quoted with an interval
*holds* when the value made now lies inside that interval; a number without one must be the same as
printed. The cheap blocks (a minute or two on an idle 2-core machine) run by default, `--all` runs
the long ones too (the fight and house-rule studies, the tuner, the timings: about 20 minutes), and
`--write` replaces the blocks by what was made now. Exit status 1 when a quoted number is stale.

Time claims are made by the `timings` block; run it on an idle machine (`uptime`: load well under 1),
as the docs say theirs were.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
BLOCK = re.compile(r"(<!-- numbers: (?P<name>[a-z0-9-]+) -->\n)(?P<body>.*?)(<!-- /numbers -->)", re.S)
# a number with its interval as the docs print them: 57.0 % | 52.1–61.8 %, 22.8 % [21.9, 23.6],
# 0.450   95 % interval 0.438 - 0.463, 0.181731 [0.125, 0.3125]
WITH_INTERVAL = re.compile(
    r"(?P<v>[-+]?\d+(?:\.\d+)?)\s*%?\s*(?:\|\s*|95 % interval\s+|\[)(?P<lo>[-+]?\d+(?:\.\d+)?)\s*%?\s*(?:–|-|,)\s*"
    r"(?P<hi>[-+]?\d+(?:\.\d+)?)\s*%?\]?")
NUMBER = re.compile(r"[-+]?\d+(?:\.\d+)?")


@dataclass(frozen=True)
class Block:
    """One quoted block: the doc it is in, whether it is cheap to make, and how to make it."""

    name: str
    doc: str
    long: bool
    make: Callable[[Path], str]


def sh(cmd: str, cwd: Path, timeout: float = 3600) -> str:
    """Run a dfsim command line (from this environment) in `cwd`; its stdout, or exit with its error."""
    argv = shlex.split(cmd)
    if argv[0] == "dfsim":
        argv[0] = str(BIN / "dfsim")
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    proc = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, check=False)
    if proc.returncode != 0:
        sys.exit(f"doc_numbers: `{cmd}` exited {proc.returncode}: {proc.stderr.strip()[-500:]}")
    return proc.stdout


def fenced(command: str, output: str, keep: int | None = None) -> str:
    lines = output.rstrip("\n").splitlines()
    if keep is not None and len(lines) > keep:
        lines = [*lines[:keep], "..."]
    return "```\n$ " + command + "\n" + "\n".join(lines) + "\n```\n"


# ------------------------------------------------------------------ the blocks
def calibrate_example(work: Path) -> str:
    cmd = "dfsim calibrate examples/calibration/kitchen-table.toml --out kitchen-table.toml"
    out = sh(cmd.replace("--out kitchen-table.toml", f"--out {work / 'kitchen-table.toml'}"), ROOT)
    return fenced(cmd, out.replace(str(work / "kitchen-table.toml"), "kitchen-table.toml"), keep=9)


def fit_skill_example(work: Path) -> str:
    cmd = "dfsim fit-skill examples/calibration/alice.toml --throws 200 --out alice-skill.toml"
    out = sh(cmd.replace("--out alice-skill.toml", f"--out {work / 'alice-skill.toml'}"), ROOT)
    return fenced(cmd, out.replace(str(work / "alice-skill.toml"), "alice-skill.toml"))


def skill_table(work: Path) -> str:
    out = sh(f"{sys.executable} studies/calibrate_skills.py 400 --table", ROOT)
    return out


def tune_skill(work: Path) -> str:
    cmd = "dfsim tune --set skill.speed_sd_frac=0:1 --target 0.4 --budget 1200 --initial-n 32 --tolerance 0.05"
    return fenced(cmd, sh(cmd + f" --out {work / 'tune'}", ROOT).replace(str(work / "tune"), "results/tune"), keep=6)


def _fight_throws(work: Path) -> Path:
    out = work / "fight-throws"
    if not (out / "records.parquet").is_file():
        sh(f"dfsim run fight-throws --out {out} --workers 2 --quiet", ROOT)
    return out


def fight_throws(work: Path) -> str:
    records = _fight_throws(work)
    summary = json.loads((records / "summary.json").read_text())
    rates = {v["name"]: v["hit_rate"]["rate"] for v in summary["variants"]}
    rows = [("as printed (casual)", ""), ("`house_rules.extra_white_dice=2`", "--set house_rules.extra_white_dice=2"),
            ("`house_rules.monster_life_bonus=-3` (the Firewall without the Lost Treasure)",
             "--set house_rules.monster_life_bonus=-3"),
            ("`throws.skill=expert`", "--set throws.skill=expert"),
            ("expert, `difficulty=hard`", "--set throws.skill=expert --set difficulty=hard")]
    lines = [f"The reference fight on the records of `dfsim run fight-throws` (seed 8008; Firewall shot: casual "
             f"{100 * rates['firewall-casual']:.1f} % hits, expert {100 * rates['firewall-expert']:.1f} %), "
             "10,000 fights each (`dfsim fight reference --records results/fight-throws --fights 10000 --set ...`):",
             "", "| variation | won (95 %) |", "|---|---|"]
    for label, extra in rows:
        s = json.loads(sh(f"dfsim fight reference --records {records} --fights 10000 {extra} --json", ROOT))["summary"]
        w = s["won"]
        lines.append(f"| {label} | {100 * w['rate']:.1f} % [{100 * w['lo']:.1f}, {100 * w['hi']:.1f}] |")
    pol = []
    for policy in ("white-first", "retrieve-first"):
        s = json.loads(sh(f"dfsim fight reference --records {records} --fights 10000 --policy {policy} --json",
                          ROOT))["summary"]
        pol.append(f"{100 * s['won']['rate']:.1f} %")
    lines.append(f"| policy `white-first` / `retrieve-first` | {pol[0]} / {pol[1]} |")
    return "\n".join(lines) + "\n"


def tune_fight(work: Path) -> str:
    records = _fight_throws(work)
    cmd = ("dfsim tune reference --records results/fight-throws --set house_rules.monster_life_bonus=-8:3 "
           "--integer --target 0.5 --out results/coin-flip")
    out = sh(cmd.replace("results/fight-throws", str(records)).replace("results/coin-flip", str(work / "coin-flip")), ROOT)
    shown = "dfsim run fight-throws                   # once: the recorded throws the fights resample\n$ " + cmd
    return fenced(shown, out.replace(str(work / "coin-flip"), "results/coin-flip"))


def house_rules(work: Path) -> str:
    out = work / "house-rules"
    if not (out / "report.md").is_file():
        sh(f"dfsim run house-rules --out {out} --workers 2 --quiet", ROOT)
    report = (out / "report.md").read_text().splitlines()
    keep: list[str] = []
    for i, line in enumerate(report):  # the variant table and the paired differences, as the report prints them
        if line.startswith("| variant | monster life | won") or line.startswith("| variant | pairs | won"):
            j = i
            while j < len(report) and report[j].startswith("|"):
                keep.append(report[j])
                j += 1
            keep.append("")
    summary = json.loads((out / "summary.json").read_text())
    throws = json.loads((Path(summary["experiment"]["throws"]["folder"]) / "summary.json").read_text())
    hits = ", ".join(f"{v['name']} {100 * v['hit_rate']['rate']:.1f} %" for v in throws["variants"])
    return (f"`dfsim run house-rules --workers 2`: the throws of `{throws['experiment']['name']}` (seed "
            f"{throws['experiment']['seed']}; hits {hits}), then {summary['total_fights']:,} fights (seed "
            f"{summary['experiment']['seed']}, {summary['experiment']['fights']:,} per variant). Its report.md: "
            "won per variant, then the paired effect against the fight as printed (Normal, casual), 95 %:\n\n"
            + "\n".join(keep).rstrip("\n") + "\n")


def game_win_rates(work: Path) -> str:
    bank = work / "game-bank"  # its own bank (300 throws a scenario), recorded on first use
    common = f"--bank {bank} --bank-throws 300 --seed 7"

    def game(sets: str, games: int = 2000) -> dict:
        return json.loads(sh(f"dfsim game base --games {games} {common} {sets} --json", ROOT))["summary"]

    def pct(w: dict) -> str:
        return f"{100 * w['rate']:.1f} % [{100 * w['lo']:.1f}, {100 * w['hi']:.1f}]"

    rows = ["| party | Normal | Hard | Inferno |", "| --- | --- | --- | --- |"]
    for skill, sizes in (("casual", (3, 4)), ("expert", (3,))):
        for n in sizes:
            cells = [pct(game(f"--set throws.skill={skill} --set party.size={n} --set difficulty={d}")["won"])
                     for d in ("normal", "hard", "inferno")]
            rows.append(f"| {n} {skill} heroes | " + " | ".join(cells) + " |")
    casual = game("--set party.size=4")
    lost = max(casual["lost_where"].items(), key=lambda kv: kv[1]["rate"])
    tune = f"dfsim tune --game base {common} --set party.size=4"

    def answer(cmd: str) -> str:
        """The tune's answer: its first line, or its one-line refusal when no value in the range reaches
        the target (exit 3: that is an answer too)."""
        argv = shlex.split(cmd)
        argv[0] = str(BIN / "dfsim")
        p = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=3600)
        if p.returncode == 3 and "not inside the response" in p.stderr:
            return p.stderr.strip().splitlines()[-1]
        if p.returncode != 0:
            sys.exit(f"doc_numbers: `{cmd}` exited {p.returncode}: {p.stderr.strip()}")
        return p.stdout

    white = answer(f"{tune} --set difficulty=hard --set house_rules.extra_white_dice=0:7 --integer --target 0.5")
    life = answer(f"{tune} --set house_rules.monster_life_bonus=-20:0 --integer --target 0.5")
    return ("`python tools/doc_numbers.py --only game-win-rates` (a bank of 300 throws per scenario, "
            "2,000 games per cell, seed 7, policy default), the whole-game win rate with 95 % Wilson intervals:\n\n"
            + "\n".join(rows) + "\n\n"
            f"Four casual heroes at Normal: {casual['combats']['value']:.1f} combats a game; lost most often at "
            f"the {lost[0]}: {pct(lost[1])} of the games.\n\n"
            "How many extra white dice make Hard a coin flip for a casual party of four (`dfsim tune --game "
            "base --set difficulty=hard --set party.size=4 --set house_rules.extra_white_dice=0:7 --integer "
            "--target 0.5`):\n\n    " + white.strip().splitlines()[0] + "\n\n"
            "How much weaker every monster would have to be for that party to win half its games at Normal "
            "(`... --set house_rules.monster_life_bonus=-20:0 --integer --target 0.5`):\n\n    "
            + life.strip().splitlines()[0] + "\n")


def timings(work: Path) -> str:
    here = work / "timings"  # a fresh folder: a named experiment's throws are not found from an earlier run
    here.mkdir(parents=True, exist_ok=True)

    def wall(cmd: str, cache: Path) -> float:
        t0 = time.monotonic()
        env = {**os.environ, "DFSIM_CACHE_DIR": str(cache)}
        argv = shlex.split(cmd.replace("dfsim", str(BIN / "dfsim"), 1).replace("experiments/", f"{ROOT}/experiments/"))
        subprocess.run(argv, cwd=here, env=env, capture_output=True, check=True)
        return time.monotonic() - t0

    cache = work / "cache"
    rows = [("`dfsim run experiments/quickstart.toml` (empty cache)",
             wall(f"dfsim run experiments/quickstart.toml --out {work / 'qs'} --quiet", cache)),
            ("`dfsim throw --seed 7 --json` (warm cache)", wall("dfsim throw --seed 7 --json", cache)),
            ("`dfsim place --x 0 --y 0 --json` (warm cache)", wall("dfsim place --x 0 --y 0 --json", cache)),
            ("`dfsim run experiments/template-odds.toml`",
             wall(f"dfsim run experiments/template-odds.toml --out {work / 'to'} --quiet", cache)),
            ("`dfsim run fight-throws`", wall(f"dfsim run fight-throws --out {work / 'ft'} --quiet", cache)),
            ("`dfsim run house-rules --workers 2` (its throws included)",
             wall(f"dfsim run house-rules --out {work / 'hr'} --workers 2 --quiet", cache))]
    load = os.getloadavg()[0]
    lines = [f"Wall time on a 2-core machine, load average {load:.1f} at the end (`python tools/doc_numbers.py "
             "--only timings`):", "", "| command | wall time |", "|---|---|"]
    lines += [f"| {label} | {t:.0f} s |" for label, t in rows]
    return "\n".join(lines) + "\n"


BLOCKS = [
    Block("calibrate-example", "docs/calibration.md", False, calibrate_example),
    Block("skill-table", "docs/calibration.md", False, skill_table),
    Block("fit-skill-example", "docs/calibration.md", True, fit_skill_example),
    Block("tune-skill", "docs/tuning.md", True, tune_skill),
    Block("fight-throws", "docs/fights.md", True, fight_throws),
    Block("tune-fight", "docs/tuning.md", True, tune_fight),
    Block("house-rules", "docs/fights.md", True, house_rules),
    Block("game-win-rates", "docs/game.md", True, game_win_rates),
    Block("timings", "docs/experiments.md", True, timings),
]


# ------------------------------------------------------------------ comparing
def quoted(text: str) -> tuple[list[tuple[float, float, float]], list[str]]:
    """The numbers with intervals in a block, and every other number (as printed)."""
    with_iv = [(float(m["v"]), float(m["lo"]), float(m["hi"])) for m in WITH_INTERVAL.finditer(text)]
    rest = NUMBER.findall(WITH_INTERVAL.sub(" ", text))
    return with_iv, rest


def compare(old: str, new: str) -> tuple[bool, list[str]]:
    """(fresh, lines): whether every quoted interval still holds the value made now and every other
    number is as printed; a line per quoted number."""
    (old_iv, old_rest), (new_iv, new_rest) = quoted(old), quoted(new)
    lines, ok = [], True
    if len(old_iv) != len(new_iv):
        return False, [f"  {len(old_iv)} numbers with intervals quoted, {len(new_iv)} made now: the block changed shape"]
    for (v, lo, hi), (nv, _nlo, _nhi) in zip(old_iv, new_iv):
        holds = min(lo, hi) <= nv <= max(lo, hi)
        ok &= holds
        lines.append(f"  quoted {v:g} [{lo:g}, {hi:g}], now {nv:g}: {'holds' if holds else 'STALE'}")
    changed = sum(a != b for a, b in zip(old_rest, new_rest)) + abs(len(old_rest) - len(new_rest))
    if changed:
        ok = False
        lines.append(f"  {changed} of {len(old_rest)} further numbers differ from what is printed: STALE")
    else:
        lines.append(f"  {len(old_rest)} further numbers as printed")
    return ok, lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--all", action="store_true", help="the long blocks too (about 20 minutes)")
    ap.add_argument("--only", action="append", default=[], help="only this block (repeatable)")
    ap.add_argument("--write", action="store_true", help="replace each block by what was made now")
    ap.add_argument("--work", type=Path, help="keep the runs here (default: a temporary folder)")
    args = ap.parse_args(argv)
    names = {b.name for b in BLOCKS}
    for n in args.only:
        if n not in names:
            ap.error(f"--only: no block '{n}' (one of {', '.join(sorted(names))})")
    chosen = [b for b in BLOCKS if (b.name in args.only) if args.only] or [b for b in BLOCKS if args.all or not b.long]
    docs = {b.doc: (ROOT / b.doc).read_text() for b in BLOCKS}
    found = {(m["name"]) for text in docs.values() for m in BLOCK.finditer(text)}
    missing = names - found
    if missing:
        print(f"doc_numbers: no marker in the docs for {', '.join(sorted(missing))}", file=sys.stderr)
        return 2
    stale = 0
    with tempfile.TemporaryDirectory(prefix="dfsim-doc-numbers-") as tmp:
        work = args.work or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        for b in chosen:
            t0 = time.monotonic()
            print(f"{b.name} ({b.doc}): making it again ...", flush=True)
            new = b.make(work)
            m = next(m for m in BLOCK.finditer(docs[b.doc]) if m["name"] == b.name)
            ok, lines = compare(m["body"], new)
            print("\n".join(lines))
            print(f"  -> {'fresh' if ok else 'STALE'} ({time.monotonic() - t0:.0f} s)", flush=True)
            stale += not ok
            if args.write:
                text = docs[b.doc]
                docs[b.doc] = text[:m.start("body")] + new + text[m.end("body"):]
                (ROOT / b.doc).write_text(docs[b.doc])
    skipped = [b.name for b in BLOCKS if b not in chosen]
    if skipped:
        print(f"not made (long; --all or --only NAME): {', '.join(skipped)}")
    print(f"{len(chosen) - stale} of {len(chosen)} blocks fresh" + (" (written)" if args.write else ""))
    return 1 if stale and not args.write else 0


if __name__ == "__main__":
    sys.exit(main())
