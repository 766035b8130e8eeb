"""Run figures: the landing map tells hits from misses and draws what stood on the board; figures of
many cells are split over several files, never cut down to a sample."""

from __future__ import annotations

import matplotlib
import numpy as np
import pandas as pd
import pytest

from sim.experiments.figures import (
    HEAT_BINS,
    MAX_BAR_CELLS,
    PANELS_PER_PAGE,
    _cell_drawing,
    damage_bars,
    landing_counts,
    landing_maps,
    landing_rgba,
    outcome_bars,
    section_bars,
)
from sim.experiments.report import cell_summary
from sim.specs.scenario import Scenario

matplotlib.use("Agg")


def test_colour_says_hit_or_miss_and_opacity_says_how_many():
    counts = np.zeros((4, 4))
    hits = np.zeros((4, 4))
    counts[0, 0], hits[0, 0] = 10, 10  # all hits
    counts[1, 0], hits[1, 0] = 10, 0  # all misses
    counts[2, 0], hits[2, 0] = 1, 0  # one miss
    rgba = landing_rgba(counts, hits, top=10)  # image rows are y, columns x
    hit, miss, one = rgba[0, 0], rgba[0, 1], rgba[0, 2]
    assert hit[2] > hit[0] + 0.2 and miss[0] > miss[2] + 0.2  # blue for hits, red for misses
    assert hit[3] == miss[3] == 1.0 and 0 < one[3] < miss[3]  # fewer throws: fainter
    assert rgba[3, 3, 3] == 0.0  # nothing rested there: transparent


def _summary(n_cells: int, n: int = 40) -> dict:
    rng = np.random.default_rng(4)
    variants = []
    for c in range(n_cells):
        hit = rng.random(n) < 0.3 + 0.02 * c
        value = np.where(hit, rng.choice([1, 2, 10], size=n), -1)
        df = pd.DataFrame({"index": np.arange(n), "result": np.where(hit, "hit", "miss"),
                           "reason": np.where(hit, "hit", rng.choice(["off-board", "in-hole"], size=n)),
                           "section": np.where(hit, "s", ""), "value": value, "face": "blank",
                           "damage": np.where(hit, value, 0).astype(float), "insta_kill": False, "cocked": False})
        variants.append({"name": f"cell-{c}", **cell_summary(df)})
    return {"variants": variants}


def test_many_cells_are_split_over_files_not_dropped(tmp_path):
    summary = _summary(2 * MAX_BAR_CELLS + 3)
    for draw, stem in ((outcome_bars, "outcomes"), (section_bars, "sections")):
        paths = draw(tmp_path / f"{stem}.png", summary, "95 %")
        assert [p.name for p in paths] == [f"{stem}.png", f"{stem}-2.png", f"{stem}-3.png"]
        assert all(p.stat().st_size > 5000 for p in paths)
    assert [p.name for p in outcome_bars(tmp_path / "one.png", _summary(3), "95 %")] == ["one.png"]
    assert len(damage_bars(tmp_path / "damage.png", summary, "95 %")) == 1
    assert all(v["damage"]["lo"] >= 0 for v in summary["variants"])


def test_landing_maps_are_split_and_draw_props_templates_and_thrower(tmp_path):
    plain = Scenario.build(shots=["standard"])
    wall = Scenario.build(shots=["firewall"], templates=[{"name": "weak-point", "x_mm": 120, "y_mm": 0},
                                                         {"name": "fireball", "flip": True}])
    drawing = _cell_drawing(wall)
    assert [n for n, _t, _g in drawing["props"]] == ["firewall"]
    assert [n for n, _g in drawing["templates"]] == ["weak-point"] and drawing["flipped"] == ["fireball"]
    assert drawing["thrower"][0] < -wall.board.radius_m * 1e3  # the thrower stands on -x, off the board
    extent = 400.0
    rng = np.random.default_rng(1)
    panels = []
    for k in range(PANELS_PER_PAGE + 2):
        x, y = rng.normal(0, 120, 300), rng.normal(0, 120, 300)
        hit = np.hypot(x, y) < 200
        sc = wall if k == 1 else plain
        panels.append({"name": f"cell-{k}", "board": sc.board, "n": 300, "hit_rate": "50 %",
                       "counts": landing_counts([(x, y)], extent), "hits": landing_counts([(x[hit], y[hit])], extent),
                       **_cell_drawing(sc)})
    said: list[str] = []
    paths = landing_maps(tmp_path / "landing.png", panels, "test", extent, said.append)
    assert [p.name for p in paths] == ["landing.png", "landing-2.png"]
    assert said == ["landing.png (page 1 of 2)", "landing-2.png (page 2 of 2)"]  # each page said as it starts
    assert panels[0]["counts"].shape == (HEAT_BINS, HEAT_BINS) and panels[0]["counts"].sum() == 300


@pytest.mark.parametrize("shot", ["firewall", "cup"])
def test_prop_footprints_stand_where_the_props_do(shot):
    from sim.world.props import prop_footprints

    sc = Scenario.build(shots=[shot])
    (name, _type, geom), *_ = prop_footprints(sc)
    x0, _y0, x1, _y1 = (v * 1e3 for v in geom.bounds)
    r = sc.board.radius_m * 1e3
    if shot == "firewall":  # stands a few cm in front of the board, across the throw
        assert -r - 100 < x0 <= x1 < -r and geom.length * 1e3 > 200
    else:  # the cup is in the thrower's hand
        assert x0 < -sc.shot.release.distance_mm < x1
