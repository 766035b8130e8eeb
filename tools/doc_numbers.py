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


GAME_BANK: Path | None = None  # --bank: the throw bank of the game blocks (else one in the work folder)


def game_bank(work: Path) -> Path:
    """The throw bank the game blocks play on: --bank, else `game-bank` in the work folder (recorded
    on first use: a fresh bank for a fresh measurement)."""
    return GAME_BANK if GAME_BANK is not None else work / "game-bank"


def game_win_rates(work: Path) -> str:
    bank = game_bank(work)  # the ladder's bank: its throws per scenario, recorded on first use
    common = f"--bank {bank} --bank-throws {LADDER_THROWS} --seed 7"

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

    white = tune_answer(f"{tune} --set difficulty=hard --set house_rules.extra_white_dice=0:7 --integer --target 0.5")
    life = tune_answer(f"{tune} --set house_rules.monster_life_bonus=-20:0 --integer --target 0.5")
    return (f"`python tools/doc_numbers.py --only game-win-rates` (a bank of {LADDER_THROWS} throws per scenario, "
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


# the ladder's blocks (docs/game.md): one study run feeds the win rates, strong's gain and what Hard costs
LADDER_THROWS = 500  # throws per bank scenario in the ladder's blocks
STRONG_TUNE_GAMES = 1500  # the designer's question under strong: games in all (hundreds of rollouts each)
LADDER_STUDY = ("--parties 3-casual 4-casual 3-expert --difficulties normal hard inferno --life -8 0 "
                "--games 2000 --strong-games 400 --strong-games-lost 100")
RUNG_ORDER = ("first-time", "classic", "default", "strong")
DIFFICULTIES = ("normal", "hard", "inferno")


def strong_base() -> str:
    """The name of strong's base alone (default with strong's knobs): measured beside the rungs, it
    says which part of strong's gain the rollouts add."""
    from sim.games.strong import BASE_KNOBS

    return "default:" + ",".join(f"{k}={v}" for k, v in BASE_KNOBS.items())


def _ladder(work: Path) -> dict:
    """The ladder study's cells (run once per work folder and bank; kept as work/ladder.json)."""
    bank = game_bank(work)
    args = f"{LADDER_STUDY} --extra {strong_base()} --bank-throws {LADDER_THROWS}"
    out = work / "ladder.json"
    if out.is_file():
        kept = json.loads(out.read_text())
        if kept.get("command", "").startswith(args) and kept.get("complete"):
            return kept  # else the study resumes after the cells the file holds
    sh(f"{sys.executable} studies/policy_ladder.py {args} --bank {bank} --out {out} --workers 2", ROOT, timeout=86400)
    return json.loads(out.read_text())


def _pct(w: dict) -> str:
    return f"{100 * w['rate']:.1f} % [{100 * w['lo']:.1f}, {100 * w['hi']:.1f}]"


def _pts(e: dict) -> str:
    return f"{100 * e['value']:+.1f} [{100 * e['lo']:+.1f}, {100 * e['hi']:+.1f}]"


def ladder_win_rates(work: Path) -> str:
    data = _ladder(work)
    cells = {(c["size"], c["skill"], c["difficulty"], c["life"]): c for c in data["cells"]}
    parties = list(dict.fromkeys((c["size"], c["skill"]) for c in data["cells"]))
    base = strong_base()
    strong_n = int(LADDER_STUDY.split("--strong-games ")[1].split()[0])
    games = int(LADDER_STUDY.split("--games ")[1].split()[0])
    lost_n = int(LADDER_STUDY.split("--strong-games-lost ")[1].split()[0])
    lines = [f"`python tools/doc_numbers.py --only ladder-win-rates` runs `python studies/policy_ladder.py "
             f"{LADDER_STUDY} --extra {base}` on a bank of {LADDER_THROWS} throws per scenario (seed 1): "
             f"{games:,} games per cell for the rule-based rungs, {strong_n:,} for `strong` (fewer where marked: "
             f"{lost_n} where `default` wins under 1 % of its games, so no rung can show a gain). Win rates with 95 % "
             "Wilson intervals:"]
    for life, title in ((0, "The printed game"), (-8, "Every monster's life -8 (`house_rules.monster_life_bonus=-8`)")):
        lines += ["", f"{title}:", "", "| party | rung | Normal | Hard | Inferno |", "| --- | --- | --- | --- | --- |"]
        for size, skill in parties:
            for rung in RUNG_ORDER:
                row = []
                for d in DIFFICULTIES:
                    c = cells.get((size, skill, d, life))
                    if c is None or rung not in c["won"]:
                        row.append("")
                        continue
                    n = c["games"][rung]
                    row.append(_pct(c["won"][rung]) + (f" ({n} games)" if rung == "strong" and n != strong_n else ""))
                if any(row):  # a rung or party not played in this setting has no row
                    lines.append(f"| {size} {skill} | {rung} | " + " | ".join(row) + " |")
    lines += ["", f"`strong` minus `default`, and strong's base alone (`{base}`) minus `default`, paired on the "
              "games both played (points, Newcombe's interval; n: strong's games):", "",
              "| party | monster life | difficulty | strong - default | base - default | strong - base | n |",
              "| --- | --- | --- | --- | --- | --- | --- |"]
    for life in (0, -8):
        for size, skill in parties:
            for d in DIFFICULTIES:
                c = cells.get((size, skill, d, life))
                if c is None or "strong" not in c["minus_default"]:
                    continue
                md = c["minus_default"]
                sb = c.get("strong_minus", {}).get(base)
                lines.append(f"| {size} {skill} | {life:+d} | {d} | {_pts(md['strong'])} | "
                             f"{_pts(md[base]) if base in md else ''} | {_pts(sb) if sb else ''} | "
                             f"{md['strong']['n']} |")
    lines += ["", "What Hard costs (Normal minus Hard, paired on game k) for three and for four casual heroes, "
              "and the difference (three minus four, game by game: a paired mean with a normal 95 % interval; "
              "points):", "", "| monster life | rung | three heroes | four heroes | three minus four |",
              "| --- | --- | --- | --- | --- |"]
    for h in data["hard_cost"]:
        if h["skill"] != "casual" or h["policy"] not in RUNG_ORDER:
            continue
        lines.append(f"| {h['life']:+d} | {h['policy']} | {_pts(h['drop_3'])} | {_pts(h['drop_4'])} | "
                     f"{_pts(h['three_minus_four'])} |")
    return "\n".join(lines) + "\n"


def tune_answer(cmd: str) -> str:
    """A tune's answer: its first line, or its one-line refusal when no value in the range reaches the
    target (exit 3: that is an answer too)."""
    argv = shlex.split(cmd)
    argv[0] = str(BIN / "dfsim")
    p = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=86400)
    if p.returncode == 3 and "not inside the response" in p.stderr:
        return p.stderr.strip().splitlines()[-1]
    if p.returncode != 0:
        sys.exit(f"doc_numbers: `{cmd}` exited {p.returncode}: {p.stderr.strip()}")
    return p.stdout.strip().splitlines()[0]


