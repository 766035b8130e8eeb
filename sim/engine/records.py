"""What a throw record and a fight record hold: the columns, one encoder and one decoder each.

Why one module: a record is written by the worker that throws (or plays a fight) and read by the
replay, by the resampler that draws fight throws from recorded ones, by the reports and by the game's
throw bank. Each of them naming the columns again is how a column gets written but not read.

A throw record is flat and primitive (Parquet keeps it as it is):

- `seed`, `index`: which throw it is (with the cell's constant columns the runner adds);
- `rel_*`: the release of die 0, position in mm from the 1 nm grid `Release` keeps it on, so the
  decoded release is the very float the engine threw (velocity m/s, orientation xyzw, spin rad/s);
- die 0's outcome in the plain columns (`OUTCOME_COLUMNS`; None is stored as "" or -1), a further
  die i in `die{i}_*` columns (`DIE_COLUMNS`);
- components' own columns (templates: `tpl_*`, `partial_as_*`);
- `effects` (the outcome's effects joined by ";") when the experiment asks for it. Most effects also
  show in a column (bonus damage, Firewall touches and the Boulder's attack in `damage` and
  `hero_damage`), so a record without them loses nothing a fight reads, except for the effects that
  live only there: a template's "every hero" damage and healing and its gold, and a Gold face. A cell
  that can produce those is refused by the resampler when its records lack the column
  (`effects_only_in_column`).
"""

from __future__ import annotations

import math
from typing import Any, cast

from sim.engine.release import Release
from sim.errors import SpecError
from sim.rules.effects import GOLD
from sim.rules.outcome import Effect, Outcome, Result

RELEASE_COLUMNS = (
    "rel_x_mm",
    "rel_y_mm",
    "rel_z_mm",
    "rel_vx_mps",
    "rel_vy_mps",
    "rel_vz_mps",
    "rel_qx",
    "rel_qy",
    "rel_qz",
    "rel_qw",
    "rel_wx_radps",
    "rel_wy_radps",
    "rel_wz_radps",
)
# die 0's outcome, in the order a record holds them: what a replay must reproduce exactly
OUTCOME_COLUMNS = (
    "result",
    "reason",
    "section",
    "value",
    "face",
    "icon",
    "cocked",
    "tilt_deg",
    "template",
    "partial_template",
    "damage",
    "hero_damage",
    "insta_kill",
    "bounces_before_board",
    "x_mm",
    "y_mm",
    "z_mm",
    "touching",
    "requirements",
    "time_s",
    "n_dice",
)
# what a record keeps of each further die of a throw (die 0's are the record's own columns)
DIE_COLUMNS = (
    "result",
    "reason",
    "section",
    "value",
    "face",
    "cocked",
    "tilt_deg",
    "damage",
    "x_mm",
    "y_mm",
    "z_mm",
)
EFFECTS = "effects"
OPTIONAL_COLUMNS = (EFFECTS,)  # what an experiment may ask to record besides (ExperimentSpec.record)
# what `outcome_from_row` reads (with the cell, to split a run's records by cell); the first three are
# required
OUTCOME_READ = (
    "cell",
    "result",
    "reason",
    "section",
    "value",
    "face",
    "icon",
    "cocked",
    "template",
    "partial_template",
    "damage",
    "hero_damage",
    "insta_kill",
    "requirements",
    "touching",
    EFFECTS,
)
REQUIRED_COLUMNS = ("result", "reason", "damage")
# ---- the release -------------------------------------------------------------------------------
def release_columns(r: Release) -> dict[str, float]:
    """A release as its `rel_*` columns (mm for the position)."""
    p, v, q, w = r.position_m, r.velocity_mps, r.orientation_xyzw, r.spin_radps
    values = (p[0] * 1e3, p[1] * 1e3, p[2] * 1e3, v[0], v[1], v[2], q[0], q[1], q[2], q[3], w[0], w[1], w[2])
    return dict(zip(RELEASE_COLUMNS, values, strict=True))


def release_from_record(rec: dict[str, Any]) -> Release:
    """The stored release of die 0, as the exact floats the engine threw (positions snap back to the
    1 nm grid that `Release` keeps them on, so mm -> m is lossless); SpecError without `rel_*` columns."""
    missing = [c for c in RELEASE_COLUMNS if c not in rec]
    if missing:
        raise SpecError("records", missing[0], "the record has no stored release (rel_* columns)")
    g = [float(rec[c]) for c in RELEASE_COLUMNS]
    return Release(
        (g[0] * 1e-3, g[1] * 1e-3, g[2] * 1e-3),
        (g[3], g[4], g[5]),
        (g[6], g[7], g[8], g[9]),
        (g[10], g[11], g[12]),
    )


