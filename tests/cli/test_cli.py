import json
import subprocess
import sys
from pathlib import Path

import pytest

from sim.cli.main import main

ROOT = Path(__file__).resolve().parents[2]


def run(args, capsys):
    code = main(args)
    out = capsys.readouterr()
    return code, out.out, out.err


CONTRACT = {"result", "reason", "section", "value", "face", "icon", "cocked", "template", "partial_template", "touching",
            "position_mm", "orientation_xyzw", "requirements", "damage", "seed"}


def test_throw_same_seed_identical_json(capsys):
    c1, o1, _ = run(["throw", "--seed", "5", "--json"], capsys)
    c2, o2, _ = run(["throw", "--seed", "5", "--json"], capsys)
    assert c1 == c2 == 0 and o1 == o2
    d = json.loads(o1)
    assert CONTRACT <= set(d) and d["seed"] == 5


def test_throw_release_replays_a_throw(capsys):
    _, o1, _ = run(["throw", "--seed", "11", "--index", "3", "--json"], capsys)
    d1 = json.loads(o1)
    _, o2, _ = run(["throw", "--release", json.dumps(d1["release"]), "--json"], capsys)
    d2 = json.loads(o2)
    for k in ("result", "reason", "section", "face", "position_mm", "orientation_xyzw"):
        assert d1[k] == d2[k]


def test_place_contract(capsys):
    code, out, _ = run(["place", "--board", "magma", "--die", "hero-d8", "--x", "0", "--y", "0", "--up", "icon", "--json"], capsys)
    d = json.loads(out)
    assert code == 0 and CONTRACT <= set(d)
    assert (d["result"], d["section"], d["damage"], d["insta_kill"], d["face"]) == ("hit", "bullseye", 10.0, True, "icon")


@pytest.mark.parametrize(
    "args, needle",
    [
        (["throw", "--board", "nope", "--seed", "1"], "unknown board 'nope'"),
        (["throw", "--die", "nodie", "--seed", "1"], "unknown die"),
        (["throw", "--skill", "godlike", "--seed", "1"], "unknown skill"),
        (["throw"], "--seed"),
        (["throw", "--release", "{bad json"], "--release"),
        (["throw", "--release", '{"position_mm": [1, 2]}'], "position_mm"),
        (["throw", "--seed", "1", "--rule", "cocked=sometimes"], "cocked"),
        (["throw", "--seed", "1", "--set", "shot.release.distance_mm=-5"], "distance_mm"),
        (["place", "--x", "0", "--y", "0", "--up", "seven"], "no face labelled 'seven'"),
        (["check", "does/not/exist.toml"], "file not found"),
    ],
)
def test_bad_input_one_line_exit_2(args, needle, capsys):
    code, out, err = run(args, capsys)
    assert code == 2 and out == ""
    assert needle in err and err.count("\n") == 1 and "Traceback" not in err


def test_missing_seed_is_exit_2(capsys):
    code, out, err = run(["throw"], capsys)
    assert code == 2 and "--seed" in err


@pytest.mark.parametrize(
    "content, needle",
    [
        ('name = "b"\nthickness_mm = 2\noutline = { shape = "circle", radius_mm = 100 }\n[[sections]]\nid = "a"\nvalue = 1\nshape = { kind = "circle", radius_mm = 50 }\n[[holes]]\nshape = { kind = "circle", center_mm = [200, 0], radius_mm = 10 }\n', "holes.0.shape"),
        ('name = "d"\nshape = "d6"\nsize_mm = 16\nmass_g = 5\nfaces = []\n', "faces"),
        ('name = "d"\nshape = "d6"\nsize_mm = 16\nmass_g = -5\nfaces = ["1","2","3","4","5","6"]\n', "mass_g"),
        ('name = "b"\nthickness_mm = 2\noutline = { shape = "circle", radius_mm = 100 }\n[[sections]]\nid = "a"\nvalue = 1\nshape = { kind = "polygon", points_mm = [[0,0],[10,10],[10,0],[0,10]] }\n', "sections.0.shape"),
        ("this is = = not toml", "not valid TOML"),
    ],
)
def test_check_bad_files(tmp_path, content, needle, capsys):
    f = tmp_path / "thing.toml"
    f.write_text(content)
    code, out, err = run(["check", str(f)], capsys)
    assert code == 2 and out == "" and needle in err and str(f) in err and err.count("\n") == 1


def test_check_builtins_and_listings(capsys):
    from sim.specs.datafiles import builtin_dir

    for kind in ("board", "die", "shot", "skill", "material"):
        d = builtin_dir(kind)
        for f in sorted(d.glob("*.toml")):
            code, out, err = run(["check", str(f)], capsys)
            assert code == 0, err
    for cmd in ("boards", "dice", "shots", "skills"):
        code, out, _ = run([cmd], capsys)
        assert code == 0 and out.strip()
        code, out, _ = run([cmd, "--json"], capsys)
        assert isinstance(json.loads(out), list)


def test_console_script_runs():
    r = subprocess.run([sys.executable, "-m", "sim.cli", "boards"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and "magma" in r.stdout


def test_subprocess_stdout_is_one_json_object_and_errors_one_line():
    r = subprocess.run([sys.executable, "-m", "sim.cli", "throw", "--seed", "2", "--json"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and r.stderr == ""
    assert json.loads(r.stdout)["seed"] == 2
    r = subprocess.run([sys.executable, "-m", "sim.cli", "throw", "--board", "nope", "--seed", "2"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and r.stdout == "" and r.stderr.count("\n") == 1 and "unknown board" in r.stderr


def test_no_command_leaves_temporary_files(tmp_path):
    """Flips, placed templates, throws and a run's workers build hull shapes through temporary files:
    none may stay."""
    import os

    tmp = tmp_path / "tmp"
    tmp.mkdir()
    env = {**os.environ, "TMPDIR": str(tmp)}
    for args in (["flip", "fireball", "--seed", "3", "--json"],
                 ["place", "--x", "0", "--y", "0", "--template", "weak-point:0,0,0", "--json"],
                 ["throw", "--shot", "firewall", "--seed", "1", "--json"],
                 # pool workers, killed when the run ends (sim/experiments/executor.py)
                 ["run", str(ROOT / "experiments" / "quickstart.toml"), "--max-throws", "2", "--workers", "2", "--no-figures",
                  "--out", str(tmp_path / "run")]):
        r = subprocess.run([sys.executable, "-m", "sim.cli", *args], capture_output=True, text=True, env=env, timeout=300)
        assert r.returncode == 0, r.stderr
    assert list(tmp.iterdir()) == []


def test_check_validates_experiment_files(capsys):
    """`dfsim check` accepts the shipped experiments (every scenario built) and refuses a broken one."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[2] / "experiments"
    assert main(["check", str(root / "quickstart.toml")]) == 0
    assert "valid experiment" in capsys.readouterr().out


def test_check_refuses_a_bad_experiment(tmp_path, capsys):
    bad = tmp_path / "bad.toml"
    bad.write_text('name = "bad"\nseed = 1\nthrows = 10\n[defaults]\nboard = "nope"\n[[variants]]\nname = "a"\n')
    assert main(["check", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "nope" in err


@pytest.mark.parametrize("cmd", ["boards", "dice", "shots", "skills", "templates", "props"])
def test_every_listing_line_describes_its_item(cmd, capsys):
    """No empty description column: after the name (and the estimate mark) each line says something."""
    code, out, _ = run([cmd], capsys)
    assert code == 0
    for line in out.strip().splitlines():
        words = line.replace("(estimated)", "").split()
        assert len(words) >= 3, (cmd, line)
