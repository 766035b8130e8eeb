"""The protocol every kind of experiment file follows, so the runner, `dfsim run` and `dfsim check`
never ask which kind they hold.

Why this shape: a kind is what changes between a throw, a fight and a game experiment (how its file
is read and validated, what one chunk of work is, how a run is summarised and shown); what stays
(chunks planned on whole prefixes, stored, verified, resumed, stopped) is the runner's. A kind is
either farmed out in chunks by the runner (`ChunkedKind`) or plays itself (`PlayedKind`: a game
experiment replays games from the throw bank and keeps no chunks). The kinds and their one table
are in sim.experiments.kinds.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from sim.experiments.results import Results

if TYPE_CHECKING:  # kept light: `dfsim check` reads the registry without the run machinery
    import pyarrow as pa

    from sim.experiments.integrity import Plan
    from sim.experiments.progress import Steps
    from sim.experiments.store import Store


@dataclass(frozen=True)
class Caps:
    """Command-line caps for a quick preview, by name: "max_throws" (throws per cell) and the caps the
    kinds declare (sim.plugins.ExperimentKindEntry.caps); each kind applies its own (a different
    experiment hash), and a cap its kind does not declare is refused (sim.experiments.kinds)."""

    values: Mapping[str, int] = field(default_factory=dict)

    @classmethod
    def of(cls, **caps: int | None) -> Caps:
        """The caps that are set (None: not set)."""
        return cls({k: int(v) for k, v in caps.items() if v is not None})

    def get(self, name: str) -> int | None:
        """A cap's value, None when it is not set."""
        return self.values.get(name)

    @property
    def max_throws(self) -> int | None:
        """Throws per cell (every kind that throws applies it)."""
        return self.get("max_throws")


@dataclass(frozen=True)
class PlayOptions:
    """What a kind that plays itself takes from `dfsim run` besides its experiment and folder."""

    workers: int | None = None
    quiet: bool = False
    figures: bool = True
    bank: Any = None  # a throw bank folder (or ThrowBank) for kinds that draw from one
    executor: Any = "local"  # where such a bank is recorded: "local", "dask" or an Executor
    scheduler: str | None = None  # with "dask": the scheduler's address
    security: Any = None  # with "dask": TLS (a Security, or a dict with ca_file, cert, key)


# run another experiment (a fight experiment's throws) with the options of the current run:
# (experiment file or name, output folder, --max-throws) -> its Results
RunUpstream = Callable[[str, Path, "int | None"], Results]


@dataclass(frozen=True)
class Finished:
    """What a chunked kind's finish step made of the stored records."""

    summary: dict[str, Any]
    figures: list[Path]
    total: int  # records in records.parquet (throws, fights): the manifest's count


@runtime_checkable
class ExperimentKind(Protocol):
    """Reading, validating and showing one kind of experiment file."""

    @property
    def name(self) -> str:
        """The registry's key: "throws", "fights", "games"."""

    @property
    def spec_type(self) -> type:
        """Its parsed file's type: a spec handed to run_experiment is matched by it."""

    @property
    def unit(self) -> str:
        """One record (or game) of it: "throw", "fight", "game"."""

    def parse(self, data: Mapping[str, Any], source: str) -> Any:
        """The file's contents validated as this kind's spec; a problem is one SpecError."""

    def resolve(self, spec: Any, source: str | None, caps: Caps) -> Any:
        """The spec resolved into a runnable experiment (every cell built), caps applied."""

    def checked(self, experiment: Any) -> str:
        """What `dfsim check` says after "is a valid": the kind and what was checked."""

    def shown(self, results: Results) -> str:
        """What `dfsim run` prints when done (a table per cell and where to look), newline-ended."""


@runtime_checkable
class Preparation(Protocol):
    """Per-scenario values solved once per run on the workers (a throw experiment's aimed release)."""

    @property
    def work(self) -> Callable[[Any], dict[str, Any]]:
        """The worker function: task -> JSON values."""

    def task(self, experiment: Any, cell: int, key: str) -> Any:
        """The task solving the values of scenario `key`, first met at `cell`."""


@runtime_checkable
class ChunkedKind(ExperimentKind, Protocol):
    """A kind the runner farms out in chunks: each chunk a pure function of (cell, index range)."""

    @property
    def work(self) -> Callable[[Any], pa.Table]:
        """The worker function: one chunk's task -> its records."""

    @property
    def warm(self) -> tuple[str, ...]:
        """Modules a local worker imports at start-up, before its first chunk."""

    @property
    def preparation(self) -> Preparation | None:
        """Values solved once per run before the chunks (None: nothing to prepare)."""

    def plan(self, experiment: Any) -> Plan:
        """The seed, the chunk layout of every cell and each cell's key."""

    def stop_rule(self, experiment: Any) -> Any:
        """The experiment's stopping rule (a StopRule), or None: every cell runs to its count."""

    def task(
        self, experiment: Any, cell: int, chunk: int, start: int, stop: int, prepared: dict[str, Any] | None
    ) -> Any:
        """The picklable task of records [start, stop) of one cell (everything a worker needs)."""

    def before(self, experiment: Any, out: Path, run: RunUpstream, quiet: bool) -> tuple[Any, Results | None]:
        """What must exist before the chunks (a fight experiment's throws): the experiment as it then
        stands, and the Results of what was run or reopened (None: nothing)."""

    def finishing_steps(self, figures: bool) -> int:
        """How many finishing phases `finish` announces (for the numbered lines after the bar)."""

    def finish(
        self, store: Store, experiment: Any, stopped: dict[str, str], figures: bool, steps: Steps, quiet: bool
    ) -> Finished:
        """Summary, figures and reports of the finished records (`stopped`: cell name -> why it stopped)."""


@runtime_checkable
class PlayedKind(ExperimentKind, Protocol):
    """A kind that runs itself into its folder (no chunks, no manifest)."""

    def play(self, experiment: Any, out: Path, options: PlayOptions) -> Results:
        """Run the experiment into `out`; everything was validated by `resolve`."""
