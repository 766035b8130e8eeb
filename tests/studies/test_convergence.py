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
    assert err.index("roll-d6: building its worlds") < err.index("roll-d6: paired throws"), err  # said first


def test_the_checks_aim_solve_reports_its_progress(quick_aim, tmp_path, monkeypatch):
    """The check's aimed release, solved from an empty cache before any pair, counts its reference
    throws (`dfsim converge` shows them: seconds of solving are not silent)."""
    from sim.studies.convergence import convergence_check

    monkeypatch.setenv("DFSIM_CACHE_DIR", str(tmp_path))  # the check's own throwers solve from an empty cache
    seen: list[tuple[int, int]] = []
    convergence_check(quick_aim, 1, aim_progress=lambda done, most: seen.append((done, most)))
    assert len(seen) > 100 and seen[-1][0] == seen[-1][1], seen[-3:]  # every reference throw, then the end
    assert all(d <= m for d, m in seen)
