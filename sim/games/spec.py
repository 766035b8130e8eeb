"""Game files (`games/*.toml`): a whole game of Dungeon Fighter, from Setup to the Final Boss. Schema::

kind = "game"
name = "base"
decks = ["base"]                 # deck files (decks/): several = boxes mixed ("Mixing Dungeon Fighter Boxes!")
difficulty = "normal"            # normal | hard (+3 monster life every combat) | inferno (+5)
policy = "default"               # a game policy (sim.games.ladder.GAME_POLICIES)
seed = 1
games = 1
[party]
size = 3                         # heroes playing: the first `size` of the roster (2-6; 1 player plays 2)
white_dice = 2                   # Setup: "place on it 2 white Bonus dice"
# gold = 1                       # default: "a number of Gold coins equal to the number of players minus 2"
[[party.heroes]]                 # the roster in seating order; the last seated hero is the first Leader
name = "Torm"
green = "piercing"
[throws]                         # as in a fight file (board, skill, shot, colored_die, white_die)
[house_rules]                    # as in a fight file; extra_white_dice adds to the starting loot
[options]                        # rulebook variants
level_up = false                 # Variant: Level Up (a Shop at 11 Shop icons)
relics = true                    # Relic cards in the Shop deck
xp = false                       # the expansions' XP and Power cards
"""  # noqa: E501 - the schema example keeps its aligned comments

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import ConfigDict, Field

from sim.errors import SpecError
from sim.fights.house_rules import HouseRules
from sim.fights.monster import checked
from sim.fights.party import CHEST_DICE, HeroSpec, roster_problems, skill_problems
from sim.fights.spec import ThrowsSpec, set_dotted
from sim.games.deck import DeckSpec, load_deck
from sim.specs.base import Spec
from sim.specs.datafiles import beside, read_toml, resolve

BASE_HEROES = 4  # "4 Hero sheets" in one box
MAX_HEROES = 6  # "If playing with more than one Box of Dungeon Fighter, players may use up to 6 Heroes."
SHOP_ICONS = 10  # "The party needs at least 10 Shop icons to reach a Shop"
SHOP_ICONS_LEVEL_UP = 11  # "Players will only arrive at the Shop after they have collected 11 Shop icons"
SHOPS = 3  # "they have to visit 3 Shops to reach the Final Boss"


class GamePartySpec(Spec):
    """The roster (seating order) and the starting loot."""

    model_config = ConfigDict(strict=True)

    heroes: list[HeroSpec] = Field(min_length=2, max_length=MAX_HEROES)
    size: int | None = Field(default=None, ge=2, le=MAX_HEROES)  # default: the whole roster
    white_dice: int = Field(default=2, ge=0, le=CHEST_DICE)
    gold: int | None = Field(default=None, ge=0, le=999)  # default: players - 2

    @property
    def players(self) -> int:
        return len(self.heroes) if self.size is None else self.size

    def seated(self) -> list[HeroSpec]:
        """The heroes who play, in seating order."""
        return list(self.heroes[: self.players])

    @property
    def start_gold(self) -> int:
        return max(0, self.players - 2) if self.gold is None else self.gold


class CarrySpec(Spec):
    """How much Equipment one hero may carry ("The limit and types of Equipment that this specific Hero
    can carry" is printed on each Hero sheet, not in the rulebook: these limits are estimates)."""

    model_config = ConfigDict(strict=True)

    weapon: int = Field(default=2, ge=0, le=6)
    armor: int = Field(default=1, ge=0, le=6)
    spendable: int = Field(default=2, ge=0, le=6)
    template: int = Field(default=1, ge=0, le=6)
    powers: int = Field(default=3, ge=0, le=3)  # "Each Hero can carry up to three Power cards."


class GameOptions(Spec):
    """Rulebook variants and the choices the rulebooks leave open, each named."""

    model_config = ConfigDict(strict=True)

    level_up: bool = False
    relics: bool = True
    xp: bool = False
    carry: CarrySpec = CarrySpec()
    # the Monster deck running out before the third Shop (the rulebooks do not say): reshuffle the
    # defeated monsters ("reshuffle") or lose the game ("lose")
    empty_monster_deck: Literal["reshuffle", "lose"] = "reshuffle"


