"""The flip bank (sim/engine/flip_bank.py): made once per machine and read back, the same records
whatever the number of workers, a bad size refused in one line, and equivalent in distribution to
flipping afresh before every throw."""

from __future__ import annotations

import math
import os

import numpy as np
import pandas as pd
import pytest

from sim.cli.main import main
from sim.engine.flip_bank import CACHE_KIND, bank_seed, clear_banks
from sim.engine.templates import TemplateLayer
from sim.engine.worlds import build_thrower
from sim.experiments.runner import run_experiment
from sim.specs.scenario import Scenario

# the standard shot's solved release as a fixed one: no aim to solve in these tests
FIXED_SHOT = ('name = "standard-fixed"\nrequirements = ["bounce-before-board"]\n[release]\n'
              'distance_mm = 650\nheight_mm = 100\naim = "none"\nspeed_mps = 1.7727\nelevation_deg = 10.0\n'
              'spin_rps = 4.0\n')
WEAK_POINT = [{"name": "weak-point", "flip": True}]


@pytest.fixture
def shot(tmp_path):
    f = tmp_path / "standard-fixed.toml"
    f.write_text(FIXED_SHOT)
    return str(f)


def _layer(th) -> TemplateLayer:
    return next(c for c in th.components if isinstance(c, TemplateLayer))


def _bank_files(cache) -> list:
    return sorted((cache / CACHE_KIND).glob("*.json"))


def test_entries_are_made_when_first_taken_as_their_flips_afresh_and_read_back(cache, shot, monkeypatch):
    sc = Scenario.build(shots=[shot], templates=WEAK_POINT, flip_bank=5)
    assert sc.flip_bank == 5 and sc.description["flip_bank"] == 5
    th = build_thrower(sc)
    bank = _layer(th).bank(th)
    assert bank.size == 5 and bank.made == [] and not _bank_files(cache)  # nothing flipped up front
    # the throw picks its entry from its own stream: (seed, index) only, whatever was thrown before
    picks = [bank.pick(7, k) for k in range(12)]
    wanted = [bank.index(7, k) for k in range(12)]
    assert len(set(wanted)) > 1 and picks == [bank.entry(j) for j in wanted]
    assert sorted(bank.made) == sorted(set(wanted)) and len(bank.made) == len(set(bank.made))
    assert len(_bank_files(cache)) == len(bank.made)  # one cache file per entry made
    made = {j: bank.entry(j) for j in bank.made}
    key = _layer(th).bank_key(th)
    th.physics.close()
    # entry j is the session throw j of the bank's seed flips afresh
    afresh = build_thrower(Scenario.build(shots=[shot], templates=WEAK_POINT, flip_bank=0))
    j = bank.made[-1]
    afresh.prepare(bank_seed(key), j)
    assert [(t.id, t.position_m, t.orientation_xyzw) for t in afresh.templates] == list(made[j].placed)
    afresh.physics.close()
    # another process (nothing in memory) reads them back from the disk, flipping nothing
    clear_banks()
    again = build_thrower(sc)
    back = _layer(again).bank(again)
    assert [back.pick(7, k) for k in range(12)] == picks and back.made == []
    assert again.throw(7, 4).record() == again.throw(7, 4).record()
    again.physics.close()
    # an entry depends on j alone: made from nothing in another order, the same entries to the bit
    monkeypatch.setenv("DFSIM_CACHE_DIR", str(cache / "other"))
    clear_banks()
    fresh = build_thrower(sc)
    other = _layer(fresh).bank(fresh)
    assert {j: other.entry(j) for j in reversed(sorted(made))} == made
    assert other.made == sorted(made, reverse=True)
    fresh.physics.close()


def test_setting_and_keys(shot):
    bare = Scenario.build(shots=[shot])
    laid = Scenario.build(shots=[shot], templates=[{"name": "weak-point", "x_mm": 0, "y_mm": 0}])
    afresh = Scenario.build(shots=[shot], templates=WEAK_POINT, flip_bank=0)
    banked = Scenario.build(shots=[shot], templates=WEAK_POINT)
    # only a scenario drawing flips from a bank names it: every other key is what it was before
    assert "flip_bank" not in bare.description and "flip_bank" not in laid.description
    assert Scenario.build(shots=[shot], flip_bank=64).key == bare.key
    assert "flip_bank" not in afresh.description and banked.flip_bank == 256
    assert banked.key != afresh.key and banked.board_aim_key == afresh.board_aim_key == bare.board_aim_key


BAD = [("-1", "flip_bank"), ("1.5", "flip_bank"), ("true", "flip_bank"), ('"many"', "flip_bank"),
       ("70000", "65536")]


@pytest.mark.parametrize(("value", "needle"), BAD)
def test_a_bad_bank_size_is_one_line_naming_file_and_field(value, needle, tmp_path, capsys):
    f = tmp_path / "bank.toml"
    f.write_text('name = "bank"\nseed = 1\nthrows = 4\n[defaults]\nboard = "magma"\n'
                 f'[[variants]]\nname = "flip"\ntemplates = [{{ name = "fireball", flip = true }}]\n'
                 f"flip_bank = {value}\n")
    for argv in (["check", str(f)], ["run", str(f), "--out", str(tmp_path / "out"), "--quiet"]):
        assert main(argv) == 2
        lines = capsys.readouterr().err.strip().splitlines()
        assert len(lines) == 1, lines
        assert str(f) in lines[0] and "variants.0.flip_bank" in lines[0] and needle in lines[0], lines[0]
    assert not (tmp_path / "out").exists()


