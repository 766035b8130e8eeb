"""The outcome is a frozen value and the rules pipeline returns copies; its effects are typed values
whose text is the form records store."""

from __future__ import annotations

import copy
import dataclasses
import pickle
from types import SimpleNamespace

import pytest

from sim.rules.classifier import classify
from sim.rules.effects import apply_effects
from sim.rules.outcome import EFFECT_KINDS, Effect, Outcome
from sim.rules.requirements import RequirementContext
from sim.rules.templates import apply_armor, apply_templates
from sim.specs.rules import RuleSet
from sim.trace import EventTrace
from tests.rules.test_template_rules import BOARD, D8, die_at, lay


def test_an_outcome_cannot_be_changed():
    o = Outcome(result="hit", reason="hit", damage=3.0)
    with pytest.raises(dataclasses.FrozenInstanceError):
        o.damage = 4.0  # type: ignore[misc]
    assert dataclasses.replace(o, damage=4.0).damage == 4.0 and o.damage == 3.0


def test_effects_are_typed_and_their_text_is_the_record_form():
    effects = ["every-hero-suffers:2", "touched:firewall:-1", "insta-kill"]
    o = Outcome(result="hit", reason="template", effects=effects)
    assert all(isinstance(e, Effect) for e in o.effects)
    suffers, touched, insta = o.effects
    assert (suffers.kind, suffers.amount) == ("every-hero-suffers", 2)
    assert (touched.kind, touched.arg, touched.amount) == ("touched", "firewall:-1", -1)
    assert insta == "insta-kill" and insta.arg == ""
    record = o.to_json()["effects"]
    assert record == ["every-hero-suffers:2", "touched:firewall:-1", "insta-kill"]
    assert all(type(e) is str for e in record)
    again = pickle.loads(pickle.dumps(o))  # workers hand outcomes back pickled
    assert again == o and all(isinstance(e, Effect) for e in again.effects)
    assert Effect.of("gold", 3) == "gold:3" and Effect.of("collective-icon") == "collective-icon"
    with pytest.raises(ValueError, match="unknown effect kind 'glitter'"):
        Effect.of("glitter", 1)


def _snapshot(outcomes):
    return [copy.deepcopy(dataclasses.asdict(o)) for o in outcomes]


@pytest.mark.parametrize("template,at,touching,rules", [
    ("explosion", (0, -120), {"template:explosion"}, {}),
    ("armor", (150, 150), {"board"}, {"armor": "rock-and-roll"}),
    ("slime", (0, -120), {"template:slime"}, {}),
])
def test_the_pipeline_returns_copies_and_leaves_its_inputs_unchanged(template, at, touching, rules):
    rs = RuleSet(**rules)
    placed = [lay(template, 0, -120) if template != "armor" else lay("armor", *at)]
    rest = die_at(*at, touching, face="icon") if template != "armor" else die_at(-150, 0, touching)
    board_reading = classify(rest, D8, BOARD, EventTrace(), rs, placed=True)
    before = _snapshot([board_reading])
    on_templates = apply_templates(board_reading, rest, D8, BOARD, placed, rs)
    assert _snapshot([board_reading]) == before
    sc = SimpleNamespace(dice=[D8])
    mid = _snapshot([on_templates])
    after = apply_armor(apply_effects([on_templates], sc, RequirementContext(board=BOARD, rules=rs)), placed)
    assert _snapshot([on_templates]) == mid
    assert after[0] is not board_reading
    assert {e.kind for e in after[0].effects} <= set(EFFECT_KINDS)


def test_every_effect_kind_the_code_names_is_known():
    """`Effect.of` refuses an unknown kind when it runs; this finds one on a path no test runs."""
    import ast
    from pathlib import Path

    named = set()
    for path in (Path(__file__).resolve().parents[2] / "sim").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "of"
                    and isinstance(node.func.value, ast.Name) and node.func.value.id == "Effect" and node.args
                    and isinstance(node.args[0], ast.Constant)):
                named.add(node.args[0].value)
    assert named and named <= set(EFFECT_KINDS)
