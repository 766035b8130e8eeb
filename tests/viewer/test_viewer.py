"""The viewer: recording never changes a throw, replays of a run are bit-exact, pages and clips are made
and (with Chromium installed) actually draw and play without errors."""

from __future__ import annotations

import importlib.util
import io
import os
import shutil
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from sim.engine.records import release_from_record
from sim.engine.release import Release
from sim.engine.run_folder import RunFolder
from sim.engine.worlds import build_thrower, thrower_for
from sim.errors import ReplayMismatch
from sim.experiments.runner import run_experiment
from sim.specs.scenario import Scenario
from sim.viewer.recorder import recording
from sim.viewer.replay import record_throw, replay_html, write_replay
from sim.viewer.report_html import choose_sample
from sim.viewer.runs import compare_outcome, replay_record, replay_throw
from sim.viewer.scene import scene_json


def _helper(name: str):
    """A helper module beside this file (pytest imports tests with --import-mode=importlib)."""
    spec = importlib.util.spec_from_file_location(f"dfsim_viewer_tests_{name}", Path(__file__).with_name(f"{name}.py"))
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


_chromium = _helper("chromium_pipe")
Browser, find_chromium = _chromium.Browser, _chromium.find_chromium

# A fixed (not aimed) standard release, so the run needs no aimed-release solve (seconds per cell)
FIXED_SHOT = ('name = "standard-fixed"\nrequirements = ["bounce-before-board"]\n[release]\n'
              'distance_mm = 650\nheight_mm = 100\naim = "none"\nspeed_mps = 1.7727\nelevation_deg = 10.0\nspin_rps = 4.0\n')


def _same_throw(a, b) -> None:
    assert a.record() == b.record()
    assert a.trace.events == b.trace.events
    assert a.trace.paths == b.trace.paths
    assert a.trace.path_t == b.trace.path_t


@pytest.mark.parametrize("shot", ["standard", "firewall", "cup"])
def test_recording_does_not_change_the_throw(shot):
    th = thrower_for(Scenario.build(shots=[shot]))
    for k in (0, 1):
        plain = th.throw(11, k)
        with recording(th) as rec:
            seen = th.throw(11, k)
        _same_throw(plain, seen)
        assert rec.trajectory is not None and th.recorder is None
        _same_throw(plain, th.throw(11, k))  # and nothing lingers after the recorder is gone


def test_recording_does_not_change_a_template_throw(tmp_path):
    """Two fresh worlds going through the same throws: a template world can carry contact state from one
    throw to the next (test below), so recorded and plain throws are compared with the same history."""
    shot = tmp_path / "fixed.toml"
    shot.write_text(FIXED_SHOT)
    # the template at the board's centre, where this fixed release's throws scatter around
    sc = Scenario.build(shots=[str(shot)], templates=[{"name": "weak-point", "x_mm": 0, "y_mm": 0}])
    warm = build_thrower(sc)
    warm.nominal()  # the aim is solved (cached) in a third world, so neither compared world has thrown before
    warm.physics.close()
    a, b = build_thrower(sc), build_thrower(sc)
    try:
        met = 0
        for k in range(12):  # both worlds go through the same throws: the same history
            plain = a.throw(5, k)
            res, traj = record_throw(b, 5, k)
            _same_throw(plain, res)
            if any(e.other == "template:weak-point" for e in res.trace.events):
                met += 1
                assert "template:weak-point" in traj.poses and traj.visible("template:weak-point")
        assert met > 0  # some of these throws meet the template
    finally:
        a.physics.close()
        b.physics.close()


def test_template_throw_does_not_depend_on_the_throws_before_it(tmp_path):
    shot = tmp_path / "fixed.toml"
    shot.write_text(FIXED_SHOT)
    th = build_thrower(Scenario.build(shots=[str(shot)], templates=[{"name": "weak-point", "x_mm": 120, "y_mm": 0}]))
    try:
        first = th.throw(5, 2)
        _same_throw(first, th.throw(5, 2))
    finally:
        th.physics.close()