def test_records_are_the_same_whatever_the_workers_and_a_rerun_reads_the_cache(cache, shot, tmp_path):
    spec = {"name": "bank-workers", "seed": 21, "throws": 6, "chunk_throws": 2,
            "defaults": {"board": "magma", "dice": ["hero-d8"], "shots": [shot], "skill": "casual"},
            "variants": [{"name": "flip", "templates": WEAK_POINT, "flip_bank": 4},
                         {"name": "flip-afresh", "templates": WEAK_POINT, "flip_bank": 0}]}
    clear_banks()
    one = run_experiment(spec, out=tmp_path / "one", workers=1, quiet=True, figures=False)
    files = _bank_files(cache)
    assert 1 <= len(files) <= 4  # the entries the 6 throws took, one file each
    made = [os.stat(f) for f in files]
    clear_banks()
    two = run_experiment(spec, out=tmp_path / "two", workers=2, quiet=True, figures=False)
    a = pd.read_parquet(one.out / "records.parquet").sort_values(["cell", "index"]).reset_index(drop=True)
    b = pd.read_parquet(two.out / "records.parquet").sort_values(["cell", "index"]).reset_index(drop=True)
    pd.testing.assert_frame_equal(a, b, check_exact=True)
    # the second run read the entries from the cache: none was made or written again
    assert _bank_files(cache) == files
    again = [os.stat(f) for f in files]
    assert [(s.st_ino, s.st_mtime_ns) for s in again] == [(s.st_ino, s.st_mtime_ns) for s in made]
    # the run ships the entries this machine already held to its workers (prepared.json): the first
    # run, on an empty cache, none; the second, those the first made
    import json

    def shipped(run) -> list[int]:
        prepared = json.loads((run.out / "prepared.json").read_text())
        banked = [v["flip_bank"] for v in prepared.values() if "flip_bank" in v]
        assert len(banked) == 1 and banked[0]["size"] == 4
        return [j for j, _entry in banked[0]["entries"]]

    assert shipped(one) == [] and len(shipped(two)) == len(files)
    # common random numbers: the bank leaves the dice releases as they were
    rel = a.groupby("index")["rel_vx_mps"].nunique()
    assert (rel == 1).all()


def test_a_short_run_makes_only_the_entries_it_takes_and_is_a_long_runs_first_throws(cache, shot, tmp_path):
    """The default bank of 256: 8 throws flip at most 8 entries (not the bank), and their records are
    the first 8 of a 12-throw run's, made on 2 workers reading those entries back and flipping the rest."""
    spec = {"name": "bank-prefix", "seed": 33, "throws": 8, "chunk_throws": 4,
            "defaults": {"board": "magma", "dice": ["hero-d8"], "shots": [shot], "skill": "casual"},
            "variants": [{"name": "flip", "templates": WEAK_POINT}]}
    clear_banks()
    short = run_experiment(spec, out=tmp_path / "short", workers=1, quiet=True, figures=False)
    assert 1 <= len(_bank_files(cache)) <= 8
    clear_banks()
    long = run_experiment({**spec, "throws": 12}, out=tmp_path / "long", workers=2, quiet=True, figures=False)
    assert len(_bank_files(cache)) <= 12
    a = pd.read_parquet(short.out / "records.parquet").sort_values("index").reset_index(drop=True)
    b = pd.read_parquet(long.out / "records.parquet").sort_values("index").reset_index(drop=True)
    assert len(a) == 8 and len(b) == 12 and (a["tpl_flips"] > 0).all()
    pd.testing.assert_frame_equal(a, b.iloc[:8].reset_index(drop=True), check_exact=True)


def _template_odds(th, seed: int, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Per throw: whether the die came to rest (fully or partly) on the template, and how far its rest
    lies from the template's centre (mm)."""
    on, far = [], []
    for k in range(n):
        o = th.throw(seed, k).outcome
        on.append(float(o.template is not None))
        centre = np.array(th.templates[0].position_m[:2]) * 1e3 if th.templates else np.full(2, 1e3)
        far.append(float(math.hypot(*(np.array(o.position_mm[:2]) - centre))))
    return np.array(on), np.array(far)


def _within_noise(a: np.ndarray, b: np.ndarray, size: int) -> tuple[bool, float, float]:
    """Paired difference of bank (b) minus afresh (a) against 3.29 standard errors (two-sided 0.1 %):
    the paired difference's error over n throws plus the bank's own (b's spread over its N flips)."""
    d = b - a
    se = math.sqrt(d.var(ddof=1) / len(d) + b.var(ddof=1) / size)
    return abs(d.mean()) <= 3.29 * se, float(d.mean()), se


def test_bank_and_flipping_afresh_give_the_same_template_odds(cache, shot):
    """Paired on the same throws (the same dice releases), a bank of N flips and flipping afresh give
    the same share of dice on the template and the same distance of the die from the template's
    centre, within their noise."""
    n, size, seed = 100, 40, 77
    # the fireball flipped towards where these throws' dice come to rest (their median, about (-105, -8) mm)
    fireball = [{"name": "fireball", "flip": True, "aim_mm": [-105, -8]}]
    afresh = build_thrower(Scenario.build(shots=[shot], templates=fireball, flip_bank=0))
    banked = build_thrower(Scenario.build(shots=[shot], templates=fireball, flip_bank=size))
    (on_a, far_a), (on_b, far_b) = _template_odds(afresh, seed, n), _template_odds(banked, seed, n)
    afresh.physics.close()
    banked.physics.close()
    assert on_a.sum() >= 3 and on_b.sum() >= 3  # dice do land on it
    for a, b in ((on_a, on_b), (far_a, far_b)):
        ok, diff, se = _within_noise(a, b, size)
        assert ok, (a.mean(), b.mean(), diff, se)
