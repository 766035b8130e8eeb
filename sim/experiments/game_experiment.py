"""Game experiments: one game file played many times per variant, throws from the throw bank.

An experiment file with a `game` key (a kind of its own in sim.experiments.kinds: it plays itself,
without the chunked runner)::

    name = "game-difficulty"
    game = "base"                    # a game file: built-in name or path (relative to this file)
    seed = 7
    games = 2000                     # games per variant
    bank_throws = 2000               # recorded throws per bank scenario
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
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import Field, ValidationError, field_validator

from sim.engine.run_folder import REPORT, SUMMARY
from sim.errors import SpecError, from_validation_error
from sim.experiments.kind import Caps, PlayOptions
from sim.experiments.results import Results
from sim.experiments.spec import Model, check_name
from sim.experiments.statistics import mean_interval, paired_rate_difference, wilson

Value = bool | int | float | str | list[str]


class GameVariant(Model):
    """One [[variants]] entry: a name and the dotted game-file keys it sets over [defaults]."""

    name: str
    description: str = ""
    set: dict[str, Value] = Field(default_factory=dict)

    @field_validator("name")
    @classmethod
    def _valid_name(cls, v: str) -> str:
        return check_name(v, "variant name")


class Contrast(Model):
    """A difference of differences of win rates: (a - b) - (c - d), on paired games."""

    name: str
    a: str
    b: str
    c: str
    d: str


class GameExperimentSpec(Model):
    """The whole game experiment file (module docstring)."""

    name: str
    description: str = ""
    game: str = Field(min_length=1)
    seed: int = Field(ge=0, le=2**63 - 1)
    games: int = Field(ge=1, le=10_000_000)
    bank_throws: int = Field(default=2000, ge=1, le=1_000_000)
    policy: str | None = None
    baseline: str | None = None
    confidence: float = Field(default=0.95, gt=0.5, lt=1)
    defaults: dict[str, Value] = Field(default_factory=dict)
    variants: list[GameVariant] = Field(min_length=1, max_length=200)
    contrasts: list[Contrast] = Field(default_factory=list, max_length=50)

    @field_validator("name")
    @classmethod
    def _valid_name(cls, v: str) -> str:
        return check_name(v, "experiment name")


def is_game_experiment(data: Any) -> bool:
    """Whether an experiment table is a game experiment (it has a `game` key)."""
    return isinstance(data, dict) and "game" in data


def parse_game_experiment(data: dict[str, Any], source: str) -> GameExperimentSpec:
    """Validate the file, every variant's game (a bad setting names the variant) and the names."""
    data = {k: v for k, v in data.items() if k != "kind"}
    try:
        spec = GameExperimentSpec.model_validate(data)
    except ValidationError as exc:
        raise from_validation_error(source, exc, data=data) from None
    names = [v.name for v in spec.variants]
    for i, n in enumerate(names):
        if n in names[:i]:
            raise SpecError(source, f"variants.{i}.name", f"two variants are called '{n}'")
    if spec.baseline is not None and spec.baseline not in names:
        raise SpecError(source, "baseline", f"'{spec.baseline}' is not a variant ({', '.join(names)})")
    for i, c in enumerate(spec.contrasts):
        for k in ("a", "b", "c", "d"):
            if getattr(c, k) not in names:
                raise SpecError(source, f"contrasts.{i}.{k}", f"'{getattr(c, k)}' is not a variant")
    return spec


def _game_path(spec: GameExperimentSpec, source: str) -> str:
    g = spec.game
    if g.endswith(".toml") and not Path(g).is_absolute():
        cand = Path(source).parent / g
        if cand.is_file():
            return str(cand)
    return g


def variant_specs(spec: GameExperimentSpec, source: str) -> dict[str, Any]:
    """Each variant's game spec (defaults, then the variant's settings); a bad one names the variant."""
    from sim.specs.game import load_game

    out = {}
    for i, v in enumerate(spec.variants):
        try:
            g = load_game(_game_path(spec, source), {**spec.defaults, **v.set})
            g = g.with_seed(spec.seed)  # the experiment's seed is the root of the shuffles and the throws
            g.load_decks()
        except SpecError as exc:
            raise SpecError(
                source, f"variants.{i}.set", f"{v.name}: {exc.source}: {exc.field}: {exc.problem}"
            ) from None
        out[v.name] = g
    return out


