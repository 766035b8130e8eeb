"""The output folder of an experiment run: chunk files, manifest, final records.

Why chunks: each finished chunk is written atomically (temporary file, then os.replace), so a run
killed at any instant leaves only whole chunks, and re-running resumes from them. The manifest
holds the experiment hash, so records of one experiment are never mixed with another's, and the
sha256 of every chunk and of prepared.json, so a chunk is trusted only as the run wrote it (see
sim.experiments.integrity). A chunk becomes visible under its name only after the manifest that
records its hash is on disk. The final records file is assembled by streaming chunk by chunk, so
memory does not grow with the run.

Layout::

    OUT/manifest.json                 format, experiment name and hash, state, plan, sha256 of chunks...
    OUT/experiment.toml               copy of the experiment file as given (when it was a file)
    OUT/experiment.resolved.json      every cell's resolved scenario (Experiment.resolved)
    OUT/prepared.json                 per-scenario values solved once per run (the aimed release)
    OUT/chunks/c0003-k000012.parquet  records of chunk 12 of cell 3
    OUT/records.parquet               all records, cell by cell, in throw order
    OUT/summary.json, OUT/report.md, OUT/report.html, OUT/figures/*.png

`--force` removes only these files, by exact name (figures: a figure's name and the sha256 the
manifest recorded when it was drawn), never a folder it did not make empty, and never through a
symbolic link (sim/files.py).
"""

from __future__ import annotations

import errno
import fcntl
import functools
import json
import os
import re
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from sim import files, plugins
from sim.engine.run_folder import (
    CHUNK_DIR,
    CHUNK_RE,
    EXPERIMENT_COPY,
    FIGURE_DIR,
    LOCK,
    MANIFEST,
    PREPARED,
    RECORDS,
    REPORT_FILES,
    REPORT_HTML,
    RESOLVED,
    chunk_name,
)
from sim.errors import SpecError
from sim.experiments.integrity import read_json_object, sha256_bytes, sha256_file, value_digest
from sim.provenance import machine

FIGURE_HASHES = "figure_sha256"  # manifest key: {figure file name: sha256 at write time}
REPORT_HASHES = "report_sha256"  # manifest key: {summary.json, report.md, report.html: sha256 at write time}
STORE_FORMAT = 2  # 2: sha256 of every chunk and of prepared.json, and the chunk plan, in the manifest
ROW_GROUP = 16384  # rows per row group of records.parquet
STRAY_CHUNK = "is not part of the experiment's plan"  # a chunk name no cell and chunk of the plan has
# the files a run writes in OUT; --force removes exactly these (and chunk files, and its figures)
OWNED_FILES = (MANIFEST, RECORDS, *REPORT_FILES, EXPERIMENT_COPY, RESOLVED, PREPARED)
# the figures runs draw (a figure of many cells continues in landing-2.png, landing-3.png, ...): a
# throw run's, and those the other experiment kinds declare (sim/plugins.py)
FIGURES = ("landing", "outcomes", "sections", "damage", "comparison", "sweep")


@functools.cache
def figure_re() -> re.Pattern[str]:
    """The names of every figure a run may draw."""
    stems = (*FIGURES, *(f for k in plugins.experiment_kinds() for f in k.figures))
    return re.compile(r"^(" + "|".join(re.escape(s) for s in stems) + r")(-\d+)?\.png$")


def _write_atomic(path: Path, data: bytes | str) -> None:
    files.write_atomic(path, data, sync=True)


def _unlink_quietly(path: Path) -> None:
    try:
        path.unlink()
    except OSError:
        pass


def write_json(path: Path, obj: Any) -> None:
    """Write `obj` as indented JSON atomically (NaN refused), so a killed run never leaves half a file."""
    _write_atomic(path, json.dumps(obj, indent=2, sort_keys=False, allow_nan=False) + "\n")


def _is_chunk_file(name: str) -> bool:
    return bool(CHUNK_RE.match(name))


def _is_figure(name: str) -> bool:
    return bool(figure_re().match(name))


