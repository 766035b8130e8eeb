"""A throw bank that stores a synthetic table for each scenario it is asked to record (shaped like a
casual standard shot, fewer hits per extra specific throw), so that tests of the bank, the game
experiments and the game notebook run in seconds: what they test is the bank and the layers on it,
not the physics (recording real throws takes about half a minute per scenario)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from sim.games.throw_bank import ThrowBank, scenario_key


def synthetic(s: dict, n: int) -> pd.DataFrame:
    rng = np.random.default_rng(int(scenario_key(s, n)[:8], 16))
    p = 0.55 * 0.7 ** (len([x for x in s["shots"] if x != "standard"]))
    hit = rng.random(n) < p
    val = rng.choice([1, 2, 3, 4, 5, 6, 10], n)
    face = np.where(rng.random(n) < 0.125, "icon", "blank")
    df = pd.DataFrame({"cell": 0, "result": np.where(hit, "hit", "miss"), "reason": np.where(hit, "hit", "off-board"),
                       "section": np.where(hit, np.char.add("s", val.astype(str)), ""), "value": np.where(hit, val, -1),
                       "face": face, "icon": face == "icon", "damage": np.where(hit, val, 0).astype(float)})
    if s["die"] == "water":
        for k in (1, 2):
            h = rng.random(n) < p
            df[f"die{k}_result"] = np.where(h, "hit", "miss")
            df[f"die{k}_value"] = np.where(h, 2, -1)
            df[f"die{k}_damage"] = np.where(h, 2.0, 0.0)
    return df


class SyntheticBank(ThrowBank):
    def __init__(self, folder, throws=200):
        super().__init__(folder, throws, quiet=True)
        self.recorded: list[dict] = []

    def _record_one(self, s):
        self.recorded.append(s)
        self.store(s, synthetic(s, self.throws))
