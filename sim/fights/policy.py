"""The party's choices in a fight: a policy is any callable `policy(decision) -> choice`.

The engine asks only when there is a real choice. Decision kinds, their `options` and the answer:

| kind          | options                                   | answer                                        |
|---------------|-------------------------------------------|-----------------------------------------------|
| "back-down"   | (False, True)                             | True: the party backs down (Impossible Situations) |
| "die"         | colours still available                   | the colour to throw                           |
| "dice-out"    | ("white", "retrieve")                     | take a white Bonus die or retrieve the 3 colored dice |
| "weapons"     | names of the hero's weapons               | the names to use on this throw (any subset)   |
| "aim"         | ("hit", "damage", "kill")                 | an objective, or an `Aim` (objective + target point) |
| "ability"     | abilities that can activate on this throw | one of them, or None; detail["damage"] maps each (and None) to the hit's damage |
| "prevent"     | "beer", "armor:<name>"                    | one of them, or None (detail["damage"]: the miss damage) |
| "spendable"   | names of the hero's damage spendables     | one, or None (detail: "damage" so far, "monster_life") |
| "template"    | names of the hero's unused template cards | one (its template is flipped now), or None    |
| "scar"        | the hero's unscarred colours              | the colour that takes the Scar                |

A user policy handles the kinds it cares about and passes the rest on::

    def reckless(decision):
        if decision.kind == "dice-out":
            return "retrieve"
        return DEFAULT(decision)
"""  # noqa: E501 - the table of decision kinds stays one row a line

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from sim.fights.throw_source import AIMS, Aim

Policy = Callable[["Decision"], Any]


class Decision(NamedTuple):
    """One question the engine asks a policy: its kind (table above), the fight and the hero it
    concerns, the options to choose from, and any detail (e.g. the damage each option deals)."""

    kind: str
    # the policy sees the engine's objects (sim.fights.engine.Fight, HeroState; typed Any because the
    # engine imports this module): a read-only view of the fight state (monster_life, heroes,
    # colored, white_left, ...) and the Active Hero (who would suffer the damage, for "prevent")
    fight: Any
    hero: Any
    options: tuple
    detail: dict | None = None


# How much a hero wants each ability on the die they throw (the default policy's die choice); the
# order of a greedy table: damage now first, protection next, healing and gold last.
ABILITY_RANK: dict[str, int] = {
    "berserk": 7,
    "re-throw": 6,
    "piercing": 6,
    "set-on-fire": 6,
    "agile-instincts": 5,
    "focused": 5,
    "sworn-enemy": 4,
    "beer": 3,
    "heal-party": 3,
    "self-healing": 2,
    "pickpocket": 1,
}
# what a miss makes worth activating, best first
MISS_PREFERENCE = ("agile-instincts", "re-throw", "beer", "heal-party", "self-healing", "pickpocket")


def rank(ability: str | None, monster_type: str | None = None) -> int:
    """How much a hero wants `ability` on their die (`ABILITY_RANK`; 0 for none); a Sworn Enemy of the
    monster's type ranks above everything ("deals 4 additional damage to that specific type")."""
    if ability is None:
        return 0
    r = ABILITY_RANK.get(ability)
    if r is not None:
        return r
    name, _, arg = ability.partition(":")
    if name == "sworn-enemy" and monster_type is not None and arg == monster_type:
        return 8
    return ABILITY_RANK.get(name, 0)