def test_trajectory_frames_are_the_engine_poses():
    th = thrower_for(Scenario.build(shots=["standard"]))
    res, traj = record_throw(th, 3, 0, fps=60)
    t = traj.times_s
    assert t[0] == 0.0 and t[-1] == pytest.approx(res.outcome.time_s, abs=1e-12)
    steps = np.diff(t)[:-1]  # the last frame is the resting pose, wherever it falls
    assert np.allclose(steps, 1 / 60, atol=0.5 / 240)
    path, pt = res.trace.path("die:0"), res.trace.times()
    for k in range(1, len(t)):
        i = int(np.argmin(np.abs(pt - t[k])))
        assert pt[i] == t[k]
        assert tuple(traj.poses["die:0"][k, :3]) == tuple(path[i])  # the same floats the engine saw
    q = traj.poses["die:0"][-1, 3:]
    assert np.allclose(np.abs(q @ np.asarray(res.outcome.orientation_xyzw)), 1.0, atol=1e-6)
    kinds = {e.other.split(":")[0] for e in traj.events}
    assert "board" in kinds or "table" in kinds


def test_stored_release_converts_back_to_the_same_floats():
    rng = np.random.default_rng(1)
    for _ in range(2000):
        pos = tuple(float(v) for v in rng.uniform(-1.2, 1.2, 3))
        vel = tuple(float(v) for v in rng.normal(0, 2, 3))
        q = rng.normal(size=4)
        q = tuple(float(v) for v in q / np.linalg.norm(q))
        w = tuple(float(v) for v in rng.normal(0, 30, 3))
        r = Release(pos, vel, q, w)
        rec = {"rel_x_mm": r.position_m[0] * 1e3, "rel_y_mm": r.position_m[1] * 1e3, "rel_z_mm": r.position_m[2] * 1e3,
               "rel_vx_mps": vel[0], "rel_vy_mps": vel[1], "rel_vz_mps": vel[2],
               "rel_qx": q[0], "rel_qy": q[1], "rel_qz": q[2], "rel_qw": q[3],
               "rel_wx_radps": w[0], "rel_wy_radps": w[1], "rel_wz_radps": w[2]}
        assert release_from_record(rec) == r


def test_choose_sample_covers_every_reason_first():
    df = pd.DataFrame({"index": range(10), "reason": ["hit"] * 6 + ["off-board"] * 3 + ["in-hole"]})
    picks = choose_sample(df, 4)
    assert [df.loc[p, "reason"] for p in picks] == ["hit", "off-board", "in-hole", "hit"]
    assert [int(df.loc[p, "index"]) for p in picks] == [0, 6, 9, 1]
    assert choose_sample(df, 0) == [] and len(choose_sample(df, 50)) == 10


def test_scene_has_every_section_value_face_label_and_prop():
    th = thrower_for(Scenario.build(shots=["firewall"]))
    sc = scene_json(th)
    board = th.scenario.board
    labelled = {r["value"] for r in sc["board"]["regions"] if r["kind"] == "section" and r["labels"]}
    assert labelled == {s.value for s in board.sections}
    assert len(sc["board"]["holes"]) == len(board.holes)
    assert sum(r["kind"] == "bones" for r in sc["board"]["regions"]) == len(board.bones)
    die = sc["bodies"]["die:0"]
    assert [f["label"] for f in die["faces"]] == list(th.scenario.dice[0].faces)
    assert [f["icon"] for f in die["faces"]].count(True) == 1
    wall = sc["bodies"]["prop:firewall"]
    assert len(wall["mesh"]["v"]) >= 24 and len(wall["mesh"]["f"]) % 3 == 0


def test_replay_page_is_self_contained_and_small(tmp_path):
    th = thrower_for(Scenario.build(shots=["firewall"]))
    res, traj = record_throw(th, 7, 1)
    page = write_replay(tmp_path / "t.html", [(th, res, traj)])
    text = page.read_text()
    size = page.stat().st_size
    assert size < 400_000, size  # three.js is ~230 kB of it, packed
    assert "src=\"http" not in text and "href=\"http" not in text and "@import" not in text
    assert text.count("<script") == 5 and 'id="viewer"' in text
    with pytest.raises(ValueError):
        replay_html([])


