"""`dfsim doctor` is a preview of a rerun: for each damaged folder, what doctor says a rerun does, a
rerun does: either it repairs (and doctor then says healthy), or it refuses with doctor's own words.
Also: SIGTERM stops a run like Ctrl-C, a fault while writing report.html is not exit 0, and a run's
last line points to report.html."""

from __future__ import annotations

import errno
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pandas as pd
import pytest

from sim.errors import SpecError
from sim.experiments.runner import run_experiment

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import integrity_engine as engine  # noqa: E402

SPEC = {"name": "promise", "seed": 5, "throws": 6, "chunk_throws": 2,
        "variants": [{"name": "a"}, {"name": "b", "skill": "expert"}]}
TOML = """name = "promise"
seed = 5
throws = 6
chunk_throws = 2

[[variants]]
name = "a"

[[variants]]
name = "b"
skill = "expert"
"""


def _run(out: Path):
    return run_experiment(dict(SPEC), out=out, quiet=True, figures=False, executor=engine.InlineExecutor(),
                          _chunk_fn=engine.fake_chunk, _prepare_fn=engine.fake_prepare)


def _doctor(out: Path, capsys) -> tuple[int, list[str]]:
    from sim.cli.main import main

    capsys.readouterr()
    code = main(["doctor", str(out)])
    return code, [ln for ln in capsys.readouterr().out.strip().splitlines() if ln.strip()]


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    return _run(tmp_path_factory.mktemp("ref") / "out")


@pytest.fixture
def copy(reference, tmp_path) -> Path:
    out = tmp_path / "out"
    shutil.copytree(reference.out, out)
    return out


def _chunk(out: Path, name: str) -> Path:
    return out / "chunks" / f"{name}.parquet"


def _lock_folder(out: Path) -> None:
    (out / ".lock").unlink(missing_ok=True)
    (out / ".lock").mkdir()


def _lock_link(out: Path) -> None:
    (out / ".lock").unlink(missing_ok=True)
    (out.parent / "elsewhere").write_text("")
    (out / ".lock").symlink_to(out.parent / "elsewhere")


def _figures_link(out: Path) -> None:
    shutil.rmtree(out / "figures", ignore_errors=True)
    (out.parent / "pictures").mkdir()
    (out / "figures").symlink_to(out.parent / "pictures")


def _chunks_a_file(out: Path) -> None:
    shutil.rmtree(out / "chunks")
    (out / "chunks").write_text("not a folder")


def _chunk_a_folder(out: Path) -> None:
    _chunk(out, "c0000-k000001").unlink()
    _chunk(out, "c0000-k000001").mkdir()


def _chunk_a_link(out: Path) -> None:
    target = out.parent / "outside.parquet"
    _chunk(out, "c0000-k000001").rename(target)
    _chunk(out, "c0000-k000001").symlink_to(target)


def _stray_chunks(out: Path) -> None:
    shutil.copyfile(_chunk(out, "c0000-k000000"), _chunk(out, "c0000-k000099"))  # past the plan's chunks
    shutil.copyfile(_chunk(out, "c0000-k000000"), _chunk(out, "c0007-k000000"))  # no such cell


def _edited_chunk(out: Path) -> None:
    shutil.copyfile(_chunk(out, "c0000-k000000"), _chunk(out, "c0000-k000001"))


def _report_a_link(out: Path) -> None:
    (out.parent / "mine.html").write_text("<p>my page</p>")
    (out / "report.html").unlink(missing_ok=True)
    (out / "report.html").symlink_to(out.parent / "mine.html")


def _report_a_folder(out: Path) -> None:
    (out / "report.html").unlink(missing_ok=True)
    (out / "report.html").mkdir()


def _figure_a_link(out: Path) -> None:
    (out / "figures").mkdir(exist_ok=True)
    (out.parent / "photo.png").write_bytes(b"\x89PNG mine")
    (out / "figures" / "landing.png").unlink(missing_ok=True)
    (out / "figures" / "landing.png").symlink_to(out.parent / "photo.png")


REFUSED: list[Callable[[Path], None]] = [_lock_folder, _lock_link, _figures_link, _chunks_a_file, _chunk_a_folder,
                                         _chunk_a_link, _report_a_link, _report_a_folder, _figure_a_link]
REPAIRED: list[Callable[[Path], None]] = [_stray_chunks, _edited_chunk]


@pytest.mark.parametrize("damage", REFUSED, ids=lambda f: f.__name__)
def test_doctor_says_the_rerun_refuses_and_it_refuses_in_the_same_words(copy, capsys, damage):
    damage(copy)
    code, lines = _doctor(copy, capsys)
    assert code == 1 and lines and all("a rerun refuses this folder" in ln for ln in lines), lines
    with pytest.raises(SpecError) as refused:
        _run(copy)
    assert lines[0].startswith(f"{refused.value}; "), (lines[0], str(refused.value))


