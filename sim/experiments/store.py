"""The output folder of an experiment run: chunk files, manifest, final records.

Why chunks: each finished chunk is written atomically (temporary file, then os.replace), so a run
killed at any instant leaves only whole chunks, and re-running resumes from them. The manifest
holds the experiment hash so records of one experiment are never mixed with another's. The final
records file is assembled by streaming chunk by chunk, so memory does not grow with the run.

Layout::

    OUT/manifest.json                 format, experiment name and hash, state
    OUT/experiment.toml               copy of the experiment file as given (when it was a file)
    OUT/experiment.resolved.json      every cell's resolved scenario (sim.experiment.Experiment.resolved)
    OUT/prepared.json                 per-scenario values solved once per run (the aimed release)
    OUT/chunks/c0003-k000012.parquet  records of chunk 12 of cell 3
    OUT/records.parquet               all records, cell by cell, in throw order
    OUT/summary.json, OUT/report.md, OUT/report.html, OUT/figures/*.png
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import shutil
from collections.abc import Iterable, Iterator
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from sim.errors import SpecError

MANIFEST = "manifest.json"
LOCK = ".lock"
RECORDS = "records.parquet"
CHUNK_DIR = "chunks"
STORE_FORMAT = 1
ROW_GROUP = 16384  # rows per row group of records.parquet
_CHUNK_RE = re.compile(r"^c(\d{4,})-k(\d{6,})\.parquet$")
# files and folders a run writes; --force removes exactly these, nothing else
OWNED = (MANIFEST, RECORDS, CHUNK_DIR, "summary.json", "report.md", "report.html", "figures",
         "experiment.toml", "experiment.resolved.json", "prepared.json")


def _write_atomic(path: Path, data: bytes | str) -> None:
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    mode = "wb" if isinstance(data, bytes) else "w"
    with open(tmp, mode) as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


def write_json(path: Path, obj: Any) -> None:
    """Write `obj` as indented JSON atomically (NaN refused), so a killed run never leaves half a file."""
    _write_atomic(path, json.dumps(obj, indent=2, sort_keys=False, allow_nan=False) + "\n")


class Store:
    """One experiment's output folder. Create it with `Store.prepare` after validating the experiment."""

    def __init__(self, root: str | Path, experiment_hash: str) -> None:
        self.root = Path(root)
        self.hash = experiment_hash
        self.chunk_dir = self.root / CHUNK_DIR

    # ---- opening -----------------------------------------------------------------------------
    @staticmethod
    def check(root: str | Path, experiment_hash: str, force: bool = False) -> None:
        """Refuse (SpecError) to use a folder holding something else, without touching anything."""
        root = Path(root)
        if root.exists() and not root.is_dir():
            raise SpecError(root, "--out", "exists and is not a folder")
        if not root.is_dir() or force:
            return
        manifest = root / MANIFEST
        if manifest.is_file():
            try:
                old = json.loads(manifest.read_text())
            except (OSError, ValueError):
                raise SpecError(manifest, "", "unreadable manifest; use --force to start this folder afresh") from None
            if old.get("experiment_hash") != experiment_hash:
                raise SpecError(
                    root, "--out",
                    f"holds results of a different experiment ('{old.get('name')}', hash {old.get('experiment_hash')}, "
                    f"this one {experiment_hash}); choose another --out or use --force to replace them",
                )
            return
        if any(not p.name.startswith(".") for p in root.iterdir()):
            raise SpecError(root, "--out", "is not empty and holds no dfsim results; use --force to write into it anyway")

    @classmethod
    def prepare(cls, root: str | Path, experiment: Any, force: bool = False) -> Store:
        """Create (or reopen for resuming) the folder for a validated experiment."""
        root = Path(root)
        cls.check(root, experiment.hash, force)
        root.mkdir(parents=True, exist_ok=True)
        store = cls(root, experiment.hash)
        store._lock()
        if force:
            old = root / MANIFEST
            same = False
            if old.is_file():
                try:
                    same = json.loads(old.read_text()).get("experiment_hash") == experiment.hash
                except (OSError, ValueError):
                    same = False
            if not same:
                for name in OWNED:
                    p = root / name
                    if p.is_dir():
                        shutil.rmtree(p)
                    elif p.exists():
                        p.unlink()
        store.chunk_dir.mkdir(exist_ok=True)
        for tmp in store.chunk_dir.glob(".*.tmp*"):  # left by a run killed mid-write
            tmp.unlink()
        for tmp in root.glob(".*.tmp*"):
            tmp.unlink()
        src = Path(experiment.source)
        if src.is_file():
            _write_atomic(root / "experiment.toml", src.read_bytes())
        write_json(root / "experiment.resolved.json", experiment.resolved())
        store.write_manifest(experiment, state="running")
        return store

    def _lock(self) -> None:
        """Hold an exclusive lock on the folder while this run writes to it (released at exit, even kill -9)."""
        fd = os.open(self.root / LOCK, os.O_CREAT | os.O_RDWR, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            raise SpecError(self.root, "--out", "another dfsim run is writing to this folder") from None
        self._lock_fd = fd

    def close(self) -> None:
        """Release the folder lock."""
        fd = getattr(self, "_lock_fd", None)
        if fd is not None:
            os.close(fd)
            self._lock_fd = None

    def write_manifest(self, experiment: Any, state: str, extra: dict | None = None) -> None:
        """Record the experiment's name, hash, cells and run `state`; keeps the first creation time across
        resumes."""
        created = datetime.now(timezone.utc).isoformat(timespec="seconds")
        path = self.root / MANIFEST
        if path.is_file():
            try:
                created = json.loads(path.read_text()).get("created", created)
            except (OSError, ValueError):
                pass
        doc = {
            "format": STORE_FORMAT,
            "name": experiment.name,
            "experiment_hash": experiment.hash,
            "created": created,
            "updated": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "state": state,
            "cells": [c.name for c in experiment.cells],
        }
        doc.update(extra or {})
        write_json(path, doc)

    # ---- chunks ------------------------------------------------------------------------------
    def chunk_path(self, cell: int, chunk: int) -> Path:
        """Where chunk `chunk` of cell `cell` is stored (names sort in cell, chunk order)."""
        return self.chunk_dir / f"c{cell:04d}-k{chunk:06d}.parquet"

    def done_chunks(self) -> set[tuple[int, int]]:
        """(cell, chunk) of every chunk already on disk: what a resumed run skips."""
        done = set()
        for p in self.chunk_dir.glob("c*-k*.parquet"):
            m = _CHUNK_RE.match(p.name)
            if m:
                done.add((int(m.group(1)), int(m.group(2))))
        return done

    def write_chunk(self, cell: int, chunk: int, table: pa.Table) -> None:
        """Write one chunk's records atomically (temporary file, fsync, rename): a chunk file is whole or
        absent."""
        path = self.chunk_path(cell, chunk)
        tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
        pq.write_table(table, tmp, compression="zstd")
        with open(tmp, "rb") as fh:
            os.fsync(fh.fileno())
        os.replace(tmp, path)

    def read_chunk(self, cell: int, chunk: int, columns: list[str] | None = None) -> pa.Table:
        """The records of one stored chunk (optionally only `columns`)."""
        return pq.read_table(self.chunk_path(cell, chunk), columns=columns)

    # ---- final records -----------------------------------------------------------------------
    def finalize(self, chunks: Iterable[tuple[int, int]]) -> Path:
        """Concatenate the given chunks, in the given (throw) order, into records.parquet, streaming."""
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
        tmp = target.with_name(f".{target.name}.tmp{os.getpid()}")
        # gather chunks into row groups of about ROW_GROUP rows: one row group per small chunk would
        # make the file's metadata (and the writer's memory) grow with the number of chunks
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
        os.replace(tmp, target)
        return target

    @property
    def records_path(self) -> Path:
        return self.root / RECORDS

    def iter_cell_batches(self, columns: list[str], batch_size: int = 16384) -> Iterator[tuple[int, pa.Table]]:
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


def _conform(table: pa.Table, schema: pa.Schema) -> pa.Table:
    cols = []
    for f in schema:
        if f.name in table.column_names:
            cols.append(table.column(f.name).cast(f.type))
        else:
            cols.append(pa.nulls(table.num_rows, type=f.type))
    return pa.Table.from_arrays(cols, schema=schema)
