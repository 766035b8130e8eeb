"""Prop kinds are declared once: every shape type has its traits, one builder in the world and at most
one effect in the rules, and no module outside those homes compares prop type names."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from sim.rules.effects import PROP_EFFECTS
from sim.specs.catalog import list_kind
from sim.specs.prop import PROP_TRAITS, PROP_TYPES, SHAPES, PropTraits
from sim.specs.requirements import REQUIRED_PROP
from sim.world.props import BUILDERS

SIM = Path(__file__).resolve().parents[2] / "sim"
# where a prop type name may be spelled: its shape class, its builder, its effect, and the specific throws
# that read one kind of prop (a requirement is about one prop: `REQUIRED_PROP`)
HOMES = {"specs/prop.py", "world/props.py", "rules/effects.py",
         "specs/requirements.py", "rules/requirements.py"}


def test_every_shape_type_has_traits_and_exactly_one_builder():
    assert len(SHAPES) == len(PROP_TYPES) == len(set(PROP_TYPES))
    assert all(isinstance(t, PropTraits) and t.colour.startswith("#") for t in PROP_TRAITS.values())
    assert set(BUILDERS) == set(PROP_TYPES)


def test_effects_and_requirements_name_only_prop_types_that_exist():
    assert set(PROP_EFFECTS) <= set(PROP_TYPES)
    assert {r.stage for r in PROP_EFFECTS.values()} <= {"reading", "bonus"}
    assert set(REQUIRED_PROP.values()) <= set(PROP_TYPES)


def test_hole_fillers_name_their_holes_and_moving_props_are_not_reposed_as_static():
    for cls in SHAPES:
        t = cls.traits
        if t.fills_holes:
            assert "holes" in cls.model_fields, cls.__name__
        kind = cls.model_fields["type"].annotation.__args__[0]
        if t.moves or t.held or t.fills_holes:
            assert not BUILDERS[kind].reposed, kind


@pytest.mark.parametrize("name", ["stone-wall", "cup", "volcano", "slow-tokens"])
def test_builtin_props_read_their_traits(name):
    spec = next(p for p in list_kind("prop") if p.name == name)
    assert spec.shape.traits is PROP_TRAITS[spec.type]
    assert spec.shape.moves == (name in ("stone-wall", "cup"))  # the built-in Stone Wall is free
    assert spec.shape.traits.on_board == (name in ("volcano", "slow-tokens"))


def _type_literals(node: ast.AST) -> set[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return {node.value} & set(PROP_TYPES)
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return set().union(*(_type_literals(e) for e in node.elts)) if node.elts else set()
    return set()


def test_no_module_outside_the_homes_compares_prop_type_names():
    found = []
    for path in SIM.rglob("*.py"):
        rel = path.relative_to(SIM).as_posix()
        if rel in HOMES:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Compare):
                names = set().union(*(_type_literals(x) for x in (node.left, *node.comparators)))
                if names:
                    found.append(f"{rel}:{node.lineno} {sorted(names)}")
    assert not found, "compare prop traits (sim.specs.prop.PropTraits), not type names: " + "; ".join(found)
