"""What a game leaves: its result, the End Game Scoring and the titles.

Why apart from the loop: reports, experiments and the studio read results and titles without the
engine's state.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

DIFFICULTY_POINTS = {"normal": 5, "hard": 15, "inferno": 25}
# End Game Scoring: (highest total, title), the last for 41+
TITLES: tuple[tuple[int | None, str], ...] = (
    (0, "Lame Ducks"),
    (5, "Inept Optimists"),
    (10, "Insubordinate Rascals"),
    (15, "Rookie Adventurers"),
    (20, "Wannabe Heroes"),
    (25, "Average Warriors"),
    (30, "Skilled Champions"),
    (35, "Epic Sourcebook Readers"),
    (40, "Epic Sourcebook Writers"),
    (None, "Heroic Awesomeness Beyond Human Comprehension"),
)


def title(points: int) -> str:
    """The title of a total ("0 or less: Lame Ducks", ..., "41+: Heroic Awesomeness ...")."""
    for top, name in TITLES:
        if top is None or points <= top:
            return name
    raise AssertionError("unreachable")


def score(gold: int, white_dice: int, scars: int, eliminated: int, difficulty: str) -> int:
    """End Game Scoring: +1 per gold and +3 per white die on the Chest, +5 if no Scar was received,
    -1 per Scar, -5 per eliminated hero, +5 / 15 / 25 for Normal / Hard / Inferno."""
    return (
        gold
        + 3 * white_dice
        + (5 if scars == 0 else 0)
        - scars
        - 5 * eliminated
        + DIFFICULTY_POINTS[difficulty]
    )


@dataclass
class GameResult:
    """What one game came to: won or lost, where it was lost, the score and title, and the trace."""

    outcome: str  # "won" | "lost"
    lost_at: str  # "" | "combat" | "final-boss"
    lost_reason: str
    lost_level: int  # the level of the monster that beat the party (0 if won)
    combats: int
    rounds: int
    shops: int
    boss: str
    points: int
    title: str
    gold: int
    white_dice: int
    xp: int
    scars: int
    eliminated: int
    backed_down: int
    throws: int
    trace: list[dict[str, Any]]  # one row per combat: room, monster, outcome, party after it
    log: list[str]
    policy: str = ""
    reshuffles: int = 0  # times the Monster deck ran out and was made again (options.empty_monster_deck)

    @property
    def won(self) -> bool:
        return self.outcome == "won"

    def record(self) -> dict[str, Any]:
        """One flat row of primitives (a table of many games)."""
        return {
            "outcome": self.outcome,
            "won": self.won,
            "lost_at": self.lost_at,
            "lost_level": self.lost_level,
            "combats": self.combats,
            "rounds": self.rounds,
            "shops": self.shops,
            "boss": self.boss,
            "points": self.points,
            "title": self.title,
            "gold": self.gold,
            "white_dice": self.white_dice,
            "xp": self.xp,
            "scars": self.scars,
            "eliminated": self.eliminated,
            "backed_down": self.backed_down,
            "reshuffles": self.reshuffles,
            "throws": self.throws,
        }

    def to_json(self, log: bool = True) -> dict[str, Any]:
        """Every field as JSON-able values plus `won`; the log only when `log`."""
        d = {k: v for k, v in self.__dict__.items() if k != "log" or log}
        d["won"] = self.won
        return d
