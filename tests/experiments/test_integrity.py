"""A run never silently holds wrong records, never deletes what it did not write, and never hangs.

Every case here damages a results folder (or the run's environment) the way a user, a full disk or
a crash would, and checks that the rerun says so in one line and ends with exactly the records of
an undamaged run. The engine is a stand-in (integrity_engine.py) so the tests are fast.
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pytest

from sim.errors import ChunkFailed, SpecError
from sim.experiments.runner import run_experiment

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import integrity_engine as engine  # noqa: E402

SPEC = {"name": "integ", "seed": 5, "throws": 6, "chunk_throws": 2,
        "variants": [{"name": "a"}, {"name": "b", "skill": "expert"}]}
TOML = """name = "integ"
seed = 5
throws = 6
chunk_throws = 2

[[variants]]
name = "a"

[[variants]]
name = "b"
skill = "expert"
"""


def _run(out: Path, spec: dict = SPEC, **kw):
    kw.setdefault("executor", engine.InlineExecutor())
    return run_experiment(dict(spec), out=out, quiet=True, figures=False, _chunk_fn=engine.fake_chunk,
                          _prepare_fn=engine.fake_prepare, **kw)


def _same(a: pd.DataFrame, b: pd.DataFrame) -> None:
    pd.testing.assert_frame_equal(a.reset_index(drop=True), b.reset_index(drop=True), check_exact=True)


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    res = _run(tmp_path_factory.mktemp("ref") / "out")
    assert len(res.records) == 12
    return res


@pytest.fixture
def copy(reference, tmp_path) -> Path:
    out = tmp_path / "out"
    shutil.copytree(reference.out, out)
    return out


@pytest.fixture
def exp_file(tmp_path) -> Path:
    p = tmp_path / "integ.toml"
    p.write_text(TOML)
    return p


def _env() -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(HERE), env.get("PYTHONPATH", "")])
    return env


DRIVER = [sys.executable, "-c", "import sys, integrity_engine; integrity_engine.main(sys.argv[1:])"]


def _cli(argv: list[str], env_extra: dict | None = None, preexec_fn=None, timeout: float = 120):
    env = _env()
    env.update(env_extra or {})
    return subprocess.run([*DRIVER, *argv], capture_output=True, text=True, env=env, timeout=timeout,
                          preexec_fn=preexec_fn)


def _one_line(err: str) -> str:
    lines = [ln for ln in err.strip().splitlines() if ln.strip()]
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


# ---- silent wrong records ----------------------------------------------------------------------


def test_chunk_overwritten_by_another_chunk_is_recomputed(copy, reference):
    shutil.copyfile(copy / "chunks" / "c0000-k000000.parquet", copy / "chunks" / "c0000-k000001.parquet")
    res = _run(copy)
    _same(res.records, reference.records)
    assert res.throws_run == 2
    assert len(res.repairs) == 1 and "c0000-k000001" in res.repairs[0] and "recomput" in res.repairs[0]


def test_chunk_of_another_cell_is_recomputed(copy, reference):
    shutil.copyfile(copy / "chunks" / "c0000-k000002.parquet", copy / "chunks" / "c0001-k000002.parquet")
    res = _run(copy)
    _same(res.records, reference.records)
    assert res.throws_run == 2


def test_edited_prepared_aim_is_solved_again(copy, reference):
    path = copy / "prepared.json"
    original = path.read_text()
    doc = json.loads(original)
    for v in doc.values():
        v["nominal"][0] *= 1.3
    path.write_text(json.dumps(doc))
    (copy / "chunks" / "c0001-k000002.parquet").unlink()  # one chunk left to throw with the aim
    res = _run(copy)
    _same(res.records, reference.records)
    assert any("prepared.json" in r for r in res.repairs), res.repairs
    assert json.loads(path.read_text()) == json.loads(original)


def test_edited_prepared_aim_of_finished_run_is_restored(copy, reference):
    path = copy / "prepared.json"
    original = json.loads(path.read_text())
    doc = {k: {"nominal": [v["nominal"][0] * 1.3, v["nominal"][1]]} for k, v in original.items()}
    path.write_text(json.dumps(doc))
    res = _run(copy)
    _same(res.records, reference.records)
    assert res.throws_run == 0
    assert json.loads(path.read_text()) == original


# ---- unrecoverable folders ---------------------------------------------------------------------


@pytest.mark.parametrize("damage", ["truncated", "empty", "garbage"])
def test_damaged_chunk_is_reported_and_recomputed(copy, reference, damage):
    p = copy / "chunks" / "c0001-k000001.parquet"
    data = p.read_bytes()
    p.write_bytes({"truncated": data[: len(data) // 2], "empty": b"", "garbage": b"not parquet at all"}[damage])
    res = _run(copy)
    _same(res.records, reference.records)
    assert res.throws_run == 2
    assert len(res.repairs) == 1 and "c0001-k000001" in res.repairs[0]


@pytest.mark.parametrize("content", ["null", "[1, 2]", "{not json", ""])
def test_damaged_manifest_is_rebuilt(copy, reference, content):
    (copy / "manifest.json").write_text(content)
    res = _run(copy)
    _same(res.records, reference.records)
    assert len(res.repairs) == 1 and "manifest.json" in res.repairs[0], res.repairs
    manifest = json.loads((copy / "manifest.json").read_text())
    assert manifest["state"] == "complete" and len(manifest["chunks"]) == 6
    assert _run(copy).repairs == []  # rebuilt: the next rerun finds nothing to repair


def test_a_manifest_naming_a_key_twice_is_rebuilt(copy, reference):
    """A key given twice (here `state`, first as "running"): which one was meant cannot be told, so the
    manifest is damaged, not read as its last value says."""
    text = (copy / "manifest.json").read_text()
    (copy / "manifest.json").write_text(text.replace("{", '{"state": "running", ', 1))
    res = _run(copy)
    _same(res.records, reference.records)
    assert len(res.repairs) == 1 and "manifest.json" in res.repairs[0] and "twice" in res.repairs[0], res.repairs


def test_manifest_of_an_older_dfsim_gets_hashes(copy, reference):
    """A results folder from before chunk hashes: chunks checked by range and kept, hashes recorded."""
    doc = json.loads((copy / "manifest.json").read_text())
    old = {k: doc[k] for k in ("name", "experiment_hash", "created", "updated", "state", "cells")}
    (copy / "manifest.json").write_text(json.dumps({"format": 1, **old}))
    res = _run(copy)
    _same(res.records, reference.records)
    assert res.throws_run == 0
    assert len(res.repairs) == 1 and "older dfsim" in res.repairs[0], res.repairs
    assert len(json.loads((copy / "manifest.json").read_text())["chunks"]) == 6


def test_damaged_manifest_and_chunk(copy, reference):
    (copy / "manifest.json").write_text("null")
    shutil.copyfile(copy / "chunks" / "c0000-k000000.parquet", copy / "chunks" / "c0000-k000002.parquet")
    res = _run(copy)
    _same(res.records, reference.records)
    assert res.throws_run == 2


@pytest.mark.parametrize("content", ["garbage", "null", "[]", '{"x": 1}'])
def test_damaged_prepared_is_solved_again(copy, reference, content):
    (copy / "prepared.json").write_text(content)
    (copy / "chunks" / "c0000-k000002.parquet").unlink()
    res = _run(copy)
    _same(res.records, reference.records)
    assert any("prepared.json" in r for r in res.repairs), res.repairs


# ---- --force deletes only what a run wrote ------------------------------------------------------


def _user_files(out: Path) -> dict[Path, str]:
    files = {out / "notes.txt": "mine", out / "figures" / "my-photo.png": "photo",
             out / "chunks" / "README-mine.txt": "readme"}
    for p, text in files.items():
        p.parent.mkdir(exist_ok=True)
        p.write_text(text)
    return files


def test_force_keeps_user_files_in_a_run_folder(copy):
    files = _user_files(copy)
    res = _run(copy, {**SPEC, "seed": 6}, force=True)
    assert (res.records["seed"] == 6).all() and len(res.records) == 12
    for p, text in files.items():
        assert p.read_text() == text, p


def test_force_on_a_folder_that_never_held_a_run(tmp_path, reference):
    out = tmp_path / "mine"
    files = _user_files(out)
    res = _run(out, force=True)
    _same(res.records, reference.records)
    for p, text in files.items():
        assert p.read_text() == text, p


def test_force_refuses_to_overwrite_a_user_file(tmp_path):
    out = tmp_path / "mine"
    out.mkdir()
    (out / "summary.json").write_text("my summary")
    with pytest.raises(SpecError, match="summary.json"):
        _run(out, force=True)
    assert (out / "summary.json").read_text() == "my summary"
    assert sorted(p.name for p in out.iterdir()) == ["summary.json"]


@pytest.mark.parametrize("force", [False, True])
def test_symlinked_chunks_folder_is_refused(copy, tmp_path, force):
    elsewhere = tmp_path / "elsewhere"
    shutil.move(copy / "chunks", elsewhere)
    (elsewhere / "precious.txt").write_text("keep")
    (copy / "chunks").symlink_to(elsewhere)
    before = sorted(p.name for p in elsewhere.iterdir())
    with pytest.raises(SpecError, match="symbolic link"):
        _run(copy, {**SPEC, "seed": 6} if force else SPEC, force=force)
    assert sorted(p.name for p in elsewhere.iterdir()) == before


# ---- environment faults ------------------------------------------------------------------------


@pytest.fixture
def patched_cli(monkeypatch):
    from sim.cli.main import main

    monkeypatch.setenv("DFSIM_FAKE_INLINE", "1")
    engine.patch_runner(monkeypatch.setattr)
    return main


def test_out_under_a_regular_file(patched_cli, exp_file, tmp_path, capsys):
    (tmp_path / "afile").write_text("x")
    assert patched_cli(["run", str(exp_file), "--out", str(tmp_path / "afile" / "out"), "--quiet"]) == 1
    assert "afile" in _one_line(capsys.readouterr().err)


def test_out_under_proc(patched_cli, exp_file, capsys):
    assert patched_cli(["run", str(exp_file), "--out", "/proc/dfsim-test-out", "--quiet", "--no-figures"]) == 1
    _one_line(capsys.readouterr().err)


def test_out_with_a_300_character_name(patched_cli, exp_file, tmp_path, capsys, monkeypatch):
    out = tmp_path / ("x" * 300)
    assert patched_cli(["run", str(exp_file), "--out", str(out), "--quiet", "--no-figures"]) == 1
    _one_line(capsys.readouterr().err)
    long_exp = tmp_path / "long.toml"
    long_exp.write_text(TOML.replace('name = "integ"', f'name = "{"y" * 300}"'))
    monkeypatch.chdir(tmp_path)
    # a 300-character experiment name is refused as bad input (names are capped), before any folder exists
    assert patched_cli(["run", str(long_exp), "--quiet", "--no-figures"]) == 2
    _one_line(capsys.readouterr().err)
    assert not (tmp_path / "results").exists()


def test_disk_full_part_way_keeps_chunks_and_resumes(patched_cli, exp_file, tmp_path, capsys, monkeypatch,
                                                     reference):
    from sim.experiments.store import Store

    orig = Store.write_chunk
    calls = []

    def full(self, cell, chunk, table):
        calls.append((cell, chunk))
        if len(calls) == 4:
            raise OSError(errno.ENOSPC, "No space left on device", str(self.chunk_path(cell, chunk)))
        return orig(self, cell, chunk, table)

    monkeypatch.setattr(Store, "write_chunk", full)
    out = tmp_path / "out"
    assert patched_cli(["run", str(exp_file), "--out", str(out), "--quiet", "--no-figures"]) == 1
    assert "No space left" in _one_line(capsys.readouterr().err)
    assert len(list((out / "chunks").glob("c*.parquet"))) == 3
    monkeypatch.setattr(Store, "write_chunk", orig)
    assert patched_cli(["run", str(exp_file), "--out", str(out), "--quiet", "--no-figures"]) == 0
    _same(pd.read_parquet(out / "records.parquet"), reference.records)


def test_file_size_limit_then_resume(exp_file, tmp_path, reference):
    import resource

    out = tmp_path / "out"

    def limit():
        resource.setrlimit(resource.RLIMIT_FSIZE, (10_000, 10_000))

    argv = ["run", str(exp_file), "--out", str(out), "--quiet", "--no-figures", "--workers", "1"]
    r = _cli(argv, {"DFSIM_FAKE_INLINE": "1"}, preexec_fn=limit)
    assert r.returncode == 1, r.stderr
    assert "too large" in _one_line(r.stderr)
    r = _cli(argv, {"DFSIM_FAKE_INLINE": "1"})
    assert r.returncode == 0, r.stderr
    _same(pd.read_parquet(out / "records.parquet"), reference.records)


def test_read_only_file_system(exp_file, tmp_path):
    mnt = tmp_path / "ro"
    mnt.mkdir()
    probe = subprocess.run(["unshare", "-m", "sh", "-c", f"mount -t tmpfs -o ro,size=64k tmpfs {mnt}"],
                           capture_output=True)
    if probe.returncode != 0:
        pytest.skip("cannot mount a read-only file system here (needs unshare -m)")
    cmd = " ".join([f"mount -t tmpfs -o ro,size=64k tmpfs {mnt} &&", *(f"'{a}'" for a in DRIVER),
                    "run", str(exp_file), "--out", str(mnt / "out"), "--quiet", "--no-figures"])
    r = subprocess.run(["unshare", "-m", "sh", "-c", cmd], capture_output=True, text=True, timeout=120,
                       env={**_env(), "DFSIM_FAKE_INLINE": "1"})
    assert r.returncode == 1, r.stderr
    assert "Read-only file system" in _one_line(r.stderr)


def test_real_full_disk_keeps_chunks_and_resumes(exp_file, tmp_path, reference):
    """A tmpfs too small for the run: one line, exit 1; the folder, copied out, resumes to the same records."""
    mnt, saved = tmp_path / "small", tmp_path / "saved"
    mnt.mkdir()
    probe = subprocess.run(["unshare", "-m", "sh", "-c", f"mount -t tmpfs -o size=80k tmpfs {mnt}"],
                           capture_output=True)
    if probe.returncode != 0:
        pytest.skip("cannot mount a small file system here (needs unshare -m)")
    run = " ".join([*(f"'{a}'" for a in DRIVER), "run", str(exp_file), "--out", str(mnt / "out"), "--quiet",
                    "--no-figures"])
    cmd = f"mount -t tmpfs -o size=80k tmpfs {mnt} && {run}; status=$?; cp -a {mnt / 'out'} {saved}; exit $status"
    r = subprocess.run(["unshare", "-m", "sh", "-c", cmd], capture_output=True, text=True, timeout=120,
                       env={**_env(), "DFSIM_FAKE_INLINE": "1"})
    assert r.returncode == 1, r.stderr
    assert "No space left on device" in _one_line(r.stderr)
    assert list((saved / "chunks").glob("c*.parquet")), "finished chunks were not kept"
    r = _cli(["run", str(exp_file), "--out", str(saved), "--quiet", "--no-figures"], {"DFSIM_FAKE_INLINE": "1"})
    assert r.returncode == 0, r.stderr
    _same(pd.read_parquet(saved / "records.parquet"), reference.records)


# ---- one bad record: validate everything before creating anything -------------------------------


def test_non_finite_number_is_refused_before_the_folder_exists(tmp_path, reference):
    out = tmp_path / "out"
    bad = {**SPEC, "defaults": {"templates": [{"name": "weak-point", "x_mm": float("nan"), "y_mm": 0.0}]}}
    with pytest.raises(SpecError, match="finite"):
        _run(out, bad)
    assert not out.exists()
    good = {**SPEC, "defaults": {"templates": [{"name": "weak-point", "x_mm": 120.0, "y_mm": 0.0}]}}
    res = _run(out, good)
    assert len(res.records) == 12


# ---- orphans and memory ------------------------------------------------------------------------


def test_workers_exit_when_the_parent_is_killed(exp_file, tmp_path):
    import psutil

    out = tmp_path / "out"
    env = _env()
    env["DFSIM_FAKE_DELAY_S"] = "0.5"
    p = subprocess.Popen([*DRIVER, "run", str(exp_file), "--out", str(out), "--quiet", "--no-figures",
                          "--workers", "2"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                         start_new_session=True)
    parent = psutil.Process(p.pid)
    children: list = []
    try:
        t0 = time.time()
        while len([c for c in parent.children() if "spawn_main" in " ".join(c.cmdline())]) < 2:
            assert p.poll() is None, p.stderr.read() if p.stderr else ""
            assert time.time() - t0 < 90
            time.sleep(0.2)
        time.sleep(1.0)
        children = parent.children(recursive=True)
        p.kill()
        p.wait(timeout=10)
        gone, alive = psutil.wait_procs(children, timeout=30)  # seconds, even on a loaded machine
        assert not alive, f"{len(alive)} worker processes outlived their parent"
    finally:
        for c in children:
            if c.is_running():
                c.kill()


def test_memory_does_not_grow_with_planned_chunks(tmp_path):
    spec = {"name": "huge", "seed": 1, "throws": 2, "chunk_throws": 1,
            "stop": {"rate": "hit", "width": 0.99, "max_throws": 10_000_000}}
    tracemalloc.start()
    try:
        t0 = time.time()
        res = _run(tmp_path / "out", spec)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert res.summary["variants"][0]["n"] == 2
    assert peak < 40e6, f"peak {peak / 1e6:.0f} MB"
    assert time.time() - t0 < 30


# ---- what workers return is checked before it is stored -------------------------------------------


def _wrong_index(task):
    t = engine.fake_chunk(task)
    return t.set_column(t.schema.get_field_index("index"), "index", pa.array([k + 1 for k in range(task.start, task.stop)]))


def _wrong_cell(task):
    t = engine.fake_chunk(task)
    return t.set_column(t.schema.get_field_index("cell"), "cell", pa.array([task.cell + 1] * t.num_rows))


def _short(task):
    return engine.fake_chunk(task).slice(0, 1)


def _not_a_table(task):
    return {"index": list(range(task.start, task.stop))}


def _no_index(task):
    return engine.fake_chunk(task).drop_columns(["index"])


def _extra_column(task):
    t = engine.fake_chunk(task)
    return t.append_column("sneaky", pa.array([1] * t.num_rows)) if task.chunk == 1 else t


@pytest.mark.parametrize("fn", [_wrong_index, _wrong_cell, _short, _not_a_table, _no_index, _extra_column])
def test_bad_worker_results_are_refused(tmp_path, fn):
    out = tmp_path / "out"
    with pytest.raises(ChunkFailed, match="cell"):
        run_experiment(dict(SPEC), out=out, quiet=True, figures=False, executor=engine.InlineExecutor(),
                       _chunk_fn=fn, _prepare_fn=engine.fake_prepare)
    assert not (out / "records.parquet").exists()
    manifest = json.loads((out / "manifest.json").read_text())
    on_disk = {p.stem for p in (out / "chunks").glob("c*.parquet")}
    assert on_disk == set(manifest["chunks"])
    assert fn is _extra_column or not on_disk  # nothing from a bad result was stored


# ---- Dask --------------------------------------------------------------------------------------


def test_bad_scheduler_address_is_one_line_before_any_folder(patched_cli, exp_file, tmp_path, capsys,
                                                             monkeypatch):
    pytest.importorskip("dask.distributed")
    import sim.experiments.scheduler as scheduler

    monkeypatch.setattr(scheduler, "CONNECT_TIMEOUT_S", 3)
    for address, status in (("not a url", 2), ("tcp://127.0.0.1:1", 1)):
        out = tmp_path / "o"
        t0 = time.time()
        code = patched_cli(["run", str(exp_file), "--out", str(out), "--quiet", "--executor", "dask",
                            "--scheduler", address])
        line = _one_line(capsys.readouterr().err)
        assert code == status and "scheduler" in line, line
        assert not out.exists()
        assert time.time() - t0 < 30


def test_local_dask_cluster_serves_no_dashboard():
    pytest.importorskip("dask.distributed")
    import urllib.error
    import urllib.request

    from distributed import default_client

    from sim.experiments.executor import DaskExecutor

    ex = DaskExecutor(workers=1)
    try:
        info = default_client().scheduler_info()
        ports = [info["services"].get("dashboard")] + [w["services"].get("dashboard")
                                                        for w in info["workers"].values()]
        for port in filter(None, ports):
            for path in ("/status", "/info/main/workers.html", "/json/identity.json", "/health"):
                with pytest.raises(urllib.error.HTTPError) as exc:
                    urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=5)
                assert exc.value.code == 404, (port, path)
    finally:
        ex.close()


def test_ctrl_c_during_dask_run_prints_no_worker_tracebacks(exp_file, tmp_path):
    pytest.importorskip("dask.distributed")
    out = tmp_path / "out"
    env = _env()
    env["DFSIM_FAKE_DELAY_S"] = "2"  # a chunk lasts 4 s: the run is still going when the signal comes, even under load
    p = subprocess.Popen([*DRIVER, "run", str(exp_file), "--out", str(out), "--quiet", "--no-figures",
                          "--executor", "dask", "--workers", "2"], env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, start_new_session=True,
                         # Ctrl-C as a terminal delivers it, even when the suite runs as a background job
                         # (which ignores SIGINT, and its children inherit that)
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    t0 = time.time()
    while not list((out / "chunks").glob("c*.parquet")) if (out / "chunks").is_dir() else True:
        assert p.poll() is None, p.communicate()[1]
        assert time.time() - t0 < 120
        time.sleep(0.1)
    os.killpg(p.pid, signal.SIGINT)
    _, err = p.communicate(timeout=60)
    assert p.returncode == 130, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    assert "interrupted" in _one_line(err)


def _certificates(folder: Path) -> dict[str, str]:
    if shutil.which("openssl") is None:
        pytest.skip("openssl not found")
    ca_key, ca, key, csr, cert = (str(folder / n) for n in ("ca.key", "ca.pem", "node.key", "node.csr", "node.pem"))
    run = lambda *a: subprocess.run(a, check=True, capture_output=True)  # noqa: E731
    run("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", ca_key, "-out", ca, "-days", "2",
        "-subj", "/CN=dfsim-test-ca")
    run("openssl", "req", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", csr, "-subj", "/CN=localhost")
    ext = folder / "ext.cnf"
    ext.write_text("subjectAltName=DNS:localhost,IP:127.0.0.1\n")
    run("openssl", "x509", "-req", "-in", csr, "-CA", ca, "-CAkey", ca_key, "-CAcreateserial", "-out", cert,
        "-days", "2", "-extfile", str(ext))
    return {"ca_file": ca, "cert": cert, "key": key}


def test_dask_tls_cluster(tmp_path, reference, patched_cli, exp_file, capsys):
    distributed = pytest.importorskip("dask.distributed")
    from distributed.security import Security

    tls = _certificates(tmp_path)
    sec = Security(tls_ca_file=tls["ca_file"], tls_scheduler_cert=tls["cert"], tls_scheduler_key=tls["key"],
                   tls_worker_cert=tls["cert"], tls_worker_key=tls["key"], tls_client_cert=tls["cert"],
                   tls_client_key=tls["key"], require_encryption=True)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True, protocol="tls://",
                                  security=sec, dashboard_address=None) as cluster:
        addr = cluster.scheduler_address
        assert addr.startswith("tls://")
        res = _run(tmp_path / "api", executor="dask", scheduler=addr, security=tls)
        _same(res.records, reference.records)
        out = tmp_path / "cli"
        argv = ["run", str(exp_file), "--out", str(out), "--quiet", "--no-figures", "--executor", "dask",
                "--scheduler", addr]
        assert patched_cli([*argv, "--tls-ca-file", tls["ca_file"], "--tls-cert", tls["cert"],
                            "--tls-key", tls["key"]]) == 0, capsys.readouterr().err
        _same(pd.read_parquet(out / "records.parquet"), reference.records)
    assert patched_cli([*argv, "--tls-ca-file", str(tmp_path / "missing.pem"), "--tls-cert", tls["cert"]]) == 2
    assert "missing.pem" in _one_line(capsys.readouterr().err)


# ---- dfsim doctor ------------------------------------------------------------------------------


def _doctor(out: Path, capsys) -> tuple[int, list[str]]:
    from sim.cli.main import main

    code = main(["doctor", str(out)])
    lines = [ln for ln in capsys.readouterr().out.strip().splitlines() if ln.strip()]
    return code, lines


def test_doctor_healthy(reference, capsys):
    code, lines = _doctor(reference.out, capsys)
    assert code == 0 and len(lines) == 1 and "healthy" in lines[0], lines
    # and what a replay here can promise: this machine made it
    assert "records made on this kind of machine with these packages" in lines[0], lines
    from sim.provenance import machine

    assert json.loads((reference.out / "manifest.json").read_text())["machines"] == [json.loads(json.dumps(machine()))]


def test_doctor_finds_each_problem_and_the_rerun_fixes_them(copy, reference, capsys):
    chunks = copy / "chunks"
    shutil.copyfile(chunks / "c0000-k000000.parquet", chunks / "c0000-k000001.parquet")  # wrong range
    (chunks / "c0001-k000000.parquet").write_bytes(b"")  # empty
    (chunks / "c0001-k000002.parquet").unlink()  # missing
    doc = json.loads((copy / "prepared.json").read_text())
    for v in doc.values():
        v["nominal"][0] *= 1.3
    (copy / "prepared.json").write_text(json.dumps(doc))
    shutil.copyfile(chunks / "c0000-k000002.parquet", copy / "records.parquet")
    code, lines = _doctor(copy, capsys)
    assert code == 1
    for word in ("c0000-k000001", "c0001-k000000", "c0001-k000002", "prepared.json", "records.parquet"):
        hits = [ln for ln in lines if word in ln]
        assert len(hits) == 1 and "rerun" in hits[0], (word, lines)
    res = _run(copy)
    _same(res.records, reference.records)
    code, lines = _doctor(copy, capsys)
    assert code == 0, lines


@pytest.mark.parametrize("content", ["null", "[]"])
def test_doctor_damaged_manifest(copy, capsys, content):
    (copy / "manifest.json").write_text(content)
    code, lines = _doctor(copy, capsys)
    assert code == 1 and any("manifest.json" in ln and "rerun" in ln for ln in lines), lines


def test_doctor_on_a_folder_without_results(tmp_path, capsys):
    (tmp_path / "notes.txt").write_text("x")
    code, lines = _doctor(tmp_path, capsys)
    assert code == 1 and len(lines) == 1, lines
