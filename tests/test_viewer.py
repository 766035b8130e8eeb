"""The viewer: recording never changes a throw, replays of a run are bit-exact, pages and clips are made
and (with Chromium installed) actually draw and play without errors."""

from __future__ import annotations

import io
import os
import shutil
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from sim.cli import main as dfsim
from sim.release import Release
from sim.runner import run_experiment
from sim.scenario import Scenario
from sim.viewer.recorder import recording
from sim.viewer.replay import record_throw, replay_html, write_replay
from sim.viewer.report_html import choose_sample
from sim.viewer.runs import ReplayMismatch, RunFolder, compare_outcome, release_from_record, replay_record
from sim.viewer.scene import scene_json

sys.path.insert(0, str(Path(__file__).parent))
from chromium_pipe import Browser, find_chromium  # noqa: E402

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
    th = Scenario.build(shots=[shot]).thrower()
    for k in (0, 1):
        plain = th.throw(11, k)
        with recording(th) as rec:
            seen = th.throw(11, k)
        _same_throw(plain, seen)
        assert rec.trajectory is not None and th.recorder is None
        _same_throw(plain, th.throw(11, k))  # and nothing lingers after the recorder is gone


def test_recording_does_not_change_a_template_throw(tmp_path):
    shot = tmp_path / "fixed.toml"
    shot.write_text(FIXED_SHOT)
    th = Scenario.build(shots=[str(shot)], templates=[{"name": "weak-point", "x_mm": 120, "y_mm": 0}]).thrower()
    plain = th.throw(5, 2)
    res, traj = record_throw(th, 5, 2)
    _same_throw(plain, res)
    assert "template:weak-point" in traj.poses and traj.visible("template:weak-point")


def test_trajectory_frames_are_the_engine_poses():
    th = Scenario.build(shots=["standard"]).thrower()
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
    th = Scenario.build(shots=["firewall"]).thrower()
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
    th = Scenario.build(shots=["firewall"]).thrower()
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
                     {"name": "flip", "templates": [{"name": "fireball", "flip": True}]}],
    }
    return run_experiment(spec, out=d / "out", workers=1, quiet=True)


def test_run_throws_replay_bit_for_bit(small_run):
    run = RunFolder.open(small_run.out)
    for cell in ("plain", "cup"):
        for k in (2, 0, 1):  # out of order: a throw depends on (seed, index) only
            th, res, traj = run.replay(cell, k)  # raises ReplayMismatch on any difference
            assert traj.duration_s == pytest.approx(res.outcome.time_s)
    cell = run.cell("cup")
    rec = run.record(cell, 1)
    rec["x_mm"] += 1e-9
    with pytest.raises(ReplayMismatch, match="x_mm"):
        replay_record(run.thrower(cell), rec)
    assert compare_outcome({"result": "hit"}, {"result": "miss"}) == ["result: recorded 'miss', replayed 'hit'"]


def test_dfsim_replay_command(small_run, tmp_path, capsys):
    page = tmp_path / "r.html"
    assert dfsim(["replay", str(small_run.out), "--cell", "flip", "--index", "2", "--out", str(page)]) == 0
    assert page.is_file() and "same as the record" in capsys.readouterr().out
    assert dfsim(["replay", str(small_run.out), "--cell", "nope", "--index", "0"]) == 2
    assert "no cell 'nope'" in capsys.readouterr().err
    # a record that no longer matches: the command fails loudly, status 1
    bad = tmp_path / "bad"
    shutil.copytree(small_run.out, bad)
    df = pd.read_parquet(bad / "records.parquet")
    df.loc[(df["cell_name"] == "plain") & (df["index"] == 0), "face"] = "not-a-face"
    df.to_parquet(bad / "records.parquet")
    assert dfsim(["replay", str(bad), "--cell", "plain", "--index", "0", "--out", str(tmp_path / "x.html")]) == 1
    assert "replay mismatch" in capsys.readouterr().err and not (tmp_path / "x.html").exists()
    # --allow-mismatch writes the page anyway, with the difference shown on it
    assert dfsim(["replay", str(bad), "--cell", "plain", "--index", "0", "--out", str(tmp_path / "x.html"),
                  "--allow-mismatch"]) == 0
    assert "DIFFERENT from the record" in capsys.readouterr().out and (tmp_path / "x.html").is_file()


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


def test_throw_command_writes_page_gif_and_mp4(tmp_path, capsys):
    import imageio.v3 as iio

    from sim.viewer.animation import mp4_available

    html_, gif, mp4 = tmp_path / "t.html", tmp_path / "t.gif", tmp_path / "t.mp4"
    args = ["throw", "--seed", "7", "--replay", str(html_), "--gif", str(gif), "--json"]
    if mp4_available():
        args += ["--mp4", str(mp4)]
    assert dfsim(args) == 0
    assert html_.is_file() and gif.is_file()
    frames = iio.imread(gif, index=None)
    assert frames.shape[0] >= 10 and frames.shape[1:3] == (416, 560)
    assert frames[0].std() > 10 and np.abs(frames[0].astype(int) - frames[len(frames) // 2]).mean() > 0.05  # it moves
    if mp4_available():
        assert mp4.stat().st_size > 2000
    capsys.readouterr()
    assert dfsim(["throw", "--seed", "7", "--replay", str(tmp_path / "no" / "t.html")]) == 2
    assert "does not exist" in capsys.readouterr().err and not (tmp_path / "no").exists()


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
    th = Scenario.build(shots=["firewall"], skill="expert", templates=[{"name": "weak-point", "x_mm": 120, "y_mm": 0}]).thrower()
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
