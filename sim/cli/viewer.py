"""`dfsim replay` and `dfsim report-html`: watch the throws of a finished run (the drawing is in
sim/viewer/)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from sim.cli.common import INDEX, integer
from sim.errors import SpecError


def add_clip_options(p: argparse.ArgumentParser) -> None:
    """--gif and --mp4 (shared with `dfsim throw`)."""
    p.add_argument("--gif", metavar="GIF", help="also write an animated GIF of the throw")
    p.add_argument("--mp4", metavar="MP4", help="also write an MP4 video of the throw (needs dfsim[video])")


def register(sub: argparse._SubParsersAction) -> None:
    """Add the `replay` command (a replay page, GIF or MP4 of one recorded throw) and `report-html`."""
    p = sub.add_parser(
        "replay",
        help="a 3-D replay page (and GIF/MP4) of one throw of a finished run, bit for bit",
        description="Rebuild a cell's scenario from a run folder, throw the recorded release of one "
        "throw again (checking the outcome against the record) and write a replay page.",
    )
    p.add_argument("results", help="the output folder of `dfsim run` (e.g. results/quickstart)")
    p.add_argument("--cell", required=True, help="cell name (as in summary.json / report.md) or number")
    p.add_argument("--index", type=INDEX, required=True, help="throw index within the cell")
    p.add_argument("--out", help="replay page to write (default: replay-CELL-INDEX.html in the run folder)")
    p.add_argument(
        "--allow-mismatch",
        action="store_true",
        help="write the page even when the replay ends differently from the record (marked on the page)",
    )
    add_clip_options(p)
    p.set_defaults(func=cmd_replay)
    r = sub.add_parser(
        "report-html", help="(re)write report.html of a finished run, with replays of sample throws"
    )
    r.add_argument("results", help="the output folder of `dfsim run`")
    r.add_argument(
        "--sample",
        type=integer(0, 100_000),
        default=None,
        help="throws replayed per cell (default 20; 0: none)",
    )
    r.set_defaults(func=cmd_report_html)


def cmd_replay(args: argparse.Namespace) -> int:
    """`dfsim replay RESULTS --cell NAME --index K [--out page.html] [--gif G] [--mp4 M]`."""
    from sim.engine.run_folder import RunFolder
    from sim.errors import ReplayMismatch
    from sim.viewer.outputs import check_mp4, check_output, write_clips
    from sim.viewer.replay import write_replay
    from sim.viewer.runs import replay_throw

    # first: its files are inputs no output may replace
    run_dir = RunFolder.open(args.results, kind="throws", command="replay")
    for path, flag in ((args.out, "--out"), (args.gif, "--gif"), (args.mp4, "--mp4")):
        check_output(path, flag)
    check_mp4(args.mp4)
    cell = run_dir.cell(args.cell)
    warning = ""
    try:
        th, res, traj = replay_throw(run_dir, args.cell, args.index)
    except ReplayMismatch as exc:
        sys.stderr.write(f"dfsim: replay mismatch: {exc}\n  the run was {run_dir.reproducibility()}\n")
        if not args.allow_mismatch:
            return 1
        warning = str(exc).replace("\n ", ";")
        th, res, traj = replay_throw(run_dir, args.cell, args.index, check=False)
    safe = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in cell["name"])
    page = Path(args.out) if args.out else run_dir.root / f"replay-{safe}-{args.index}.html"
    title = f"dfsim replay: {cell['name']}, throw {args.index} of {run_dir.resolved['experiment']['name']}"
    written = [write_replay(page, [(th, res, traj)], title=title, warning=warning)]
    written += write_clips(th, res, traj, args.gif, args.mp4)
    o = res.outcome
    same = "DIFFERENT from the record" if warning else "same as the record"
    print(f"{o.result} ({o.reason}), {same}; wrote " + ", ".join(str(p) for p in written))
    return 0


def cmd_report_html(args: argparse.Namespace) -> int:
    """`dfsim report-html`: rewrite a finished run's report.html with `--sample` replayed throws per cell."""
    from sim.experiments.progress import WorkBar
    from sim.experiments.store import record_report
    from sim.viewer.report_html import DEFAULT_SAMPLE, rewrite_report_html

    sample = DEFAULT_SAMPLE if args.sample is None else args.sample
    if sample < 0:
        raise SpecError("command line", "--sample", "must be 0 or more")
    bar = WorkBar(0, "throw", "replaying throws for report.html", enabled=sample > 0)
    try:
        path = rewrite_report_html(args.results, sample, bar)
    finally:
        bar.close()
    record_report(path.parent, path.name)  # the run's manifest knows the new page (dfsim doctor checks it)
    print(f"wrote {path} ({path.stat().st_size / 1e3:.0f} kB)")
    return 0
