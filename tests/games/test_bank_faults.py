"""The throw bank's parallel recording under faults, through the real command line (`dfsim game`) with
real worker processes and real signals and limits: a worker killed with kill -9, a file-size limit
(EFBIG), a full file system (ENOSPC). Each time: one line naming the bank folder and the problem, exit
status 1 (a fault of the environment, docs/design.md), no traceback, no process left behind, no half
entry in the bank (a manifest without its records, a records file without its manifest, a
truncated part), and the same command run again reuses every finished entry and part.

The workers make synthetic throws (tests/games/bank_cli.py: throw k from (seed, k) alone, as the
physics does); everything else is dfsim's own."""

from __future__ import annotations

import errno
import hashlib
import json
import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq
import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from synthetic_bank import SyntheticBank, synthetic  # noqa: E402

THROWS = 600  # per scenario: six chunks of 100
DRIVER = [sys.executable, "-c", "import sys, bank_cli; bank_cli.main(sys.argv[1:])"]

pytestmark = pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads the process table from /proc")


def _game(bank: Path) -> list[str]:
    return [*DRIVER, "game", "base", "--games", "3", "--bank", str(bank), "--bank-throws", str(THROWS),
            "--workers", "2", "--bank-replicates", "0"]


def _run(bank: Path) -> list[str]:
    """`dfsim run` of a one-variant game experiment (three games) recording into the bank."""
    exp = bank.parent / "games.toml"
    exp.write_text(f'name = "g"\ngame = "base"\nseed = 1\ngames = 3\nbank_throws = {THROWS}\n'
                   'baseline = "normal"\n[[variants]]\nname = "normal"\n')
    return [*DRIVER, "run", str(exp), "--out", str(bank.parent / "out"), "--bank", str(bank), "--workers", "2",
            "--quiet", "--no-figures"]


def _env(log: Path, delay: float = 0.0) -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=os.pathsep.join([str(HERE), os.environ.get("PYTHONPATH", "")]),
                DFSIM_TEST_CHUNK_LOG=str(log), DFSIM_TEST_CHUNK_DELAY_S=str(delay))


def _ppid(pid: int) -> int | None:
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return None


def _descendants(pid: int) -> list[int]:
    out, todo = [], [pid]
    while todo:
        parent = todo.pop()
        for p in Path("/proc").iterdir():
            if p.name.isdigit() and _ppid(int(p.name)) == parent:
                out.append(int(p.name))
                todo.append(int(p.name))
    return out


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def _is_worker(pid: int) -> bool:
    try:
        return b"spawn_main" in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False


def _no_orphans(pids: list[int]) -> None:
    deadline = time.monotonic() + 30  # workers notice their parent is gone within a second
    while time.monotonic() < deadline and any(_alive(p) for p in pids):
        time.sleep(0.2)
    assert not [p for p in pids if _alive(p)], "processes left behind"


def _last_line(err: str) -> str:
    """The error line (the lines before it are the progress display, which `dfsim game` shows)."""
    assert "Traceback" not in err and "internal error" not in err, err
    return err.strip().splitlines()[-1]


def _chunks(log: Path) -> set[tuple[int, int, int]]:
    if not log.is_file():
        return set()
    return {tuple(int(x) for x in ln.split()) for ln in log.read_text().splitlines() if ln.strip()}


def _bank_state(bank: Path) -> dict:
    """What the bank holds, checked: every manifest's records present and matching (no half entry),
    no records file that no manifest names, no temporary file, every part whole. Returns
    {"entries": {key: rows}, "parts": {(key, start, stop)}}."""
    named, entries = set(), {}
    for m in bank.glob("*.json"):
        meta = json.loads(m.read_text())
        rec = bank / meta["records"]
        assert rec.is_file(), f"{m.name} names missing records"
        assert hashlib.sha256(rec.read_bytes()).hexdigest() == meta["records_sha256"], m.name
        rows = pd.read_parquet(rec)
        pd.testing.assert_frame_equal(rows[["index", "result", "damage"]],
                                      synthetic(meta["scenario"], len(rows))[["index", "result", "damage"]])
        named.add(meta["records"])
        entries[meta["key"]] = len(rows)
    assert {p.name for p in bank.glob("*.parquet")} == named, "a records file without its manifest"
    assert not [p for p in bank.rglob("*.tmp")], "a temporary file left"
    parts = set()
    for p in bank.glob(".parts/*/*.parquet"):
        start, stop = (int(x) for x in p.stem.split("-"))
        t = pq.read_table(p)
        assert t.column("index").to_pylist() == list(range(start, stop)), p
        parts.add((p.parent.name, start, stop))
    return {"entries": entries, "parts": parts}


