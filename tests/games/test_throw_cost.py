"""A recording's time left counts each throw at its template set's weight: the cheap scenarios that
come back first must not make the expensive ones look cheap."""

from __future__ import annotations

import numpy as np
import pytest

from sim.games.bank_recorder import _Bar
from sim.games.throw_cost import SET_WEIGHT, TEMPLATE_WEIGHT, scenario_weight, weight


def test_bare_board_is_the_unit_and_measured_sets_are_used_as_measured():
    assert weight([]) == 1.0
    assert scenario_weight({"templates": []}) == 1.0
    assert weight(["explosion"]) == TEMPLATE_WEIGHT["explosion"]
    assert weight(["fireball", "explosion"]) == SET_WEIGHT[frozenset({"explosion", "fireball"})]


def test_an_unmeasured_set_is_the_product_and_an_unknown_template_counts_as_a_fireball():
    assert weight(["armor", "lava-mat-like"]) == pytest.approx(TEMPLATE_WEIGHT["armor"] * TEMPLATE_WEIGHT["fireball"])


def test_time_left_after_a_cheap_scenario_prices_the_expensive_one_at_its_weight():
    w = weight(["explosion"])
    bar = _Bar(2, 200, quiet=True, aim_s=0.0, throw_s=0.02, workers=1, aims=0, units=100 + 100 * w)
    bar.chunk(100, 1.0, "bare", 1.0)  # 10 ms a bare throw
    assert bar.state()["left_s"] == pytest.approx(100 * w * 0.01, abs=0.1)
    bar.more(100, w)  # the expensive scenario short of its precision: 100 more of its throws
    assert bar.state()["left_s"] == pytest.approx(200 * w * 0.01, abs=0.1)
    bar.close()


def test_fresh_flips_are_the_entries_still_unpicked_after_n_uniform_picks():
    from sim.games.throw_cost import fresh_flips

    assert fresh_flips(0, 256, 0) == 0.0 and fresh_flips(500, 256, 256) == 0.0
    assert fresh_flips(1, 256, 0) == pytest.approx(1.0)  # the first throw always makes one
    assert fresh_flips(1, 256, 128) == pytest.approx(0.5)  # ... or half the time, with half held
    assert fresh_flips(256, 256, 0) == pytest.approx(256 * (1 - (255 / 256) ** 256))  # about 1 - 1/e of them
    assert fresh_flips(100_000, 256, 6) == pytest.approx(250.0)
    # the count a simulation of uniform picks gives (exact expectation; 4,000 replicates hold it to ~0.3 %)
    rng = np.random.default_rng(3)
    made = [len(set(rng.integers(256, size=300))) for _ in range(4000)]
    assert fresh_flips(300, 256, 0) == pytest.approx(np.mean(made), rel=0.01)


def test_a_recordings_flips_are_shared_by_the_scenarios_of_one_flip_bank_and_those_held_are_made(
    tmp_path, monkeypatch
):
    """Scenarios flipping the same templates share one flip bank: its expected new entries are counted
    once, spread over them by their throws; entries this machine holds already are not counted; a bare
    scenario makes none. The key counted is the one a thrower's templates use."""
    from sim import diskcache
    from sim.engine.flip_bank import CACHE_KIND
    from sim.engine.templates import TemplateLayer, flip_bank_key, flips_on_disk
    from sim.engine.worlds import build_thrower
    from sim.games.bank_recorder import flip_units
    from sim.games.throw_cost import FLIP_SESSION_WEIGHT, fresh_flips
    from sim.specs.scenario import Scenario

    monkeypatch.setenv("DFSIM_CACHE_DIR", str(tmp_path / "cache"))
    base = {"board": "magma", "shots": ["standard"], "skill": "casual"}
    expl = [{"name": "explosion", "flip": True}]
    hero = Scenario.build(**base, dice=["hero-d8"], templates=expl)
    iron = Scenario.build(**base, dice=["iron-d8"], templates=expl)
    bare = Scenario.build(**base, dice=["hero-d8"])
    s = {"templates": ["explosion"]}
    got = flip_units([(flips_on_disk(hero), s, 300), (flips_on_disk(iron), s, 100),
                      (flips_on_disk(bare), {"templates": []}, 500)])
    w = FLIP_SESSION_WEIGHT[frozenset({"explosion"})]
    assert got[0] == pytest.approx(0.75 * fresh_flips(400, 256, 0) * w)
    assert got[1] == pytest.approx(0.25 * fresh_flips(400, 256, 0) * w) and got[2] == 0.0
    # the key is the thrower's own: an entry it would keep counts as held
    th = build_thrower(hero)
    try:
        layer = next(c for c in th.components if isinstance(c, TemplateLayer))
        assert layer.bank_key(th) == flip_bank_key(hero)
    finally:
        th.physics.close()
    assert flips_on_disk(hero)[1:] == (256, 0)
    for j in range(64):
        diskcache.store(CACHE_KIND, [flip_bank_key(hero), j], [[0] * 9, []], "test")
    assert flips_on_disk(hero)[1:] == (256, 64) == flips_on_disk(iron)[1:]
    assert flip_units([(flips_on_disk(hero), s, 300)])[0] == pytest.approx(fresh_flips(300, 256, 64) * w)


def test_a_banks_history_prices_its_entries_throws_at_their_weight_and_their_flips(tmp_path, monkeypatch):
    """The next recording's first estimate: seconds per bare-throw unit over what the entries cost, their
    flips included (a recording's first throws of a template set pay its flip sessions)."""
    from sim.games.throw_bank import ThrowBank

    manifests = [
        {"rows": 400, "scenario": {"templates": []}, "record_seconds": 2.0, "aim_reference_throws": 900,
         "aim_seconds": 6.0},
        {"rows": 400, "scenario": {"templates": ["explosion"]}, "record_seconds": 40.0, "flip_units": 4000.0},
    ]  # fmt: skip
    monkeypatch.setattr(ThrowBank, "entries", lambda self: manifests)
    aim_s, throw_s = ThrowBank(tmp_path / "bank", None, quiet=True).history()
    assert aim_s == 6.0
    assert throw_s == pytest.approx(42.0 / (400 + 400 * TEMPLATE_WEIGHT["explosion"] + 4000))
