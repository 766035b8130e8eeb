"""Global sensitivity analysis: which settings move the hit rate and the section shares of a scene.

A sensitivity file names a scene (board, dice, shots, skill, as in an experiment's [defaults]), the
parameters to vary (any numeric setting reachable by a dotted override path, each with a range) and a
method: Morris screening (elementary effects along random one-at-a-time trajectories; mu* ranks the
parameters, sigma flags non-linearity and interactions) or Sobol' indices (S1: the variance share of a
parameter alone, ST: with all its interactions). SALib draws the design and analyses it.

Every design point is a scenario, and the scenarios are run as ordinary experiment cells: each point is
a variant of one experiment (a part of at most MAX_CELLS points), thrown by the same runner, stored in
the same chunked, hashed folders. So a sensitivity run inherits the runner's guarantees: throw k of
every point uses draw k of the seed (common random numbers: the difference between two points is
measured on paired throws), records do not depend on the worker count, and an interrupted run resumes
where it stopped. The design and the bootstrap of the analysis are seeded from the same seed, so the
same file and seed give the same table.
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np
import pandas as pd
from pydantic import Field, ValidationError, field_validator, model_validator

from sim.errors import FieldError, SpecError, from_validation_error
from sim.experiments.kinds import selected
from sim.experiments.spec import MAX_CELLS, Settings, check_name, localise, resolve_experiment
from sim.files import write_atomic
from sim.hashing import json_hash
from sim.specs.base import Spec
from sim.specs.datafiles import read_toml

DUMMY = "dummy"  # a parameter applied nowhere: its effects must come out zero (a check of the machinery)
MAX_PARAMETERS = 40
MAX_POINTS = 2000  # design points (scenarios) of one analysis
PARAM_BOUND = 1e9
BOOTSTRAP = 1000  # resamples for the confidence intervals of mu* and of S1 / ST
RUNS_DIR = "runs"
FILES = ("sensitivity.json", "sensitivity.csv", "sensitivity.md", "sensitivity.png", "samples.csv")


class Parameter(Spec):
    """One varied setting: a dotted override path (or "dummy") and its range, sampled uniformly."""

    name: str = Field(min_length=1, max_length=100)
    setting: str = Field(min_length=1, max_length=200)
    low: float = Field(ge=-PARAM_BOUND, le=PARAM_BOUND)
    high: float = Field(ge=-PARAM_BOUND, le=PARAM_BOUND)

    @field_validator("setting")
    @classmethod
    def _path(cls, v: str) -> str:
        if v != DUMMY and (
            len(v.split(".")) < 2 or not all(p.replace("_", "a").isalnum() for p in v.split("."))
        ):
            raise ValueError(f"'{v}' is not a dotted path like 'skill.speed_sd_frac' (or \"{DUMMY}\")")
        return v

    @model_validator(mode="after")
    def _range(self) -> Parameter:
        if not self.low < self.high:
            raise FieldError("high", f"must be above low ({self.low:g})")
        return self


class SensitivitySpec(Spec):
    """The whole sensitivity file."""

    name: str = Field(max_length=200)
    description: str = ""
    seed: int = Field(ge=0, le=2**63 - 1)
    method: Literal["morris", "sobol"] = "morris"
    throws: int = Field(ge=1, le=1_000_000)  # per design point; throw k of every point uses draw k
    # default: one chunk per point. The runner advances all cells chunk by chunk, and a worker keeps only
    # its most recent worlds (sim/engine/worlds.py): several chunks per point would rebuild its world
    # (~2 s) for each; smaller chunks only make an interruption lose less
    chunk_throws: int | None = Field(default=None, ge=1, le=100_000)
    trajectories: int = Field(default=10, ge=2, le=500)  # Morris: r trajectories of k + 1 points
    levels: int = Field(default=4, ge=2, le=100)  # Morris: grid levels (even)
    samples: int = Field(default=64, ge=2, le=4096)  # Sobol': base samples (a power of 2), N (k + 2) points
    confidence: float = Field(default=0.95, gt=0.5, lt=1)
    scene: Settings = Settings()
    parameters: list[Parameter] = Field(min_length=2, max_length=MAX_PARAMETERS)

    @field_validator("name")
    @classmethod
    def _valid_name(cls, v: str) -> str:
        return check_name(v, "sensitivity name")

    @field_validator("levels")
    @classmethod
    def _even(cls, v: int) -> int:
        if v % 2:
            raise ValueError("must be even (Morris steps of levels / (2 (levels - 1)) need it)")
        return v

    @field_validator("samples")
    @classmethod
    def _power_of_two(cls, v: int) -> int:
        if v & (v - 1):
            raise ValueError("must be a power of 2 (Sobol' sequences balance only then)")
        return v

    @model_validator(mode="after")
    def _check(self) -> SensitivitySpec:
        names = [p.name for p in self.parameters]
        for i, n in enumerate(names):
            if n in names[:i]:
                raise FieldError(f"parameters.{i}.name", f"duplicate parameter name '{n}'")
        settings = [p.setting for p in self.parameters]
        for i, s in enumerate(settings):
            if s != DUMMY and s in settings[:i]:
                raise FieldError(f"parameters.{i}.setting", f"'{s}' is varied twice")
            if s in (self.scene.overrides or {}):
                raise FieldError(f"parameters.{i}.setting", f"'{s}' is also fixed in scene.overrides")
        if self.points > MAX_POINTS:
            what = "trajectories" if self.method == "morris" else "samples"
            raise FieldError(
                what, f"{self.points} design points; at most {MAX_POINTS} (fewer {what} or parameters)"
            )
        return self

    @property
    def points(self) -> int:
        """Design points (scenarios) the method needs."""
        k = len(self.parameters)
        return self.trajectories * (k + 1) if self.method == "morris" else self.samples * (k + 2)


def load_sensitivity(path: str | Path, method: str | None = None) -> tuple[SensitivitySpec, str]:
    """Read and validate a sensitivity file; `method` replaces the file's. Bad input raises SpecError."""
    p = Path(path)
    if not p.is_file():
        raise SpecError(str(path), "", "file not found")
    data = read_toml(p)
    if method is not None:
        data = {**data, "method": method}
    return parse_sensitivity(data, str(p)), str(p)


