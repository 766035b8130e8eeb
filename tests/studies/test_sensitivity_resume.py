"""dfsim sensitivity resumes: Ctrl-C keeps the finished chunks, the same command finishes the analysis,
and the table is the one an uninterrupted run writes."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from sim.studies.sensitivity import run_sensitivity

from .sensitivity_files import tiny


def _chunks(out: Path) -> int:
    d = out / "runs" / "part-0" / "chunks"
    return len(list(d.glob("c*.parquet"))) if d.is_dir() else 0


def _cmd(f: Path, out: Path) -> list[str]:
    return [sys.executable, "-m", "sim.cli", "sensitivity", str(f), "--out", str(out), "--workers", "2", "--quiet",
            "--no-figure"]


def test_interrupt_then_resume_gives_the_uninterrupted_table(tmp_path):
    f = tiny(tmp_path, throws=16, chunk=2, params=2)  # 6 points x 8 chunks: enough left to interrupt under load
    out = tmp_path / "cut"
    p = subprocess.Popen(_cmd(f, out), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         start_new_session=True,
                         # Ctrl-C as a terminal delivers it, even when the suite runs as a background job
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    t0 = time.time()
    while _chunks(out) < 1:
        if p.poll() is not None:
            pytest.fail(f"finished (status {p.returncode}) before it could be interrupted: {p.stderr.read()}")
        assert time.time() - t0 < 240
        time.sleep(0.05)
    os.killpg(p.pid, signal.SIGINT)
    _, err = p.communicate(timeout=120)
    assert p.returncode == 130, err
    assert "interrupted" in err and "resume" in err and "Traceback" not in err
    kept = _chunks(out)
    assert 1 <= kept < 48 and not (out / "sensitivity.csv").exists()
    assert json.loads((out / "runs" / "part-0" / "manifest.json").read_text())["state"] == "interrupted"
    r = subprocess.run(_cmd(f, out), capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    resumed = json.loads((out / "runs" / "part-0" / "manifest.json").read_text())
    assert resumed["state"] == "complete" and resumed["throws_run"] == 6 * 16 - 2 * kept
    ref = run_sensitivity(f, out=tmp_path / "whole", workers=2, quiet=True, figure=False)
    for name in ("sensitivity.csv", "samples.csv"):
        assert (out / name).read_bytes() == (ref.out / name).read_bytes(), name
