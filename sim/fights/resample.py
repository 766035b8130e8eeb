"""A throw source that draws fight throws from recorded throw outcomes (an experiment's records).

Each `RecordedTable` holds the outcomes of one scenario (die, shots, skill, board, templates, rules,
optionally an aim point), pre-built as `Outcome` objects, so a draw is one uniform number and a list
index. Void throws (not settled, diverged) are dropped when the table is built: redrawing a void
until it is not void is the same as drawing uniformly from the non-void rows.

Determinism: throw k of fight f draws one uniform number u(seed, f, k), and its row is
`int(u * rows)` of the table the request selects. Fights come in blocks of 64: for k < 32, u is
element [f mod 64, k] of the 64 x 32 array of PCG64 doubles drawn from
`SeedSequence(root_seed, spawn_key=(f // 64, STREAM_FIGHT))`; later throws (rare) take the
(k - 32)-th double of `SeedSequence(root_seed, spawn_key=(f, STREAM_FIGHT, 1))`. So a throw depends
only on (root seed, fight index, throw index), never on other fights, their order or their count;
one SeedSequence per 64 fights keeps the draws cheap.

Which table answers a request: every table whose set fields equal the request's (a field left None
matches anything) is a candidate; the most specific candidates win; among those (recordings of the
same scenario aimed at different points) the request's aim decides: a target point picks the
nearest recorded aim point, else the objective picks the best table ("hit": hit rate, "damage":
mean damage, "kill": the chance of dealing at least the monster's remaining life, insta-kills
included). A request no table matches raises `UncoveredThrow` (record that scenario).
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from sim.engine.records import (
    EFFECTS,
    OUTCOME_READ,
    REQUIRED_COLUMNS,
    effects_only_in_column,
    outcome_from_row,
)
from sim.engine.run_folder import RunFolder
from sim.errors import SpecError, UncoveredThrow
from sim.fights.throw_source import ThrowRequest
from sim.rules.outcome import Outcome

STREAM_FIGHT = 16  # spawn-key stream of fight resampling (release draws use streams 0-2)
FIGHT_BLOCK = 64  # fights per SeedSequence block
BLOCK_THROWS = 32  # throws per fight drawn from its block
MATCH_FIELDS = ("die", "shots", "skill", "board", "templates", "rules", "noise")
# rule options that cannot change a throw's classification when no template lies on the board
TEMPLATE_RULES = ("partial_template",)


def relevant_rules(rules: Iterable[tuple[str, Any]], templates: Iterable[str] | None) -> frozenset:
    """The rule options that can matter: the partial-template rule only decides dice touching a
    template, so with no template on the board it is left out (tables and requests alike)."""
    items = frozenset(rules)
    if templates is not None and not tuple(templates):
        items = frozenset(kv for kv in items if kv[0] not in TEMPLATE_RULES)
    return items


def table_match(
    *,
    die: str | None = None,
    shots: Iterable[str] | None = None,
    skill: str | None = None,
    board: str | None = None,
    templates: Iterable[str] | None = None,
    rules: Iterable[tuple[str, Any]] | dict | None = None,
    noise: float | None = None,
) -> dict[str, Any]:
    """What a recorded table answers, field by field (None: any value)."""
    tpl = None if templates is None else frozenset(templates)
    return {
        "die": die,
        "shots": None if shots is None else frozenset(shots),
        "skill": skill,
        "board": board,
        "templates": tpl,
        "rules": None if rules is None else relevant_rules(dict(rules).items(), tpl),
        "noise": None if noise is None else float(noise),
    }


def match_specificity(match: dict[str, Any], req: ThrowRequest) -> int | None:
    """How many set fields of a table's match equal the request's (None: a set field differs)."""
    want = _request_fields(req)
    n = 0
    for k, v in match.items():
        if v is None:
            continue
        if v != want[k]:
            return None
        n += 1
    return n


class RecordedTable:
    """The recorded outcomes of one throw scenario, ready to be drawn from."""

    def __init__(
        self,
        records: pd.DataFrame,
        *,
        die: str | None = None,
        shots: Iterable[str] | None = None,
        skill: str | None = None,
        board: str | None = None,
        templates: Iterable[str] | None = None,
        rules: Iterable[tuple[str, Any]] | dict | None = None,
        target_mm: tuple[float, float] | None = None,
        noise: float | None = None,
        label: str = "",
    ) -> None:
        missing = [c for c in REQUIRED_COLUMNS if c not in records.columns]
        if missing:
            raise ValueError(f"records lack column(s) {', '.join(missing)}")
        self.label = label
        self.match = table_match(
            die=die, shots=shots, skill=skill, board=board, templates=templates, rules=rules, noise=noise
        )
        self.target_mm = target_mm
        n_all = len(records)
        ok = records[records["result"].isin(["hit", "miss"])]
        if ok.empty:
            raise ValueError(f"table '{label}': no hit or miss among {n_all} records")
        self.outcomes: list[Outcome] = [outcome_from_row(r) for r in ok.to_dict("records")]
        self.n = len(self.outcomes)
        self._estimate: tuple[float, float] | None = None
        self.void_fraction = 1.0 - self.n / n_all
        self.hit = np.array([o.result == "hit" for o in self.outcomes])
        self.damage = np.array([o.damage for o in self.outcomes], dtype=float)
        self.insta = np.array([o.insta_kill for o in self.outcomes])
        self.hit_rate = float(self.hit.mean())
        self.mean_damage = float(np.where(self.hit, self.damage, 0.0).mean())
        self._kill: dict[int, float] = {}
        self._order: np.ndarray | None = None  # outcome_order, worked out when first asked

    def bootstrap(self, rng: np.random.Generator) -> RecordedTable:
        """A bootstrap copy: its outcomes drawn again with replacement, as many as it has (what the
        table's own sampling leaves uncertain: a game answer's bank part), laid out in one fixed order
        of the outcomes (`outcome_order`). So row j of every copy is the j-th of its draws in that
        order, and a throw's uniform lands on the same outcome in every copy unless the draw moved the
        edge between two outcomes near it: copies differ by what the bank's sampling changes (how
        often each outcome comes), not by throws drawn afresh, which would put the games' own noise
        into the bank's part."""
        idx = self.outcome_order()[np.sort(rng.integers(0, self.n, self.n))]
        new = copy.copy(self)
        new.outcomes = [self.outcomes[i] for i in idx]
        new.hit, new.damage, new.insta = self.hit[idx], self.damage[idx], self.insta[idx]
        new.hit_rate = float(new.hit.mean())
        new.mean_damage = float(np.where(new.hit, new.damage, 0.0).mean())
        new._kill = {}
        new._estimate = None
        new._order = np.arange(self.n, dtype=np.int64)  # its rows are in that order already
        return new

    def outcome_order(self) -> np.ndarray:
        """The rows in a fixed order of their outcomes (void, miss, hit; then the insta-kill, damage,
        value and the rest of what a game reads), like outcomes next to each other."""
        if getattr(self, "_order", None) is None:
            rank = {"void": 0, "miss": 1, "hit": 2}

            def key(i: int) -> tuple:
                o = self.outcomes[i]
                return (
                    rank.get(o.result, 3),
                    o.insta_kill,
                    o.damage,
                    -1 if o.value is None else o.value,
                    o.hero_damage,
                    o.icon,
                    o.face or "",
                    o.template or "",
                    o.partial_template,
                    o.section or "",
                    ";".join(sorted(str(e) for e in o.effects)),
                    str(o.reason),
                )

            self._order = np.array(sorted(range(self.n), key=key), dtype=np.int64)
        assert self._order is not None
        return self._order

    def kill_rate(self, life: int) -> float:
        """P(one throw deals at least `life` on a hit, or insta-kills), from the recorded damage."""
        r = self._kill.get(life)
        if r is None:
            r = self._kill[life] = float((self.hit & ((self.damage >= life) | self.insta)).mean())
        return r

    def hit_estimate(self) -> tuple[float, float]:
        """(hit share, mean damage of a hit) over the table's outcomes."""
        if self._estimate is None:
            hits = int(self.hit.sum())
            self._estimate = (hits / self.n, float(self.damage[self.hit].mean()) if hits else 0.0)
        return self._estimate

    def specificity(self, req: ThrowRequest) -> int | None:
        """How many set fields match the request (None: a set field differs)."""
        return match_specificity(self.match, req)

    def describe(self) -> dict[str, Any]:
        """The table as a JSON-able dict: its match fields, non-void throws, void fraction, hit rate and
        mean damage per throw (a miss counts 0)."""
        m = {
            k: (sorted(v, key=str) if isinstance(v, frozenset) else v)
            for k, v in self.match.items()
            if v is not None
        }
        return {
            "label": self.label,
            **m,
            "throws": self.n,
            "void_fraction": round(self.void_fraction, 4),
            "hit_rate": round(self.hit_rate, 4),
            "mean_damage": round(self.mean_damage, 4),
        }


