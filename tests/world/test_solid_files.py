"""Hull files are named by their content and written once per process: a world built again reads the
files the first one wrote, and two point sets never share a name."""

from __future__ import annotations

import os
import tempfile

import numpy as np
import pytest

from sim.world import solids


def test_a_hull_file_is_written_once_and_named_by_its_content():
    cube = np.array([[x, y, z] for x in (0.0, 1.0) for y in (0.0, 1.0) for z in (0.0, 1.0)])
    first = solids.hull_file(cube)
    stamp = os.stat(first).st_mtime_ns
    assert solids.hull_file(cube.copy()) == first and os.stat(first).st_mtime_ns == stamp
    other = solids.hull_file(cube * 2.0)
    assert other != first
    text = open(first).read()
    assert text.count("\nv ") + text.startswith("v ") == 8 and text.count("f ") == 12  # a cube's hull
    os.remove(first)  # a file removed under the process is written again, not left missing
    assert solids.hull_file(cube) == first and os.path.exists(first)


def test_convex_pieces_are_kept_per_region_and_callers_get_their_own_copies():
    from shapely.geometry import Point

    ring = Point(0, 0).buffer(1.0).difference(Point(0, 0).buffer(0.4))
    a = solids.convex_pieces(ring, 0.01)
    a[0][:] = 99.0  # a caller's change reaches no later caller
    b = solids.convex_pieces(ring, 0.01)
    assert len(a) == len(b) and not np.any(b[0] == 99.0)
    assert abs(sum(0.5 * solids._area2(p) for p in b) - ring.simplify(0.01).area) < 0.02


def _worker_folder(_: int) -> str:
    # points no earlier test used: a forked worker inherits the parent's paths of hulls it wrote
    box = np.array([[x, y, z] for x in (0.0, 3.0) for y in (0.0, 5.0) for z in (0.0, 7.0)])
    return os.path.dirname(solids.hull_file(box))


def test_a_pool_workers_folder_is_removed_when_it_exits(tmp_path, monkeypatch):
    import multiprocessing as mp
    from concurrent.futures import ProcessPoolExecutor

    if "fork" not in mp.get_all_start_methods():
        pytest.skip("no fork start method here")
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # the forked worker's temporary folder
    # a forked worker ends with os._exit: no atexit handler runs there, only multiprocessing's
    with ProcessPoolExecutor(1, mp_context=mp.get_context("fork")) as pool:
        folder = pool.submit(_worker_folder, 0).result()
    assert folder.startswith(str(tmp_path)) and os.path.basename(folder).startswith(solids.FOLDER_PREFIX)
    assert not os.path.exists(folder)  # the folder goes with its process


def test_the_folders_of_dead_processes_are_swept_and_live_ones_kept(tmp_path, monkeypatch):
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    dead, live = int(done.stdout), os.getppid()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    for pid in (dead, live):
        (tmp_path / f"{solids.FOLDER_PREFIX}{pid}-abc").mkdir()
        (tmp_path / f"{solids.FOLDER_PREFIX}{pid}-abc" / "piece.obj").write_text("v 0 0 0\n")
    (tmp_path / "dfsim-solid-old").mkdir()  # no process id in the name: not ours to judge
    solids.sweep_folders()
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [f"{solids.FOLDER_PREFIX}{live}-abc", "dfsim-solid-old"]
    )
