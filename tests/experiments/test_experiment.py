"""Experiment files: validation of malformed files (one line, file + field, exit 2, nothing written)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from sim.errors import SpecError
from sim.experiments.spec import load_experiment, parse_experiment, resolve_experiment

GOOD = """
name = "ok"
seed = 1
throws = 10
[defaults]
board = "magma"
dice = ["hero-d8"]
shots = ["standard"]
skill = "casual"
"""

BAD_BOARD = """
name = "Broken board"
thickness_mm = 2.0
outline = { shape = "circle", radius_mm = 280 }
[[sections]]
id = "centre"
value = "ten"
shape = { kind = "circle", radius_mm = 22 }
"""

# (case id, experiment text, expected field in the error line, expected words in the problem)
CASES = [
    ("not-toml", 'name = "x"\nseed = = 3\n', "", "not valid TOML"),
    ("missing-name", "seed = 1\nthrows = 10\n", "name", "required"),
    ("missing-seed", 'name = "x"\nthrows = 10\n', "seed", "required"),
    ("missing-throws", 'name = "x"\nseed = 1\n', "throws", "required"),
    ("zero-throws", 'name = "x"\nseed = 1\nthrows = 0\n', "throws", "greater than or equal to 1"),
    ("text-throws", 'name = "x"\nseed = 1\nthrows = "many"\n', "throws", "integer"),
    ("negative-seed", 'name = "x"\nseed = -1\nthrows = 5\n', "seed", "greater than or equal to 0"),
    ("unknown-top-key", 'name = "x"\nseed = 1\nthrows = 5\nthrwos = 5\n', "thrwos", "unknown key"),
    ("bad-name", 'name = "../evil"\nseed = 1\nthrows = 5\n', "name", "letters, digits"),
    ("zero-chunk", 'name = "x"\nseed = 1\nthrows = 5\nchunk_throws = 0\n', "chunk_throws", "greater than or equal to 1"),
    ("confidence", 'name = "x"\nseed = 1\nthrows = 5\nconfidence = 1.5\n', "confidence", "less than 1"),
    ("unknown-board", GOOD.replace('"magma"', '"nosuchboard"'), "defaults.board", "unknown board 'nosuchboard'"),
    ("unknown-skill", GOOD.replace('"casual"', '"godlike"'), "defaults.skill", "unknown skill 'godlike'"),
    ("unknown-die", GOOD.replace('"hero-d8"', '"d7"'), "defaults.dice", "unknown die 'd7'"),
    ("unknown-shot", GOOD.replace('["standard"]', '["teleport"]'), "defaults.shots", "unknown shot 'teleport'"),
    ("empty-dice", GOOD.replace('["hero-d8"]', "[]"), "defaults.dice", "at least 1 item"),
    ("defaults-unknown-key", GOOD + 'colour = "red"\n', "defaults.colour", "unknown key"),
    ("board-file-missing", GOOD.replace('"magma"', '"my_board.toml"'), "defaults.board", "file not found"),
    ("variant-no-name", GOOD + '[[variants]]\nskill = "expert"\n', "variants.0.name", "required"),
    ("variant-dup-name", GOOD + '[[variants]]\nname = "a"\n[[variants]]\nname = "a"\n', "variants.1.name", "duplicate"),
    ("variant-unknown-key", GOOD + '[[variants]]\nname = "a"\nskil = "expert"\n', "variants.0.skil", "unknown key"),
    ("variant-unknown-skill", GOOD + '[[variants]]\nname = "a"\n[[variants]]\nname = "b"\nskill = "pro"\n',
     "variants.1.skill", "unknown skill 'pro'"),
    ("override-text", GOOD + '[defaults.overrides]\n"shot.release.distance_mm" = "far"\n',
     "defaults.overrides.shot.release.distance_mm", "number"),
    ("override-no-dot", GOOD + "[defaults.overrides]\ndistance_mm = 900\n", "defaults.overrides", "dotted path"),
    ("override-component", GOOD + '[defaults.overrides]\n"wand.power" = 3\n',
     "defaults.overrides.wand.power", "unknown component"),
    ("override-typo", GOOD + '[[variants]]\nname = "far"\noverrides = { "shot.release.distnce_mm" = 900 }\n',
     "variants.0.overrides.shot.release.distnce_mm", "unknown key"),
    ("override-range", GOOD + '[[variants]]\nname = "far"\noverrides = { "shot.release.distance_mm" = -5 }\n',
     "variants.0.overrides.shot.release.distance_mm", "greater than 0"),
    ("rule-value", GOOD + '[defaults.rules]\ncocked = "sometimes"\n', "defaults.rules.cocked", "count"),
    ("rule-unknown", GOOD + "[defaults.rules]\nnonsense = 1\n", "defaults.rules.nonsense", "unknown key"),
    ("physics-range", GOOD + '[[variants]]\nname = "coarse"\nphysics = { step_hz = 5 }\n',
     "variants.0.physics.step_hz", "greater than or equal to 60"),
    ("unknown-template", GOOD + '[[variants]]\nname = "t"\ntemplates = [{ name = "nosuch", x_mm = 0, y_mm = 0 }]\n',
     "variants.0.templates.0.name", "unknown template 'nosuch'"),
    ("sweep-no-setting", GOOD + "[sweep]\nvalues = [1, 2]\n", "sweep.setting", "required"),
    ("sweep-both", GOOD + '[sweep]\nsetting = "shot.release.distance_mm"\nvalues = [600]\nstart = 1\n',
     "sweep", "not both"),
    ("sweep-num", GOOD + '[sweep]\nsetting = "shot.release.distance_mm"\nstart = 600\nstop = 900\nnum = 1\n',
     "sweep.num", "greater than or equal to 2"),
    ("sweep-empty", GOOD + '[sweep]\nsetting = "shot.release.distance_mm"\nvalues = []\n', "sweep.values",
     "at least 1 item"),
    ("sweep-typo", GOOD + '[sweep]\nsetting = "shot.release.nope_mm"\nvalues = [600, 700]\n', "sweep.setting",
     "unknown key"),
    ("sweep-out-of-range", GOOD + '[sweep]\nsetting = "shot.release.distance_mm"\nvalues = [600, -1]\n',
     "sweep.values", "greater than 0"),
    ("stop-width", GOOD + "[stop]\nwidth = 2\nmax_throws = 100\n", "stop.width", "less than 1"),
    ("stop-rate", GOOD + '[stop]\nrate = "awesome"\nwidth = 0.1\nmax_throws = 100\n', "stop.rate", "unknown rate"),
    ("stop-max", GOOD + "[stop]\nwidth = 0.1\nmax_throws = 5\n", "stop.max_throws", "at least throws"),
    ("bad-board-file", GOOD.replace('"magma"', '"broken_board.toml"'), "sections.0.value", "integer"),
]


def _write(tmp_path: Path, case: str, text: str) -> Path:
    (tmp_path / "broken_board.toml").write_text(textwrap.dedent(BAD_BOARD))
    p = tmp_path / f"{case}.toml"
    p.write_text(text)
    return p


def test_enough_cases():
    assert len(CASES) >= 20


@pytest.mark.parametrize("case,text,field,words", CASES, ids=[c[0] for c in CASES])
def test_malformed_experiment_cli(tmp_path, capsys, case, text, field, words):
    from sim.cli.main import main

    path = _write(tmp_path, case, text)
    out = tmp_path / "out"
    status = main(["run", str(path), "--out", str(out), "--quiet"])
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert status == 2
    assert len(lines) == 1, err
    line = lines[0]
    assert "Traceback" not in err
    # the bad file is named: the experiment itself, or the board file it points to
    named = str(tmp_path / "broken_board.toml") if case == "bad-board-file" else str(path)
    if case == "board-file-missing":
        named = "my_board.toml"
    assert named in line, line
    if field:
        assert f": {field}: " in line, line
    assert words in line, line
    assert not out.exists()


def test_malformed_subprocess_no_traceback(tmp_path):
    """The installed command line: one line on stderr, exit 2, no traceback, no folder."""
    text = dict((c[0], c[1]) for c in CASES)["variant-unknown-skill"]
    path = _write(tmp_path, "variant-unknown-skill", text)
    out = tmp_path / "out"
    r = subprocess.run([sys.executable, "-m", "sim.cli", "run", str(path), "--out", str(out)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2
    assert r.stderr.strip().count("\n") == 0, r.stderr
    assert "variants.1.skill" in r.stderr and str(path) in r.stderr
    assert "Traceback" not in r.stderr
    assert not out.exists()


def test_refuses_different_experiment_folder(tmp_path, capsys):
    """A folder holding another experiment's results is refused (exit 2) and left untouched."""
    from sim.cli.main import main
    from sim.experiments.spec import resolve_experiment
    from sim.experiments.store import Store

    a = tmp_path / "a.toml"
    a.write_text(GOOD)
    exp = resolve_experiment(a)
    out = tmp_path / "out"
    Store.prepare(out, exp)
    before = sorted(p.name for p in out.iterdir())
    b = tmp_path / "b.toml"
    b.write_text(GOOD.replace("seed = 1", "seed = 2"))
    assert main(["run", str(b), "--out", str(out), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "different experiment" in err and "--force" in err
    assert sorted(p.name for p in out.iterdir()) == before


def test_good_file_resolves_cells(tmp_path):
    p = tmp_path / "g.toml"
    p.write_text(GOOD + textwrap.dedent("""
        [[variants]]
        name = "casual"
        [[variants]]
        name = "expert"
        skill = "expert"
        [sweep]
        setting = "shot.release.distance_mm"
        start = 600
        stop = 900
        num = 4
    """))
    exp = resolve_experiment(p)
    assert [c.name for c in exp.cells] == [
        "casual@600", "casual@700", "casual@800", "casual@900",
        "expert@600", "expert@700", "expert@800", "expert@900",
    ]
    assert exp.cells[5].inputs["skill"] == "expert"
    assert exp.cells[5].inputs["overrides"] == {"shot.release.distance_mm": 700.0}
    assert len({c.key for c in exp.cells}) == 8
    # same file, same hash; a different seed, a different hash
    assert resolve_experiment(p).hash == exp.hash
    spec, _ = load_experiment(p)
    assert resolve_experiment(spec.model_copy(update={"seed": 99}), str(p)).hash != exp.hash


def test_variant_overrides_merge_onto_defaults(tmp_path):
    spec = parse_experiment({
        "name": "m", "seed": 1, "throws": 5,
        "defaults": {"overrides": {"skill.speed_sd_frac": 0.05}, "rules": {"cocked": "miss"}},
        "variants": [{"name": "v", "overrides": {"shot.release.distance_mm": 800}}],
    })
    exp = resolve_experiment(spec)
    assert exp.cells[0].inputs["overrides"] == {"skill.speed_sd_frac": 0.05, "shot.release.distance_mm": 800}
    assert exp.cells[0].inputs["rules"] == {"cocked": "miss"}
    assert exp.cells[0].description["skill"]["speed_sd_frac"] == 0.05


def test_max_throws_caps_and_changes_hash():
    spec = parse_experiment({"name": "m", "seed": 1, "throws": 500})
    full = resolve_experiment(spec)
    small = resolve_experiment(spec, max_throws=20)
    assert small.throws == 20 and small.hash != full.hash
    with pytest.raises(SpecError):
        resolve_experiment(spec, max_throws=0)


def test_shipped_experiments_validate():
    root = Path(__file__).resolve().parents[2] / "experiments"
    names = sorted(p.stem for p in root.glob("*.toml"))
    assert {"quickstart", "skill-levels", "throw-distance"} <= set(names)
    from sim.experiments.kinds import resolve_any

    for n in names:
        # by built-in name; a fight experiment validates its throw experiment too, a game experiment
        # every variant's game and its decks
        kind, exp = resolve_any(n)
        assert exp.specs if kind.name == "games" else exp.cells
        if kind.name == "throws":
            assert resolve_experiment(n).hash == exp.hash
