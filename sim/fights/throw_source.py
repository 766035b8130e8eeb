"""The fight engine's one question to the physical world: "this hero throws this die, like so: what
happened?". Any throw source answers it (resampled records now, physics in the loop later).

A `ThrowRequest` says everything that decides a throw's physics and classification: which die
(colored or white, and its die file), the shots in force (the monster's, the room's and any weapon's
specific throws, identical ones once; the fight's base shot when none), the hero's skill, the board,
the templates lying on it, the classification rules in force (house rules), the release-noise factor
(house rules "eyes closed" / "off hand"), and where to aim. `(fight, throw)` is the throw's stream
index: a source that draws randomness must draw it from `(root seed, fight, throw)` only, so a fight
replays exactly whatever else was thrown before it. `turn` and `retrievals` let a source that keeps
dice on the board (physics in the loop) know when a die is picked up again: a re-throw in the same
turn ("The player retrieves the die they just threw and throws it again") or a retrieval ("All dice
are removed from the Target board when the Party retrieves dice and at the end of each combat").

Outcomes are frozen (`sim.rules.outcome.Outcome`), so a source may hand out shared objects.

A source may also answer "this hero flips these templates: did they stay, and how often did they
touch the table?" (`flip(TemplateFlipRequest) -> [TemplateFlip]`); one without `flip` has every
template lie there at once (`flips_that_stay`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, NamedTuple, Protocol, cast, runtime_checkable

from sim.rules.outcome import AIM_OBJECTIVES, Outcome, Result


class Aim(NamedTuple):
    """Where to aim: an objective, "hit" (the best hit chance), "damage" (the best expected damage)
    or "kill" (the best chance to deal at least the monster's remaining life), and optionally a
    target point on the board (mm, board frame) that overrides the source's own choice."""

    objective: str = "hit"
    target_mm: tuple[float, float] | None = None

    def check(self) -> Aim:
        """This aim when its objective is known and its target, if any, is an (x, y) point in mm;
        ValueError otherwise."""
        if self.objective not in AIM_OBJECTIVES:
            raise ValueError(
                f"aim objective must be one of {', '.join(AIM_OBJECTIVES)}, not '{self.objective}'"
            )
        if self.target_mm is not None and len(self.target_mm) != 2:
            raise ValueError("aim target_mm must be (x, y) in mm")
        return self


AIMS: dict[str, Aim] = {o: Aim(o) for o in AIM_OBJECTIVES}


class ThrowRequest(NamedTuple):
    """One throw to make (a NamedTuple: cheap to build once per throw)."""

    fight: int  # fight index within the run
    throw: int  # physical throw index within the fight (re-throws count): the stream index
    hero: str
    colour: str  # "red" | "green" | "blue" | "white"
    kind: str  # "colored" | "white"
    die: str  # die file name or path (the fight's [throws] colored_die / white_die)
    shots: tuple[
        str, ...
    ]  # shot profiles in force, identical ones once (combined in any order: sim/specs/combine.py)
    skill: str
    board: str
    templates: tuple[str, ...] = ()  # template names lying on the board, sorted
    rules: tuple[tuple[str, Any], ...] = ()  # classification rules in force (HouseRules.throw_rules)
    noise_factor: float = 1.0  # multiplier on the skill's release spreads
    aim: Aim = AIMS["hit"]
    monster_life: int = 0  # the monster's remaining life when the die is thrown ("kill" aims)
    turn: int = 0  # the fight's turn counter: a second throw in one turn re-throws the die just thrown
    retrievals: int = 0  # retrievals so far this fight: all dice leave the board at each one


class TemplateFlipRequest(NamedTuple):
    """A hero flips templates onto the board, one after the other ("the active Hero must flip the
    indicated Template like a coin"): at the start of the combat (the monster's and the room's) or
    during it (a card). `flip` numbers the fight's flips: the stream index of the first one."""

    fight: int
    flip: int
    hero: str
    templates: tuple[str, ...]
    skill: str
    board: str
    on_board: tuple[str, ...] = ()  # templates lying there already, sorted
    turn: int = 0
    retrievals: int = 0
    shots: tuple[str, ...] = ()  # the specific throws in force: their props stand on the table at a flip


class TemplateFlip(NamedTuple):
    """How one template's flip went: whether it stayed on the board within the flip limit, and how
    many of its landings touched the table ("the player suffers 1 damage and must flip the Template
    again"); `flips` counts every attempt."""

    template: str
    stayed: bool = True
    table_touches: int = 0
    flips: int = 1


def flips_that_stay(request: TemplateFlipRequest) -> list[TemplateFlip]:
    """The answer of a source that does not flip: every template lies there at once, no damage (the
    resampling source: its throws were recorded with the templates already on the board)."""
    return [TemplateFlip(t) for t in request.templates]


@runtime_checkable
class ThrowSource(Protocol):
    """Anything with `throw(request) -> Outcome`. The outcome's result must be "hit" or "miss"
    ("void" is accepted: the engine throws again with the next stream index)."""

    def throw(self, request: ThrowRequest) -> Outcome:
        """The classified outcome of the requested throw (the engine never mutates it)."""
        ...


class ScriptedSource:
    """Hands out given outcomes in order and keeps the requests (rulebook examples, tests); template
    flips take the given `flips` in order, then stay at once."""

    def __init__(self, outcomes: Iterable[Outcome], flips: Iterable[TemplateFlip] = ()) -> None:
        self.outcomes = list(outcomes)
        self.requests: list[ThrowRequest] = []
        self.flips = list(flips)
        self.flip_requests: list[TemplateFlipRequest] = []

    def flip(self, request: TemplateFlipRequest) -> list[TemplateFlip]:
        """The next given flip of each template (the template's name from the request), else one
        that stays at once."""
        self.flip_requests.append(request)
        out = []
        for t in request.templates:
            f = self.flips.pop(0) if self.flips else TemplateFlip(t)
            out.append(TemplateFlip(t, f.stayed, f.table_touches, f.flips))
        return out

    def throw(self, request: ThrowRequest) -> Outcome:
        """The next given outcome, in order, keeping the request; IndexError once they are used up."""
        if len(self.requests) >= len(self.outcomes):
            raise IndexError(f"scripted source ran out after {len(self.outcomes)} throws")
        self.requests.append(request)
        return self.outcomes[len(self.requests) - 1]


def scripted(
    result: str,
    value: int | None = None,
    *,
    icon: bool = False,
    reason: str | None = None,
    section: str | None = None,
    damage: float | None = None,
    **kw: Any,
) -> Outcome:
    """A hand-made classified outcome: `scripted("hit", 4)`, `scripted("miss", reason="in-hole", icon=True)`.
    A hit's damage defaults to its section value."""
    if result == "hit":
        reason = reason or "hit"
        damage = float(value or 0) if damage is None else damage
        section = section or (f"section-{value}" if value is not None else None)
    else:
        reason = reason or "off-board"
        damage = 0.0 if damage is None else damage
    return Outcome(
        result=cast(Result, result),
        reason=reason,
        section=section,
        value=value,
        face="icon" if icon else "blank",
        icon=icon,
        damage=float(damage),
        **kw,
    )
