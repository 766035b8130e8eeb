"""The quickstart notebook runs top to bottom (small N) through the public API."""

from __future__ import annotations

from pathlib import Path

import pytest

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / "quickstart.ipynb"


def test_quickstart_notebook_executes(tmp_path, monkeypatch):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    monkeypatch.setenv("DFSIM_NOTEBOOK_THROWS", "30")
    monkeypatch.setenv("DFSIM_NOTEBOOK_OUT", str(tmp_path / "out"))
    nb = nbformat.read(NOTEBOOK, as_version=4)
    client = nbclient.NotebookClient(nb, timeout=300, kernel_name="python3",
                                     resources={"metadata": {"path": str(NOTEBOOK.parent)}})
    client.execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    assert not [o for o in outputs if o.get("output_type") == "error"]
    text = "".join(o.get("text", "") for o in outputs)
    assert "60 throws" in text  # 2 variants x 30
    images = [o for o in outputs if "image/png" in o.get("data", {})]
    assert len(images) >= 4  # the extra figure and the run's own figures
    assert (tmp_path / "out" / "summary.json").is_file()
