"""What a combat leaves: its outcome, costs and log, and the record a fight experiment keeps.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class FightResult:
    """What one fight came to: its outcome, the monster's life, rounds, turns and physical throws,
    what it cost the party (life points, white dice, retrievals, faints, Scars), gold, and the log."""

    outcome: str  # "won" | "lost" | "backed-down" | "unfinished"
    monster: str
    monster_life_start: int
    monster_life_end: int
    rounds: int
    turns: int
    throws: int  # physical throws, re-throws included
    rethrows: int
    hero_damage: int  # life lost by all heroes together
    hero_damage_by_hero: dict[str, int]
    white_dice_used: int
    white_dice_left: int
    retrievals: int
    fainted: list[str]
    scars: list[tuple[str, str]]
    eliminated: list[str]
    epic_shot: bool
    gold: int  # gold gained by the party in this fight (room, reward, Epic Shot, Pickpocket, templates)
    lost_reason: str
    heroes_after: list[dict[str, Any]]
    log: list[dict[str, Any]]
    life_by_throw: list[int] = field(default_factory=list)  # the monster's life after each physical throw

    @property
    def won(self) -> bool:
        return self.outcome == "won"

    def record(self) -> dict[str, Any]:
        """One flat row of primitives (for a table of many fights)."""
        return {
            "outcome": self.outcome,
            "won": self.won,
            "monster_life_end": self.monster_life_end,
            "rounds": self.rounds,
            "turns": self.turns,
            "throws": self.throws,
            "rethrows": self.rethrows,
            "hero_damage": self.hero_damage,
            "white_dice_used": self.white_dice_used,
            "retrievals": self.retrievals,
            "fainted": len(self.fainted),
            "scars": len(self.scars),
            "eliminated": len(self.eliminated),
            "epic_shot": self.epic_shot,
            "gold": self.gold,
            "lost_reason": self.lost_reason,
        }

    def to_json(self, log: bool = True) -> dict[str, Any]:
        """Every field as JSON-able values plus `won`; the blow-by-blow log only when `log`."""
        d = {k: v for k, v in self.__dict__.items() if k != "log"}
        d["won"] = self.won
        d["scars"] = [list(s) for s in self.scars]
        if log:
            d["log"] = self.log
        return d
