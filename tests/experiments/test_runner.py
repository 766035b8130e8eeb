"""The runner: identical records whatever the executor or worker count; resume after Ctrl-C / kill -9."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pytest

from sim.engine.worlds import thrower_for
from sim.experiments.runner import chunk_bounds, run_experiment
from sim.experiments.spec import parse_experiment, resolve_experiment
from sim.experiments.statistics import wilson

EXPERIMENT = """
name = "runner-test"
seed = 4242
throws = 24
chunk_throws = 4

[defaults]
board = "magma"
dice = ["hero-d8"]
shots = ["standard"]
skill = "casual"

[[variants]]
name = "casual"

[[variants]]
name = "expert"
skill = "expert"
"""


@pytest.fixture(scope="module")
def exp_file(tmp_path_factory) -> Path:
    p = tmp_path_factory.mktemp("exp") / "runner-test.toml"
    p.write_text(EXPERIMENT)
    return p


@pytest.fixture(scope="module")
def reference(exp_file, tmp_path_factory):
    """An uninterrupted 2-worker run: the records every other run must reproduce."""
    out = tmp_path_factory.mktemp("ref") / "out"
    return run_experiment(exp_file, out=out, workers=2, quiet=True)


def _same(a: pd.DataFrame, b: pd.DataFrame) -> None:
    pd.testing.assert_frame_equal(a.reset_index(drop=True), b.reset_index(drop=True), check_exact=True)


def test_reference_run_is_complete(reference):
    df = reference.records
    assert len(df) == 48
    # throw order: cell by cell, indices 0..23 in order; both cells use the same throw indices
    assert list(df["cell"]) == [0] * 24 + [1] * 24
    assert list(df["index"]) == list(range(24)) * 2
    assert set(df["variant"]) == {"casual", "expert"}
    assert (df["seed"] == 4242).all()
    for name in ("records.parquet", "summary.json", "report.md", "report.html", "experiment.resolved.json",
                 "experiment.toml", "manifest.json", "figures/landing.png", "figures/comparison.png"):
        assert (reference.out / name).is_file(), name
    manifest = json.loads((reference.out / "manifest.json").read_text())
    assert manifest["state"] == "complete" and manifest["experiment_hash"] == reference.experiment.hash
    s = reference.summary
    assert [v["n"] for v in s["variants"]] == [24, 24]
    hits = int((df[df["cell"] == 0]["result"] == "hit").sum())
    assert s["variants"][0]["hit_rate"]["count"] == hits
    assert s["variants"][0]["hit_rate"]["lo"] == pytest.approx(wilson(hits, 24).lo)
    assert s["differences"][0]["n_pairs"] == 24


def test_records_match_bare_engine(reference):
    """The runner's records are exactly what the engine gives in this process for (seed, k)."""
    from sim.specs.scenario import Scenario

    cell = reference.experiment.cells[1]
    thrower = thrower_for(Scenario.build(**cell.inputs))
    df = reference.records
    for k in (0, 7, 23):
        rec = thrower.throw(4242, k).record()
        row = df[(df["cell"] == 1) & (df["index"] == k)].iloc[0]
        for key, value in rec.items():
            assert row[key] == value, (k, key)


def test_one_worker_identical(exp_file, reference, tmp_path):
    res = run_experiment(exp_file, out=tmp_path / "one", workers=1, quiet=True)
    _same(res.records, reference.records)
    assert res.summary["variants"] == reference.summary["variants"]


def test_dask_local_cluster_identical(exp_file, reference, tmp_path):
    pytest.importorskip("dask.distributed")
    res = run_experiment(exp_file, out=tmp_path / "dask", workers=2, executor="dask", quiet=True)
    _same(res.records, reference.records)


