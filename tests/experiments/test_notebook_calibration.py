"""The calibration notebook runs top to bottom in its fast mode through the public API: a material
fitted to the example's drops and tilts, a skill to the example's tally, and an experiment with both."""

from __future__ import annotations

from pathlib import Path

import pytest

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / "calibration.ipynb"


def test_calibration_notebook_executes(tmp_path, monkeypatch):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    monkeypatch.setenv("DFSIM_NOTEBOOK_FAST", "1")
    monkeypatch.setenv("DFSIM_NOTEBOOK_OUT", str(tmp_path / "out"))
    nb = nbformat.read(NOTEBOOK, as_version=4)
    client = nbclient.NotebookClient(nb, timeout=600, kernel_name="python3",
                                     resources={"metadata": {"path": str(NOTEBOOK.parent)}})
    client.execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    assert not [o for o in outputs if o.get("output_type") == "error"]
    text = "".join(o.get("text", "") for o in outputs)
    assert "restitution" in text and "spread scale of casual" in text and "20 throws per variant" in text
    assert any("image/png" in o.get("data", {}) for o in outputs)
    from sim.specs.material import MaterialTable
    from sim.specs.skill import load_skill

    assert MaterialTable.load(tmp_path / "out" / "kitchen-table.toml", "material").name == "kitchen-table"
    assert load_skill(tmp_path / "out" / "alice.toml").estimated is False
