"""A replay page: one self-contained HTML file that plays one or more recorded throws in 3-D.

    from sim.engine.worlds import thrower_for
    from sim.viewer.replay import record_throw, write_replay
    th = thrower_for(Scenario.build(shots=["firewall"]))
    res, traj = record_throw(th, seed=7, index=0)
    write_replay("throw.html", [(th, res, traj)])

The page shows the table, the board with its sections (values printed), holes and bones, the
props and templates as they stood, the die with its face labels, the die's path, the contact events
on the timeline, and the outcome; play, pause, scrub, slow motion and an orbiting camera.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from sim.viewer.page import page_html
from sim.viewer.recorder import DEFAULT_FPS, Trajectory, recording
from sim.viewer.scene import scene_json, throw_json


def record_throw(
    thrower, seed: int | None = None, index: int | None = None, releases=None, fps: float = DEFAULT_FPS
):
    """Throw (seed, index) - or exact `releases` - with a recorder attached: (ThrowResult, Trajectory).
    The result is the very result of the same throw without the recorder."""
    with recording(thrower, fps) as rec:
        if releases is not None:
            res = thrower.throw_releases(list(releases))
            res.seed, res.index = seed, index
        else:
            res = thrower.throw(seed, index)
    return res, rec.trajectory


def throw_label(res) -> str:
    """A one-line caption of a throw: seed and index (or 'exact release'), result, reason and section
    value."""
    o = res.outcome
    what = f"{o.result} ({o.reason})"
    if o.section:
        what += f", section {o.value}"
    if res.seed is not None:
        return f"seed {res.seed} throw {res.index}: {what}"
    return f"exact release: {what}"


def replay_data(entries: Sequence[tuple[Any, Any, Trajectory]], warning: str = "") -> dict[str, Any]:
    """Page data for (thrower, ThrowResult, Trajectory) triples; scenes are shared by key."""
    scenes: dict[str, Any] = {}
    throws = []
    for thrower, res, traj in entries:
        scene = scene_json(thrower)
        key = scene["key"]
        scenes.setdefault(key, scene)
        t = throw_json(traj, res, label=throw_label(res), extra={"warning": warning} if warning else None)
        t["scene"] = key
        throws.append(t)
    return {"kind": "replay", "scenes": scenes, "throws": throws}


def replay_html(
    entries: Sequence[tuple[Any, Any, Trajectory]], title: str | None = None, warning: str = ""
) -> str:
    """A self-contained replay page of one or more recorded throws of one scenario (ValueError if none)."""
    if not entries:
        raise ValueError("no throws to replay")
    data = replay_data(entries, warning)
    sc = entries[0][0].scenario
    shots = " + ".join(s.name for s in sc.shots)
    board = sc.board.name if sc.board is not None else "no board"
    dice = ", ".join(d.name for d in sc.dice)
    title = title or f"dfsim replay: {shots} on {board}"
    subtitle = f"{dice}; skill {sc.skill.name}; scenario {sc.key}. " + (
        "Every board, die and prop is an estimate (see the data files)." if sc.board is not None else ""
    )
    body = (
        '<select id="throw-pick" hidden aria-label="throw"></select>\n'
        f'<div id="viewer" aria-label="{html.escape(title)}"></div>'
    )
    return page_html(title, body, data, subtitle)


def write_replay(
    path: str | Path,
    entries: Sequence[tuple[Any, Any, Trajectory]],
    title: str | None = None,
    warning: str = "",
) -> Path:
    """Write the replay page of (thrower, ThrowResult, Trajectory) triples to `path` (`warning`: shown
    with the outcome, e.g. that a replay ended differently from its record)."""
    from sim.files import write_atomic

    return write_atomic(Path(path), replay_html(entries, title, warning))