def parse_sensitivity(data: Mapping[str, Any], source: str = "<sensitivity>") -> SensitivitySpec:
    """Validate a sensitivity table; any problem raises one SpecError naming the field."""
    if not isinstance(data, Mapping):
        raise SpecError(source, "", "expected a table of keys and values")
    data = {k: v for k, v in data.items() if not (k == "kind" and v == "sensitivity")}
    try:
        return SensitivitySpec.model_validate(data)
    except ValidationError as exc:
        raise from_validation_error(source, exc, data=data) from None


# ----------------------------------------------------------------------------------------------
# the design


@dataclass(frozen=True)
class Plan:
    """A validated analysis: its design points, the experiment parts that throw them, the outputs."""

    spec: SensitivitySpec
    source: str
    problem: dict[str, Any]  # SALib's problem: names, bounds
    X: np.ndarray  # design points, one row per scenario
    parts: list[dict[str, Any]]  # experiment tables (each at most MAX_CELLS variants)
    values: list[int]  # the board's section values: one output each

    @property
    def outputs(self) -> list[str]:
        """Output names: "hit" and "value=V" per section value (the share of throws scoring V)."""
        return ["hit"] + [f"value={v}" for v in self.values]

    @property
    def hash(self) -> str:
        return json_hash({"spec": self.spec.model_dump(mode="json"), "X": self.X.tolist()}, compact=True)


def _design(spec: SensitivitySpec, problem: dict[str, Any]) -> np.ndarray:
    if spec.method == "morris":
        from SALib.sample import morris

        return np.asarray(morris.sample(problem, spec.trajectories, num_levels=spec.levels, seed=spec.seed))
    from SALib.sample import sobol

    return np.asarray(sobol.sample(problem, spec.samples, calc_second_order=False, seed=spec.seed))


def _scene(spec: SensitivitySpec, source: str) -> dict[str, Any]:
    """The scene as an experiment's [defaults], relative file paths made relative to the sensitivity file."""
    base = Path(source).resolve().parent if Path(source).is_file() else None
    scene = spec.scene.model_dump(exclude_none=True)
    for k in ("board", "skill", "materials"):
        if k in scene:
            scene[k] = localise(scene[k], base)
    for k in ("dice", "shots"):
        if k in scene:
            scene[k] = [localise(x, base) for x in scene[k]]
    return scene


