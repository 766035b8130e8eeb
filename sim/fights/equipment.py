"""What heroes carry into a combat: template cards flipped onto the board, weapons' specific throws,
and every throw request a party's equipment can make (what a throw bank must hold).

`Equipment` is mixed into `Fight` (sim.fights.engine), whose state it reads.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sim.fights.spec import FightSpec
from sim.fights.state import FLIP_TABLE_DAMAGE, FightPlan, HeroState
from sim.fights.throw_source import (
    TemplateFlip,
    TemplateFlipRequest,
    ThrowRequest,
    flips_that_stay,
)


def possible_requests(spec: FightSpec) -> list[ThrowRequest]:
    """The kinds of throw a fight can ask its source for (one request per distinct scenario): every
    hero with the colored and the white die, under every combination of the hero's weapons, with
    the board's templates at the start, with every template card's template added to them (cards
    flip during the fight) and (the Armor can be knocked off) without the Armor. Used to
    check, before any fight is played, that a throw source covers the fight."""
    import itertools

    plan = FightPlan.of(spec)
    t = spec.throws
    cards = {c.template for h in spec.party.heroes for c in h.equipment if c.kind == "template"}
    start = tuple(sorted(set(plan.templates) | cards)) if cards else plan.templates
    tpls = {plan.templates, start}
    tpls |= {tuple(x for x in t if x != "armor") for t in tpls if "armor" in t}
    seen: dict[tuple, ThrowRequest] = {}
    for h in spec.party.heroes:
        weapons = [e for e in h.equipment if e.kind == "weapon"][:6]
        for k in range(len(weapons) + 1):
            for used in itertools.combinations(weapons, k):
                extra = tuple(r for w in used for r in w.requirements)
                shots = tuple(dict.fromkeys(plan.requirements + extra)) or (t.shot,)
                for die in (t.colored_die, t.white_die):
                    for tp in sorted(tpls):
                        req = ThrowRequest(
                            0,
                            0,
                            h.name,
                            "red",
                            "colored",
                            die,
                            shots,
                            h.skill or plan.skill,
                            t.board,
                            tp,
                            plan.rules,
                            plan.noise,
                        )
                        seen.setdefault((die, shots, req.skill, tp), req)
    return list(seen.values())


class Equipment:
    """A combat's template flips, template cards and weapons' shots, mixed into `Fight`."""

    if TYPE_CHECKING:  # the fight's state is Fight's (sim.fights.engine): these methods read and change it
        templates_t: tuple[str, ...]

        def __getattr__(self, name: str) -> Any: ...

        def __setattr__(self, name: str, value: Any) -> None: ...

    def _flip(self, h: HeroState, names: tuple[str, ...], cause: str) -> None:
        """The hero flips `names` one after the other: each landing touching the table costs them
        `FLIP_TABLE_DAMAGE` ("the player suffers 1 damage and must flip the Template again"); a
        template that stays lies on the board for the rest of the combat (or until it is removed)."""
        req = TemplateFlipRequest(
            self.fight,
            self.flips,
            h.name,
            tuple(names),
            h.skill,
            self.board,
            self.templates_t,
            self.turns,
            self.retrievals,
            self.base_shots,
        )
        self.flips += len(names)
        flip = getattr(self.source, "flip", None)
        results: list[TemplateFlip] = flip(req) if flip is not None else flips_that_stay(req)
        for r in results:
            self._event(
                "flip",
                hero=h.name,
                template=r.template,
                stayed=r.stayed,
                flips=r.flips,
                table_touches=r.table_touches,
                cause=cause,
            )
            self._hurt(h, r.table_touches * FLIP_TABLE_DAMAGE, "template-flip")
            if r.stayed and r.template not in self.templates:
                self.templates.append(r.template)
        self.templates_t = tuple(sorted(self.templates))
        if self._all_fainted():
            self._lose("all heroes fainted")

    def _cards(self, h: HeroState) -> None:
        """A template card may be used at the start of its holder's turn, once per combat; a template
        already on the board is left as it is (rule T4's default, `leave`), so its card waits."""
        usable = tuple(c.name for c in h.cards if c.template not in self.templates)
        if not usable:
            return
        choice = self._ask("template", h, usable)
        if choice is None:
            return
        card = next(c for c in h.cards if c.name == choice)
        h.cards.remove(card)
        self._flip(h, (card.template,), card.name)

    def _shots(self, weapons: tuple) -> tuple[str, ...]:
        """The specific throws in force, identical ones once ("If the throw requirements of 2 or
        more cards are the same, then they count as one requirement"); the base shot if none."""
        key = tuple(r for w in weapons for r in w.requirements)
        s = self._shots_cache.get(key)
        if s is None:
            s = self._shots_cache[key] = tuple(dict.fromkeys(self.requirements + key)) or (
                self.throws_spec.shot,
            )
        return s
