"""The bank's recorder (sim/games/bank_recorder.py) and sizes (sim/games/bank_size.py): missing scenarios
recorded as one job, entries that grow, sizes set by precision whatever the order chunks come back,
a recording killed with kill -9 resumed without losing a finished chunk, two recorders on one bank.
The workers make synthetic throws (tests/games/synthetic_bank.py: throw k from (seed, k) alone, as the
physics does); the recorder, its files, locks and processes are the real ones."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from sim.games.bank_size import BankSize, settle
from sim.games.throw_bank import scenario_key

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from synthetic_bank import InlineExecutor, SyntheticBank, synthetic, synthetic_chunk  # noqa: E402

S1 = {"die": "hero-d8", "shots": ["standard"], "skill": "casual", "board": "magma", "templates": [], "rules": {}}
S2 = {**S1, "shots": ["far"]}
S3 = {**S1, "shots": ["standard", "far"]}
REPO = HERE.parents[1]


class Counting(SyntheticBank):
    """Counts the chunks its workers make (throws asked of the workers)."""

    made: list[tuple[int, int]] = []

    @staticmethod
    def chunk_fn(task):
        Counting.made.append((task.start, task.stop))
        return synthetic_chunk(task)


class Reversed(InlineExecutor):
    """Hands results back in the reverse order of submission, a batch at a time (workers finishing out
    of order)."""

    def submit(self, task, fn) -> None:
        self._held = getattr(self, "_held", [])
        self._held.append((task, True, fn(task)))

    def next_result(self, timeout=None):
        if getattr(self, "_held", None):
            while self._held:
                self._results.put(self._held.pop())
        return super().next_result(timeout)


def rows_of(bank, s) -> pd.DataFrame:
    return bank.entry_rows(s)[0]


def test_an_entry_grows_instead_of_being_made_again(tmp_path):
    Counting.made = []
    small = Counting(tmp_path / "bank", 200)
    small.record([S1, S2])
    first = rows_of(small, S1)
    assert len(first) == 200 and sum(b - a for a, b in Counting.made) == 400
    Counting.made = []
    big = Counting(tmp_path / "bank", 350)
    assert not big.has(S1)
    big.record([S1, S2])
    assert sum(b - a for a, b in Counting.made) == 2 * 150  # only the new throws were made
    grown = rows_of(big, S1)
    assert len(grown) == 350
    pd.testing.assert_frame_equal(grown.iloc[:200].reset_index(drop=True), first)  # the first ones unchanged
    fresh = SyntheticBank(tmp_path / "fresh", 350)
    fresh.record([S1])
    pd.testing.assert_frame_equal(rows_of(fresh, S1), grown)  # as if recorded at 350 at once
    assert len(list(big.dir.glob("*.parquet"))) == 2  # the replaced records were removed
    assert small.table(S1).n == 200 and big.table(S1).n == 350  # each answer reads its own size


def test_sizes_are_set_by_precision_and_do_not_depend_on_the_order_chunks_come_back(tmp_path):
    rule = BankSize(hit_half_width=0.04, damage_half_width=0.5, floor=200, cap=3000)
    a = SyntheticBank(tmp_path / "a", None, size=rule)
    a.record([S1, S3])
    b = SyntheticBank(tmp_path / "b", None, size=rule, executor=Reversed())
    b.record([S3, S1])
    for s in (S1, S3):
        pd.testing.assert_frame_equal(rows_of(a, s), rows_of(b, s))
        meta = a.manifest(s)
        size = meta["size"]
        assert size["settled"] and size["by"] in ("precision", "cap")
        assert size["hit_half_width"] <= rule.hit_half_width and size["damage_half_width"] <= rule.damage_half_width
        assert rule.floor <= size["throws"] <= rule.cap and a.table(s).n == size["throws"]
        assert meta["precision"]["rule"]["hit_half_width"] == rule.hit_half_width
        # the same rule on the first throws of a much longer recording stops at the same size
        long = synthetic(s, 3000)
        hit = (long["result"] == "hit").to_numpy()
        assert settle(hit, np.where(hit, long["damage"], 0.0), rule).throws == size["throws"]
    # 95 % half-width of 4 points on a hit rate near 0.55 needs about 600 throws, more than the floor
    assert a.manifest(S1)["size"]["throws"] > rule.floor


RECORDER = """
import os, sys
sys.path[:0] = [{here!r}, {repo!r}]
from synthetic_bank import SyntheticBank, synthetic_chunk
S1 = {s1!r}
scenarios = [dict(S1, shots=[s]) for s in ("standard", "far", "lava")]
bank = SyntheticBank({bank!r}, 600, executor="local", workers=2, quiet=False)
print("pid", os.getpid(), flush=True)
print("recorded", bank.record(scenarios), flush=True)
"""


def _recorder(tmp_path: Path, bank: Path, delay: float) -> subprocess.Popen:
    script = tmp_path / "record.py"
    script.write_text(textwrap.dedent(RECORDER.format(here=str(HERE), repo=str(REPO), s1=S1, bank=str(bank))))
    env = dict(os.environ, DFSIM_TEST_CHUNK_DELAY_S=str(delay))
    return subprocess.Popen([sys.executable, str(script)], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)


def _children(pid: int) -> list[int]:
    out = []
    for p in Path("/proc").iterdir():
        if p.name.isdigit():
            try:
                stat = (p / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                out.append(int(p.name))
    return out


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads the process table from /proc")
def test_a_recording_killed_with_kill_9_resumes_without_losing_a_finished_chunk(tmp_path):
    bank_dir = tmp_path / "bank"
    proc = _recorder(tmp_path, bank_dir, delay=0.4)
    parts = bank_dir / ".parts"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and len(list(parts.glob("*/*.parquet"))) < 4:
        time.sleep(0.2)
    workers = _children(proc.pid)
    kept = sorted(parts.glob("*/*.parquet"))
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    assert len(kept) >= 4 and workers, proc.stderr.read() if proc.stderr else ""
    deadline = time.monotonic() + 30  # the workers notice their parent is gone and stop
    while time.monotonic() < deadline and any(_alive(w) for w in workers):
        time.sleep(0.2)
    assert not any(_alive(w) for w in workers), "orphan worker processes"
    kept = sorted(p for p in parts.glob("*/*.parquet") if not p.name.startswith("."))
    Counting.made = []
    bank = Counting(bank_dir, 600)
    scenarios = [dict(S1, shots=[s]) for s in ("standard", "far", "lava")]
    bank.record(scenarios)
    assert sum(b - a for a, b in Counting.made) == 3 * 600 - 100 * len(kept)  # every finished chunk reused
    for s in scenarios:
        pd.testing.assert_frame_equal(rows_of(bank, s), synthetic(s, 600))
    assert not list(parts.glob("*/*.parquet"))


def test_a_recording_its_caller_stops_ends_at_once_and_keeps_its_chunks(tmp_path, monkeypatch):
    """`stop()` (the studio's user moved on) ends a recording within a second, its worker processes
    closed, the scenarios' locks released and every finished chunk kept for the next recording."""
    from sim.errors import Cancelled

    monkeypatch.setenv("DFSIM_TEST_CHUNK_DELAY_S", "0.3")
    bank = SyntheticBank(tmp_path / "bank", 600, executor="local", workers=1)
    parts = bank.dir / ".parts"
    scenarios = [dict(S1, shots=[s]) for s in ("standard", "far", "lava")]
    asked: list[float] = []

    def stop() -> bool:
        if not asked and len(list(parts.glob("*/*.parquet"))) >= 2:
            asked.append(time.monotonic())
        return bool(asked)

    before = set(_children(os.getpid()))
    with pytest.raises(Cancelled):
        bank.record(scenarios, stop)
    assert asked and time.monotonic() - asked[0] < 5.0
    workers = [c for c in set(_children(os.getpid())) - before if _alive(c)
               and "resource_tracker" not in Path(f"/proc/{c}/cmdline").read_text()]  # multiprocessing's own
    assert not workers, "worker processes left running"
    kept = sorted(p for p in parts.glob("*/*.parquet") if not p.name.startswith("."))
    assert len(kept) >= 2 and not any(bank.has(s) for s in scenarios[1:])
    Counting.made = []
    again = Counting(bank.dir, 600)
    again.record(scenarios)  # the locks were released: nothing waits
    assert sum(b - a for a, b in Counting.made) == 3 * 600 - 100 * len(kept)
    for s in scenarios:
        pd.testing.assert_frame_equal(rows_of(again, s), synthetic(s, 600))


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads the process table from /proc")
def test_two_recorders_on_one_bank_lose_and_corrupt_nothing(tmp_path):
    bank_dir = tmp_path / "bank"
    a, b = _recorder(tmp_path, bank_dir, 0.05), _recorder(tmp_path, bank_dir, 0.05)
    outs = [p.communicate(timeout=300) for p in (a, b)]
    assert a.returncode == 0 and b.returncode == 0, outs
    total = sum(int(o.split("recorded")[1].split()[0]) for o, _ in outs)
    assert total >= 3  # each scenario recorded once (a recorder that waited may record none)
    bank = SyntheticBank(bank_dir, 600)
    for s in [dict(S1, shots=[x]) for x in ("standard", "far", "lava")]:
        assert bank.has(s)
        pd.testing.assert_frame_equal(rows_of(bank, s), synthetic(s, 600))
        assert json.loads(bank.path(s).read_text())["key"] == scenario_key(s)
    assert not list((bank_dir / ".parts").glob("*/*.parquet"))
    assert len(list(bank_dir.glob("*.parquet"))) == 3
    for p in (a, b):
        assert not [c for c in _children(p.pid) if _alive(c)]


@pytest.mark.slow
def test_the_banks_part_of_the_interval_covers_the_answer_of_a_larger_bank(tmp_path):
    """Tiny banks (60 throws a scenario, drawn apart by a salt): the win rate's interval with the bank's
    part covers the answer on a 3,000-throw bank about as often as it claims; the games' own interval
    alone does not."""
    from sim.games.bank_uncertainty import with_bank
    from sim.games.engine import run_games
    from sim.games.spec import load_game
    from sim.games.throw_bank import die_alias, play

    spec = load_game("base", {"party.size": 4, "house_rules.monster_life_bonus": -6})  # won about half the time
    alias = die_alias(spec.throws.colored_die, spec.throws.white_die)
    n, seed = 120, 11

    def rate(rs):
        return sum(r.won for r in rs) / len(rs)

    big = SyntheticBank(tmp_path / "big", 3000)
    truth = rate(play(lambda s: run_games(spec, s, n), big, seed, alias)[0])
    covered = covered_games = 0
    shares = []
    k = 8
    for salt in range(1, k + 1):
        bank = SyntheticBank(tmp_path / f"small{salt}", 60, salt=salt)
        res, _ = play(lambda s: run_games(spec, s, n), bank, seed, alias)
        from sim.experiments.statistics import wilson

        w = wilson(sum(r.won for r in res), n)
        d = with_bank(lambda s: run_games(spec, s, n), rate, bank, seed, rate(res), (w.hi - w.lo) / 2, alias, 6)
        covered += d["lo"] <= truth <= d["hi"]
        covered_games += w.lo <= truth <= w.hi
        shares.append(d["bank_share"])
    print(f"truth {truth:.3f}: covered {covered}/{k} with the bank's part, {covered_games}/{k} without; "
          f"bank share {np.mean(shares):.2f}")
    # 95 % nominal: 6 or fewer of 8 has probability 0.006 when the coverage is right
    assert covered >= 7 and np.mean(shares) > 0.3


def test_scenarios_sharing_an_aimed_release_count_as_one_solve():
    """The first line's aim solves: dice of one body and flipped templates share one aimed release
    (the solve is made once, the others read it), another shot or skill does not, nor a template
    aimed at."""
    from sim.games.bank_recorder import aim_group

    base = {"board": "magma", "shots": ["standard"], "skill": "casual"}
    hero = aim_group({**base, "dice": ["hero-d8"]})
    assert aim_group({**base, "dice": ["iron-d8"]}) == aim_group({**base, "dice": ["boulder-d8"]}) == hero
    assert aim_group({**base, "dice": ["hero-d8"], "templates": [{"name": "explosion", "flip": True}]}) == hero
    assert aim_group({**base, "dice": ["hero-d8"], "shots": ["far"]}) != hero
    assert aim_group({**base, "dice": ["hero-d8"], "skill": "expert"}) != hero
    laid = [{"name": "fireball", "x_mm": 60, "y_mm": 0, "aim": True}]
    assert aim_group({**base, "dice": ["hero-d8"], "templates": laid}) != hero


def test_one_scenario_of_each_aimed_release_solves_it_before_the_others_are_sent(tmp_path, monkeypatch):
    """Scenarios sharing an aimed release: the first is sent alone; the others once its aim is back (they
    read it from the cache), so two workers never solve one release at once."""
    from synthetic_bank import synthetic_prepare

    from sim.games.bank_recorder import BankRecorder, aim_group

    events: list[tuple[str, str]] = []

    def prepare(task):
        events.append(("sent", aim_group(task.inputs)))
        return synthetic_prepare(task)

    aimed = BankRecorder._aimed

    def on_aimed(self, j, value):
        events.append(("back", aim_group(j.exp.cells[0].inputs)))
        return aimed(self, j, value)

    monkeypatch.setattr(SyntheticBank, "prepare_fn", staticmethod(prepare))
    monkeypatch.setattr(BankRecorder, "_aimed", on_aimed)
    scenarios = [{**S1, "die": d} for d in ("hero-d8", "iron-d8", "boulder-d8")] + [{**S1, "shots": ["far"]}]
    SyntheticBank(tmp_path / "bank", 100).record(scenarios)
    groups = {aim_group({"board": "magma", "dice": [s["die"]], "shots": s["shots"], "skill": "casual"}) for s in scenarios}
    assert len(groups) == 2 and len([e for e in events if e[0] == "sent"]) == 4
    assert {g for _, g in events[:2]} == groups and all(kind == "sent" for kind, _ in events[:2])  # leaders first
    for i, (kind, g) in enumerate(events):
        if kind == "sent" and i >= 2:  # a follower: its group's aim came back before it was sent
            assert ("back", g) in events[:i]
