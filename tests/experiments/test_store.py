"""The output folder: atomic chunks, schema unification, refusal of foreign folders, streaming reads."""

from __future__ import annotations

from dataclasses import dataclass, field

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from sim.errors import SpecError
from sim.experiments.store import Store


@dataclass
class _Cell:
    name: str


@dataclass
class _Exp:
    """The few attributes of sim.experiment.Experiment that the store uses."""

    hash: str = "abc123"
    name: str = "fake"
    source: str = "<none>"
    cells: list = field(default_factory=lambda: [_Cell("a"), _Cell("b")])

    def resolved(self) -> dict:
        return {"hash": self.hash}


def _table(cell: int, start: int, n: int, section=None) -> pa.Table:
    return pa.Table.from_pylist([
        {"cell": cell, "index": k, "section": section, "value": 1 if section else None, "damage": float(k)}
        for k in range(start, start + n)
    ])


def test_finalize_unifies_null_columns_and_keeps_order(tmp_path):
    st = Store.prepare(tmp_path / "o", _Exp())
    st.write_chunk(0, 1, _table(0, 3, 3, section="s1"))
    st.write_chunk(0, 0, _table(0, 0, 3))  # every 'section' null here: a null-typed column
    st.write_chunk(1, 0, _table(1, 0, 3, section="s2"))
    st.flush()  # chunks take their names once the manifest recording their hashes is written
    assert st.done_chunks() == {(0, 0), (0, 1), (1, 0)}
    assert not list((tmp_path / "o" / "chunks").glob(".*"))  # no temporary files left
    path = st.finalize([(0, 0), (0, 1), (1, 0)])
    t = pq.read_table(path)
    assert t.schema.field("section").type == pa.string()
    assert t.column("index").to_pylist() == [0, 1, 2, 3, 4, 5, 0, 1, 2]
    assert t.column("section").to_pylist()[:4] == [None, None, None, "s1"]
    cells = [(c, tab.num_rows) for c, tab in st.iter_cell_columns(["damage"])]
    assert cells == [(0, 6), (1, 3)]


def test_refusals(tmp_path):
    out = tmp_path / "o"
    Store.prepare(out, _Exp())
    Store.check(out, "abc123")  # same experiment: resume is fine
    with pytest.raises(SpecError, match="different experiment"):
        Store.check(out, "other")
    Store.check(out, "other", force=True)
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("x")
    with pytest.raises(SpecError, match="holds no dfsim results"):
        Store.check(foreign, "abc123")
    f = tmp_path / "file"
    f.write_text("x")
    with pytest.raises(SpecError, match="not a folder"):
        Store.check(f, "abc123")


def test_prepare_cleans_leftover_temporaries(tmp_path):
    st = Store.prepare(tmp_path / "o", _Exp())
    st.close()
    junk = st.chunk_dir / ".c0000-k000000.parquet.tmp999"
    junk.write_bytes(b"half a file")
    Store.prepare(tmp_path / "o", _Exp()).close()
    assert not junk.exists()
    assert st.done_chunks() == set()


def test_one_run_per_folder(tmp_path):
    """A second run into a folder another run is writing to is refused; the lock dies with its holder."""
    first = Store.prepare(tmp_path / "o", _Exp())
    with pytest.raises(SpecError, match="another dfsim run"):
        Store.prepare(tmp_path / "o", _Exp())
    first.close()
    Store.prepare(tmp_path / "o", _Exp()).close()