# ------------------------------------------------------------------ runs ----
@pytest.fixture(scope="module")
def small_run(tmp_path_factory):
    """A tiny run (3 throws per cell): a plain board, the cup (a moving prop jittered per throw) and a
    flipped template; report.html with replays."""
    d = tmp_path_factory.mktemp("viewer-run")
    shot = d / "fixed.toml"
    shot.write_text(FIXED_SHOT)
    spec = {
        "name": "viewer-run", "seed": 31, "throws": 3, "chunk_throws": 3,
        "defaults": {"board": "magma", "dice": ["hero-d8"], "shots": [str(shot)], "skill": "casual"},
        "variants": [{"name": "plain"}, {"name": "cup", "shots": ["cup"]},
                     {"name": "flip", "templates": [{"name": "fireball", "flip": True}], "flip_bank": 4}],
    }
    return run_experiment(spec, out=d / "out", workers=1, quiet=True)


def test_run_throws_replay_bit_for_bit(small_run):
    run = RunFolder.open(small_run.out)
    for cell in ("plain", "cup"):
        for k in (2, 0, 1):  # out of order: a throw depends on (seed, index) only
            th, res, traj = replay_throw(run, cell, k)  # raises ReplayMismatch on any difference
            assert traj.duration_s == pytest.approx(res.outcome.time_s)
    cell = run.cell("cup")
    rec = run.record(cell, 1)
    rec["x_mm"] += 1e-9
    with pytest.raises(ReplayMismatch, match="x_mm"):
        replay_record(run.thrower(cell), rec)
    assert compare_outcome({"result": "hit"}, {"result": "miss"}) == ["result: recorded 'miss', replayed 'hit'"]


def test_report_html_has_tables_map_and_replays(small_run):
    page = small_run.out / "report.html"
    text = page.read_text()
    assert page.stat().st_size < 1_500_000
    for tid in ("c0-0", "c0-1", "c0-2", "c1-0", "c1-1", "c1-2"):
        assert f'data-throw="{tid}"' in text
    # template worlds may replay differently (docs/viewer.md): then the page says so, throw by throw
    for k in range(3):
        assert f'data-throw="c2-{k}"' in text or f"cell flip: throw {k} replayed differently" in text
    assert "<h2>Summary</h2>" in text and "data:image/png;base64," in text
    assert "report.html" in {p.name for p in small_run.out.iterdir()}


# ------------------------------------------------------------------ in a browser ----
CHROMIUM = find_chromium()
needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason="no chromium binary (Debian: apt-get install chromium)")


def _canvas_pixels(b: Browser, shot: Path) -> np.ndarray:
    import matplotlib.image as mpimg

    rect = b.evaluate("(() => { const c = document.querySelector('canvas.scene3d'); c.scrollIntoView({block: 'center'});"
                      " const r = c.getBoundingClientRect(); return [r.left, r.top, r.width, r.height]; })()")
    b.pump(0.3)
    b.screenshot(shot)
    img = mpimg.imread(io.BytesIO(shot.read_bytes()))[:, :, :3]
    x, y, w, h = (int(round(v)) for v in rect)
    return img[y + 60: y + h - 2, x + 2: x + w - 2]  # below the outcome banner


def _keep(shot: Path) -> None:
    """DFSIM_SCREENSHOTS=DIR keeps the screenshots for a person to look at."""
    where = os.environ.get("DFSIM_SCREENSHOTS")
    if where:
        Path(where).mkdir(parents=True, exist_ok=True)
        shutil.copy(shot, Path(where) / shot.name)


def _drawn(px: np.ndarray) -> None:
    grey = px.mean(axis=2)
    colours = len(np.unique((px * 255).astype(np.uint8).reshape(-1, 3), axis=0))
    assert grey.std() > 0.08 and colours > 200, (grey.std(), colours)  # a blank canvas: ~0 and 1