def plan_sensitivity(spec: SensitivitySpec, source: str = "<sensitivity>") -> Plan:
    """Draw the design and validate every scenario it needs before anything runs: a setting that does
    not exist or a range the setting refuses is one SpecError naming the parameter."""
    from sim.specs.scenario import Scenario

    scene = _scene(spec, source)
    base = {k: v for k, v in scene.items() if k != "overrides"}
    fixed = dict(scene.get("overrides") or {})
    try:
        sc = Scenario.build(**base, overrides=fixed, source=source)
    except SpecError as exc:
        raise SpecError(
            exc.source, f"scene.{exc.field}" if exc.source == source else exc.field, exc.problem
        ) from None
    for i, p in enumerate(spec.parameters):
        if p.setting == DUMMY:
            continue
        for end in ("low", "high"):
            try:
                Scenario.build(**base, overrides={**fixed, p.setting: getattr(p, end)}, source=source)
            except SpecError as exc:
                raise SpecError(
                    source,
                    f"parameters.{i}.{'setting' if _bad_path(exc) else end}",
                    f"{p.setting} = {getattr(p, end):g}: {exc.problem}",
                ) from None
    problem = {
        "num_vars": len(spec.parameters),
        "names": [p.name for p in spec.parameters],
        "bounds": [[p.low, p.high] for p in spec.parameters],
    }
    X = _design(spec, problem)
    values = sorted({s.value for s in sc.board.sections}) if sc.board is not None else []
    parts: list[dict[str, Any]] = []
    for start in range(0, len(X), MAX_CELLS):
        variants = []
        for i in range(start, min(start + MAX_CELLS, len(X))):
            over = {p.setting: float(x) for p, x in zip(spec.parameters, X[i]) if p.setting != DUMMY}
            variants.append({"name": f"p{i:04d}", **({"overrides": over} if over else {})})
        parts.append(
            {
                "name": f"{spec.name}-{spec.method}-part{len(parts)}",
                "seed": spec.seed,
                "throws": spec.throws,
                "chunk_throws": spec.chunk_throws or min(spec.throws, 100_000),
                "confidence": spec.confidence,
                "defaults": scene,
                "variants": variants,
            }
        )
    return Plan(spec, source, problem, X, parts, values)


def _bad_path(exc: SpecError) -> bool:
    return any(
        w in exc.problem
        for w in ("unknown key", "unknown component", "is not a table", "is not an index", "dotted path")
    )


# ----------------------------------------------------------------------------------------------
# running


@dataclass
class SensitivityResult:
    """What an analysis leaves: the output folder, the outputs per design point, the indices table."""

    out: Path
    plan: Plan
    Y: pd.DataFrame  # one row per design point, one column per output
    table: pd.DataFrame  # one row per (output, parameter): the indices
    files: list[Path]
    throws_run: int


def run_sensitivity(
    path_or_spec: str | Path | SensitivitySpec,
    out: str | Path | None = None,
    workers: int | None = None,
    force: bool = False,
    quiet: bool = False,
    method: str | None = None,
    figure: bool = True,
    source: str | None = None,
    throws: int | None = None,
    trajectories: int | None = None,
    parameters: Sequence[str] | None = None,
) -> SensitivityResult:
    """Run (or resume) a sensitivity analysis and write its table, figure and samples.

    The design points run as the cells of ordinary experiments in OUT/runs/part-K (resumable: run the
    same command again after an interruption; sim.experiments.runner.Interrupted is raised with the
    finished chunks kept). `parameters`: vary only the parameters these shell patterns name (the others
    keep the scene's values), a smaller analysis of its own. Bad input raises SpecError before anything
    is written."""
    from sim.experiments.runner import run_experiment
    from sim.experiments.store import Store

    if isinstance(path_or_spec, SensitivitySpec):
        spec, src = path_or_spec, source or "<sensitivity>"
        if method is not None:
            spec = parse_sensitivity(
                {**spec.model_dump(mode="json", exclude_none=True), "method": method}, src
            )
    else:
        spec, src = load_sensitivity(path_or_spec, method)
    spec = narrowed(spec, src, throws, trajectories, parameters)
    plan = plan_sensitivity(spec, src)
    out = Path(out) if out is not None else Path("results") / f"{spec.name}-{spec.method}"
    if out.exists() and not out.is_dir():
        raise SpecError(str(out), "--out", "exists and is not a folder")
    exps = [resolve_experiment(part, src) for part in plan.parts]
    folders = [out / RUNS_DIR / f"part-{i}" for i in range(len(exps))]
    for exp, folder in zip(exps, folders):
        Store.check(folder, exp.hash, force)
    records, run = [], 0
    for i, (part, folder) in enumerate(zip(plan.parts, folders)):
        if not quiet and len(folders) > 1:
            print(f"part {i + 1} of {len(folders)}: {len(part['variants'])} design points", flush=True)
        res = run_experiment(part, out=folder, workers=workers, force=force, quiet=quiet, figures=False)
        run += res.throws_run
        rec = res.records[["variant", "result", "value"]].copy()
        records.append(rec)
    Y = outputs_per_point(pd.concat(records, ignore_index=True), plan)
    table = analyse(plan, Y)
    files = write_outputs(out, plan, Y, table, figure)
    return SensitivityResult(out=out, plan=plan, Y=Y, table=table, files=files, throws_run=run)


