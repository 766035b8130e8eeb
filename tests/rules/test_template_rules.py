"""Classification on templates from constructed poses (pure: no physics)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from sim.rules.classifier import classify
from sim.rules.footprint import bottom_corners_xy
from sim.rules.templates import (
    PARTIAL_OPTIONS,
    apply_armor,
    apply_templates,
    partial_counts,
    resolve,
    slime_positions,
)
from sim.specs.board import load_board
from sim.specs.die import load_die
from sim.specs.rules import RuleSet
from sim.specs.template import PlacedTemplate, TemplateSpec, builtin_templates, flat_pose, load_template
from sim.trace import DieRest, EventTrace

BOARD = load_board("magma")
D8 = load_die("hero-d8")
T_BOARD = BOARD.thickness_m


def lay(name: str, x_mm: float, y_mm: float, yaw: float = 0.0, base: float = T_BOARD, tid: str | None = None) -> PlacedTemplate:
    spec = load_template(name)
    pos, q = flat_pose(spec, x_mm, y_mm, yaw, base)
    return PlacedTemplate(tid or name, spec, pos, q)


def die_at(x_mm, y_mm, touching, z_m=0.02, face="blank", tilt_deg=0.0):
    fi = D8.face_index(face)
    q = D8.orientation_with_face(fi, up=True, yaw_deg=0.0)
    if tilt_deg:
        h = math.radians(tilt_deg) / 2
        from sim.specs.die import quat_mul

        q = quat_mul((math.sin(h), 0, 0, math.cos(h)), q)
    return DieRest("die:0", (x_mm * 1e-3, y_mm * 1e-3, z_m), tuple(float(v) for v in q), frozenset(touching), "rest", 1.0)


def run(rest, templates, **rules):
    rs = RuleSet(**rules)
    out = apply_templates(classify(rest, D8, BOARD, EventTrace(), rs, placed=True), rest, D8, BOARD, templates, rs)
    return apply_armor([out], templates)[0]


def test_builtin_templates_cover_the_rulebooks():
    names = {s.name for s in builtin_templates()}
    assert names == {"fireball", "explosion", "armor", "major-healing", "slime", "philosophers-stone", "weak-point"}
    for s in builtin_templates():
        assert s.estimated, s.name
        assert s.mass_kg > 0 and s.area_m2 > 0
        # the convex pieces tile the outline exactly
        from shapely.geometry import Polygon
        from shapely.ops import unary_union

        u = unary_union([Polygon(p) for p in s.convex_pieces])
        assert abs(u.area - s.local_outline.area) < 1e-5 * s.local_outline.area  # 0.1 um snapping
        for p in s.convex_pieces:
            poly = Polygon(p)
            assert poly.convex_hull.area - poly.area < 1e-9
    assert load_template("explosion").count == 2


def test_fully_on_template_gives_its_effect_and_regions():
    fb = lay("fireball", 100, 0)
    # die over the 6-damage part (the 10 core is centred at +18 mm in the template frame)
    o = run(die_at(100 - 25, 0, {"template:fireball"}), [fb])
    assert (o.result, o.template, o.partial_template, o.damage) == ("hit", "fireball", False, 6.0)
    o = run(die_at(100 + 18, 0, {"template:fireball"}), [fb])
    assert o.damage == 10.0 and "template-region:core" in o.effects
    # rotated by 180 degrees the core is on the other side
    fb2 = lay("fireball", 100, 0, yaw=180)
    assert run(die_at(100 - 18, 0, {"template:fireball"}), [fb2]).damage == 10.0


def test_partial_on_board_counts_the_section_below():
    fb = lay("fireball", 100, 0)
    rest = die_at(150, 0, {"template:fireball", "board"})  # straddling the outline at r = 50 mm
    corners = bottom_corners_xy(D8, rest.position_m, rest.orientation_xyzw)
    on = fb.covers(corners)
    assert 0 < on.sum() < len(corners)
    plain = classify(rest, D8, BOARD, EventTrace(), RuleSet(), placed=True)
    for opt in ("base", "expansion", "a"):
        o = run(rest, [fb], partial_template=opt)
        assert o.partial_template and o.template is None
        assert (o.result, o.section, o.damage) == (plain.result, plain.section, plain.damage)
    assert run(rest, [fb], partial_template="b").result == "miss"
    c = run(rest, [fb], partial_template="c")
    assert c.template == "fireball" and c.result == "hit"


def test_partial_on_table_is_a_miss():
    # a template laid over the board's edge: half on the board, half over the table
    wp = lay("weak-point", 280, 0)
    rest = die_at(280 + 30, 0, {"template:weak-point", "table"})
    corners = bottom_corners_xy(D8, rest.position_m, rest.orientation_xyzw)
    assert 0 < wp.covers(corners).sum() < len(corners)
    for opt in ("base", "expansion", "b"):
        o = run(rest, [wp], partial_template=opt)
        assert (o.result, o.template, o.partial_template) == ("miss", None, True), opt
        assert o.reason == ("partial-template:b" if opt == "b" else "partial-template:table")
    assert run(rest, [wp], partial_template="c").template == "weak-point"


def test_stacked_top_counts_and_base_vs_expansion_differ():
    fb = lay("fireball", 0, 100)
    wp = lay("weak-point", 0, 100, base=fb.top_z_m - fb.spec.thickness_m / 2 + fb.spec.thickness_m / 2)
    wp = PlacedTemplate("weak-point", wp.spec, (0.0, 0.1, fb.top_z_m + wp.spec.thickness_m / 2), wp.orientation_xyzw)
    assert wp.top_z_m > fb.top_z_m
    # fully on the top one
    o = run(die_at(0, 100, {"template:weak-point"}), [fb, wp])
    assert (o.template, o.damage, o.partial_template) == ("weak-point", 7.0, False)
    # half on the top one (edge at r = 35 mm), half on the fireball below it
    rest = die_at(0, 100 + 35, {"template:weak-point", "template:fireball"})
    base = run(rest, [fb, wp], partial_template="base")
    exp = run(rest, [fb, wp], partial_template="expansion")
    assert (base.template, base.partial_template) == ("fireball", True)
    assert base.damage in (6.0, 10.0)
    assert (exp.template, exp.damage) == ("weak-point", 7.0)
    counts = partial_counts(rest, D8, [fb, wp])
    assert counts["base"] == "template:fireball" and counts["expansion"] == "template:weak-point"
    assert set(counts) == set(PARTIAL_OPTIONS)


def test_icon_on_weak_point_is_insta_kill_and_not_elsewhere():
    wp = lay("weak-point", -100, 0)
    o = run(die_at(-100, 0, {"template:weak-point"}, face="icon"), [wp])
    assert o.insta_kill and "insta-kill" in o.effects and o.template == "weak-point"
    o = run(die_at(-100, 0, {"template:weak-point"}, face="blank"), [wp])
    assert not o.insta_kill and o.damage == 7.0
    assert not run(die_at(-100, 0, {"template:weak-point"}, face="icon"), [wp], icon_insta_kill=False).insta_kill
    fb = lay("fireball", -100, 0)
    assert not run(die_at(-100, 0, {"template:fireball"}, face="icon"), [fb]).insta_kill


def test_effects_explosion_healing_stone():
    ex = lay("explosion", 0, -120, tid="explosion-1")
    o = run(die_at(0, -120, {"template:explosion-1"}), [ex])
    assert (o.result, o.damage, o.hero_damage) == ("hit", 0.0, 2.0)
    mh = lay("major-healing", 0, -120)
    o = run(die_at(0, -120, {"template:major-healing"}), [mh])
    assert o.damage == 0.0 and "every-hero-heals:5" in o.effects and o.result == "hit"
    ps = lay("philosophers-stone", 0, -120)
    o = run(die_at(0, -120, {"template:philosophers-stone"}), [ps])
    assert o.damage == 2.0 and "gold:3" in o.effects


def test_armor_wordings_and_penalty():
    ar = lay("armor", 150, 150)
    on = die_at(150, 150, {"template:armor"})
    assert run(on, [ar]).damage == 0.0
    o = run(on, [ar], armor="rock-and-roll")
    assert o.damage == 1.0 and "remove-template:armor" in o.effects and o.result == "hit"
    # a hit elsewhere loses 1 while the armor is on the board
    elsewhere = die_at(-150, 0, {"board"})
    plain = classify(elsewhere, D8, BOARD, EventTrace(), RuleSet(), placed=True)
    assert plain.result == "hit" and plain.damage > 0
    assert run(elsewhere, [ar]).damage == plain.damage - 1
    assert run(elsewhere, [lay("fireball", 150, 150)]).damage == plain.damage


def test_slime_moves_die_to_best_or_worst_position():
    sl = lay("slime", 100, 0)
    rest = die_at(100, 0, {"template:slime"})
    cands = slime_positions(D8, rest, BOARD, sl)
    assert len(cands) > 10
    # every candidate lies outside the slime, touching the +x curve (at r = 45 mm from its centre)
    for cxy, _ in cands:
        d = np.hypot(cxy[:, 0] - 0.1, cxy[:, 1])
        assert d.min() >= 0.045 - 1e-4 and d.min() < 0.045 + 1e-3
        assert np.all(cxy[:, 0] > 0.1)
    best = run(rest, [sl], slime_choice="best")
    worst = run(rest, [sl], slime_choice="worst")
    rnd = run(rest, [sl], slime_choice="random")
    assert best.template == "slime" and best.damage >= worst.damage
    assert best.damage > worst.damage  # the curve crosses the 5/3 ring border at r = 115 mm
    assert worst.damage <= rnd.damage <= best.damage
    assert run(rest, [sl], slime_choice="random").damage == rnd.damage  # replays exactly


def test_leaning_on_edge_ignores_template_and_no_contact_means_no_effect():
    fb = lay("fireball", 100, 0)
    rest = die_at(100 + 50 + 12, 0, {"template:fireball", "board"})
    assert resolve(rest, D8, [fb], "base").kind == "none"
    plain = classify(rest, D8, BOARD, EventTrace(), RuleSet(), placed=True)
    o = run(rest, [fb])
    assert (o.result, o.damage, o.template) == (plain.result, plain.damage, None)
    # geometrically over the template but not touching it (e.g. hovering on another die): no effect
    o = run(die_at(100, 0, {"board"}), [fb])
    assert o.template is None


def test_rule_options_validated():
    from pydantic import ValidationError

    with pytest.raises(ValidationError):
        RuleSet(partial_template="d")
    with pytest.raises(ValidationError):
        RuleSet(armor="silly")
    for opt in PARTIAL_OPTIONS:
        assert RuleSet(partial_template=opt).partial_template == opt


def test_bad_template_file_is_one_clear_error(tmp_path):
    from sim.errors import SpecError

    p = tmp_path / "t.toml"
    p.write_text('name = "x"\neffect = "slime"\n[[outline]]\nkind = "circle"\nradius_mm = 40\n')
    with pytest.raises(SpecError, match="slime"):
        TemplateSpec.load(p, "template")
    p.write_text('name = "x"\n[[outline]]\nkind = "circle"\nradius_mm = 40\ncenter_mm = [0, 0]\n[[outline]]\nkind = "circle"\nradius_mm = 10\ncenter_mm = [200, 0]\n')
    with pytest.raises(SpecError, match="connected"):
        TemplateSpec.load(p, "template")
