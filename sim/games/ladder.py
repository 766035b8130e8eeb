"""The game policies by name: the ladder from a first-time table to strong play, and the styles beside it.

Why a module of its own: the registry names every policy, the rule-based ones (sim/games/policy.py)
and the searching one (sim/games/strong.py, which plays rollouts with the rule-based default), so
it sits above both; commands, experiment files, the tuner and the studio resolve names here.
"""

from __future__ import annotations

from typing import Any

from sim.fights.policy import Policy
from sim.games.policy import STYLES, GamePolicy
from sim.games.strong import StrongPolicy

GAME_POLICIES: dict[str, Policy] = {**{s: GamePolicy(s) for s in STYLES}, "strong": StrongPolicy()}
LADDER = ("first-time", "default", "strong")  # the rungs, weakest first


def parse_policy_name(text: str) -> tuple[str, dict[str, str]]:
    """ "NAME" or "NAME:key=value,key=value" -> (NAME, {key: value}); ValueError on a malformed option."""
    name, _, rest = text.partition(":")
    opts: dict[str, str] = {}
    for item in filter(None, (x.strip() for x in rest.split(","))):
        k, eq, v = item.partition("=")
        if not eq or not k.strip() or not v.strip():
            raise ValueError(f"option '{item}' of game policy '{name}': expected key=value")
        opts[k.strip()] = v.strip()
    return name.strip(), opts


def make_game_policy(text: str) -> Policy:
    """The policy a name stands for ("default", "strong:rollouts=32", "default:shop=heal-first");
    ValueError with one line on a bad name or option."""
    name, opts = parse_policy_name(text)
    if name not in GAME_POLICIES:
        raise ValueError(f"unknown game policy '{name}' (one of {', '.join(GAME_POLICIES)})")
    if not opts:
        return GAME_POLICIES[name]
    with_options = getattr(GAME_POLICIES[name], "with_options", None)
    if with_options is not None:
        return with_options(opts)
    return GamePolicy(name, opts)


def resolve_game_policy(policy: Policy | str | None, source: str = "<game>") -> Policy:
    """A game policy from a name in `GAME_POLICIES` (with options, "NAME:key=value,..."), any callable
    (as is), or None (the default); a bad name or option is a SpecError naming `source`."""
    if policy is None:
        return GAME_POLICIES["default"]
    if isinstance(policy, str):
        try:
            return make_game_policy(policy)
        except ValueError as exc:
            from sim.errors import SpecError

            raise SpecError(source, "policy", str(exc)) from None
    return policy


def policy_label(policy: Any) -> str:
    """The name a report gives a policy: its name, or a callable's `__name__` / class name."""
    if isinstance(policy, str):
        return policy
    return str(getattr(policy, "__name__", type(policy).__name__))
