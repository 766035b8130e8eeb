"""`dfsim studio [GAME|FILE]`: the designer's studio, a local page where controls move a game's win rate
and its interval (sim/studio/). Served on 127.0.0.1 only; Ctrl-C stops it."""

from __future__ import annotations

import argparse
import sys
import threading

from sim.cli.common import bank_options, integer


def register(sub: argparse._SubParsersAction) -> None:
    """Add the `studio` command."""
    p = sub.add_parser(
        "studio",
        help="a local page: move house rules and settings, watch the win rate and its interval (127.0.0.1)",
    )
    p.add_argument(
        "game", nargs="?", default="base", help="a built-in game name (default base) or a game file"
    )
    p.add_argument(
        "--port", type=integer(0, 65535), default=0, help="port on 127.0.0.1 (default: a free one)"
    )
    p.add_argument("--open", action="store_true", help="open the page in the web browser")
    p.add_argument(
        "--folder",
        action="append",
        default=[],
        metavar="DIR",
        help="a folder whose game and shot files the page may offer (repeat for more); nothing else is read",
    )
    bank_options(p)
    p.add_argument(
        "--bank-replicates",
        type=integer(0, 1000),
        default=None,
        help="bootstrap banks behind the bank's part of the win rate's interval, as dfsim game "
        "(default 8; 0: none)",
    )
    p.add_argument("--log", action="store_true", help="print every request on stderr")
    p.set_defaults(func=cmd_studio)


def cmd_studio(args: argparse.Namespace) -> int:
    """Serve until Ctrl-C (or SIGTERM); then cancel the jobs (finished bank entries stay) and exit 0."""
    from sim.games.bank_uncertainty import REPLICATES
    from sim.games.throw_bank import ThrowBank
    from sim.studio.api import Studio
    from sim.studio.library import Library
    from sim.studio.server import open_server

    library = Library(args.folder)
    game = library.game_id(args.game)
    bank = ThrowBank(args.bank, args.bank_throws, workers=args.workers, quiet=True)
    reps = REPLICATES if args.bank_replicates is None else args.bank_replicates
    studio = Studio(bank, library, game, reps)  # --bank-replicates 1: one line, exit 2
    server = open_server(studio, args.port, log=args.log)  # a port in use: one line, exit 2
    print(f"dfsim studio: {server.url}  (game {args.game}; bank {bank.dir}; Ctrl-C stops)", flush=True)
    if args.open:  # beside the server: a browser that takes its time does not hold the page up
        threading.Thread(target=open_browser, args=(server.url,), name="studio-browser", daemon=True).start()
    try:
        server.serve_forever(poll_interval=0.2)
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
        clean = studio.close(wait_s=15.0)
        sys.stderr.write(
            "dfsim studio: stopped"
            + ("" if clean else " (a bank recording was still running: its finished entries are kept)")
            + "\n"
        )
    return 0


def open_browser(url: str) -> bool:
    """Open the page the way the user's desktop opens a link (Python's webbrowser: $BROWSER first, then
    the system's default); where none can be started (a server, a container), say so in one line:
    the address printed above still works from any browser on this machine."""
    import webbrowser

    try:
        ok = webbrowser.open(url)
    except webbrowser.Error:
        ok = False
    if not ok:
        sys.stderr.write(f"dfsim studio: no web browser could be started here; open {url} in one\n")
    return ok