NOT_BRACKETED = re.compile(r"(?P<v>\d\.\d+) \[(?P<lo>\d\.\d+), (?P<hi>\d\.\d+)\] at (?P<at>-?\d+) \(n=(?P<n>\d+)\)")


def _tune_cell(answer: str) -> str:
    """A tune's answer in a table cell: the value with its interval, or "not bracketed" with both ends."""
    if "not inside the response" in answer:
        ends = [f"{100 * float(m['v']):.1f} % [{100 * float(m['lo']):.1f}, {100 * float(m['hi']):.1f}] at "
                f"{m['at']} (n={m['n']})" for m in NOT_BRACKETED.finditer(answer)]
        side = "below" if "below" in answer else "above" if "above" in answer else "outside"
        return f"not bracketed ({side}): " + ", ".join(ends)
    m = re.search(r"= (?P<v>-?\d+(?:\.\d+)?) \[(?P<lo>-?\d+(?:\.\d+)?), (?P<hi>-?\d+(?:\.\d+)?)\]", answer)
    trials = re.search(r"after (\d+) of", answer)
    return (f"{m['v']} [{m['lo']}, {m['hi']}]" if m else answer) + (f" ({trials[1]} games)" if trials else "")


def ladder_designer(work: Path) -> str:
    bank = game_bank(work)
    cmd = ("dfsim tune --game base --set difficulty=hard --set party.size=4 --set house_rules.extra_white_dice=0:7 "
           "--integer --target 0.5")
    lines = [f"The designer's question per rung (`{cmd} --policy RUNG`, and with `--set "
             f"house_rules.monster_life_bonus=-8`; `strong` with `--budget {STRONG_TUNE_GAMES}` games in all, its "
             "games costing hundreds of rollouts each, and `--bank-replicates 0`: its interval is the tune's own, "
             "without the bank's part, which would replay the values around the answer on 8 bootstrap banks, "
             "8,000 strong games; a bank of "
             f"{LADDER_THROWS} throws per scenario; made by `python tools/doc_numbers.py --only ladder-designer`): "
             "the number of extra white dice that makes Hard a coin flip for four casual heroes, with its 95 % "
             "interval, or \"not bracketed\" with the win rate at both ends of the range:", "",
             "| rung | printed game | every monster's life -8 |", "| --- | --- | --- |"]
    for rung in RUNG_ORDER:
        cells = []
        for extra in ("", " --set house_rules.monster_life_bonus=-8"):
            # strong: the bank's part would replay the values around the answer on 8 bootstrap banks
            # (8,000 strong games, hours): its answer carries the tune's own interval only, said so
            budget = f" --budget {STRONG_TUNE_GAMES} --bank-replicates 0" if rung == "strong" else ""
            full = f"{cmd}{extra} --policy {rung}{budget} --bank {bank} --bank-throws {LADDER_THROWS}"
            kept = work / f"designer-{rung}{'-life-8' if extra else ''}.txt"  # a second make reuses it
            if not (kept.is_file() and kept.read_text().startswith(full + "\n")):
                kept.write_text(full + "\n" + tune_answer(full) + "\n")
            cells.append(_tune_cell(kept.read_text().splitlines()[1]))
        lines.append(f"| {rung} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


# the house rules played at game level: those the bank answers from the throws it holds (a classification
# or throw rule needs every scenario recorded again under it, about thirty at the ladder's size)
GAME_HOUSE_RULES = ("extra_white_dice=1", "extra_white_dice=2", "retrieval_half_damage=true")


def game_house_rules(work: Path) -> str:
    bank = game_bank(work)
    args = "--games 2000 --strong-games 200 --party 4-casual --difficulty normal --life 0 -8"
    args += f" --rules {' '.join(GAME_HOUSE_RULES)} --bank-throws {LADDER_THROWS}"
    out = work / "game-house-rules.json"  # kept: a second make of the block in the same work folder reuses it
    if not (out.is_file() and json.loads(out.read_text()).get("command", "").startswith(args)):
        sh(f"{sys.executable} studies/game_house_rules.py {args} --bank {bank} --out {out} --workers 2", ROOT,
           timeout=86400)
    rows = json.loads(out.read_text())["rows"]
    heads = [(r["life"], r["policy"], r["games"]) for r in rows]
    lines = [f"`python studies/game_house_rules.py {args}` (a bank of {LADDER_THROWS} throws per scenario; made "
             "by `python tools/doc_numbers.py --only game-house-rules`): four casual heroes at Normal, each house "
             "rule alone, its paired effect on the win rate against the printed rules (points, Newcombe's "
             "interval) per rung. These are the house rules the bank answers from the throws it already holds; "
             "a rule that changes how a throw is read or made (holes inactive, bones in the outer section, partial "
             "templates, no bounce, two bounces) needs every scenario recorded again under it, about thirty "
             "at this size (`python studies/game_house_rules.py --rules holes_inactive=true ...` does it); its "
             "effect on a fight is in docs/fights.md:", "",
             "| house rule | " + " | ".join(f"{p}, monster life {life:+d} ({n} games)" for life, p, n in heads) + " |",
             "| --- |" + " --- |" * len(heads),
             "| as printed (win rate) | " + " | ".join(_pct(r["won"]["as printed"]) for r in rows) + " |"]
    for rule in rows[0]["minus_printed"]:
        lines.append(f"| `{rule}` | " + " | ".join(_pts(r["minus_printed"][rule]) for r in rows) + " |")
    return "\n".join(lines) + "\n"


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
    Block("ladder-win-rates", "docs/game.md", True, ladder_win_rates),
    Block("ladder-designer", "docs/game.md", True, ladder_designer),
    Block("game-house-rules", "docs/game.md", True, game_house_rules),
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
    ap.add_argument("--bank", type=Path, help="the throw bank of the game blocks (default: one recorded in the "
                    "work folder on first use)")
    args = ap.parse_args(argv)
    global GAME_BANK
    GAME_BANK = args.bank
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
