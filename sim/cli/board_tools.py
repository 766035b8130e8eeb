"""`dfsim board-from-measurements` and `dfsim board-plot`: write a board file from what was measured on a
real board, and draw a board file (over a photo of the board) to check it."""

from __future__ import annotations

import argparse
import io
from pathlib import Path

from sim.cli.common import number
from sim.errors import SpecError
from sim.files import check_output, note_input, write_atomic

SRC = "command line"


def register(sub: argparse._SubParsersAction) -> None:
    """Add the two board commands."""
    p = sub.add_parser(
        "board-from-measurements",
        help="write a board file from measurements of a real board",
        description="Turn a measurement file (centre, ring radii and values, holes, bones, measured "
        "in any frame) into a board file in the board frame; docs/data-files.md.",
    )
    p.add_argument("measurements", help="measurement TOML file")
    p.add_argument("--out", required=True, help="the board file to write")
    p.set_defaults(func=cmd_from_measurements)
    q = sub.add_parser(
        "board-plot",
        help="draw a board file (sections, holes, bones), optionally over a photo",
        description="Draw a board file, a built-in board or a measurement file; with --photo the "
        "outlines are drawn over a photo of the board, placed by its scale, the pixel of "
        "the board centre and the rotation of the board's +x axis.",
    )
    q.add_argument("board", help="board name, board file or measurement file")
    q.add_argument("--out", required=True, help="PNG file to write")
    q.add_argument("--photo", help="photo of the board (PNG or JPEG)")
    q.add_argument(
        "--scale-px-per-mm", type=number(1e-3, 1e4), help="photo pixels per millimetre on the board"
    )
    q.add_argument("--centre-px", help="the board centre on the photo: COLUMN,ROW in pixels")
    q.add_argument(
        "--rotate-deg",
        type=number(-360, 360),
        default=0.0,
        help="angle of the board's +x axis from the photo's rightward axis, counter-clockwise (default 0)",
    )
    q.set_defaults(func=cmd_plot)


def cmd_from_measurements(args: argparse.Namespace) -> int:
    """Convert, validate the board it gives, write it, and say what it holds."""
    from sim.specs.datafiles import read_toml
    from sim.specs.measured_board import board_from_measurements, toml_text

    src = Path(args.measurements)
    if not src.is_file():
        raise SpecError(src, "", "file not found")
    board, table = board_from_measurements(read_toml(src), str(src))
    out = check_output(args.out, "--out", make_folder=True)
    header = (
        f"Board '{board.name}' written by `dfsim board-from-measurements {src.name}` from measurements\n"
        "(board frame: origin at the centre, +x toward the far side, mm). Check it over a photo with\n"
        '`dfsim board-plot`, then use it as --board FILE or board = "FILE" in an experiment.'
    )
    write_atomic(out, toml_text(table, header).encode())
    print(
        f"wrote {out}: board '{board.name}', {len(board.sections)} sections, {len(board.holes)} holes, "
        f"{len(board.bones)} bones"
    )
    return 0


def _load_board(name: str):
    """A board by name or file, or the board a measurement file describes."""
    from sim.specs.board import load_board
    from sim.specs.datafiles import read_toml
    from sim.specs.measured_board import board_from_measurements

    p = Path(name)
    if p.is_file():
        data = read_toml(p)
        if data.get("kind") == "measured-board" or "center_mm" in data:
            return board_from_measurements(data, str(p))[0]
    return load_board(name)


def _centre(text: str | None) -> tuple[float, float]:
    parts = (text or "").split(",")
    try:
        x, y = (float(v) for v in parts)
    except ValueError:
        raise SpecError(
            SRC, "--centre-px", f"expected COLUMN,ROW (two numbers), not {str(text)[:40]!r}"
        ) from None
    if not all(abs(v) < 1e6 for v in (x, y)):
        raise SpecError(SRC, "--centre-px", "must be two finite pixel coordinates")
    return x, y


def cmd_plot(args: argparse.Namespace) -> int:
    """Draw the board (over the photo) into a PNG."""
    from sim.viewer.board_plot import PhotoFrame, board_figure, read_photo

    board = _load_board(args.board)
    photo, frame = None, None
    if args.photo is None:
        for flag, v in (("--scale-px-per-mm", args.scale_px_per_mm), ("--centre-px", args.centre_px)):
            if v is not None:
                raise SpecError(SRC, flag, "needs --photo")
    else:
        if not Path(args.photo).is_file():
            raise SpecError(SRC, "--photo", f"file not found: {args.photo}")
        if args.scale_px_per_mm is None or args.centre_px is None:
            raise SpecError(
                SRC, "--photo", "needs --scale-px-per-mm and --centre-px to place the board on it"
            )
        frame = PhotoFrame(args.scale_px_per_mm, _centre(args.centre_px), args.rotate_deg)
        try:
            photo = read_photo(args.photo)
        except Exception as exc:  # imageio raises many kinds for a file that is not an image
            raise SpecError(
                SRC, "--photo", f"cannot read {args.photo} as an image ({type(exc).__name__})"
            ) from None
        if photo.ndim not in (2, 3) or min(photo.shape[:2]) < 2:
            raise SpecError(SRC, "--photo", f"{args.photo} is not a picture (shape {photo.shape})")
    out = Path(args.out)
    if out.suffix.lower() != ".png":
        raise SpecError(SRC, "--out", f"must name a .png file, not {out.name!r}")
    if args.photo is not None:
        note_input(args.photo)
    check_output(out, "--out", make_folder=True)
    buf = io.BytesIO()
    board_figure(board, photo, frame).savefig(buf, format="png", dpi=110)
    write_atomic(out, buf.getvalue())
    print(f"wrote {out}")
    return 0
