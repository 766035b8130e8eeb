"""The one way dfsim writes and removes a file (every command, every output).

Why one routine: a careless or hostile set-up must never cost a user's file. So every write
- refuses an output that is one of the command's inputs (the data files it read are noted here by
  `note_input`, so `--replay my-board.toml` cannot destroy the board it throws on);
- never follows a symbolic link it did not make: an output that is a link is refused, and the
  content goes to a temporary file created exclusively (O_EXCL, unpredictable name, `mkstemp`) in the
  target folder, then renamed over the target (a reader sees the old file or the new one, never half);
- removes only what dfsim wrote itself: a regular file (never a link) whose name matches the pattern
  of the files the caller writes and whose sha256 is the one recorded when it was written.
Bad outputs are `SpecError` (exit 2), checked before any work; a failing disk is an OSError (exit 1).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import stat
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

from sim.errors import SpecError

# a temporary file of ours: ".<target name>.<8 random characters>.tmp<target suffix>" (tempfile's
# alphabet; the suffix kept for writers that choose a format by it), or ".<target name>.tmp<pid>" as
# older dfsim versions named them
TEMP_RE = re.compile(r"^\.(?P<name>.+?)(\.[a-z0-9_]{8}\.tmp(\.[A-Za-z0-9]{1,8})?|\.tmp\d*)$")

_UMASK = os.umask(0o022)  # read once (setting it is the only way to read it), then put back
os.umask(_UMASK)
_INPUTS: set[tuple[int, int]] | None = None  # (device, inode) of every file the running command has read
_READERS: list[list[Path]] = []  # the open `files_read` spans: each gets every data file read in it


@contextlib.contextmanager
def command_inputs() -> Iterator[None]:
    """The span of one command (the CLI runs each inside one): files read in it are its inputs, which
    none of its outputs may replace. Outside a command (library use) nothing is noted."""
    global _INPUTS
    outer, _INPUTS = _INPUTS, set()
    try:
        yield
    finally:
        _INPUTS = outer


@contextlib.contextmanager
def files_read() -> Iterator[list[Path]]:
    """The data files read inside this span (every one `note_input` is told of): what a value worked
    out from them depends on, so a cache of it can tell when one has changed."""
    got: list[Path] = []
    _READERS.append(got)
    try:
        yield got
    finally:
        del _READERS[next(i for i, g in enumerate(_READERS) if g is got)]  # this span's, not an equal one


def note_input(path: str | Path) -> None:
    """Remember a file the command reads, so no output of the command may replace it (and tell the
    open `files_read` spans)."""
    for got in _READERS:
        got.append(Path(path))
    if _INPUTS is None:
        return
    try:
        st = os.stat(path)
    except OSError:
        return
    _INPUTS.add((st.st_dev, st.st_ino))


def is_input(path: str | Path) -> bool:
    """Whether `path` (followed, if a link) is one of the files this command has read."""
    if not _INPUTS:
        return False
    try:
        st = os.stat(path)
    except OSError:
        return False
    return (st.st_dev, st.st_ino) in _INPUTS


def check_output(path: str | Path, flag: str = "output", make_folder: bool = False) -> Path:
    """A file the command will write, checked before any work: a non-empty name, not a folder, device or
    link, not one of the inputs, in a folder that exists (or, with `make_folder`, can be made) and can be
    written. SpecError otherwise."""
    text = str(path)
    if not text.strip():
        raise SpecError("command line", flag, "is empty; give a file name")
    p = Path(text)
    if text.endswith(("/", os.sep)) or p.name in ("", ".", ".."):
        raise SpecError("command line", flag, f"{text!r} names a folder; give a file name")
    try:
        st = os.lstat(p)
    except FileNotFoundError:
        st = None
    except OSError as exc:
        raise SpecError(p, flag, f"cannot be written ({exc.strerror or exc})") from None
    if st is not None:
        if stat.S_ISLNK(st.st_mode):
            raise SpecError(
                p,
                flag,
                "is a symbolic link; dfsim does not write through links (remove it or give another name)",
            )
        if stat.S_ISDIR(st.st_mode):
            raise SpecError(p, flag, "is a folder; give a file name")
        if not stat.S_ISREG(st.st_mode):
            raise SpecError(p, flag, "is not a regular file (a device or a pipe); give a file name")
        if is_input(p):
            raise SpecError(
                p, flag, "is one of this command's inputs; writing it would destroy it (give another name)"
            )
    if not make_folder and not p.parent.is_dir():
        raise SpecError(p, flag, f"folder {p.parent} does not exist")
    check_output_dir(p.parent, flag)
    return p


def check_output_dir(path: str | Path, flag: str = "--out") -> Path:
    """A folder the command will write into (made if missing), checked before any work: not a file, a
    link or a device, and its nearest existing folder writable. SpecError otherwise."""
    text = str(path)
    if not text.strip():
        raise SpecError("command line", flag, "is empty; give a folder")
    p = Path(text)
    probe = p
    while True:
        try:
            st = os.lstat(probe)
        except (FileNotFoundError, NotADirectoryError):
            if probe.parent == probe:
                raise SpecError(p, flag, "no part of this path exists") from None
            probe = probe.parent
            continue
        except OSError as exc:
            raise SpecError(p, flag, f"cannot be written ({exc.strerror or exc})") from None
        break
    if stat.S_ISLNK(st.st_mode) and probe == p:
        raise SpecError(p, flag, "is a symbolic link; dfsim does not write through links")
    if not probe.is_dir():
        what = "is" if probe == p else f"is under {probe}, which is"
        raise SpecError(p, flag, f"{what} a file, not a folder")
    if not os.access(probe, os.W_OK | os.X_OK):
        raise SpecError(p, flag, f"folder {probe} cannot be written")
    return p


def temp_file(target: str | Path) -> Path:
    """A new, empty temporary file beside `target` (exclusive create, unpredictable name), ours alone."""
    target = Path(target)
    fd, name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=f".tmp{target.suffix}", dir=target.parent)
    try:  # mkstemp makes it private (0600); the output gets the permissions any new file would get
        os.fchmod(fd, 0o666 & ~_UMASK)
    finally:
        os.close(fd)
    return Path(name)


def _refuse_link(path: Path) -> None:
    if path.is_symlink():
        raise SpecError(
            path,
            "",
            "is a symbolic link; dfsim does not write through links (remove it or give another name)",
        )
    if is_input(path):
        raise SpecError(
            path, "", "is one of this command's inputs; writing it would destroy it (give another name)"
        )


@contextlib.contextmanager
def writing(path: str | Path, sync: bool = False) -> Iterator[Path]:
    """Yield a temporary path for the caller to fill (a figure, a Parquet writer, an encoder); on success
    it replaces `path`, on any error it is removed and `path` is left as it was."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    _refuse_link(path)
    tmp = temp_file(path)
    try:
        yield tmp
        if sync:
            with open(tmp, "rb") as fh:
                os.fsync(fh.fileno())
        _refuse_link(path)
        os.replace(tmp, path)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            tmp.unlink()
        if isinstance(exc, OSError) and exc.filename is None and exc.errno is not None:
            # a write into the temporary file failed (a full disk, a file-size limit): name the output
            raise OSError(exc.errno, exc.strerror or os.strerror(exc.errno), str(path)) from exc
        raise