def _owned_name(owned: Iterable[str]) -> Callable[[str], bool]:
    """Whether a file name is one a run writes (for its temporaries: the name they stand for)."""
    names = set(owned)
    return lambda name: name in names or _is_chunk_file(name)


@dataclass
class Folder:
    """What an existing output folder holds, read without changing anything."""

    root: Path
    manifest: dict | None  # a well-formed dfsim manifest, else None
    manifest_problem: str | None  # why manifest.json is not one (None when it is, or is absent)
    manifest_exists: bool
    resolved_hash: str | None
    has_chunks: bool

    @classmethod
    def read(cls, root: Path) -> Folder:
        """Look at `root` (which must be a folder) without changing anything."""
        path = root / MANIFEST
        doc, problem = read_json_object(path)
        if doc is not None and not isinstance(doc.get("experiment_hash"), str):
            doc, problem = None, "is not a dfsim manifest (no experiment_hash)"
        resolved, _ = read_json_object(root / RESOLVED)
        rhash = resolved.get("hash") if resolved else None
        chunk_dir = root / CHUNK_DIR
        has_chunks = (
            chunk_dir.is_dir()
            and not chunk_dir.is_symlink()
            and any(_is_chunk_file(p.name) for p in chunk_dir.iterdir())
        )
        return cls(
            root,
            doc,
            problem,
            path.exists() or path.is_symlink(),
            rhash if isinstance(rhash, str) else None,
            has_chunks,
        )

    @property
    def identity(self) -> str | None:
        """The hash of the experiment whose results these are, when it can be told."""
        return self.manifest["experiment_hash"] if self.manifest else self.resolved_hash

    @property
    def held_run(self) -> bool:
        """Whether a dfsim run wrote here (perhaps damaged), rather than the folder being the user's."""
        return self.identity is not None or (
            self.manifest_exists and (self.resolved_hash is not None or self.has_chunks)
        )

    def collisions(self) -> list[Path]:
        """Files a run would overwrite although dfsim did not write them (in a folder that never held a
        run)."""
        out = [self.root / n for n in OWNED_FILES if (self.root / n).exists() or (self.root / n).is_symlink()]
        for sub, wanted in ((CHUNK_DIR, _is_chunk_file), (FIGURE_DIR, _is_figure)):
            d = self.root / sub
            if d.is_dir() and not d.is_symlink():
                out += sorted(p for p in d.iterdir() if wanted(p.name))
        return out


def refusals(root: Path) -> list[SpecError]:
    """Why a run would refuse the existing folder `root` before any work, in the words it would use.

    Why one list: `Store.check` raises the first, and `dfsim doctor` reports them all as what a
    rerun does, so doctor never calls healthy (or promises a repair in) a folder a rerun refuses.
    A run writes only real files and folders it made, so a link or a folder where it writes
    (`.lock`, `chunks/`, `figures/`, a chunk's, a figure's or a report's name) is refused, never removed.
    """
    out: list[SpecError] = []
    for sub in (CHUNK_DIR, FIGURE_DIR):
        p = root / sub
        if p.is_symlink():
            out.append(
                SpecError(
                    p,
                    "",
                    "is a symbolic link; dfsim writes and removes only in real folders it "
                    "made (remove the link or choose another --out)",
                )
            )
        elif p.exists() and not p.is_dir():
            out.append(SpecError(p, "", "is not a folder; move it away or choose another --out"))
    lock = root / LOCK
    if lock.is_symlink():
        out.append(SpecError(lock, "", "is a symbolic link; remove it"))
    elif lock.exists() and not lock.is_file():
        out.append(SpecError(lock, "", "is not a regular file (it marks a run in progress); remove it"))
    # what a run writes by renaming a new file over it (a chunk is also read back): a link or a folder
    # under such a name is neither written through nor replaced
    places = [(root / n, "the name of a file a run writes") for n in OWNED_FILES]
    for sub, wanted, what in (
        (CHUNK_DIR, _is_chunk_file, "a chunk's name"),
        (FIGURE_DIR, _is_figure, "a figure's name"),
    ):
        d = root / sub
        if d.is_dir() and not d.is_symlink():
            places += [(p, what) for p in sorted(d.iterdir()) if wanted(p.name)]
    for p, what in places:
        if p.is_symlink() or (p.exists() and not p.is_file()):
            kind = "a symbolic link" if p.is_symlink() else "not a regular file"
            out.append(
                SpecError(
                    p,
                    "",
                    f"has {what} but is {kind}, which a run neither writes through nor "
                    "replaces; move it away",
                )
            )
    return out