def narrowed(
    spec: SensitivitySpec,
    src: str,
    throws: int | None = None,
    trajectories: int | None = None,
    parameters: Sequence[str] | None = None,
) -> SensitivitySpec:
    """The analysis with the command line's sizes, and only the parameters these shell patterns name: a
    smaller (or larger) analysis of the same file, with its own hash, validated as the file is."""
    changes: dict[str, Any] = {
        k: v for k, v in (("throws", throws), ("trajectories", trajectories)) if v is not None
    }
    if parameters is not None:
        keep = selected([q.name for q in spec.parameters], parameters, "--parameters", "parameter", src)
        changes["parameters"] = [q.model_dump(mode="json") for q, k in zip(spec.parameters, keep) if k]
        if len(changes["parameters"]) < 2:
            raise SpecError("command line", "--parameters", "names one parameter; an analysis varies two")
    if not changes:
        return spec
    return parse_sensitivity({**spec.model_dump(mode="json", exclude_none=True), **changes}, src)


def outputs_per_point(records: pd.DataFrame, plan: Plan) -> pd.DataFrame:
    """Each design point's outputs: its hit rate and, per section value, the share of its throws that hit
    a section of that value (void throws stay in every denominator)."""
    index = records["variant"].str[1:].astype(int)
    hit = records["result"] == "hit"
    cols = {"hit": hit.astype(float)}
    for v in plan.values:
        cols[f"value={v}"] = (hit & (records["value"] == v)).astype(float)
    frame = pd.DataFrame(cols).groupby(index.to_numpy()).mean().sort_index()
    if len(frame) != len(plan.X):
        raise SpecError(plan.source, "", f"records hold {len(frame)} of {len(plan.X)} design points")
    frame.index.name = "point"
    return frame


def analyse(plan: Plan, Y: pd.DataFrame) -> pd.DataFrame:
    """The indices of every parameter for every output: Morris mu, mu*, its interval half-width and
    sigma; or Sobol' S1 and ST with their interval half-widths. Seeded: the same inputs, the same table."""
    spec = plan.spec
    rows = []
    for output in plan.outputs:
        y = Y[output].to_numpy(dtype=float)
        if spec.method == "morris":
            from SALib.analyze import morris

            r = morris.analyze(
                plan.problem,
                plan.X,
                y,
                num_resamples=BOOTSTRAP,
                conf_level=spec.confidence,
                num_levels=spec.levels,
                seed=spec.seed,
            )
            for j, name in enumerate(plan.problem["names"]):
                rows.append(
                    {
                        "output": output,
                        "parameter": name,
                        "mu": float(r["mu"][j]),
                        "mu_star": float(r["mu_star"][j]),
                        "mu_star_conf": float(r["mu_star_conf"][j]),
                        "sigma": float(r["sigma"][j]),
                    }
                )
        else:
            rows += _sobol_rows(plan, output, y)
    return pd.DataFrame(rows)


