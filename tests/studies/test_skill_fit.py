"""`dfsim fit-skill`: a tally simulated at a known spread scale (examples/calibration/make_tally.py, its
own seed) is explained best near that scale, within the reported interval, by candidates that all
throw the same draws; bad tallies are refused in one line with nothing written."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from sim.cli.main import main
from sim.errors import SpecError
from sim.specs.skill import SkillSpec, load_skill
from sim.specs.tally import TallySpec
from sim.studies.skill_fit import deviance, direction, fit_skill, scaled_skill, skill_toml

ROOT = Path(__file__).resolve().parents[2]


def _maker():
    spec = importlib.util.spec_from_file_location("make_tally", ROOT / "examples" / "calibration" / "make_tally.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_recovers_a_known_scale(tmp_path):
    maker = _maker()
    data = maker.tally(scale=maker.TRUE_SCALE, throws=100)
    data.pop("miss_directions")  # no aim bias to search: keeps the test short
    tally = TallySpec.from_dict(data, source="synthetic.toml")
    fit = fit_skill(tally, throws=120, grid=5, fine=3)
    assert fit.low <= maker.TRUE_SCALE <= fit.high, (fit.low, fit.scale, fit.high)
    assert fit.low < fit.scale < fit.high
    assert fit.high / fit.low < 3  # informative, not the whole range
    assert fit.simulated == 8 * 120 and fit.biases == []
    # the written skill is a skill file the scenarios take
    path = tmp_path / "alice.toml"
    path.write_text(skill_toml(fit.skill))
    skill = load_skill(path)
    casual = load_skill("casual")
    assert skill.speed_sd_frac == pytest.approx(casual.speed_sd_frac * fit.scale, rel=1e-3)
    assert skill.estimated is False and skill.speed_bias_frac == 0.0


def test_deviance_prefers_matching_shares():
    t = TallySpec.from_dict({"name": "t", "throws": 10, "hits": 6, "misses": {"off-board": 4}}, source="t")
    assert deviance(t, {"hit": 60, "off-board": 40}, {}) < deviance(t, {"hit": 20, "off-board": 80}, {})


def test_scaled_skill_and_directions():
    casual = load_skill("casual")
    s = scaled_skill(casual, 100.0, speed_bias=0.05)
    assert s.speed_sd_frac == 1.0 and s.elevation_sd_deg == 45  # held at the bounds
    assert s.speed_bias_frac == 0.05 and isinstance(s, SkillSpec)
    assert [direction(p) for p in ([300, 10], [-300, 0], [10, 300], [0, -300])] == ["long", "short", "left", "right"]


@pytest.mark.parametrize("body, field", [
    ('throws = 10\nhits = 5\n[misses]\n"off-board" = 4\n', "misses"),
    ('throws = 10\nhits = 5\n[misses]\n"off-board" = 5\n[hits_by_value]\n"2" = 4\n', "hits_by_value"),
    ('throws = 10\nhits = 5\n[misses]\n"of-board" = 5\n', "misses.of-board"),
    ('throws = 10\nhits = 5\n[misses]\n"off-board" = 5\n[miss_directions]\nshort = 6\n', "miss_directions"),
])
def test_bad_tally_is_one_line_and_nothing_written(tmp_path, capsys, body, field):
    bad = tmp_path / "bad.toml"
    bad.write_text('name = "bad"\n' + body)
    out = tmp_path / "never.toml"
    assert main(["fit-skill", str(bad), "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "bad.toml" in err and field in err, err
    assert not out.exists()


def test_a_tally_out_of_reach_is_refused():
    with pytest.raises(SpecError, match="scaled"):
        # every throw a hit: tighter than any scale of casual can explain
        fit_skill(TallySpec.from_dict({"name": "t", "throws": 60, "hits": 60}, source="t"), throws=40, grid=4, fine=1)


def test_cli_grid_and_fine_reach_the_fit_and_their_help_states_the_defaults(tmp_path, capsys, monkeypatch):
    import sim.studies.skill_fit as skill_fit
    from sim.cli.main import build_parser

    helps = {a.dest: a.help for a in build_parser()._subparsers._group_actions[0].choices["fit-skill"]._actions}
    assert f"default {skill_fit.SCALE_GRID}:" in helps["grid"] and f"default {skill_fit.FINE_GRID}:" in helps["fine"]
    seen = {}

    def fit(tally, **kw):  # the plumbing only: what the command hands the fit (the fit itself: above)
        seen.update(kw)
        raise SpecError("stop", "", "here")

    monkeypatch.setattr(skill_fit, "fit_skill", fit)
    assert main(["fit-skill", str(ROOT / "examples" / "calibration" / "alice.toml"), "--grid", "4", "--fine", "1",
                 "--out", str(tmp_path / "a.toml")]) == 2
    assert seen["grid"] == 4 and seen["fine"] == 1 and not (tmp_path / "a.toml").exists()
    assert main(["fit-skill", "x.toml", "--grid", "2"]) == 2
    assert "--grid" in capsys.readouterr().err
