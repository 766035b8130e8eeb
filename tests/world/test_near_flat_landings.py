"""Near-flat landings of a cylinder against the step (benchmarks/rolling_levers.py --near-flat): the
measurement behind "not converged in the step" in docs/physics.md, "Rolling bodies".

A flat landing tumbles nothing at any step; the tumble a slightly tilted landing gives grows with the
tilt; and with rigid contacts a near-flat end landing tumbles the cylinder more the finer the step (its
corners' impacts are simultaneous within one step), while a soft contact the step resolves gives the
same tumble at two steps. Single drops, so these compare numbers with wide margins, never bits."""

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def levers():
    spec = importlib.util.spec_from_file_location("rolling_levers", ROOT / "benchmarks" / "rolling_levers.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("rolling_levers", mod)  # its dataclasses look their module up
    spec.loader.exec_module(mod)
    return mod


def _tumble(rows, tilt):
    return next(r["tumble_radps"] for r in rows if r["tilt_deg"] == tilt)


def test_rigid_near_flat_end_landings_tumble_more_at_a_finer_step(levers):
    coarse = levers.near_flat_response("end", 960.0, tilts_deg=(0.0, 0.5, 4.0), drops=3)
    fine = levers.near_flat_response("end", 3840.0, tilts_deg=(0.0, 0.5, 4.0), drops=3)
    for rows in (coarse, fine):
        assert _tumble(rows, 0.0) < 1.0  # flat: straight up
        assert _tumble(rows, 4.0) > 3 * _tumble(rows, 0.0) + 5.0
    assert _tumble(fine, 0.5) > 1.5 * _tumble(coarse, 0.5)  # the artefact docs/physics.md shows


def test_a_resolved_soft_contact_tumbles_alike_at_two_steps(levers):
    a = levers.near_flat_response("end", 3840.0, tilts_deg=(1.0,), drops=3, stiffness=3e3)
    b = levers.near_flat_response("end", 7680.0, tilts_deg=(1.0,), drops=3, stiffness=3e3)
    assert abs(_tumble(a, 1.0) - _tumble(b, 1.0)) < 0.25 * _tumble(b, 1.0)