@needs_chromium
def test_replay_page_draws_and_plays_in_chromium(tmp_path):
    # a prop (the Firewall) and a laid template (Weak Point) in the scene
    th = thrower_for(Scenario.build(shots=["firewall"], skill="expert", templates=[{"name": "weak-point", "x_mm": 120, "y_mm": 0}]))
    res, traj = record_throw(th, 7, 1)
    page = write_replay(tmp_path / "replay.html", [(th, res, traj)])
    with Browser(CHROMIUM) as b:
        b.open(page.as_uri())
        assert b.wait_for("['ready', 'error'].includes(document.body.dataset.state) && document.body.dataset.state") == "ready"
        start = _canvas_pixels(b, tmp_path / "replay-start.png")
        b.evaluate("dfsimViewer.play()")
        b.wait_for("document.body.dataset.state === 'ended'", timeout=120)
        assert float(b.evaluate("document.body.dataset.time")) == pytest.approx(traj.duration_s, abs=1e-3)
        assert int(b.evaluate("document.body.dataset.renders")) > 5
        # the camera follows the die: at the release and at rest it is in the middle of the view
        where = ("(() => { const v = dfsimViewer, p = v.objects.get(v.throw.dice[0]).position.clone();"
                 " p.project(v.camera); return [p.x, p.y]; })()")
        for t in (0.0, traj.duration_s):
            b.evaluate(f"dfsimViewer.seek({t})")
            x, y = b.evaluate(where)
            assert abs(x) < 0.05 and abs(y) < 0.05, (t, x, y)
        b.evaluate(f"dfsimViewer.seek({traj.duration_s / 2})")
        mid = _canvas_pixels(b, tmp_path / "replay-mid.png")
        _drawn(mid)
        assert np.abs(mid - start).mean() > 1e-4  # the die moved, the path grew
        b.pump(0.5)
        assert b.errors == [] and b.evaluate("document.getElementById('errorbox').textContent") == ""
    _keep(tmp_path / "replay-mid.png")


@needs_chromium
def test_report_page_opens_a_throw_in_chromium(small_run, tmp_path):
    with Browser(CHROMIUM, height=1000) as b:
        b.open((small_run.out / "report.html").as_uri() + "#speed=1")
        assert b.wait_for("['ready', 'error'].includes(document.body.dataset.state) && document.body.dataset.state") == "ready"
        # the template cell's first replayed throw if it has one, else the cup's second
        b.evaluate("document.querySelector('.cell-tabs button[data-cell=\"flip\"]').click()")
        dot = b.evaluate("(document.querySelector('.landing[data-cell=\"flip\"] .sample') || "
                         "document.querySelector('.sample[data-throw=\"c1-1\"]')).dataset.throw")
        b.evaluate(f"document.querySelector('.sample[data-throw=\"{dot}\"]').dispatchEvent(new MouseEvent('click'))")
        cell, k = {"c2": "flip", "c1": "cup"}[dot.split("-")[0]], dot.split("-")[1]
        assert b.evaluate("document.body.dataset.throw") == f"{cell} throw {k}"
        b.wait_for("document.body.dataset.state === 'ended'", timeout=120)
        _drawn(_canvas_pixels(b, tmp_path / "report.png"))
        assert b.errors == [] and b.evaluate("document.getElementById('errorbox').textContent") == ""
    _keep(tmp_path / "report.png")


def test_prop_meshes_are_read_back_from_the_world():
    th = thrower_for(Scenario.build(shots=["cup"]))
    g = th.physics.body_geometry("prop:cup")
    assert g is not None and g.mesh is None and len(g.boxes) > 4  # a compound of boxes: base and wall
    board = th.physics.body_geometry("board")
    assert th.physics.body_geometry("die:0") is None and board.mesh is None and len(board.hulls) > 1  # convex pieces
    sc = scene_json(th)
    cup = sc["bodies"]["prop:cup"]
    assert len(cup["mesh"]["f"]) == 36 * len(g.boxes)  # 12 triangles per box
    assert th.physics.mass_kg("prop:cup") > 0 and th.physics.mass_kg("board") == 0


