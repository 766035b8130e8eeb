"""The first answer a new user waits for: `dfsim game base --games 2000`, the designer's question
(`dfsim tune --game base --set difficulty=hard --set party.size=4 --set house_rules.extra_white_dice=0:7
--integer --target 0.5`) and the quickstart (`dfsim run quickstart`), each from an empty cache and an
empty bank in a temporary folder, in the same run, as seconds and as multiples of the quickstart's time,
with the aim solves, reference throws and recorded throws behind each, and where a part's bank recording
went: the workers' seconds per template set (the entries' own `record_seconds`), and the aims' seconds;
and, for each recording pass the command's display showed, its first line's estimate (every entry at
its floor, and at the rule's widest) against the time the pass took (its bar's last elapsed time).

    python benchmarks/first_answer.py --breakdown BANK       # only the breakdown of a bank already recorded

    python benchmarks/first_answer.py                        # the full sizes (an hour on a busy 2-core box)
    python benchmarks/first_answer.py --parts quickstart game --games 200 --bank-throws 200 --workers 2

Counted from outside the code that solves aims: each command runs with a `sitecustomize` (in the
temporary folder, on PYTHONPATH, so every worker process loads it too) that wraps the aim solver's
reference throws once `sim.engine.aim` is imported and appends their count to a file; aim solves are the
`aim` entries the command left in its empty cache; recorded throws are the rows of the bank's entries
(for the quickstart, its records).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HOOK = """
import os, sys
_path = os.environ.get("DFSIM_BENCH_REFS")

class _Hook:
    def find_spec(self, name, path=None, target=None):
        if name != "sim.engine.aim" or not _path:
            return None
        sys.meta_path.remove(self)
        import importlib.util
        spec = importlib.util.find_spec(name)
        loader = spec.loader
        orig = loader.exec_module

        def exec_module(module):
            orig(module)
            solver = module.AimSolver
            ref = solver.reference_values

            def counted(self, *a, **k):
                out = ref(self, *a, **k)
                with open(_path, "a") as fh:
                    fh.write(f"{len(out)}\\n")
                return out

            solver.reference_values = counted

        loader.exec_module = exec_module
        return spec

if _path:
    sys.meta_path.insert(0, _Hook())
"""

QUESTION = [
    "--set",
    "difficulty=hard",
    "--set",
    "party.size=4",
    "--set",
    "house_rules.extra_white_dice=0:7",
    "--integer",
    "--target",
    "0.5",
]


def commands(args: argparse.Namespace) -> dict[str, list[str]]:
    bank = ["--bank-throws", str(args.bank_throws)] if args.bank_throws else []
    workers = ["--workers", str(args.workers)] if args.workers else []
    tune_extra = ["--budget", str(args.budget)] if args.budget else []
    return {
        "quickstart": ["run", "quickstart", "--out", "quickstart-out", *workers]
        + (["--max-throws", str(args.quickstart_throws)] if args.quickstart_throws else []),
        "game": ["game", "base", "--games", str(args.games), *bank, *workers],
        "tune": ["tune", "--game", "base", *QUESTION, *bank, *tune_extra],
    }


def run_part(name: str, argv: list[str], root: Path, timeout: float | None) -> dict:
    """One command from an empty cache and bank: wall seconds and the counts behind it."""
    home = root / name
    home.mkdir()
    (home / "hook").mkdir()
    (home / "hook" / "sitecustomize.py").write_text(HOOK)
    refs = home / "refs.txt"
    env = dict(
        os.environ,
        DFSIM_CACHE_DIR=str(home / "cache"),
        DFSIM_BANK=str(home / "bank"),
        DFSIM_BENCH_REFS=str(refs),
        PYTHONPATH=os.pathsep.join([str(home / "hook"), os.environ.get("PYTHONPATH", "")]),
    )
    cmd = [sys.executable, "-m", "sim.cli", *argv]
    print(f"[{name}] {' '.join(['dfsim', *argv])}", file=sys.stderr, flush=True)
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=home, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    err: list[str] = []  # the command's display, passed on as it comes and kept to read its passes
    # each pipe has one reader: `communicate` would read (and close) stderr under the tee's feet, taking
    # part of the display the passes are read from
    tee = threading.Thread(target=_tee, args=(proc.stderr, err), daemon=True)
    tee.start()
    kept_out: list[str] = []
    reader = threading.Thread(target=lambda: kept_out.append(proc.stdout.read()), daemon=True)
    reader.start()
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        raise
    tee.join()
    reader.join()
    out = "".join(kept_out)
    wall = time.perf_counter() - t0
    aims = len(list((home / "cache" / "aim").glob("*.json"))) if (home / "cache" / "aim").is_dir() else 0
    ref_throws = sum(int(x) for x in refs.read_text().split()) if refs.exists() else 0
    recorded = 0
    for m in (home / "bank").glob("*.json") if (home / "bank").is_dir() else []:
        recorded += int(json.loads(m.read_text()).get("rows", 0))
    manifest = home / "quickstart-out" / "manifest.json"
    if manifest.exists():
        recorded += int(json.loads(manifest.read_text()).get("throws", 0) or 0)
    return {
        "part": name,
        "status": proc.returncode,
        "seconds": round(wall, 1),
        "aim_solves": aims,
        "reference_throws": ref_throws,
        "recorded_throws": recorded,
        "answer": out.strip().splitlines()[-1] if out.strip() else "",
        "breakdown": breakdown(home / "bank"),
        "passes": recording_passes("".join(err)),
    }


def _tee(stream, kept: list[str]) -> None:
    """Copy a child's stderr to ours as it comes (its bars redraw with carriage returns) and keep it."""
    while True:
        chunk = stream.read(256)
        if not chunk:
            return
        kept.append(chunk)
        sys.stderr.write(chunk)
        sys.stderr.flush()