@dataclass(frozen=True)
class GameExperiment:
    """A validated game experiment: every variant's game spec (decks loaded) and the games per variant."""

    spec: GameExperimentSpec
    source: str
    specs: dict[str, Any]  # variant name -> its game spec
    games: int  # games per variant (after any cap)

    @property
    def name(self) -> str:
        return self.spec.name


def resolve_game_experiment(
    spec: GameExperimentSpec, source: str, max_games: int | None = None
) -> GameExperiment:
    """Every variant's game built (a bad setting names the variant); `max_games` caps the games."""
    n = spec.games if max_games is None else min(spec.games, max_games)
    return GameExperiment(spec=spec, source=source, specs=variant_specs(spec, source), games=n)


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
) -> Results:
    """Play a resolved game experiment into `folder` (checked before the bank is touched)."""
    from sim.experiments.throw_bank import ThrowBank, die_alias, play
    from sim.files import check_output_dir
    from sim.rules.game import run_games

    spec, specs, n = exp.spec, exp.specs, exp.games
    check_output_dir(folder, "--out")
    tb = (
        bank
        if isinstance(bank, ThrowBank)
        else ThrowBank(bank, spec.bank_throws, workers=workers, quiet=quiet)
    )
    t0 = time.perf_counter()
    results: dict[str, list] = {}
    for k, (name, g) in enumerate(specs.items(), 1):
        if not quiet:
            print(f"[{k}/{len(specs)}] {name}: {n} games", file=sys.stderr, flush=True)
        pol = spec.policy or g.policy
        alias = die_alias(g.throws.colored_die, g.throws.white_die)

        def games(src: Any, g: Any = g, pol: str = pol) -> list:
            return run_games(g, src, n, pol)

        results[name], _ = play(games, tb, spec.seed, alias)
    summary = summarize(spec, specs, results, n)
    summary["elapsed_s"] = round(time.perf_counter() - t0, 2)
    summary["bank"] = {"folder": str(tb.dir), "throws": tb.throws}
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
        return resolve_game_experiment(spec, source or "<experiment>", caps.max_games)

    def checked(self, experiment: GameExperiment) -> str:
        """`dfsim check`'s words."""
        return f"game experiment ({len(experiment.specs)} variants, every game and its decks checked)"

    def play(self, experiment: GameExperiment, out: Path, options: PlayOptions) -> Results:
        """Replay the games from the bank (recorded on demand) into `out`."""
        return play_game_experiment(
            experiment, out, options.workers, options.quiet, options.figures, options.bank
        )

    def shown(self, results: Results) -> str:
        """The tables of the report (REPORT)."""
        return report(results.summary)


GAMES = GameExperiments()


def _write(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text)
    os.replace(tmp, path)


def summarize(
    spec: GameExperimentSpec, specs: dict[str, Any], results: dict[str, list], n: int
) -> dict[str, Any]:
    """summary.json: every variant's game summary, paired differences against the baseline, contrasts."""
    from sim.experiments.game_report import summarize_games

    conf = spec.confidence
    base = spec.baseline or spec.variants[0].name
    won = {k: np.array([r.won for r in v], dtype=bool) for k, v in results.items()}
    variants = []
    for name, rs in results.items():
        g = specs[name]
        s = summarize_games(rs, conf)
        variants.append(
            {
                **s,
                "name": name,
                "difficulty": g.difficulty,
                "heroes": g.party.players,
                "skill": g.throws.skill,
                "policy": spec.policy or g.policy,
                "house_rules": g.house_rules.changed(),
                "options": g.options.model_dump(exclude_defaults=True),
            }
        )
    diffs = [
        {"name": k, "vs": base, "won": paired_rate_difference(won[k], won[base], conf).as_dict()}
        for k in results
        if k != base
    ]
    contrasts = []
    for c in spec.contrasts:
        x = (won[c.a].astype(float) - won[c.b]) - (won[c.c].astype(float) - won[c.d])
        contrasts.append(
            {
                "name": c.name,
                "of": f"({c.a} - {c.b}) - ({c.c} - {c.d})",
                "won": mean_interval(x, conf, "t").as_dict(),
            }
        )
    return {
        "experiment": {
            "name": spec.name,
            "game": spec.game,
            "seed": spec.seed,
            "games": n,
            "bank_throws": spec.bank_throws,
            "baseline": base,
        },
        "variants": variants,
        "differences": diffs,
        "contrasts": contrasts,
    }


