"""Write the worked example's tally: what a thrower whose spreads are exactly `TRUE_SCALE` x casual
would tally over `THROWS` throws of the standard shot, simulated with the engine.

Usage: python examples/calibration/make_tally.py [OUT.toml]. The test tests/studies/test_skill_fit.py
checks that `dfsim fit-skill` recovers the scale within its interval (from a different seed).
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

from sim.engine.worlds import build_thrower
from sim.seeding import Draw
from sim.specs.scenario import Scenario
from sim.studies.skill_fit import direction, scaled_skill

TRUE_SCALE = 1.5
THROWS = 100
SEED = 777  # the tally's throws; the fit simulates with the tally file's own seed (0)
OUT = Path(__file__).with_name("alice.toml")


def tally(scale: float = TRUE_SCALE, throws: int = THROWS, seed: int = SEED, simulated_throws: int = 400) -> dict:
    """The tally (a dict in the file's layout) of `throws` simulated throws at this spread scale."""
    th = build_thrower(Scenario.build(board="magma", dice=["hero-d8"], shots=["standard"], skill="casual"))
    try:
        skill = scaled_skill(th.scenario.skill, scale)
        out = [th.replay(th.release_for(Draw.for_throw(seed, k), skill=skill), seed, k).outcome for k in range(throws)]
    finally:
        th.physics.close()
    known = ("off-board", "in-hole", "on-bones", "cocked", "no-bounce")
    misses = Counter(o.reason if o.reason in known else "other" for o in out if o.result != "hit")
    values = Counter(str(o.value) for o in out if o.result == "hit")
    dirs = Counter(direction(o.position_mm) for o in out if o.result != "hit" and o.reason == "off-board")
    return {"name": "alice", "notes": f"synthetic: {throws} throws simulated at {scale} x casual (seed {seed})",
            "board": "magma", "die": "hero-d8", "shot": "standard", "base_skill": "casual",
            "throws": throws, "hits": sum(values.values()), "simulated_throws": simulated_throws,
            "misses": dict(sorted(misses.items())), "hits_by_value": dict(sorted(values.items(), key=lambda kv: int(kv[0]))),
            "miss_directions": dict(sorted(dirs.items()))}


def to_toml(t: dict) -> str:
    """The tally as a TOML file."""
    out = ["# Worked example for `dfsim fit-skill` (docs/calibration.md): a SYNTHETIC tally, made by",
           "# examples/calibration/make_tally.py from a known spread, as a player would write it down."]
    for k in ("name", "notes", "board", "die", "shot", "base_skill"):
        out.append(f'{k} = "{t[k]}"')
    out += [f"throws = {t['throws']}", f"hits = {t['hits']}", f"simulated_throws = {t['simulated_throws']}"]
    for table in ("misses", "hits_by_value", "miss_directions"):
        out += ["", f"[{table}]"] + [f'"{k}" = {v}' for k, v in t[table].items()]
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else OUT
    out.write_text(to_toml(tally()))
    print(f"wrote {out}")
