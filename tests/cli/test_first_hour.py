"""What a new user meets in the first hour: help without arguments, the version, near-miss names,
a built-in experiment asked for as a file, an unquoted JSON option, the public API in dir(sim)."""

from __future__ import annotations

import json

import pytest

import sim
from sim.cli.main import main, split_value_hint


def run(args, capsys):
    code = main(args)
    out = capsys.readouterr()
    return code, out.out, out.err


def test_no_arguments_prints_the_commands(capsys):
    code, out, err = run([], capsys)
    assert code == 0 and out.startswith("usage: dfsim") and "run" in out and "throw" in out and err == ""


def test_version(capsys):
    assert main(["--version"]) == 0  # argparse's exit status, returned (main never raises SystemExit)
    assert capsys.readouterr().out.strip() == f"dfsim {sim.__version__}"


@pytest.mark.parametrize("args, needle", [
    (["throw", "--board", "magam", "--seed", "1"], "did you mean 'magma'?"),
    (["throw", "--shot", "firewal", "--seed", "1"], "did you mean 'firewall'?"),
    (["run", "quikstart"], "did you mean 'quickstart'?"),
])
def test_unknown_names_suggest_the_nearest(args, needle, capsys):
    code, _, err = run(args, capsys)
    assert code == 2 and needle in err and err.count("\n") == 1


def test_no_suggestion_when_nothing_is_near(capsys):
    code, _, err = run(["throw", "--board", "zzzz", "--seed", "1"], capsys)
    assert code == 2 and "did you mean" not in err and "built-in: classic, magma" in err


def test_built_in_experiment_asked_for_as_a_file(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)  # not the repository: there is no quickstart.toml here
    for given in ("quickstart.toml", "experiments/quickstart.toml"):
        code, _, err = run(["run", given], capsys)
        assert code == 2 and "file not found" in err and "built-in experiment 'quickstart'" in err
    assert not (tmp_path / "results").exists()


RELEASE = {"position_mm": [-650, 0, 100], "velocity_mps": [1.5, 0, 0.7], "orientation_xyzw": [0, 0, 0, 1],
           "spin_radps": [0, 25, 0]}


def test_unquoted_release_names_the_option_and_quoting(capsys):
    # what the shell hands over for --release {"position_mm": [-650, 0, 100], ...} without quotes
    split = json.dumps(RELEASE).replace('"', "").split(" ")
    code, _, err = run(["throw", "--release", *split, "--json"], capsys)
    assert code == 2 and err.startswith("dfsim: --release:") and "single quotes" in err and err.count("\n") == 1
    assert split_value_hint(["throw", "--release", json.dumps(RELEASE)]) is None
    assert split_value_hint(["throw", "--seed", "3", "extra"]) is None
    code, _, err = run(["throw", "--seed", "3", "extra"], capsys)
    assert code == 2 and "unrecognized arguments: extra" in err


def test_partial_release_is_an_error(capsys):
    code, _, err = run(["throw", "--release", json.dumps({"position_mm": [-650, 0, 100]})], capsys)
    assert code == 2 and "velocity_mps: is required" in err and "spin_radps" in err


def test_dir_shows_the_public_api():
    names = dir(sim)
    for name in ("Scenario", "run_experiment", "thrower_for", "check_determinism", "SpecError", "__version__"):
        assert name in names
    assert all(hasattr(sim, n) for n in sim.__all__)
