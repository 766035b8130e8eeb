"""The difficulty notebook runs top to bottom (small N) through the public API: the throw experiment
first, then the fights, from nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / "difficulty.ipynb"


def test_difficulty_notebook_executes(tmp_path, monkeypatch):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    monkeypatch.setenv("DFSIM_NOTEBOOK_THROWS", "16")
    monkeypatch.setenv("DFSIM_NOTEBOOK_FIGHTS", "100")
    monkeypatch.setenv("DFSIM_NOTEBOOK_OUT", str(tmp_path / "fights" / "house-rules"))
    nb = nbformat.read(NOTEBOOK, as_version=4)
    client = nbclient.NotebookClient(nb, timeout=600, kernel_name="python3",
                                     resources={"metadata": {"path": str(NOTEBOOK.parent)}})
    client.execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    assert not [o for o in outputs if o.get("output_type") == "error"]
    text = "".join(o.get("text", "") for o in outputs)
    assert "1700 fights in 17 variants" in text  # 17 variants x 100 fights
    images = [o for o in outputs if "image/png" in o.get("data", {})]
    assert len(images) >= 5  # the grid and the run's four figures
    assert (tmp_path / "fights" / "house-rules" / "summary.json").is_file()
    assert (tmp_path / "fights" / "house-rules-throws-max16" / "records.parquet").is_file()  # recorded first
