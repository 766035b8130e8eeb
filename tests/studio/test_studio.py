"""The studio: its refusals (bad values, unknown fields, files outside the named folders, big bodies,
another host, a busy port), its answers (the same games as `dfsim game` on the same seeds), the throw
tab in physics, and the page itself driven in headless Chromium: load, move a slider, pin a baseline,
a bad value, a missing scenario recorded with progress, charts drawn.

The games are played on a synthetic bank (tests/games/synthetic_bank.py): what is tested is the
studio and the layers under it, not the physics of the recorded throws (a real bank takes minutes)."""

from __future__ import annotations

import http.client
import importlib.util
import io
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import numpy as np
import pytest

from sim.cli.main import main
from sim.fights.house_rules import HouseRules
from sim.games.bank_uncertainty import bank_advice
from sim.games.spec import GameOptions
from sim.studio.api import Studio
from sim.studio.library import Library
from sim.studio.server import MAX_BODY, open_server

TESTS = Path(__file__).resolve().parents[1]
REPO = TESTS.parent


def _helper(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(f"dfsim_studio_tests_{name}", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


_synthetic = _helper(TESTS / "games" / "synthetic_bank.py", "synthetic_bank")
_chromium = _helper(TESTS / "viewer" / "chromium_pipe.py", "chromium_pipe")
Browser, find_chromium = _chromium.Browser, _chromium.find_chromium
CHROMIUM = find_chromium()
needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason="no chromium binary (Debian: apt-get install chromium)")

BANK_THROWS = 200
# a fixed (not aimed) standard release: the throw tab needs no aim solve
FIXED_SHOT = ('name = "standard-fixed"\nrequirements = ["bounce-before-board"]\n[release]\n'
              'distance_mm = 650\nheight_mm = 100\naim = "none"\nspeed_mps = 1.7727\nelevation_deg = 10.0\nspin_rps = 4.0\n')


def _slow_chunk(task):
    time.sleep(0.1)
    return _synthetic.synthetic_chunk(task)


class SlowBank(_synthetic.SyntheticBank):
    """The synthetic bank, taking a moment per chunk of throws so that the page can show its progress."""

    chunk_fn = staticmethod(_slow_chunk)


def _game_file(text: str, name: str, decks: str) -> str:
    out = text.replace('name = "base"', f'name = "{name}"').replace('decks = ["base"]', f"decks = [{decks}]")
    assert out != text
    return out


@pytest.fixture(scope="module")
def studio(tmp_path_factory):
    root = tmp_path_factory.mktemp("studio")
    folder = root / "mine"
    (folder / "sub").mkdir(parents=True)
    outside = root / "outside"
    outside.mkdir()
    base = (REPO / "games" / "base.toml").read_text()
    (folder / "sub" / "harder.toml").write_text(_game_file(base, "harder", '"base"').replace('difficulty = "normal"', 'difficulty = "hard"'))
    shutil.copy(REPO / "decks" / "base.toml", outside / "deck.toml")
    (folder / "escape.toml").write_text(_game_file(base, "escape", f'"{outside / "deck.toml"}"'))
    (outside / "secret.toml").write_text(_game_file(base, "secret", '"base"'))
    os.symlink(outside / "secret.toml", folder / "link.toml")
    (folder / "fixed.toml").write_text(FIXED_SHOT)
    bank = SlowBank(root / "bank", BANK_THROWS)
    st = Studio(bank, Library([folder]))
    srv = open_server(st, 0)
    t = threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True)
    t.start()
    st.url, st.root, st.folder = srv.url, root, folder
    yield st
    srv.shutdown()
    srv.server_close()
    assert st.close(10)


def _request(st, method: str, path: str, body: bytes | None = None, headers: dict | None = None):
    host, port = st.url.split("//")[1].rstrip("/").split(":")
    c = http.client.HTTPConnection(host, int(port), timeout=30)
    try:
        c.request(method, path, body=body, headers=headers or {})
        r = c.getresponse()
        return r.status, r.getheader("Content-Type"), r.read()
    finally:
        c.close()


def _post(st, path: str, data, headers: dict | None = None):
    h = {"Content-Type": "application/json"} | (headers or {})
    status, ctype, raw = _request(st, "POST", path, json.dumps(data).encode(), h)
    return status, json.loads(raw)


def _get(st, path: str):
    status, ctype, raw = _request(st, "GET", path)
    return status, json.loads(raw) if ctype == "application/json" else raw


def _refused(status_body, status: int, *words: str) -> str:
    code, body = status_body
    assert code == status, body
    assert set(body) == {"error"} and "\n" not in body["error"] and "Traceback" not in body["error"], body
    for w in words:
        assert w in body["error"], body["error"]
    return body["error"]


def _wait_job(st, job: str, timeout: float = 90) -> dict:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        code, snap = _get(st, f"/api/job/{job}")
        assert code == 200
        if snap["state"] not in ("queued", "running"):
            return snap
        time.sleep(0.05)
    raise TimeoutError(job)


