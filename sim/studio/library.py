"""What files the studio may read: the built-in data files and the folders named on the command line,
nothing else. The page never sends a path: it picks an id from a listing the server made, so a
request cannot name a file outside (`../`, an absolute path or a symbolic link out of a folder)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from sim.errors import SpecError
from sim.specs.datafiles import KINDS, beside, builtin_dir, builtin_names, read_toml, resolve

MAX_FILES = 400  # files listed per folder (a picker, not a file manager)
MAX_DEPTH = 4  # sub-folder levels searched


class Library:
    """The folders the user named (checked at start) and the built-in data folders."""

    def __init__(self, folders: list[str | Path] | None = None) -> None:
        self.folders: list[Path] = []
        for f in folders or []:
            p = Path(f).expanduser()
            if not p.is_dir():
                raise SpecError("command line", "--folder", f"'{f}' is not a folder")
            self.folders.append(p.resolve())

    def game_id(self, name_or_path: str) -> str:
        """The id of the game the command line named: a built-in name, or a file (its folder is
        added to the folders the studio may read)."""
        if name_or_path in builtin_names("game") and not Path(name_or_path).suffix:
            return name_or_path
        p = Path(name_or_path).expanduser()
        if not p.is_file():
            resolve("game", name_or_path)  # the loader's one line (unknown name, nearest match)
            raise SpecError("command line", "GAME", f"'{name_or_path}' is not a game file")
        folder = p.resolve().parent
        if folder not in self.folders:
            self.folders.append(folder)
        return f"{self.folders.index(folder)}:{p.resolve().name}"

    def roots(self) -> list[Path]:
        """Every folder a file may be read from."""
        return [*(builtin_dir(k).resolve() for k in KINDS), *self.folders]

    def allowed(self, path: str | Path) -> bool:
        """Whether a path (symbolic links followed) lies inside the built-in data or a named folder."""
        p = Path(path).resolve()
        return any(p == r or p.is_relative_to(r) for r in self.roots())

    def listing(self, kind: str) -> list[dict[str, Any]]:
        """The files of one kind ("game" or "shot"): built-in names, then the folders' files as
        {"id": "<folder>:<relative path>", "label": ...}."""
        out = [{"id": n, "label": n, "builtin": True} for n in builtin_names(kind)]
        for i, folder in enumerate(self.folders):
            for p in _toml_files(folder):
                if _kind_of(p) == kind:
                    rel = p.relative_to(folder).as_posix()
                    out.append({"id": f"{i}:{rel}", "label": f"{folder.name}/{rel}", "builtin": False})
        return out

    def path_of(self, kind: str, ident: str) -> str:
        """A built-in name, or the path of a listed folder file; anything else is refused."""
        if not isinstance(ident, str) or not ident:
            raise SpecError("request", kind, "must be a file id from the studio's listing")
        if ident in builtin_names(kind):
            return ident
        folder_no, sep, rel = ident.partition(":")
        if sep and folder_no.isdigit() and int(folder_no) < len(self.folders):
            folder = self.folders[int(folder_no)]
            p = (folder / rel).resolve()
            if p.is_relative_to(folder) and p.is_file() and p in _toml_files(folder):
                return str(p)
        raise SpecError("request", kind, f"'{ident}' is not a built-in {kind} or a file of a named folder")

    def check_game(self, spec: Any) -> None:
        """Refuse a game whose decks or throw files lie outside what the studio may read."""
        refs = [("deck", f"decks.{i}", beside(d, spec.source)) for i, d in enumerate(spec.decks)]
        t = spec.throws
        refs += [("board", "throws.board", t.board), ("skill", "throws.skill", t.skill)]
        refs += [("shot", "throws.shot", t.shot)]
        refs += [("die", "throws.colored_die", t.colored_die), ("die", "throws.white_die", t.white_die)]
        for kind, field, name in refs:
            path = resolve(kind, name)
            if not self.allowed(path):
                raise SpecError(spec.source, field, f"'{name}' lies outside the folders the studio may read")


def _toml_files(folder: Path) -> list[Path]:
    out: list[Path] = []
    for root, dirs, files in os.walk(folder, followlinks=False):
        depth = len(Path(root).relative_to(folder).parts)
        dirs[:] = sorted(d for d in dirs if not d.startswith(".")) if depth < MAX_DEPTH else []
        for f in sorted(files):
            p = Path(root) / f
            if f.endswith(".toml") and not f.startswith(".") and p.resolve().is_relative_to(folder):
                out.append(p.resolve())
                if len(out) >= MAX_FILES:
                    return out
    return out


def _kind_of(path: Path) -> str:
    """ "game" for a game file, "shot" for a shot file (it has a [release]), else ""."""
    try:
        data = read_toml(path)
    except SpecError:
        return ""
    if data.get("kind") == "game":
        return "game"
    if isinstance(data.get("release"), dict) and "kind" not in data:
        return "shot"
    return ""
