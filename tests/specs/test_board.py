import numpy as np
import pytest

from sim.errors import SpecError
from sim.specs.board import BoardSpec, load_board


def small_board(**extra):
    data = {
        "name": "t",
        "thickness_mm": 2.0,
        "outline": {"shape": "circle", "radius_mm": 100},
        "sections": [
            {"id": "outer", "value": 1, "shape": {"kind": "circle", "radius_mm": 100}},
            {"id": "east", "value": 3, "shape": {"kind": "annulus", "r_inner_mm": 20, "r_outer_mm": 100, "start_deg": -45, "end_deg": 45}},
            {"id": "bull", "value": 10, "bullseye": True, "shape": {"kind": "circle", "radius_mm": 20}},
        ],
        "holes": [{"shape": {"kind": "circle", "center_mm": [0, 60], "radius_mm": 15}}],
        "bones": [{"shape": {"kind": "polygon", "points_mm": [[-100, -10], [-80, -10], [-80, 10], [-100, 10]]}}],
    }
    data.update(extra)
    return BoardSpec.from_dict(data, "t.toml")


def test_painter_order_and_regions():
    b = small_board()
    pts = np.array([[0, 0], [0.05, 0], [-0.05, 0], [0, 0.06], [-0.09, 0], [0.2, 0]])
    kinds = [(r.kind, r.id) for r in b.regions_at(pts)]
    assert kinds == [("section", "bull"), ("section", "east"), ("section", "outer"), ("hole", "hole-0"), ("bones", "bones-0"), ("off", "off")]


def test_rank_orders_off_hole_bones_sections():
    b = small_board()
    r = b.regions_at(np.array([[0.2, 0], [0, 0.06], [-0.09, 0], [-0.05, 0], [0.05, 0]]))
    ranks = [x.rank for x in r]
    assert ranks == sorted(ranks)


@pytest.mark.parametrize(
    "patch, needle",
    [
        ({"holes": [{"shape": {"kind": "circle", "center_mm": [95, 0], "radius_mm": 15}}]}, "holes.0.shape"),
        ({"sections": [{"id": "x", "value": 1, "shape": {"kind": "polygon", "points_mm": [[0, 0], [10, 10], [10, 0], [0, 10]]}}]}, "cross"),
        ({"thickness_mm": -1}, "thickness_mm"),
        ({"sections": []}, "sections"),
    ],
)
def test_bad_boards_are_one_line_errors(patch, needle):
    with pytest.raises(SpecError) as exc:
        small_board(**patch)
    msg = str(exc.value)
    assert msg.startswith("t.toml: ") and needle in msg and "\n" not in msg


def test_builtin_boards_have_required_features():
    for name in ("magma", "classic"):
        b = load_board(name)
        assert b.estimated
        assert len(b.holes) >= 6 and len(b.bones) >= 1
        bulls = [s for s in b.sections if s.bullseye]
        assert len(bulls) == 1 and bulls[0].value == 10
        # values rise toward the centre along a ray that avoids holes and bones
        vals = []
        for r in np.linspace(0.0, b.radius_m * 0.99, 40):
            reg = b.region_at(r * np.cos(0.3), r * np.sin(0.3))
            if reg.kind == "section":
                vals.append(10 if reg.bullseye else reg.value)
        assert vals[0] == 10 and all(a >= b_ for a, b_ in zip(vals, vals[1:]))


@pytest.mark.parametrize("name", ["magma", "classic"])
@pytest.mark.parametrize("ignore", [(), ("hole",), ("bones",)])
def test_regions_are_every_layers_exact_test_in_painters_order(name, ignore):
    """`regions_at` asks the exact test only of layers whose bounding box holds a point: it reads what
    asking every layer reads, on random points and on every layer's corners (the boundaries, where a
    box's edge and a layer's meet)."""
    import shapely

    b = load_board(name)
    rng = np.random.default_rng(5)
    corners = [np.asarray(g.exterior.coords)[:, :2] for g, _ in b._layers if hasattr(g, "exterior")]
    pts = np.vstack([rng.uniform(-1.2 * b.radius_m, 1.2 * b.radius_m, (3000, 2)), *corners])
    for chunk in np.array_split(pts, 300):
        every = ["off"] * len(chunk)
        on = shapely.covers(b.outline_geom, shapely.points(chunk))
        for geom, region in b._layers:
            if region.kind not in ignore:
                for i in np.nonzero(shapely.covers(geom, shapely.points(chunk)) & on)[0]:
                    every[i] = (region.kind, region.id)
        got = [r.kind if r.kind == "off" else (r.kind, r.id) for r in b.regions_at(chunk, ignore)]
        assert got == every
