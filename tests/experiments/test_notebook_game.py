"""The game notebook runs top to bottom (small N) on a throw bank that already holds the base game's
scenarios: recording them takes many minutes, too long for the suite, so the test runs only when
DFSIM_TEST_BANK names such a bank (recorded with 300 throws per scenario, e.g. by
`dfsim game base --games 100 --bank DIR --bank-throws 300`)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest


def test_game_notebook_executes(run_notebook):
    bank = os.environ.get("DFSIM_TEST_BANK")
    if not bank or not any(Path(bank).glob("*.json")):
        pytest.skip("DFSIM_TEST_BANK does not name a recorded throw bank")
    outputs = run_notebook("game.ipynb", {"DFSIM_NOTEBOOK_GAMES": "100", "DFSIM_NOTEBOOK_BANK_THROWS": "300",
                                          "DFSIM_BANK": bank}, timeout=120)
    text = "".join(o.get("text", "") for o in outputs)
    assert "of 100 games" in text and "hard - normal" in text
    assert any("image/png" in o.get("data", {}) for o in outputs)