@pytest.mark.parametrize("damage", REPAIRED, ids=lambda f: f.__name__)
def test_doctor_says_the_rerun_repairs_and_then_the_folder_is_healthy(copy, reference, capsys, damage):
    damage(copy)
    code, lines = _doctor(copy, capsys)
    assert code == 1 and lines and all("a rerun" in ln for ln in lines), lines
    res = _run(copy)
    pd.testing.assert_frame_equal(res.records, reference.records, check_exact=True)
    code, lines = _doctor(copy, capsys)
    assert code == 0 and len(lines) == 1 and "healthy" in lines[0], lines


@pytest.fixture(scope="module")
def drawn(tmp_path_factory):
    """A complete run with figures and report.html (its page without replays: the stand-in engine
    records no releases to replay)."""
    from sim.viewer import report_html

    mp = pytest.MonkeyPatch()
    mp.setattr(report_html, "DEFAULT_SAMPLE", 0)
    try:
        res = run_experiment(dict(SPEC), out=tmp_path_factory.mktemp("drawn") / "out", quiet=True, figures=True,
                             executor=engine.InlineExecutor(), _chunk_fn=engine.fake_chunk,
                             _prepare_fn=engine.fake_prepare)
    finally:
        mp.undo()
    assert (res.out / "report.html").is_file() and (res.out / "figures" / "landing.png").is_file()
    return res


def _truncate(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


REPORT_DAMAGE = {
    "report.html truncated": ("report.html", _truncate),
    "report.html replaced": ("report.html", lambda p: p.write_text("<p>someone else's page</p>")),
    "report.html emptied": ("report.html", lambda p: p.write_bytes(b"")),
    "report.html removed": ("report.html", Path.unlink),
    "summary.json edited": ("summary.json", lambda p: p.write_text(p.read_text().replace("promise", "premise"))),
    "figure truncated": ("figures/landing.png", _truncate),
    "figure removed": ("figures/outcomes.png", Path.unlink),
}


@pytest.mark.parametrize("case", list(REPORT_DAMAGE))
def test_doctor_checks_the_reports_and_figures_and_the_rerun_writes_them_again(drawn, tmp_path, capsys,
                                                                                monkeypatch, case):
    from sim.viewer import report_html

    name, damage = REPORT_DAMAGE[case]
    out = tmp_path / "out"
    shutil.copytree(drawn.out, out, symlinks=True)
    damage(out / name)
    code, lines = _doctor(out, capsys)
    assert code == 1 and len(lines) == 1 and lines[0].startswith(f"{out / name}: "), lines
    assert "a rerun writes it again" in lines[0] or "a rerun draws it again" in lines[0], lines
    monkeypatch.setattr(report_html, "DEFAULT_SAMPLE", 0)
    run_experiment(dict(SPEC), out=out, quiet=True, figures=True, executor=engine.InlineExecutor(),
                   _chunk_fn=engine.fake_chunk, _prepare_fn=engine.fake_prepare)
    code, lines = _doctor(out, capsys)
    assert code == 0 and "healthy" in lines[0], lines
    assert (out / name).read_bytes() == (drawn.out / name).read_bytes()


def test_report_html_rewritten_by_its_command_is_not_taken_for_damage(drawn, tmp_path, capsys, monkeypatch):
    """`dfsim report-html` writes a new page (here another page than the run's, as with another
    --sample): the manifest records it, so doctor stays healthy; a page changed by anything else is
    still reported."""
    from sim.cli.main import main
    from sim.viewer import report_html

    real = report_html.build_report_html
    monkeypatch.setattr(report_html, "build_report_html", lambda *a, **kw: real(*a, **kw) + "<!-- again -->")
    out = tmp_path / "out"
    shutil.copytree(drawn.out, out, symlinks=True)
    assert main(["report-html", str(out), "--sample", "0"]) == 0
    assert (out / "report.html").read_bytes() != (drawn.out / "report.html").read_bytes()
    code, lines = _doctor(out, capsys)
    assert code == 0 and "healthy" in lines[0], lines
    (out / "report.html").write_text("<p>edited</p>")
    code, lines = _doctor(out, capsys)
    assert code == 1 and "report.html" in lines[0], lines


def test_a_file_size_limit_fails_the_run_and_doctor_says_the_rerun_writes_the_reports(tmp_path, capsys):
    """report.html is the run's largest file: under a limit the chunks fit but it does not. The run ends
    with one line (exit 1), doctor says what the rerun will do, and the rerun without the limit does it."""
    import resource

    (tmp_path / "promise.toml").write_text(TOML)
    out = tmp_path / "out"
    argv = [*DRIVER, "run", str(tmp_path / "promise.toml"), "--out", str(out), "--quiet", "--no-figures"]

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (60_000, 60_000))

    p = subprocess.run(argv, env=_env(DFSIM_FAKE_INLINE="1"), capture_output=True, text=True, preexec_fn=limit,
                       timeout=120)
    err = [ln for ln in p.stderr.strip().splitlines() if ln.strip()]
    assert p.returncode == 1 and len(err) == 1 and "report.html" in err[0] and "too large" in err[0], p.stderr
    assert not (out / "report.html").exists()
    code, lines = _doctor(out, capsys)
    assert code == 1 and len(lines) == 1 and "failed" in lines[0] and "writes the reports" in lines[0], lines
    p = subprocess.run(argv, env=_env(DFSIM_FAKE_INLINE="1"), capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    code, lines = _doctor(out, capsys)
    assert code == 0 and (out / "report.html").is_file(), lines


def _env(**extra: str) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(HERE), env.get("PYTHONPATH", "")])
    env.update(extra)
    return env


