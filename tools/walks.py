"""The files a reader walks along two paths of the code, counted by running them.

    python tools/walks.py

1. a resting die to the fight's life totals: one physics-in-the-loop fight (every throw settles on
   the board, is classified and fed to the fight engine, which keeps the heroes' and monster's life);
2. a shot's release to its Parquet row: one throw of the reference scenario thrown, classified and
   turned into the row a run stores, and the chunk written as Parquet.
Every `sim` source file whose code runs inside the path is listed (imports and world building are
left out: the world is built and the modules imported before the walk starts), so the count says how
many files a reader follows from one end to the other. Runs on any version of the layout.
"""

from __future__ import annotations

import importlib
import sys
import tempfile
from pathlib import Path


def _first(*paths: str):
    for p in paths:
        mod, _, attr = p.partition(":")
        try:
            return getattr(importlib.import_module(mod), attr)
        except (ImportError, AttributeError):
            continue
    raise ImportError(paths)


def _walk(fn) -> list[str]:
    import sim

    root = Path(sim.__file__).resolve().parent
    seen: set[str] = set()

    def prof(frame, event, arg):
        if event == "call":
            f = frame.f_code.co_filename
            if f.startswith(str(root)) and "<" not in f:
                seen.add(str(Path(f).relative_to(root.parent)))

    sys.setprofile(prof)
    try:
        fn()
    finally:
        sys.setprofile(None)
    return sorted(seen)


def main() -> int:
    load_fight = _first("sim.fights.spec:load_fight", "sim.specs.fight:load_fight")
    run_fight = _first("sim.fights.engine:run_fight", "sim.rules.fight:run_fight")
    physics = _first("sim.fights.physics_source:PhysicsSource", "sim.engine.fight_physics:PhysicsSource")
    spec = load_fight("reference")
    src = physics(3, spec.throws.colored_die, spec.throws.white_die)
    run_fight(spec, src, fight=0, log=False)  # builds the worlds, solves the aims: not part of the walk
    walk1 = _walk(lambda: run_fight(spec, src, fight=1, log=False))

    from sim.engine.records import throw_row
    from sim.engine.worlds import thrower_for
    from sim.specs.scenario import Scenario

    th = thrower_for(Scenario.build(board="magma", dice=["hero-d8"], shots=["standard"], skill="casual"))
    th.throw(1, 0)

    def one_row() -> None:
        import pyarrow as pa
        import pyarrow.parquet as pq

        row = throw_row(th.throw(1, 1), {"cell": 0})
        with tempfile.TemporaryDirectory() as d:
            pq.write_table(pa.Table.from_pylist([row]), Path(d) / "chunk.parquet")

    walk2 = _walk(one_row)
    for title, w in (("a resting die to the fight's life totals", walk1), ("a release to its Parquet row", walk2)):
        print(f"{title}: {len(w)} files")
        for f in w:
            print("   ", f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