def _sobol_rows(plan: Plan, output: str, y: np.ndarray) -> list[dict[str, Any]]:
    names = plan.problem["names"]
    if float(np.var(y)) == 0.0:  # no variance to share out: every index is undefined
        return [
            {
                "output": output,
                "parameter": n,
                "S1": math.nan,
                "S1_conf": math.nan,
                "ST": math.nan,
                "ST_conf": math.nan,
            }
            for n in names
        ]
    from SALib.analyze import sobol

    with np.errstate(all="ignore"):
        r = sobol.analyze(
            plan.problem,
            y,
            calc_second_order=False,
            num_resamples=BOOTSTRAP,
            conf_level=plan.spec.confidence,
            seed=plan.spec.seed,
        )
    return [
        {
            "output": output,
            "parameter": n,
            "S1": float(r["S1"][j]),
            "S1_conf": float(r["S1_conf"][j]),
            "ST": float(r["ST"][j]),
            "ST_conf": float(r["ST_conf"][j]),
        }
        for j, n in enumerate(names)
    ]


# ----------------------------------------------------------------------------------------------
# outputs


def _num(v: Any) -> Any:
    return None if isinstance(v, float) and not math.isfinite(v) else v


def _fmt(v: float, digits: int = 4) -> str:
    return "" if not math.isfinite(v) else f"{v:.{digits}g}"


def table_csv(table: pd.DataFrame) -> str:
    """The indices as CSV, numbers to 6 significant digits (empty: undefined)."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(list(table.columns))
    for row in table.itertuples(index=False):
        w.writerow([_fmt(v, 6) if isinstance(v, float) else v for v in row])
    return buf.getvalue()


def table_markdown(plan: Plan, Y: pd.DataFrame, table: pd.DataFrame) -> str:
    """The report: the hit rate's indices sorted by importance, then the main index for every output."""
    spec = plan.spec
    n_pts = len(plan.X)
    lines = [f"# Sensitivity: {spec.name} ({spec.method})", ""]
    if spec.description:
        lines += [spec.description, ""]
    scene = ", ".join(f"{k} {v}" for k, v in spec.scene.model_dump(exclude_none=True).items())
    lines += [
        f"Scene: {scene or 'the built-in defaults'}. {len(spec.parameters)} parameters, {n_pts} design "
        "points "
        f"x {spec.throws} throws = {n_pts * spec.throws} throws (seed {spec.seed}; throw k of every point "
        "uses "
        f"draw k). Hit rate over the design: mean {Y['hit'].mean():.3f}, range {Y['hit'].min():.3f} to "
        f"{Y['hit'].max():.3f}; one point's binomial standard error is up to "
        f"{0.5 / math.sqrt(spec.throws):.3f}.",
        "",
    ]
    hit = table[table["output"] == "hit"]
    ranges = {p.name: f"{p.setting} in [{p.low:g}, {p.high:g}]" for p in spec.parameters}
    if spec.method == "morris":
        lines += [
            f"Morris: {spec.trajectories} trajectories, {spec.levels} levels. mu* = mean |elementary effect| "
            "(change of the output over the whole range, in rate units), sigma = their spread "
            f"(non-linearity, interactions); +- is the {100 * spec.confidence:g} % bootstrap half-width of "
            "mu*.",
            "",
            "| parameter | range | mu* (hit) | +- | mu | sigma |",
            "|---|---|---|---|---|---|",
        ]
        for r in hit.sort_values("mu_star", ascending=False).itertuples():
            lines.append(
                f"| {r.parameter} | {ranges[r.parameter]} | {_fmt(r.mu_star, 3)} | {_fmt(r.mu_star_conf, 2)} "
                "| "
                f"{_fmt(r.mu, 3)} | {_fmt(r.sigma, 3)} |"
            )
        key = "mu_star"
    else:
        lines += [
            f"Sobol': {spec.samples} base samples. S1 = first-order share of the output's variance, "
            f"ST = total share (with interactions); +- is the {100 * spec.confidence:g} % bootstrap "
            "half-width.",
            "",
            "| parameter | range | S1 (hit) | +- | ST (hit) | +- |",
            "|---|---|---|---|---|---|",
        ]
        for r in hit.sort_values("ST", ascending=False).itertuples():
            lines.append(
                f"| {r.parameter} | {ranges[r.parameter]} | {_fmt(r.S1, 3)} | {_fmt(r.S1_conf, 2)} | "
                f"{_fmt(r.ST, 3)} | {_fmt(r.ST_conf, 2)} |"
            )
        key = "ST"
    lines += [
        "",
        f"{key} for every output (value=V: the share of throws that hit a section of value V):",
        "",
        "| parameter | " + " | ".join(plan.outputs) + " |",
        "|---" * (len(plan.outputs) + 1) + "|",
    ]
    wide = table.pivot(index="parameter", columns="output", values=key)
    for name in plan.problem["names"]:
        lines.append(
            f"| {name} | " + " | ".join(_fmt(float(wide.loc[name, o]), 3) for o in plan.outputs) + " |"
        )
    lines.append("")
    return "\n".join(lines)