def _scenario_text(m: dict[str, Any]) -> str:
    parts = []
    for k in MATCH_FIELDS:
        v = m.get(k)
        if isinstance(v, frozenset):
            items = sorted(v, key=str)
            v = "+".join(f"{a}={b}" for a, b in items) if k == "rules" else "+".join(items)
            v = v or "none"
        elif k == "noise" and v is not None:
            v = f"x{v:g}" + (
                " (release-noise house rules need throws recorded with that noise)" if v != 1 else ""
            )
        if v is not None:
            parts.append(f"{k} {v}")
    return ", ".join(parts)


def _request_fields(req: ThrowRequest) -> dict[str, Any]:
    return {
        "die": req.die,
        "shots": frozenset(req.shots),
        "skill": req.skill,
        "board": req.board,
        "templates": frozenset(req.templates),
        "rules": relevant_rules(req.rules, req.templates),
        "noise": float(req.noise_factor),
    }


class ResampleSource:
    """`ThrowSource` drawing recorded outcomes: `ResampleSource(df, seed=1)` or a list of tables."""

    def __init__(self, tables: pd.DataFrame | RecordedTable | Sequence[RecordedTable], seed: int = 0) -> None:
        if isinstance(tables, pd.DataFrame):
            tables = [RecordedTable(tables, label="records")]
        elif isinstance(tables, RecordedTable):
            tables = [tables]
        self.tables = list(tables)
        if not self.tables:
            raise ValueError("no recorded tables")
        self.seed = int(seed)
        self._choice: dict[tuple, Any] = {}
        self.used: dict[str, RecordedTable] = {}  # label -> table, of every table a request has selected
        self._block = -1
        self._blk: list[list[float]] = []
        self._over_fight = -1
        self._over: list[float] = []
        self._over_gen: np.random.Generator | None = None

    # ---- which table --------------------------------------------------------------------------
    def candidates(self, req: ThrowRequest) -> list[RecordedTable]:
        """The most specific tables answering `req` (all that tie); `UncoveredThrow` when none does."""
        scored = [(s, t) for t in self.tables if (s := t.specificity(req)) is not None]
        if not scored:
            raise UncoveredThrow(
                f"no recorded throws for {_scenario_text(_request_fields(req))} (recorded: "
                + ", ".join(t.label for t in self.tables)
                + ")"
            )
        best = max(s for s, _ in scored)
        return [t for s, t in scored if s == best]

    def table_for(self, req: ThrowRequest) -> RecordedTable:
        """The table that answers `req`: the one best candidate, else the one the request's aim picks
        (module docstring). Cached per scenario and aim; every selected table is kept in `used`."""
        key = (req.die, req.shots, req.skill, req.board, req.templates, req.rules, req.aim)
        c = self._choice.get(key)
        if c is None:
            cands = self.candidates(req)
            c = self._choice[key] = cands[0] if len(cands) == 1 else cands
            for t in cands:
                self.used.setdefault(t.label, t)
        if isinstance(c, RecordedTable):
            return c
        return _by_aim(c, req)

    def estimate(self, req: ThrowRequest) -> tuple[float, float] | None:
        """(hit share, mean damage of a hit) of the table answering `req`, or None when no table
        does: what a policy may weigh before a combat without throwing (no draw is spent)."""
        try:
            t = self.table_for(req)
        except UncoveredThrow:
            return None
        if t is None:
            return None
        return t.hit_estimate()

    # ---- the draw -----------------------------------------------------------------------------
    def uniform(self, fight: int, throw: int) -> float:
        """u(seed, fight, throw) in [0, 1) (see the module docstring)."""
        if throw < BLOCK_THROWS:
            b = fight // FIGHT_BLOCK
            if b != self._block:
                ss = np.random.SeedSequence(self.seed, spawn_key=(int(b), STREAM_FIGHT))
                self._blk = (
                    np.random.Generator(np.random.PCG64(ss)).random((FIGHT_BLOCK, BLOCK_THROWS)).tolist()
                )
                self._block = b
            return self._blk[fight - b * FIGHT_BLOCK][throw]
        if fight != self._over_fight:
            ss = np.random.SeedSequence(self.seed, spawn_key=(int(fight), STREAM_FIGHT, 1))
            self._over_gen = np.random.Generator(np.random.PCG64(ss))
            self._over = []
            self._over_fight = fight
        k = throw - BLOCK_THROWS
        while k >= len(self._over):
            self._over.extend(self._over_gen.random(max(16, len(self._over))).tolist())
        return self._over[k]

    def throw(self, request: ThrowRequest) -> Outcome:
        """Row `int(u * n)` of the selected table, u = u(seed, fight, throw): the outcome depends on nothing
        else. The returned `Outcome` is shared between draws."""
        t = self.table_for(request)
        return t.outcomes[int(self.uniform(request.fight, request.throw) * t.n)]


