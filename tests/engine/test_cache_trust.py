"""A cache entry is trusted no more than needed (sim/diskcache.py): read without blocking and with a
size limit, never through a link, its checksum and range checked; any doubt is one warning and a
fresh solve, never a hang, a traceback or a changed answer."""

from __future__ import annotations

import json
import os
import signal
import warnings

import pytest

from sim import diskcache
from sim.engine.aim import plausible_aim
from sim.engine.thrower import Thrower

KEY = ["trust-test", 1]


def _plant(path, how: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    good = {"key": diskcache.entry_key(KEY), "value": [4.0, 30.0, "face", -4.0, "lateral"]}
    if how == "fifo":
        os.mkfifo(path)
    elif how == "random":
        path.write_bytes(os.urandom(4096))
    elif how == "dev-zero":
        path.symlink_to("/dev/zero")
    elif how == "huge":
        path.write_text(json.dumps(good | {"what": "x" * (diskcache.MAX_ENTRY_BYTES + 10)}))
    elif how == "nan":
        path.write_text(json.dumps(good | {"value": [float("nan"), 30.0, "face", -4.0, "lateral"]}))
    elif how == "negative":
        value = [-4.0, 30.0, "face", -4.0, "lateral"]
        path.write_text(json.dumps(good | {"value": value, "sha256": diskcache.value_sha256(value)}))
    elif how == "shifted":
        path.write_text(json.dumps(good | {"value": [4.001, 30.0, "face", -4.0, "lateral"],
                                           "sha256": diskcache.value_sha256([4.0, 30.0, "face", -4.0, "lateral"])}))
    elif how == "no-checksum":
        path.write_text(json.dumps(good))


@pytest.mark.parametrize("how", ["fifo", "random", "dev-zero", "huge", "nan", "negative", "shifted", "no-checksum"])
def test_a_doubtful_entry_is_ignored_with_one_warning(cache, how):
    path = diskcache.entry_path("aim", KEY)
    _plant(path, how)
    signal.alarm(10)  # a read that blocks (a FIFO) fails the test instead of hanging it
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            assert diskcache.load("aim", KEY, valid=plausible_aim) is None
    finally:
        signal.alarm(0)
    assert len(caught) == 1 and str(caught[0].message).startswith("dfsim: cache entry")


def test_a_good_entry_round_trips(cache):
    assert diskcache.store("aim", KEY, [4.0, 30.0, "face", -4.0, "lateral"]) is not None
    assert diskcache.load("aim", KEY, valid=plausible_aim) == [4.0, 30.0, "face", -4.0, "lateral"]


def test_a_nan_or_shifted_aim_is_solved_again_and_the_right_aim_cached(cache, quick_aim):
    th = Thrower(quick_aim)
    fresh = th.technique()
    key = th.technique_key()
    path = diskcache.entry_path("aim", key)
    entry = json.loads(path.read_text())
    rest = fresh.to_json()[1:]
    for value in ([float("nan"), *rest], [fresh.speed_mps + 0.05, *rest], [fresh.speed_mps, fresh.elevation_deg,
                                                                            "palm", 0.0, "lateral"]):
        path.write_text(json.dumps(entry | {"value": value}))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            again = Thrower(quick_aim).technique()
        assert again == fresh and again.speed_mps.hex() == fresh.speed_mps.hex()
        assert diskcache.load("aim", key, valid=plausible_aim) == fresh.to_json()
