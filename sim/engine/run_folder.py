"""The read side of a run's output folder: its file names, its cells, its prepared aims, its records.

Why here, in the engine layer: the replay (viewer), the resampler that draws fight throws from a
throw run, the reports, `dfsim doctor` and the store that writes the folder all read the same files,
and every one of them sits at or above the engine; the folder's names written again in each is how
a reader falls out of step with the writer (sim.experiments.store writes what this reads).

Layout (the store's docstring says what each file holds)::

    OUT/manifest.json  experiment.toml  experiment.resolved.json  prepared.json
    OUT/chunks/c0003-k000012.parquet    OUT/records.parquet
    OUT/summary.json  report.md  report.html  figures/*.png
"""

from __future__ import annotations

import json
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from sim.errors import SpecError
from sim.files import note_input
from sim.provenance import run_reproducibility
from sim.specs.datafiles import loads_json

MANIFEST = "manifest.json"
LOCK = ".lock"
RECORDS = "records.parquet"
CHUNK_DIR = "chunks"
FIGURE_DIR = "figures"
PREPARED = "prepared.json"
RESOLVED = "experiment.resolved.json"
EXPERIMENT_COPY = "experiment.toml"  # the experiment file as given (when it was a file)
SUMMARY = "summary.json"
REPORT = "report.md"
REPORT_HTML = "report.html"
REPORT_FILES = (SUMMARY, REPORT, REPORT_HTML)
RUN_FILES = (RESOLVED, RECORDS)  # what every finished `dfsim run` folder holds
CHUNK_RE = re.compile(r"^c(\d{4,})-k(\d{6,})\.parquet$")


def chunk_name(cell: int, chunk: int) -> str:
    """The name of a chunk in the manifest and (with .parquet) on disk; names sort in cell, chunk order."""
    return f"c{cell:04d}-k{chunk:06d}"


def results_folder(path: str | Path, flag: str = "RESULTS", need: tuple[str, ...] = RUN_FILES) -> Path:
    """The output folder of a finished `dfsim run`, checked before it is read: a folder (not a file, a
    device, nothing) holding the regular files `need`. SpecError naming what is wrong otherwise."""
    text = str(path)
    if not text.strip():
        raise SpecError("command line", flag, "is empty; give the output folder of a `dfsim run`")
    p = Path(text)
    try:
        st = os.stat(p)
    except FileNotFoundError:
        raise SpecError(
            p, flag, "not a finished run folder (no such folder; give the output folder of a `dfsim run`)"
        ) from None
    except OSError as exc:
        raise SpecError(p, flag, f"cannot be read ({exc.strerror or exc})") from None
    if not stat.S_ISDIR(st.st_mode):
        raise SpecError(
            p, flag, "is a file, not a finished run folder (give the output folder of a `dfsim run`)"
        )
    for name in need:
        try:
            ok = stat.S_ISREG(os.stat(p / name).st_mode)
        except OSError:
            ok = False
        if not ok:
            raise SpecError(
                p, flag, f"not a finished dfsim run folder ({name} missing or not a file; run it to the end)"
            )
        note_input(p / name)
    return p


def read_resolved(root: Path) -> dict[str, Any]:
    """A run folder's experiment.resolved.json, a JSON object (SpecError when missing, malformed, or
    naming a key twice)."""
    path = root / RESOLVED
    try:
        doc = loads_json(path.read_text())
    except FileNotFoundError:
        raise SpecError(root, "", f"not a dfsim run folder ({RESOLVED} missing)") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise SpecError(path, "", f"cannot be read ({getattr(exc, 'strerror', None) or exc})") from None
    except (ValueError, RecursionError) as exc:
        raise SpecError(path, "", f"is not valid JSON ({str(exc)[:120]}); run the experiment again") from None
    if not isinstance(doc, dict):
        raise SpecError(path, "", "is not a JSON object; run the experiment again")
    return doc


def run_kind(resolved: dict[str, Any]) -> str:
    """The kind of experiment a run folder holds: its resolved description's `kind` ("fight", ...), or
    "throws" for a throw experiment (whose description names none)."""
    kind = resolved.get("kind", "throws")
    return kind if isinstance(kind, str) else "unknown"


def check_run_kind(
    root: Path, resolved: dict[str, Any], want: str, command: str, flag: str = "RESULTS"
) -> None:
    """Refuse a run of another kind than `command` reads (a shot report over a fight run would read
    columns a fight run has not): one line naming the folder, the kind it holds and the kind wanted."""
    got = run_kind(resolved)
    if got != want:
        what = {"throws": "a throw experiment"}.get(want, f"a {want} experiment")
        raise SpecError(
            root,
            flag,
            f"is the run of a {got} experiment; {command} reads the run of {what}",
        )


def prepared_aim(thrower: Any, progress: Any = None) -> dict[str, Any]:
    """The scenario's aim as a run ships it to its workers (prepared.json): the technique solved (or read
    from the cache) once, its ballistic part as `nominal` and how the die leaves the hand as
    `technique` ([grip, spin_rps, spin_axis]); `install_prepared` gives it back to a thrower."""
    t = thrower.technique(progress=progress)
    return {
        "nominal": [float(t.speed_mps), float(t.elevation_deg)],
        "technique": [t.grip, float(t.spin_rps), t.spin_axis],
    }