class GameSpec(Spec):
    """One game as `dfsim game` plays it."""

    model_config = ConfigDict(strict=True)

    name: str = Field(min_length=1, max_length=80)
    description: str = ""
    notes: str = ""
    decks: list[str] = Field(min_length=1, max_length=8)
    difficulty: Literal["normal", "hard", "inferno"] = "normal"
    party: GamePartySpec
    throws: ThrowsSpec = ThrowsSpec()
    house_rules: HouseRules = HouseRules()
    options: GameOptions = GameOptions()
    policy: str = Field(default="default", min_length=1)
    seed: int = Field(default=0, ge=0, le=2**63 - 1)
    games: int = Field(default=1, ge=1, le=10_000_000)

    def problems(self) -> list[tuple[str, str]]:
        """The party's, house rules' and throws' problems and the seats the boxes allow, as (field,
        problem)."""
        out = [(f"party.{f}", p) for f, p in _party_problems(self.party)]
        out += [(f"house_rules.{f}", p) for f, p in self.house_rules.problems()]
        out += [(f"throws.{f}", p) for f, p in self.throws.problems()]
        if self.party.size is not None and self.party.size > len(self.party.heroes):
            out.append(
                ("party.size", f"{self.party.size} heroes but the roster has {len(self.party.heroes)}")
            )
        if self.party.players > BASE_HEROES and len(self.decks) < 2:
            out.append(
                (
                    "party.size",
                    f'{self.party.players} heroes need more than one box ("If playing with more than '
                    'one Box of Dungeon Fighter, players may use up to 6 Heroes"); one box seats '
                    f"{BASE_HEROES}",
                )
            )
        return out  # the policy name is checked where it is resolved (sim.games.policy)

    def with_seed(self, seed: int) -> GameSpec:
        """This game with another root seed (its shuffles, Final Bosses and throws): what `--seed` and
        an experiment's or a tune's seed mean."""
        return self if seed == self.seed else self.model_copy(update={"seed": int(seed)})

    @property
    def shop_icons(self) -> int:
        return SHOP_ICONS_LEVEL_UP if self.options.level_up else SHOP_ICONS

    @classmethod
    def check_file(cls, path: Path, data: dict[str, Any]) -> GameSpec:
        """Validate a game file and every deck it names (a deck's problems name the deck's file)."""
        spec = game_from_dict(data, path)
        spec.load_decks()
        return spec

    def load_decks(self) -> list[DeckSpec]:
        """The decks, in order (a deck path is relative to the game file); a bad name is this file's field."""
        out = []
        for i, d in enumerate(self.decks):
            try:
                out.append(load_deck(beside(d, self.source)))
            except SpecError as exc:
                if exc.field == "deck":
                    raise SpecError(self.source, f"decks.{i}", exc.problem) from None
                raise
        if (
            not any(d.monsters for d in out)
            or not any(d.bosses for d in out)
            or not any(d.dungeon for d in out)
        ):
            raise SpecError(self.source, "decks", "the decks need Monster, Final Boss and Dungeon cards")
        return out


def _party_problems(p: GamePartySpec) -> list[tuple[str, str]]:
    return roster_problems(p.heroes) + skill_problems(p.heroes)


def game_from_dict(
    data: dict[str, Any], source: str | Path, overrides: dict[str, Any] | None = None
) -> GameSpec:
    """Validate a game; `overrides` sets dotted keys first (`{"party.size": 4}`)."""
    data = dict(data)
    for key, value in (overrides or {}).items():
        set_dotted(data, key.split("."), value, source)
    return checked(GameSpec, data, source)


def load_game(name_or_path: str | Path, overrides: dict[str, Any] | None = None) -> GameSpec:
    """A built-in game (`base`) or a game file; `overrides` sets dotted keys first."""
    path = resolve("game", name_or_path)
    return game_from_dict(read_toml(path), path, overrides)
