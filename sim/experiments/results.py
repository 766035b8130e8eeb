"""What a run of any kind of experiment leaves behind, as the Python API hands it back.

Kept apart from the runner so that every experiment kind (sim.experiments.kinds) can build one
without importing the run machinery.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sim.engine.run_folder import RECORDS, REPORT, REPORT_HTML

if TYPE_CHECKING:
    import pandas as pd


@dataclass
class Results:
    """What a run leaves: the output folder, the summary, and the records (loaded on first use)."""

    out: Path
    summary: dict[str, Any]
    experiment: Any  # the resolved experiment (its kind's own type)
    figures: list[Path] = field(default_factory=list)
    elapsed_s: float = 0.0
    throws_run: int = 0  # records (throws, fights) computed by this call (not resumed from disk)
    repairs: list[str] = field(default_factory=list)  # what this call found damaged and recomputed
    throws: Results | None = None  # a fight experiment's throw experiment, when this call ran or reopened it
    kind: Any = (
        None  # the experiment's kind (sim.experiments.kinds): `kind.shown(results)` is dfsim run's text
    )

    @cached_property
    def records(self) -> pd.DataFrame:
        """Every record of the run, one row per throw (per fight), cell by cell in throw order (a game
        experiment keeps no records: its games are replayed from the throw bank)."""
        import pandas as pd

        return pd.read_parquet(self.out / RECORDS)

    @property
    def report(self) -> Path:
        """The run's Markdown report."""
        return self.out / REPORT

    def where_to_look(self) -> str:
        """The line that tells a user where the results are (report.html when it was written)."""
        page = self.out / REPORT_HTML
        return f"results: {self.out}  (open {page if page.is_file() else self.report} to see them)"
