"""The names of the throw requirements a shot can list, and the prop each one needs.

Names live here (specs) so a shot file naming an unknown requirement, or a scenario lacking the prop a
requirement reads, is refused when the file is loaded or the scenario is built, never inside a worker.
The predicates themselves are pure functions in `sim.rules.requirements`, registered there explicitly
under exactly these names (a test checks both lists agree).
"""

from __future__ import annotations

from typing import Literal, get_args

RequirementName = Literal[
    "bounce-before-board",
    "firewall",
    "firewall-fire-at-will",
    "fire-ring",
    "lava-mat",
    "puddle",
    "gate",
    "stone-wall",
    "waterfall",
    "cup-cast",
]
REQUIREMENT_NAMES: tuple[str, ...] = get_args(RequirementName)

# requirement -> the prop shape type it reads (a scenario listing the requirement must hold such a prop)
REQUIRED_PROP: dict[str, str] = {
    "firewall": "wall",
    "firewall-fire-at-will": "wall",
    "fire-ring": "ring",
    "lava-mat": "mat",
    "puddle": "mat",
    "gate": "gate",
    "stone-wall": "split-wall",
    "waterfall": "ramp",
    "cup-cast": "cup",
}
