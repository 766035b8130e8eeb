"""The Far Shot has one physical meaning: `far` alone and `standard + far` throw the same release."""

from __future__ import annotations

from sim.specs.scenario import Scenario


def test_far_alone_is_the_standard_shot_stepped_back():
    alone = Scenario.build(board="magma", dice=["hero-d8"], shots=["far"])
    combined = Scenario.build(board="magma", dice=["hero-d8"], shots=["standard", "far"])
    assert alone.shot.release == combined.shot.release
    assert alone.shot.noise == combined.shot.noise
    assert alone.requirements == combined.requirements
