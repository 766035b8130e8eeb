"""The solved aimed release and rebound calibration on disk (sim/diskcache.py): a cache hit is the
fresh solve to the bit, keys follow the scenario and the code, a corrupt entry is solved and written
again, concurrent writers never leave a torn entry."""

from __future__ import annotations

import json
import multiprocessing as mp
import warnings

import pytest

from sim import diskcache
from sim.engine.aim import AimSolver
from sim.engine.thrower import Thrower
from sim.specs.scenario import Scenario


def _bits(technique):
    return [float(x).hex() if isinstance(x, float) else x for x in technique.to_json()]


def test_cache_dir_follows_the_environment(tmp_path, monkeypatch):
    monkeypatch.delenv("DFSIM_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert diskcache.cache_dir() == tmp_path / "xdg" / "dfsim"
    monkeypatch.setenv("DFSIM_CACHE_DIR", str(tmp_path / "own"))
    assert diskcache.cache_dir() == tmp_path / "own"


def test_hit_is_the_fresh_solve_and_a_corrupt_entry_is_solved_again(cache, quick_aim):
    th = Thrower(quick_aim)
    fresh = th.technique()  # solved here (the folder is empty) and written
    key = th.technique_key()
    path = diskcache.entry_path("aim", key)
    assert path.exists() and diskcache.load("aim", key) == fresh.to_json()
    solves = []
    real = AimSolver.solve
    AimSolver.solve = lambda self, aim, skill: solves.append(1) or real(self, aim, skill)  # type: ignore[method-assign]
    try:
        hit = Thrower(quick_aim).technique()  # a new world, memory empty: read from disk
        assert solves == [] and _bits(hit) == _bits(fresh)
        # the world built from the cached rebound calibration throws exactly as a calibrated one
        Thrower.disk_cache = False
        try:
            calibrated = Thrower(quick_aim)
        finally:
            Thrower.disk_cache = True
        cached_world = Thrower(quick_aim)
        assert cached_world.physics.rebound == calibrated.physics.rebound
        for k in range(3):
            assert cached_world.throw(5, k).record() == calibrated.throw(5, k).record()
        # corrupt: warned, solved again, the same value, a whole entry written back
        path.write_text('{"key": "')
        with pytest.warns(UserWarning, match="corrupt"):
            again = Thrower(quick_aim).technique()
        assert solves == [1] and _bits(again) == _bits(fresh)
        assert json.loads(path.read_text())["value"] == fresh.to_json()
    finally:
        AimSolver.solve = real  # type: ignore[method-assign]


def test_key_follows_what_changes_the_aim(cache):
    base = Scenario.build(board="magma", dice=["hero-d8"], shots=["standard"], skill="casual")
    other_skill = Scenario.build(board="magma", dice=["hero-d8"], shots=["standard"], skill="expert")
    farther = Scenario.build(board="magma", dice=["hero-d8"], shots=["standard"], skill="casual",
                             overrides={"shot.release.distance_mm": 900})
    finer = base.with_physics(step_hz=base.physics.step_hz * 2)
    other_die = Scenario.build(board="magma", dice=["hero-d6"], shots=["standard"], skill="casual")

    def key(sc):
        return diskcache.entry_key((sc.aim_key, "Thrower", None))

    # the technique is solved under the thrower's own spread: a skill has its own
    assert len({key(base), key(other_skill), key(farther), key(finer), key(other_die)}) == 5
    salted = key(base)
    real = diskcache.CACHE_VERSION
    try:
        diskcache.CACHE_VERSION = real + 1
        diskcache.code_salt.cache_clear()
        assert key(base) != salted  # a new code version never reads old entries
    finally:
        diskcache.CACHE_VERSION = real
        diskcache.code_salt.cache_clear()
    assert key(base) == salted


def test_dice_of_one_body_share_a_technique_aimed_at_a_hit_not_at_damage(cache):
    """The box's Iron d8 is the hero d8's body with other faces: a hit does not read the faces, so one
    technique serves both; expected damage does (the Iron's +2 faces), so that objective keeps apart."""
    hero, iron = (Scenario.build(board="magma", dice=[d], shots=["standard"], skill="casual") for d in ("hero-d8", "iron-d8"))
    d6 = Scenario.build(board="magma", dice=["hero-d6"], shots=["standard"], skill="casual")
    assert hero.key != iron.key  # their records are their own
    assert hero.aim_key == iron.aim_key != d6.aim_key
    a, b = Thrower(hero), Thrower(iron)
    assert a.technique_key() == b.technique_key()
    a.aim.set_objective("damage")
    b.aim.set_objective("damage")
    assert a.technique_key() != b.technique_key()


def test_unreadable_entries_are_misses(cache):
    for text in ("", "[1, 2]", '{"key": "someone else", "value": 1}', "\x00\xff garbage"):
        path = diskcache.entry_path("aim", ["k"])
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        with pytest.warns(UserWarning):
            assert diskcache.load("aim", ["k"]) is None
    assert diskcache.store("aim", ["k"], [1.5, 2.5]) == path
    assert diskcache.load("aim", ["k"]) == [1.5, 2.5]


def test_an_unwritable_folder_costs_the_cache_only(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("DFSIM_CACHE_DIR", str(blocker))
    with pytest.warns(UserWarning, match="cannot write"):
        assert diskcache.store("aim", ["k"], [1.0, 2.0]) is None
    with pytest.warns(UserWarning, match="cannot be read"):
        assert diskcache.load("aim", ["k"]) is None


def _writer(folder: str, i: int, n: int) -> None:
    import os

    os.environ["DFSIM_CACHE_DIR"] = folder
    for j in range(n):
        diskcache.store("aim", ["shared"], [float(i), float(j), "x" * 2000])


def test_concurrent_writers_never_tear_an_entry(cache):
    n = 150
    ctx = mp.get_context("fork")
    procs = [ctx.Process(target=_writer, args=(str(cache), i, n)) for i in range(3)]
    for p in procs:
        p.start()
    seen = 0
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a torn entry would warn "corrupt": make it fail here
        while any(p.is_alive() for p in procs):
            value = diskcache.load("aim", ["shared"])
            if value is not None:
                assert value[0] in (0.0, 1.0, 2.0) and 0 <= value[1] < n and value[2] == "x" * 2000
                seen += 1
    for p in procs:
        p.join()
        assert p.exitcode == 0
    assert diskcache.load("aim", ["shared"])[1] == n - 1
    assert [f.name for f in (cache / "aim").iterdir() if f.name.endswith(".tmp")] == []  # no temporary file left
    assert seen > 0


def test_an_edited_data_file_gives_another_aim_key(tmp_path, monkeypatch):
    """The aim is keyed by what the skill, shot, board, die, prop and template files hold, not by their
    names: an edited built-in file is solved again, put back it finds its old entry."""
    import shutil
    from pathlib import Path

    from sim.specs import datafiles

    root = Path(datafiles.__file__).resolve().parents[2]
    for top in ("boards", "shots"):
        shutil.copytree(root / top, tmp_path / top)
    (tmp_path / "pyproject.toml").write_text("")
    monkeypatch.setattr(datafiles, "_REPO", tmp_path)

    def keys():
        plain = Scenario.build(board="magma", dice=["hero-d8"], shots=["firewall"], skill="casual")
        laid = Scenario.build(board="magma", dice=["hero-d8"], shots=["standard"], skill="casual",
                              templates=[{"name": "explosion", "x_mm": 0, "y_mm": 0, "aim": True}])
        return plain.aim_key, laid.aim_key

    first = keys()
    for rel, field, value in [("shots/skills/casual.toml", "azimuth_sd_deg", "7.0"),
                              ("shots/standard.toml", "distance_mm", "600"),
                              ("boards/magma.toml", "thickness_mm", "3.0"),
                              ("boards/dice/hero-d8.toml", "mass_g", "1.9"),
                              ("boards/props/firewall.toml", "height_mm", "40"),
                              ("boards/templates/explosion.toml", "thickness_mm", "3.0")]:
        f = tmp_path / rel
        before = f.read_text()
        lines = before.splitlines()
        i = next(i for i, line in enumerate(lines) if line.split("=")[0].strip() == field)
        lines[i] = f"{field} = {value}"
        f.write_text("\n".join(lines) + "\n")
        now = keys()
        # the firewall shot throws the standard release and the firewall prop; the template is laid
        # in the second only
        moved = {"shots/standard.toml": (False, True), "boards/props/firewall.toml": (True, False),
                 "boards/templates/explosion.toml": (False, True)}.get(rel, (True, True))
        assert tuple(a != b for a, b in zip(now, first)) == moved, rel
        f.write_text(before)
        assert keys() == first, rel