def _pct(r: dict) -> str:
    return f"{100 * r['rate']:.1f} % [{100 * r['lo']:.1f}, {100 * r['hi']:.1f}]"


def _pts(e: dict) -> str:
    return f"{100 * e['value']:+.1f} [{100 * e['lo']:+.1f}, {100 * e['hi']:+.1f}]"


def report(s: dict[str, Any]) -> str:
    """report.md: the win rate per variant, the paired differences and the contrasts."""
    e = s["experiment"]
    lines = [
        f"# {e['name']}: {e['game']}, {e['games']} games per variant (seed {e['seed']}, "
        f"{e['bank_throws']} banked throws per scenario)",
        "",
        "| variant | difficulty | heroes | skill | policy | won (95 %) | lost at the Final Boss | points | "
        "titles (top) |",
        "| --- | --- | ---: | --- | --- | --- | --- | ---: | --- |",
    ]
    for v in s["variants"]:
        boss = v["lost_where"].get("final boss")
        top = max(v["titles"].items(), key=lambda kv: kv[1])[0] if v["titles"] else ""
        lines.append(
            f"| {v['name']} | {v['difficulty']} | {v['heroes']} | {v['skill']} | {v['policy']} | "
            f"{_pct(v['won'])} "
            f"| {_pct(boss) if boss else '0'} | {v['points']['value']:.1f} | {top} |"
        )
    lines += [
        "",
        f"Paired differences against {e['baseline']} (percentage points, 95 %):",
        "",
        "| variant | won |",
        "| --- | --- |",
    ]
    lines += [f"| {d['name']} | {_pts(d['won'])} |" for d in s["differences"]]
    if s["contrasts"]:
        lines += [
            "",
            "Differences of differences (percentage points, 95 %):",
            "",
            "| contrast | of | won |",
            "| --- | --- | --- |",
        ]
        lines += [f"| {c['name']} | {c['of']} | {_pts(c['won'])} |" for c in s["contrasts"]]
    return "\n".join(lines) + "\n"


