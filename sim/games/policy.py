"""The party's choices across a game: a game policy is any callable `policy(decision) -> choice` that
answers the fight engine's decisions (sim.fights.policy) and the game's own. Game decision kinds
(`decision.fight` is the Game, `decision.hero` the hero concerned or None):

| kind       | options                         | answer                                                  |
|------------|---------------------------------|---------------------------------------------------------|
| "room"     | the two Dungeon cards drawn     | the index of the one to enter                           |
| "assign"   | names of heroes who can carry it | the hero who takes a free Equipment card (detail "card") |
| "shop"     | the Equipment cards on offer    | a `ShopPlan`: cards to buy (index, hero), healing gold, white dice |
| "level-up" | the hero's free colours         | the colour of their new Level Up token                  |
| "power"    | (False, True)                   | activate the Power card detail["power"] now (detail "monster") |
| "powers"   | the Power cards on offer        | (index, hero) pairs to buy for 1 XP each                |

Three named policies (`GAME_POLICIES`), each documented rule by rule in `GamePolicy`: "default",
"cautious" and "greedy". A user policy handles what it cares about and passes the rest on::

    def shopaholic(d):
        if d.kind == "shop":
            return ShopPlan(buy=tuple((i, d.fight.standing[0].name) for i in range(len(d.options))))
        return GAME_POLICIES["default"](d)
"""  # noqa: E501 - the table of decision kinds stays one row a line

from __future__ import annotations

import math
from typing import Any, NamedTuple

from sim.fights.policy import Decision, DefaultPolicy, Policy, rank

GAME_KINDS = ("room", "assign", "shop", "level-up", "power", "powers")
STYLES = ("default", "cautious", "greedy")
# the default and cautious shoppers keep this many white dice for the Final Boss when they can
BOSS_DICE = {"default": 5, "cautious": 7, "greedy": 3}
# backing down ("Impossible Situations") at the reveal from a monster demanding a specific throw, up to
# this level (the shame: that much life from every hero), when the throw source cannot estimate the cost
BACK_DOWN_LEVEL = {"default": 1, "cautious": 2, "greedy": 0}
KIND_ORDER = {
    "default": ("armor", "weapon", "spendable", "template", "relic"),
    "cautious": ("armor", "spendable", "relic", "weapon", "template"),
    "greedy": ("weapon", "spendable", "template", "relic", "armor"),
}


class ShopPlan(NamedTuple):
    """What the party does at a Shop, applied in the rulebook's order: buy Equipment (card index on
    offer, hero who takes it; relics go to the party), then healing (gold spent: every hero heals that
    much), then white dice (count). What the party cannot afford or carry is skipped."""

    buy: tuple[tuple[int, str | None], ...] = ()
    heal: int = 0
    white_dice: int = 0


# what one Specific Throw of a room weighs in `danger`, in Monster Advantage: a Specific Throw at least
# halves a casual thrower's hit rate (standard shot 49 %, Lava 41 %, Far 22 %, Firewall 12 %), as if
# the monster's life doubled; 6 is the smallest printed monster life (the Firewall's)
SPECIFIC_THROW_DANGER = 6


def danger(card: Any) -> float:
    """How much harder a Dungeon card makes its combat, less what it gives at once (the room choice's
    yardstick): Monster Advantage, `SPECIFIC_THROW_DANGER` per Specific Throw, 2 per template, against
    healing, gold, dice and free equipment."""
    return (
        card.life_bonus
        + SPECIFIC_THROW_DANGER * len(card.requirements)
        + 2 * len(card.templates)
        - card.gain_life
        - card.gold
        - 2 * card.white_dice
        - 3 * card.free_equipment
    )


def combat_cost(f: Any, hit: float, damage: float) -> float:
    """The life a combat is expected to cost the party when a throw hits with share `hit` for `damage`
    on average: the monster's life takes life / (hit x damage) throws, each miss costs the monster's
    damage, and every three throws past the first three a retrieval (its damage from every standing
    hero). A yardstick for backing down, not a forecast: abilities, armor and white dice are left out."""
    if hit * damage <= 0:
        return math.inf
    throws = f.monster_life / (hit * damage)
    retrievals = max(0.0, throws - 3) / 3
    return throws * (1 - hit) * f.monster.miss_damage + retrievals * f.retrieval_damage * f.standing


