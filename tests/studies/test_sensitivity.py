"""dfsim sensitivity: validation, reproducibility whatever the worker count, and a known answer."""

from __future__ import annotations

from pathlib import Path

import pytest

from sim.cli.main import main
from sim.errors import SpecError
from sim.studies.sensitivity import (
    SensitivitySpec,
    load_sensitivity,
    parse_sensitivity,
    plan_sensitivity,
    run_sensitivity,
)

from .sensitivity_files import tiny

BASE = {"name": "t", "seed": 1, "throws": 10,
        "parameters": [{"name": "a", "setting": "skill.speed_sd_frac", "low": 0.0, "high": 0.5},
                       {"name": "b", "setting": "dummy", "low": 0.0, "high": 1.0}]}


def _with(**changes):
    d = {**BASE, **changes}
    return d


@pytest.mark.parametrize("data, field, words", [
    (_with(bogus=1), "bogus", "unknown"),
    (_with(levels=3), "levels", "even"),
    (_with(method="sobol", samples=48), "samples", "power of 2"),
    (_with(method="anova"), "method", ""),
    (_with(parameters=[BASE["parameters"][0]]), "parameters", ""),
    (_with(parameters=[{**BASE["parameters"][0], "low": 0.5}, BASE["parameters"][1]]), "parameters.0.high", "above low"),
    (_with(parameters=[BASE["parameters"][0], {**BASE["parameters"][1], "name": "a"}]), "parameters.1.name", "duplicate"),
    (_with(parameters=[{**BASE["parameters"][0], "setting": "speed"}, BASE["parameters"][1]]), "parameters.0.setting",
     "dotted path"),
    (_with(method="sobol", samples=1024), "samples", "design points"),
])
def test_bad_spec_names_the_field(data, field, words):
    with pytest.raises(SpecError) as e:
        parse_sensitivity(data, "f.toml")
    assert e.value.field.startswith(field) and words in e.value.problem, str(e.value)


@pytest.mark.parametrize("param, field, words", [
    ({"name": "a", "setting": "skill.speed_sd_fracc", "low": 0.0, "high": 0.5}, "parameters.0.setting", "unknown key"),
    ({"name": "a", "setting": "skill.speed_sd_frac", "low": 0.0, "high": 2.0}, "parameters.0.high", "speed_sd_frac"),
    ({"name": "a", "setting": "materials.pairs.40.friction", "low": 0.1, "high": 0.5}, "parameters.0.setting", "index"),
    ({"name": "a", "setting": "wand.size_mm", "low": 0.1, "high": 0.5}, "parameters.0.setting", "unknown component"),
])
def test_setting_checked_against_the_scene(param, field, words):
    spec = parse_sensitivity(_with(parameters=[param, BASE["parameters"][1]]), "f.toml")
    with pytest.raises(SpecError) as e:
        plan_sensitivity(spec, "f.toml")
    assert e.value.field == field and words in e.value.problem, str(e.value)


