"""Every number in every spec has a lower and an upper bound and every list a maximum length, so no
data file or override can ask for a 10 km board, a 2**70 score or a million sections; checked from
the models themselves, so a new field without bounds fails here."""

from __future__ import annotations

import math
import types
from typing import Annotated, Any, Union, get_args, get_origin

import annotated_types as at
import pytest
from pydantic import BaseModel

from sim.errors import SpecError
from sim.experiments.spec import ExperimentSpec
from sim.specs.catalog import SPEC_CLASSES
from sim.specs.flip import FlipProfile, FlipSkill
from sim.specs.measured_board import MeasuredBoard
from sim.specs.measurements import MeasurementsSpec
from sim.specs.physics import MAX_STEPS_PER_THROW, PhysicsSettings
from sim.specs.rules import RuleSet
from sim.specs.tally import TallySpec
from sim.specs.template_setup import TemplateSetup
from sim.studies.sensitivity import SensitivitySpec

ROOTS = [*SPEC_CLASSES.values(), RuleSet, PhysicsSettings, FlipProfile, FlipSkill, TemplateSetup, ExperimentSpec,
         MeasurementsSpec, TallySpec, SensitivitySpec, MeasuredBoard]


def _flags(metadata) -> set[str]:
    out = set()
    for m in metadata:
        if isinstance(m, (at.Ge, at.Gt)):
            out.add("lo")
        if isinstance(m, (at.Le, at.Lt)):
            out.add("hi")
        if isinstance(m, at.MaxLen):
            out.add("len")
        out |= _flags(getattr(m, "metadata", []))  # a FieldInfo inside Annotated
    return out


def _walk(tp: Any, flags: set[str], where: str, problems: list[str], models: list[type]) -> None:
    """Collect numbers without two bounds and lists without a maximum length; note nested models."""
    if get_origin(tp) is Annotated:
        base, *meta = get_args(tp)
        _walk(base, flags | _flags(meta), where, problems, models)
        return
    if get_origin(tp) in (Union, types.UnionType):
        for arm in get_args(tp):
            _walk(arm, flags, where, problems, models)
        return
    if tp in (int, float) and not {"lo", "hi"} <= flags:
        problems.append(f"{where}: {tp.__name__} without {'a lower' if 'lo' not in flags else 'an upper'} bound")
    origin = get_origin(tp)
    if origin is list:
        if "len" not in flags:
            problems.append(f"{where}: list without max_length")
        _walk(get_args(tp)[0], set(), f"{where}[]", problems, models)
    elif origin is tuple:
        args = [a for a in get_args(tp) if a is not Ellipsis]
        if Ellipsis in get_args(tp) and "len" not in flags:
            problems.append(f"{where}: open tuple without max_length")
        for a in args:
            _walk(a, set(), f"{where}[]", problems, models)
    elif origin is dict:
        if "len" not in flags:
            problems.append(f"{where}: table without max_length")
        # values of rules/physics/overrides tables are checked by the spec they set
    elif isinstance(tp, type) and issubclass(tp, BaseModel):
        models.append(tp)


def _problems() -> list[str]:
    problems: list[str] = []
    seen: set[type] = set()
    todo = list(ROOTS)
    while todo:
        model = todo.pop()
        if model in seen:
            continue
        seen.add(model)
        for name, info in model.model_fields.items():
            _walk(info.annotation, _flags(info.metadata), f"{model.__name__}.{name}", problems, todo)
    return problems


def test_every_number_bounded_and_every_list_capped():
    assert _problems() == []


def test_the_bounds_check_can_fail():
    class Loose(BaseModel):
        x: float
        xs: list[int]

    problems: list[str] = []
    for name, info in Loose.model_fields.items():
        _walk(info.annotation, _flags(info.metadata), name, problems, [])
    assert problems == ["x: float without a lower bound", "xs: list without max_length", "xs[]: int without a lower bound"]


# ---------------------------------------------------------------- the step budget ----
def test_step_budget_caps_the_work_of_a_throw():
    default = PhysicsSettings()
    assert default.max_steps == round(default.max_time_s * default.step_hz) <= MAX_STEPS_PER_THROW
    with pytest.raises(SpecError, match="max_time_s"):
        PhysicsSettings.from_dict({"step_hz": 20000, "max_time_s": 120})
    ok = PhysicsSettings.from_dict({"step_hz": MAX_STEPS_PER_THROW / 100, "max_time_s": 100})
    assert ok.max_steps == MAX_STEPS_PER_THROW and ok.out_of_steps == "not-settled"
    # settings that escaped validation (model_copy does not validate) still get the budget
    rogue = PhysicsSettings().model_copy(update={"step_hz": 20000.0, "max_time_s": 120.0})
    assert rogue.max_steps == MAX_STEPS_PER_THROW and rogue.out_of_steps == "step-budget"
    nan = PhysicsSettings().model_copy(update={"max_time_s": math.nan})
    assert nan.max_steps == MAX_STEPS_PER_THROW and nan.out_of_steps == "step-budget"
