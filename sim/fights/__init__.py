"""Fights: a party against one monster, its throws resampled from recorded runs or simulated.

Layered inside like the core: specs (`spec`, `monster`, `party`, `abilities`, `house_rules`: no
PyBullet), pure rules (`throw_source`, `policy`, `state`, `damage`, `equipment`, `result`, `engine`),
throw sources (`resample`, `physics_source`, `board_templates`), the experiment kind (`experiment`,
`kind`, `records`, `report`, `figures`). This module declares what fights add to the core and imports
nothing else.
"""

from sim.plugins import DataKind, ExperimentKindEntry, Plugin

PLUGIN = Plugin(
    name="fights",
    data_kinds=(
        DataKind("monster", "monsters", "sim.fights.monster:MonsterSpec", "monsters", ("miss_damage",), 52),
        DataKind("fight", "fights", "sim.fights.spec:FightSpec", "fights", ("party",), 53),
    ),
    experiment_kinds=(
        ExperimentKindEntry(
            "fights",
            "fight",
            "sim.fights.kind:FIGHTS",
            "fight",
            caps=(("max_fights", "fight experiments: cap fights per variant (a quick preview)"),),
            throws=True,
            figures=("win_rate", "differences", "throws_to_win", "survival"),
        ),
    ),
)
