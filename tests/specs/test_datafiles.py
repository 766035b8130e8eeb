"""Finding data files: near-miss names get a suggestion, a built-in asked for as a missing file is named."""

from __future__ import annotations

import pytest

from sim.errors import SpecError
from sim.specs.datafiles import nearest, resolve


def test_nearest():
    assert nearest("magam", ["classic", "magma"]) == "magma"
    assert nearest("hero-d6", ["hero-d8", "d6"]) in ("hero-d8", "d6")
    assert nearest("zzzz", ["classic", "magma"]) is None


def test_unknown_name_suggests_and_lists():
    with pytest.raises(SpecError, match=r"unknown board 'magam' \(did you mean 'magma'\? built-in: classic, magma\)"):
        resolve("board", "magam")


def test_missing_file_named_like_a_builtin(tmp_path):
    with pytest.raises(SpecError, match="there is a built-in experiment 'quickstart'"):
        resolve("experiment", tmp_path / "quickstart.toml")
    with pytest.raises(SpecError, match="a built-in experiment is named 'quickstart'"):
        resolve("experiment", tmp_path / "quikstart.toml")
    with pytest.raises(SpecError) as exc:
        resolve("board", tmp_path / "nothing-like-it.toml")
    assert str(exc.value).endswith("file not found")