PASS = re.compile(
    r"recording (?P<n>\d+) scenarios? into .*?~(?P<floor>\d+:\d\d) on \S+ x\d+"
    r"(?: \(up to [\d,]+ throws, ~(?P<widest>\d+:\d\d), if each needs the rule's widest\))?"
)
ELAPSED = re.compile(r"throws \[(?P<t>(?:\d+:)?\d+:\d\d)[,\]]")


def _clock(seconds: int) -> str:
    return f"{seconds // 60}:{seconds % 60:02d}"


def _seconds(clock: str) -> int:
    s = 0
    for part in clock.split(":"):
        s = 60 * s + int(part)
    return s


def recording_passes(text: str) -> list[dict]:
    """Each recording pass a command's display shows: its scenarios, the first line's estimate (every
    entry at its floor, and at the rule's widest) and the time its bar last showed (the pass's own)."""
    starts = list(PASS.finditer(text))
    out = []
    for i, m in enumerate(starts):
        end = starts[i + 1].start() if i + 1 < len(starts) else len(text)
        times = ELAPSED.findall(text[m.end() : end])
        out.append(
            {
                "scenarios": int(m.group("n")),
                "estimate_s": _seconds(m.group("floor")),
                "widest_s": _seconds(m.group("widest")) if m.group("widest") else None,
                "took_s": _seconds(times[-1]) if times else None,
            }
        )
    return out


def breakdown(bank: Path) -> list[dict]:
    """Where a bank's recording went, per template set on the board: entries, throws, the workers'
    seconds throwing them (summed over chunks: CPU-like, not wall) and their share, seconds per throw,
    and the seconds of the entries' aim solves (0 where an aim came from the cache)."""
    groups: dict[str, dict] = {}
    for m in sorted(bank.glob("*.json")) if bank.is_dir() else []:
        entry = json.loads(m.read_text())
        s = entry.get("scenario", {})
        name = "+".join(s.get("templates") or []) or "(none)"
        g = groups.setdefault(
            name, {"templates": name, "entries": 0, "throws": 0, "seconds": 0.0, "aim_seconds": 0.0}
        )
        g["entries"] += 1
        g["throws"] += int(entry.get("rows", 0))
        g["seconds"] += float(entry.get("record_seconds", 0.0))
        g["aim_seconds"] += float(entry.get("aim_seconds", 0.0))
    total = sum(g["seconds"] for g in groups.values()) or 1.0
    rows = sorted(groups.values(), key=lambda g: -g["seconds"])
    for g in rows:
        g["share"] = round(g["seconds"] / total, 3)
        g["ms_per_throw"] = round(1000 * g["seconds"] / g["throws"], 1) if g["throws"] else None
        g["seconds"], g["aim_seconds"] = round(g["seconds"], 1), round(g["aim_seconds"], 1)
    return rows


def print_breakdown(rows: list[dict]) -> None:
    print(
        f"  {'templates on the board':<28}{'entries':>8}{'throws':>8}{'worker s':>10}{'share':>7}{'ms/throw':>10}"
        f"{'aim s':>8}"
    )
    for g in rows:
        print(
            f"  {g['templates']:<28}{g['entries']:>8}{g['throws']:>8}{g['seconds']:>10.1f}{100 * g['share']:>6.0f}%"
            f"{g['ms_per_throw'] or 0:>10.1f}{g['aim_seconds']:>8.1f}"
        )
    chunks, aims = sum(g["seconds"] for g in rows), sum(g["aim_seconds"] for g in rows)
    throws = sum(g["throws"] for g in rows)
    print(
        f"  {'all':<28}{sum(g['entries'] for g in rows):>8}{throws:>8}{chunks:>10.1f}{100:>6.0f}%"
        f"{1000 * chunks / throws if throws else 0:>10.1f}{aims:>8.1f}"
    )


