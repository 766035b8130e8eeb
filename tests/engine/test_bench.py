"""`dfsim bench` (sim/engine/bench.py): the shares it reports are measured, in range, and consistent."""

from sim.engine.bench import run_bench


def test_bench_reports_the_python_and_rest_shares():
    ticks: list[int] = []
    out = run_bench(throws=6, naive_throws=1, tick=ticks.append)
    assert sum(ticks) == 6 + 1 and len(ticks) >= 2  # a bar moves between the timed stretches
    for key in ("rest_detection_share_of_loop", "rest_confirmation_share_of_steps", "engine_share_of_throw"):
        assert 0.0 <= out[key] <= 1.0, key
    # the Python share is one minus a ratio of two CPU timings of 6 throws (the loop, a bare replay of its
    # steps): with the compiled loop it is near zero and its sign within their noise (-0.058 seen)
    assert -0.1 <= out["python_share_of_loop"] <= 1.0
    # the read-out share is a difference of two CPU timings of 6 throws (a loop that reads every step
    # minus a bare one): its sign is within their noise when the read-outs are cheap (-0.015 seen in CI)
    assert -0.1 <= out["readout_share_of_loop"] <= 1.0
    assert out["rest_detection_share_of_loop"] > 0.0  # the rest detector ran and was timed
    assert out["readout_share_of_loop"] <= out["python_share_of_loop"] + 0.1  # read-outs are part of the Python share
    steps = out["steps_per_throw"]
    assert abs(out["rest_confirmation_share_of_steps"] - steps["rest_confirmation"] / out["mean_steps_per_throw"]) < 0.01
    # which loop ran is said; with the compiled one, the Python loop ran beside it on the same releases
    assert out["loop"] in ("compiled", "python")
    assert (out["loop"] == "compiled") == (out["compiled_loop_unavailable"] is None)
    if out["loop"] == "compiled":
        assert out["same_outcomes"] is True
        assert out["python_loop_throws_per_cpu_s"] > 0 and out["compiled_loop_throws_per_cpu_s"] == out["throws_per_cpu_s"]
        assert 0.0 < out["python_loop_engine_share_of_loop"] <= 1.0


def test_the_command_says_what_it_times_before_timing(capsys):
    import json

    from sim.cli.main import main

    assert main(["bench", "--throws", "4", "--naive-throws", "1", "--json"]) == 0
    said = capsys.readouterr()
    json.loads(said.out)
    assert said.err.startswith("dfsim: timing 4 throws of the reference scene"), said.err
