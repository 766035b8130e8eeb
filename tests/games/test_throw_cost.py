"""A recording's time left counts each throw at its template set's weight: the cheap scenarios that
come back first must not make the expensive ones look cheap."""

from __future__ import annotations

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
