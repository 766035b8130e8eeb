"""Whole games: decks, rooms, shops and the Final Boss, played with fights on a throw bank.

Layered inside: specs (`deck`, `spec`: no PyBullet), pure rules (`policy`, `state`, `engine`,
`result`), the throw bank (`throw_bank`), the experiment kind (`experiment`, `kind`, `report`). This
module declares what games add to the core and imports nothing else.
"""

from sim.plugins import DataKind, ExperimentKindEntry, Plugin

PLUGIN = Plugin(
    name="games",
    data_kinds=(
        DataKind("deck", "decks", "sim.games.deck:DeckSpec", "decks", ("dungeon", "bosses"), 50),
        DataKind("game", "games", "sim.games.spec:GameSpec", "games", ("decks",), 51),
    ),
    experiment_kinds=(
        ExperimentKindEntry(
            "games",
            "game",
            "sim.games.kind:GAMES",
            "game",
            caps=(("max_games", "game experiments: cap games per variant"),),
        ),
    ),
)
