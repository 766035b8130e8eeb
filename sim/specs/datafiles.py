"""Finding and reading the TOML data files, built-in (by name) or the user's (by path)."""

from __future__ import annotations

import copy
import difflib
import hashlib
import json
import os
import stat
import sys
from collections.abc import Iterator, Mapping
from importlib import resources
from pathlib import Path
from typing import Any

from sim import plugins
from sim.errors import DuplicateKey, SpecError
from sim.files import note_input

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

_REPO = Path(__file__).resolve().parents[2]

# kind -> (top-level data package, sub-folder): the core's kinds; packages built on the core add theirs
# (sim/plugins.py), read on first use
_CORE_KINDS: dict[str, tuple[str, str]] = {
    "board": ("boards", ""),
    "die": ("boards", "dice"),
    "material": ("boards", "materials"),
    "template": ("boards", "templates"),
    "prop": ("boards", "props"),
    "shot": ("shots", ""),
    "skill": ("shots", "skills"),
    "experiment": ("experiments", ""),
}


class _Kinds(Mapping[str, tuple[str, str]]):
    """kind -> (top-level data package, sub-folder): the core's and every plugin's."""

    def _all(self) -> dict[str, tuple[str, str]]:
        return {**_CORE_KINDS, **{k.name: (k.top, k.sub) for k in plugins.data_kinds()}}

    def __getitem__(self, kind: str) -> tuple[str, str]:
        return _CORE_KINDS[kind] if kind in _CORE_KINDS else self._all()[kind]

    def __iter__(self) -> Iterator[str]:
        return iter(self._all())

    def __len__(self) -> int:
        return len(self._all())


KINDS: Mapping[str, tuple[str, str]] = _Kinds()


def builtin_dir(kind: str) -> Path:
    """The folder holding built-in files of one kind, from a checkout or an installed package."""
    top, sub = KINDS[kind]
    repo_dir = _REPO / top
    if (repo_dir).is_dir() and (_REPO / "pyproject.toml").is_file():
        base = repo_dir
    else:
        base = Path(str(resources.files(f"sim.builtin.{top}")))
    return base / sub if sub else base


def builtin_names(kind: str) -> list[str]:
    """Names of the built-in data files of `kind` (file stems), sorted; empty if there are none."""
    if kind not in KINDS:  # a kind the user writes (a tally, measurements): none is built in
        return []
    d = builtin_dir(kind)
    if not d.is_dir():
        return []
    return sorted(p.stem for p in d.glob("*.toml"))


MAX_FILE_BYTES = 1_000_000  # the largest data file read (built-in files are under 10 kB)
MAX_DEPTH = 32  # tables and arrays nested deeper than this are refused


_PARSED: dict[bytes, dict[str, Any]] = {}  # content digest -> parsed: a sweep reads the same files per cell


