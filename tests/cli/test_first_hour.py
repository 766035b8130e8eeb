"""What a new user meets in the first hour: help without arguments, the version, near-miss names,
a built-in experiment asked for as a file, an unquoted JSON option, the public API in dir(sim), the
README's Python example as a plain script."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import sim
from sim.cli.main import main, split_value_hint

REPO = Path(__file__).resolve().parents[2]


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


def test_the_readmes_python_example_runs_as_a_plain_script(tmp_path):
    """The README's Python block, typed into a file without `if __name__ == "__main__":` and run with
    python: worker processes must not run the script again (they would start the same experiment and
    break the pool). Only the experiment is made tiny (one variant, 4 throws); the rest is as written."""
    import re
    import subprocess
    import sys

    readme = (REPO / "README.md").read_text()
    code = re.search(r"```python\n(.*?)```", readme, re.S).group(1)
    assert '"experiments/quickstart.toml"' in code and "__main__" not in code
    (tmp_path / "tiny.toml").write_text('name = "tiny"\nseed = 3\nthrows = 4\nchunk_throws = 2\n\n[defaults]\n'
                                        'board = "magma"\ndice = ["hero-d8"]\nshots = ["standard"]\n'
                                        'skill = "casual"\n')
    (tmp_path / "example.py").write_text(code.replace('"experiments/quickstart.toml"', '"tiny.toml"')
                                         + 'print("records", len(res.records))\n')
    p = subprocess.run([sys.executable, "example.py"], cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr[-2000:]
    lines = p.stdout.strip().splitlines()
    assert lines[-1] == "records 4" and lines[-2].split()[0] in ("hit", "miss"), p.stdout
    assert "Error" not in p.stderr, p.stderr[-2000:]


def test_the_notebooks_extra_brings_what_opens_and_runs_notebooks():
    """`pip install -e ".[notebooks]"` (the README's line) brings Jupyter's notebook app and nbconvert,
    and the test lock pins them (so CI runs the notebooks with them)."""
    import re
    import sys

    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10 reads TOML with tomli (a dependency there)
        import tomli as tomllib

    extra = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["optional-dependencies"]["notebooks"]
    names = {re.split(r"[<>=;\[ ]", r, maxsplit=1)[0] for r in extra}
    assert {"notebook", "nbconvert", "nbclient", "ipykernel"} <= names, names
    lock = (REPO / "requirements" / "test.lock").read_text()
    for name in ("notebook", "nbconvert"):
        assert re.search(rf"^{name}==", lock, re.M), name
    assert 'pip install -e ".[notebooks]"' in (REPO / "README.md").read_text()