DRIVER = [sys.executable, "-c", "import sys, integrity_engine; integrity_engine.main(sys.argv[1:])"]


def test_sigterm_stops_a_run_like_ctrl_c_with_the_status_of_sigterm(tmp_path):
    (tmp_path / "promise.toml").write_text(TOML)
    out = tmp_path / "out"
    p = subprocess.Popen([*DRIVER, "run", str(tmp_path / "promise.toml"), "--out", str(out), "--quiet",
                          "--no-figures", "--workers", "1"], env=_env(DFSIM_FAKE_DELAY_S="0.5"),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    t0 = time.time()
    while not (out / "chunks").is_dir() or not list((out / "chunks").glob("c*.parquet")):
        assert p.poll() is None, p.communicate()[1]
        assert time.time() - t0 < 120
        time.sleep(0.1)
    p.send_signal(signal.SIGTERM)
    _, err = p.communicate(timeout=60)
    lines = [ln for ln in err.strip().splitlines() if ln.strip()]
    assert p.returncode == 128 + signal.SIGTERM and len(lines) == 1, (p.returncode, err)
    assert lines[0].startswith("stopped by SIGTERM: kept ") and "resume" in lines[0], err
    assert json.loads((out / "manifest.json").read_text())["state"] == "interrupted"


@pytest.mark.parametrize("phase", ["draw_figures", "rewrite_report_html"])
def test_a_stop_after_the_last_chunk_leaves_the_manifest_interrupted(tmp_path, monkeypatch, capsys, phase):
    """The phases after the bar (figures, report.html) are part of the run: stopped there, the folder
    says "interrupted" (not "running"), one line, and SIGTERM's status; Ctrl-C's stays 130."""
    from sim.cli.main import main
    from sim.errors import Stopped
    from sim.experiments import figures
    from sim.viewer import report_html

    engine.patch_runner(monkeypatch.setattr)
    monkeypatch.setenv("DFSIM_FAKE_INLINE", "1")
    (tmp_path / "promise.toml").write_text(TOML)
    for signum, status in ((signal.SIGTERM, 143), (signal.SIGINT, 130)):
        out = tmp_path / f"out{signum}"

        def stop(*a, signum=signum, **kw):
            raise Stopped(signum) if signum != signal.SIGINT else KeyboardInterrupt

        monkeypatch.setattr(figures if phase == "draw_figures" else report_html, phase, stop)
        argv = ["run", str(tmp_path / "promise.toml"), "--out", str(out), "--quiet"]
        assert main(argv) == status
        err = [ln for ln in capsys.readouterr().err.strip().splitlines() if ln.strip()]
        assert len(err) == 1 and err[0].startswith("stopped by SIGTERM" if status == 143 else "interrupted"), err
        assert json.loads((out / "manifest.json").read_text())["state"] == "interrupted"


def test_a_fault_while_writing_report_html_fails_the_run_and_the_rerun_writes_it(tmp_path, monkeypatch, capsys):
    from sim.cli.main import main
    from sim.viewer import report_html

    engine.patch_runner(monkeypatch.setattr)
    (tmp_path / "promise.toml").write_text(TOML)
    argv = ["run", str(tmp_path / "promise.toml"), "--out", str(tmp_path / "out"), "--quiet", "--no-figures"]
    real = report_html.rewrite_report_html

    def too_big(root, sample, *rest):
        raise OSError(errno.EFBIG, os.strerror(errno.EFBIG), str(Path(root) / "report.html"))

    monkeypatch.setenv("DFSIM_FAKE_INLINE", "1")
    monkeypatch.setattr(report_html, "rewrite_report_html", too_big)
    assert main(argv) == 1
    err = [ln for ln in capsys.readouterr().err.strip().splitlines() if ln.strip()]
    assert len(err) == 1 and "report.html" in err[0], err
    assert json.loads((tmp_path / "out" / "manifest.json").read_text())["state"] != "complete"
    monkeypatch.setattr(report_html, "rewrite_report_html", real)
    assert main(argv) == 0
    assert (tmp_path / "out" / "report.html").is_file()


def test_a_finished_run_points_to_its_report_html(tmp_path, monkeypatch, capsys):
    from sim.cli.main import main

    engine.patch_runner(monkeypatch.setattr)
    monkeypatch.setenv("DFSIM_FAKE_INLINE", "1")
    (tmp_path / "promise.toml").write_text(TOML)
    out = tmp_path / "out"
    assert main(["run", str(tmp_path / "promise.toml"), "--out", str(out), "--no-figures"]) == 0
    said = capsys.readouterr()
    last = said.out.strip().splitlines()[-1]
    assert str(out / "report.html") in last and "report.md" not in last, last
    # the phases after the bar are steps, each said as it starts
    steps = [ln.split(": ", 2)[1:] for ln in said.err.splitlines() if ln.startswith("dfsim: finishing [")]
    assert [s[0] for s in steps] == ["finishing [1/3]", "finishing [2/3]", "finishing [3/3]"], said.err
    assert [s[1].split()[0] for s in steps] == ["records.parquet", "summary.json", "report.html"], steps


def test_each_figure_is_said_as_its_drawing_starts(tmp_path, monkeypatch, capsys):
    from sim.cli.main import main
    from sim.viewer import report_html

    engine.patch_runner(monkeypatch.setattr)
    monkeypatch.setenv("DFSIM_FAKE_INLINE", "1")
    monkeypatch.setattr(report_html, "DEFAULT_SAMPLE", 0)  # no replays of this engine's made-up aims
    (tmp_path / "promise.toml").write_text(TOML)
    out = tmp_path / "out"
    assert main(["run", str(tmp_path / "promise.toml"), "--out", str(out)]) == 0
    err = capsys.readouterr().err.splitlines()
    # a figure takes seconds (a landing page of nine panels more): each is said, under its phase's line,
    # before it is drawn, so a run of many cells is not silent for the sum of its pages
    lines = [ln for ln in err if ln.startswith("dfsim: ")]
    first = lines.index("dfsim: finishing [3/4]: figures/")
    parts = []
    for ln in lines[first + 1 :]:
        if not ln.startswith("dfsim:   "):
            assert ln.startswith("dfsim: finishing [4/4]: report.html"), lines
            break
        parts.append(ln.removeprefix("dfsim:   "))
    assert parts == ["landing.png", "outcomes.png", "sections.png", "damage.png", "comparison.png"], lines
    assert sorted(parts) == sorted(p.name for p in (out / "figures").glob("*.png"))


def test_doctor_during_a_run_exits_0_or_1_never_by_a_signal(tmp_path):
    """`dfsim doctor` on a folder a run is writing (chunks appearing, the records being assembled, the
    manifest rewritten): each doctor, its own process, answers and exits 0 or 1. It once printed its
    verdict and then died by SIGABRT ("terminate called without an active exception"): an Arrow reader
    still working while the process exited."""
    toml = TOML.replace("throws = 6\nchunk_throws = 2", "throws = 40\nchunk_throws = 2")
    (tmp_path / "promise.toml").write_text(toml)
    out = tmp_path / "out"
    run = subprocess.Popen([*DRIVER, "run", str(tmp_path / "promise.toml"), "--out", str(out), "--quiet",
                            "--no-figures", "--workers", "1"], env=_env(DFSIM_FAKE_DELAY_S="0.04"),
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    t0 = time.time()
    try:
        while not (out / "manifest.json").is_file():
            assert run.poll() is None, run.communicate()[1]
            assert time.time() - t0 < 30
            time.sleep(0.05)
        answers: list[tuple[int, str, bool]] = []  # (exit status, stderr, whether the run was still going)
        # as many doctors as the run lasts (at least 3, within 40 s: each is a fresh process, ~2 s)
        while (run.poll() is None or len(answers) < 3) and len(answers) < 10 and time.time() - t0 < 40:
            going = run.poll() is None
            p = subprocess.run([sys.executable, "-m", "sim.cli", "doctor", str(out)], capture_output=True,
                               text=True, timeout=30)
            answers.append((p.returncode, p.stderr, going))
    finally:
        if run.poll() is None:
            run.kill()
        run.communicate(timeout=30)
    assert any(going for _, _, going in answers), answers  # doctor met the run at work
    for code, err, _ in answers:
        assert code in (0, 1), (code, err)  # a negative status is death by a signal
        assert "terminate called" not in err and "Traceback" not in err, err
