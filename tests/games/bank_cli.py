"""The `dfsim` command line with the throw bank's worker functions replaced by synthetic ones
(tests/games/synthetic_bank.py), everything else real: the worker processes, the parent's writes,
signals, exit statuses. Run as `python -c "import bank_cli; bank_cli.main(argv)"` with this folder on
PYTHONPATH (the spawned workers import the synthetic functions from it too).

`DFSIM_TEST_CHUNK_LOG`: a file each worker appends `seed start stop` to for every chunk it throws, so
a test can tell which throws a rerun made again."""

from __future__ import annotations

import os
import sys

from synthetic_bank import synthetic_chunk, synthetic_prepare


def logged_chunk(task):
    """The synthetic chunk, noted in the chunk log (one short line, appended whole)."""
    table = synthetic_chunk(task)
    log = os.environ.get("DFSIM_TEST_CHUNK_LOG")
    if log:
        with open(log, "a") as fh:
            fh.write(f"{task.seed} {task.start} {task.stop}\n")
    return table


def main(argv: list[str]) -> None:
    from sim.cli.main import main as dfsim
    from sim.games.throw_bank import ThrowBank

    ThrowBank.chunk_fn = staticmethod(logged_chunk)  # type: ignore[assignment]
    ThrowBank.prepare_fn = staticmethod(synthetic_prepare)  # type: ignore[assignment]
    sys.exit(dfsim(argv))
