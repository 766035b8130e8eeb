"""The table of experiment kinds: every entry loads and follows the protocol, files are told apart by
their marker key, and a kind added by one module and one `register` line runs through the unchanged
runner (chunks, records, resume) and `dfsim check` / `dfsim run`."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest

from sim.cli.main import main
from sim.experiments import kinds
from sim.experiments.kind import ChunkedKind, ExperimentKind, PlayedKind
from sim.experiments.runner import run_experiment

ROOT = Path(__file__).resolve().parents[2]

# A worked example of a new kind, written as a user would: a module of its own (here a coin tossed
# `flips` times per variant, flip k of a cell on the random stream (seed, k)); the registry line is
# in the fixture below.
COIN_KIND = '''
"""Coin experiments: a toy kind for the registry's tests."""
import hashlib, json
from dataclasses import dataclass, asdict

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from sim.errors import SpecError
from sim.experiments.integrity import ChunkLayout, Plan
from sim.experiments.kind import Finished


@dataclass(frozen=True)
class CoinSpec:
    name: str
    seed: int
    flips: int
    chunk_flips: int
    coins: dict
    confidence: float = 0.95

    def model_dump(self, **kw):
        return asdict(self)

    @property
    def variants(self):
        return []


@dataclass(frozen=True)
class Cell:
    index: int
    name: str
    p: float
    key: str


@dataclass(frozen=True)
class CoinExperiment:
    spec: CoinSpec
    source: str
    cells: list
    hash: str

    @property
    def name(self):
        return self.spec.name

    def resolved(self):
        return {"kind": "coins", "hash": self.hash, "cells": [asdict(c) for c in self.cells]}


@dataclass(frozen=True)
class Task:
    cell: int
    chunk: int
    start: int
    stop: int
    seed: int
    p: float


def flip(task):
    ks = list(range(task.start, task.stop))
    heads = [bool(np.random.default_rng([task.seed, task.cell, k]).random() < task.p) for k in ks]
    return pa.table({"cell": [task.cell] * len(ks), "index": ks, "seed": [task.seed] * len(ks), "heads": heads})


class Coins:
    name = "coins"
    spec_type = CoinSpec
    unit = "flip"
    work = staticmethod(flip)
    warm = ()
    preparation = None

    def parse(self, data, source):
        coins = data.get("coins")
        if not isinstance(coins, dict) or not all(0 <= p <= 1 for p in coins.values()):
            raise SpecError(source, "coins", "must map names to chances of heads between 0 and 1")
        return CoinSpec(data["name"], data["seed"], data["flips"], data.get("chunk_flips", 100), dict(coins))

    def resolve(self, spec, source, caps):
        cells = [Cell(i, n, p, f"coin-{p}") for i, (n, p) in enumerate(spec.coins.items())]
        ident = json.dumps([spec.seed, spec.flips, spec.chunk_flips, [(c.name, c.p) for c in cells]])
        return CoinExperiment(spec, source or "<experiment>", cells, hashlib.sha256(ident.encode()).hexdigest()[:16])

    def checked(self, exp):
        return f"coin experiment ({len(exp.cells)} coins)"

    def shown(self, results):
        rows = [f"{n}: {h:.3f} heads" for n, h in results.summary["heads"].items()]
        return "\\n".join(rows) + "\\n"

    def plan(self, exp):
        s = exp.spec
        return Plan(s.seed, ChunkLayout(s.flips, s.flips, s.chunk_flips), tuple(c.key for c in exp.cells))

    def stop_rule(self, exp):
        return None

    def task(self, exp, cell, chunk, start, stop, prepared):
        return Task(cell, chunk, start, stop, exp.spec.seed, exp.cells[cell].p)

    def before(self, exp, out, run, quiet):
        return exp, None

    def finishing_steps(self, figures):
        return 1

    def finish(self, store, exp, stopped, figures, steps, quiet):
        steps.start("summary")
        t = pq.read_table(store.records_path).to_pandas()
        heads = {c.name: float(t[t.cell == c.index].heads.mean()) for c in exp.cells}
        return Finished({"heads": heads}, [], len(t))