def _rerun_reuses(bank: Path, before: dict, log: Path, command=_game) -> None:
    """The same command again: it finishes, every entry is whole, and no throw kept before (an entry's
    or a part's) was thrown again."""
    r = subprocess.run(command(bank), env=_env(log), capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    after = _bank_state(bank)
    seeds = {json.loads(m.read_text())["key"]: json.loads(m.read_text())["seed"] for m in bank.glob("*.json")}
    assert set(before["entries"]) <= set(after["entries"]) and not after["parts"]
    assert all(n == THROWS for n in after["entries"].values())
    again = _chunks(log)
    kept = {(seeds[k], a, b) for k, a, b in before["parts"]}
    assert not again & kept, "a finished part was thrown again"
    assert not {s for s, _, _ in again} & {seeds[k] for k in before["entries"]}, "a finished entry recorded again"
    made = sum(b - a for _, a, b in again)
    assert made == THROWS * (len(after["entries"]) - len(before["entries"])) - sum(b - a for _, a, b in kept)


def test_a_worker_killed_with_kill_9_stops_the_recording_in_one_line_and_a_rerun_carries_on(tmp_path):
    bank, log = tmp_path / "bank", tmp_path / "first.log"
    proc = subprocess.Popen(_game(bank), env=_env(log, delay=0.3), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and len(list(bank.glob(".parts/*/*.parquet"))) < 2:
        time.sleep(0.1)
    family = _descendants(proc.pid)
    workers = [p for p in family if _is_worker(p)]
    assert len(workers) == 2, family
    os.kill(workers[0], signal.SIGKILL)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 1, err[-2000:]
    line = _last_line(err)
    assert line.startswith(f"dfsim: {bank}: ") and "worker process" in line and "run the same command again" in line
    _no_orphans(family)
    before = _bank_state(bank)
    assert before["parts"], "the finished chunks were kept"
    _rerun_reuses(bank, before, tmp_path / "again.log")


def _fsize_limit(limit: int):
    def apply() -> None:
        import resource

        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, resource.getrlimit(resource.RLIMIT_FSIZE)[1]))

    return apply


@pytest.mark.parametrize("command", [_game, _run], ids=["game", "run"])
def test_a_file_size_limit_stops_the_recording_in_one_line_and_leaves_no_half_entry(tmp_path, command):
    """RLIMIT_FSIZE at 8 kB: a 100-throw part (about 6 kB) is written, a 600-throw entry's records (about
    10 kB) are not (EFBIG; SIGXFSZ must not kill the command). `dfsim run --quiet` says nothing else."""
    bank, log = tmp_path / "bank", tmp_path / "first.log"
    r = subprocess.run(command(bank), env=_env(log), capture_output=True, text=True, timeout=300,
                       preexec_fn=_fsize_limit(8000))
    assert r.returncode == 1, (r.returncode, r.stderr[-2000:])
    line = _last_line(r.stderr)
    assert line.startswith(f"dfsim: {bank}: ") and os.strerror(errno.EFBIG) in line, line
    assert "run the same command again" in line
    if command is _run:
        assert r.stderr.strip() == line and not (tmp_path / "out" / "summary.json").exists()
    before = _bank_state(bank)
    assert not before["entries"] and len(before["parts"]) >= THROWS // 100
    _rerun_reuses(bank, before, tmp_path / "again.log", command)


def test_a_full_file_system_stops_the_recording_in_one_line_and_a_copy_resumes(tmp_path):
    """The bank on a 48 kB tmpfs (ENOSPC part way), in a mount namespace of its own; copied out, the
    bank resumes."""
    mnt, saved, log = tmp_path / "small", tmp_path / "saved", tmp_path / "first.log"
    mnt.mkdir()
    probe = subprocess.run(["unshare", "-m", "sh", "-c", f"mount -t tmpfs -o size=48k tmpfs {mnt}"],
                           capture_output=True)
    if probe.returncode != 0:
        pytest.skip("cannot mount a small file system here (needs unshare -m)")
    game = " ".join(shlex.quote(a) for a in _game(mnt / "bank"))
    cmd = (f"mount -t tmpfs -o size=48k tmpfs {mnt} && {game}; status=$?; "
           f"cp -a {mnt / 'bank'} {saved}; exit $status")
    r = subprocess.run(["unshare", "-m", "sh", "-c", cmd], env=_env(log), capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 1, (r.returncode, r.stderr[-2000:])
    line = _last_line(r.stderr)
    assert line.startswith(f"dfsim: {mnt / 'bank'}: ") and os.strerror(errno.ENOSPC) in line, line
    before = _bank_state(saved)
    _rerun_reuses(saved, before, tmp_path / "again.log")


def test_a_manifest_that_cannot_be_written_leaves_no_records_file_behind(tmp_path, monkeypatch):
    """The records are written first, the manifest last: when the manifest fails (the disk filled up
    between the two), the new records file goes too and the parts stay, so nothing half is left."""
    import sim.games.bank_recorder as recorder
    from sim.games.bank_recorder import ScenarioLock

    real = recorder.write_atomic

    def full_at_the_manifest(path, data):
        if path.suffix == ".json" and path.parent == bank.dir:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))
        return real(path, data)

    monkeypatch.setattr(recorder, "write_atomic", full_at_the_manifest)
    bank = SyntheticBank(tmp_path / "bank", 300)
    s = {"die": "hero-d8", "shots": ["standard"], "skill": "casual", "board": "magma", "templates": [], "rules": {}}
    with pytest.raises(OSError, match=os.strerror(errno.ENOSPC)) as caught:
        bank.record([s])
    assert caught.value.filename == str(bank.dir) and "run the same command again" in caught.value.strerror
    state = _bank_state(bank.dir)
    assert not state["entries"] and len(state["parts"]) == 3
    lock = ScenarioLock(bank.dir / ".locks", bank.key(s))  # the scenario's lock was let go
    assert lock.acquire(block=False)
    lock.release()
    monkeypatch.setattr(recorder, "write_atomic", real)
    assert bank.record([s]) == 1 and len(bank.entry_rows(s)[0]) == 300
