"""The calibration notebook runs top to bottom in its fast mode through the public API: a material
fitted to the example's drops and tilts, a skill to the example's tally, and an experiment with both."""

from __future__ import annotations


def test_calibration_notebook_executes(tmp_path, run_notebook):
    outputs = run_notebook("calibration.ipynb", {"DFSIM_NOTEBOOK_FAST": "1", "DFSIM_NOTEBOOK_OUT": str(tmp_path / "out")}, timeout=600)
    text = "".join(o.get("text", "") for o in outputs)
    assert "restitution" in text and "spread scale of casual" in text and "20 throws per variant" in text
    assert any("image/png" in o.get("data", {}) for o in outputs)
    from sim.specs.material import MaterialTable
    from sim.specs.skill import load_skill

    assert MaterialTable.load(tmp_path / "out" / "kitchen-table.toml", "material").name == "kitchen-table"
    assert load_skill(tmp_path / "out" / "alice.toml").estimated is False