class GamePolicy:
    """A game policy in one of three styles; fight decisions go to a `DefaultPolicy`.

    - room: "default" maximises 2 x Shop icons - `danger`; "cautious" takes the least dangerous card
      (then more icons); "greedy" the most Shop icons (then less danger): fewer combats per Shop;
    - weapons (in a fight): "default" and "cautious" use a weapon only when its Specific Throws are
      already in force (no new requirement for its bonus); "greedy" uses every weapon;
    - back down (when the monster is revealed): from a monster whose own card demands a Specific
      Throw (the room's would stay for the next one), when the recorded throws say fighting it would
      cost more life (`combat_cost`) than the shame (its level from every hero) plus fighting a
      monster without that throw; with a throw source that cannot tell (physics in the loop), up to
      level 1 ("default") or 2 ("cautious"); "greedy" never backs down;
    - out of colored dice: "default" and "cautious" retrieve when every standing hero survives it with
      more than a miss's damage left, else take a white die; "greedy" takes white dice first;
    - free equipment: the hero carrying the fewest cards, in seating order;
    - shop: "default" heals the largest wound, then buys white dice up to `BOSS_DICE` (5), then
      equipment by kind (`KIND_ORDER`: armor first), cheapest first, then more dice; "cautious" heals,
      buys dice up to 7, then armor and spendables; "greedy" buys equipment first (weapons), then
      dice up to 3, then heals with what is left;
    - level-up: the colour whose ability ranks highest (sim.fights.policy.ABILITY_RANK);
    - power: "default" and "greedy" activate an affordable Power card against a level 3-4 monster or
      the Final Boss, "cautious" only against the Final Boss; Miracle whenever a Scar can go;
    - powers: buy every card on offer the party can pay for, each to the hero with the fewest.
    """

    def __init__(self, style: str = "default") -> None:
        if style not in STYLES:
            raise ValueError(f"unknown game policy style '{style}' (one of {', '.join(STYLES)})")
        self.style = style
        self.__name__ = style
        self.fight = DefaultPolicy(out_of_dice="white-first" if style == "greedy" else "safe-retrieve")

    def __call__(self, d: Decision) -> Any:
        if d.kind in GAME_KINDS:
            return getattr(self, "_" + d.kind.replace("-", "_"))(d)
        if d.kind == "back-down":
            return self._back_down(d)
        if d.kind == "weapons" and self.style != "greedy":
            inforce = set(d.fight.requirements)
            return tuple(w.name for w in d.hero.weapons if w.use and set(w.requirements) <= inforce)
        return self.fight(d)

    def _back_down(self, d: Decision) -> bool:
        f = d.fight
        # only when the monster is revealed, and only for the monster's own Specific Throw: the room's
        # stays for the next monster, so backing down from it only costs the shame
        if f.turns or not f.monster.requirements or self.style == "greedy":
            return False
        here = f.throw_estimate(d.hero, tuple(f.requirements))
        plain = f.throw_estimate(d.hero, tuple(f.spec.room.requirements))
        if here is None or plain is None:  # a source that cannot tell without throwing (physics)
            return f.monster.level <= BACK_DOWN_LEVEL[self.style]
        shame = f.monster.level * f.standing
        return combat_cost(f, *here) > shame + combat_cost(f, *plain)

    def _room(self, d: Decision) -> int:
        cards = d.options
        if self.style == "cautious":
            key = [(danger(c), -c.shop_icons) for c in cards]
        elif self.style == "greedy":
            key = [(-c.shop_icons, danger(c)) for c in cards]
        else:
            key = [(danger(c) - 2 * c.shop_icons, -c.shop_icons) for c in cards]
        return min(range(len(cards)), key=lambda i: key[i])

    def _assign(self, d: Decision) -> str:
        g = d.fight
        holders = {h.name: len(h.equipment) for h in g.standing}
        return min(d.options, key=lambda n: (holders.get(n, 0), d.options.index(n)))

    def _shop(self, d: Decision) -> ShopPlan:
        g = d.fight
        gold = g.gold
        wound = max((h.max_life - h.life for h in g.standing), default=0)
        room_dice = 9 - g.white
        want_dice = max(0, min(room_dice, BOSS_DICE[self.style] - g.white))
        heal = dice = 0
        if self.style != "greedy":
            heal = min(wound, gold)
            gold -= heal
            dice = min(want_dice, gold // 2)
            gold -= 2 * dice
        buy, gold = self._equipment(g, d.options, gold)
        if self.style == "greedy":
            dice = min(want_dice, gold // 2)
            gold -= 2 * dice
            heal = min(wound, gold)
            gold -= heal
        more = min(room_dice - dice, gold // 2)  # what is left buys more dice
        if more > 0 and (self.style != "greedy" or g.shops >= 3):
            dice += more
        return ShopPlan(buy=tuple(buy), heal=heal, white_dice=dice)

    def _equipment(self, g: Any, cards: tuple, gold: int) -> tuple[list[tuple[int, str | None]], int]:
        order = KIND_ORDER[self.style]
        ranked = sorted(
            range(len(cards)),
            key=lambda i: (order.index(cards[i].kind), cards[i].price, -cards[i].bonus, -cards[i].damage),
        )
        load = {h.name: list(h.equipment) for h in g.standing}
        buy: list[tuple[int, str | None]] = []
        for i in ranked:
            c = cards[i]
            if c.price > gold:
                continue
            if self.style != "greedy" and c.kind == "weapon" and c.requirements:
                continue  # a weapon it would leave unused (see weapons)
            if c.kind == "relic":
                buy.append((i, None))
                gold -= c.price
                continue
            takers = [h for h in g.standing if _fits(g, h, load[h.name], c)]
            if not takers:
                continue
            h = min(takers, key=lambda x: len(load[x.name]))
            load[h.name].append(c)
            buy.append((i, h.name))
            gold -= c.price
        return buy, gold

    def _level_up(self, d: Decision) -> str:
        h = d.hero
        return max(d.options, key=lambda c: (rank(h.sheet.ability(c)), -("red", "green", "blue").index(c)))

    def _power(self, d: Decision) -> bool:
        det = d.detail or {}
        p, m = det.get("power"), det.get("monster")
        if p is not None and p.effect == "miracle":
            return True
        if m is None:
            return False
        if self.style == "cautious":
            return bool(m.final_boss)
        return bool(m.final_boss or m.level >= 3)

    def _powers(self, d: Decision) -> tuple[tuple[int, str], ...]:
        g = d.fight
        xp = int((d.detail or {}).get("xp", 0))
        count = {h.name: len(h.powers) for h in g.standing}
        out = []
        for i in range(len(d.options)):
            if xp < 1:
                break
            free = [n for n, k in count.items() if k < g.spec.options.carry.powers]
            if not free:
                break
            who = min(free, key=lambda n: count[n])
            count[who] += 1
            out.append((i, who))
            xp -= 1
        return tuple(out)


def _fits(g: Any, h: Any, load: list, card: Any) -> bool:
    limit = getattr(g.spec.options.carry, card.kind)
    if sum(e.kind == card.kind for e in load) >= limit:
        return False
    return not (card.kind == "weapon" and any(e.name == card.name for e in load))


GAME_POLICIES: dict[str, Policy] = {s: GamePolicy(s) for s in STYLES}


def resolve_game_policy(policy: Policy | str | None, source: str = "<game>") -> Policy:
    """A game policy from a name in `GAME_POLICIES`, any callable (as is), or None (the default)."""
    if policy is None:
        return GAME_POLICIES["default"]
    if isinstance(policy, str):
        if policy not in GAME_POLICIES:
            from sim.errors import SpecError

            raise SpecError(
                source, "policy", f"unknown game policy '{policy}' (one of {', '.join(GAME_POLICIES)})"
            )
        return GAME_POLICIES[policy]
    return policy


def policy_label(policy: Any) -> str:
    """The name a report gives a policy: its name, or a callable's `__name__` / class name."""
    if isinstance(policy, str):
        return policy
    return str(getattr(policy, "__name__", type(policy).__name__))


__all__ = ["GamePolicy", "ShopPlan", "GAME_POLICIES", "resolve_game_policy", "policy_label", "danger"]
