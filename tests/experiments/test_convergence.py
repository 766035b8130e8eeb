"""The convergence check (sim/experiments/convergence.py) at small N: passes at the default physics, fails coarse."""

from sim.experiments.convergence import quick_check


def test_quick_convergence_check_passes_and_can_fail():
    """40 throws of the reference scene at the default physics against uniform 4x finer stepping: every
    outcome share agrees within Bonferroni-widened 95 % paired intervals (so a converged engine fails
    this test in < 5 % of seeds). A coarse 60 Hz contact step fails the same check."""
    ok = quick_check("reference", n=40)
    assert ok.passed, ok.format()
    bad = quick_check("reference", n=40, step_hz=60.0)
    assert not bad.passed, bad.format()
