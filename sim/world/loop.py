"""Which throw loop runs a throw: the compiled one (sim/world/compiled.py) or the Python reference
(sim/world/stepper.py). Both give the same records; the compiled one is faster.

The compiled loop runs unless $DFSIM_LOOP is "python", it cannot load (said once, in one line), a prop
moves on its own during the throw or a recorder (the viewer) watches it: those call Python at every
step, which the reference loop does anyway.
"""

from __future__ import annotations

from sim.specs.physics import PhysicsSettings
from sim.trace import DieRest, EventTrace
from sim.world import compiled, stepper
from sim.world.physics import Physics
from sim.world.stepper import StepStats


def run(
    ph: Physics, st: PhysicsSettings, props, active: list[str], recorder=None
) -> tuple[list[DieRest], EventTrace, StepStats]:
    """Step the world until every active die rests (or diverges, or the time cap): rests, trace, stats
    (`stepper.run` says what each is, and what `recorder` sees)."""
    if (
        compiled.eligible(props.before_step if props.kinematic else None, recorder, active)
        and compiled.active()
    ):
        return compiled.run(ph, st, props, active)
    return stepper.run(ph, st, props, active, recorder)
