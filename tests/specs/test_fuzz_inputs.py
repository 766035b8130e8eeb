"""Bad data files, table-driven and fuzzed: every one is refused with a SpecError that names the file and
the field, never a traceback, a hang, or silent acceptance.

The systematic table takes every built-in file of every kind and, once per distinct field path, puts a
wrong value there: a number spelled as a string, a boolean, NaN, +-infinity, +-1e18 (or 2**70 for an
integer), a number where text belongs, a text of 10,001 characters. The hand-written table adds the
cases a field-by-field change cannot make (structure, geometry, files that are not TOML at all). A
Hypothesis fuzz then throws arbitrary TOML values at every loader.
"""

from __future__ import annotations

import copy
import json
import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sim.errors import SpecError
from sim.experiments.spec import parse_experiment
from sim.specs.catalog import SPEC_CLASSES, check_file
from sim.specs.datafiles import builtin_dir, builtin_names, read_toml

KINDS = tuple(SPEC_CLASSES)  # every kind of data file the catalog validates (board, die, ..., monster, fight)


# ---------------------------------------------------------------- TOML text ----
def toml_value(v: Any) -> str:
    """A Python value as TOML (inline tables and arrays only; enough for any data file)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v)  # JSON string escapes are TOML basic-string escapes
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{json.dumps(str(k))} = {toml_value(x)}" for k, x in v.items()) + "}"
    raise TypeError(type(v))


def toml_text(data: dict[str, Any]) -> str:
    return "\n".join(f"{json.dumps(str(k))} = {toml_value(v)}" for k, v in data.items()) + "\n"


def builtin(kind: str, name: str) -> dict[str, Any]:
    return read_toml(builtin_dir(kind) / f"{name}.toml")


def put(data: Any, path: tuple, value: Any) -> None:
    for p in path[:-1]:
        data = data[p]
    data[path[-1]] = value


def leaves(data: Any, prefix: tuple = ()):
    """(path, value) of every scalar in a parsed file."""
    if isinstance(data, dict):
        for k, v in data.items():
            yield from leaves(v, (*prefix, k))
    elif isinstance(data, list):
        for i, v in enumerate(data):
            yield from leaves(v, (*prefix, i))
    else:
        yield prefix, data


def dotted(path: tuple) -> str:
    return ".".join(str(p) for p in path)


def assert_refused(exc: SpecError, source: Path | str, path: str) -> None:
    """The error names this file and the field (the changed key or a table holding it) and is one line."""
    assert exc.source == str(source), (exc.source, str(source))
    assert exc.field, f"no field named: {exc}"
    assert path == exc.field or path.startswith(exc.field + "."), f"field {exc.field!r} for a change at {path!r}: {exc}"
    assert "\n" not in str(exc) and len(str(exc)) < 800, str(exc)


# ---------------------------------------------------------------- the systematic table ----
def _bad_values(value: Any) -> list[tuple[str, Any]]:
    if isinstance(value, bool):
        return [("int-for-bool", 1), ("string-for-bool", "true")]
    if isinstance(value, int):
        return [("string", str(value)), ("bool", True), ("nan", math.nan), ("inf", math.inf),
                ("huge", 2**70), ("-huge", -(2**70))]
    if isinstance(value, float):
        return [("string", str(value)), ("bool", True), ("nan", math.nan), ("inf", math.inf), ("-inf", -math.inf),
                ("huge", 1e18), ("-huge", -1e18)]
    if isinstance(value, str):
        return [("number-for-text", 5), ("long-text", "x" * 10_001)]
    return []


def _systematic() -> list[tuple[str, str, tuple, str, Any]]:
    cases = []
    for kind in KINDS:
        seen: set[tuple] = set()
        for name in builtin_names(kind):
            for path, value in leaves(builtin(kind, name)):
                schema = (type(value).__name__, *(("#" if isinstance(p, int) else p) for p in path))
                if schema in seen or path == ("kind",):
                    continue
                seen.add(schema)
                for label, bad in _bad_values(value):
                    cases.append((kind, name, path, label, bad))
    return cases


SYSTEMATIC = _systematic()


@pytest.mark.parametrize("kind, name, path, label, bad", SYSTEMATIC,
                         ids=[f"{k}-{n}-{dotted(p)}-{lab}" for k, n, p, lab, _ in SYSTEMATIC])
def test_wrong_value_in_every_field_is_refused(kind, name, path, label, bad, tmp_path):
    data = {"kind": kind, **builtin(kind, name)}
    put(data, path, bad)
    f = tmp_path / f"{name}.toml"
    f.write_text(toml_text(data))
    with pytest.raises(SpecError) as ei:
        check_file(f)
    assert_refused(ei.value, f, dotted(path))


def test_the_systematic_table_is_large():
    # every kind contributes, and the table covers several hundred field x value cases
    assert {c[0] for c in SYSTEMATIC} == set(KINDS)
    assert len(SYSTEMATIC) > 400


# ---------------------------------------------------------------- the hand-written table ----
def _board(**changes) -> dict[str, Any]:
    d = {"kind": "board", **builtin("board", "magma")}
    d.update(changes)
    return d


def _tiny_board() -> dict[str, Any]:
    shape = {"kind": "circle", "radius_mm": 12.0}
    return {"kind": "board", "name": "tiny", "thickness_mm": 2.0, "outline": {"shape": "circle", "radius_mm": 12.0},
            "sections": [{"id": "c", "value": 1, "bullseye": True, "shape": shape}]}


def _holey_board() -> dict[str, Any]:
    d = _tiny_board()
    d["outline"]["radius_mm"] = d["sections"][0]["shape"]["radius_mm"] = 280.0
    d["holes"] = [{"id": "h", "shape": {"kind": "circle", "radius_mm": 279.5}}]
    return d


def _section(shape: dict) -> dict[str, Any]:
    d = _board()
    d["sections"] = [{"id": "s", "value": 1, "shape": shape}]
    return d


def _die(**changes) -> dict[str, Any]:
    d = {"kind": "die", **builtin("die", "hero-d8")}
    d.update(changes)
    return d


def _poly(vertices) -> dict[str, Any]:
    d = _die(shape="polyhedron", vertices_mm=vertices)
    d.pop("size_mm", None)
    d["faces"] = [str(i) for i in range(6)]
    return d


CUBE = [[x, y, z] for x in (-8, 8) for y in (-8, 8) for z in (-8, 8)]


def _shot(**release) -> dict[str, Any]:
    d = {"kind": "shot", **builtin("shot", "standard")}
    d["release"] = {**d["release"], **release}
    return d


def _prop(name: str, **shape) -> dict[str, Any]:
    d = {"kind": "prop", **builtin("prop", name)}
    d["shape"] = {**d["shape"], **shape}
    return d


def _template(**changes) -> dict[str, Any]:
    d = {"kind": "template", **builtin("template", "fireball")}
    d.update(changes)
    return d


def _materials(**changes) -> dict[str, Any]:
    d = {"kind": "material", **builtin("material", "default")}
    d.update(changes)
    return d


def _deep(n: int) -> str:
    return 'kind = "board"\nname = "deep"\nnotes = ' + "[" * n + "]" * n + "\n"


# (id, file content: dict, raw bytes or a function making them, expected field (the error names it or a table holding it))
HAND: list[tuple[str, Any, str]] = [
    ("binary-file", bytes(range(256)) * 4, ""),
    ("latin-1-file", 'name = "caf\xe9"\n'.encode("latin-1"), ""),
    ("nul-bytes", b'name = "a\x00b"\n', ""),
    ("nested-20000-deep", _deep(20_000).encode(), ""),
    ("nested-200-deep", _deep(200).encode(), ""),
    ("not-toml", b"this is = = not toml", ""),
    ("empty-file", b"", "kind"),
    ("kind-is-a-number", {**builtin("board", "magma"), "kind": 5}, "kind"),
    ("kind-is-a-table", {**builtin("board", "magma"), "kind": {"a": 1}}, "kind"),
    ("kind-unknown", {**builtin("board", "magma"), "kind": "spaceship"}, "kind"),
    ("kind-mismatch", {**builtin("die", "hero-d8"), "kind": "board"}, ""),
    ("notes-50-MB", lambda: toml_text(_board(notes="n" * 50_000_000)).encode(), ""),
    ("notes-10001-chars", _board(notes="n" * 10_001), "notes"),
    ("thickness-as-string", _board(thickness_mm="2"), "thickness_mm"),
    ("board-radius-1e9", _board(outline={"shape": "circle", "radius_mm": 1e9}), "outline.radius_mm"),
    ("board-polygon-nan", _board(outline={"shape": "polygon", "points_mm": [[0, 0], [math.nan, 0], [0, 100]]}),
     "outline.points_mm"),
    ("board-polygon-huge", _board(outline={"shape": "polygon", "points_mm": [[0, 0], [1e9, 0], [0, 1e9]]}),
     "outline.points_mm"),
    ("board-too-small", _tiny_board(), "outline"),
    ("board-hole-too-large", _holey_board(), "holes"),
    ("board-1000-sections", _board(sections=[builtin("board", "magma")["sections"][0]] * 1_000), "sections"),
    ("board-section-value-beyond-int64", _section({"kind": "circle", "radius_mm": 100}) | {
        "sections": [{"id": "s", "value": 2**64, "shape": {"kind": "circle", "radius_mm": 100}}]}, "sections.0.value"),
    ("sector-start-inf", _section({"kind": "circle", "radius_mm": 100, "start_deg": math.inf, "end_deg": 10}),
     "sections.0.shape.start_deg"),
    ("sector-end-1e18", _section({"kind": "circle", "radius_mm": 100, "start_deg": 0, "end_deg": 1e18}),
     "sections.0.shape.end_deg"),
    ("sector-start-1e18", _section({"kind": "annulus", "r_inner_mm": 10, "r_outer_mm": 100, "start_deg": 1e18}),
     "sections.0.shape.start_deg"),
    ("sector-center-nan", _section({"kind": "circle", "radius_mm": 100, "center_mm": [math.nan, 0]}),
     "sections.0.shape.center_mm.0"),
    ("section-kind-5", _section({"kind": 5, "radius_mm": 100}), "sections.0.shape"),
    ("section-polygon-10000-points", _section({"kind": "polygon", "points_mm": [
        [100 * math.cos(t / 1591.5), 100 * math.sin(t / 1591.5)] for t in range(10_000)]}), "sections.0.shape.points_mm"),
    ("die-cuboid-1e9", _die(shape="cuboid", dims_mm=[1e9, 10, 10], faces=[str(i) for i in range(6)]), "dims_mm"),
    ("die-cuboid-nan", _die(shape="cuboid", dims_mm=[math.nan, 10, 10], faces=[str(i) for i in range(6)]), "dims_mm"),
    ("die-cuboid-2-dims", _die(shape="cuboid", dims_mm=[10, 10], faces=[str(i) for i in range(6)]), "dims_mm"),
    ("die-cylinder-infinite", _die(shape="cylinder", radius_mm=8, height_mm=math.inf, faces=["a", "b"]), "height_mm"),
    ("die-cylinder-1e9", _die(shape="cylinder", radius_mm=1e9, height_mm=10, faces=["a", "b"]), "radius_mm"),
    ("die-polyhedron-coplanar", _poly([[0, 0, 0], [10, 0, 0], [0, 10, 0], [10, 10, 0], [5, 5, 0]]), "vertices_mm"),
    ("die-polyhedron-duplicates", _poly([[0, 0, 0]] * 4 + [[1, 0, 0]]), "vertices_mm"),
    ("die-polyhedron-collinear", _poly([[0, 0, 0], [1, 0, 0], [2, 0, 0], [3, 0, 0]]), "vertices_mm"),
    ("die-polyhedron-2d-points", _poly([[0, 0], [1, 0], [0, 1], [1, 1]]), "vertices_mm"),
    ("die-polyhedron-huge", _poly([[v * 1e8 for v in p] for p in CUBE]), "vertices_mm"),
    ("die-polyhedron-nan", _poly([[math.nan, 0, 0]] + CUBE[1:]), "vertices_mm"),
    ("die-no-faces", _die(faces=[]), "faces"),
    ("die-mass-string", _die(mass_g="5"), "mass_g"),
    ("material-entry-without-name", _materials(materials=["plastic", "", "wood", "cardboard", "foam", "rubber",
                                                          "resin"]), "materials"),
    ("material-entry-blank", _materials(materials=["plastic", "   ", "wood", "cardboard", "foam", "rubber", "resin"]),
     "materials"),
    ("material-duplicate", _materials(materials=["plastic", "plastic", "wood", "cardboard", "foam", "rubber", "resin"]),
     "materials"),
    ("material-pair-unknown", _materials(pairs=[{"a": "plastic", "b": "gold", "friction": 0.3, "restitution": 0.5}]),
     "pairs.0.b"),
    ("shot-unknown-requirement", {**builtin("shot", "standard"), "kind": "shot", "requirements": ["levitate"]},
     "requirements.0"),
    ("shot-aim-point-without-aim", _shot(aim="point"), "release.aim_mm"),
    ("shot-aim-point-nan", _shot(aim="point", aim_mm=[math.nan, 0]), "release.aim_mm.0"),
    ("shot-aim-point-far", _shot(aim="point", aim_mm=[1e9, 0]), "release.aim_mm.0"),
    ("shot-unknown-prop", {**builtin("shot", "standard"), "kind": "shot", "props": ["unicorn"]}, "props.0"),
    ("shot-requirement-without-prop", {**builtin("shot", "standard"), "kind": "shot",
                                       "requirements": ["firewall"]}, "requirements.0"),
    ("shot-lateral-1e18", _shot(lateral_mm=1e18), "release.lateral_mm"),
    # physical sense: where a thrower can stand, against the boards the file would be thrown at
    ("shot-hand-over-the-board", _shot(distance_mm=100), "release.distance_mm"),
    ("shot-hand-over-the-board-sideways", _shot(distance_mm=150, lateral_mm=100), "release.distance_mm"),
    ("shot-aim-point-off-the-board", _shot(aim="point", aim_mm=[600, 0]), "release.aim_mm"),
    ("shot-bounce-behind-the-hand", _shot(bounce_gap_mm=500), "release.bounce_gap_mm"),
    ("key-given-twice", b'kind = "board"\nname = "a"\nname = "b"\n', ""),
    ("table-given-twice", b'kind = "shot"\nname = "a"\n[release]\ndistance_mm = 650\n[release]\nheight_mm = 1\n', ""),
    ("template-in-boxes-zero", _template(in_boxes=0), "in_boxes"),
    ("template-in-boxes-true", _template(in_boxes=True), "in_boxes"),
    ("shot-azimuth-inf", _shot(azimuth_deg=math.inf), "release.azimuth_deg"),
    ("prop-mat-hole-outside", _prop("puddle", hole={"x_mm": 500, "y_mm": 0, "rx_mm": 50, "ry_mm": 50}), "shape.hole"),
    ("prop-volcano-crater-wider-than-top", _prop("volcano", crater_radius_mm=60), "shape"),
    ("prop-volcano-crater-deeper-than-height", _prop("volcano", crater_depth_mm=80), "shape"),
    ("prop-placement-nan", {**builtin("prop", "firewall"), "kind": "prop",
                            "placement": {"anchor": "board-edge", "x_mm": math.nan}}, "placement.x_mm"),
    ("prop-placement-far", {**builtin("prop", "firewall"), "kind": "prop",
                            "placement": {"anchor": "board-edge", "x_mm": 1e9}}, "placement.x_mm"),
    ("prop-type-5", {**builtin("prop", "firewall"), "kind": "prop", "shape": {"type": 5}}, "shape"),
    ("template-10-km", _template(outline=[{"kind": "circle", "radius_mm": 1e7}]), "outline.0.radius_mm"),
    ("template-too-large", _template(outline=[{"kind": "circle", "radius_mm": 900}]), "outline"),
    ("template-damage-beyond-int64", _template(damage=2**64), "damage"),
    ("template-region-nan", _template(regions=[{"id": "c", "damage": 1,
                                                "shape": {"kind": "circle", "radius_mm": math.nan}}]),
     "regions.0.shape.radius_mm"),
    ("template-polygon-5000-points", _template(outline=[{"kind": "polygon", "points_mm": [
        [50 * math.cos(t / 795.8), 50 * math.sin(t / 795.8)] for t in range(5_000)]}]), "outline.0.points_mm"),
]


@pytest.mark.parametrize("case, content, field", HAND, ids=[c[0] for c in HAND])
def test_hand_written_bad_file_is_refused(case, content, field, tmp_path):
    f = tmp_path / f"{case}.toml"
    content = content() if callable(content) else content
    f.write_bytes(content if isinstance(content, bytes) else toml_text(content).encode())
    with pytest.raises(SpecError) as ei:
        check_file(f)
    exc = ei.value
    assert exc.source == str(f), str(exc)
    assert "\n" not in str(exc) and len(str(exc)) < 800, str(exc)[:500]
    if field:  # the expected field, a table holding it or an item of it
        assert exc.field and (field == exc.field or field.startswith(exc.field + ".")
                              or exc.field.startswith(field + ".")), f"expected {field!r}: {exc}"


# ---------------------------------------------------------------- built-ins stay valid ----
@pytest.mark.parametrize("kind", KINDS)
def test_every_builtin_file_is_accepted(kind):
    for name in builtin_names(kind):
        check_file(builtin_dir(kind) / f"{name}.toml")


# ---------------------------------------------------------------- Hypothesis ----
SCALARS = (st.booleans() | st.integers(min_value=-(2**80), max_value=2**80)
           | st.floats(allow_nan=True, allow_infinity=True) | st.text(max_size=30))
TOML_VALUES = st.recursive(SCALARS,
                           lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4),
                           max_leaves=12)


def _loads(cls, data: dict, source: str):
    """Load as the CLI does: any outcome but a spec or a SpecError is a bug."""
    try:
        return cls.from_dict(data, source)
    except SpecError as exc:
        assert exc.source == source and "\n" not in str(exc)
        return None


@pytest.mark.parametrize("kind", KINDS)
@settings(derandomize=True, max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_fuzz_any_value_anywhere(kind, data):
    """Replace one value of a built-in file (or add a key) by an arbitrary TOML value."""
    name = data.draw(st.sampled_from(builtin_names(kind)), label="file")
    base = copy.deepcopy(builtin(kind, name))
    paths = [p for p, _ in leaves(base) if p]
    path = data.draw(st.sampled_from(paths), label="path")
    if data.draw(st.booleans(), label="cut"):
        path = path[: data.draw(st.integers(1, len(path)), label="depth")]
    put(base, path, data.draw(TOML_VALUES, label="value"))
    _loads(SPEC_CLASSES[kind], base, f"fuzz.{kind}")


@pytest.mark.parametrize("kind", KINDS)
@settings(derandomize=True, max_examples=40, deadline=None)
@given(data=st.data())
def test_fuzz_arbitrary_documents(kind, data):
    """Documents of the kind's own keys (and others) holding arbitrary values."""
    cls = SPEC_CLASSES[kind]
    keys = st.sampled_from(sorted(cls.model_fields)) | st.text(max_size=12)
    doc = data.draw(st.dictionaries(keys, TOML_VALUES, max_size=8), label="document")
    _loads(cls, doc, f"fuzz.{kind}")


@settings(derandomize=True, max_examples=80, deadline=None)
@given(data=st.data())
def test_fuzz_experiment_files(data):
    name = data.draw(st.sampled_from(builtin_names("experiment")), label="file")
    base = copy.deepcopy(read_toml(builtin_dir("experiment") / f"{name}.toml"))
    paths = [p for p, _ in leaves(base) if p]
    path = data.draw(st.sampled_from(paths), label="path")
    put(base, path, data.draw(TOML_VALUES, label="value"))
    try:
        parse_experiment(base, "fuzz.experiment")
    except SpecError as exc:
        assert exc.source == "fuzz.experiment" and "\n" not in str(exc)


@settings(derandomize=True, max_examples=60, deadline=None)
@given(raw=st.binary(max_size=200) | st.text(max_size=200).map(str.encode))
def test_fuzz_raw_bytes(raw, tmp_path_factory):
    f = tmp_path_factory.mktemp("raw") / "x.toml"
    f.write_bytes(raw)
    try:
        check_file(f)
    except SpecError as exc:
        assert exc.source == str(f) and "\n" not in str(exc)