def _dfsim_game(command: str, capsys, bank_part: bool = False) -> dict:
    """Run the command line the page shows (its `dfsim game ...`) with --json; its summary (with the
    bank's part of the interval when `bank_part`: the command as shown, its default bootstrap banks)."""
    words = shlex.split(command)
    assert words[:2] == ["dfsim", "game"]
    capsys.readouterr()
    assert main(words[1:] + ["--json"] + ([] if bank_part else ["--bank-replicates", "0"])) == 0
    return json.loads(capsys.readouterr().out)["summary"]


def _same_bank_part(page: dict, cli: dict) -> None:
    """The studio's win rate with the bank's part is `dfsim game`'s: the same bootstrap banks replaying
    the same games give the same win rates, so the same half-widths (to rounding)."""
    assert page["complete"] and page["replicates"] == cli["replicates"] == 8
    assert page["replicate_values"] == cli["replicate_values"]
    for k in ("value", "lo", "hi", "games_half_width", "bank_half_width", "bank_share"):
        assert page[k] == pytest.approx(cli[k], rel=1e-9, abs=1e-12), k


# ---- what the page is offered ----

def test_controls_are_every_house_rule_and_option_of_the_models(studio):
    code, g = _get(studio, "/api/game?id=base")
    assert code == 200
    controls = {c["key"]: c for c in g["controls"]}
    for prefix, model in (("house_rules", HouseRules), ("options", GameOptions)):
        for name in model.model_fields:
            if name == "carry":
                continue
            assert f"{prefix}.{name}" in controls, name
    for name, field in GameOptions.model_fields["carry"].annotation.model_fields.items():
        c = controls[f"options.carry.{name}"]
        assert (c["min"], c["max"]) == (field.metadata[0].ge, field.metadata[1].le)
    c = controls["house_rules.monster_life_bonus"]
    assert (c["kind"], c["min"], c["max"], c["default"]) == ("int", -20, 50, 0)
    assert controls["difficulty"]["choices"] == ["normal", "hard", "inferno"]
    assert controls["party.size"]["max"] == 6 and controls["party.size"]["default"] == 3


def test_every_policy_rung_of_the_registry_is_offered(studio):
    from sim.games.ladder import GAME_POLICIES

    code, state = _get(studio, "/api/state")
    assert state["policies"] == list(GAME_POLICIES)
    ids = [g["id"] for g in state["games"]]
    assert "base" in ids and "0:sub/harder.toml" in ids and "0:escape.toml" in ids
    assert not any("link" in i or "secret" in i for i in ids)  # the symbolic link leads outside


# ---- refusals ----

def test_bad_values_and_unknown_fields_are_one_line_400(studio):
    _refused(_post(studio, "/api/play", {"setting": {"set": {"house_rules.extra_white_dice": 12}}}), 400,
             "set.house_rules.extra_white_dice", "[0, 9]")
    _refused(_post(studio, "/api/play", {"setting": {"set": {"house_rules.extra_white_dice": 1.5}}}), 400, "whole number")
    # a release-noise house rule: the bank's throws cannot answer it (they would silently ignore it)
    _refused(_post(studio, "/api/play", {"setting": {"set": {"house_rules.eyes_closed": True}}}), 400,
             "house_rules.eyes_closed", "release noise")
    _refused(_post(studio, "/api/play", {"setting": {"set": {"difficulty": "easy"}}}), 400, "normal, hard, inferno")
    _refused(_post(studio, "/api/play", {"setting": {"set": {"options.relics": "yes"}}}), 400, "true or false")
    _refused(_post(studio, "/api/play", {"setting": {}, "speed": 3}), 400, "speed", "unknown field")
    _refused(_post(studio, "/api/play", {"setting": {"colour": "red"}}), 400, "colour", "unknown field")
    _refused(_post(studio, "/api/play", {"setting": {"set": {"decks": ["/etc/passwd"]}}}), 400, "set.decks", "not a control")
    _refused(_post(studio, "/api/play", {"setting": {"set": {"party.size": 5}}}), 400, "party.size", "one box seats 4")
    _refused(_post(studio, "/api/play", {"setting": {"policy": "__import__('os')"}}), 400, "policy", "one of")
    _refused(_post(studio, "/api/play", {"setting": {"seed": -1}}), 400, "seed")
    _refused(_post(studio, "/api/play", {"setting": {}, "cap": 10**9}), 400, "cap")
    _refused(_post(studio, "/api/play", [1, 2]), 400, "JSON object")
    _refused(_post(studio, "/api/throw", {"shots": ["standard"], "skill": "godlike"}), 400, "skill", "casual")
    _refused(_post(studio, "/api/throw", {"shots": ["standard"], "throws": 0}), 400, "throws")
    _refused(_post(studio, "/api/baseline", {}), 400, "setting", "required")
    _refused(_post(studio, "/api/cancel", {"job": "nope"}), 404, "no job")
    _refused(_get(studio, "/api/job/play-999999"), 404, "no job")
    _refused(_get(studio, "/api/game?id=base&extra=1"), 400, "extra", "unknown field")