class DefaultPolicy:
    """A greedy, cautious table, documented rule by rule:

    - back down: never;
    - die: the available colour whose ability ranks highest for this hero (`ABILITY_RANK`; a Sworn
      Enemy of the monster's type ranks first; a scarred colour counts as no ability); ties go red,
      green, blue;
    - out of colored dice (`out_of_dice`): "safe-retrieve" (default) retrieves when every standing
      hero keeps more than the monster's miss damage after paying the retrieval, else takes a white
      die, else retrieves; "white-first" takes white dice while there are any; "retrieve-first"
      always retrieves (outside the Final Boss combat);
    - weapons: every weapon whose `use` is true;
    - aim: "hit" when any hit kills (remaining life <= 1 + weapon bonus), "kill" when one throw can
      kill (remaining life <= bullseye 10 + weapon bonus), else "damage"; no target point;
    - ability: on a hit the option dealing the most damage (not activating when nothing beats None);
      Re-throw only on a miss; on a miss the first of `MISS_PREFERENCE`;
    - prevent: spend a Beer token or an Armor on any miss that would hurt (Beer first: it comes back
      with the next Beer icon, an Armor only next combat);
    - spendable: only when it turns the hit into a kill;
    - template: flip a card's template at the first turn it can (the hero carries it to use it);
    - scar: the colour whose ability ranks lowest.
    """

    def __init__(self, out_of_dice: str = "safe-retrieve") -> None:
        if out_of_dice not in ("safe-retrieve", "white-first", "retrieve-first"):
            raise ValueError(f"unknown out_of_dice '{out_of_dice}'")
        self.out_of_dice = out_of_dice
        self._orders: dict[tuple, list[str]] = {}

    def __call__(self, d: Decision) -> Any:
        return getattr(self, "_" + d.kind.replace("-", "_"))(d)  # "dice-out" -> self._dice_out(d)

    def _back_down(self, d: Decision) -> bool:
        return False

    def _die(self, d: Decision) -> str:
        h, mtype = d.hero, d.fight.monster.type
        key = (h.key or tuple(h.ability(c) for c in ("red", "green", "blue")), mtype)
        order = self._orders.get(key)
        if order is None:  # colours by rank, red-green-blue among equals
            order = self._orders[key] = sorted(
                ("red", "green", "blue"), key=lambda c: -rank(h.ability(c), mtype)
            )
        for c in order:
            if c in d.options:
                return c
        return d.options[0]

    def _dice_out(self, d: Decision) -> str:
        if "white" not in d.options or self.out_of_dice == "retrieve-first":
            return "retrieve"
        if self.out_of_dice == "white-first":
            return "white"
        f = d.fight
        cost = f.retrieval_damage
        safe = all(h.life - cost > f.monster.miss_damage for h in f.heroes if not h.fainted)
        return "retrieve" if safe else "white"

    def _weapons(self, d: Decision) -> tuple[str, ...]:
        return tuple(w.name for w in d.hero.weapons if w.use)

    def _aim(self, d: Decision) -> Aim:
        f = d.fight
        bonus = sum(w.bonus for w in d.hero.weapons if w.use) if d.hero.weapons else 0
        if f.monster_life <= 1 + bonus:
            return AIMS["hit"]
        if f.monster_life <= f.bullseye_damage + bonus:
            return AIMS["kill"]
        return AIMS["damage"]

    def _ability(self, d: Decision) -> str | None:
        det = d.detail or {}
        if det.get("hit"):
            dmg = det.get("damage", {})
            best, best_dmg = None, dmg.get(None, 0)
            for a in d.options:
                if a != "re-throw" and a in dmg and dmg[a] > best_dmg:
                    best, best_dmg = a, dmg[a]
            if best is None:  # nothing adds damage: take a free side effect (heal, gold, beer)
                side = [
                    a
                    for a in d.options
                    if a.partition(":")[0] in ("beer", "heal-party", "self-healing", "pickpocket")
                ]
                return side[0] if side else None
            return best
        for name in MISS_PREFERENCE:
            for a in d.options:
                if a.partition(":")[0] == name:
                    return a
        return None

    def _prevent(self, d: Decision) -> str | None:
        if "beer" in d.options:
            return "beer"
        return d.options[0] if d.options else None

    def _spendable(self, d: Decision) -> str | None:
        det = d.detail or {}
        dmg, life = det.get("damage", 0), det.get("monster_life", 0)
        if dmg >= life:
            return None
        for name in d.options:
            s = next(s for s in d.hero.spendables if s.name == name)
            if dmg + s.damage >= life:
                return name
        return None

    def _template(self, d: Decision) -> str | None:
        return d.options[0] if d.options else None

    def _scar(self, d: Decision) -> str:
        h = d.hero
        return min(d.options, key=lambda c: (rank(h.ability(c)), ("red", "green", "blue").index(c)))


class ScriptedPolicy:
    """Answers each decision kind from its own queue, in order, then asks `fallback` (the rulebook's
    worked examples: "Torm chooses the green die"). `ScriptedPolicy({"die": ["green", "blue"]})`."""

    def __init__(self, answers: dict[str, list], fallback: Policy | None = None) -> None:
        self.answers = {k: list(v) for k, v in answers.items()}
        self.fallback = fallback or DefaultPolicy()
        self.asked: list[tuple[str, str, tuple]] = []

    def __call__(self, d: Decision) -> Any:
        self.asked.append((d.kind, d.hero.name, d.options))
        q = self.answers.get(d.kind)
        if q:
            return q.pop(0)
        return self.fallback(d)


POLICIES: dict[str, Policy] = {
    "default": DefaultPolicy(),
    "white-first": DefaultPolicy(out_of_dice="white-first"),
    "retrieve-first": DefaultPolicy(out_of_dice="retrieve-first"),
}
DEFAULT = POLICIES["default"]

__all__ = ["Decision", "DefaultPolicy", "ScriptedPolicy", "POLICIES", "DEFAULT", "Policy", "rank"]
