"""Writing a user-facing file whole or not at all (a temporary file in the same folder renamed into
place): an interrupted or failed write never leaves a half-written material, skill, board or table."""

from __future__ import annotations

import os
from pathlib import Path


def write_atomic(path: Path, data: bytes | str) -> Path:
    """Write `data` (text as UTF-8) to `path`, creating its folder; returns the path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    try:
        with open(tmp, "wb") as fh:
            fh.write(data.encode("utf-8") if isinstance(data, str) else data)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return path
