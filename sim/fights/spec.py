"""Fight files (`fights/*.toml`): a monster, a room, a party, the difficulty, house rules, the policy,
and the throws the fight is made of. Schema::

    name = "reference"
    monster = "firewall"            # a built-in monster name, a monster file path, or an inline table
    difficulty = "normal"           # normal | hard (+3 monster life) | inferno (+5)
    policy = "default"              # a named fight policy (sim.fights.policy.POLICIES)
    seed = 1                        # root seed of `dfsim fight` (overridden by --seed)
    fights = 1                      # how many fights `dfsim fight` plays (overridden by --fights)
    [room]                          # the Dungeon card (sim.fights.monster.RoomSpec); optional
    life_bonus = 3
    [throws]                        # what the throws are, so a throw source can build their scenario
    board = "magma"
    skill = "casual"                # default skill of every hero
    shot = "standard"               # the shot thrown when no specific throw is required
    colored_die = "hero-d8"
    white_die = "white-d8"
    [house_rules]                   # sim.fights.house_rules.HouseRules
    [party]
    white_dice = 2
    gold = 0
    [[party.heroes]]                # in turn order; sim.fights.party.HeroSpec
    name = "Torm"
    green = "piercing"
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import ConfigDict, Field

from sim.errors import SpecError
from sim.fights.house_rules import HouseRules
from sim.fights.monster import MonsterSpec, RoomSpec, checked, load_monster
from sim.fights.party import PartySpec, skill_problems
from sim.specs.base import Spec
from sim.specs.datafiles import beside, read_toml, resolve

DIFFICULTY_BONUS: dict[str, int] = {"normal": 0, "hard": 3, "inferno": 5}


class ThrowsSpec(Spec):
    """What every throw of the fight is physically: the scenario a throw source builds or looks up."""

    model_config = ConfigDict(strict=True)

    board: str = "magma"
    skill: str = "casual"
    shot: str = "standard"
    colored_die: str = "hero-d8"
    white_die: str = "white-d8"
    variant: str | None = None  # `dfsim fight --records`: resample only this experiment variant's throws

    def problems(self) -> list[tuple[str, str]]:
        """Names that resolve to no board, skill, shot or die file, as (field, problem)."""
        from sim.specs.die import die_name_problem

        out = []
        for field, kind in (("board", "board"), ("skill", "skill"), ("shot", "shot")):
            try:
                resolve(kind, getattr(self, field))
            except SpecError as exc:
                out.append((field, exc.problem))
        for field in ("colored_die", "white_die"):  # a built-in die name or a .toml die file, nothing else
            problem = die_name_problem(getattr(self, field))
            if problem:
                out.append((field, problem))
        return out


class FightSpec(Spec):
    """One fight as `dfsim fight` plays it: monster, room, party, Difficulty Mode ("Hard: +3",
    "Inferno: +5" monster life), house rules, policy, and what the throws are."""

    model_config = ConfigDict(strict=True)

    name: str = Field(min_length=1, max_length=80)
    description: str = ""
    notes: str = ""
    monster: MonsterSpec
    room: RoomSpec = RoomSpec()
    party: PartySpec
    difficulty: Literal["normal", "hard", "inferno"] = "normal"
    house_rules: HouseRules = HouseRules()
    policy: str = Field(default="default", min_length=1)
    throws: ThrowsSpec = ThrowsSpec()
    seed: int = Field(default=0, ge=0, le=2**63 - 1)
    fights: int = Field(default=1, ge=1, le=10_000_000)

    @property
    def monster_life(self) -> int:
        """Card life + room Monster Advantage + difficulty + house-rule bonus (at least 1)."""
        life = self.monster.life + self.room.life_bonus + DIFFICULTY_BONUS[self.difficulty]
        return max(1, life + self.house_rules.monster_life_bonus)

    def problems(self) -> list[tuple[str, str]]:
        """Reference and cross-field problems of the room, party, house rules, throws and hero skills, as
        (field, problem); the first is raised on load."""
        out = [(f"room.{f}", p) for f, p in self.room.problems()]
        out += [(f"party.{f}", p) for f, p in self.party.problems()]
        out += [(f"house_rules.{f}", p) for f, p in self.house_rules.problems()]
        out += [(f"throws.{f}", p) for f, p in self.throws.problems()]
        out += self._template_cap_problems()
        out += self._shot_problems()
        out += [(f"party.{f}", p) for f, p in skill_problems(self.party.heroes)]
        return out

    def _template_cap_problems(self) -> list[tuple[str, str]]:
        """The templates one fight can have on the board at once (the monster's, the room's and every
        template card's, each name once, as the fight's throws carry them) are at most MAX_TEMPLATES, the
        cap of one scenario: the first source past the cap is blamed."""
        from sim.specs.template_setup import MAX_TEMPLATES

        names: set[str] = set()
        sources = [(f"monster.templates.{i}", t) for i, t in enumerate(self.monster.templates)]
        sources += [(f"room.templates.{i}", t) for i, t in enumerate(self.room.templates)]
        sources += [
            (f"party.heroes.{i}.equipment.{j}.template", e.template)
            for i, h in enumerate(self.party.heroes)
            for j, e in enumerate(h.equipment)
            if e.kind == "template"
        ]
        for field, name in sources:
            names.add(name)
            if len(names) > MAX_TEMPLATES:
                return [
                    (
                        field,
                        f"template '{name}' would be template {len(names)} on the board in this fight "
                        f"(monster, room and template cards together); at most {MAX_TEMPLATES} templates "
                        "in one scenario",
                    )
                ]
        return []

    def _shot_problems(self) -> list[tuple[str, str]]:
        """The specific throws the monster and the room demand of every throw must combine into one throw
        (sim/specs/combine.py): a pair that cannot be thrown is refused with the fight, not at its first
        throw. A weapon that cannot be combined with them is the hero's to leave unused."""
        from sim.specs.combine import combine_shots
        from sim.specs.shot import load_shot

        names = list(dict.fromkeys(self.monster.requirements + self.room.requirements))
        if len(names) < 2:
            return []
        try:
            shots = tuple(load_shot(n) for n in names)
        except SpecError:
            return []  # an unknown shot is the problem of the card that names it
        try:
            combine_shots(shots)
        except SpecError as exc:
            field = "room.requirements" if self.room.requirements else "monster.requirements"
            return [(field, f"the monster's and the room's specific throws: {exc.problem}")]
        return []

    @classmethod
    def check_file(cls, path: Path, data: dict[str, Any]) -> FightSpec:
        """Validate a fight file for `dfsim check` (a named monster is read, and blamed, from its own
        file)."""
        return fight_from_dict(data, path)