def test_a_fresh_world_replays_a_template_throw_exactly(tmp_path):
    # Thrower.replay lays or flips the templates of throw (seed, index) as Thrower.throw does
    shot = tmp_path / "fixed.toml"
    shot.write_text(FIXED_SHOT)
    shot_sc = Scenario.build(shots=[str(shot)], templates=[{"name": "fireball", "flip": True}], flip_bank=4)
    thrown = build_thrower(shot_sc).throw(31, 2)
    replayed = build_thrower(shot_sc).replay(thrown.releases, 31, 2)
    assert replayed.record() == thrown.record() and any(k.startswith("tpl_") for k in thrown.record())


def _die_box_px(frame, t: float) -> tuple[float, float, float, float]:
    """The die's bounding box on the picture (pixels, origin bottom left) as drawn at time `t`."""
    from mpl_toolkits.mplot3d import proj3d

    frame.draw(t)
    traj, ax = frame.traj, frame.ax
    die = traj.dice[0]
    k = int(np.clip(np.searchsorted(traj.times_s, t, side="right") - 1, 0, len(traj.times_s) - 1))
    pos, rot = traj.poses[die][k, :3] * 1e3, _quat_matrix(traj.poses[die][k, 3:7])
    corners = np.concatenate([np.asarray(f["corners"]) for f in frame.scene["bodies"][die]["faces"]]) @ rot.T + pos
    x, y, _ = proj3d.proj_transform(corners[:, 0], corners[:, 1], corners[:, 2], ax.get_proj())
    px = ax.transData.transform(np.c_[x, y])
    return px[:, 0].min(), px[:, 1].min(), px[:, 0].max(), px[:, 1].max()


def _quat_matrix(q):
    from sim.specs.die import quat_to_matrix

    return quat_to_matrix(q)


def test_the_clip_frames_the_die_from_the_first_frame_to_the_die_at_rest():
    """The camera follows the die: inside the picture at the release and at rest, and at rest large
    enough to read (not a few pixels)."""
    from sim.viewer.animation import SIZE_PX, _Frame

    th = thrower_for(Scenario.build(shots=["standard"]))
    # a throw that rests on the board (one that rolls off far away is framed from farther out)
    k = next(k for k in range(20) if th.throw(7, k).outcome.result == "hit")
    with recording(th) as rec:
        res = th.throw(7, k)
    frame = _Frame(th, rec.trajectory, res)
    try:
        w, h = SIZE_PX
        for t in (0.0, rec.trajectory.duration_s):
            x0, y0, x1, y1 = _die_box_px(frame, t)
            assert 0 <= x0 < x1 <= w and 0 <= y0 < y1 <= h, (t, (x0, y0, x1, y1))
        assert min(x1 - x0, y1 - y0) >= 14, (x0, y0, x1, y1)  # the die at rest
    finally:
        frame.close()


def test_report_html_map_is_oriented_as_the_landing_figure():
    """Thrower on the left, throw direction to the right, +y up: as in figures/landing.png."""
    import re

    from sim.viewer.report_html import landing_svg

    svg = landing_svg(None, np.array([[-200.0, 50.0]]), [{"id": "c0-1", "x_mm": 150.0, "y_mm": -80.0,
                                                         "result": "hit", "title": "t"}], 400.0)
    cx, cy = (float(v) for v in re.search(r'class="sample hit"[^>]* cx="([-\d.]+)" cy="([-\d.]+)"', svg).groups())
    assert (cx, cy) == (150.0, 80.0)  # SVG y grows downward: -80 mm (right of the throw) is below the middle
    dot = re.search(r'<g class="bg"><circle cx="([-\d.]+)" cy="([-\d.]+)"', svg).groups()
    assert tuple(map(float, dot)) == (-200.0, -50.0)
    assert "← thrower" in svg
