"""`dfsim calibrate` (a material pair from home measurements) and `dfsim fit-skill` (a skill from a
tally of real throws); docs/calibration.md.

Both fit first and write last: a bad file, or data that cannot identify a value, is one line on
stderr with exit status 2 and nothing written."""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from sim.errors import SpecError
from sim.files import check_output, write_atomic

if TYPE_CHECKING:
    from sim.specs.measurements import MeasurementsSpec

_PLAIN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")


def _default_out(name: str, source: str, flag: str = "--out") -> Path:
    if not _PLAIN.match(name):
        raise SpecError(
            source, "name", f"'{name[:40]}' is not a plain file name: give the output file with {flag}"
        )
    return Path(f"{name}.toml")


def with_fit(spec: MeasurementsSpec, names: list[str]) -> MeasurementsSpec:
    """The measurements with the command line's `--fit` in place of the file's: the same rows, only
    these values fitted (validated as the file's `fit` is)."""
    from pydantic import ValidationError

    from sim.specs.measurements import PARAMETERS as known
    from sim.specs.measurements import MeasurementsSpec

    for name in names:
        if name not in known:
            raise SpecError("command line", "--fit", f"'{name}' is not a value to fit ({', '.join(known)})")
    try:
        return MeasurementsSpec.model_validate({**spec.model_dump(), "fit": names})
    except ValidationError as exc:
        raise SpecError("command line", "--fit", " ".join(str(exc.errors()[0]["msg"]).split())) from None


def cmd_calibrate(args: argparse.Namespace) -> int:
    """Fit the pair, print the report (or JSON), write the material file."""
    from sim.specs.measurements import load_measurements
    from sim.studies.calibration import calibrate, material_toml

    spec = load_measurements(args.measurements)
    if args.fit is not None:
        spec = with_fit(spec, args.fit)
    out = check_output(
        Path(args.out) if args.out else _default_out(spec.name, spec.source), "--out", make_folder=True
    )
    result = calibrate(spec, progress=not args.json)
    write_atomic(out, material_toml(result.table))
    if args.json:
        print(json.dumps(result.to_json() | {"material_file": str(out)}, indent=2))
    else:
        print(result.report())
        print(
            f'wrote {out}  (use it in an experiment file as materials = "{out}", or '
            "Scenario.build(materials=...))"
        )
    return 0


def cmd_fit_skill(args: argparse.Namespace) -> int:
    """Fit the skill, print the report (or JSON), write the skill file."""
    from sim.specs.tally import load_tally
    from sim.studies.skill_fit import fit_skill, skill_toml

    tally = load_tally(args.tally)
    out = check_output(
        Path(args.out) if args.out else _default_out(tally.name, tally.source), "--out", make_folder=True
    )
    if not args.out:  # said before the work, so nothing lands in the current folder unannounced
        sys.stderr.write(
            f"dfsim: the fitted skill will be written to {out} in the current folder "
            f"({out.resolve().parent}; --out chooses another file)\n"
        )
    sizes = {k: v for k, v in (("grid", args.grid), ("fine", args.fine)) if v is not None}
    result = fit_skill(tally, throws=args.throws, seed=args.seed, progress=not args.json, **sizes)
    write_atomic(out, skill_toml(result.skill))
    if args.json:
        print(json.dumps(result.to_json() | {"skill_file": str(out)}, indent=2))
    else:
        print(result.report())
        print(f"wrote {out}  (use it as --skill {out})")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add `dfsim calibrate` and `dfsim fit-skill`."""
    from sim.cli.common import SEED, integer, names

    p = sub.add_parser(
        "calibrate",
        help="fit a die-surface pair (restitution, friction, contact damping, rolling resistance) to home "
        "measurements; writes a material file",
    )
    p.add_argument(
        "measurements", help="a measurements file (docs/calibration.md): drops, tilts, ramps, rolls"
    )
    p.add_argument(
        "--out", help="the material file to write (default NAME.toml, NAME from the measurements file)"
    )
    p.add_argument(
        "--fit",
        type=names,
        help="fit only these values, comma-separated (restitution, friction, contact_damping, "
        "rolling_resistance; default: the file's `fit`); the others keep the base table's",
    )
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(func=cmd_calibrate)

    p = sub.add_parser(
        "fit-skill",
        help="fit a thrower's skill (spread scale, aim bias) to a tally of real throws; writes a skill file",
    )
    p.add_argument("tally", help="a tally file (docs/calibration.md): throws, hits, misses by reason, ...")
    p.add_argument(
        "--throws",
        type=integer(20, 100_000),
        default=None,
        help="simulated throws per candidate (default: the tally's own `simulated_throws`)",
    )
    p.add_argument(
        "--seed", type=SEED, default=None, help="root seed of the simulated throws (default: the tally's)"
    )
    p.add_argument(
        "--grid",
        type=integer(3, 50),
        help="spread scales on the coarse geometric grid (default 6: sim/studies/skill_fit.py, SCALE_GRID); "
        "each is a thrower of its own, re-aimed, so fewer is a quicker, coarser fit",
    )
    p.add_argument(
        "--fine",
        type=integer(1, 50),
        help="scales between the best coarse scale's neighbours (default 5: FINE_GRID)",
    )
    p.add_argument("--out", help="the skill file to write (default NAME.toml, NAME from the tally file)")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(func=cmd_fit_skill)
