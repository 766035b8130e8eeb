"""Solved values on disk: what a world or a thrower solves once per scene per machine, read back in
milliseconds by the next command.

Three solves made a single `dfsim throw`, `place` or `flip` slow, and each is a pure function of the
scene, the code and the machine: the aimed release (`Thrower.nominal`, ~240 reference throws), the
rebound calibration (`Physics` drop tests, ~280 drops) and a template's nominal flip speed (40
integrated flights). Their results are kept in the user's cache folder: `$DFSIM_CACHE_DIR`, else
`$XDG_CACHE_HOME/dfsim`, else `~/.cache/dfsim`, one JSON file per entry in `<kind>/<key>.json`
(kinds: "aim", "rebound", "flip", and "flipbank": one entry of a flip bank, sim/engine/flip_bank.py).

An entry's key hashes the caller's key (for the aim: the scenario's aim key, components, objective)
with a salt: `CACHE_VERSION` (bumped by hand when a change of behaviour is not in the hashed files),
dfsim's version, a hash of the source of every module a solve runs (specs, rules, world, engine and the
layer-0 helpers), PyBullet's version and the machine (floating point differs between platforms).
Anything that could change a solved value changes the key; a stale entry is never read, only left
behind (the folder is safe to delete at any time).

Trusted no more than needed: an entry is opened without following a link and without blocking (a
FIFO or a device planted there is refused, never read), read up to `MAX_ENTRY_BYTES`, parsed with NaN
and infinities refused, checked against the sha256 of its value written beside it, and validated by
the caller (`valid`: the kind of value, finite, in range). On any doubt it is ignored with one warning,
solved again and rewritten.

Safe under concurrent runs: an entry is written to a temporary file in the same folder and moved into
place with `os.replace` (atomic), so a reader sees a whole entry or none, and two writers of one key
write the same value. An entry that cannot be read (truncated, garbled, another key's) is ignored with
a warning, solved and written again; a folder that cannot be written costs the cache, never the
command. Values go through JSON's shortest round-trip float text, so a cached float is the solved one
to the last bit.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import platform
import stat
import sys
import tempfile
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sim.hashing import json_hash

CACHE_VERSION = 2  # 2: entries carry the sha256 of their value
MAX_ENTRY_BYTES = 256_000  # an entry is a few numbers; anything larger is not one of ours
# the packages and modules whose source the solves run: a change to any of them gives new keys
SOLVE_PACKAGES = ("specs", "rules", "world", "engine")
SOLVE_MODULES = ("seeding.py", "hashing.py", "errors.py", "diskcache.py", "trace.py")


def cache_dir() -> Path:
    """The dfsim cache folder: $DFSIM_CACHE_DIR, else $XDG_CACHE_HOME/dfsim, else ~/.cache/dfsim."""
    own = os.environ.get("DFSIM_CACHE_DIR")
    if own:
        return Path(own)
    xdg = os.environ.get("XDG_CACHE_HOME")
    if xdg:
        return Path(xdg) / "dfsim"
    try:
        return Path.home() / ".cache" / "dfsim"
    except (RuntimeError, KeyError):  # no home folder to be found: a folder in the system's temporary space
        return Path(tempfile.gettempdir()) / f"dfsim-cache-{os.getuid() if hasattr(os, 'getuid') else 'user'}"


@functools.lru_cache(maxsize=1)
def code_salt() -> str:
    """Hash of what, beyond the caller's key, decides a solved value: the cache format version, dfsim's
    version and the source of the modules the solves run, PyBullet's version, the machine."""
    import sim

    root = Path(sim.__file__).resolve().parent
    h = hashlib.sha256()
    files = [root / m for m in SOLVE_MODULES]
    for pkg in SOLVE_PACKAGES:
        files.extend(sorted((root / pkg).glob("*.py")))
    for f in files:
        h.update(f.relative_to(root).as_posix().encode())
        h.update(f.read_bytes())
    try:
        from importlib.metadata import version

        bullet = version("pybullet")
    except Exception:  # noqa: BLE001 - an unusual install: the source hash still covers our side
        bullet = "unknown"
    return json_hash(
        [
            CACHE_VERSION,
            sim.__version__,
            h.hexdigest(),
            bullet,
            platform.machine(),
            platform.system(),
            list(sys.version_info[:2]),
        ],
        length=32,
    )


