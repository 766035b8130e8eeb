"""`dfsim replay`, `dfsim report-html` and `dfsim throw --replay/--gif/--mp4`."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pandas as pd
import pytest

from sim.cli.main import main as dfsim
from sim.experiments.runner import run_experiment

# a fixed (not aimed) standard release: the run needs no aimed-release solve
FIXED_SHOT = ('name = "standard-fixed"\nrequirements = ["bounce-before-board"]\n[release]\n'
              'distance_mm = 650\nheight_mm = 100\naim = "none"\nspeed_mps = 1.7727\nelevation_deg = 10.0\nspin_rps = 4.0\n')


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory):
    d = tmp_path_factory.mktemp("viewer-cli-run")
    shot = d / "fixed.toml"
    shot.write_text(FIXED_SHOT)
    spec = {"name": "viewer-cli-run", "seed": 31, "throws": 2, "chunk_throws": 2,
            "defaults": {"board": "magma", "dice": ["hero-d8"], "shots": [str(shot)], "skill": "casual"},
            "variants": [{"name": "plain"}, {"name": "cup", "shots": ["cup"]}]}
    return run_experiment(spec, out=d / "out", workers=1, quiet=True)


def test_dfsim_replay_command(tiny_run, tmp_path, capsys):
    page = tmp_path / "r.html"
    assert dfsim(["replay", str(tiny_run.out), "--cell", "cup", "--index", "1", "--out", str(page)]) == 0
    assert page.is_file() and "same as the record" in capsys.readouterr().out
    assert dfsim(["replay", str(tiny_run.out), "--cell", "nope", "--index", "0"]) == 2
    assert "no cell 'nope'" in capsys.readouterr().err
    assert dfsim(["replay", str(tiny_run.out), "--cell", "plain", "--index", "0", "--out", str(tmp_path / "no" / "x.html")]) == 2
    assert "--out" in capsys.readouterr().err
    # a record that no longer matches: the command fails loudly, status 1, and writes nothing
    bad = tmp_path / "bad"
    shutil.copytree(tiny_run.out, bad)
    df = pd.read_parquet(bad / "records.parquet")
    df.loc[(df["cell_name"] == "plain") & (df["index"] == 0), "face"] = "not-a-face"
    df.to_parquet(bad / "records.parquet")
    assert dfsim(["replay", str(bad), "--cell", "plain", "--index", "0", "--out", str(tmp_path / "x.html")]) == 1
    assert "replay mismatch" in capsys.readouterr().err and not (tmp_path / "x.html").exists()
    # --allow-mismatch writes the page anyway, with the difference shown on it
    assert dfsim(["replay", str(bad), "--cell", "plain", "--index", "0", "--out", str(tmp_path / "x.html"),
                  "--allow-mismatch"]) == 0
    assert "DIFFERENT from the record" in capsys.readouterr().out and (tmp_path / "x.html").is_file()


def test_dfsim_report_html_command(tiny_run, tmp_path, capsys):
    copy = tmp_path / "run"
    shutil.copytree(tiny_run.out, copy)
    (copy / "report.html").unlink()
    assert dfsim(["report-html", str(copy), "--sample", "1"]) == 0
    text = (copy / "report.html").read_text()
    assert 'data-throw="c0-0"' in text and 'data-throw="c0-1"' not in text  # one throw per cell
    assert "wrote" in capsys.readouterr().out
    assert dfsim(["report-html", str(copy), "--sample", "-1"]) == 2
    assert "--sample" in capsys.readouterr().err
    assert dfsim(["report-html", str(tmp_path / "nowhere")]) == 2


def test_throw_command_writes_page_gif_and_mp4(tmp_path, capsys):
    import imageio.v3 as iio

    from sim.viewer.animation import mp4_available

    html_, gif, mp4 = tmp_path / "t.html", tmp_path / "t.gif", tmp_path / "t.mp4"
    args = ["throw", "--seed", "7", "--replay", str(html_), "--gif", str(gif), "--json"]
    if mp4_available():
        args += ["--mp4", str(mp4)]
    assert dfsim(args) == 0
    said = capsys.readouterr()
    plain = said.out
    json.loads(plain)  # stdout stays one JSON object; what was written is said on stderr
    wrote = [ln for ln in said.err.splitlines() if ln.startswith("dfsim: wrote ")]
    assert len(wrote) == 1 and str(html_) in wrote[0] and str(gif) in wrote[0], said.err
    assert html_.is_file() and gif.is_file()
    frames = iio.imread(gif, index=None)
    assert frames.shape[0] >= 10 and frames.shape[1:3] == (416, 560)
    assert frames[0].std() > 10 and np.abs(frames[0].astype(int) - frames[len(frames) // 2]).mean() > 0.05  # it moves
    if mp4_available():
        assert mp4.stat().st_size > 2000
    assert dfsim(["throw", "--seed", "7", "--json"]) == 0
    assert capsys.readouterr().out == plain  # recording the throw did not change it
    assert dfsim(["throw", "--seed", "7", "--replay", str(tmp_path / "no" / "t.html")]) == 2
    assert "does not exist" in capsys.readouterr().err and not (tmp_path / "no").exists()
