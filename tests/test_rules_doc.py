"""docs/rules.md has a row per rule of the four books; every test a row names exists, and every row says
whether its rule is simulated, an option, or not modelled."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "rules.md"
STATUS = re.compile(r"^(simulated|option|not modelled yet|not modelled)\b")
BOOKS = ("### Chambers of Malevolent Magma", "### Fire at Will", "### Rock and Roll", "### The Big Wave")


def _rows() -> list[list[str]]:
    text = DOC.read_text().split("## Rules and their tests", 1)[1]
    rows = []
    for line in text.splitlines():
        if line.startswith("| ") and not line.startswith("| ---") and not line.startswith(("| section |", "| rule (short) |")):
            rows.append([c.strip() for c in line.strip().strip("|").split(" | ")])
    return rows


def test_every_book_has_its_table_and_every_row_a_status():
    text = DOC.read_text()
    for heading in BOOKS:
        assert heading in text
    rows = _rows()
    assert len(rows) > 100
    for cells in rows:
        assert len(cells) in (4, 5), cells
        statuses = [s.strip() for s in cells[-1].split(",")]
        assert all(STATUS.match(s) for s in statuses), cells


def test_every_test_a_row_names_exists():
    named = 0
    for cells in _rows():
        for ref in re.findall(r"`(tests/[^`]+)`", cells[-2]):
            path, _, name = ref.partition("::")
            assert (ROOT / path).is_file(), ref
            if name:
                assert re.search(rf"^def {re.escape(name)}\(", (ROOT / path).read_text(), re.M), ref
            named += 1
    assert named > 90