def busy(rows: list[dict], seconds: float, workers: int) -> float:
    """The share of the workers' wall time (the part's seconds times the workers) spent in chunks and
    aim solves: near 1, the recording was the work itself and only less work makes it shorter."""
    return sum(g["seconds"] + g["aim_seconds"] for g in rows) / max(1e-9, seconds * workers)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument(
        "--parts", nargs="+", choices=("quickstart", "game", "tune"), default=["quickstart", "game", "tune"]
    )
    p.add_argument("--games", type=int, default=2000, help="games of `dfsim game base` (default 2000)")
    p.add_argument("--bank-throws", type=int, help="throws per bank scenario (default: the precision rule's)")
    p.add_argument("--budget", type=int, help="the tune's game budget (default: the tuner's)")
    p.add_argument(
        "--quickstart-throws", type=int, help="cap the quickstart's throws per cell (default: none)"
    )
    p.add_argument("--workers", type=int, help="worker processes (default: all cores)")
    p.add_argument("--timeout", type=float, help="seconds before a part is abandoned")
    p.add_argument("--json", action="store_true")
    p.add_argument(
        "--breakdown", type=Path, metavar="BANK", help="only print where this bank's recording went"
    )
    args = p.parse_args(argv)
    if args.breakdown:
        if not args.breakdown.is_dir():
            print(f"first_answer: --breakdown {args.breakdown}: no such bank folder", file=sys.stderr)
            return 2
        rows = breakdown(args.breakdown)
        print(json.dumps(rows, indent=1)) if args.json else print_breakdown(rows)
        return 0
    cmds = commands(args)
    order = (
        ["quickstart", *[x for x in args.parts if x != "quickstart"]]
        if "quickstart" in args.parts
        else args.parts
    )
    rows = []
    with tempfile.TemporaryDirectory(prefix="dfsim-first-answer-") as tmp:
        for name in order:
            rows.append(run_part(name, cmds[name], Path(tmp), args.timeout))
    qs = next((r["seconds"] for r in rows if r["part"] == "quickstart"), None)
    for r in rows:
        r["x_quickstart"] = round(r["seconds"] / qs, 2) if qs else None
    if args.json:
        print(json.dumps({"sizes": vars(args), "parts": rows}, indent=1))
        return 0
    print(
        f"sizes: games {args.games}, bank throws {args.bank_throws or 'by precision'}, workers {args.workers or 'all'}"
        f", tune budget {args.budget or 'default'}"
    )
    print(
        f"{'part':<11}{'seconds':>9}{'x quickstart':>14}{'aim solves':>12}{'ref throws':>12}{'recorded':>10}  status"
    )
    for r in rows:
        x = f"{r['x_quickstart']:.2f}" if r["x_quickstart"] is not None else "-"
        print(
            f"{r['part']:<11}{r['seconds']:>9.1f}{x:>14}{r['aim_solves']:>12}{r['reference_throws']:>12}"
            f"{r['recorded_throws']:>10}  {r['status']}"
        )
    for r in rows:
        if r["passes"]:
            print(f"the {r['part']} part's recording passes: the first line's estimate against the time each took")
            for i, p in enumerate(r["passes"], 1):
                wide = f" to {_clock(p['widest_s'])}" if p["widest_s"] is not None else ""
                took = _clock(p["took_s"]) if p["took_s"] is not None else "?"
                print(f"  pass {i}: {p['scenarios']:>3} scenario{'s' if p['scenarios'] != 1 else ' '}, estimated {_clock(p['estimate_s'])}{wide}, took {took}")
    for r in rows:
        if r["breakdown"]:
            print(f"where the {r['part']} part's bank recording went (workers' seconds, summed over chunks):")
            print_breakdown(r["breakdown"])
            workers = args.workers or os.cpu_count() or 1
            print(
                f"  chunks and aims filled {100 * busy(r['breakdown'], r['seconds'], workers):.0f} % of the "
                f"part's {r['seconds']:.0f} s on {workers} workers (the rest: games, bootstrap banks, start-up)"
            )
    return 0 if all(r["status"] == 0 for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
