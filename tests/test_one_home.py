"""One home per concept, checked from the source: every error type lives in sim/errors.py, every
`sim/...py` path the docs, comments and data files name exists, the run folder's file names are
spelled only where they are defined, and the constants that were written twice stay written once."""

from __future__ import annotations

import ast
import builtins
import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SIM = ROOT / "sim"
EXCEPTIONS = {n for n, v in vars(builtins).items() if isinstance(v, type) and issubclass(v, BaseException)}


def _sources() -> dict[str, ast.Module]:
    return {str(p.relative_to(ROOT)): ast.parse(p.read_text()) for p in sorted(SIM.rglob("*.py"))}


def _base_names(node: ast.ClassDef) -> set[str]:
    return {b.id if isinstance(b, ast.Name) else b.attr for b in node.bases if isinstance(b, (ast.Name, ast.Attribute))}


def test_every_error_type_lives_in_sim_errors():
    trees = _sources()
    home = {n.name for n in ast.walk(trees["sim/errors.py"]) if isinstance(n, ast.ClassDef)}
    assert {"SpecError", "UncoveredThrow", "FightError", "Interrupted"} <= home
    errors = EXCEPTIONS | home
    elsewhere = [f"{path}:{n.lineno} {n.name}" for path, tree in trees.items() if path != "sim/errors.py"
                 for n in ast.walk(tree) if isinstance(n, ast.ClassDef) and _base_names(n) & errors
                 and not n.name.startswith("_")]  # a private one is one module's control flow
    assert not elsewhere, "error types outside sim/errors.py: " + ", ".join(elsewhere)


def test_every_sim_path_named_in_docs_comments_and_data_files_exists():
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    texts = [f for f in tracked if not f.startswith("sim/viewer/vendor/") and Path(f).suffix in
             (".py", ".md", ".toml", ".ipynb", ".txt", ".cfg", ".sh", ".yml", ".yaml", ".json", "")]
    pattern = re.compile(r"\bsim/[A-Za-z0-9_/]+\.py\b")
    missing = []
    for f in texts:
        p = ROOT / f
        if not p.is_file():
            continue
        for lineno, line in enumerate(p.read_text(errors="replace").splitlines(), 1):
            missing += [f"{f}:{lineno} names {m}" for m in pattern.findall(line) if not (ROOT / m).is_file()]
    assert not missing, "\n".join(missing)


RUN_FILE_NAMES = re.compile(r"[\"'](records\.parquet|manifest\.json|prepared\.json|experiment\.resolved\.json"
                            r"|summary\.json|report\.md|report\.html|experiment\.toml)[\"']")


def test_run_folder_file_names_are_spelled_where_they_are_defined():
    spelled = {str(p.relative_to(ROOT)) for p in SIM.rglob("*.py") if RUN_FILE_NAMES.search(p.read_text())}
    spelled.discard("sim/engine/run_folder.py")
    # every module reads a run folder's file names from sim.engine.run_folder
    assert not spelled, f"spelled again (use sim.engine.run_folder): {sorted(spelled)}"


def test_constants_once():
    """AIM_OBJECTIVES, the hero colours and the skill spreads each have one definition."""
    found: dict[str, list[str]] = {}
    for path, tree in _sources().items():
        for n in tree.body:
            targets = n.targets if isinstance(n, ast.Assign) else [n.target] if isinstance(n, ast.AnnAssign) else []
            value = getattr(n, "value", None)
            if not isinstance(value, (ast.Tuple, ast.List)) or not value.elts:
                continue
            if not all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in value.elts):
                continue
            key = repr(tuple(e.value for e in value.elts))
            found.setdefault(key, []).extend(f"{path}:{t.id}" for t in targets if isinstance(t, ast.Name))
    twice = {k: v for k, v in found.items() if len(v) > 1}
    assert not twice, twice