def install_prepared(thrower: Any, prepared: dict[str, Any] | None) -> None:
    """Aim `thrower` as the run did: the nominal release solved once per scenario (prepared.json's
    value for its scenario key), so a worker or a replay never solves it again, and never differently;
    and give its templates the flip bank entries the run shipped (when the scenario draws its flips from
    one; the entries it lacks are made when a throw first takes them)."""
    if not prepared or "nominal" not in prepared:
        return
    speed, elevation = (float(x) for x in prepared["nominal"])
    if "technique" in prepared:  # how the die left the hand (grip, spin); a run from before: the shot's way
        from sim.engine.hand import Technique

        technique = Technique.from_json([speed, elevation, *prepared["technique"]])
        if technique is None:
            raise ValueError(
                f"prepared technique {prepared['technique']!r} is not a grip, spin and spin axis"
            )
        thrower.set_nominal(technique)
    else:
        thrower.set_nominal((speed, elevation))
    if "flip_bank" in prepared:  # the templates' flips the run already held (sim/engine/flip_bank.py)
        from sim.engine.templates import install_flip_bank

        install_flip_bank(thrower, prepared["flip_bank"])


@dataclass
class RunFolder:
    """A finished run's output folder, opened for reading (replays, resampling, reports)."""

    root: Path
    resolved: dict[str, Any]
    prepared: dict[str, Any]

    @classmethod
    def open(
        cls,
        root: str | Path,
        flag: str = "RESULTS",
        need: tuple[str, ...] = (),
        kind: str | None = None,
        command: str = "this command",
    ) -> RunFolder:
        """Open a finished run folder (holding RUN_FILES and `need`); SpecError if it is not one, its
        records are not assembled yet, or (with `kind`) it is a run of another kind of experiment
        than `command` reads."""
        root = results_folder(root, flag, (*RUN_FILES, *need))
        resolved = read_resolved(root)
        if kind is not None:
            check_run_kind(root, resolved, kind, command, flag)
        if not (root / RECORDS).is_file():
            raise SpecError(
                root, "", f"the run has no {RECORDS} yet (unfinished run: run it again to finish)"
            )
        p = root / PREPARED
        prepared = json.loads(p.read_text()) if p.is_file() else {}
        return cls(root, resolved, prepared)

    @property
    def source(self) -> str:
        """What a scenario rebuilt from this folder names as its file (for error messages)."""
        return str(self.root / RESOLVED)

    def manifest(self) -> dict[str, Any] | None:
        """The manifest, or None when it is missing or not a JSON object."""
        try:
            doc = json.loads((self.root / MANIFEST).read_text())
        except (OSError, ValueError):
            return None
        return doc if isinstance(doc, dict) else None

    def summary(self) -> dict[str, Any]:
        """summary.json of the run (SpecError when the run wrote none)."""
        try:
            return json.loads((self.root / SUMMARY).read_text())
        except FileNotFoundError:
            raise SpecError(self.root, "", f"not a finished run folder ({SUMMARY} missing)") from None

    def reproducibility(self) -> str:
        """What a replay here can promise of this run's records (made where, with which packages)."""
        manifest = self.manifest()
        return run_reproducibility(manifest.get("machines") if manifest else None)

    # ---- cells ---------------------------------------------------------------------------------
    @property
    def cells(self) -> list[dict[str, Any]]:
        return self.resolved["cells"]

    def cell(self, name: str | int) -> dict[str, Any]:
        """A cell of the run by name or number; SpecError listing the cells if there is none."""
        for c in self.cells:
            if c["name"] == name or str(c["index"]) == str(name):
                return c
        names = ", ".join(c["name"] for c in self.cells)
        raise SpecError(self.root, "--cell", f"no cell '{name}' in this run (cells: {names})")

    def scenario(self, cell: dict[str, Any]):
        """The cell's scenario rebuilt from its resolved inputs; SpecError when the data files changed
        since the run (the scenario key differs) or no longer load."""
        from sim.specs.scenario import Scenario

        sc = Scenario.build(**cell["inputs"], source=self.source)
        if sc.key != cell["scenario_key"] and sc.flip_bank and "flip_bank" not in cell["inputs"]:
            # a run from before the flip bank flipped its templates afresh before every throw
            sc = Scenario.build(**cell["inputs"], flip_bank=0, source=self.source)
        if sc.key != cell["scenario_key"]:
            raise SpecError(
                self.root,
                f"cells.{cell['index']}",
                f"the data files changed since the run: cell '{cell['name']}' now resolves to scenario "
                f"{sc.key}, the run threw {cell['scenario_key']}",
            )
        return sc

    def thrower(self, cell: dict[str, Any]):
        """The cell's thrower, rebuilt from its resolved inputs, aimed as in the run."""
        from sim.engine.worlds import thrower_for

        th = thrower_for(self.scenario(cell))
        install_prepared(th, self.prepared.get(cell["scenario_key"]))
        return th

    # ---- records -------------------------------------------------------------------------------
    def columns(self) -> list[str]:
        """The names of the record columns, as stored."""
        return list(pq.read_schema(self.root / RECORDS).names)

    def records(
        self,
        columns: list[str] | tuple[str, ...] | None = None,
        cell: int | None = None,
        indices: list[int] | None = None,
    ) -> pa.Table:
        """The records (of `columns` the records have, all when None), of one cell and of some throw
        indices when given, read with Parquet filters (only the row groups that hold them)."""
        filters: list[tuple[str, str, Any]] = []
        if cell is not None:
            filters.append(("cell", "=", int(cell)))
        if indices is not None:
            filters.append(("index", "in", [int(i) for i in indices]))
        cols = None if columns is None else [c for c in columns if c in set(self.columns())]
        return pq.read_table(self.root / RECORDS, columns=cols, filters=filters or None)

    def record(self, cell: dict[str, Any], index: int) -> dict[str, Any]:
        """The stored record of throw `index` of a cell, as plain values; SpecError if the cell has no such
        throw."""
        table = self.records(cell=int(cell["index"]), indices=[int(index)])
        if table.num_rows == 0:
            raise SpecError(self.root, "--index", f"cell '{cell['name']}' has no throw {index}")
        return {k: v[0] for k, v in table.to_pydict().items()}