def test_cli_bad_file_is_one_line_exit_2_nothing_written(tmp_path, capsys):
    f = tmp_path / "bad.toml"
    f.write_text('name = "bad"\nseed = 1\nthrows = 5\n[[parameters]]\nname = "a"\nsetting = "skill.speed_sd_frac"\n'
                 'low = 0.0\nhigh = 3.0\n[[parameters]]\nname = "b"\nsetting = "dummy"\nlow = 0\nhigh = 1\n')
    out = tmp_path / "o"
    assert main(["sensitivity", str(f), "--out", str(out), "--quiet"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and str(f) in err and "parameters.0.high" in err, err
    assert not out.exists()


def test_shipped_file_validates_and_plans(capsys):
    shipped = str(Path(__file__).resolve().parents[2] / "experiments" / "sensitivity" / "reference.toml")
    assert main(["check", shipped]) == 0 and "valid sensitivity analysis (morris, 96 design points" in capsys.readouterr().out
    spec, src = load_sensitivity(shipped)
    plan = plan_sensitivity(spec, src)
    assert len(plan.X) == spec.points == spec.trajectories * (len(spec.parameters) + 1)
    assert plan.outputs[0] == "hit" and "value=10" in plan.outputs
    sobol = plan_sensitivity(parse_sensitivity({**spec.model_dump(mode="json", exclude_none=True), "method": "sobol"}),
                             src)
    assert len(sobol.X) == spec.samples * (len(spec.parameters) + 2) and len(sobol.parts) > 1
    assert isinstance(spec, SensitivitySpec)


def test_same_seed_same_table_whatever_the_workers_and_a_known_answer(tmp_path):
    f = tiny(tmp_path)
    a = run_sensitivity(f, out=tmp_path / "a", workers=2, quiet=True)
    b = run_sensitivity(f, out=tmp_path / "b", workers=1, quiet=True, figure=False)
    for name in ("sensitivity.csv", "samples.csv", "sensitivity.md"):
        assert (a.out / name).read_bytes() == (b.out / name).read_bytes(), name
    assert (a.out / "sensitivity.png").stat().st_size > 10_000
    t = a.table.set_index(["output", "parameter"])
    # the dummy is applied nowhere and no body is made of rubber: common random numbers make their
    # elementary effects exactly zero, on every output; the azimuth spread moves the hit rate
    for name in ("dummy", "rubber friction"):
        assert (a.table[a.table["parameter"] == name]["mu_star"] == 0).all(), name
    assert t.loc[("hit", "azimuth spread"), "mu_star"] >= 0.1
    # a rerun of the finished analysis throws nothing and writes the same table
    c = run_sensitivity(f, out=tmp_path / "a", workers=1, quiet=True, figure=False)
    assert c.throws_run == 0 and c.table.equals(a.table)


@pytest.mark.parametrize("method", ["morris", "sobol"])
def test_analysis_of_a_known_response(method, tmp_path):
    """Outputs made from the design itself (no physics): y = 0.5 * a / 0.5 for the speed spread a in
    [0, 0.5], nothing from the others. Morris: mu* of the speed spread is its rise over the range (0.5),
    exactly; the others 0. Sobol': S1 = ST = 1 for it, ~0 for the others. The table and figure are written."""
    from sim.studies.sensitivity import analyse, write_outputs

    params = [*BASE["parameters"], {"name": "c", "setting": "skill.azimuth_sd_deg", "low": 1.0, "high": 9.0}]
    spec = parse_sensitivity(_with(method=method, parameters=params, trajectories=8, samples=256), "f.toml")
    plan = plan_sensitivity(spec, "f.toml")
    import pandas as pd

    rise = plan.X[:, 0]  # 0 .. 0.5 over the range
    Y = pd.DataFrame({o: rise if o == "hit" else 0.0 * rise for o in plan.outputs})
    t = analyse(plan, Y).set_index(["output", "parameter"])
    if method == "morris":
        assert t.loc[("hit", "a"), "mu_star"] == pytest.approx(0.5) and t.loc[("hit", "a"), "sigma"] < 1e-9
        assert t.loc[("hit", "b"), "mu_star"] == 0 and t.loc[("hit", "c"), "mu_star"] == 0
    else:
        assert t.loc[("hit", "a"), "S1"] == pytest.approx(1, abs=0.05) and t.loc[("hit", "a"), "ST"] == pytest.approx(1, abs=0.05)
        assert abs(t.loc[("hit", "b"), "ST"]) < 0.01 and abs(t.loc[("hit", "c"), "S1"]) < 0.05
        assert t.loc[("value=1", "a"), "S1"] != t.loc[("value=1", "a"), "S1"]  # no variance: undefined (NaN)
    files = write_outputs(tmp_path, plan, Y, t.reset_index())
    assert {f.name for f in files} == {"sensitivity.json", "sensitivity.csv", "sensitivity.md", "samples.csv",
                                       "sensitivity.png"}
    assert "| a |" in (tmp_path / "sensitivity.md").read_text()


def test_parameters_narrow_the_analysis_and_a_pattern_that_names_none_is_refused(tmp_path, capsys):
    from sim.studies.sensitivity import narrowed

    shipped = str(Path(__file__).resolve().parents[2] / "experiments" / "sensitivity" / "reference.toml")
    spec, src = load_sensitivity(shipped)
    small = narrowed(spec, src, trajectories=2, parameters=["speed spread", "*friction", "dummy"])
    assert [q.name for q in small.parameters] == ["board friction", "table friction", "speed spread", "dummy"]
    assert small.points == 2 * 5 and small.scene == spec.scene
    # the narrowed analysis is one of its own: another design and another hash
    assert plan_sensitivity(small, src).hash != plan_sensitivity(spec, src).hash
    out = tmp_path / "o"
    for chosen, words in (("speed spread,dummmy", "'dummmy' names no parameter"),
                          ("speed spread", "names one parameter")):
        assert main(["sensitivity", shipped, "--out", str(out), "--quiet", "--parameters", chosen]) == 2
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and "--parameters" in err and words in err, err
        assert not out.exists()