def test_malformed_requests_are_refused_without_a_traceback(studio):
    _refused(tuple(json.loads(x) if i else x for i, x in enumerate(_request(studio, "POST", "/api/play", b"{not json", {"Content-Type": "application/json"})[::2])), 400, "not JSON")
    code, ctype, raw = _request(studio, "POST", "/api/play", b'{"setting": {}}', {"Content-Type": "text/plain"})
    assert code == 415 and ctype == "application/json"  # a cross-site form cannot post JSON without asking
    big = b'{"setting": {"set": {}}, "x": "' + b"a" * (MAX_BODY + 10) + b'"}'
    code, ctype, raw = _request(studio, "POST", "/api/play", big, {"Content-Type": "application/json"})
    assert code == 413 and "at most" in json.loads(raw)["error"]
    code, ctype, raw = _request(studio, "GET", "/api/state", headers={"Host": "evil.example:80"})
    assert code == 403 and "127.0.0.1" in json.loads(raw)["error"]
    code, ctype, raw = _request(studio, "DELETE", "/api/state")
    assert code == 501 and "Traceback" not in raw.decode()


@pytest.mark.parametrize("path", ["/../../etc/passwd", "/static/../server.py", "/%2e%2e/%2e%2e/etc/passwd",
                                  "/studio.js/../../api.py", "/replay/../../../etc/passwd", "//etc/passwd",
                                  "/sim/studio/server.py", "/index.html%00.py"])
def test_no_file_outside_the_page_is_served(studio, path):
    code, ctype, raw = _request(studio, "GET", path)
    assert code == 404 and ctype == "application/json", (path, code)
    assert b"import" not in raw and b"root:" not in raw


@pytest.mark.parametrize("ident", ["../outside/secret.toml", "0:../outside/secret.toml", "0:/etc/passwd",
                                   "0:link.toml", "1:sub/harder.toml", "/etc/passwd", "0:sub/../../outside/secret.toml"])
def test_no_game_file_outside_the_named_folders_is_read(studio, ident):
    _refused(_post(studio, "/api/play", {"setting": {"game": ident}}), 400, "game")
    _refused(_get(studio, f"/api/game?id={urllib.request.quote(ident)}"), 400, "game")


def test_a_game_whose_deck_lies_outside_the_folders_is_refused(studio):
    _refused(_post(studio, "/api/play", {"setting": {"game": "0:escape.toml"}}), 400, "decks.0", "outside the folders")
    code, g = _get(studio, "/api/game?id=0:sub/harder.toml")  # a user game inside the folder is fine
    assert code == 200 and g["name"] == "harder"
    assert {c["key"]: c for c in g["controls"]}["difficulty"]["default"] == "hard"


def test_a_second_studio_on_the_same_port_is_refused_in_one_line(studio, capsys):
    port = studio.url.rstrip("/").rsplit(":", 1)[1]
    capsys.readouterr()
    assert main(["studio", "--port", port, "--bank", str(studio.root / "bank")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "--port" in err and "in use" in err


def test_a_full_disk_while_the_bank_records_is_one_line_and_the_studio_keeps_serving(tmp_path, monkeypatch, capsys):
    """The bank's disk refuses a part (ENOSPC, as the recorder's write meets it): the job ends in one line
    naming the bank folder, with no traceback on the terminal either (the environment, not a fault of
    the studio); the studio keeps serving, and once there is room the same request records and answers."""
    import errno

    import sim.games.bank_recorder as recorder

    real = recorder.write_atomic

    def full(path, data):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))

    st = Studio(_synthetic.SyntheticBank(tmp_path / "bank", BANK_THROWS), Library([]))
    srv = open_server(st, 0)
    threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True).start()
    st.url = srv.url
    try:
        monkeypatch.setattr(recorder, "write_atomic", full)
        capsys.readouterr()
        code, j = _post(st, "/api/play", {"setting": {}, "cap": 100})
        assert code == 200, j
        snap = _wait_job(st, j["job"])
        err = snap["error"]
        assert snap["state"] == "error" and "\n" not in err and "internal error" not in err, err
        assert str(tmp_path / "bank") in err and os.strerror(errno.ENOSPC) in err, err
        assert "Traceback" not in capsys.readouterr().err
        assert _get(st, "/api/state")[0] == 200
        monkeypatch.setattr(recorder, "write_atomic", real)
        code, j = _post(st, "/api/play", {"setting": {}, "cap": 100})
        snap = _wait_job(st, j["job"])
        assert snap["state"] == "done", snap["error"]
    finally:
        srv.shutdown()
        srv.server_close()
        assert st.close(10)


