"""The architecture, checked from the source: layers import only downward, no import cycles, PyBullet
only in the world layer (its import and its handles), no reaching into another module's private names."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SIM = Path(__file__).resolve().parents[1] / "sim"

# lower number = lower layer; a module may import its own layer and any lower one
LAYER = {
    "sim": 0, "sim.errors": 0, "sim.seeding": 0, "sim.vectors": 0, "sim.provenance": 0,
    "sim.specs": 1,
    "sim.rules": 2, "sim.world": 2,
    "sim.engine": 3,
    "sim.viewer": 3.5,  # presentation of throws: reads engine results; experiments use it for report.html
    "sim.experiments": 4,
    "sim.fights": 4.2,  # a package on the throw core, layered inside (INNER below)
    "sim.games": 4.3,  # games play fights: a package on the fights
    "sim.studies": 4.5,  # questions answered with the run machinery (validation, calibration, tuning...)
    "sim.studio": 4.7,  # the designer's local page: plays games and throws for a browser, above all of it
    "sim.cli": 5,
}
SIBLINGS_APART = {("sim.rules", "sim.world"), ("sim.world", "sim.rules")}

# the packages on the core, layered inside as the core is: each module stands at a core layer (its
# specs importable without PyBullet, its pure rules beside the world, never importing it) and imports
# only core layers up to that one and its package's modules up to that one
INNER = {
    "sim.fights": {
        "sim.fights": "sim.specs",  # the package's __init__: its declaration only
        "sim.fights.abilities": "sim.specs", "sim.fights.house_rules": "sim.specs",
        "sim.fights.monster": "sim.specs", "sim.fights.party": "sim.specs", "sim.fights.spec": "sim.specs",
        "sim.fights.throw_source": "sim.rules", "sim.fights.policy": "sim.rules",
        "sim.fights.state": "sim.rules", "sim.fights.damage": "sim.rules", "sim.fights.equipment": "sim.rules",
        "sim.fights.result": "sim.rules", "sim.fights.engine": "sim.rules",
        "sim.fights.resample": "sim.engine", "sim.fights.physics_source": "sim.engine",
        "sim.fights.board_templates": "sim.engine", "sim.fights.records": "sim.engine",
        "sim.fights.experiment": "sim.experiments", "sim.fights.kind": "sim.experiments",
        "sim.fights.report": "sim.experiments", "sim.fights.figures": "sim.experiments",
    },
    "sim.games": {
        "sim.games": "sim.specs",
        "sim.games.deck": "sim.specs", "sim.games.spec": "sim.specs",
        "sim.games.policy": "sim.rules", "sim.games.strong": "sim.rules", "sim.games.ladder": "sim.rules", "sim.games.estimates": "sim.specs", "sim.games.state": "sim.rules", "sim.games.result": "sim.rules",
        "sim.games.engine": "sim.rules", "sim.games.shop": "sim.rules",
        "sim.games.throw_bank": "sim.experiments", "sim.games.experiment": "sim.experiments",
        "sim.games.kind": "sim.experiments", "sim.games.report": "sim.experiments",
        "sim.games.figures": "sim.experiments", "sim.games.response": "sim.experiments",
        "sim.games.bank_size": "sim.specs", "sim.games.throw_cost": "sim.specs",
        "sim.games.bank_uncertainty": "sim.experiments",
        "sim.games.bank_recorder": "sim.experiments", "sim.games.progress": "sim.experiments",
    },
}
CORE = ("sim.specs", "sim.rules", "sim.world", "sim.engine", "sim.viewer", "sim.experiments")


def _modules() -> dict[str, Path]:
    out = {}
    for p in SIM.rglob("*.py"):
        rel = p.relative_to(SIM.parent).with_suffix("")
        name = ".".join(rel.parts)
        out[name.removesuffix(".__init__")] = p
    return out


def _imports(path: Path, name: str) -> set[str]:
    """Every sim module a file imports, at any depth (function-level imports count too)."""
    tree = ast.parse(path.read_text())
    found: set[str] = set()
    pkg = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = pkg.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1] + ([base] if base else []))
            found.add(base)
            found |= {f"{base}.{a.name}" for a in node.names}
    mods = _modules()
    return {m for m in found if m in mods and m != name}


def _layer_of(name: str) -> str:
    parts = name.split(".")
    for k in (".".join(parts[:2]), parts[0]):
        if k in LAYER:
            return k
    raise KeyError(name)


GRAPH = {name: _imports(p, name) for name, p in _modules().items()}


def test_every_module_belongs_to_a_layer():
    for name in GRAPH:
        _layer_of(name)


@pytest.mark.parametrize("name", sorted(GRAPH))
def test_imports_only_go_down(name):
    if name == "sim":  # the package's public API: lazy, and its imports run only for type checkers
        return
    me = _layer_of(name)
    for dep in GRAPH[name]:
        other = _layer_of(dep)
        if dep == "sim" or other == me or LAYER[other] == LAYER[me] == 0:  # layer-0 helpers are one layer
            continue
        assert (me, other) not in SIBLINGS_APART, f"{name} imports {dep}: {me} and {other} never import each other"
        assert LAYER[other] < LAYER[me], f"{name} ({me}) imports {dep} ({other}), a layer above or beside it"


@pytest.mark.parametrize("package", sorted(INNER))
def test_the_packages_on_the_core_are_layered_inside(package):
    inner = INNER[package]
    mine = {n for n in GRAPH if n == package or n.startswith(package + ".")}
    assert mine == set(inner), f"modules of {package} without an inner layer (or gone): {mine ^ set(inner)}"
    for name in sorted(mine):
        level = inner[name]
        for dep in GRAPH[name]:
            if dep == "sim":
                continue
            if dep in inner:
                assert LAYER[inner[dep]] <= LAYER[level], f"{name} ({level}) imports {dep} ({inner[dep]})"
                continue
            other = _layer_of(dep)
            if other in INNER and other != package:  # another package: games may use fights
                assert LAYER[other] < LAYER[package], f"{name} imports {dep}, a package above or beside it"
                assert LAYER[INNER[other][dep]] <= LAYER[level], f"{name} ({level}) imports {dep}"
                continue
            if LAYER[other] == 0:
                continue
            assert (level, other) not in SIBLINGS_APART, f"{name} ({level}) imports {dep} ({other})"
            assert LAYER[other] <= LAYER[level], f"{name} ({level}) imports {dep} ({other}), a layer above"


def test_the_core_never_names_the_packages_built_on_it():
    """The core reads what fights and games add through their declarations (sim/plugins.py), so it
    names neither, not even in a string or a comment."""
    for name, path in _modules().items():
        if _layer_of(name) in CORE:
            text = path.read_text()
            for word in ("sim.fights", "sim.games", "sim/fights", "sim/games"):
                assert word not in text, f"{name} names {word}"


def test_no_import_cycles():
    seen: dict[str, int] = {}
    stack: list[str] = []

    def visit(n: str) -> None:
        seen[n] = 1
        stack.append(n)
        for d in GRAPH.get(n, ()):
            if d == "sim":
                continue
            if seen.get(d) == 1:
                cycle = stack[stack.index(d):] + [d]
                pytest.fail("import cycle: " + " -> ".join(cycle))
            if d not in seen:
                visit(d)
        stack.pop()
        seen[n] = 2

    for n in sorted(GRAPH):
        if n not in seen:
            visit(n)


def test_only_the_world_layer_imports_pybullet():
    for name, path in _modules().items():
        if name.startswith("sim.world"):
            continue
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            mods = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            assert not any(m.split(".")[0] in ("pybullet", "pybullet_utils") for m in mods), f"{name} imports pybullet"


# what would hand a PyBullet handle out of the world: its client, its bound calls, body ids and the
# maps between ids and names (the world answers by name: sim/world/physics.py, sim/world/contacts.py)
WORLD_HANDLES = ("client", "fast_calls", "body", "names_by_body", "name_of")


@pytest.mark.parametrize("name", sorted(n for n in GRAPH if not n.startswith("sim.world")))
def test_no_pybullet_handle_outside_the_world_layer(name):
    tree = ast.parse(_modules()[name].read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in WORLD_HANDLES:
            pytest.fail(f"{name}:{node.lineno} uses {ast.unparse(node)}: PyBullet handles stay in sim/world/")


def test_the_handle_check_sees_a_handle():
    """The check above reads attribute names: one written as a module would write it is seen."""
    tree = ast.parse("def f(ph):\n    return ph.fast_calls().pose(ph.body('die:0'))\n")
    seen = {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)} & set(WORLD_HANDLES)
    assert seen == {"fast_calls", "body"}


def test_no_module_reaches_into_another_modules_private_names():
    for name, path in _modules().items():
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("sim"):
                private = [a.name for a in node.names if a.name.startswith("_")]
                assert not private, f"{name} imports private {private} from {node.module}"
            if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__"):
                owner = ast.unparse(node.value)
                if owner in ("self", "cls", "super()", "argparse") or (name, owner) in ALLOWED_PRIVATE:
                    continue
                pytest.fail(f"{name}:{node.lineno} reaches into {owner}.{node.attr}")


# where a module touches a private member on purpose: its own class's (a constructor filling in an
# instance it just made), or PyBullet's client id inside the world facade
ALLOWED_PRIVATE = {("sim.specs.base", "obj"), ("sim.experiments.store", "store"), ("sim.fights.resample", "new"),
                   ("sim.games.policy", "t"),  # a NamedTuple's own _asdict
                   ("sim.games.strong", "Table"),  # a NamedTuple's own _fields
                   ("sim.world.physics", "self.client")}