def read_toml(path: Path) -> dict[str, Any]:
    """A data file's content (a fresh copy the caller may change); missing, unreadable or malformed
    files, and anything that is not a small UTF-8 TOML file, raise SpecError instead of OSError."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):  # a folder, a pipe or a device (which could block)
            raise SpecError(path, "", "cannot read (not a regular file)")
        with open(path, "rb") as fh:
            raw = fh.read(MAX_FILE_BYTES + 1)
        note_input(path)  # no output of this command may replace a file it read
    except FileNotFoundError:
        raise SpecError(path, "", "file not found") from None
    except OSError as exc:
        raise SpecError(path, "", f"cannot read ({exc.strerror or exc})") from None
    if len(raw) > MAX_FILE_BYTES:
        raise SpecError(
            path, "", f"file is larger than {MAX_FILE_BYTES // 1000} kB (data files are small TOML files)"
        )
    key = hashlib.blake2b(raw, digest_size=20).digest()
    if key not in _PARSED:
        if len(_PARSED) >= 256:
            _PARSED.clear()
        _PARSED[key] = _parse(raw, path)
    return copy.deepcopy(_PARSED[key])


def _parse(raw: bytes, path: Path) -> dict[str, Any]:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SpecError(path, "", f"not UTF-8 text (byte {exc.start}); data files are TOML text") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise SpecError(path, "", f"not valid TOML ({exc})") from None
    except RecursionError:
        raise SpecError(
            path, "", f"tables or arrays nested too deeply (at most {MAX_DEPTH} levels)"
        ) from None
    if _depth(data) > MAX_DEPTH:
        raise SpecError(path, "", f"tables or arrays nested too deeply (at most {MAX_DEPTH} levels)")
    return data


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in pairs:
        if k in out:
            raise DuplicateKey(k)
        out[k] = v
    return out


def loads_json(text: str) -> Any:
    """The one reader of JSON a user gives dfsim (an option's value such as `--release` or a `--set`
    value, a run folder's JSON files): `json.loads`, but an object naming a key twice raises
    DuplicateKey (a ValueError), and NaN / Infinity, which JSON does not have, are refused too.
    Malformed text raises json.JSONDecodeError, too deep nesting RecursionError, as json.loads does."""
    return json.loads(text, object_pairs_hook=_unique_keys, parse_constant=_no_constant)


def _no_constant(name: str) -> float:
    raise ValueError(f"{name} is not a JSON number")


def _depth(data: Any) -> int:
    """Nesting depth of parsed TOML, without recursion."""
    deepest, stack = 0, [(data, 1)]
    while stack:
        node, d = stack.pop()
        deepest = max(deepest, d)
        if isinstance(node, dict):
            stack.extend((v, d + 1) for v in node.values())
        elif isinstance(node, list):
            stack.extend((v, d + 1) for v in node)
    return deepest


def nearest(name: str, known: list[str]) -> str | None:
    """The known name closest to a mistyped one (`magam` -> `magma`), or None when none is close."""
    match = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
    return match[0] if match else None


def beside(name: str, source: str | Path) -> str:
    """A `.toml` path named inside a data file is read relative to that file (when it exists there);
    anything else is left as given: a bare name is a built-in."""
    if name.endswith(".toml") and not Path(name).is_absolute():
        cand = Path(str(source)).parent / name
        if cand.is_file():
            return str(cand)
    return name


def resolve(kind: str, name_or_path: str | Path) -> Path:
    """A built-in name (`magma`) or a path (`my_board.toml`) to a file path."""
    s = str(name_or_path)
    if len(s) > MAX_NAME or "\x00" in s:
        raise SpecError(f"<{kind} name>", kind, f"not a {kind} name or a file path ({len(s)} characters)")
    p = Path(s)
    if s.endswith(".toml") or p.parent != Path(".") or _is_file(p):
        if not _is_file(p):
            raise SpecError(
                p, "", "file not found" + _builtin_hint(kind, p.stem if s.endswith(".toml") else p.name)
            )
        return p
    candidate = builtin_dir(kind) / f"{s}.toml"
    if _is_file(candidate):
        return candidate
    names = builtin_names(kind)
    guess = nearest(s, names)
    hint = f"did you mean '{guess}'? " if guess else ""
    raise SpecError(
        f"<{kind} name>", kind, f"unknown {kind} '{s}' ({hint}built-in: {', '.join(names) or 'none'})"
    )


MAX_NAME = 4096  # characters of a name or path (the usual PATH_MAX)


def _is_file(p: Path) -> bool:
    """Path.is_file, but a name the system refuses (too long, ...) is simply not a file."""
    try:
        return p.is_file()
    except (OSError, ValueError):
        return False


def _builtin_hint(kind: str, stem: str) -> str:
    """A missing file whose name is a built-in's (`quickstart.toml` run from another folder): name it."""
    names = builtin_names(kind)
    if stem in names:
        return f" (there is a built-in {kind} '{stem}': give its name without a folder or '.toml')"
    guess = nearest(stem, names)
    return f" (a built-in {kind} is named '{guess}')" if guess else ""