def test_ctrl_c_stops_the_studio_cleanly(tmp_path):
    env = dict(os.environ, DFSIM_BANK=str(tmp_path / "bank"), PYTHONUNBUFFERED="1")
    p = subprocess.Popen([sys.executable, "-m", "sim.cli", "studio"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, env=env, cwd=tmp_path)
    try:
        line = p.stdout.readline()
        assert line.startswith("dfsim studio: http://127.0.0.1:"), line
        url = line.split()[2]
        state = json.load(urllib.request.urlopen(url + "api/state", timeout=30))
        assert state["game"] == "base" and state["bank"]["dir"] == str(tmp_path / "bank")
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=30)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    assert p.returncode == 0, err
    assert err.strip().endswith("dfsim studio: stopped") and "Traceback" not in err
    with pytest.raises(urllib.error.URLError):
        urllib.request.urlopen(url + "api/state", timeout=5)


def test_open_starts_the_users_browser_on_the_page(tmp_path):
    """`dfsim studio --open` opens the page as the desktop opens a link (Python's webbrowser, which
    runs $BROWSER first): here a stand-in browser that notes the address it was given."""
    seen = tmp_path / "opened.txt"
    browser = tmp_path / "browser"
    browser.write_text(f"#!{sys.executable}\nimport sys\nopen({str(seen)!r}, 'a').write(sys.argv[1] + '\\n')\n")
    browser.chmod(0o755)
    env = dict(os.environ, DFSIM_BANK=str(tmp_path / "bank"), BROWSER=str(browser), PYTHONUNBUFFERED="1")
    p = subprocess.Popen([sys.executable, "-m", "sim.cli", "studio", "base", "--open"], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, env=env, cwd=tmp_path)
    try:
        url = p.stdout.readline().split()[2]
        end = time.monotonic() + 30
        while not (seen.is_file() and seen.read_text().endswith("\n")) and time.monotonic() < end:
            time.sleep(0.05)
        assert seen.read_text().split() == [url]  # opened once, at the address printed
        page = urllib.request.urlopen(url, timeout=30).read().decode()
        assert "<title>dfsim studio</title>" in page
        state = json.load(urllib.request.urlopen(url + "api/state", timeout=30))
        assert state["game"] == "base"
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=30)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    assert p.returncode == 0 and "no web browser" not in err, err


# ---- answers ----

def test_the_answer_is_dfsim_games_on_the_same_seeds(studio, capsys):
    setting = {"set": {"difficulty": "hard", "party.size": 4, "house_rules.extra_white_dice": 4}}
    code, j = _post(studio, "/api/play", {"setting": setting, "target": 0.002, "cap": 150})
    assert code == 200
    snap = _wait_job(studio, j["job"])
    assert snap["state"] == "done", snap["error"]
    r = snap["result"]
    assert r["n"] == 150 and r["stopped"] == "game cap 150"
    assert "--games 150" in r["rests_on"]["command"] and "house_rules.extra_white_dice=4" in r["rests_on"]["command"]
    assert r["rests_on"]["tables"] and all(t["throws"] == BANK_THROWS for t in r["rests_on"]["tables"])
    assert any("estimated" in c and c["estimated"] for c in r["rests_on"]["estimated_cards"])
    cli = _dfsim_game(r["rests_on"]["command"], capsys, bank_part=True)
    assert cli["won"] == r["summary"]["won"]
    assert cli["lost_where"] == r["summary"]["lost_where"] and cli["titles"] == r["summary"]["titles"]
    assert sum(n for _, n in r["charts"]["titles"]) == 150 and r["charts"]["survival"][0] == 1.0
    # the bank's part: the same 150 games replayed on the same 8 bootstrap banks as dfsim game's
    _same_bank_part(r["summary"]["won_with_bank"], cli["won_with_bank"])
    # and what would narrow it, as dfsim game says under its answer ('' when the games' part is the larger)
    assert r["bank_advice"] == bank_advice(cli["won_with_bank"], BANK_THROWS)


def test_another_seed_is_the_seed_of_the_shuffles_too(studio, capsys):
    """The page's seed field is `dfsim game --seed`: the root of the shuffles as well as the throws."""
    setting = {"seed": 7, "set": {"party.size": 4, "house_rules.monster_life_bonus": -6}}
    code, j = _post(studio, "/api/play", {"setting": setting, "target": 0.002, "cap": 120})
    snap = _wait_job(studio, j["job"])
    assert snap["state"] == "done", snap["error"]
    r = snap["result"]
    assert "--seed 7" in r["rests_on"]["command"]
    cli = _dfsim_game(r["rests_on"]["command"], capsys, bank_part=True)
    assert cli["won"] == r["summary"]["won"] and cli["points"] == r["summary"]["points"]
    assert cli["lost_where"] == r["summary"]["lost_where"]
    _same_bank_part(r["summary"]["won_with_bank"], cli["won_with_bank"])


