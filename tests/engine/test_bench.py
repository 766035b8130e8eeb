"""`dfsim bench` (sim/engine/bench.py): the shares it reports are measured, in range, and consistent."""

from sim.engine.bench import run_bench


def test_bench_reports_the_python_and_rest_shares():
    out = run_bench(throws=6, naive_throws=1)
    for key in ("python_share_of_loop", "readout_share_of_loop", "rest_detection_share_of_loop",
                "rest_confirmation_share_of_steps", "engine_share_of_throw"):
        assert 0.0 <= out[key] <= 1.0, key
    assert out["rest_detection_share_of_loop"] > 0.0  # the rest detector ran and was timed
    assert out["readout_share_of_loop"] <= out["python_share_of_loop"] + 0.1  # read-outs are part of the Python share
    steps = out["steps_per_throw"]
    assert abs(out["rest_confirmation_share_of_steps"] - steps["rest_confirmation"] / out["mean_steps_per_throw"]) < 0.01
