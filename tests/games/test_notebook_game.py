"""The game notebook runs top to bottom (small N) on a throw bank that already holds every scenario its
games meet: filled here with synthetic tables (tests/games/synthetic_bank.py) by playing the
notebook's own games first, so the kernel records nothing and the test takes seconds. What it checks
is the notebook's path through the public game API, not the physics of the banked throws."""

from __future__ import annotations

import sys
from pathlib import Path

from sim.games.engine import run_games
from sim.games.spec import load_game
from sim.games.throw_bank import die_alias, play

sys.path.insert(0, str(Path(__file__).resolve().parent))
from synthetic_bank import SyntheticBank  # noqa: E402

GAMES, BANK_THROWS = 100, 300


def test_game_notebook_executes(tmp_path, run_notebook):
    bank = SyntheticBank(tmp_path / "bank", BANK_THROWS)
    for difficulty in ("normal", "hard", "inferno"):  # the notebook's games, played here first
        g = load_game("base", {"difficulty": difficulty})
        play(lambda s, g=g: run_games(g, s, GAMES), bank, g.seed, die_alias(g.throws.colored_die, g.throws.white_die))
    entries = sorted(p.name for p in bank.dir.iterdir())
    assert bank.recorded and entries
    outputs = run_notebook("game.ipynb", {"DFSIM_NOTEBOOK_GAMES": str(GAMES), "DFSIM_NOTEBOOK_BANK_THROWS": str(BANK_THROWS),
                                          "DFSIM_BANK": str(bank.dir)}, timeout=300)
    text = "".join(o.get("text", "") for o in outputs)
    assert f"of {GAMES} games" in text and "hard - normal" in text
    assert any("image/png" in o.get("data", {}) for o in outputs)
    assert sorted(p.name for p in bank.dir.iterdir()) == entries  # the kernel recorded nothing
