"""One throw's consequences: the hit's damage (section, abilities, weapons, spendables, templates),
the miss's damage and what prevents it, the monster's abilities, and the outcome's effects.

Why a part of the fight class of its own: these are the rules a reader checks against the rulebook's
Hit and Miss sections; `Damage` is mixed into `Fight` (sim.fights.engine), whose state it reads.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sim.fights import abilities as ab
from sim.fights.state import EPIC_LIFE, SPEND_BEER, HeroState
from sim.rules.outcome import Outcome


def bonus_rule(out: Outcome, rules: dict[str, str]) -> str:
    """What may add to a hit (`sim.specs.template.BONUS_RULES`): "section" on the board; on a template
    its file's rule, read from the fight's templates (`rules`, by name) or, for one the fight does not
    know, from the effect the classifier marks it with."""
    if out.template is None:
        return "section"
    if out.template in rules:
        return rules[out.template]
    if "no-bonuses" in out.effects:
        return "none"
    if "equipment-bonus-only" in out.effects:
        return "equipment"
    return "section"


WATER_MISSES = "water-misses:"  # the text of the effect below, before its count (what banks record)


def water_misses(out: Outcome) -> int:
    """How many of the three Water dice of a combined Water throw missed (0 for any other throw)."""
    if out.effects:
        for e in out.effects:
            if e.kind == "water-misses":
                return e.amount
    return 0


def on_board_section(out: Outcome) -> bool:
    """Whether the die counts on a section of the Target board (Focused Damage, Set on Fire name
    only those): not on a template section, not in a hole a Slow token fills (a die the Slime moves
    onto the board is on the board)."""
    return out.section is not None and not out.section.startswith("slow-token:")


class Damage:
    """The damage rules of a combat, mixed into `Fight`."""

    if TYPE_CHECKING:  # the fight's state is Fight's (sim.fights.engine): these methods read and change it
        monster_life: int
        facedown: bool

        def __getattr__(self, name: str) -> Any: ...

        def __setattr__(self, name: str, value: Any) -> None: ...

    # ---- one throw's consequences --------------------------------------------------------------
    def _hit_damage(self, h: HeroState, out: Outcome, ability: str | None, weapons: tuple) -> int:
        rule = bonus_rule(out, self.plan.bonus_rules)
        if rule == "none":  # "Hits the Monster for 0 damage": nothing adds
            return max(0, int(out.damage))
        value = out.value if out.value is not None else int(out.damage)
        extra = out.damage - value  # special-die bonuses, the Armor template's -1, ...
        if rule == "equipment":  # "the monster only suffers damage from bonuses from equipment"
            total = out.damage
        else:
            total = (
                ab.section_value(ability, value, on_board_section(out))
                + extra
                + ab.hit_bonus(ability, self.monster.type)
            )
        if self.fire_section is not None and out.section == self.fire_section:
            total += ab.SET_ON_FIRE_BONUS
        for w in weapons:
            total += w.bonus
        if value <= 0 and "armor" in self.templates and out.template != "armor" and total > 0:
            total -= 1  # the classifier's -1 skipped a 0 hit; bonuses still "deal -1 damage"
        return max(0, int(total))

    def _choose_ability(self, h: HeroState, colour: str, out: Outcome, hit: bool, weapons: tuple):
        if not out.icon and (not out.effects or "collective-icon" not in out.effects):
            if h.level_up and colour in h.level_up:
                return self._level_up(h, colour, out, hit, weapons)
            return None, None
        cands = h.available_abilities() if colour == "white" else [a for a in (h.ability(colour),) if a]
        options = tuple(a for a in cands if self._offered(a, hit))
        if not options:
            self._event("icon", hero=h.name, ability=None, note="no ability can activate")
            self.unused_icons[h.name] = self.unused_icons.get(h.name, 0) + 1
            return None, None
        damage_by = None
        if hit and not out.insta_kill:
            damage_by = {a: self._hit_damage(h, out, a, weapons) for a in (None, *options)}
        choice = self._ask("ability", h, options, {"outcome": out, "hit": hit, "damage": damage_by or {}})
        if choice is None:  # "If you can activate a special ability but choose not to, you still earn 2 XP"
            self.unused_icons[h.name] = self.unused_icons.get(h.name, 0) + 1
        return choice, damage_by

    def _offered(self, ability: str, hit: bool) -> bool:
        """Hook: whether an ability may be activated on this throw (its Hit/Miss condition; Beer not
        while every token is already active)."""
        r = ab.rule(ability)
        return ab.applies(ability, hit) and not (r.beer_tokens and self.beer == r.beer_tokens)

    def _level_up(self, h: HeroState, colour: str, out: Outcome, hit: bool, weapons: tuple):
        """Variant Level Up: "Anytime a Hero throws a die that doesn't show the Special icon as the
        result, they may use their Level Up token to activate the corresponding color die special
        ability [...] A Scar overrides a Level Up token"."""
        a = h.ability(colour)
        if a is None or not self._offered(a, hit) or ab.rule(a).rethrow:
            return None, None
        damage_by = None
        if hit and not out.insta_kill:
            damage_by = {x: self._hit_damage(h, out, x, weapons) for x in (None, a)}
        choice = self._ask(
            "ability", h, (a,), {"outcome": out, "hit": hit, "damage": damage_by or {}, "level_up": True}
        )
        if choice is not None:
            h.level_up.remove(colour)
            self.level_ups_used += 1
            self._event("level-up", hero=h.name, colour=colour, ability=a)
        return choice, damage_by

    def _resolve(
        self,
        h: HeroState,
        out: Outcome,
        hit: bool,
        ability: str | None,
        weapons: tuple,
        damage_by: dict | None,
    ) -> None:
        self.last_hero = h.name
        if hit or out.reason == "on-bones":
            self.dice_on_board += 1
        rule = ab.rule(ability) if ability is not None else None
        if ability is not None and rule is not None and not rule.rethrow:
            self._event("ability", hero=h.name, ability=ability)
            self._activate(h, ability)
        before = self.monster_life
        insta = False
        if hit:
            if out.insta_kill:  # "the Monster is immediately defeated and the Hit is considered an Epic Shot"
                insta = True
                dealt = max(self.monster_life, 0)
                self.monster_life = 0
            else:
                dealt = (
                    damage_by[ability]
                    if damage_by is not None
                    else self._hit_damage(h, out, ability, weapons)
                )
                if rule is not None and rule.marks_fire and on_board_section(out):
                    self.fire_section = out.section
                if bonus_rule(out, self.plan.bonus_rules) != "none":
                    dealt = self._spend(h, dealt)
                self.monster_life -= dealt
            if self.log is not None:
                self._event(
                    "hit",
                    hero=h.name,
                    damage=dealt,
                    insta_kill=insta,
                    monster_life=self.monster_life,
                    weapons=[w.name for w in weapons],
                )
        else:
            dealt = int(out.damage)  # e.g. the Fire element die's +N "even if the die misses"
            if rule is not None:
                dealt += rule.miss_damage
            self.monster_life -= dealt
            if self.log is not None:
                self._event(
                    "miss", hero=h.name, reason=out.reason, damage=dealt, monster_life=self.monster_life
                )
            if rule is not None and rule.dodges:
                self._event("dodge", hero=h.name, ability=ability)
            else:
                self._miss_damage(h, water_misses(out) or 1)
        if hit and (
            m := water_misses(out)
        ):  # the Water dice that missed: "then suffers that amount of damage"
            if rule is not None and rule.dodges:
                self._event("dodge", hero=h.name, ability=ability)
            else:
                self._miss_damage(h, m)
        self._outcome_effects(h, out)
        track = self.life_track
        track.extend([before] * (self.throws - 1 - len(track)))  # re-thrown and void throws changed nothing
        track.append(self.monster_life)
        if self.monster_life <= 0:
            self.epic = insta or (hit and self.monster_life <= EPIC_LIFE)
            self.outcome = "won"
            self._event(
                "defeated",
                hero=h.name,
                monster_life=self.monster_life,
                life_before=before,
                epic_shot=self.epic,
            )
        elif self._all_fainted():
            self._lose("all heroes fainted")

    def _activate(self, h: HeroState, ability: str) -> None:
        """Hook: what activating an ability does at once (`sim.fights.abilities.HeroRule`)."""
        r = ab.rule(ability)
        if r.beer_tokens:
            self.beer = r.beer_tokens
            self.beer_holder = h
            self._event("beer", tokens=self.beer, hero=h.name)
        if r.heal_party:
            for x in self.heroes:
                self._heal(x, r.heal_party, ability)
        if r.heal_self:
            self._heal(h, r.heal_self, ability)
        if r.gold:
            self.gold += r.gold
            self._event("gold", amount=r.gold, cause=ability)

    def _spend(self, h: HeroState, dealt: int) -> int:
        while True:
            names = tuple(s.name for s in h.spendables if s.damage > 0)
            if not names:
                return dealt
            choice = self._ask("spendable", h, names, {"damage": dealt, "monster_life": self.monster_life})
            if choice is None:
                return dealt
            s = next(s for s in h.spendables if s.name == choice)
            h.spendables.remove(s)
            dealt += s.damage
            self._event("spendable", hero=h.name, item=s.name, damage=s.damage)

    def _miss_damage(self, h: HeroState, misses: int = 1) -> None:
        m = self.monster
        dmg = (
            m.miss_damage * misses
        )  # the Water dice: "adds up the damage from all of the [...] dice that missed"
        dmg += self._monster_extra_miss_damage()
        while dmg > 0 and (self._beer_usable() or h.armors):
            opts = ((SPEND_BEER,) if self._beer_usable() else ()) + tuple(f"armor:{a.name}" for a in h.armors)
            if not opts:
                break
            choice = self._ask("prevent", h, opts, {"damage": dmg})
            if choice is None:
                break
            if choice == SPEND_BEER:  # "reduce the Monster's damage to zero"
                self.beer -= 1
                prevented = dmg
            else:  # an Armor, "once during each combat"
                a = next(a for a in h.armors if f"armor:{a.name}" == choice)
                h.armors.remove(a)
                prevented = dmg if a.reduce is None else min(dmg, a.reduce)
            dmg -= prevented
            self._event("prevent", hero=h.name, by=choice, prevented=prevented)
        if dmg > 0:
            self._hurt(h, dmg, "miss")
            self._monster_dealt_damage()

    # ---- the monster's ability hooks (sim.fights.abilities.MonsterRule) -------------------------
    def _monster_rethrows_miss(self) -> bool:
        """Hook, on a miss: whether it is thrown again (Arrogant: "If the Hero Misses and the Monster
        card is facedown, they must re-throw the die and flip the Monster card faceup again")."""
        if self.monster_rule.rethrows_facedown_miss and self.facedown:
            self.facedown = False
            return True
        return False

    def _monster_extra_miss_damage(self) -> int:
        """Hook, on miss damage: what the monster adds (Fury: "additional damage equal to the number
        of dice currently on the Target board")."""
        extra = self.monster_rule.miss_damage_per_board_die * self.dice_on_board
        if extra:
            self._event(self.monster.ability or "", extra=extra)
        return extra

    def _monster_dealt_damage(self) -> None:
        """Hook, after the monster dealt damage (Arrogant: "When the Monster deals damage, flip their
        card facedown")."""
        if self.monster_rule.facedown_on_damage and not self.facedown:
            self.facedown = True
            self._event(self.monster.ability or "", facedown=True)

    def _beer_usable(self) -> bool:
        """Beer tokens left and a hero to spend them: the one who activated them, while standing (a
        fainted hero "cannot act again during that combat")."""
        return bool(self.beer) and self.beer_holder is not None and not self.beer_holder.fainted

    def _outcome_effects(self, h: HeroState, out: Outcome) -> None:
        """What the classified outcome itself carries: hero damage (Firewall touch, Boulder die,
        Explosion template), healing, gold, a template removed from the board."""
        if not out.effects and not out.hero_damage and out.template is None:
            return
        every = 0
        for e in out.effects:
            kind = e.kind
            if kind == "every-hero-suffers":
                every += e.amount
            elif kind == "every-hero-heals":
                for x in self.heroes:
                    self._heal(x, e.amount, "template")
            elif kind == "gold":
                self.gold += e.amount
                self._event("gold", amount=e.amount, cause="throw")
        own = int(out.hero_damage) - every
        if own > 0:
            self._hurt(h, own, "throw")
        if every > 0:
            for x in self.heroes:
                self._hurt(x, every, "template")
        if out.template == "armor" and "armor" in self.templates:
            self.templates.remove("armor")  # "remove the Shield Template from the Target board"
            self.templates_t = tuple(sorted(self.templates))
            self._event("template-removed", template="armor")