class Store:
    """One experiment's output folder. Create it with `Store.prepare` after validating the experiment."""

    def __init__(self, root: str | Path, experiment_hash: str) -> None:
        self.root = Path(root)
        self.hash = experiment_hash
        self.chunk_dir = self.root / CHUNK_DIR
        self.doc: dict[str, Any] = {}
        self.manifest_problem: str | None = None  # why the manifest found on opening was not usable
        self.hashes_known = True  # False: the chunk hashes were lost (damaged or old manifest)
        self.manifest_outdated = False  # the manifest is sound but older than chunk hashes
        self._pending: dict[tuple[int, int], Path] = {}  # chunks written, visible after the next manifest
        self._dirty = False
        self._next_flush = 0.0
        self._lock_fd: int | None = None
        self.records_sha256: str | None = None

    # ---- opening -----------------------------------------------------------------------------
    @staticmethod
    def check(root: str | Path, experiment_hash: str, force: bool = False) -> None:
        """Refuse (SpecError) to use a folder holding something else, without touching anything."""
        root = Path(root)
        if root.exists() and not root.is_dir():
            raise SpecError(root, "--out", "exists and is not a folder")
        if not root.is_dir():
            return
        refused = refusals(root)
        if refused:
            raise refused[0]
        folder = Folder.read(root)
        if folder.identity == experiment_hash:
            return
        if folder.identity is not None:
            if force:
                return
            m = folder.manifest or {}
            raise SpecError(
                root,
                "--out",
                f"holds results of a different experiment ('{m.get('name', '?')}', hash {folder.identity}, "
                f"this one {experiment_hash}); choose another --out or use --force to replace them",
            )
        if folder.held_run:
            if force:
                return
            raise SpecError(
                root,
                "--out",
                f"holds dfsim results of an experiment that cannot be told (manifest.json "
                f"{folder.manifest_problem}, and no readable {RESOLVED}); use --force to start it afresh",
            )
        if not any(not p.name.startswith(".") for p in root.iterdir()):
            return
        if not force:
            raise SpecError(
                root, "--out", "is not empty and holds no dfsim results; use --force to write into it anyway"
            )
        clash = folder.collisions()
        if clash:
            raise SpecError(
                clash[0],
                "",
                "a run would overwrite this file, which dfsim did not write (the folder "
                "holds no dfsim run); move it away or choose another --out",
            )

    @classmethod
    def prepare(
        cls, root: str | Path, experiment: Any, force: bool = False, plan: dict | None = None
    ) -> Store:
        """Create (or reopen for resuming) the folder for a validated experiment.

        The manifest is written first, so a run stopped at any later point (even by a full disk)
        leaves a folder the next run recognises and resumes.
        """
        root = Path(root)
        cls.check(root, experiment.hash, force)
        root.mkdir(parents=True, exist_ok=True)
        store = cls(root, experiment.hash)
        store._lock()
        try:
            store._open(experiment, force, plan)
        except BaseException:
            store.close()
            raise
        return store

    def _open(self, experiment: Any, force: bool, plan: dict | None) -> None:
        folder = Folder.read(self.root)  # again, now that the folder is locked
        old = folder.manifest if folder.identity == experiment.hash else None
        if folder.identity != experiment.hash and folder.held_run and force:
            remove_run_files(self.root, folder.manifest)
        elif folder.identity == experiment.hash:
            if old is None:
                self.manifest_problem = folder.manifest_problem or "is missing"
            elif not isinstance(old.get("chunks"), dict):
                self.manifest_problem = "was written by an older dfsim without chunk hashes"
                self.manifest_outdated = True
            self.hashes_known = self.manifest_problem is None
        now = datetime.now(timezone.utc).isoformat(timespec="seconds")
        old = old or {}
        prepared = old.get("prepared") if self.hashes_known else None
        drawn = old.get(FIGURE_HASHES)  # the figures an earlier run in this folder drew: what may be replaced
        self.drawn_figures: dict[str, str] = dict(drawn) if isinstance(drawn, dict) else {}
        self.doc = {
            "format": STORE_FORMAT,
            "name": experiment.name,
            "experiment_hash": experiment.hash,
            "created": old.get("created", now) if isinstance(old.get("created"), str) else now,
            "updated": now,
            "state": "running",
            "cells": [c.name for c in experiment.cells],
            "plan": plan,
            "chunks": dict(old["chunks"])
            if self.hashes_known and isinstance(old.get("chunks"), dict)
            else {},
            "prepared": dict(prepared) if isinstance(prepared, dict) else None,
            "prepared_sha256": old.get("prepared_sha256") if self.hashes_known else None,
            # where the records were made (a resumed run keeps the first machine; a run resumed
            # elsewhere lists that machine too): what a replay elsewhere can promise
            "machines": _machines(old.get("machines"), machine()),
        }
        self._extra_keys: set[str] = set()
        if not self.hashes_known:
            self.doc["chunks"] = None  # until the runner has checked the chunks on disk by range
        self.flush(force=True)
        self.chunk_dir.mkdir(exist_ok=True)
        owned = _owned_name((*OWNED_FILES, LOCK))
        for d in (self.root, self.chunk_dir):  # temporaries left by a run killed mid-write
            for p in d.iterdir():
                files.remove_temporary(p, owned)
        src = Path(experiment.source)
        if src.is_file():
            _write_atomic(self.root / EXPERIMENT_COPY, src.read_bytes())
        write_json(self.root / RESOLVED, experiment.resolved())

    def _lock(self) -> None:
        """Hold an exclusive lock on the folder while this run writes to it (released at exit, even kill
        -9)."""
        path = self.root / LOCK
        if path.is_symlink():
            raise SpecError(path, "", "is a symbolic link; remove it")
        fd = os.open(path, os.O_CREAT | os.O_RDWR | getattr(os, "O_NOFOLLOW", 0), 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            os.close(fd)
            if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                raise SpecError(self.root, "--out", "another dfsim run is writing to this folder") from None
            raise
        self._lock_fd = fd

    def close(self) -> None:
        """Release the folder lock."""
        if self._lock_fd is not None:
            os.close(self._lock_fd)
            self._lock_fd = None

    # ---- manifest ----------------------------------------------------------------------------
    def write_manifest(self, experiment: Any, state: str, extra: dict | None = None) -> None:
        """Record the run's state (and any extra keys); written at once, with every chunk so far."""
        for k in self._extra_keys:
            self.doc.pop(k, None)
        self._extra_keys = set(extra or {})
        self.doc.update(extra or {})
        self.doc["state"] = state
        self.flush(force=True)

    def flush(self, force: bool = False) -> None:
        """Write the manifest, then make the chunks it now records visible under their names.

        Without `force` at most about 5 % of the time goes to rewriting the manifest: a run of
        a million tiny chunks does not rewrite a growing file after each one.
        """
        if not force and not self._pending and not self._dirty:
            return
        t0 = time.monotonic()
        self.doc["updated"] = datetime.now(timezone.utc).isoformat(timespec="seconds")
        doc = dict(self.doc)
        if isinstance(doc.get("chunks"), dict):
            doc["chunks"] = dict(sorted(doc["chunks"].items()))
        write_json(self.root / MANIFEST, doc)
        for (c, j), tmp in list(self._pending.items()):
            os.replace(tmp, self.chunk_path(c, j))
            del self._pending[(c, j)]
        self._dirty = False
        self._next_flush = time.monotonic() + 20 * (time.monotonic() - t0)

    def _chunks(self) -> dict[str, str]:
        if self.doc.get("chunks") is None:
            self.doc["chunks"] = {}
        return self.doc["chunks"]

    def recorded_hash(self, cell: int, chunk: int) -> str | None:
        """The sha256 the manifest holds for a chunk (None: not recorded, or hashes unknown)."""
        return (self.doc.get("chunks") or {}).get(chunk_name(cell, chunk))

    def recorded_chunks(self) -> set[tuple[int, int]]:
        """(cell, chunk) of every chunk whose hash the manifest holds."""
        out = set()
        for name in self.doc.get("chunks") or {}:
            m = CHUNK_RE.match(name + ".parquet")
            if m:
                out.add((int(m.group(1)), int(m.group(2))))
        return out

    def record(self, cell: int, chunk: int, digest: str) -> None:
        """Trust a chunk already on disk (checked by range when the hashes were lost)."""
        self._chunks()[chunk_name(cell, chunk)] = digest
        self._dirty = True

    def forget(self, cell: int, chunk: int) -> None:
        """Stop trusting a chunk: it is recomputed (and its file replaced) by this run."""
        self._chunks().pop(chunk_name(cell, chunk), None)
        self._dirty = True

    # ---- prepared values ---------------------------------------------------------------------
    @property
    def prepared_path(self) -> Path:
        """Where the per-scenario prepared values (the aimed releases) are kept."""
        return self.root / PREPARED

    def prepared_digests(self) -> dict[str, str] | None:
        """Per scenario key, the digest of the prepared value its chunks were thrown with (None: unknown)."""
        d = self.doc.get("prepared")
        return d if isinstance(d, dict) else None

    def prepared_file_matches(self) -> bool:
        """Whether prepared.json is, byte for byte, the file whose sha256 the manifest recorded."""
        want = self.doc.get("prepared_sha256")
        try:
            return isinstance(want, str) and sha256_file(self.prepared_path) == want
        except OSError:
            return False

    def write_prepared(self, values: dict[str, Any]) -> None:
        """Write prepared.json and record its hash and each value's digest in the manifest."""
        text = json.dumps(values, indent=2, allow_nan=False) + "\n"
        self.doc["prepared"] = {k: value_digest(v) for k, v in values.items()}
        self.doc["prepared_sha256"] = sha256_bytes(text.encode())
        _write_atomic(self.prepared_path, text)
        self.flush(force=True)

    # ---- chunks ------------------------------------------------------------------------------
    def chunk_path(self, cell: int, chunk: int) -> Path:
        """Where chunk `chunk` of cell `cell` is stored (names sort in cell, chunk order)."""
        return self.chunk_dir / f"{chunk_name(cell, chunk)}.parquet"

    def done_chunks(self) -> set[tuple[int, int]]:
        """(cell, chunk) of every chunk file on disk (not yet verified: see the runner)."""
        done = set()
        for p in self.chunk_dir.iterdir():
            m = CHUNK_RE.match(p.name)
            if m:
                done.add((int(m.group(1)), int(m.group(2))))
        return done

    def write_chunk(self, cell: int, chunk: int, table: pa.Table) -> None:
        """Write a chunk and record its hash; it takes its name once the manifest holds the hash."""
        buf = pa.BufferOutputStream()
        pq.write_table(table, buf, compression="zstd")
        data = buf.getvalue().to_pybytes()
        tmp = files.temp_file(self.chunk_path(cell, chunk))
        _write_atomic_file(tmp, data)
        self._pending[(cell, chunk)] = tmp
        self.record(cell, chunk, sha256_bytes(data))
        if time.monotonic() >= self._next_flush:
            self.flush()

    def drop_chunk(self, cell: int, chunk: int) -> None:
        """Remove a chunk this run wrote or verified (e.g. one past a stopping point)."""
        tmp = self._pending.pop((cell, chunk), None)
        if tmp is not None:
            _unlink_quietly(tmp)
        path = self.chunk_path(cell, chunk)
        if path.is_file() or path.is_symlink():
            path.unlink()
        self.forget(cell, chunk)

    def read_chunk(self, cell: int, chunk: int, columns: list[str] | None = None) -> pa.Table:
        """The records of one stored chunk (optionally only `columns`)."""
        return pq.read_table(self.chunk_path(cell, chunk), columns=columns)

    # ---- final records -----------------------------------------------------------------------
    def finalize(self, chunks: Iterable[tuple[int, int]]) -> Path:
        """Concatenate the given chunks, in the given (throw) order, into records.parquet, streaming.

        Its sha256 is kept in `records_sha256` (the runner records it in the manifest).
        """
        self.flush(force=True)
        chunks = list(chunks)
        if not chunks:
            raise ValueError("no records to write")
        # a column that is null throughout one chunk (e.g. 'section' when every throw missed) has type null
        # there; unify so every chunk is cast to one schema, keeping the first chunk's column order
        schema = pq.read_schema(self.chunk_path(*chunks[0]))
        for c, k in chunks[1:]:
            other = pq.read_schema(self.chunk_path(c, k))
            if not other.equals(schema):
                schema = pa.unify_schemas([schema, other], promote_options="permissive")
        target = self.root / RECORDS
        if target.is_symlink():
            raise SpecError(target, "", "is a symbolic link; dfsim does not write through links (remove it)")
        tmp = files.temp_file(target)
        # gather chunks into row groups of about ROW_GROUP rows: one row group per small chunk would
        # make the file's metadata (and the writer's memory) grow with the number of chunks
        try:
            with pq.ParquetWriter(tmp, schema, compression="zstd") as writer:
                pending: list[pa.Table] = []
                rows = 0
                for c, k in chunks:
                    table = _conform(self.read_chunk(c, k), schema)
                    pending.append(table)
                    rows += table.num_rows
                    if rows >= ROW_GROUP:
                        writer.write_table(pa.concat_tables(pending), row_group_size=ROW_GROUP)
                        pending, rows = [], 0
                if pending:
                    writer.write_table(pa.concat_tables(pending), row_group_size=ROW_GROUP)
            with open(tmp, "rb") as fh:
                os.fsync(fh.fileno())
            self.records_sha256 = sha256_file(tmp)
            os.replace(tmp, target)
        except BaseException:
            _unlink_quietly(tmp)
            raise
        return target

    @property
    def records_path(self) -> Path:
        """The final records file."""
        return self.root / RECORDS

    def iter_cell_batches(
        self, columns: list[str], batch_size: int = 16384
    ) -> Iterator[tuple[int, pa.Table]]:
        """Yield (cell index, table) pieces of the final records, in order, each within one cell.

        Memory is bounded by batch_size rows whatever the size of the run.
        """
        pf = pq.ParquetFile(self.records_path)
        have = set(pf.schema_arrow.names)
        cols = ["cell"] + [c for c in columns if c in have and c != "cell"]
        for batch in pf.iter_batches(columns=cols, batch_size=batch_size):
            t = pa.Table.from_batches([batch])
            cells = t.column("cell").to_numpy()
            cuts = np.flatnonzero(np.diff(cells)) + 1
            for start, stop in zip(np.r_[0, cuts], np.r_[cuts, len(cells)], strict=True):
                yield int(cells[start]), t.slice(int(start), int(stop - start))

    def iter_cell_columns(self, columns: list[str]) -> Iterator[tuple[int, pa.Table]]:
        """Yield (cell index, table of the requested columns), one whole cell at a time."""
        current: int | None = None
        parts: list[pa.Table] = []
        for cell, piece in self.iter_cell_batches(columns):
            if current is not None and cell != current:
                yield current, pa.concat_tables(parts)
                parts = []
            current = cell
            parts.append(piece)
        if current is not None:
            yield current, pa.concat_tables(parts)


def _write_atomic_file(path: Path, data: bytes) -> None:
    """Write `path` itself (a temporary file of ours already, never a link) and fsync it."""
    try:
        with os.fdopen(os.open(path, os.O_WRONLY | os.O_TRUNC | os.O_NOFOLLOW), "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
    except BaseException:
        _unlink_quietly(path)
        raise


def figure_hashes(paths: Iterable[str | Path]) -> dict[str, str]:
    """The manifest's record of the figures a run wrote (name -> sha256), what `--force` may remove."""
    out = {}
    for f in paths:
        digest = files.sha256_of(f)
        if digest is not None:
            out[Path(f).name] = digest
    return out


def report_hashes(root: Path) -> dict[str, str]:
    """The manifest's record of the reports a run wrote (name -> sha256): what `dfsim doctor` checks."""
    out = {}
    for name in REPORT_FILES:
        digest = files.sha256_of(root / name)
        if digest is not None:
            out[name] = digest
    return out


def record_report(root: str | Path, name: str = REPORT_HTML) -> bool:
    """After a command other than the run rewrote one of its reports (`dfsim report-html`): the new
    sha256 in the manifest, so that `dfsim doctor` does not take the new page for damage. Done under the
    folder's lock, so a run writing there now keeps the last word; False when nothing was recorded
    (a run holds the folder, or it is not a complete run that records its reports)."""
    root = Path(root)
    lock = root / LOCK
    if lock.is_symlink() or not lock.is_file():
        return False
    fd = os.open(lock, os.O_RDWR | getattr(os, "O_NOFOLLOW", 0))
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return False
        doc, _ = read_json_object(root / MANIFEST)
        digest = files.sha256_of(root / name)
        if (
            doc is None
            or doc.get("state") != "complete"
            or not isinstance(doc.get(REPORT_HASHES), dict)
            or not digest
        ):
            return False
        doc[REPORT_HASHES][name] = digest
        write_json(root / MANIFEST, doc)
        return True
    finally:
        os.close(fd)


def remove_run_files(root: Path, manifest: dict | None) -> None:
    """Remove what a run writes in `root`, by exact name, never following a symbolic link.

    Top-level files of OWNED_FILES, chunk files in chunks/, the figures the run wrote (a figure's name
    and the sha256 the manifest recorded when it was drawn: a file the user put there or changed
    stays), and dfsim's own temporaries; chunks/ and figures/ go only when that leaves them empty.
    Anything else (a user's notes, photos, READMEs) stays.
    """
    for name in OWNED_FILES:
        p = root / name
        if p.is_symlink() or p.is_file():
            p.unlink()
    recorded = (manifest or {}).get(FIGURE_HASHES)
    recorded = recorded if isinstance(recorded, dict) else {}
    owned = _owned_name(OWNED_FILES)
    chunks, figs = root / CHUNK_DIR, root / FIGURE_DIR
    for d in (chunks, figs):
        if d.is_symlink() or not d.is_dir():
            continue
        for p in d.iterdir():
            if files.remove_temporary(p, lambda n: owned(n) or _is_figure(n)):
                continue
            if d == chunks and _is_chunk_file(p.name) and (p.is_symlink() or p.is_file()):
                p.unlink()
            elif d == figs:
                files.remove_written(p, _is_figure, recorded.get(p.name))
        try:
            d.rmdir()
        except OSError:  # not empty: it holds something dfsim did not write
            pass
    for p in root.iterdir():
        files.remove_temporary(p, owned)


def _conform(table: pa.Table, schema: pa.Schema) -> pa.Table:
    cols = []
    for f in schema:
        if f.name in table.column_names:
            cols.append(table.column(f.name).cast(f.type))
        else:
            cols.append(pa.nulls(table.num_rows, type=f.type))
    return pa.Table.from_arrays(cols, schema=schema)


def _machines(old: Any, here: dict) -> list[dict]:
    """The machines a run's records were made on, this one added once."""
    kept = [m for m in old if isinstance(m, dict)] if isinstance(old, list) else []
    return kept if here in kept else [*kept, here]
