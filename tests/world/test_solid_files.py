"""Hull files are named by their content and written once per process: a world built again reads the
files the first one wrote, and two point sets never share a name."""

from __future__ import annotations

import os

import numpy as np

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