def _by_aim(tables: list[RecordedTable], req: ThrowRequest) -> RecordedTable:
    aim = req.aim
    if aim.target_mm is not None:
        pts = [t for t in tables if t.target_mm is not None]
        if pts:
            x, y = aim.target_mm
            return min(pts, key=lambda t: (t.target_mm[0] - x) ** 2 + (t.target_mm[1] - y) ** 2)
    if aim.objective == "damage":
        return max(tables, key=lambda t: t.mean_damage)
    if aim.objective == "kill":
        return max(tables, key=lambda t: (t.kill_rate(req.monster_life), t.hit_rate))
    return max(tables, key=lambda t: t.hit_rate)


# ---- tables from an experiment's output folder --------------------------------------------------
def _stem(x: Any) -> str:
    s = str(x)
    return Path(s).stem if s.endswith(".toml") else s


def tables_from_results(
    out_dir: str | Path,
    variant: str | None = None,
    white_die: str | None = None,
    colored_die: str | None = None,
) -> tuple[list[RecordedTable], list[str]]:
    """One `RecordedTable` per single-die cell of a finished `dfsim run` folder (records.parquet and
    experiment.resolved.json), matched by the cell's die, shots, skill, board, templates and rule
    options (and release noise x1). Cells with `overrides` or `physics` settings are used only when
    `variant` names them. If no cell throws `white_die` and its die file differs from `colored_die`
    only in name and colour, the colored die's tables also answer white throws (noted in the notes)."""
    run = RunFolder.open(out_dir, "--records", kind="throws", command="a fight")
    out = run.root
    have = set(run.columns())
    df = run.records(OUTCOME_READ).to_pandas()
    cells, notes = cell_matches(run.cells, out, variant, white_die, colored_die)
    if EFFECTS not in have:
        inputs = {c["index"]: c["inputs"] for c in run.cells}
        for index, label, _ in cells:
            why = effects_only_in_column(inputs[index])
            if why:
                raise SpecError(
                    out,
                    "record",
                    f"cell '{label}' has no '{EFFECTS}' column, and {why}: a fight would "
                    f'miss those effects (record them: record = ["{EFFECTS}"] in the experiment file)',
                )
    tables: dict[int, RecordedTable] = {}
    out_tables = []
    for index, label, match in cells:
        t = tables.get(index)
        if t is None:
            rows = df[df["cell"] == index]
            if rows.empty:
                continue
            t = tables[index] = RecordedTable(rows, label=label)
            t.match = match
            out_tables.append(t)
        else:  # the same records answering for another die (the white die's alias)
            alias = RecordedTable.__new__(RecordedTable)
            alias.__dict__.update(t.__dict__)
            alias.match, alias.label = match, label
            out_tables.append(alias)
    if not out_tables:
        raise SpecError(out, "records", "no usable cells (single-die cells with hit or miss records)")
    return out_tables, notes


