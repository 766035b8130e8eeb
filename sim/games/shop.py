"""Shopping Time: the Shop's cards, healing and white dice, and the Power cards (variant XP), as the
rulebook's "4 · Shopping Time!" reads.

`Shopping` is mixed into `Game` (sim/games/engine.py), whose state it reads and changes; apart so the
game loop stays one page of rounds, combats and the Final Boss.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sim.fights.party import CHEST_DICE, COLOURS, LIFE_TRACK_MAX, SCAR_LIFE
from sim.games.deck import DungeonCard, PowerCard
from sim.games.policy import ShopPlan
from sim.games.spec import SHOPS

SHOP_EXTRA = 2  # "The Leader draws 2 Equipment cards from the deck plus 1 extra card for each Hero"
WHITE_DIE_PRICE = 2  # "Pay 2 Gold coins for each white Bonus die"
HEAL_PRICE = 1  # "For each Gold coin you spend to buy healing, heal 1 life point to every Hero."
POWER_DRAW = 3  # "The leader draws three Power cards from the deck (regardless of the number of players)"
POWER_PRICE = 1  # "Each Power card costs 1 XP."
LEVEL_UP_XP = 3  # "the highest space of the track (3 XP)"


class Shopping:
    """The Shop and the Power cards of a game, mixed into `Game`."""

    if TYPE_CHECKING:  # the game's state is Game's (sim.games.engine): these methods read and change it
        set_aside: list[DungeonCard]
        power_discard: list[PowerCard]

        def __getattr__(self, name: str) -> Any: ...

        def __setattr__(self, name: str, value: Any) -> None: ...

    def _shop(self) -> None:
        """4 · Shopping Time!"""
        self.shops += 1
        self.note(f"SHOP {self.shops}: {self.gold} gold, {self.white} white dice")
        n = SHOP_EXTRA + len(self.standing)
        offered = self._pop("shop", self.shop_deck, n)
        plan = self._ask("shop", tuple(offered), {"gold": self.gold, "white_dice": self.white})
        if not isinstance(plan, ShopPlan):
            raise TypeError(f"a game policy answers 'shop' with a ShopPlan, not {plan!r}")
        bought: set[int] = set()
        for i, who in plan.buy:
            if i in bought or not 0 <= i < len(offered) or offered[i].price > self.gold:
                continue
            if self._give(offered[i], who, f"bought for {offered[i].price} gold"):
                self.gold -= offered[i].price
                bought.add(i)
        # unbought cards: "Discard any cards you have decided not to buy back to the box."
        heal = max(0, min(int(plan.heal), self.gold // HEAL_PRICE))
        if heal:
            self.gold -= heal * HEAL_PRICE
            for h in self.standing:
                h.heal(heal)
            self.note(f"  healing: {heal} gold, every hero +{heal}")
        dice = max(0, min(int(plan.white_dice), self.gold // WHITE_DIE_PRICE, CHEST_DICE - self.white))
        if dice:
            self.gold -= dice * WHITE_DIE_PRICE
            self.white += dice
            self.note(f"  {dice} white dice for {dice * WHITE_DIE_PRICE} gold: {self.white} on the Chest")
        if self.spec.options.level_up:
            for h in self.standing:
                h.level_up += h.level_up_spent  # "all spent Level Up tokens are refreshed"
                h.level_up_spent = []
                if h.xp >= LEVEL_UP_XP:
                    free = tuple(c for c in COLOURS if c not in h.level_up and c not in h.scars)
                    if free:
                        colour = self._ask("level-up", free, None, hero=h)
                        h.level_up.append(colour)
                        h.xp = 0
                        self.note(f"  {h.name} levels up: a Level Up token on {colour}")
        if self.spec.options.xp:
            self._power_shop()
        if self.shops < SHOPS:  # "a new cycle must be initiated"
            self.dungeon += self.set_aside
            self.set_aside = []
            self.icons = 0

    def _power_shop(self) -> None:
        for h in self.standing:  # Miracle: "removes 1 scar token [...] healed up to his maximum health"
            for p in list(h.powers):
                if (
                    p.effect == "miracle"
                    and p.xp <= self.xp
                    and h.scars
                    and self._ask("power", (False, True), {"power": p}, hero=h)
                ):
                    self.xp -= p.xp
                    h.scars.pop()
                    h.max_life = LIFE_TRACK_MAX - SCAR_LIFE * len(h.scars)
                    h.life = h.max_life
                    self.note(f"  {h.name}: Miracle removes a Scar")
        if len(self.power_deck) < POWER_DRAW and self.power_discard:
            self.power_deck += self._shuffled(self.power_discard)
            self.power_discard = []
        offered = self._pop("power", self.power_deck, POWER_DRAW)
        if not offered:
            return
        picks = self._ask("powers", tuple(offered), {"xp": self.xp}) or ()
        taken: set[int] = set()
        for i, who in picks:
            h = next((x for x in self.standing if x.name == who), None)
            if i in taken or not 0 <= i < len(offered) or h is None or self.xp < POWER_PRICE:
                continue
            if len(h.powers) >= self.spec.options.carry.powers:
                continue
            self.xp -= POWER_PRICE
            h.powers.append(offered[i])
            taken.add(i)
            self.note(f"  {h.name} buys the Power card {offered[i].name}")
        self.power_discard += [c for i, c in enumerate(offered) if i not in taken]
