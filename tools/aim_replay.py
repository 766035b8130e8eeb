"""Replay the aim solve on kept reference throws: a change of the solve judged in a minute, not an hour.

    python tools/aim_replay.py collect DIR [--shot NAME ...] [--skill NAME ...] [--wide 64]
    python tools/aim_replay.py replay DIR [--design FILE.py:CLASS] [--set NAME=VALUE ...] [--json OUT]

Reference throw i of a technique is a fixed throw (sim/engine/aim.py: the thrower's own draws i of
NOMINAL_REF_SEED, biases left out), so a solve is a function of the table (technique, i) -> (value,
miss). `collect` solves each built-in aimed shot (magma board, hero d8; NAME+NAME for a set) at each
skill with this checkout's solve, from an empty cache, keeping every reference value it made, and
throws more for other designs to read: every ballistic point thrown the shot's own way and every way
of leaving the hand at the three best of them, `--wide` throws each. One JSON file per scenario in DIR.

`replay` runs a solve on the kept tables: this checkout's `AimSolver`, or a subclass of it defined in a
file (`--design path.py:Name`), with module constants of sim/engine/aim.py set for the run (`--set
NOMINAL_MAX_FINAL_REFS=64`, values as JSON). The solver is a real one (its grid and ways from the
scenario); only its reference throws are read from the table, and a throw the table lacks is thrown
then, in the scenario's world as the solve sees it, and kept: the replay is exact. Per scenario: the
reference throws the solve asked for and the kept solve's, and, where the choices differ, their paired
difference on `--held N` held-out reference throws (128; indices from HELD_OUT_START, which no solve
asks for) with its 95 % interval and the solve's stopping tolerance (NOMINAL_SEPARATION_SE x sd /
sqrt(TOLERANCE_REFS), as tools/aim_agreement.py has it); the summary counts the choices surely worse
(the whole interval below -tolerance) and surely better than the kept ones, and those whose difference
alone is beyond the tolerance. The reference throws leave out the thrower's biases: the final word on
a design is tools/aim_agreement.py's fresh throws; this is how to find the design worth that run.
Exit status 2 for a folder, file or setting that does not read.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import json
import math
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sim.engine import aim as A  # noqa: E402
from sim.engine.hand import Hand, Technique  # noqa: E402

HELD_OUT_START = 1000  # reference throws from here on no solve asks for: the choices' yardstick
TOLERANCE_REFS = 128  # the finals' cap behind the stopping tolerance (tools/aim_agreement.py)
TOP_POINTS = 3  # collect: the ballistic points whose every way of leaving the hand is thrown `--wide` times
Z95 = 1.959964


class Unreadable(Exception):
    """A folder, file or setting that does not read (one line, exit status 2)."""


def built_in() -> list[tuple[str, str]]:
    """Every built-in aimed shot at every skill (benchmarks/aim_cost.py's solves)."""
    spec = importlib.util.spec_from_file_location(
        "aim_cost", Path(__file__).resolve().parents[1] / "benchmarks" / "aim_cost.py"
    )
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return [(shot, skill) for shot in mod.aimed_shots() for skill in mod.SKILLS]


def chosen(
    solves: list[tuple[str, str]], shots: list[str] | None, skills: list[str] | None
) -> list[tuple[str, str]]:
    """The built-in solves `--shot` and `--skill` pick (a shot NAME+NAME is a set, at every skill); a name
    that is no aimed built-in shot, or no skill, is refused rather than collecting nothing."""
    known_shots = list(dict.fromkeys(s for s, _k in solves))
    known_skills = list(dict.fromkeys(k for _s, k in solves))
    for name in shots or []:
        parts = name.split("+")
        if name not in known_shots and not (len(parts) > 1 and all(p in known_shots for p in parts)):
            raise Unreadable(
                f"--shot: {name!r} is not an aimed built-in shot (one of {', '.join(known_shots)})"
            )
    for name in skills or []:
        if name not in known_skills:
            raise Unreadable(f"--skill: {name!r} is not one of {', '.join(known_skills)}")
    picked = shots or known_shots
    return [(s, k) for s in picked for k in known_skills if not skills or k in skills]


def _scenario(shot: str, skill: str) -> Any:
    from sim.specs.scenario import Scenario

    return Scenario.build(board="magma", dice=["hero-d8"], shots=tuple(shot.split("+")), skill=skill)


@dataclass
class Table:
    """One scenario's kept reference values, and the world that throws the missing ones (built on
    first need)."""

    path: Path
    shot: str
    skill: str
    aim: tuple[float, float]
    choice: Technique
    refs: int
    values: dict[Technique, dict[int, tuple[float, float]]]
    thrown: int = 0  # throws made now (not read)
    _thrower: Any = field(default=None, repr=False)

    @classmethod
    def read(cls, path: Path) -> Table:
        try:
            raw = json.loads(path.read_text())
            choice = Technique.from_json(raw["choice"])
            if choice is None:
                raise ValueError("choice is not [speed, elevation, grip, spin, axis]")
            values: dict[Technique, dict[int, tuple[float, float]]] = {}
            for tj, rows in raw["values"]:
                t = Technique.from_json(tj)
                if t is None:
                    raise ValueError(f"{tj!r} is not a technique")
                values[t] = {int(i): (float(v[0]), float(v[1])) for i, v in rows.items()}
            return cls(path, raw["shot"], raw["skill"], tuple(raw["aim"]), choice, int(raw["refs"]), values)
        except (OSError, ValueError, KeyError, TypeError, IndexError) as exc:
            raise Unreadable(f"{path}: {exc}") from None

    def write(self) -> None:
        body = {
            "shot": self.shot,
            "skill": self.skill,
            "aim": list(self.aim),
            "choice": self.choice.to_json(),
            "refs": self.refs,
            "values": [
                [t.to_json(), {str(i): list(v) for i, v in sorted(rows.items())}]
                for t, rows in self.values.items()
            ],
        }
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(json.dumps(body))
        tmp.replace(self.path)

    def thrower(self) -> Any:
        if self._thrower is None:
            from sim.engine.worlds import build_thrower

            self._thrower = build_thrower(_scenario(self.shot, self.skill))
            self._thrower.disk_cache = False
        return self._thrower

    def rows(self, technique: Technique, indices) -> np.ndarray:
        """Reference values `indices` of a technique, thrown now where the table lacks them."""
        have = self.values.setdefault(technique, {})
        missing = [i for i in indices if i not in have]
        if missing:
            th = self.thrower()
            # the world as the solve sees it (what Thrower.technique does); inside a solve it already is
            with contextlib.nullcontext() if th._solving else th._solving_world():
                for i in missing:
                    have[i] = tuple(
                        A.AimSolver.reference_values(th.aim, self.aim, technique, 1, None, start=i)[0]
                    )
                    self.thrown += 1
        return np.array([have[i] for i in indices], dtype=float).reshape(len(indices), 2)

    def close(self) -> None:
        if self._thrower is not None:
            self._thrower.physics.close()
            self._thrower = None


def collect(folder: Path, solves: list[tuple[str, str]], wide: int) -> None:
    """Each solve's table (the module docstring), one file per scenario; a file already there is kept."""
    folder.mkdir(parents=True, exist_ok=True)
    for k, (shot, skill) in enumerate(solves, 1):
        path = folder / f"{shot}__{skill}.json"
        if path.exists():
            print(f"[{k}/{len(solves)}] {shot}/{skill}: kept", file=sys.stderr)
            continue
        t0 = time.process_time()
        from sim.engine.worlds import build_thrower

        th = build_thrower(_scenario(shot, skill))
        th.disk_cache = False
        table = Table(path, shot, skill, th.aim_point(), Technique(1.0, 0.0), 0, {})
        table._thrower = th
        asked = [0]

        def kept(
            aim, technique, refs=A.NOMINAL_REFS, skill=None, start=0, table=table, asked=asked
        ) -> np.ndarray:
            asked[0] += refs
            return table.rows(technique, range(start, start + refs))

        th.aim.reference_values = kept  # type: ignore[method-assign]
        table.choice = th.technique()
        table.refs = asked[0]
        solver, aim = th.aim, table.aim
        grid = solver.grid(aim)
        for p in grid:
            table.rows(p, range(wide))
        best = sorted(grid, key=lambda p: (A._score_of(table.rows(p, range(wide))), p))[:TOP_POINTS]
        for p in best:
            for grip, spin, axis in solver.hand_options():
                table.rows(Technique(p.speed_mps, p.elevation_deg, grip, spin, axis), range(wide))
        table.write()
        table.close()
        print(
            f"[{k}/{len(solves)}] {shot}/{skill}: {table.refs} reference throws, {table.thrown} kept "
            f"({time.process_time() - t0:.0f} s CPU)",
            file=sys.stderr,
            flush=True,
        )


def load_design(spec: str | None) -> type[A.AimSolver]:
    """The solver class of `--design path.py:Name` (a subclass of AimSolver), else AimSolver."""
    if not spec:
        return A.AimSolver
    path, _, name = spec.rpartition(":")
    if not path or not name:
        raise Unreadable(f"--design: {spec!r} is not FILE.py:CLASS")
    mod_spec = importlib.util.spec_from_file_location("aim_design", path)
    if mod_spec is None or mod_spec.loader is None or not Path(path).is_file():
        raise Unreadable(f"--design: {path}: no such file")
    mod = importlib.util.module_from_spec(mod_spec)
    sys.modules["aim_design"] = mod  # a dataclass in it looks its module up
    mod_spec.loader.exec_module(mod)
    cls = getattr(mod, name, None)
    if not (isinstance(cls, type) and issubclass(cls, A.AimSolver)):
        raise Unreadable(f"--design: {path} has no subclass of AimSolver named {name}")
    return cls


def settings(pairs: list[str]) -> dict[str, Any]:
    """`--set NAME=VALUE` pairs: constants of sim/engine/aim.py, each value JSON."""
    out = {}
    for pair in pairs:
        name, sep, text = pair.partition("=")
        if not sep or not hasattr(A, name) or not name.isupper():
            raise Unreadable(f"--set: {pair!r} is not NAME=VALUE of a constant of sim/engine/aim.py")
        try:
            out[name] = json.loads(text)
        except ValueError:
            raise Unreadable(f"--set {name}: {text!r} is not a JSON value") from None
        if isinstance(out[name], list):
            out[name] = tuple(out[name])
    return out


def replay_one(table: Table, cls: type[A.AimSolver], held: int = 128) -> dict[str, Any]:
    """One solve replayed on a table, and its choice against the kept one on the held-out throws."""
    sc = _scenario(table.shot, table.skill)

    def never(releases):  # every reference throw comes from the table
        raise RuntimeError("the replay's solver threw outside its reference throws")

    solver = cls(sc, Hand(sc), never)
    asked = [0]

    def read(aim, technique, refs=A.NOMINAL_REFS, skill=None, start=0) -> np.ndarray:
        asked[0] += refs
        return table.rows(technique, range(start, start + refs))

    solver.reference_values = read  # type: ignore[method-assign]
    choice = solver.solve(table.aim, None)
    row: dict[str, Any] = {
        "scenario": f"{table.shot}/{table.skill}",
        "refs": asked[0],
        "kept_refs": table.refs,
        "choice": choice.to_json(),
        "same": choice == table.choice,
        "difference": 0.0,
        "lo": 0.0,
        "hi": 0.0,
        "tolerance": 0.0,
        "thrown": 0,  # reference throws the table lacked, thrown for this replay
    }
    if not row["same"]:
        out = range(HELD_OUT_START, HELD_OUT_START + held)
        d = table.rows(choice, out)[:, 0] - table.rows(table.choice, out)[:, 0]
        sd = float(d.std(ddof=1))
        half = Z95 * sd / math.sqrt(len(d))
        row.update(
            difference=float(d.mean()),
            lo=float(d.mean()) - half,
            hi=float(d.mean()) + half,
            tolerance=A.NOMINAL_SEPARATION_SE * sd / math.sqrt(TOLERANCE_REFS),
        )
    row["thrown"] = table.thrown
    return row


def replay(
    folder: Path, cls: type[A.AimSolver], consts: dict[str, Any], held: int = 128
) -> list[dict[str, Any]]:
    """Every table of the folder replayed under `consts` (set for the run, then put back)."""
    paths = sorted(folder.glob("*.json"))
    if not paths:
        raise Unreadable(f"{folder}: no collected solves (run `collect` first)")
    tables = [Table.read(p) for p in paths]
    old = {k: getattr(A, k) for k in consts}
    rows = []
    try:
        for k, v in consts.items():
            setattr(A, k, v)
        for table in tables:
            rows.append(replay_one(table, cls, held))
            if table.thrown:
                table.write()  # what was thrown now is kept for the next replay
            table.close()
    finally:
        for k, v in old.items():
            setattr(A, k, v)
    return rows


def report(rows: list[dict[str, Any]]) -> str:
    lines = [
        f"{'scenario':<30} {'refs':>5} {'kept':>5}  choice / difference on held-out throws [95 %], tolerance"
    ]
    for r in rows:
        what = (
            "same choice"
            if r["same"]
            else f"{100 * r['difference']:+6.1f} [{100 * r['lo']:+.1f}, {100 * r['hi']:+.1f}] +-{100 * r['tolerance']:.1f}"
        )
        lines.append(f"{r['scenario']:<30} {r['refs']:5d} {r['kept_refs']:5d}  {what}")
    refs = sum(r["refs"] for r in rows) / len(rows)
    kept = sum(r["kept_refs"] for r in rows) / len(rows)
    differ = [r for r in rows if not r["same"]]
    worse = sum(r["hi"] < -r["tolerance"] for r in differ)
    better = sum(r["lo"] > r["tolerance"] for r in differ)
    beyond = sum(abs(r["difference"]) > r["tolerance"] for r in differ)
    mean = sum(r["difference"] for r in rows) / len(rows)
    lines.append(
        f"mean per solve: {refs:.0f} reference throws against the kept solves' {kept:.0f} ({refs / kept:.2f}); "
        f"same choice in {len(rows) - len(differ)} of {len(rows)}; mean difference {100 * mean:+.2f} points; "
        f"surely worse than the tolerance in {worse}, surely better in {better}; difference beyond it in {beyond}"
    )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="command", required=True)
    c = sub.add_parser("collect", help="keep each built-in solve's reference throws in DIR")
    c.add_argument("folder", type=Path)
    c.add_argument("--shot", action="append", help="a shot or NAME+NAME (default: every aimed built-in shot)")
    c.add_argument("--skill", action="append", help="a skill (default: novice, casual, expert)")
    c.add_argument(
        "--wide", type=int, default=64, help="throws of each point and each way at the best points"
    )
    r = sub.add_parser("replay", help="replay a solve on the kept throws")
    r.add_argument("folder", type=Path)
    r.add_argument("--design", help="FILE.py:CLASS, a subclass of sim.engine.aim.AimSolver")
    r.add_argument("--set", action="append", default=[], help="NAME=VALUE: a constant of sim/engine/aim.py")
    r.add_argument("--held", type=int, default=128, help="held-out reference throws per differing choice")
    r.add_argument("--json", type=Path, help="also write the rows here")
    a = ap.parse_args(argv)
    try:
        if a.command == "collect":
            if a.wide < 1:
                raise Unreadable("--wide: at least 1 throw")
            collect(a.folder, chosen(built_in(), a.shot, a.skill), a.wide)
            return 0
        if a.held < 2:
            raise Unreadable("--held: at least 2 throws")
        rows = replay(a.folder, load_design(a.design), settings(a.set), a.held)
    except Unreadable as exc:
        print(f"aim_replay: {exc}", file=sys.stderr)
        return 2
    print(report(rows))
    if a.json:
        a.json.write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
