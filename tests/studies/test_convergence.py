"""The convergence check (sim/studies/convergence.py) at small N: passes at the default physics, fails coarse."""

from sim.studies.convergence import quick_check


def test_quick_convergence_check_passes_and_can_fail():
    """40 throws of the reference scene at the default physics against uniform 4x finer stepping: every
    outcome share agrees within Bonferroni-widened 95 % paired intervals (so a converged engine fails
    this test in < 5 % of seeds). A coarse 60 Hz step throughout fails the same check at 150 throws (on
    the convex solids its error, +13 points of hits against 240 Hz, is too small for 40 throws to show)."""
    ok = quick_check("reference", n=40)
    assert ok.passed, ok.format()
    bad = quick_check("reference", n=150, step_hz=60.0, coarse_step_hz=60.0)
    assert not bad.passed, bad.format()


def test_the_command_counts_its_paired_throws(capsys):
    """`dfsim converge` throws each release twice, for seconds to minutes: a bar counts the pairs."""
    from sim.cli.main import main

    main(["converge", "roll-d6", "-n", "3"])
    err = capsys.readouterr().err
    assert "roll-d6: paired throws" in err and "3/3" in err, err
