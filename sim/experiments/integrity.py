"""What a results folder must prove before its records are trusted: hashes, ranges and schemas.

Why: a chunk file is only a name on disk. A chunk overwritten by another valid chunk, a truncated
file or an edited aim would otherwise flow silently into the final records. So every chunk is
trusted only when its sha256 matches the one the run recorded in the manifest *and* its rows are
exactly the throws its name stands for (cell, throw indices, seed, scenario); records coming back
from a worker pass the same range check before they are stored. The chunk plan is arithmetic, so
a run planned for ten million chunks costs no memory until chunks are done.
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from sim.errors import DuplicateKey
from sim.specs.datafiles import loads_json

# the columns every chunk of every run carries; they locate its rows in the plan
LOCATING = ("cell", "index", "seed")


def sha256_bytes(data: bytes) -> str:
    """The hex sha256 of `data`."""
    return hashlib.sha256(data).hexdigest()


def sha256_file(path: Path) -> str:
    """The hex sha256 of a file's content, read in blocks."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def value_digest(value: Any) -> str:
    """A stable hash of a JSON-able value (a prepared aim), independent of key order and layout."""
    return sha256_bytes(json.dumps(value, sort_keys=True, separators=(",", ":"), allow_nan=False).encode())


@dataclass(frozen=True)
class ChunkLayout:
    """Index ranges of the chunks of one cell: `first` throws split by `size`, then on to `most`.

    The boundary at `first` is always a chunk end, so a stopping rule is first checked there.
    Computed, never listed: chunk j's range is arithmetic.
    """

    first: int
    most: int
    size: int

    @property
    def _head(self) -> int:
        return -(-self.first // self.size)

    @property
    def count(self) -> int:
        return self._head + -(-(self.most - self.first) // self.size)

    def bounds(self, j: int) -> tuple[int, int]:
        """Throw indices [start, stop) of chunk j."""
        if not 0 <= j < self.count:
            raise IndexError(f"chunk {j} is outside the plan (0..{self.count - 1})")
        if j < self._head:
            s = j * self.size
            return s, min(s + self.size, self.first)
        s = self.first + (j - self._head) * self.size
        return s, min(s + self.size, self.most)


@dataclass(frozen=True)
class Plan:
    """What the chunks of a run must hold: seed, layout and one scenario key per cell (JSON-able)."""

    seed: int
    layout: ChunkLayout
    keys: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        """The plan as the manifest keeps it."""
        lay = self.layout
        return {
            "seed": self.seed,
            "first": lay.first,
            "most": lay.most,
            "size": lay.size,
            "keys": list(self.keys),
        }

    @classmethod
    def from_json(cls, doc: Any) -> Plan | None:
        """The plan a manifest holds (None when it holds none, or a damaged one)."""
        try:
            lay = ChunkLayout(int(doc["first"]), int(doc["most"]), int(doc["size"]))
            if lay.size < 1 or lay.first < 1 or lay.most < lay.first:
                return None
            return cls(int(doc["seed"]), lay, tuple(str(k) for k in doc["keys"]))
        except (TypeError, KeyError, ValueError):
            return None


def check_records(
    table: Any,
    cell: int,
    start: int,
    stop: int,
    seed: int,
    key: str | None = None,
    reference: pa.Schema | None = None,
) -> str | None:
    """Why `table` is not the records of throws start..stop-1 of `cell` (None when it is).

    `reference` is the schema of the cell's other chunks: the column names must be the same and
    their types compatible (a column that is null throughout one chunk has type null).
    """
    if not isinstance(table, pa.Table):
        return f"is a {type(table).__name__}, not a table of records"
    n = stop - start
    if table.num_rows != n:
        return f"holds {table.num_rows} records, expected {n}"
    names = table.column_names
    for col in LOCATING:
        if col not in names:
            return f"has no '{col}' column"
        if not pa.types.is_integer(table.schema.field(col).type):
            return f"column '{col}' is {table.schema.field(col).type}, not integers"
        if table.column(col).null_count:
            return f"column '{col}' has empty values"
    cells = table.column("cell").to_numpy()
    if (cells != cell).any():
        return f"holds records of cell {int(cells[cells != cell][0])}, expected cell {cell}"
    idx = table.column("index").to_numpy()
    if not np.array_equal(idx, np.arange(start, stop)):
        return f"holds throws {int(idx.min())}..{int(idx.max())}, expected {start}..{stop - 1}"
    seeds = table.column("seed").to_numpy()
    if (seeds != seed).any():
        return f"was thrown with seed {int(seeds[seeds != seed][0])}, expected {seed}"
    if key is not None and "scenario_key" in names:
        keys = set(table.column("scenario_key").to_pylist())
        if keys != {key}:
            return f"holds records of scenario {sorted(map(str, keys))[0]}, expected {key}"
    if reference is not None:
        missing = [c for c in reference.names if c not in names]
        extra = [c for c in names if c not in reference.names]
        if missing or extra:
            what = ", ".join([f"no '{c}'" for c in missing[:2]] + [f"unexpected '{c}'" for c in extra[:2]])
            return f"has other columns than the cell's other chunks ({what})"
        try:
            pa.unify_schemas([reference, table.schema], promote_options="permissive")
        except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
            return f"has column types that differ from the cell's other chunks ({short_error(exc)})"
    return None


def verify_chunk(
    path: Path,
    recorded: str | None,
    hashes_known: bool,
    cell: int,
    start: int,
    stop: int,
    seed: int,
    key: str | None,
    reference: pa.Schema | None = None,
) -> tuple[pa.Table | None, str | None, str | None]:
    """(table, sha256, None) for a chunk file that can be trusted, else (None, sha256 or None, why not).

    With `hashes_known` the file must match the `recorded` hash; without (the manifest was lost)
    only the range checks stand between the file and the records.
    """
    if path.is_symlink() or not path.is_file():
        return None, None, "is not a regular file"
    try:
        data = path.read_bytes()
    except OSError as exc:
        return None, None, f"cannot be read ({short_error(exc)})"
    digest = sha256_bytes(data)
    if hashes_known:
        if recorded is None:
            return None, digest, "has no hash in the manifest (this run did not write it)"
        if digest != recorded:
            return None, digest, "does not match its hash in the manifest (changed since it was written)"
    if not data:
        return None, digest, "is empty"
    try:
        # read in this thread, from memory, the reader closed at once: no Arrow pool work outlives the read
        # (pq.read_table goes through the dataset scanner and its thread pools; doctor exits right after)
        with pq.ParquetFile(pa.BufferReader(data)) as pf:
            table = pf.read(use_threads=False)
    except Exception as exc:  # pyarrow raises several types for a damaged file
        return None, digest, f"is not a readable parquet file ({short_error(exc)})"
    problem = check_records(table, cell, start, stop, seed, key, reference)
    return (None if problem else table), digest, problem


def read_json_object(path: Path) -> tuple[dict | None, str | None]:
    """The JSON object in `path`, or (None, why not). A missing file is (None, None)."""
    try:
        text = path.read_text()
    except FileNotFoundError:
        return None, None
    except (OSError, UnicodeDecodeError) as exc:
        return None, f"cannot be read ({short_error(exc)})"
    try:
        obj = loads_json(text)
    except DuplicateKey as exc:
        return None, f"is not valid JSON ({exc})"
    except (ValueError, RecursionError):
        return None, "is not valid JSON" if text.strip() else "is empty"
    if not isinstance(obj, dict):
        kind = "null" if obj is None else "a list" if isinstance(obj, list) else type(obj).__name__
        return None, f"holds {kind}, not a JSON object"
    return obj, None


def non_finite_path(obj: Any, prefix: str = "") -> str | None:
    """The dotted path of the first NaN or infinity in a nested dict/list (None when there is none)."""
    if isinstance(obj, float) and not math.isfinite(obj):
        return prefix or "(value)"
    if isinstance(obj, dict):
        items: Any = obj.items()
    elif isinstance(obj, (list, tuple)):
        items = enumerate(obj)
    else:
        return None
    for k, v in items:
        found = non_finite_path(v, f"{prefix}.{k}" if prefix else str(k))
        if found:
            return found
    return None


def short_error(exc: BaseException) -> str:
    """One line of an exception's message (reading a damaged file can raise several lines)."""
    text = str(exc).strip().splitlines()
    return (text[0] if text else type(exc).__name__)[:160]