def test_dask_scheduler_address_identical(exp_file, reference, tmp_path):
    """--scheduler: connect to a running cluster (here one started by the test)."""
    distributed = pytest.importorskip("dask.distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:
        res = run_experiment(exp_file, out=tmp_path / "addr", executor="dask",
                             scheduler=cluster.scheduler_address, quiet=True, figures=False)
    _same(res.records, reference.records)


def test_command_line_errors(exp_file, tmp_path, capsys):
    from sim.cli.main import main

    for argv, words in ((["--scheduler", "tcp://127.0.0.1:1"], "--scheduler: needs --executor dask"),
                        (["--workers", "0"], "--workers: must be at least 1")):
        out = tmp_path / "o"
        assert main(["run", str(exp_file), "--out", str(out), "--quiet", *argv]) == 2
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and words in err, err
        assert not out.exists()


def _chunks(out: Path) -> int:
    d = out / "chunks"
    return len(list(d.glob("c*.parquet"))) if d.is_dir() else 0


def _interruptible() -> None:
    """In the child: Ctrl-C as a terminal delivers it, whatever the suite was started with (a shell's
    background job ignores SIGINT, and a child inherits that, so the run would ignore the test's signal)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _start(exp_file: Path, out: Path) -> subprocess.Popen:
    return subprocess.Popen(
        # one worker: the interrupted runs go at half the pace (the whole run is about a second), and
        # their records must still be the 2-worker reference's
        [sys.executable, "-m", "sim.cli", "run", str(exp_file), "--out", str(out), "--workers", "1", "--quiet"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
        preexec_fn=_interruptible,
    )


def _wait_for_chunks(proc: subprocess.Popen, out: Path, n: int, timeout: float = 120) -> None:
    t0 = time.time()
    while _chunks(out) < n:
        if proc.poll() is not None:
            pytest.fail(f"run ended (status {proc.returncode}) before it could be interrupted: {proc.stderr.read()}")
        assert time.time() - t0 < timeout
        time.sleep(0.01)


def test_interrupt_then_kill_then_resume_identical(exp_file, reference, tmp_path):
    out = tmp_path / "killed"
    # 1. Ctrl-C (SIGINT to the whole process group, as a terminal does): clean stop, chunks kept
    p = _start(exp_file, out)
    _wait_for_chunks(p, out, 2)
    # the whole run takes about a second: stop the group where it stands, so the signal finds it running
    # (it once ended first on a loaded machine), then let it go on to handle the signal
    os.killpg(p.pid, signal.SIGSTOP)
    os.killpg(p.pid, signal.SIGINT)
    os.killpg(p.pid, signal.SIGCONT)
    _, err = p.communicate(timeout=60)
    assert p.returncode == 130, err
    assert "interrupted" in err and "resume" in err and "Traceback" not in err
    kept = _chunks(out)
    assert 2 <= kept < 12
    assert not (out / "records.parquet").exists()
    assert json.loads((out / "manifest.json").read_text())["state"] == "interrupted"
    # 2. resume, then kill -9 the whole group mid-way
    p = _start(exp_file, out)
    _wait_for_chunks(p, out, kept + 2)
    os.killpg(p.pid, signal.SIGSTOP)  # as above: killed where it stands, not after it has finished
    os.killpg(p.pid, signal.SIGKILL)
    p.wait(timeout=30)
    assert not (out / "records.parquet").exists()
    assert _chunks(out) < 12
    # 3. resume to the end: exactly the uninterrupted run's records
    r = subprocess.run(
        [sys.executable, "-m", "sim.cli", "run", str(exp_file), "--out", str(out), "--workers", "2", "--quiet"],
        capture_output=True, text=True, timeout=300,
    )
    assert r.returncode == 0, r.stderr
    _same(pd.read_parquet(out / "records.parquet"), reference.records)
    assert json.loads((out / "summary.json").read_text())["variants"] == reference.summary["variants"]


def test_rerun_of_finished_run_changes_nothing(exp_file, reference):
    before = pd.read_parquet(reference.out / "records.parquet")
    res = run_experiment(exp_file, out=reference.out, workers=1, quiet=True)
    assert res.throws_run == 0
    _same(res.records, before)


def test_chunk_bounds():
    assert chunk_bounds(10, 10, 4) == [(0, 4), (4, 8), (8, 10)]
    assert chunk_bounds(10, 20, 4) == [(0, 4), (4, 8), (8, 10), (10, 14), (14, 18), (18, 20)]
    assert chunk_bounds(3, 3, 100) == [(0, 3)]


# ---- stopping rule, on a synthetic engine so it is fast and its answer known ----------------


def synthetic_chunk(task):
    """A stand-in for sim.experiments.throw_experiment.run_chunk: throw k hits when (k * 7 + cell) % 10 < 3
    (a 30 % rate)."""
    rows = []
    for k in range(task.start, task.stop):
        hit = (k * 7 + task.cell) % 10 < 3
        rows.append({**task.columns, "seed": task.seed, "index": k, "result": "hit" if hit else "miss",
                     "reason": "hit" if hit else "off-board", "section": "bullseye" if hit else "",
                     "value": 10 if hit else -1, "face": "icon", "icon": True, "cocked": False,
                     "damage": 10.0 if hit else 0.0, "insta_kill": False, "x_mm": float(k), "y_mm": 0.0})
    return pa.Table.from_pylist(rows)


def dying_chunk(task):
    """Chunk 1 of cell 0 kills its worker process outright, as a crash in native code would."""
    if task.cell == 0 and task.chunk == 1:
        os.kill(os.getpid(), signal.SIGKILL)
    return synthetic_chunk(task)


def test_dead_worker_fails_the_run_instead_of_hanging(tmp_path):
    from sim.errors import ChunkFailed

    spec = parse_experiment({"name": "dies", "seed": 1, "throws": 40, "chunk_throws": 10})
    t0 = time.time()
    with pytest.raises(ChunkFailed, match="cell 0"):
        run_experiment(spec, out=tmp_path / "o", workers=2, quiet=True, figures=False,
                       _chunk_fn=dying_chunk, _prepare_fn=None)
    assert time.time() - t0 < 60
    assert json.loads((tmp_path / "o" / "manifest.json").read_text())["state"] == "failed"
    assert not (tmp_path / "o" / "records.parquet").exists()


def test_stopping_rule(tmp_path):
    spec = parse_experiment({
        "name": "stop-test", "seed": 1, "throws": 40, "chunk_throws": 20,
        "variants": [{"name": "a"}, {"name": "b", "skill": "expert"}],
        "stop": {"rate": "hit", "width": 0.2, "max_throws": 400},
    })
    res = run_experiment(spec, out=tmp_path / "o", workers=2, quiet=True, figures=False,
                         _chunk_fn=synthetic_chunk, _prepare_fn=None)
    for c, v in enumerate(res.summary["variants"]):
        n = v["n"]
        assert v["stopped_by"] == "width"
        assert n % 20 == 0 and n >= 40
        k = sum((i * 7 + c) % 10 < 3 for i in range(n))
        assert wilson(k, n).hi - wilson(k, n).lo <= 0.2
        k0 = sum((i * 7 + c) % 10 < 3 for i in range(n - 20))
        assert n - 20 < 40 or wilson(k0, n - 20).hi - wilson(k0, n - 20).lo > 0.2
    # no records past the stopping point, none kept on disk either
    assert len(res.records) == sum(v["n"] for v in res.summary["variants"])
    assert len(list((res.out / "chunks").glob("*.parquet"))) == len(res.records) // 20
    # the same with one worker
    res1 = run_experiment(spec, out=tmp_path / "o1", workers=1, quiet=True, figures=False,
                          _chunk_fn=synthetic_chunk, _prepare_fn=None)
    _same(res1.records, res.records)


def test_stopping_rule_cap(tmp_path):
    spec = parse_experiment({"name": "cap", "seed": 1, "throws": 20, "chunk_throws": 20,
                             "stop": {"rate": "hit", "width": 0.01, "max_throws": 60}})
    res = run_experiment(spec, out=tmp_path / "o", workers=1, quiet=True, figures=False,
                         _chunk_fn=synthetic_chunk, _prepare_fn=None)
    v = res.summary["variants"][0]
    assert v["n"] == 60 and v["stopped_by"] == "max_throws"


def test_force_replaces_other_experiment(tmp_path):
    spec = parse_experiment({"name": "f", "seed": 1, "throws": 8, "chunk_throws": 4})
    out = tmp_path / "o"
    run_experiment(spec, out=out, workers=1, quiet=True, figures=False, _chunk_fn=synthetic_chunk, _prepare_fn=None)
    other = spec.model_copy(update={"seed": 2})
    (out / "mine.txt").write_text("user file")
    res = run_experiment(other, out=out, workers=1, quiet=True, figures=False, force=True,
                         _chunk_fn=synthetic_chunk, _prepare_fn=None)
    assert (res.records["seed"] == 2).all() and len(res.records) == 8
    assert (out / "mine.txt").read_text() == "user file"  # --force removes only what a run writes
    assert res.experiment.hash == resolve_experiment(other).hash
