"""A Firewall miss says what the die did (around the wall, into it, short of it), not only
"requirement:firewall": releases far from any borderline, so the classification cannot flip."""

from __future__ import annotations

import json

import pytest

from sim.cli.main import main


@pytest.mark.parametrize("release, words", [
    ({"position_mm": [-650, 300, 100], "velocity_mps": [1.5, 0, 0.7]}, "around it, 175 mm past its end"),
    ({"position_mm": [-650, 0, 30], "velocity_mps": [0.4, 0, 0]}, "short of it"),
    ({"position_mm": [-450, 0, 20], "velocity_mps": [1.5, 0, 0]}, "into it"),
])
def test_a_firewall_miss_says_where_the_die_went(capsys, release, words):
    rel = {**release, "orientation_xyzw": [0, 0, 0, 1], "spin_radps": [0, 0, 0]}
    assert main(["throw", "--shot", "firewall", "--release", json.dumps(rel), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["reason"] == "requirement:firewall" and out["detail"].startswith(words), out
    assert main(["throw", "--shot", "firewall", "--release", json.dumps(rel)]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first.startswith("MISS (requirement:firewall): ") and words in first, first