def figure(plan: Plan, table: pd.DataFrame):
    """Morris: mu* against sigma per output; Sobol': S1 and ST bars per output (matplotlib Figure API)."""
    from matplotlib.figure import Figure

    outs = plan.outputs
    ncol = min(3, len(outs))
    nrow = math.ceil(len(outs) / ncol)
    fig = Figure(figsize=(4.6 * ncol, 3.8 * nrow))
    names = plan.problem["names"]
    for i, output in enumerate(outs):
        ax = fig.add_subplot(nrow, ncol, i + 1)
        t = table[table["output"] == output].set_index("parameter").loc[names]
        if plan.spec.method == "morris":
            ax.errorbar(
                t["mu_star"],
                t["sigma"],
                xerr=t["mu_star_conf"],
                fmt="o",
                ms=4,
                color="#7570b3",
                ecolor="0.6",
                lw=0.8,
            )
            top = max(float(np.nanmax(t["mu_star"].to_numpy())), 1e-9)
            ax.plot([0, top], [0, top], color="0.8", lw=0.8, ls="--")  # sigma = mu*: strongly non-linear
            for name, r in t.iterrows():
                if r["mu_star"] >= 0.15 * top:
                    ax.annotate(
                        str(name),
                        (r["mu_star"], r["sigma"]),
                        fontsize=6,
                        xytext=(3, 2),
                        textcoords="offset points",
                    )
            ax.set_xlabel("mu* (mean |elementary effect|)", fontsize=8)
            ax.set_ylabel("sigma", fontsize=8)
        else:
            y = np.arange(len(names))
            ax.barh(y - 0.2, t["S1"].fillna(0), 0.4, xerr=t["S1_conf"].fillna(0), label="S1", color="#1b9e77")
            ax.barh(y + 0.2, t["ST"].fillna(0), 0.4, xerr=t["ST_conf"].fillna(0), label="ST", color="#d95f02")
            ax.set_yticks(y, names, fontsize=6)
            ax.invert_yaxis()
            if i == 0:
                ax.legend(fontsize=7)
        ax.set_title(output if output != "hit" else "hit rate", fontsize=9)
        ax.tick_params(labelsize=7)
    fig.suptitle(
        f"{plan.spec.name}: {plan.spec.method}, {len(plan.X)} points x {plan.spec.throws} throws", fontsize=10
    )
    fig.tight_layout()
    return fig


def write_outputs(
    out: Path, plan: Plan, Y: pd.DataFrame, table: pd.DataFrame, with_figure: bool = True
) -> list[Path]:
    """Write the report, the CSV table, the samples (design points and their outputs), the JSON and the
    figure; each goes to a temporary file first and is renamed into place."""
    out.mkdir(parents=True, exist_ok=True)
    samples = pd.DataFrame(plan.X, columns=plan.problem["names"])
    samples.insert(0, "point", np.arange(len(plan.X)))
    samples = pd.concat([samples, Y.reset_index(drop=True)], axis=1)
    doc = {
        "name": plan.spec.name,
        "method": plan.spec.method,
        "source": plan.source,
        "hash": plan.hash,
        "spec": plan.spec.model_dump(mode="json"),
        "problem": plan.problem,
        "outputs": plan.outputs,
        "points": len(plan.X),
        "parts": [f"{RUNS_DIR}/part-{i}" for i in range(len(plan.parts))],
        "indices": [{k: _num(v) for k, v in row.items()} for row in table.to_dict(orient="records")],
    }
    texts = {
        "sensitivity.json": json.dumps(doc, indent=1, allow_nan=False) + "\n",
        "sensitivity.csv": table_csv(table),
        "sensitivity.md": table_markdown(plan, Y, table),
        "samples.csv": samples.to_csv(index=False, float_format="%.10g"),
    }
    files = []
    for name, text in texts.items():
        files.append(write_atomic(out / name, text.encode()))
    if with_figure:
        buf = io.BytesIO()
        figure(plan, table).savefig(buf, format="png", dpi=110)
        files.append(write_atomic(out / "sensitivity.png", buf.getvalue()))
    return files
