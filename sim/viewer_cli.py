"""`dfsim replay` and `dfsim report-html`, and the `--replay/--gif/--mp4` outputs of `dfsim throw`.

Auto-loaded by sim/cli.py (`add_parser`). The drawing itself lives in sim/viewer/.
"""

from __future__ import annotations

import sys
from pathlib import Path

from .errors import SpecError


def add_parser(sub) -> None:
    p = sub.add_parser("replay", help="a 3-D replay page (and GIF/MP4) of one throw of a finished run, bit for bit",
                       description="Rebuild a cell's scenario from a run folder, throw the recorded release of one "
                                   "throw again (checking the outcome against the record) and write a replay page.")
    p.add_argument("results", help="the output folder of `dfsim run` (e.g. results/quickstart)")
    p.add_argument("--cell", required=True, help="cell name (as in summary.json / report.md) or number")
    p.add_argument("--index", type=int, required=True, help="throw index within the cell")
    p.add_argument("--out", help="replay page to write (default: replay-CELL-INDEX.html in the run folder)")
    p.add_argument("--allow-mismatch", action="store_true",
                   help="write the page even when the replay ends differently from the record (marked on the page)")
    _media_args(p)
    p.set_defaults(func=run)
    r = sub.add_parser("report-html", help="(re)write report.html of a finished run, with replays of sample throws")
    r.add_argument("results", help="the output folder of `dfsim run`")
    r.add_argument("--sample", type=int, default=None, help="throws replayed per cell (default 20; 0: none)")
    r.set_defaults(func=run_report_html)


def _media_args(p) -> None:
    p.add_argument("--gif", metavar="GIF", help="also write an animated GIF of the throw")
    p.add_argument("--mp4", metavar="MP4", help="also write an MP4 video of the throw (needs imageio-ffmpeg)")


def _check_out(path: str | None, flag: str) -> None:
    if path is None:
        return
    parent = Path(path).resolve().parent
    if not parent.is_dir():
        raise SpecError("command line", flag, f"folder {parent} does not exist")


def _write_media(args, thrower, res, traj) -> list[Path]:
    out = []
    if getattr(args, "gif", None) or getattr(args, "mp4", None):
        from .viewer.animation import render_frames, write_gif, write_mp4

        frames = render_frames(thrower, res, traj)
        if args.gif:
            out.append(write_gif(args.gif, frames))
        if args.mp4:
            out.append(write_mp4(args.mp4, frames))
    return out


def run(args) -> int:
    """`dfsim replay RESULTS --cell NAME --index K [--out page.html] [--gif G] [--mp4 M]`."""
    from .viewer.replay import write_replay
    from .viewer.runs import ReplayMismatch, RunFolder

    for flag in ("out", "gif", "mp4"):
        _check_out(getattr(args, flag), f"--{flag}")
    if args.mp4:
        from .viewer.animation import mp4_available

        if not mp4_available():
            raise SpecError("command line", "--mp4", "needs imageio-ffmpeg: pip install 'dfsim[video]'")
    run_dir = RunFolder.open(args.results)
    cell = run_dir.cell(args.cell)
    warning = ""
    try:
        th, res, traj = run_dir.replay(args.cell, args.index)
    except ReplayMismatch as exc:
        sys.stderr.write(f"dfsim: replay mismatch: {exc}\n")
        if not args.allow_mismatch:
            return 1
        warning = str(exc).replace("\n ", ";")
        th, res, traj = run_dir.replay(args.cell, args.index, check=False)
    safe = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in cell["name"])
    page = Path(args.out) if args.out else run_dir.root / f"replay-{safe}-{args.index}.html"
    title = f"dfsim replay: {cell['name']}, throw {args.index} of {run_dir.resolved['experiment']['name']}"
    written = [write_replay(page, [(th, res, traj)], title=title, warning=warning)]
    written += _write_media(args, th, res, traj)
    o = res.outcome
    same = "DIFFERENT from the record" if warning else "same as the record"
    print(f"{o.result} ({o.reason}), {same}; wrote " + ", ".join(str(p) for p in written))
    return 0


def run_report_html(args) -> int:
    from .viewer.report_html import DEFAULT_SAMPLE, rewrite_report_html

    sample = DEFAULT_SAMPLE if args.sample is None else args.sample
    if sample < 0:
        raise SpecError("command line", "--sample", "must be 0 or more")
    path = rewrite_report_html(args.results, sample)
    print(f"wrote {path} ({path.stat().st_size / 1e3:.0f} kB)")
    return 0


class ThrowViews:
    """The `--replay/--gif/--mp4` outputs of `dfsim throw`: checks the paths first (nothing is thrown
    when one is bad), records the throw, writes the files after it."""

    def __init__(self, args, thrower) -> None:
        self.args = args
        self.thrower = thrower
        self.wanted = bool(getattr(args, "replay", None) or getattr(args, "gif", None) or getattr(args, "mp4", None))
        self._ctx = None
        if not self.wanted:
            return
        for flag in ("replay", "gif", "mp4"):
            _check_out(getattr(args, flag, None), f"--{flag}")
        if getattr(args, "mp4", None):
            from .viewer.animation import mp4_available

            if not mp4_available():
                raise SpecError("command line", "--mp4", "needs imageio-ffmpeg: pip install 'dfsim[video]'")
        from .viewer.recorder import recording

        self._ctx = recording(thrower)
        self.recorder = self._ctx.__enter__()

    def write(self, res) -> None:
        if self._ctx is None:
            return
        self._ctx.__exit__(None, None, None)
        self._ctx = None
        traj = self.recorder.trajectory
        if self.args.replay:
            from .viewer.replay import write_replay

            write_replay(self.args.replay, [(self.thrower, res, traj)])
        _write_media(self.args, self.thrower, res, traj)
