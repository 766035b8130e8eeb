"""The public API of `import sim`: what type checkers see is what the lazy table gives, every name
resolves to the object of that name, and `import sim` alone stays cheap (no PyBullet, no pandas)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import sim

INIT = Path(sim.__file__)


def _checked_imports() -> dict[str, str]:
    """name -> module of every import under `if TYPE_CHECKING:` in sim/__init__.py."""
    out = {}
    for node in ast.parse(INIT.read_text()).body:
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
            for imp in node.body:
                assert isinstance(imp, ast.ImportFrom)
                out.update({a.asname or a.name: imp.module for a in imp.names})
    return out


def test_type_checkers_see_the_names_the_lazy_table_gives():
    assert _checked_imports() == sim._LAZY


def test_every_public_name_resolves_to_the_object_of_that_name():
    for name in sim._LAZY:
        obj = getattr(sim, name)
        assert obj.__name__ == name, name
    assert set(sim.__all__) == {"__version__", *sim._LAZY}
    assert {"ThrowResult", "Outcome", "Release", "Results", "FightResult", "RunFolder"} <= set(sim.__all__)


def test_import_sim_alone_stays_cheap():
    code = "import sys, sim; print(sorted(m for m in ('pybullet', 'pandas', 'sim.engine', 'sim.world') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == "[]"