def test_bootstrap_replays_in_batches_are_the_replays_in_one_go(studio):
    """Game i on bootstrap bank b depends on (seed, b, i) alone: replays grown batch by batch are the
    replays `dfsim game` makes in one go (what lets the page stream the bank's part)."""
    from sim.games.bank_uncertainty import BootstrapSource
    from sim.games.engine import run_games
    from sim.games.throw_bank import die_alias
    from sim.studio.session import Player, parse_setting

    s = parse_setting({"seed": 3, "set": {"party.size": 4, "house_rules.monster_life_bonus": -6}}, studio.library)
    p = Player(studio.bank, 3)
    for upto in (10, 25, 60):
        p.play(s, upto)
        p.replay(s)
        assert [len(b) for b in p.tally(s).boot] == [upto] * 3
    for b, won in enumerate(p.tally(s).boot):
        src = BootstrapSource(studio.bank, 3, b, die_alias(s.spec.throws.colored_die, s.spec.throws.white_die))
        assert won == [g.won for g in run_games(s.spec, src, range(60), s.policy)] and not src.missing


def test_the_stop_rule_reads_the_interval_with_the_banks_part():
    from sim.studio.play import StopRule

    rule = StopRule(target=0.03, cap=20_000)

    def ans(n, lo, hi, wb=None, reps=8):
        a = {"n": n, "bank_replicates": reps, "summary": {"won": {"rate": (lo + hi) / 2, "lo": lo, "hi": hi}}}
        if wb is not None:
            a["summary"]["won_with_bank"] = wb
        return a

    def wb(half, bank, replayed, complete=True):  # the two parts in quadrature make `half`
        return {"lo": 0.4 - half, "hi": 0.4 + half, "bank_half_width": bank, "games_half_width": (half**2 - bank**2) ** 0.5,
                "replayed": replayed, "complete": complete}

    assert rule.met(ans(400, 0.38, 0.42)) == ""  # the bank's part not replayed yet: no stop on the games' alone
    assert rule.met(ans(400, 0.38, 0.42, reps=0)).startswith("95 % interval within")
    assert rule.met(ans(400, 0.38, 0.42, wb(0.025, 0.01, 400))).startswith("95 % interval within")
    assert rule.met(ans(400, 0.38, 0.42, wb(0.025, 0.01, 100, complete=False))) == ""  # lagging behind
    assert rule.met(ans(400, 0.38, 0.42, wb(0.036, 0.02, 400))) == ""  # wider with the bank's part: go on
    # the bank's part alone wider than the target, on every game it takes: more games cannot help
    assert rule.met(ans(400, 0.38, 0.42, wb(0.05, 0.045, 400))) == ""
    assert "bank's own part is ±4.5 points" in rule.met(ans(600, 0.38, 0.42, wb(0.05, 0.045, 500)))
    assert rule.met(ans(20_000, 0.3, 0.5, wb(0.1, 0.01, 500))) == "game cap 20,000"
    # cut at 0: the half-width is the parts' (±4 points), not half the interval shown ([0, 6])
    near0 = {"lo": 0.0, "hi": 0.06, "bank_half_width": 0.034, "games_half_width": 0.021, "replayed": 200, "complete": True}
    assert rule.met(ans(200, 0.0, 0.05, near0)) == ""


