"""The run's progress bar: a time-left estimate that is not wildly wrong at first, and a widget in Jupyter."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from sim.experiments.progress import Eta


def _simulated_run(workers: int, chunks: int, size: int, aim_s: float, build_s: float, chunk_s: float):
    """(time, throws back) per chunk of a pool that first aims, then builds a world in each worker;
    chunk times vary by +-20 % (throws differ in length)."""
    rng = np.random.default_rng(5)
    free = [aim_s] * workers
    built = [False] * workers
    out = []
    for _ in range(chunks):
        w = min(range(workers), key=lambda i: free[i])
        free[w] += chunk_s * rng.uniform(0.8, 1.2) + (0.0 if built[w] else build_s)
        built[w] = True
        out.append(free[w])
    out.sort()
    return [(t, size) for t in out]


@pytest.mark.parametrize("workers", [1, 2, 8])
def test_first_estimate_is_close_and_nothing_is_shown_before(workers):
    chunks, size = 100, 50
    events = _simulated_run(workers, chunks, size, aim_s=30.0, build_s=3.0, chunk_s=2.0)
    eta = Eta(workers)
    end = events[-1][0]
    first = None
    for k, (t, n) in enumerate(events):
        eta.chunk_done(n, t)
        if eta.rate() is None:
            assert eta.text(1000) == ""
            continue
        remaining = (chunks - k - 1) * size
        left = remaining / eta.rate()
        if first is None:
            first = (k, left, end - t)
    assert first is not None and first[0] >= 2 * workers  # two rounds of the pool back first
    _, said, truth = first
    assert said == pytest.approx(truth, rel=0.3), first
    # what a rate over the whole bar's time (aiming included) would have said: far off
    t0, n0 = events[first[0]]
    naive = (chunks - first[0] - 1) * size / ((first[0] + 1) * size / t0)
    assert naive > 2 * truth


def test_estimate_text():
    eta = Eta(1)
    assert eta.text(100) == ""
    for t in (1.0, 2.0, 3.0):
        eta.chunk_done(10, t)
    assert eta.text(600) == "10 throws/s, 1:00 left"


def test_a_fight_bar_counts_fights_per_second(capsys):
    """A fight experiment's bar counts fights, and so does its rate (not "throws/s")."""
    from sim.experiments.progress import RunProgress

    bar = RunProgress(40, 0, quiet=True, unit="fight")
    bar.throwing("local", 1)
    for _ in range(3):
        bar.chunk_done(10)
    assert bar.eta is not None and bar.eta.rate() is not None
    assert bar.eta.text(10).split(", ")[0].endswith(" fights/s")
    bar.close()


def test_progress_bar_is_a_widget_in_jupyter():
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipywidgets")  # the notebooks extra installs it
    nb = nbformat.v4.new_notebook()
    nb.cells.append(nbformat.v4.new_code_cell(
        "from sim.experiments.progress import RunProgress\n"
        "p = RunProgress(10, 0, quiet=False)\np.throwing('local', 1)\np.chunk_done(5)\np.chunk_done(5)\np.close()"))
    nbclient.NotebookClient(nb, timeout=120, kernel_name="python3").execute()
    outputs = nb.cells[0].outputs
    text = "".join(o.get("text", "") for o in outputs)
    assert "IProgress not found" not in text and "throws [" not in text  # no text-mode fallback
    assert any("application/vnd.jupyter.widget-view+json" in o.get("data", {}) for o in outputs)


def test_a_work_bar_shows_what_it_counts_with_time_left_and_only_when_enabled(capsys):
    import time

    from sim.experiments.progress import WorkBar

    bar = WorkBar(4, "throw", "fitting the skill", enabled=True, after_s=0.0)
    for _ in range(2):
        time.sleep(0.05)
        bar.update()
    bar.add(2)
    bar.update(4)
    bar.close()
    err = capsys.readouterr().err
    assert "fitting the skill" in err and "/6" in err and "throw/s" in err, err
    quiet = WorkBar(4, "throw", "fitting the skill", enabled=False, after_s=0.0)
    quiet.update(4)
    quiet.close()
    assert capsys.readouterr().err == ""


def test_fit_skill_says_where_it_will_write_before_the_work(tmp_path, monkeypatch, capsys):
    """Without --out the skill goes to the current folder: said first, before minutes of fitting."""
    from sim.cli.main import main
    from sim.errors import SpecError
    from sim.studies import skill_fit

    said_before: list[str] = []

    def fit(*a, **kw):
        said_before.append(capsys.readouterr().err)
        raise SpecError("tally", "throws", "stopped here by the test")

    monkeypatch.setattr(skill_fit, "fit_skill", fit)
    monkeypatch.chdir(tmp_path)
    repo = Path(__file__).resolve().parents[2]
    assert main(["fit-skill", str(repo / "examples" / "calibration" / "alice.toml")]) == 2
    assert said_before and "alice.toml in the current folder" in said_before[0], said_before
    assert str(tmp_path) in said_before[0] and not (tmp_path / "alice.toml").exists()


def test_the_first_estimate_times_every_cell_when_cells_differ_in_cost():
    """Cells advance together; when the first cells are quick (no template) and the last slow (a
    template flipped before each throw), the first estimate must still be within 2x of the truth."""
    workers, cells, chunks, size = 2, 10, 8, 25
    cost = [1.0 if c < 6 else 8.0 for c in range(cells)]
    free = [0.0] * workers
    events = []
    for _ in range(chunks):
        for c in range(cells):
            w = min(range(workers), key=lambda i: free[i])
            free[w] += cost[c]
            events.append(free[w])
    events.sort()
    eta = Eta(workers, cells=cells)
    total = cells * chunks * size
    for k, t in enumerate(events):
        eta.chunk_done(size, t)
        if eta.rate() is not None:
            said = (total - (k + 1) * size) / eta.rate()
            truth = events[-1] - t
            assert truth / 2 <= said <= 2 * truth, (k, said, truth)
            break
    else:
        pytest.fail("no estimate")


def test_a_line_of_unknown_length_counts_its_seconds_on_a_terminal_only():
    """`Elapsed` (dfsim validate's check under way): on a terminal the line is redrawn with its seconds
    every half second and cleared when done; in a pipe it is printed once."""
    import io
    import time

    from sim.experiments.progress import Elapsed

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    term = Terminal()
    e = Elapsed(term)
    e.start("... check")
    time.sleep(1.2)
    e.done()
    text = term.getvalue()
    assert text.startswith("... check") and "\r... check  1 s" in text and text.endswith("\r\033[K"), text
    pipe = io.StringIO()
    e = Elapsed(pipe)
    e.start("... check")
    time.sleep(0.6)
    e.done()
    assert pipe.getvalue() == "... check\n"


def test_an_aim_solve_between_units_shows_on_the_bar_and_clears(capsys):
    """`WorkBar.aiming` (a fit's or a tuning's re-aimed thrower): the solve's reference throws show after
    the counts while no unit moves, and are gone once it is done."""
    from sim.experiments.progress import WorkBar

    bar = WorkBar(10, "throw", "fitting", after_s=0)
    bar.aiming(0, 40)
    bar.aiming(40, 40)
    bar.update()
    bar.close()
    err = capsys.readouterr().err
    assert "aiming: reference throw 1 of at most 40" in err, err
    assert "aiming" not in err.rsplit("\r", 1)[-1], err  # the last drawing has no solve under way
