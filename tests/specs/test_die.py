import math

import numpy as np
import pytest

from sim.errors import SpecError
from sim.specs.die import FACE_COUNTS, DieSpec, load_die


def die(shape, n, **kw):
    return DieSpec.from_dict({"name": "x", "shape": shape, "mass_g": 2.0, "faces": [str(i + 1) for i in range(n)], **kw}, "x.toml")


@pytest.mark.parametrize(
    "shape,n,kw,expected",
    [
        ("d6", 6, {"size_mm": 16}, lambda m, a: m * a * a / 6),
        ("d8", 8, {"size_mm": 14}, lambda m, a: m * a * a / 10),
        ("d4", 4, {"size_mm": 18}, lambda m, a: m * a * a / 20),
        ("d12", 12, {"size_mm": 10}, lambda m, a: m * a * a * (39 * (1 + 5**0.5) / 2 + 28) / 150),
    ],
)
def test_inertia_matches_closed_form(shape, n, kw, expected):
    d = die(shape, n, **kw)
    a = kw["size_mm"] * 1e-3
    for i in d.inertia_diagonal:
        assert i == pytest.approx(expected(d.mass_kg, a), rel=1e-9)


def test_face_order_and_corner_counts():
    assert [len(f.corners) for f in die("d6", 6, size_mm=16).face_geometry] == [4] * 6
    assert [len(f.corners) for f in die("d8", 8, size_mm=14).face_geometry] == [3] * 8
    assert [len(f.corners) for f in die("d12", 12, size_mm=10).face_geometry] == [5] * 12
    d6 = die("d6", 6, size_mm=16)
    np.testing.assert_allclose(d6.face_normals, [[1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 1], [0, 0, -1]], atol=1e-12)
    d8 = die("d8", 8, size_mm=14)
    np.testing.assert_allclose(d8.face_normals[0], np.ones(3) / math.sqrt(3), atol=1e-12)
    np.testing.assert_allclose(d8.face_normals[7], -np.ones(3) / math.sqrt(3), atol=1e-12)


@pytest.mark.parametrize("name", ["d4", "d6", "d8", "d12", "hero-d8", "hero-d6"])
def test_orientation_with_face_reads_that_face(name):
    d = load_die(name)
    for i in range(len(d.faces)):
        q = d.orientation_with_face(i, up=d.reading_rule == "top", yaw_deg=37.0)
        j, tilt = d.reading_face(q)
        assert j == i and tilt < 1e-6


@pytest.mark.parametrize(
    "patch,field",
    [({"faces": []}, "faces"), ({"mass_g": -1}, "mass_g"), ({"faces": ["1", "2"]}, "faces"), ({"shape": "d7"}, "shape"), ({"size_mm": None}, "size_mm")],
)
def test_bad_dice(patch, field):
    data = {"name": "x", "shape": "d6", "size_mm": 16, "mass_g": 2.0, "faces": list("123456")}
    data.update(patch)
    if data.get("size_mm") is None:
        data.pop("size_mm")
    with pytest.raises(SpecError) as exc:
        DieSpec.from_dict(data, "x.toml")
    assert field in str(exc.value) and str(exc.value).startswith("x.toml: ")


def test_cuboid_and_polyhedron():
    c = DieSpec.from_dict({"name": "c", "shape": "cuboid", "dims_mm": [10, 20, 30], "mass_g": 6, "faces": list("abcdef")}, "c")
    ix, iy, iz = c.inertia_diagonal
    m = 6e-3
    assert ix == pytest.approx(m * (0.02**2 + 0.03**2) / 12)
    assert iz == pytest.approx(m * (0.01**2 + 0.02**2) / 12)
    # an octahedron given as vertices behaves as a d8
    s = 10.0
    p = DieSpec.from_dict(
        {"name": "p", "shape": "polyhedron", "vertices_mm": [[s, 0, 0], [-s, 0, 0], [0, s, 0], [0, -s, 0], [0, 0, s], [0, 0, -s]], "mass_g": 1, "faces": list("abcdefgh")},
        "p",
    )
    assert len(p.face_geometry) == 8 and p.face_normals[0][2] > 0.5


@pytest.mark.parametrize("shape,kw", [("d4", {"size_mm": 18}), ("d6", {"size_mm": 16}), ("d8", {"size_mm": 14}),
                                      ("d12", {"size_mm": 10}), ("cuboid", {"dims_mm": [10, 14, 18]}),
                                      ("cylinder", {"radius_mm": 10, "height_mm": 4})])
def test_the_known_face_counts_validation_uses_are_the_hulls_face_counts(shape, kw):
    """Validation counts a regular shape's faces from FACE_COUNTS (no hull, no scipy): it must be what
    the hull gives, and a wrong number of labels is still refused."""
    d = die(shape, FACE_COUNTS[shape], **kw)
    assert len(d._faces_raw()) == FACE_COUNTS[shape]
    with pytest.raises(SpecError, match="faces"):
        die(shape, FACE_COUNTS[shape] + 1, **kw)


@pytest.mark.parametrize("height_mm", [4.0, 20.0])
def test_a_cylinders_collision_ends_are_squares_inside_its_rim(height_mm):
    """Bullet holds four points of a face landing flat: the collision shape's ends are squares (all four
    held) inside the 24-sided rim, which stays the die's outline (faces, footprint, extents)."""
    d = die("cylinder", 2, radius_mm=10, height_mm=height_mm)
    pts = d.collision_points_m
    top = pts[np.isclose(pts[:, 2], pts[:, 2].max())]
    assert len(top) == 4
    assert np.allclose(np.hypot(top[:, 0], top[:, 1]), (10 - min(0.5, height_mm / 8)) * 1e-3)
    assert np.hypot(pts[:, 0], pts[:, 1]).max() == pytest.approx(10e-3)
    assert pts[:, 2].max() == pytest.approx(height_mm / 2 * 1e-3)
    assert len(d.face_geometry[0].corners) == 24 and d.max_extent_mm == pytest.approx(max(20.0, height_mm))
