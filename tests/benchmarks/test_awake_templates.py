"""benchmarks/awake_templates.py reads Bullet's profile timings: each scope written whole when it ends
(so a scope comes after those it holds), a counter appended to its name."""

from __future__ import annotations


def _event(ts: float, kind: str, name: str) -> str:
    return f'{{"cat":"timing","pid":1,"tid":0,"ts":{ts:.3f} ,"ph":"{kind}","name":"{name}","args":{{}}}},\n'


def test_the_split_sums_each_scope_per_step(tmp_path, load_script):
    at = load_script("benchmarks/awake_templates.py", "awake_templates_bench")
    text = '{"traceEvents":[\n'
    for k, t in enumerate((0.0, 100.0)):  # two steps: aabbs 5 and 7, narrowphase 20, solver 30 and 40
        text += _event(t + 1, "B", f"updateAabbs{10 * k + 1}") + _event(
            t + 6 + 2 * k, "E", f"updateAabbs{10 * k + 1}"
        )
        text += _event(t + 10, "B", f"dispatchAllCollisionPairs{10 * k + 2}")
        text += _event(t + 30, "E", f"dispatchAllCollisionPairs{10 * k + 2}")
        text += _event(t + 40, "B", f"solveGroup{10 * k + 3}") + _event(
            t + 70 + 10 * k, "E", f"solveGroup{10 * k + 3}"
        )
        text += _event(t + 40, "B", f"solveGroupCacheFriendlyIterations{10 * k + 4}")
        text += _event(t + 60, "E", f"solveGroupCacheFriendlyIterations{10 * k + 4}")
        text += _event(t, "B", f"internalSingleStepSimulation{10 * k + 5}")
        text += _event(t + 90, "E", f"internalSingleStepSimulation{10 * k + 5}")
    f = tmp_path / "timings.json"
    f.write_text(text + "]}")
    assert at.bullet_split(f, 2) == {"step": 90.0, "solver": 35.0, "narrowphase": 20.0, "aabbs": 6.0}