KIND = Coins()
'''


@pytest.fixture
def coin_kind(tmp_path, monkeypatch):
    """The worked example registered: its module on the path and its one registry line."""
    (tmp_path / "coin_kind.py").write_text(textwrap.dedent(COIN_KIND))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(kinds, "KINDS", dict(kinds.KINDS))
    kinds.register("coins", "coins", "coin_kind:KIND")
    yield
    sys.modules.pop("coin_kind", None)


def test_every_registered_kind_loads_and_is_chunked_or_plays_itself():
    assert set(kinds.KINDS) >= {"throws", "fights", "games"}
    for name, entry in kinds.KINDS.items():
        kind = entry.load()
        assert isinstance(kind, ExperimentKind) and kind.name == name
        assert isinstance(kind, ChunkedKind) != isinstance(kind, PlayedKind), name
    assert sum(e.marker is None for e in kinds.KINDS.values()) == 1  # one default kind


def test_files_are_told_apart_by_their_marker_key():
    assert kinds.kind_of({"fight": "reference"}).name == "fights"
    assert kinds.kind_of({"game": "base"}).name == "games"
    assert kinds.kind_of({"name": "x", "throws": 10}).name == "throws"
    shipped = {p.stem: kinds.read(p)[0].name for p in (ROOT / "experiments").glob("*.toml")}
    assert shipped["quickstart"] == "throws" and shipped["house-rules"] == "fights"
    assert shipped["game-difficulty"] == "games"


def test_a_name_or_a_marker_is_registered_once(monkeypatch):
    monkeypatch.setattr(kinds, "KINDS", dict(kinds.KINDS))
    with pytest.raises(ValueError, match="registered twice"):
        kinds.register("fights", "duel", "x:Y")
    with pytest.raises(ValueError, match="both marked by 'game'"):
        kinds.register("tournaments", "game", "x:Y")


def test_an_entry_that_is_not_its_kind_is_refused(monkeypatch):
    monkeypatch.setattr(kinds, "KINDS", dict(kinds.KINDS))
    kinds.register("impostor", "impostor", "sim.experiments.throw_experiment:THROWS")  # named "throws"
    with pytest.raises(TypeError, match="is not the experiment kind 'impostor'"):
        kinds.kind_of({"impostor": 1})


def test_a_new_kind_runs_through_the_unchanged_runner_and_resumes(coin_kind, tmp_path):
    spec = {"name": "coins", "coins": {"fair": 0.5, "bent": 0.2}, "seed": 5, "flips": 400, "chunk_flips": 100}
    res = run_experiment(spec, out=tmp_path / "out", workers=1, quiet=True)
    assert len(res.records) == 800 and res.throws_run == 800
    # 400 flips per coin: a standard error of at most 0.025; five of them either side
    assert abs(res.summary["heads"]["fair"] - 0.5) < 0.125 and abs(res.summary["heads"]["bent"] - 0.2) < 0.1
    again = run_experiment(spec, out=tmp_path / "out", workers=1, quiet=True)
    assert again.throws_run == 0 and again.records.equals(res.records)  # every chunk verified and reused


def test_a_new_kind_is_checked_and_run_by_the_cli(coin_kind, tmp_path, capsys):
    f = tmp_path / "coins.toml"
    f.write_text('kind = "experiment"\nname = "toss"\nseed = 2\nflips = 50\nchunk_flips = 25\n'
                 '[coins]\nfair = 0.5\n')
    assert main(["check", str(f)]) == 0
    assert capsys.readouterr().out == f"ok: {f} is a valid coin experiment (1 coins)\n"
    assert main(["run", str(f), "--out", str(tmp_path / "run"), "--workers", "1"]) == 0
    assert capsys.readouterr().out.startswith("fair: ")


def test_an_install_without_the_packages_declarations_says_to_reinstall(monkeypatch):
    """An editable install made before fights and games declared themselves has no entry points: the
    core says so in one line instead of reading a fight file as something else."""
    from sim import plugins
    from sim.errors import PluginError

    plugins.plugins.cache_clear()
    monkeypatch.setattr(plugins, "entry_points", lambda group: [])
    try:
        with pytest.raises(PluginError, match="reinstall dfsim"):
            plugins.plugins()
    finally:
        monkeypatch.undo()
        plugins.plugins.cache_clear()
    assert {p.name for p in plugins.plugins()} == {"fights", "games"}
