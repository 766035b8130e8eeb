"""`dfsim doctor`: examine a results folder without changing it, and say what a rerun would repair.

Why: the runner repairs what it finds on every rerun, but a user (or a script) may want to know
whether a folder can be trusted before using its records, and what exactly is wrong. The checks
are the runner's own (sim.experiments.integrity): the manifest, the sha256 of every chunk and of
prepared.json, every chunk's rows against the plan, and the final records against the chunks.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from sim.engine import run_folder as run_files
from sim.errors import SpecError
from sim.experiments.integrity import (
    ChunkLayout,
    Plan,
    read_json_object,
    sha256_file,
    short_error,
    value_digest,
    verify_chunk,
)
from sim.experiments.store import (
    FIGURE_HASHES,
    REPORT_HASHES,
    STRAY_CHUNK,
    Folder,
    refusals,
)
from sim.files import sha256_of
from sim.provenance import run_reproducibility

RECOMPUTE = "a rerun recomputes it"
REBUILD_RECORDS = "a rerun rebuilds it from the chunks"
REFUSES = "a rerun refuses this folder until that is fixed"


@dataclass(frozen=True)
class Finding:
    """One problem: the file, what is wrong with it, and what a rerun of the experiment will do."""

    path: Path
    problem: str
    action: str

    @property
    def line(self) -> str:
        return f"{self.path}: {self.problem}; {self.action}"


@dataclass
class Checkup:
    """What `examine` found in one folder."""

    root: Path
    findings: list[Finding] = field(default_factory=list)
    state: str = ""
    chunks_verified: int = 0
    records_verified: int = 0
    busy: bool = False  # a run holds the folder's lock right now
    provenance: str = ""  # what a replay here can promise (sim/provenance.py)

    def add(self, path: Path, problem: str, action: str) -> None:
        """Record one problem."""
        self.findings.append(Finding(path, problem, action))

    @property
    def healthy(self) -> bool:
        return not self.findings

    @property
    def summary(self) -> str:
        if self.state == "complete":
            what = f"complete: {self.chunks_verified} chunks and {self.records_verified} records verified"
        else:
            what = f"{self.state or 'no state'}: {self.chunks_verified} chunks verified; a rerun resumes"
        busy = "; a run is writing to it now" if self.busy else ""
        made = f"; {self.provenance}" if self.provenance else ""
        return f"{self.root}: healthy ({what}){busy}{made}"


def examine(root: Path) -> Checkup:
    """Check everything in a results folder; read-only."""
    root = Path(root)
    if not root.is_dir():
        raise SpecError(root, "", "is not a folder" if root.exists() else "does not exist")
    up = Checkup(root, busy=_locked(root))
    refused = refusals(root)  # the rerun's own refusals, in its words: nothing else it would do matters
    if refused:
        for exc in refused:
            up.add(Path(exc.source), exc.problem, REFUSES)
        return up
    folder = Folder.read(root)
    if not folder.held_run and not folder.manifest_exists:
        up.add(root, "holds no dfsim results", "nothing to check (a run writes here only with --force)")
        return up
    m = folder.manifest
    hashes: dict | None = None
    if m is None:
        up.add(
            root / run_files.MANIFEST,
            folder.manifest_problem or "is missing",
            "a rerun rebuilds it, keeping the chunks that pass the range checks",
        )
    else:
        up.state = str(m.get("state", ""))
        up.provenance = "records " + run_reproducibility(m.get("machines"))
        if isinstance(m.get("chunks"), dict):
            hashes = m["chunks"]
        else:
            up.add(
                root / run_files.MANIFEST,
                "has no chunk hashes (written by an older dfsim)",
                "a rerun checks the chunks by range and records their hashes",
            )
    resolved, problem = read_json_object(root / run_files.RESOLVED)
    if resolved is None:
        up.add(root / run_files.RESOLVED, problem or "is missing", "a rerun writes it again")
    elif m is not None and resolved.get("hash") != m["experiment_hash"]:
        up.add(
            root / run_files.RESOLVED,
            f"is of experiment {resolved.get('hash')}, the manifest of {m['experiment_hash']}",
            "a rerun writes it again",
        )
    plan = Plan.from_json(m.get("plan")) if m else None
    plan = plan or _plan_from_resolved(resolved)
    before = len(up.findings)
    verified = _check_chunks(up, root, plan, hashes)
    chunks_ok = len(up.findings) == before
    _check_prepared(up, root, m)
    if up.state == "complete":
        _check_records(up, root, m or {}, plan if chunks_ok else None, verified)
        _check_reports(up, root, m or {})
    elif up.state == "failed" and not up.busy:
        up.add(
            root / run_files.MANIFEST,
            "says the last run failed (its last line said why: a full disk, a file-size limit, "
            "a failed chunk)",
            f"a rerun resumes from the {up.chunks_verified} verified chunks and writes the reports",
        )
    if (
        up.state in ("failed", "interrupted", "running")
        and not up.busy
        and (root / run_files.REPORT_HTML).is_file()
    ):
        up.add(
            root / run_files.REPORT_HTML,
            f"is from an earlier run (the last one ended {up.state}), so it may describe other records",
            "a rerun that completes writes it again",
        )
    return up


def _check_reports(up: Checkup, root: Path, m: dict) -> None:
    """summary.json, report.md, report.html and the figures of a complete run: present, and each as the
    run wrote it (the sha256 the manifest recorded), since a rerun writes them all again."""
    recorded = m.get(REPORT_HASHES)
    reports = recorded if isinstance(recorded, dict) else None
    for name in run_files.REPORT_FILES:
        path = root / name
        want = reports.get(name) if reports is not None else None
        if not path.is_file():
            if name != run_files.REPORT_HTML or want is not None:
                up.add(path, "is missing", "a rerun writes it again")
            elif reports is not None and "fights" not in m:  # a throw run records what it could write
                up.add(path, "was not written by the run (it said why)", "a rerun tries again")
        elif want is not None and sha256_of(path) != want:
            up.add(
                path, f"does not match its hash in the manifest ({_changed(path)})", "a rerun writes it again"
            )
    drawn = m.get(FIGURE_HASHES)
    for name, want in drawn.items() if isinstance(drawn, dict) else ():
        path = root / run_files.FIGURE_DIR / str(name)
        if not path.is_file():
            up.add(path, "is missing", "a rerun draws it again")
        elif sha256_of(path) != want:
            up.add(
                path, f"does not match its hash in the manifest ({_changed(path)})", "a rerun draws it again"
            )


def _changed(path: Path) -> str:
    """How a file differs from what the run wrote, as far as can be told without the original."""
    try:
        size = path.stat().st_size
    except OSError:
        return "unreadable"
    return (
        "empty" if size == 0 else f"changed, truncated or replaced since the run wrote it; {size} bytes now"
    )


def _locked(root: Path) -> bool:
    path = root / run_files.LOCK
    if not path.is_file() or path.is_symlink():
        return False
    fd = os.open(path, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        return False
    except OSError:
        return True
    finally:
        os.close(fd)


def _plan_from_resolved(resolved: dict | None) -> Plan | None:
    """The chunk plan of a throw experiment from experiment.resolved.json (when the manifest lost it)."""
    try:
        exp = resolved["experiment"]  # type: ignore[index]
        stop = exp.get("stop")
        most = int(stop["max_throws"]) if stop else int(exp["throws"])
        keys = tuple(str(c["scenario_key"]) for c in resolved["cells"])  # type: ignore[index]
        return Plan(int(exp["seed"]), ChunkLayout(int(exp["throws"]), most, int(exp["chunk_throws"])), keys)
    except (TypeError, KeyError, ValueError, AttributeError):
        return None


def _check_chunks(up: Checkup, root: Path, plan: Plan | None, hashes: dict | None) -> dict[int, list[int]]:
    """Verify every chunk file; returns the verified chunks by cell."""
    chunk_dir = root / run_files.CHUNK_DIR
    on_disk: set[tuple[int, int]] = set()
    if chunk_dir.is_dir():
        for p in chunk_dir.iterdir():
            mm = run_files.CHUNK_RE.match(p.name)
            if mm:
                on_disk.add((int(mm.group(1)), int(mm.group(2))))
    if plan is None:
        if on_disk:
            up.add(root, "the experiment's chunk plan cannot be told", "chunk ranges are not checked")
        return {}
    verified: dict[int, list[int]] = {}
    reference: dict[int, pa.Schema] = {}  # per cell: cells with templates have more columns
    for c, j in sorted(on_disk):
        path = chunk_dir / f"{run_files.chunk_name(c, j)}.parquet"
        if c >= len(plan.keys) or j >= plan.layout.count:
            up.add(path, STRAY_CHUNK, "a rerun removes it")
            continue
        start, stop = plan.layout.bounds(j)
        recorded = hashes.get(run_files.chunk_name(c, j)) if hashes is not None else None
        table, _, problem = verify_chunk(
            path, recorded, hashes is not None, c, start, stop, plan.seed, plan.keys[c], reference.get(c)
        )
        if problem is not None or table is None:
            up.add(path, str(problem), RECOMPUTE)
            continue
        reference.setdefault(c, table.schema)
        verified.setdefault(c, []).append(j)
        up.chunks_verified += 1
    for name in sorted(hashes or {}):
        mm = run_files.CHUNK_RE.match(f"{name}.parquet")
        cj = (int(mm.group(1)), int(mm.group(2))) if mm else None
        if cj is not None and cj not in on_disk and cj[0] < len(plan.keys) and cj[1] < plan.layout.count:
            up.add(
                chunk_dir / f"{name}.parquet",
                "is missing although the manifest records it",
                "a rerun computes it again",
            )
    return verified


def _check_prepared(up: Checkup, root: Path, m: dict | None) -> None:
    digests = m.get("prepared") if m else None
    if not isinstance(digests, dict) or not digests:
        return
    path = root / run_files.PREPARED
    values, problem = read_json_object(path)
    if values is None:
        up.add(path, problem or "is missing", "a rerun solves the aims again")
        return
    if sha256_file(path) == m.get("prepared_sha256"):  # type: ignore[union-attr]
        return
    bad = [k for k, d in digests.items() if k not in values or _digest(values[k]) != d]
    what = (
        f"the aim of {len(bad)} of {len(digests)} scenarios differs" if bad else "its layout or keys differ"
    )
    up.add(path, f"does not match its hash in the manifest ({what})", "a rerun solves those aims again")


def _digest(value) -> str | None:
    try:
        return value_digest(value)
    except (TypeError, ValueError):
        return None


def _check_records(
    up: Checkup, root: Path, m: dict, plan: Plan | None, verified: dict[int, list[int]]
) -> None:
    path = root / run_files.RECORDS
    if not path.is_file():
        up.add(path, "is missing", REBUILD_RECORDS)
        return
    want = m.get("records_sha256")
    if isinstance(want, str) and sha256_file(path) != want:
        up.add(path, "does not match its hash in the manifest", REBUILD_RECORDS)
        return
    if plan is None:  # unknown, or some chunk is itself wrong (reported): rows cannot be compared
        return
    try:
        problem = _records_problem(path, plan, verified)
    except Exception as exc:  # a damaged parquet file raises several types
        problem = f"cannot be read ({short_error(exc)})"
    if problem:
        up.add(path, problem, REBUILD_RECORDS)
    else:
        with pq.ParquetFile(path) as pf:
            up.records_verified = pf.metadata.num_rows


def _records_problem(path: Path, plan: Plan, verified: dict[int, list[int]]) -> str | None:
    """Whether the records are, row for row, the throws of the verified chunks in order (cell, index)."""
    expected: list[tuple[int, int, int]] = []  # (cell, start, stop) in record order
    for c in sorted(verified):
        js = sorted(verified[c])
        if js != list(range(len(js))):
            return f"cannot be checked: cell {c} lacks chunk {next(i for i, j in enumerate(js) if i != j)}"
        expected += [(c, *plan.layout.bounds(j)) for j in js]
    want_cells = np.concatenate([np.full(b - a, c) for c, a, b in expected]) if expected else np.zeros(0)
    want_index = np.concatenate([np.arange(a, b) for _, a, b in expected]) if expected else np.zeros(0)
    # the reader and its batches are closed before this returns, whatever happens: a reader left open
    # (a mismatch found mid-file, a file a concurrent run replaced) kept Arrow's threads busy while the
    # process exited, which aborted it ("terminate called without an active exception", SIGABRT)
    with pq.ParquetFile(path) as pf, contextlib.closing(
        pf.iter_batches(columns=["cell", "index"], batch_size=65536, use_threads=False)
    ) as batches:
        return _rows_problem(pf, batches, want_cells, want_index)


def _rows_problem(pf: pq.ParquetFile, batches, want_cells: np.ndarray, want_index: np.ndarray) -> str | None:
    """The first record whose (cell, index) is not the one expected there, read batch by batch."""
    if not {"cell", "index"} <= set(pf.schema_arrow.names):
        return "has no 'cell' and 'index' columns"
    if pf.metadata.num_rows != len(want_index):
        return f"holds {pf.metadata.num_rows} records, the verified chunks {len(want_index)}"
    pos = 0
    for batch in batches:
        n = batch.num_rows
        cells = batch.column(0).to_numpy(zero_copy_only=False)
        index = batch.column(1).to_numpy(zero_copy_only=False)
        if not (
            np.array_equal(cells, want_cells[pos : pos + n])
            and np.array_equal(index, want_index[pos : pos + n])
        ):
            bad = pos + int(
                np.flatnonzero((cells != want_cells[pos : pos + n]) | (index != want_index[pos : pos + n]))[0]
            )
            return (
                f"record {bad} is not the throw the chunks hold there (cell {int(want_cells[bad])}, "
                f"throw {int(want_index[bad])})"
            )
        pos += n
    return None
