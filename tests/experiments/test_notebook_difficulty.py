"""The difficulty notebook runs top to bottom (small N) through the public API: the throw experiment
first, then the fights, from nothing."""

from __future__ import annotations


def test_difficulty_notebook_executes(tmp_path, run_notebook):
    outputs = run_notebook("difficulty.ipynb", {"DFSIM_NOTEBOOK_THROWS": "16", "DFSIM_NOTEBOOK_FIGHTS": "100",
                                                 "DFSIM_NOTEBOOK_OUT": str(tmp_path / "fights" / "house-rules")}, timeout=600)
    text = "".join(o.get("text", "") for o in outputs)
    assert "1700 fights in 17 variants" in text  # 17 variants x 100 fights
    images = [o for o in outputs if "image/png" in o.get("data", {})]
    assert len(images) >= 5  # the grid and the run's four figures
    assert (tmp_path / "fights" / "house-rules" / "summary.json").is_file()
    assert (tmp_path / "fights" / "house-rules-throws-max16" / "records.parquet").is_file()  # recorded first
