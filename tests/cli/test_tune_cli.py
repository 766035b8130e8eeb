"""`dfsim tune` on physical throws: plumbing and determinism with a few dozen throws, bad input
without any throw."""

import json

import pytest

from sim.cli.main import main


def run(args, capsys):
    code = main(args)
    out = capsys.readouterr()
    return code, out.out, out.err


def test_tune_shot_plumbing_is_deterministic(tmp_path, capsys):
    """Two identical runs of 20 throws each (skill noise scale; the aimed release is shared)."""
    args = ["tune", "--set", "skill.speed_sd_frac=0:1", "--target", "0.45", "--budget", "20", "--initial-n", "5",
            "--seed", "3", "--json"]
    code1, out1, _ = run(args + ["--out", str(tmp_path / "a")], capsys)
    code2, out2, _ = run(args + ["--out", str(tmp_path / "b")], capsys)
    assert code1 == code2 == 0 and out1 == out2
    d = json.loads(out1)
    assert d["setting"] == "skill.speed_sd_frac" and d["metric"] == "hit rate" and d["target"] == 0.45
    assert 10 <= d["trials"] <= 20 == d["budget"]
    assert sum(p["n"] for p in d["points"]) == d["trials"]
    assert {0.0, 1.0} <= {p["value"] for p in d["points"]}
    assert d["interval"][0] <= d["answer"] <= d["interval"][1]
    assert json.loads((tmp_path / "a" / "tune.json").read_text()) == d
    assert (tmp_path / "a" / "tune.png").stat().st_size > 0
    # without --json a bar counts the trials against the budget as they are thrown
    code3, out3, err3 = run([a for a in args if a != "--json"], capsys)
    assert code3 == 0 and "tuning skill.speed_sd_frac (at most 20 trials)" in err3, err3
    assert f"{d['trials']}/{d['trials']}" in err3.replace(" ", ""), err3


@pytest.mark.parametrize(
    "sets, extra, needle",
    [
        (["skill.speed_sd_frac=0.3"], [], "exactly one tuned setting"),
        (["skill.speed_sd_frac=0:1", "shot.release.distance_mm=500:900"], [], "exactly one tuned setting"),
        (["skill.speed_sd_frac=0.1.2:1"], [], "not LO:HI"),
        (["skill.speed_sd_frac=0.5:3"], ["--integer"], "integer ends"),
        (["skill.speed_sd_frac=1:0"], [], "LO < HI"),
        (["skill.speed_sd_frac=0:1"], ["--target", "1.5"], "strictly between 0 and 1"),
        (["skill.no_such_key=0:1"], [], "no_such_key"),
    ],
)
def test_bad_input_one_line_exit_2_nothing_written(sets, extra, needle, tmp_path, capsys):
    args = ["tune", "--out", str(tmp_path / "out")]
    for s in sets:
        args += ["--set", s]
    if "--target" not in extra:
        args += ["--target", "0.5"]
    code, out, err = run(args + extra, capsys)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and needle in err
    assert not (tmp_path / "out").exists()