def draw_figures(folder: Path, spec: GameExperimentSpec, results: dict[str, list]) -> list[Path]:
    """Win rate per variant, where games are lost, survival by combat, titles, gold and white dice."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from sim.rules.game import TITLES

    figdir = folder / "figures"
    figdir.mkdir(exist_ok=True)
    names = list(results)
    out = []
    fig, ax = plt.subplots(figsize=(8, 0.3 * len(names) + 1.5))
    rates = [wilson(sum(r.won for r in results[k]), len(results[k])) for k in names]
    ax.errorbar(
        [r.rate for r in rates],
        range(len(names)),
        xerr=[[r.rate - r.lo for r in rates], [r.hi - r.rate for r in rates]],
        fmt="o",
    )
    ax.set_yticks(range(len(names)), names)
    ax.set_xlabel("games won (95 % Wilson interval)")
    ax.axvline(0.5, color="grey", lw=0.5)
    fig.tight_layout()
    out.append(_save(fig, figdir / "win_rate.png"))
    fig, ax = plt.subplots(figsize=(8, 0.3 * len(names) + 1.5))
    cats = ["level 1 combat", "level 2 combat", "level 3 combat", "level 4 combat", "final boss"]
    left = np.zeros(len(names))
    for c in cats:
        vals = np.array(
            [
                sum(
                    1
                    for r in results[k]
                    if not r.won
                    and (("final boss" if r.lost_at == "final-boss" else f"level {r.lost_level} combat") == c)
                )
                / len(results[k])
                for k in names
            ]
        )
        ax.barh(range(len(names)), vals, left=left, label=c)
        left += vals
    ax.set_yticks(range(len(names)), names)
    ax.set_xlabel("share of games lost, by where")
    ax.legend(fontsize=7)
    fig.tight_layout()
    out.append(_save(fig, figdir / "lost_where.png"))
    fig, axs = plt.subplots(1, 3, figsize=(13, 4))
    for k in names:
        rs = results[k]
        most = max(r.combats for r in rs)
        alive = [np.mean([r.won or r.combats > c for r in rs]) for c in range(most + 1)]
        axs[0].step(range(most + 1), alive, where="post", label=k)
        for ax_i, key in ((1, "gold"), (2, "white_dice")):
            by = [[t[key] for r in rs for t in r.trace if t["combat"] == c + 1] for c in range(most)]
            axs[ax_i].plot(range(1, most + 1), [np.mean(b) if b else np.nan for b in by], label=k)
    axs[0].set(xlabel="combats played", ylabel="games still going (or won)", title="survival by combat")
    axs[1].set(xlabel="combat", ylabel="gold on the Chest (mean of games still going)")
    axs[2].set(xlabel="combat", ylabel="white dice on the Chest")
    if len(names) <= 10:
        axs[0].legend(fontsize=6)
    fig.tight_layout()
    out.append(_save(fig, figdir / "over_the_game.png"))
    fig, ax = plt.subplots(figsize=(8, 4))
    order = [t for _, t in TITLES]
    for k in names[:12]:
        counts = [sum(r.title == t for r in results[k]) / len(results[k]) for t in order]
        ax.plot(range(len(order)), counts, marker="o", label=k)
    ax.set_xticks(range(len(order)), [t.split()[0] for t in order], rotation=45, fontsize=7)
    ax.set_ylabel("share of games")
    ax.set_title("end-game titles")
    ax.legend(fontsize=6)
    fig.tight_layout()
    out.append(_save(fig, figdir / "titles.png"))
    return out


def _save(fig, path: Path) -> Path:
    import matplotlib.pyplot as plt

    tmp = path.with_name(path.stem + ".tmp.png")
    fig.savefig(tmp, dpi=90)
    plt.close(fig)
    os.replace(tmp, path)
    return path


class GameResponse:
    """The win rate of a game as a function of one setting, for `dfsim tune --game`: a call
    `response(value, n, seed)` plays games 0..n-1 with `path` at `value` (over `overrides`), throws
    from the bank (recorded on demand). Game i uses the same shuffles and throw streams at every value
    (common random numbers), so the tuner compares values on paired games."""

    def __init__(
        self,
        game: str,
        path: str,
        *,
        overrides: dict[str, Any] | None = None,
        bank: str | None = None,
        bank_throws: int = 2000,
        policy: str | None = None,
        workers: int | None = None,
    ) -> None:
        from sim.experiments.throw_bank import ThrowBank
        from sim.specs.game import load_game

        self.game, self.path = game, path
        self.overrides = dict(overrides or {})
        self.base = load_game(game, self.overrides)
        self.base.load_decks()
        node: Any = self.base
        for part in path.split("."):
            node = getattr(node, part, None)
            if node is None:
                raise SpecError(
                    "command line", "--set", f"'{path}' is not a setting of the game {self.base.name}"
                )
        self.current = node
        self.integer_setting = isinstance(node, int) and not isinstance(node, bool)
        self.policy = policy or self.base.policy
        self.bank = ThrowBank(bank, bank_throws, workers=workers)
        self._specs: dict[Any, Any] = {}

    def spec_at(self, value: Any, seed: int | None = None) -> Any:
        """The game spec with the tuned setting at `value` (validated once per value), its shuffles
        rooted at `seed` (the tune's seed; None: the game file's)."""
        from sim.specs.game import load_game

        s = self._specs.get((value, seed))
        if s is None:
            v = int(value) if self.integer_setting else value
            s = load_game(self.game, {**self.overrides, self.path: v})
            s = self._specs[(value, seed)] = s if seed is None else s.with_seed(seed)
        return s

    def __call__(self, value: Any, n: int, seed: int) -> tuple[int, int]:
        from sim.experiments.throw_bank import die_alias, play
        from sim.rules.game import run_games

        spec = self.spec_at(value, seed)
        alias = die_alias(spec.throws.colored_die, spec.throws.white_die)
        results, _ = play(lambda src: run_games(spec, src, int(n), self.policy), self.bank, seed, alias)
        return sum(r.won for r in results), int(n)