def entry_key(key: Any) -> str:
    """The file name stem of a caller's key (JSON-able; tuples count as lists) under the salt."""
    return json_hash([code_salt(), key], length=32)


def entry_path(kind: str, key: Any) -> Path:
    """Where the entry of a caller's key lives."""
    return cache_dir() / kind / f"{entry_key(key)}.json"


def value_sha256(value: Any) -> str:
    """The checksum an entry keeps of its value (canonical JSON text)."""
    return hashlib.sha256(json.dumps(value, sort_keys=True, allow_nan=False).encode()).hexdigest()


def _read_entry(path: Path, max_bytes: int = MAX_ENTRY_BYTES) -> bytes:
    """An entry's bytes: a regular file, not a link, not blocking, at most `max_bytes` (OSError or
    ValueError otherwise)."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    fd = os.open(path, flags)
    with os.fdopen(fd, "rb") as fh:
        st = os.fstat(fh.fileno())
        if not stat.S_ISREG(st.st_mode):
            raise ValueError("not a regular file")
        if st.st_size > max_bytes:
            raise ValueError(f"larger than {max_bytes} bytes")
        raw = fh.read(max_bytes + 1)
    if len(raw) > max_bytes:
        raise ValueError(f"larger than {max_bytes} bytes")
    return raw


def _no_constant(name: str) -> Any:
    raise ValueError(f"holds {name}")


def load(
    kind: str, key: Any, valid: Callable[[Any], bool] | None = None, max_bytes: int = MAX_ENTRY_BYTES
) -> Any | None:
    """The cached value of a caller's key, or None: absent, or in any doubt (unreadable, not a regular
    file, larger than `max_bytes` (a kind of larger values says so), corrupt, its checksum wrong, or
    refused by `valid`): warned, to be solved again."""
    stem = entry_key(key)
    path = cache_dir() / kind / f"{stem}.json"
    try:
        raw = _read_entry(path, max_bytes)
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        warnings.warn(f"dfsim: cache entry {path} cannot be read ({reason}); solving again", stacklevel=2)
        return None
    try:
        data = json.loads(raw.decode("utf-8"), parse_constant=_no_constant)
        if not isinstance(data, dict) or data.get("key") != stem or "value" not in data:
            raise ValueError("not an entry of this key")
        if data.get("sha256") != value_sha256(data["value"]):
            raise ValueError("its value does not match its checksum")
        if valid is not None and not valid(data["value"]):
            raise ValueError("its value is out of range")
    except (ValueError, RecursionError) as exc:
        warnings.warn(f"dfsim: cache entry {path} is corrupt ({exc}); solving again", stacklevel=2)
        return None
    return data["value"]


def store(kind: str, key: Any, value: Any, what: str = "") -> Path | None:
    """Write an entry atomically (temporary file in the same folder, then `os.replace`); returns its path,
    None when the cache folder cannot be written (warned, nothing raised)."""
    stem = entry_key(key)
    path = cache_dir() / kind / f"{stem}.json"
    try:
        digest = value_sha256(value)
    except ValueError:  # NaN or an infinity: never cached
        return None
    data = {
        "key": stem,
        "value": value,
        "sha256": digest,
        "what": what or f"a solved {kind}; safe to delete",
        "caller_key": json.loads(json.dumps(key, default=str)),
    }
    tmp = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{stem}.", suffix=".tmp", dir=path.parent)
        with os.fdopen(fd, "w") as fh:
            json.dump(data, fh, allow_nan=False)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
        tmp = None
    except (OSError, ValueError) as exc:
        warnings.warn(
            f"dfsim: cannot write the cache in {path.parent} ({exc}); solved again next time", stacklevel=2
        )
        return None
    finally:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass
    return path