def test_one_bootstrap_bank_is_refused_in_one_line(tmp_path, capsys):
    capsys.readouterr()
    assert main(["studio", "--bank", str(tmp_path / "bank"), "--bank-replicates", "1"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "--bank-replicates" in err and "2 to 1000" in err


def test_a_missing_scenario_is_recorded_with_progress(studio, capsys):
    """The page shows the recorder's own numbers; the terminal says when each recording starts (its
    scenarios, throws, aims and estimated time) and when it ends."""
    before = len(studio.bank.recorded)
    code, j = _post(studio, "/api/play", {"setting": {"set": {"house_rules.bones_outer_section": True}}, "cap": 100})
    seen = []
    while True:
        code, snap = _get(studio, f"/api/job/{j['job']}")
        if snap["progress"].get("phase") == "recording":
            seen.append(snap["progress"])
        if snap["state"] not in ("queued", "running"):
            break
        time.sleep(0.02)
    assert snap["state"] == "done" and snap["result"]["n"] == 100
    recorded = studio.bank.recorded[before:]
    assert recorded and all(s["rules"] == {"bones": "outer-section"} for s in recorded)
    assert seen and all(0 <= p["done"] <= p["of"] and p["throws"] == BANK_THROWS and "scenario" in p for p in seen)
    assert any("left_s" in p for p in seen) and all(p["elapsed_s"] >= 0 for p in seen)
    # the recorder's own count of throws made (in each pass of the games), moving before a scenario is done
    assert any(0 < p.get("thrown", 0) and p["done"] == 0 for p in seen), seen
    assert all(p["thrown"] <= p["planned"] for p in seen if "thrown" in p)
    assert snap["progress"]["phase"] == "done" and [e for _, e in snap["events"] if e.startswith("recorded")]
    err = capsys.readouterr().err
    passes = re.findall(r"dfsim studio: recording (\d+) scenarios? into .*: about [\d,]+ throws, \d+ scenarios? to aim, "
                        r"~\d+:\d\d\n", err)
    assert sum(int(k) for k in passes) == len(recorded), err  # one line per recording, before it
    assert err.count("dfsim studio: recording ended after") == len(passes)


def test_a_new_setting_stops_a_recording_at_once_and_its_chunks_are_kept(studio):
    """The user moves on while the bank records what the last setting lacked: the recording stops at
    once (not when every scenario is in), its finished chunks are kept, and the setting, played again,
    records only the rest."""
    rule = {"house_rules.two_bounces": True}
    code, a = _post(studio, "/api/play", {"setting": {"set": rule}, "cap": 100})
    end = time.monotonic() + 60
    while True:
        code, snap = _get(studio, f"/api/job/{a['job']}")
        if snap["progress"].get("phase") == "recording" and snap["progress"].get("done", 0) >= 1:
            break
        assert snap["state"] in ("queued", "running") and time.monotonic() < end, snap
        time.sleep(0.02)
    missing = snap["progress"]["of"]
    t0 = time.monotonic()
    code, b = _post(studio, "/api/play", {"setting": {"set": {"house_rules.monster_life_bonus": -1}}, "cap": 100})
    first = _wait_job(studio, a["job"])
    stopped_s = time.monotonic() - t0
    stored = [s for s in studio.bank.recorded if s["rules"] == {"min_bounces": 2} and studio.bank.has(s)]
    assert first["state"] == "cancelled" and stopped_s < 3.0, (first["state"], stopped_s)
    assert 1 <= len(stored) < missing  # it stopped part way, what was finished stayed in the bank
    assert _wait_job(studio, b["job"])["state"] == "done"
    before = len(studio.bank.recorded)
    code, again = _post(studio, "/api/play", {"setting": {"set": rule}, "cap": 100})
    snap = _wait_job(studio, again["job"], 120)
    assert snap["state"] == "done" and snap["result"]["n"] == 100
    keys = {json.dumps(s, sort_keys=True) for s in stored}
    assert not keys & {json.dumps(s, sort_keys=True) for s in studio.bank.recorded[before:]}


def test_a_new_setting_cancels_the_one_before(studio):
    code, a = _post(studio, "/api/play", {"setting": {"set": {"house_rules.monster_life_bonus": -3}}, "target": 0.002, "cap": 100000})
    code, b = _post(studio, "/api/play", {"setting": {"set": {"house_rules.monster_life_bonus": -2}}, "target": 0.5, "cap": 100})
    first, second = _wait_job(studio, a["job"]), _wait_job(studio, b["job"])
    assert first["state"] == "cancelled" and first["result"].get("n", 0) < 100000
    assert second["state"] == "done" and second["result"]["n"] == 100


def test_throw_tab_throws_in_physics_and_replays_a_throw(studio):
    from sim.engine.worlds import thrower_for
    from sim.specs.scenario import Scenario

    code, j = _post(studio, "/api/throw", {"shots": ["0:fixed.toml"], "skill": "casual", "die": "hero-d8",
                                           "board": "magma", "throws": 24, "seed": 5})
    assert code == 200, j
    snap = _wait_job(studio, j["job"], 120)
    assert snap["state"] == "done", snap["error"]
    r = snap["result"]
    assert r["n"] == 24 and len(r["points"]) == 24 and r["board"]["regions"]
    th = thrower_for(Scenario.build(shots=[str(studio.folder / "fixed.toml")]))
    same = [th.throw(5, k).outcome for k in range(24)]
    assert r["hit"]["count"] == sum(o.result == "hit" for o in same)
    assert sum(m["count"] for m in r["mix"].values()) == 24
    k = 3
    code, rp = _post(studio, "/api/replay", {"job": j["job"], "index": k})
    snap = _wait_job(studio, rp["job"], 120)
    assert snap["state"] == "done", snap["error"]
    assert snap["result"]["reason"] == same[k].reason
    code, ctype, page = _request(studio, "GET", snap["result"]["url"])
    assert code == 200 and ctype.startswith("text/html") and b"dfsim replay" in page
    _refused(_post(studio, "/api/replay", {"job": j["job"], "index": 24}), 400, "index")


# ---- the page in a real browser ----

def _chart_pixels(b, img: np.ndarray, selector: str) -> np.ndarray:
    x, y, w, h = (int(round(v)) for v in b.evaluate(
        f"(() => {{ const r = document.querySelector('{selector}').getBoundingClientRect(); return [r.left, r.top, r.width, r.height]; }})()"))
    return img[y + 2: y + h - 2, x + 2: x + w - 2]


def _drawn(px: np.ndarray, what: str) -> None:
    ink = (px.min(axis=2) < 0.85).mean()  # share of pixels that are not (near) white
    colours = len(np.unique((px * 255).astype(np.uint8).reshape(-1, 3), axis=0))
    assert ink > 0.01 and colours > 8, (what, ink, colours)


def _set(b, selector: str, value) -> None:
    """Move a control as a user's release does: the value, an input event, then change."""
    b.evaluate(f"(() => {{ const e = document.querySelector('{selector}'); e.value = {json.dumps(value)};"
               " e.dispatchEvent(new Event('input', {bubbles: true})); e.dispatchEvent(new Event('change', {bubbles: true})); })()")


def _done(b, timeout: float = 90) -> dict:
    b.wait_for("document.body.dataset.state === 'done' || document.body.dataset.state === 'error'", timeout)
    assert b.evaluate("document.body.dataset.state") == "done", b.evaluate("document.getElementById('errorbox').textContent")
    return {k: float(v) for k, v in b.evaluate("Object.assign({}, document.getElementById('winrate').dataset)").items()}


def _wait_new_job(b, old: str | None) -> str:
    return b.wait_for(f"document.body.dataset.job && document.body.dataset.job !== {json.dumps(old)} && document.body.dataset.job", 30)


@needs_chromium
def test_the_page_in_chromium(studio, capsys, tmp_path):
    with Browser(CHROMIUM, width=1400, height=1800) as b:
        b.open(studio.url + "#target=3&cap=200")
        job = _wait_new_job(b, None)
        first = _done(b)  # the base game, as its file sets it
        assert int(first["n"]) >= 100 and first["lo"] <= first["rate"] <= first["hi"]

        # moving a slider (released): a new answer on the same seeds, the one `dfsim game` gives
        _set(b, "#c-house-rules-extra-white-dice", 4)
        job = _wait_new_job(b, job)
        moved = _done(b)
        assert b.evaluate("document.querySelector('.control[data-key=\"house_rules.extra_white_dice\"] .val').textContent") == "4"
        assert (moved["rate"], moved["lo"], moved["hi"]) != (first["rate"], first["lo"], first["hi"])
        cli = _dfsim_game(b.evaluate("document.getElementById('command').textContent"), capsys, bank_part=True)
        assert cli["n"] == moved["n"] and cli["won"]["count"] == moved["count"]
        assert cli["won"]["lo"] == pytest.approx(moved["gamesLo"]) and cli["won"]["hi"] == pytest.approx(moved["gamesHi"])
        # the interval shown is dfsim game's with the bank's part, and the page says the bank's share of it
        wb = cli["won_with_bank"]
        assert moved["bankComplete"] == 1 and moved["replicates"] == wb["replicates"]
        assert moved["replayed"] == min(cli["n"], 500)
        assert wb["lo"] == pytest.approx(moved["lo"]) and wb["hi"] == pytest.approx(moved["hi"])
        assert wb["bank_half_width"] == pytest.approx(moved["bankHalf"]) and wb["bank_half_width"] > 0
        shown = b.evaluate("document.getElementById('winrate-bank').textContent")
        assert f"of which the bank's ±{100 * wb['bank_half_width']:.1f} points" in shown, shown
        advice = bank_advice(wb, BANK_THROWS)
        said = b.evaluate("document.getElementById('winrate-advice').textContent")
        assert said == (advice[0].upper() + advice[1:] + "." if advice else ""), said
        half = (wb["games_half_width"] ** 2 + wb["bank_half_width"] ** 2) ** 0.5
        assert f"±{100 * half:.1f} points" in b.evaluate("document.getElementById('winrate-interval').textContent")

        # pin it as the baseline, move back: the paired difference on the same games
        b.evaluate("document.getElementById('pin').click()")
        job = _wait_new_job(b, job)
        _done(b)
        assert float(b.evaluate("document.getElementById('difference').dataset.value")) == 0.0
        _set(b, "#c-house-rules-extra-white-dice", 0)
        job = _wait_new_job(b, job)
        back = _done(b)
        d = {k: float(v) for k, v in b.evaluate("Object.assign({}, document.getElementById('difference').dataset)").items()}
        n = int(d["n"])
        assert n == int(back["n"]) and d["lo"] <= d["value"] <= d["hi"] and d["hi"] - d["lo"] > 0
        assert d["value"] == pytest.approx(back["count"] / n - cli["won"]["count"] / cli["n"]) or n != cli["n"]
        assert "points" in b.evaluate("document.getElementById('difference-value').textContent")

        # hovering a bar says its number
        b.evaluate("document.querySelector('#chart-lost').scrollIntoView()")
        b.pump(0.2)
        x, y = b.evaluate("(() => { const rs = [...document.querySelectorAll('#chart-lost .bar-rect')].map((e) => e.getBoundingClientRect());"
                          " const q = rs.reduce((a, r) => (r.height > a.height ? r : a)); return [q.left + q.width / 2, q.top + q.height / 2]; })()")
        b.call("Input.dispatchMouseEvent", {"type": "mouseMoved", "x": x, "y": y}, session=True)
        b.wait_for("document.body.dataset.tip && document.body.dataset.tip.includes('%')", 10)
        b.evaluate("document.getElementById('tip').hidden = true")  # out of the screenshot's way
        b.evaluate("window.scrollTo(0, 0)")

        # a bad value: refused in one line, the last answer stays
        _set(b, "#c-party-gold", 40)
        b.wait_for("document.body.dataset.state === 'refused'", 20)
        err = b.evaluate("document.getElementById('errorbox').textContent")
        assert err == "set.party.gold: must lie in [0, 30], got 40", err
        _set(b, "#c-party-gold", "")
        job = _wait_new_job(b, job)
        _done(b)

        # a house rule that changes how throws are read: the bank lacks its scenarios and records them
        before = len(studio.bank.recorded)
        old_seen = b.evaluate("Number(document.body.dataset.recordingSeen || 0)")
        b.evaluate("document.getElementById('c-house-rules-no-bounce').click()")
        job = _wait_new_job(b, job)
        _done(b, 120)
        assert len(studio.bank.recorded) > before
        assert all(s["rules"] == {"min_bounces": 0} for s in studio.bank.recorded[before:])
        assert b.evaluate("Number(document.body.dataset.recordingSeen || 0)") > old_seen
        assert "Recorded" in b.evaluate("document.getElementById('progress-text').textContent")
        assert "house_rules.no_bounce=true" in b.evaluate("document.getElementById('command').textContent")
        assert int(b.evaluate("document.querySelectorAll('#tables tbody tr').length")) >= 1

        # the charts are drawn (pixels in every chart's area)
        b.pump(0.3)
        shot = b.screenshot(tmp_path / "studio.png")
        import matplotlib.image as mpimg

        img = mpimg.imread(io.BytesIO(shot.read_bytes()))[:, :, :3]
        for sel in ("#chart-lost", "#chart-survival", "#chart-loot", "#chart-titles"):
            _drawn(_chart_pixels(b, img, sel), sel)
        refused = [e for e in b.errors if "status of 400" in e]
        assert len(refused) == 1 and len(b.errors) == 1, b.errors  # the bad value's answer, nothing else
    keep = os.environ.get("DFSIM_STUDIO_SCREENSHOT")
    if keep:  # the docs' screenshot (docs/studio.md) is this one
        shutil.copy(shot, keep)


@needs_chromium
def test_the_throw_tab_in_chromium(studio, tmp_path):
    with Browser(CHROMIUM, width=1300, height=1000) as b:
        b.open(studio.url + "#tab=throws&cap=100")
        b.wait_for("document.body.dataset.throwOptions === 'ready'", 30)
        assert b.evaluate("[...document.getElementById('shot-0').options].some((o) => o.value === '0:fixed.toml')")
        b.evaluate("document.getElementById('shot-0').value = '0:fixed.toml'; document.getElementById('t-throws').value = 30;"
                   " document.getElementById('t-seed').value = 9; document.getElementById('t-go').click()")
        b.wait_for("document.body.dataset.throwState === 'done' || document.body.dataset.throwState === 'error'", 120)
        assert b.evaluate("document.body.dataset.throwState") == "done", b.evaluate("document.getElementById('errorbox').textContent")
        hit = {k: float(v) for k, v in b.evaluate("Object.assign({}, document.getElementById('t-hit').dataset)").items()}
        assert hit["n"] == 30 and hit["lo"] <= hit["rate"] <= hit["hi"]
        b.pump(0.3)
        shot = b.screenshot(tmp_path / "throws.png")
        import matplotlib.image as mpimg

        img = mpimg.imread(io.BytesIO(shot.read_bytes()))[:, :, :3]
        _drawn(_chart_pixels(b, img, "#landing"), "landing map")
        _drawn(_chart_pixels(b, img, "#chart-mix"), "outcome mix")
        # click the first throw's landing: its replay page is made and linked
        x, y = b.evaluate("(() => { const cv = document.getElementById('landing'), r = cv.getBoundingClientRect();"
                          " const L = window.dfsimStudio.landing(); const p = L.pts[0];"
                          " return [r.left + L.X(p[1]) * r.width / cv.width, r.top + L.Y(p[2]) * r.height / cv.height]; })()")
        for kind in ("mousePressed", "mouseReleased"):
            b.call("Input.dispatchMouseEvent", {"type": kind, "x": x, "y": y, "button": "left", "clickCount": 1}, session=True)
        url = b.wait_for("document.body.dataset.replay", 120)
        assert b.evaluate("document.getElementById('replay-link').getAttribute('href')") == url
        page = b.evaluate(f"fetch({json.dumps(url)}).then((r) => r.text())")
        assert "dfsim replay" in page
        assert b.errors == [], b.errors
