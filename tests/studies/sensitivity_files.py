"""A tiny sensitivity analysis for the tests: a fixed (not solved) release, so no point spends seconds on
its aim. The default physics, not a coarser step: at 120 or 240 Hz a throw repeated later in the same
world can differ from its first run (1-2 of 40 throws, measured), which would make the records depend on
which worker threw which chunk after what; at the default step none of 40 did."""

from __future__ import annotations

from pathlib import Path

SHOT = """
name = "standard-fixed"
requirements = ["bounce-before-board"]
[release]
distance_mm = 650
height_mm = 100
aim = "none"
speed_mps = 1.91
elevation_deg = 10
spin_rps = 4.0
"""

PARAMETERS = ["""
[[parameters]]
name = "azimuth spread"
setting = "skill.azimuth_sd_deg"
low = 0.0
high = 20.0
""", """
[[parameters]]
name = "dummy"
setting = "dummy"
low = 0.0
high = 1.0
""", """
[[parameters]]
name = "rubber friction"
setting = "materials.pairs.6.friction"
low = 0.2
high = 1.2
"""]


def tiny(tmp: Path, throws: int = 12, trajectories: int = 2, chunk: int | None = None, params: int = 3) -> Path:
    """Write the tiny analysis (and its shot) into `tmp`; returns the sensitivity file. Parameters: a skill
    scale that matters (azimuth spread 0-20 deg), the built-in dummy, and the friction of plastic on
    rubber, a material no body of the scene is made of (the first `params` of them)."""
    (tmp / "fixed.toml").write_text(SHOT)
    f = tmp / "tiny.toml"
    f.write_text(f"""
name = "tiny"
seed = 11
throws = {throws}
trajectories = {trajectories}
{f"chunk_throws = {chunk}" if chunk else ""}
[scene]
shots = ["fixed.toml"]
{''.join(PARAMETERS[:params])}""")
    return f
