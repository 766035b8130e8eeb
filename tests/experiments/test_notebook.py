"""The quickstart notebook runs top to bottom (small N) through the public API."""

from __future__ import annotations


def test_quickstart_notebook_executes(tmp_path, run_notebook):
    outputs = run_notebook("quickstart.ipynb", {"DFSIM_NOTEBOOK_THROWS": "30", "DFSIM_NOTEBOOK_OUT": str(tmp_path / "out")}, timeout=300)
    text = "".join(o.get("text", "") for o in outputs)
    assert "60 throws" in text  # 2 variants x 30
    images = [o for o in outputs if "image/png" in o.get("data", {})]
    assert len(images) >= 4  # the extra figure and the run's own figures
    assert (tmp_path / "out" / "summary.json").is_file()