# ---- the outcome -------------------------------------------------------------------------------
def outcome_columns(o: Outcome, n_dice: int) -> dict[str, Any]:
    """Die 0's outcome as the record's plain columns (None as "" or -1), `n_dice` last."""
    return {
        "result": o.result,
        "reason": o.reason,
        "section": o.section or "",
        "value": -1 if o.value is None else int(o.value),
        "face": o.face or "",
        "icon": bool(o.icon),
        "cocked": bool(o.cocked),
        "tilt_deg": float(o.tilt_deg),
        "template": o.template or "",
        "partial_template": bool(o.partial_template),
        "damage": float(o.damage),
        "hero_damage": float(o.hero_damage),
        "insta_kill": bool(o.insta_kill),
        "bounces_before_board": int(o.bounces_before_board),
        "x_mm": o.position_mm[0],
        "y_mm": o.position_mm[1],
        "z_mm": o.position_mm[2],
        "touching": ",".join(o.touching),
        "requirements": ",".join(f"{k}={v}" for k, v in o.requirements.items()),
        "time_s": float(o.time_s),
        "n_dice": n_dice,
    }


def die_columns(i: int, o: Outcome) -> dict[str, Any]:
    """Die i's outcome as `die{i}_*` columns, so a roll of several dice (Super Dungeon Arena's three blue
    dice, the Water dice) can be read die by die from its record."""
    values = (
        o.result,
        o.reason,
        o.section or "",
        -1 if o.value is None else int(o.value),
        o.face or "",
        bool(o.cocked),
        float(o.tilt_deg),
        float(o.damage),
        *o.position_mm,
    )
    return {f"die{i}_{k}": v for k, v in zip(DIE_COLUMNS, values, strict=True)}


def effects_text(effects: list[str]) -> str:
    """The `effects` column: effects joined by ';' (an effect may hold commas)."""
    return ";".join(effects)


def _missing(v: Any) -> bool:
    return v is None or (isinstance(v, float) and math.isnan(v))


def _none(v: Any) -> Any:
    return None if _missing(v) or v == "" else v


def _split(v: Any) -> list[str]:
    if _missing(v):
        return []
    if isinstance(v, str):
        return [x for x in v.split(",") if x]
    return [str(x) for x in v]


def _effects(v: Any) -> list[Effect]:
    return [] if _missing(v) else [Effect(x) for x in str(v).split(";") if x]


def outcome_from_row(row: dict[str, Any]) -> Outcome:
    """One record row (a throw record: "" / -1 stand for None) as an `Outcome`; columns it lacks take
    the outcome's defaults, except `REQUIRED_COLUMNS`."""
    value = row.get("value")
    value = None if _missing(value) or int(value) < 0 else int(value)
    reqs = {}
    for item in _split(row.get("requirements")):
        k, _, st = item.partition("=")
        reqs[k] = st
    return Outcome(
        result=cast(Result, str(row["result"])),
        reason=str(row["reason"]),
        section=_none(row.get("section")),
        value=value,
        face=_none(row.get("face")),
        icon=bool(row.get("icon", False)),
        cocked=bool(row.get("cocked", False)),
        template=_none(row.get("template")),
        partial_template=bool(row.get("partial_template", False)),
        touching=_split(row.get("touching")),
        requirements=reqs,
        damage=float(row["damage"]),
        insta_kill=bool(row.get("insta_kill", False)),
        hero_damage=float(row.get("hero_damage", 0.0) or 0.0),
        effects=_effects(row.get(EFFECTS)),
        die=str(row.get("die", "die:0")),
    )


def throw_row(result: Any, columns: dict[str, Any], record: tuple[str, ...] = ()) -> dict[str, Any]:
    """One throw's row as a run stores it: the cell's constant `columns`, the throw's record
    (`ThrowResult.record`), then the optional columns the experiment asked for (`record`)."""
    row = dict(columns)
    row.update(result.record())
    if EFFECTS in record:
        row[EFFECTS] = effects_text(result.outcome.effects)
    return row


def effects_only_in_column(inputs: dict[str, Any]) -> str | None:
    """Why a cell's records need the `effects` column for a fight to read them whole (None: every
    effect its throws can have shows in another column too). Reads the cell's resolved inputs."""
    if inputs.get("templates"):
        return "it throws with templates on the board (their every-hero damage, healing and gold)"
    from sim.specs.die import load_die

    for d in inputs.get("dice") or []:
        gold = [f for f in load_die(d).faces if f in GOLD]
        if gold:
            return f"its die has a '{gold[0]}' face (the gold it gives)"
    return None