def cell_matches(
    cells: list[dict[str, Any]],
    source: str | Path,
    variant: str | None = None,
    white_die: str | None = None,
    colored_die: str | None = None,
) -> tuple[list[tuple[int, str, dict[str, Any]]], list[str]]:
    """(cell index, label, table match) of every usable cell of a resolved experiment (its
    `experiment.resolved.json` "cells"), without reading any records: what `tables_from_results`
    would answer, so a fight can be checked against a throw experiment before either runs."""
    notes: list[str] = []
    out: list[tuple[int, str, dict[str, Any]]] = []
    variants = sorted({c["variant"] for c in cells})
    if variant is not None and variant not in variants:
        raise SpecError(
            source, "variant", f"no variant '{variant}' in this run (variants: {', '.join(variants)})"
        )
    for cell in cells:
        inp = cell["inputs"]
        if variant is not None and cell["variant"] != variant:
            continue
        if variant is None and (inp.get("overrides") or inp.get("physics")):
            notes.append(
                f"cell {cell['name']}: skipped (overrides or physics settings; name its variant to use it)"
            )
            continue
        dice = inp.get("dice") or ["hero-d8"]
        if len(dice) != 1:
            notes.append(f"cell {cell['name']}: skipped ({len(dice)} dice per throw)")
            continue
        tpl = [_stem(t["name"]) if isinstance(t, dict) else _stem(t) for t in inp.get("templates") or []]
        out.append(
            (
                cell["index"],
                cell["name"],
                table_match(
                    die=_stem(dice[0]),
                    shots=[_stem(s) for s in inp.get("shots") or ["standard"]],
                    skill=_stem(inp.get("skill", "casual")),
                    board=_stem(inp.get("board", "magma")),
                    templates=tpl,
                    rules=_rule_items(inp.get("rules") or {}),
                    noise=1.0,
                ),
            )
        )
    if (
        white_die
        and colored_die
        and white_die != colored_die
        and not any(m["die"] == white_die for _, _, m in out)
    ):
        if same_body(white_die, colored_die):
            out += [
                (i, f"{label} (as {white_die})", {**m, "die": white_die})
                for i, label, m in list(out)
                if m["die"] == colored_die
            ]
            notes.append(
                f"white die '{white_die}' throws are resampled from '{colored_die}' records (same body)"
            )
    return out, notes


def uncovered(matches: Iterable[dict[str, Any]], requests: Iterable[ThrowRequest]) -> list[str]:
    """The requests no table match answers, as the scenario each one needs (empty: all covered)."""
    ms = list(matches)
    missing = []
    for req in requests:
        if not any(match_specificity(m, req) is not None for m in ms):
            text = _scenario_text(_request_fields(req))
            if text not in missing:
                missing.append(text)
    return missing


def _rule_items(rules: dict[str, Any]) -> list[tuple[str, Any]]:
    """Rule options that differ from the defaults (requests carry only those)."""
    from sim.specs.rules import RuleSet

    default = RuleSet().model_dump()
    return sorted((k, v) for k, v in rules.items() if default.get(k, object()) != v)


def same_body(a: str, b: str) -> bool:
    """Whether two die files differ only in name, colour and words (the same body throws the same)."""
    from sim.specs.die import DIE_WORDS, load_die

    da, db = load_die(a).model_dump(), load_die(b).model_dump()
    for d in (da, db):
        for k in DIE_WORDS:
            d.pop(k, None)
    return da == db
