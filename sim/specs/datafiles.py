"""Finding and reading the TOML data files, built-in (by name) or the user's (by path)."""

from __future__ import annotations

import difflib
import sys
from importlib import resources
from pathlib import Path
from typing import Any

from sim.errors import SpecError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

_REPO = Path(__file__).resolve().parents[2]

# kind -> (top-level data package, sub-folder)
KINDS: dict[str, tuple[str, str]] = {
    "board": ("boards", ""),
    "die": ("boards", "dice"),
    "material": ("boards", "materials"),
    "template": ("boards", "templates"),
    "prop": ("boards", "props"),
    "shot": ("shots", ""),
    "skill": ("shots", "skills"),
    "experiment": ("experiments", ""),
    "monster": ("monsters", ""),
    "fight": ("fights", ""),
}


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
    d = builtin_dir(kind)
    if not d.is_dir():
        return []
    return sorted(p.stem for p in d.glob("*.toml"))


def read_toml(path: Path) -> dict[str, Any]:
    """Parse a TOML file; missing, unreadable or malformed files raise SpecError instead of OSError."""
    try:
        with open(path, "rb") as fh:
            return tomllib.load(fh)
    except FileNotFoundError:
        raise SpecError(path, "", "file not found") from None
    except tomllib.TOMLDecodeError as exc:
        raise SpecError(path, "", f"not valid TOML ({exc})") from None
    except OSError as exc:
        raise SpecError(path, "", f"cannot read ({exc.strerror})") from None


def nearest(name: str, known: list[str]) -> str | None:
    """The known name closest to a mistyped one (`magam` -> `magma`), or None when none is close."""
    match = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
    return match[0] if match else None


def resolve(kind: str, name_or_path: str | Path) -> Path:
    """A built-in name (`magma`) or a path (`my_board.toml`) to a file path."""
    s = str(name_or_path)
    p = Path(s)
    if s.endswith(".toml") or p.parent != Path(".") or p.is_file():
        if not p.is_file():
            raise SpecError(p, "", "file not found" + _builtin_hint(kind, p.stem if s.endswith(".toml") else p.name))
        return p
    candidate = builtin_dir(kind) / f"{s}.toml"
    if candidate.is_file():
        return candidate
    names = builtin_names(kind)
    guess = nearest(s, names)
    hint = f"did you mean '{guess}'? " if guess else ""
    raise SpecError(f"<{kind} name>", kind, f"unknown {kind} '{s}' ({hint}built-in: {', '.join(names) or 'none'})")


def _builtin_hint(kind: str, stem: str) -> str:
    """A missing file whose name is a built-in's (`quickstart.toml` run from another folder): name it."""
    names = builtin_names(kind)
    if stem in names:
        return f" (there is a built-in {kind} '{stem}': give its name without a folder or '.toml')"
    guess = nearest(stem, names)
    return f" (a built-in {kind} is named '{guess}')" if guess else ""
