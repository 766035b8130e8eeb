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

Named policies (`GAME_POLICIES` in sim/games/ladder.py, one registry): the ladder "first-time", "default" and "strong"
(sim.games.strong: Monte Carlo rollouts), and "classic" (the default before the ladder), "cautious",
"greedy", each a `Table` of knobs documented in `GamePolicy`. A name may set knobs or options:
"default:shop=heal-first", "strong:rollouts=32" (`make_game_policy`; a bad one is a ValueError, a
SpecError where a file or the command line gave it). A user policy handles what it cares about and
passes the rest on::

    def shopaholic(d):
        if d.kind == "shop":
            return ShopPlan(buy=tuple((i, d.fight.standing[0].name) for i in range(len(d.options))))
        return GAME_POLICIES["default"](d)
"""  # noqa: E501 - the table of decision kinds stays one row a line

from __future__ import annotations

import math
from typing import Any, NamedTuple

from sim.fights.party import CHEST_DICE as CHEST
from sim.fights.policy import Decision, DefaultPolicy, rank

SHOPS_BEFORE_BOSS = 3  # "arrived at their third Shop, they are ready to face the Final Boss"

GAME_KINDS = ("room", "assign", "shop", "level-up", "power", "powers")
# the ladder, weakest first (sim.games.strong adds "strong"); "cautious" and "greedy" are styles beside it
STYLES = ("first-time", "default", "classic", "cautious", "greedy")


class Table(NamedTuple):
    """A game policy's knobs (each documented in `GamePolicy`); a policy name may set any of them
    ("default:shop=heal-first,boss_dice=7"), which is how each change to `default` is measured."""

    room: str  # "icons" | "danger" | "balanced" | "counted"
    shop: str  # "first-time" | "heal-first" | "greedy" | "dice-first"
    boss_dice: int  # white dice the shopper keeps (buys) for the Final Boss
    heal_below: int  # "dice-first": heal first only up to this life for the weakest hero
    dice_out: str  # "white-first" | "safe-retrieve" | "afford"
    back_down: str  # "never" | "estimate"
    back_down_level: int  # "estimate" with a source that cannot estimate: back down up to this level
    weapons: str  # "all" | "in-force"
    power: str  # "always" | "level-3" | "boss"


TABLES: dict[str, Table] = {
    # a table that knows the rules and nothing else: the most Shop icons, heal, buy what it can in the
    # order it is shown, take a white die before hurting everyone, never back down; a weapon whose
    # Specific Throw it has not seen in force is left unused (and unbought): a new throw to learn
    "first-time": Table("icons", "first-time", 0, 0, "white-first", "never", 0, "in-force", "always"),
    # a sensible table (each change from "classic" measured on paired games: docs/game.md)
    # ("afford", retrieving while the party can, was tried and measured worse: docs/game.md)
    "default": Table("counted", "dice-first", 5, 3, "safe-retrieve", "estimate", 1, "in-force", "level-3"),
    "cautious": Table("danger", "heal-first", 7, 0, "safe-retrieve", "estimate", 2, "in-force", "boss"),
    "greedy": Table("icons", "greedy", 3, 0, "white-first", "never", 0, "all", "level-3"),
}
# the default policy before the ladder (kept to measure each change against)
TABLES["classic"] = Table(
    "balanced", "heal-first", 5, 0, "safe-retrieve", "estimate", 1, "in-force", "level-3"
)
CHOICES = {
    "room": ("icons", "danger", "balanced", "counted"),
    "shop": ("first-time", "heal-first", "greedy", "dice-first"),
    "dice_out": ("white-first", "safe-retrieve", "afford"),
    "back_down": ("never", "estimate"),
    "weapons": ("all", "in-force"),
    "power": ("always", "level-3", "boss"),
}
BOUNDS = {"boss_dice": (0, 9), "heal_below": (0, 9), "back_down_level": (0, 4)}
KIND_ORDER = {
    "first-time": ("weapon", "armor", "spendable", "template", "relic"),  # unused: it buys in offer order
    "classic": ("armor", "weapon", "spendable", "template", "relic"),
    "default": ("armor", "weapon", "spendable", "template", "relic"),
    "cautious": ("armor", "spendable", "relic", "weapon", "template"),
    "greedy": ("weapon", "spendable", "template", "relic", "armor"),
}


def table_with(style: str, options: dict[str, str]) -> Table:
    """The style's knobs with `options` (text values from a policy name) set; ValueError names the bad one."""
    t = TABLES[style]
    out = t._asdict()
    for k, v in options.items():
        if k not in out:
            raise ValueError(f"unknown option '{k}' of game policy '{style}' (one of {', '.join(out)})")
        if k in BOUNDS:
            lo, hi = BOUNDS[k]
            if not v.isdigit() or not lo <= int(v) <= hi:
                raise ValueError(f"option {k}={v}: expected a whole number {lo}-{hi}")
            out[k] = int(v)
        else:
            if v not in CHOICES[k]:
                raise ValueError(f"option {k}={v}: expected one of {', '.join(CHOICES[k])}")
            out[k] = v
    return Table(**out)


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
    """A game policy from a `Table` of knobs; fight decisions not listed go to a `DefaultPolicy`.

    - room: "icons" the most Shop icons (then the first card); "danger" the least `danger` (then
      more icons); "balanced" maximises 2 x Shop icons - `danger`; "counted" likewise but counts only
      the icons that still bring the next Shop closer (past the 10th they are wasted), so between two
      rooms that both reach the Shop it takes the safer;
    - weapons (in a fight): "in-force" uses a weapon only when its Specific Throws are already in
      force (no new requirement for its bonus); "all" uses every weapon;
    - back down (when the monster is revealed): "never"; "estimate" from a monster whose own card
      demands a Specific Throw (the room's would stay for the next one), when the recorded throws say
      fighting it would cost more life (`combat_cost`) than the shame (its level from every hero)
      plus fighting a monster without that throw; with a throw source that cannot tell (physics in
      the loop), up to `back_down_level`;
    - out of colored dice: "white-first" takes white dice while there are any; "safe-retrieve"
      retrieves when every standing hero survives it with more than a miss's damage left, else a
      white die; "afford" retrieves while the party can afford it: unless retrieving would make
      every standing hero faint (the game lost) or eliminate a hero with three Scars, or make someone
      faint while the Chest holds more white dice than the `boss_dice` kept for the Final Boss (a
      faint costs a Scar: 2 life for the rest of the game and an ability);
    - free equipment: the hero carrying the fewest cards, in seating order;
    - shop: "first-time" heals the largest wound, buys the cards it can afford in the order shown,
      then white dice with what is left; "heal-first" heals the largest wound, buys dice up to
      `boss_dice`, then equipment by kind (`KIND_ORDER`), cheapest first, then more dice; "greedy"
      buys equipment first (weapons), dice up to `boss_dice`, heals with what is left; "dice-first"
      knows that a faint restores a hero to full life (with a Scar): at the third Shop (the Final
      Boss next) it buys white dice to the Chest's 9 first and heals with what is left; before, it
      heals only the weakest hero up to `heal_below`, buys dice up to `boss_dice`, equipment, then
      more dice;
    - level-up: the colour whose ability ranks highest (sim.fights.policy.ABILITY_RANK);
    - power: "always" activates every affordable Power card, "level-3" against a level 3-4 monster
      or the Final Boss, "boss" only against the Final Boss; Miracle whenever a Scar can go;
    - powers: buy every card on offer the party can pay for, each to the hero with the fewest.
    """

    def __init__(self, style: str = "default", options: dict[str, str] | None = None) -> None:
        if style not in TABLES:
            raise ValueError(f"unknown game policy style '{style}' (one of {', '.join(TABLES)})")
        self.style = style
        self.t = table_with(style, options or {})
        self.__name__ = style + (":" + ",".join(f"{k}={v}" for k, v in options.items()) if options else "")
        white_first = self.t.dice_out == "white-first"
        self.fight = DefaultPolicy(out_of_dice="white-first" if white_first else "safe-retrieve")

    def __call__(self, d: Decision) -> Any:
        if d.kind in GAME_KINDS:
            return getattr(self, "_" + d.kind.replace("-", "_"))(d)
        if d.kind == "back-down":
            return self._back_down(d)
        if d.kind == "dice-out" and self.t.dice_out == "afford":
            return self._dice_out(d)
        if d.kind == "weapons" and self.t.weapons == "in-force":
            inforce = set(d.fight.requirements)
            return tuple(w.name for w in d.hero.weapons if w.use and set(w.requirements) <= inforce)
        return self.fight(d)

    def _back_down(self, d: Decision) -> bool:
        f = d.fight
        # only when the monster is revealed, and only for the monster's own Specific Throw: the room's
        # stays for the next monster, so backing down from it only costs the shame
        if f.turns or not f.monster.requirements or self.t.back_down == "never":
            return False
        here = f.throw_estimate(d.hero, tuple(f.requirements))
        plain = f.throw_estimate(d.hero, tuple(f.spec.room.requirements))
        if here is None or plain is None:  # a source that cannot tell without throwing (physics)
            return f.monster.level <= self.t.back_down_level
        shame = f.monster.level * f.standing
        return combat_cost(f, *here) > shame + combat_cost(f, *plain)

    def _dice_out(self, d: Decision) -> str:
        if "white" not in d.options:
            return "retrieve"
        f = d.fight
        cost = f.retrieval_damage
        up = [h for h in f.heroes if not h.fainted]
        faint = [h for h in up if h.life - cost < 1]
        if len(faint) == len(up) or any(len(h.scars) >= 3 for h in faint):
            return "white"
        if faint and f.white_left > self.t.boss_dice:
            return "white"
        return "retrieve"

    def _room(self, d: Decision) -> int:
        cards, room = d.options, self.t.room
        if room == "danger":
            key = [(danger(c), -c.shop_icons) for c in cards]
        elif room == "icons":
            key = [(-c.shop_icons, 0) for c in cards]
        elif room == "counted":
            need = max(0, d.fight.spec.shop_icons - d.fight.icons)
            key = [(danger(c) - 2 * min(c.shop_icons, need), -min(c.shop_icons, need)) for c in cards]
        else:
            key = [(danger(c) - 2 * c.shop_icons, -c.shop_icons) for c in cards]
        return min(range(len(cards)), key=lambda i: key[i])

    def _assign(self, d: Decision) -> str:
        g = d.fight
        holders = {h.name: len(h.equipment) for h in g.standing}
        return min(d.options, key=lambda n: (holders.get(n, 0), d.options.index(n)))

    def _shop(self, d: Decision) -> ShopPlan:
        g, t = d.fight, self.t
        gold = g.gold
        standing = g.standing
        wound = max((h.max_life - h.life for h in standing), default=0)
        room_dice = CHEST - g.white
        want_dice = max(0, min(room_dice, t.boss_dice - g.white))
        heal = dice = 0
        if t.shop == "first-time":
            heal = min(wound, gold)
            gold -= heal
            buy, gold = self._equipment(g, d.options, gold, in_order=True)
            dice = min(room_dice, gold // 2)
            return ShopPlan(buy=tuple(buy), heal=heal, white_dice=dice)
        if t.shop == "dice-first":
            if g.shops >= SHOPS_BEFORE_BOSS:  # the Final Boss next: dice first, then healing
                dice = min(room_dice, gold // 2)
                gold -= 2 * dice
                heal = min(wound, gold)
                return ShopPlan(heal=heal, white_dice=dice)
            weakest = min((h.life for h in standing), default=0)
            heal = min(max(0, t.heal_below - weakest), wound, gold)
            gold -= heal
            dice = min(want_dice, gold // 2)
            gold -= 2 * dice
        elif t.shop == "heal-first":
            heal = min(wound, gold)
            gold -= heal
            dice = min(want_dice, gold // 2)
            gold -= 2 * dice
        buy, gold = self._equipment(g, d.options, gold)
        if t.shop == "greedy":
            dice = min(want_dice, gold // 2)
            gold -= 2 * dice
            heal = min(wound, gold)
            gold -= heal
        more = min(room_dice - dice, gold // 2)  # what is left buys more dice
        if more > 0 and (t.shop != "greedy" or g.shops >= SHOPS_BEFORE_BOSS):
            dice += more
        return ShopPlan(buy=tuple(buy), heal=heal, white_dice=dice)

    def _equipment(
        self, g: Any, cards: tuple, gold: int, in_order: bool = False
    ) -> tuple[list[tuple[int, str | None]], int]:
        order = KIND_ORDER[self.style]
        ranked = (
            list(range(len(cards)))
            if in_order
            else sorted(
                range(len(cards)),
                key=lambda i: (order.index(cards[i].kind), cards[i].price, -cards[i].bonus, -cards[i].damage),
            )
        )
        load = {h.name: list(h.equipment) for h in g.standing}
        buy: list[tuple[int, str | None]] = []
        for i in ranked:
            c = cards[i]
            if c.price > gold:
                continue
            if self.t.weapons == "in-force" and c.kind == "weapon" and c.requirements:
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
        if self.t.power == "always":
            return True
        if self.t.power == "boss":
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


__all__ = [
    "GamePolicy",
    "ShopPlan",
    "Table",
    "danger",
]
