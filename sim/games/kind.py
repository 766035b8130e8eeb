"""Game experiments: one game file played many times per variant, throws from the throw bank.

An experiment file with a `game` key (a kind of its own in sim.experiments.kinds: it plays itself,
without the chunked runner)::

    name = "game-difficulty"
    game = "base"                    # a game file: built-in name or path (relative to this file)
    seed = 7
    games = 2000                     # games per variant
    bank_throws = 2000               # throws per bank scenario (default: as its precision needs)
    bank_replicates = 8              # bootstrap banks behind the bank's part of each interval (0: none)
    baseline = "normal-casual-3"     # differences are taken against it (default: the first variant)
    [defaults]                       # dotted game-file keys every variant starts from
    "party.size" = 3
    [[variants]]
    name = "hard-casual-4"
    set = { difficulty = "hard", "party.size" = 4 }
    [[contrasts]]                    # differences of differences: (a - b) - (c - d)
    name = "hard-cost-3-vs-4"
    a = "normal-casual-3"; b = "hard-casual-3"; c = "normal-casual-4"; d = "hard-casual-4"

Game i of every variant uses the same shuffles and throw streams (common random numbers), so
variants are compared on paired games: the paired difference of win rates (Newcombe) against the
baseline, and each contrast's difference of differences (t interval on the per-game values).
Every win rate, difference and contrast also carries the bank's part of its interval (`won_with_bank`,
sim.games.bank_uncertainty): the first games of each variant are replayed on bootstrap banks, the
same replicate banks for every variant, so a difference's bank part is the spread of the replicates'
differences.
Writes summary.json, report.md and figures (win rate per variant, where games are lost, survival
by combat, titles, gold and white dice over the game) into the output folder. Not chunked: a run is
repeated from the start (the bank keeps the throws, so a rerun only replays games).
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from sim.engine.run_folder import REPORT, SUMMARY
from sim.experiments.kind import Caps, PlayOptions
from sim.experiments.results import Results
from sim.games.experiment import (
    GameExperiment,
    GameExperimentSpec,
    parse_game_experiment,
    resolve_game_experiment,
)
from sim.games.figures import draw_figures
from sim.games.progress import games_bar
from sim.games.report import report, summarize


def run_game_experiment(
    path: str | Path,
    out: str | Path | None = None,
    workers: int | None = None,
    quiet: bool = False,
    max_games: int | None = None,
    figures: bool = True,
    bank: Any = None,
) -> dict[str, Any]:
    """Play every variant's games (bank recorded on demand), write summary.json, report.md, figures;
    returns the summary. Everything is validated before the bank or the folder is touched."""
    from sim.specs.datafiles import read_toml, resolve

    p = resolve("experiment", path)
    exp = resolve_game_experiment(parse_game_experiment(read_toml(p), str(p)), str(p), max_games)
    folder = Path(out) if out is not None else Path("results") / exp.name
    return play_game_experiment(exp, folder, workers, quiet, figures, bank).summary


def play_game_experiment(
    exp: GameExperiment,
    folder: Path,
    workers: int | None = None,
    quiet: bool = False,
    figures: bool = True,
    bank: Any = None,
    executor: Any = "local",
    scheduler: str | None = None,
    security: Any = None,
) -> Results:
    """Play a resolved game experiment into `folder` (checked before the bank is touched); the bank is
    recorded on `workers` local processes or on a Dask cluster (`executor`, `scheduler`, `security`)."""
    from sim.files import check_output_dir
    from sim.games.engine import run_games
    from sim.games.throw_bank import ThrowBank, die_alias, play

    spec, specs, n = exp.spec, exp.specs, exp.games
    check_output_dir(folder, "--out")
    tb = (
        bank
        if isinstance(bank, ThrowBank)
        else ThrowBank(
            bank,
            spec.bank_throws,
            workers=workers,
            quiet=quiet,
            executor=executor,
            scheduler=scheduler,
            security=security,
        )
    )
    from sim.games.bank_uncertainty import REPLICATE_GAMES, REPLICATES, replicate_values

    reps = REPLICATES if spec.bank_replicates is None else spec.bank_replicates
    t0 = time.perf_counter()
    results: dict[str, list] = {}
    replicated: dict[str, list[float]] = {}
    for k, (name, g) in enumerate(specs.items(), 1):
        if not quiet:
            print(f"[{k}/{len(specs)}] {name}: {n} games", file=sys.stderr, flush=True)
        pol = g.policy  # the variant's, the file's or the game's (variant_specs)
        alias = die_alias(g.throws.colored_die, g.throws.white_die)

        def games(src: Any, g: Any = g, pol: str = pol) -> list:
            with games_bar(pol, n, g.source) as tick:
                return run_games(g, src, n, pol, progress=tick)

        results[name], _ = play(games, tb, spec.seed, alias)
        if reps > 1:  # the bank's part: the first games on bootstrap banks, the same ones for every variant
            m = min(n, REPLICATE_GAMES)
            if not quiet:
                print(f"  the bank's part: {m} games on {reps} bootstrap banks", file=sys.stderr, flush=True)

            def first(src: Any, g: Any = g, pol: str = pol, m: int = m) -> list:
                return run_games(g, src, m, pol)

            replicated[name] = replicate_values(first, _won, tb, spec.seed, alias, reps)
    summary = summarize(spec, specs, results, n, replicated)
    summary["elapsed_s"] = round(time.perf_counter() - t0, 2)
    summary["bank"] = {
        "folder": str(tb.dir),
        "throws": tb.throws,
        "replicates": reps if replicated else 0,  # bootstrap banks behind each won_with_bank
        "replicate_games": min(n, REPLICATE_GAMES) if replicated else 0,  # the first games replayed on them
    }
    folder.mkdir(parents=True, exist_ok=True)
    figs = draw_figures(folder, spec, results) if figures else []
    summary["figures"] = [str(f.name) for f in figs]
    _write(folder / SUMMARY, json.dumps(summary, indent=1, default=str))
    _write(folder / REPORT, report(summary))
    return Results(
        out=folder,
        summary=summary,
        experiment=exp,
        figures=figs,
        elapsed_s=summary["elapsed_s"],
        throws_run=n * len(specs),
    )


class GameExperiments:
    """Game experiments as a kind: a file with a `game` key, played by itself from the throw bank."""

    name = "games"
    spec_type = GameExperimentSpec
    unit = "game"

    def parse(self, data: Mapping[str, Any], source: str) -> GameExperimentSpec:
        """The file validated, names and contrasts included."""
        return parse_game_experiment(dict(data), source)

    def resolve(self, spec: GameExperimentSpec, source: str | None, caps: Caps) -> GameExperiment:
        """Every variant's game and its decks built; --max-games caps the games per variant."""
        return resolve_game_experiment(spec, source or "<experiment>", caps.get("max_games"))

    def checked(self, experiment: GameExperiment) -> str:
        """`dfsim check`'s words."""
        return f"game experiment ({len(experiment.specs)} variants, every game and its decks checked)"

    def play(self, experiment: GameExperiment, out: Path, options: PlayOptions) -> Results:
        """Replay the games from the bank (recorded on demand) into `out`."""
        return play_game_experiment(
            experiment,
            out,
            options.workers,
            options.quiet,
            options.figures,
            options.bank,
            options.executor,
            options.scheduler,
            options.security,
        )

    def shown(self, results: Results) -> str:
        """The tables of the report (REPORT)."""
        return report(results.summary)


GAMES = GameExperiments()


def _won(results: list) -> float:
    return sum(r.won for r in results) / len(results)


def _write(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text)
    os.replace(tmp, path)
