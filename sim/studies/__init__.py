"""Studies layer: questions answered with the run machinery below it (validation of the physics,
calibration and skill fits, tuning, sensitivity, convergence, roll-off, the skill order). A study
builds experiments or throws scenes of its own; nothing below imports a study."""
