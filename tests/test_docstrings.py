"""Every public module, class, function and method in `sim/` has a docstring.

Public: a name not starting with '_'. Exempt: properties (`property`, `cached_property`, setters) and
pydantic validators (`model_validator`, `field_validator`), whose purpose is their field's. Objects nested
in a private class or inside a function body are not walked.
"""

from __future__ import annotations

import ast
from pathlib import Path

SIM = Path(__file__).resolve().parents[1] / "sim"
EXEMPT_DECORATORS = {"property", "cached_property", "model_validator", "field_validator"}


def _exempt(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    for d in node.decorator_list:
        if isinstance(d, ast.Name) and d.id in EXEMPT_DECORATORS:
            return True
        if isinstance(d, ast.Call) and getattr(d.func, "id", getattr(d.func, "attr", "")) in EXEMPT_DECORATORS:
            return True
        if isinstance(d, ast.Attribute) and d.attr == "setter":
            return True
    return False


def missing_docstrings(source: str, label: str) -> list[str]:
    """`label:line: qualified name` of every public object of this module source without a docstring."""
    tree = ast.parse(source)
    missing = [] if ast.get_docstring(tree) else [f"{label}: module"]

    def walk(body: list[ast.stmt], prefix: str, in_class: bool) -> None:
        for n in body:
            if not isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) or n.name.startswith("_"):
                continue
            if in_class and isinstance(n, ast.FunctionDef) and _exempt(n):
                continue
            if not ast.get_docstring(n):
                missing.append(f"{label}:{n.lineno}: {prefix}{n.name}")
            if isinstance(n, ast.ClassDef):
                walk(n.body, f"{prefix}{n.name}.", True)

    walk(tree.body, "", False)
    return missing


def test_checker_flags_what_it_should() -> None:
    src = '''
class Public:
    x: int

    def method(self): ...

    @property
    def prop(self): ...

    def _private(self): ...


def function(): ...


def _helper(): ...
'''
    assert missing_docstrings(src, "m.py") == [
        "m.py: module",
        "m.py:2: Public",
        "m.py:5: Public.method",
        "m.py:13: function",
    ]


def test_every_public_object_in_sim_has_a_docstring() -> None:
    files = sorted(SIM.rglob("*.py"))
    assert len(files) > 50  # the walk found the package
    missing = []
    for p in files:
        missing += missing_docstrings(p.read_text(), str(p.relative_to(SIM.parent)))
    assert not missing, f"{len(missing)} public objects without a docstring:\n" + "\n".join(missing)
