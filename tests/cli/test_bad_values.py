"""Bad command-line values: each is one line on stderr naming what is wrong, exit status 2, nothing
written, and nothing run (these cases are refused before any world is built, so the table is fast)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from sim.cli.main import main
from sim.specs.datafiles import builtin_dir, read_toml

REPO = Path(__file__).resolve().parents[2]


def _toml_value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float) and not math.isfinite(v):
        return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf")
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    return "{" + ", ".join(f"{json.dumps(k)} = {_toml_value(x)}" for k, x in v.items()) + "}"


def _write(folder: Path, name: str, data: dict) -> str:
    f = folder / name
    f.write_text("\n".join(f"{json.dumps(k)} = {_toml_value(v)}" for k, v in data.items()) + "\n")
    return str(f)


def _experiment(**changes) -> dict:
    d = read_toml(builtin_dir("experiment") / "quickstart.toml")
    d.update(changes)
    return d


SET = "--set"
SEED = ["--seed", "1"]

# (id, argv, text the error line must contain). "{tmp}" in an argument is the test's input folder.
CASES: list[tuple[str, list[str], str]] = [
    # seeds and indices
    ("throw-negative-seed", ["throw", "--seed", "-1"], "--seed"),
    ("throw-seed-beyond-int64", ["throw", "--seed", str(2**64)], "--seed"),
    ("throw-seed-not-a-number", ["throw", "--seed", "x"], "--seed"),
    ("throw-negative-index", ["throw", *SEED, "--index", "-1"], "--index"),
    ("throw-index-beyond-int64", ["throw", *SEED, "--index", str(2**70)], "--index"),
    ("flip-negative-seed", ["flip", "fireball", "--seed", "-3"], "--seed"),
    ("flip-negative-index", ["flip", "fireball", *SEED, "--index", "-1"], "--index"),
    ("determinism-negative-seed", ["determinism", "--seed", "-1"], "--seed"),
    ("determinism-zero-throws", ["determinism", "--throws", "0"], "--throws"),
    ("determinism-negative-throws", ["determinism", "--throws", "-2"], "--throws"),
    ("determinism-unknown-shot", ["determinism", "--shot", "nope"], "unknown shot 'nope'"),
    ("determinism-unknown-board", ["determinism", "--board", "nope"], "unknown board 'nope'"),
    # bench
    ("bench-zero-throws", ["bench", "--throws", "0"], "--throws"),
    ("bench-negative-throws", ["bench", "--throws", "-1"], "--throws"),
    ("bench-zero-naive-throws", ["bench", "--naive-throws", "0"], "--naive-throws"),
    ("bench-a-billion-throws", ["bench", "--throws", "1000000000"], "--throws"),
    # place
    ("place-x-nan", ["place", "--x", "nan", "--y", "0"], "--x"),
    ("place-y-inf", ["place", "--x", "0", "--y", "inf"], "--y"),
    ("place-x-huge", ["place", "--x", "1e9", "--y", "0"], "--x"),
    ("place-y-huge-negative", ["place", "--x", "0", "--y=-1e300"], "--y"),
    ("place-yaw-nan", ["place", "--x", "0", "--y", "0", "--yaw", "nan"], "--yaw"),
    ("place-yaw-huge", ["place", "--x", "0", "--y", "0", "--yaw", "1e300"], "--yaw"),
    ("place-template-far", ["place", "--x", "0", "--y", "0", "--template", "fireball:1e9,0"], "--template"),
    ("place-template-yaw-huge", ["place", "--x", "0", "--y", "0", "--template", "fireball:0,0,1e300"], "--template"),
    ("place-template-nan", ["place", "--x", "0", "--y", "0", "--template", "fireball:nan,0"], "--template"),
    ("place-template-unknown", ["place", "--x", "0", "--y", "0", "--template", "nope:0,0"], "nope"),
    # flip
    ("flip-aim-nan", ["flip", "fireball", *SEED, "--aim", "nan,nan"], "--aim"),
    ("flip-aim-inf", ["flip", "fireball", *SEED, "--aim", "inf,0"], "--aim"),
    ("flip-aim-far", ["flip", "fireball", *SEED, "--aim", "1e9,0"], "--aim"),
    ("flip-aim-three-numbers", ["flip", "fireball", *SEED, "--aim", "1,2,3"], "--aim"),
    ("flip-unknown-template", ["flip", "nope", *SEED], "unknown template 'nope'"),
    ("flip-unknown-skill", ["flip", "fireball", *SEED, "--skill", "godlike"], "--skill"),
    ("fight-negative-seed", ["fight", "reference", "--engine", "physics", "--seed", "-1"], "--seed"),
    ("fight-zero-fights", ["fight", "reference", "--engine", "physics", "--fights", "0"], "--fights"),
    ("fight-negative-first", ["fight", "reference", "--engine", "physics", "--first", "-5"], "--first"),
    ("tune-negative-seed", ["tune", "--set", "skill.speed_sd_frac=0:1", "--target", "0.5", "--seed", "-1"], "--seed"),
    ("tune-target-nan", ["tune", "--set", "skill.speed_sd_frac=0:1", "--target", "nan"], "target"),
    ("converge-zero-throws", ["converge", "reference", "-n", "0"], "-n"),
    ("converge-factor-nan", ["converge", "reference", "--factor", "nan"], "--factor"),
    ("replay-negative-index", ["replay", "{tmp}", "--cell", "0", "--index", "-1"], "--index"),
    ("report-html-negative-sample", ["report-html", "{tmp}", "--sample", "-1"], "--sample"),
    # --set and --rule values
    ("set-nan", ["throw", *SEED, SET, "shot.release.distance_mm=nan"], "distance_mm"),
    ("set-inf", ["throw", *SEED, SET, "shot.release.height_mm=inf"], "height_mm"),
    ("set-lateral-huge", ["throw", *SEED, SET, "shot.release.lateral_mm=1e18"], "lateral_mm"),
    ("set-azimuth-huge", ["throw", *SEED, SET, "shot.release.azimuth_deg=1e18"], "azimuth_deg"),
    ("set-board-radius-1e9", ["throw", *SEED, SET, "board.outline.radius_mm=1e9"], "radius_mm"),
    ("set-board-thickness-text", ["throw", *SEED, SET, "board.thickness_mm=thick"], "thickness_mm"),
    ("set-die-size-1e9", ["throw", *SEED, SET, "die.size_mm=1e9"], "size_mm"),
    ("set-die-mass-nan", ["throw", *SEED, SET, "die.mass_g=nan"], "mass_g"),
    ("set-aim-point-without-aim", ["throw", *SEED, SET, "shot.release.aim=point"], "aim_mm"),
    ("set-step-hz-and-time", ["throw", *SEED, SET, "physics.step_hz=20000", SET, "physics.max_time_s=120"], "physics"),
    ("set-physics-nan", ["throw", *SEED, SET, "physics.max_time_s=nan"], "max_time_s"),
    ("set-skill-inf", ["throw", *SEED, SET, "skill.speed_sd_frac=inf"], "speed_sd_frac"),
    ("set-unknown-component", ["throw", *SEED, SET, "moon.phase=1"], "moon"),
    ("set-no-equals", ["throw", *SEED, SET, "shot.release.distance_mm"], "KEY=VALUE"),
    ("rule-nan", ["throw", *SEED, "--rule", "cocked_tolerance_deg=nan"], "cocked_tolerance_deg"),
    ("rule-int-beyond-int64", ["throw", *SEED, "--rule", f"bullseye_damage={2**70}"], "bullseye_damage"),
    ("rule-number-for-bool", ["throw", *SEED, "--rule", "icon_insta_kill=1"], "icon_insta_kill"),
    ("rule-unknown", ["throw", *SEED, "--rule", "gravity=0"], "gravity"),
    ("many-dice", ["throw", *SEED, *(["--die", "hero-d8"] * 40)], "dice"),
    ("many-shots", ["throw", *SEED, *(["--shot", "standard"] * 40)], "shots"),
    # --release
    ("release-fast", ["throw", "--release", json.dumps({"position_mm": [-650, 0, 100], "velocity_mps": [1e300, 0, 0],
                                                        "orientation_xyzw": [0, 0, 0, 1], "spin_radps": [0, 0, 0]})],
     "velocity_mps"),
    ("release-far", ["throw", "--release", json.dumps({"position_mm": [-1e12, 0, 100], "velocity_mps": [1, 0, 0],
                                                       "orientation_xyzw": [0, 0, 0, 1], "spin_radps": [0, 0, 0]})],
     "position_mm"),
    ("release-spin", ["throw", "--release", json.dumps({"position_mm": [-650, 0, 100], "velocity_mps": [1, 0, 0],
                                                        "orientation_xyzw": [0, 0, 0, 1], "spin_radps": [1e9, 0, 0]})],
     "spin_radps"),
    # --release: numbers are numbers, a key once
    ("release-true-for-a-number", ["throw", "--release", json.dumps({"position_mm": [-650, 0, 100],
                                                                     "velocity_mps": [True, 0, 0],
                                                                     "orientation_xyzw": [0, 0, 0, 1],
                                                                     "spin_radps": [0, 0, 0]})],
     "velocity_mps: must be a list of 3 numbers"),
    ("release-key-twice", ["throw", "--release", '{"position_mm": [-650, 0, 100], "position_mm": [-650, 0, 120], '
                           '"velocity_mps": [1, 0, 0], "orientation_xyzw": [0, 0, 0, 1], "spin_radps": [0, 0, 0]}'],
     "position_mm: is given twice"),
    ("release-nan-literal", ["throw", "--release", '{"position_mm": [-650, 0, NaN], "velocity_mps": [1, 0, 0], '
                             '"orientation_xyzw": [0, 0, 0, 1], "spin_radps": [0, 0, 0]}'], "NaN"),
    # where a thrower stands (the scenario's board decides)
    ("set-hand-over-the-board", ["throw", *SEED, SET, "shot.release.distance_mm=100"], "release.distance_mm"),
    ("set-bounce-behind-the-hand", ["throw", *SEED, SET, "shot.release.bounce_gap_mm=500"], "release.bounce_gap_mm"),
    ("check-shot-hand-over-the-board", ["check", "{tmp}/hand.toml"], "release.distance_mm"),
    ("run-shot-hand-over-the-board", ["run", "{tmp}/handexp.toml", "--out", "{out}"], "release.distance_mm"),
    # templates: no more pieces than the boxes hold unless marked homemade
    ("place-21-fireballs", ["place", "--x", "0", "--y", "0", *(["--template", "fireball:0,0"] * 21)], "--template"),
    ("place-3-fireballs", ["place", "--x", "0", "--y", "0", *(["--template", "fireball:0,0"] * 3)],
     "3 pieces of the Fireball template, but the boxes hold 2"),
    ("run-3-fireballs", ["run", "{tmp}/fireballs.toml", "--out", "{out}"], "defaults.templates: 3 pieces"),
    ("check-4-explosion-pieces", ["check", "{tmp}/explosions.toml"], "4 pieces of the Explosion template"),
    # empty selections
    ("set-empty-value", ["throw", *SEED, SET, "shot.release.distance_mm="], "no value after '='"),
    ("set-empty-key", ["throw", *SEED, SET, "=5"], "no key"),
    ("rule-empty-value", ["throw", *SEED, "--rule", "cocked="], "no value after '='"),
    ("fight-set-empty-value", ["fight", "reference", "--engine", "physics", SET, "difficulty="], "no value after '='"),
    ("fight-rule-empty-value", ["fight", "reference", "--engine", "physics", "--rule", "monster_life_bonus="],
     "no value after '='"),
    ("fight-set-json-key-twice", ["fight", "reference", "--engine", "physics", SET, 'room={"name": "a", "name": "b"}'],
     "given twice"),
    ("game-set-empty-value", ["game", "base", SET, "difficulty="], "no value after '='"),
    ("tune-set-empty-value", ["tune", SET, "skill.speed_sd_frac=0:1", SET, "skill.novice=", "--target", "0.5"],
     "no value after '='"),
    ("fight-policy-empty", ["fight", "reference", "--engine", "physics", "--policy", ""], "--policy: is empty"),
    ("fight-variant-empty", ["fight", "reference", "--records", "{tmp}/plainrun", "--variant="], "--variant: is empty"),
    ("game-policy-empty", ["game", "base", "--policy", "  "], "--policy: is empty"),
    ("sda-rolloff-stars-empty", ["sda-rolloff", "{tmp}/plainrun", "--stars", ""], "--stars: is empty"),
    ("tune-fight-empty", ["tune", "", SET, "monster.life=1:9", "--target", "0.5"], "an empty argument"),
    ("flip-aim-empty", ["flip", "fireball", *SEED, "--aim", ""], "--aim: is empty"),
    ("check-empty-argument", ["check", ""], "an empty argument"),
    ("validate-only-empty", ["validate", "--only", "", "--out", "{out}"], "--only"),
    ("validate-only-comma", ["validate", "--only", ",", "--out", "{out}"], "--only"),
    # reports over a run of another kind, or without what they read
    ("template-report-without-templates", ["template-report", "{tmp}/plainrun"], "no variant of this run lays"),
    ("shot-report-of-a-fight-run", ["shot-report", "{tmp}/fightrun"], "fight experiment"),
    ("template-report-of-a-fight-run", ["template-report", "{tmp}/fightrun"], "fight experiment"),
    ("sda-rolloff-of-a-fight-run", ["sda-rolloff", "{tmp}/fightrun"], "fight experiment"),
    ("replay-of-a-fight-run", ["replay", "{tmp}/fightrun", "--cell", "0", "--index", "0"], "fight experiment"),
    ("report-html-of-a-fight-run", ["report-html", "{tmp}/fightrun"], "fight experiment"),
    ("fight-records-of-a-fight-run", ["fight", "reference", "--records", "{tmp}/fightrun"], "fight experiment"),
    ("shot-report-resolved-key-twice", ["shot-report", "{tmp}/twicerun"], "given twice"),
    # reports and runs
    ("sda-stars-not-a-number", ["sda-rolloff", "{tmp}", "--stars", "star=x"], "--stars"),
    ("run-zero-workers", ["run", "quickstart", "--out", "{out}", "--workers", "0"], "--workers"),
    ("run-zero-max-throws", ["run", "quickstart", "--out", "{out}", "--max-throws", "0"], "--max-throws"),
    ("run-a-million-workers", ["run", "quickstart", "--out", "{out}", "--workers", "1000000"], "--workers"),
    ("run-override-nan", ["run", "{tmp}/nan.toml", "--out", "{out}"], "overrides"),
    ("run-sweep-1000-cells", ["run", "{tmp}/sweep.toml", "--out", "{out}"], "cells"),
    ("run-physics-steps", ["run", "{tmp}/steps.toml", "--out", "{out}"], "physics"),
    ("run-template-position-nan", ["run", "{tmp}/tplnan.toml", "--out", "{out}"], "templates.0.x_mm"),
    ("run-template-10-km", ["run", "{tmp}/tplfar.toml", "--out", "{out}"], "templates.0.x_mm"),
    ("run-rule-string-for-number", ["run", "{tmp}/rulestr.toml", "--out", "{out}"], "cocked_tolerance_deg"),
    ("run-seed-negative", ["run", "{tmp}/seed.toml", "--out", "{out}"], "seed"),
    ("run-board-material-unpaired", ["run", "{tmp}/goldexp.toml", "--out", "{out}"], "no pair"),
    ("run-slow-tokens-unknown-hole", ["run", "{tmp}/tokensexp.toml", "--out", "{out}"], "no hole 'hole-9'"),
    ("set-board-material-unpaired", ["throw", *SEED, SET, "board.material=gold"], "no pair"),
    # dfsim check
    ("check-binary", ["check", "{tmp}/binary.toml"], "UTF-8"),
    ("check-deep", ["check", "{tmp}/deep.toml"], "deep"),
    ("check-directory", ["check", "{tmp}"], "cannot read"),
    ("check-kind-number", ["check", "{tmp}/kind5.toml"], "kind"),
    ("check-shot-unknown-requirement", ["check", "{tmp}/req.toml"], "requirements.0"),
    ("check-shot-aim-point", ["check", "{tmp}/aim.toml"], "aim_mm"),
    ("check-prop-mat-hole", ["check", "{tmp}/mat.toml"], "shape.hole"),
    ("check-experiment-override-nan", ["check", "{tmp}/nan.toml"], "overrides"),
    ("check-experiment-1000-cells", ["check", "{tmp}/sweep.toml"], "cells"),
]


def _inputs(tmp: Path) -> None:
    """The files the table refers to."""
    _write(tmp, "nan.toml", _experiment(defaults={"overrides": {"shot.release.distance_mm": math.nan}}))
    _write(tmp, "sweep.toml", _experiment(sweep={"setting": "shot.release.distance_mm", "start": 500.0, "stop": 900.0,
                                                 "num": 500}))
    _write(tmp, "steps.toml", _experiment(defaults={"physics": {"step_hz": 20000, "max_time_s": 120}}))
    _write(tmp, "tplnan.toml", _experiment(defaults={"templates": [{"name": "fireball", "x_mm": math.nan, "y_mm": 0}]}))
    _write(tmp, "tplfar.toml", _experiment(defaults={"templates": [{"name": "fireball", "x_mm": 1e7, "y_mm": 0}]}))
    _write(tmp, "rulestr.toml", _experiment(defaults={"rules": {"cocked_tolerance_deg": "10"}}))
    _write(tmp, "seed.toml", _experiment(seed=-5))
    gold = _write(tmp, "gold.toml", {**read_toml(builtin_dir("board") / "magma.toml"), "material": "gold"})
    _write(tmp, "goldexp.toml", _experiment(defaults={"board": gold}))
    tokens = read_toml(builtin_dir("prop") / "slow-tokens.toml")
    tokens["shape"]["holes"] = ["hole-9"]
    tok = _write(tmp, "tokens.toml", {"kind": "prop", **tokens})
    shot = read_toml(builtin_dir("shot") / "slow-tokens.toml")
    shot["props"] = [tok]
    _write(tmp, "tokshot.toml", {"kind": "shot", **shot})
    _write(tmp, "tokensexp.toml", _experiment(defaults={"shots": [str(tmp / "tokshot.toml")]}))
    (tmp / "binary.toml").write_bytes(bytes(range(256)))
    (tmp / "deep.toml").write_text('name = "x"\nnotes = ' + "[" * 20_000 + "]" * 20_000 + "\n")
    _write(tmp, "kind5.toml", {**read_toml(builtin_dir("board") / "magma.toml"), "kind": 5})
    _write(tmp, "req.toml", {"kind": "shot", **read_toml(builtin_dir("shot") / "standard.toml"),
                             "requirements": ["levitate"]})
    std = read_toml(builtin_dir("shot") / "standard.toml")
    _write(tmp, "aim.toml", {"kind": "shot", **std, "release": {**std["release"], "aim": "point"}})
    _write(tmp, "hand.toml", {"kind": "shot", **std, "release": {**std["release"], "distance_mm": 100}})
    _write(tmp, "handexp.toml", _experiment(defaults={"shots": [str(tmp / "hand.toml")]}))
    laid = {"name": "fireball", "x_mm": 0, "y_mm": 0}
    _write(tmp, "fireballs.toml", _experiment(defaults={"templates": [laid] * 3}))
    _write(tmp, "explosions.toml", _experiment(defaults={"templates": [{"name": "explosion", "flip": True}] * 2}))
    _run_folder(tmp / "plainrun", {"format": 1, "cells": [{"index": 0, "name": "a", "inputs": {"board": "magma"}}]})
    _run_folder(tmp / "fightrun", {"format": 1, "kind": "fight", "cells": [{"index": 0, "variant": "a"}]})
    _run_folder(tmp / "twicerun", '{"format": 1, "cells": [], "cells": []}')
    mat = read_toml(builtin_dir("prop") / "puddle.toml")
    mat["shape"]["hole"] = {"x_mm": 900, "y_mm": 0, "rx_mm": 40, "ry_mm": 40}
    _write(tmp, "mat.toml", {"kind": "prop", **mat})


def _run_folder(folder: Path, resolved: dict | str) -> None:
    """What a finished run folder holds as far as a report looks before reading records: the resolved
    description (a fight run's says kind = "fight"), records.parquet, summary.json."""
    folder.mkdir()
    text = resolved if isinstance(resolved, str) else json.dumps(resolved)
    (folder / "experiment.resolved.json").write_text(text)
    (folder / "records.parquet").write_bytes(b"PAR1")
    (folder / "summary.json").write_text("{}")


@pytest.mark.parametrize("case, argv, needle", CASES, ids=[c[0] for c in CASES])
def test_bad_value_is_one_line_exit_2_nothing_written(case, argv, needle, tmp_path, monkeypatch, capsys):
    inputs = tmp_path / "in"
    inputs.mkdir()
    _inputs(inputs)
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    argv = [a.replace("{tmp}", str(inputs)).replace("{out}", str(work / "out")) for a in argv]
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse refuses a value
        code = exc.code
    out, err = capsys.readouterr()
    assert code == 2, f"exit {code}; stdout {out[:300]!r}; stderr {err[:300]!r}"
    lines = err.strip().splitlines()
    assert len(lines) == 1, err[:1000]
    assert needle in lines[0], lines[0]
    assert not list(work.iterdir()), f"wrote {list(work.iterdir())}"


def test_check_accepts_every_builtin_experiment(capsys):
    for f in sorted((REPO / "experiments").glob("*.toml")):
        assert main(["check", str(f)]) == 0, f
        assert "is a valid" in capsys.readouterr().out


def test_check_accepts_an_experiment_file_outside_the_repository(tmp_path, capsys):
    f = _write(tmp_path, "mine.toml", _experiment(name="mine", throws=10))
    assert main(["check", f]) == 0
    assert "valid experiment (2 cells" in capsys.readouterr().out


def test_a_fight_experiment_takes_the_kind_the_check_hint_suggests(tmp_path, capsys):
    """A fight experiment whose kind cannot be told from its keys gets the hint to add kind = "experiment";
    with it (or told by its `fight` key) the file is checked as the fight experiment it is, not refused."""
    head = ('name = "mine"\nfight = "reference"\nengine = "resample"\nthrows_from = "house-rules-throws"\n'
            "seed = 1\nfights = 10\n")  # no variants (one, the fight as it is), nothing that says "experiment"
    plain = tmp_path / "mine.toml"
    plain.write_text(head)
    assert main(["check", str(plain)]) == 0
    assert "valid fight experiment" in capsys.readouterr().out
    marked = tmp_path / "marked.toml"
    marked.write_text('kind = "experiment"\n' + head)
    assert main(["check", str(marked)]) == 0, capsys.readouterr().err
    assert "valid fight experiment" in capsys.readouterr().out
    unknown = tmp_path / "unknown.toml"
    unknown.write_text('name = "x"\n')
    assert main(["check", str(unknown)]) == 2
    hint = capsys.readouterr().err
    assert 'kind = "board" (or die, shot, experiment, ...)' in hint, hint