def write_atomic(path: str | Path, data: bytes | str, sync: bool = False) -> Path:
    """Write `data` (text as UTF-8) to `path` whole or not at all, creating its folder; returns the path."""
    path = Path(path)
    with writing(path) as tmp:
        fd = os.open(tmp, os.O_WRONLY | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0))
        with os.fdopen(fd, "wb") as fh:
            fh.write(data.encode("utf-8") if isinstance(data, str) else data)
            if sync:
                fh.flush()
                os.fsync(fh.fileno())
    return path


def sha256_of(path: str | Path) -> str | None:
    """The sha256 of a regular file (a link is not followed), None when it is not one."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    h = hashlib.sha256()
    with os.fdopen(fd, "rb") as fh:
        if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
            return None
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def remove_written(path: str | Path, owns_name: Callable[[str], bool], sha256: str | None) -> bool:
    """Remove `path` only if dfsim wrote it: a regular file whose name `owns_name` accepts and whose
    content has the sha256 recorded at write time. True when removed."""
    path = Path(path)
    if not owns_name(path.name) or not isinstance(sha256, str) or sha256_of(path) != sha256:
        return False
    path.unlink()
    return True


def remove_temporary(path: str | Path, owns_name: Callable[[str], bool]) -> bool:
    """Remove a temporary file left by a killed dfsim run (TEMP_RE, standing for a name the caller owns);
    a link is removed as a link, never followed. True when removed."""
    path = Path(path)
    m = TEMP_RE.match(path.name)
    if not m or not owns_name(m.group("name")):
        return False
    try:
        st = os.lstat(path)
    except OSError:
        return False
    if not (stat.S_ISREG(st.st_mode) or stat.S_ISLNK(st.st_mode)):
        return False
    path.unlink()
    return True


def save_figure(fig, path: str | Path, **savefig_kw) -> Path:
    """Save a matplotlib figure to `path` as `write_atomic` writes (format from the file's suffix)."""
    path = Path(path)
    with writing(path) as tmp:
        fig.savefig(tmp, format=path.suffix.lstrip(".") or "png", **savefig_kw)
    return path