def fight_from_dict(
    data: dict[str, Any], source: str | Path, overrides: dict[str, Any] | None = None
) -> FightSpec:
    """Validate a fight; `monster` may name a monster (resolved now, its errors name its own file)."""
    data = dict(data)
    for key, value in (overrides or {}).items():
        set_dotted(data, key.split("."), value, source)
    m = data.get("monster")
    if isinstance(m, str):
        try:
            data["monster"] = load_monster(beside(m, source))
        except SpecError as exc:
            if exc.field == "monster":  # an unknown name: the fight file's fault
                raise SpecError(source, "monster", exc.problem) from None
            raise
    elif isinstance(m, dict):
        data["monster"] = checked(MonsterSpec, m, source, prefix="monster")
    return checked(FightSpec, data, source)


def load_fight(name_or_path: str | Path, overrides: dict[str, Any] | None = None) -> FightSpec:
    """A built-in fight name (`reference`) or a fight file; `overrides` sets dotted keys first
    (`{"house_rules.no_bounce": True}`)."""
    path = resolve("fight", name_or_path)
    return fight_from_dict(read_toml(path), path, overrides)


def set_dotted(data: dict[str, Any], parts: list[str], value: Any, source: str | Path) -> None:
    """Set `data[parts[0]][parts[1]]... = value` (an override), copying the tables on the way."""
    d = data
    for p in parts[:-1]:
        nxt = d.get(p)
        if nxt is None:
            nxt = d[p] = {}
        elif not isinstance(nxt, dict):
            raise SpecError(source, ".".join(parts), f"'{p}' is not a table")
        else:
            nxt = d[p] = dict(nxt)
        d = nxt
    d[parts[-1]] = value
