"""Template hit odds from the flip bank against flipping afresh, paired on the same throws.

Usage: python tools/flip_bank_equivalence.py [-n 400] [--seed 4004] [--bank N] [--out FILE.md] [--json]

For each template (flipped before every throw onto the magma board; hero d8, standard shot, casual
thrower and flipper, as experiments/template-odds.toml has them), throw k of the seed is thrown twice:
with the template flipped afresh for it (`flip_bank = 0`) and with the template at the resting pose of
the bank entry it picks (the default bank). The dice releases are the same (the templates' streams are
their own), so the two columns are paired. Per template the table gives, for each statistic (the die
fully or partly on a template; fully on it; a hit; the template's flips until it stays), the afresh and
bank values, their paired difference and its tolerance: 3.29 standard errors (two-sided 0.1 %), the
standard error being the paired difference's over n throws plus the bank's own sampling error (the
bank column's spread over its N flips, which a resample of N flips cannot average away). A row
passes when the difference lies within its tolerance. Writes the table as Markdown (`--out`, default
stdout); exit status 1 when a row fails.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

import numpy as np

from sim.engine.worlds import build_thrower
from sim.specs.scenario import Scenario

BASE = {"board": "magma", "dice": ["hero-d8"], "shots": ["standard"], "skill": "casual"}
TEMPLATES = ("weak-point", "fireball", "armor", "explosion")
Z = 3.29  # two-sided 0.1 %


def per_throw(th, seed: int, n: int) -> dict[str, np.ndarray]:
    """Each statistic per throw (one row of 0/1 or counts per throw)."""
    cols: dict[str, list[float]] = {"on template": [], "fully on": [], "hit": [], "flips until it stays": []}
    for k in range(n):
        r = th.throw(seed, k)
        o, rec = r.outcome, r.record()
        cols["on template"].append(float(o.template is not None))
        cols["fully on"].append(float(bool(rec["tpl_full"])))
        cols["hit"].append(float(o.result == "hit"))
        cols["flips until it stays"].append(rec["tpl_flips"] / max(1, rec["tpl_pieces"]))
    return {k: np.array(v) for k, v in cols.items()}


def compare(a: np.ndarray, b: np.ndarray, size: int) -> dict[str, float | bool]:
    """Afresh (a) and bank (b) means, their paired difference and its tolerance."""
    d = b - a
    se = math.sqrt(d.var(ddof=1) / len(d) + b.var(ddof=1) / size)
    return {
        "afresh": float(a.mean()),
        "bank": float(b.mean()),
        "diff": float(d.mean()),
        "tolerance": Z * se,
        "ok": bool(abs(d.mean()) <= Z * se),
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", type=int, default=400, help="throws per template")
    ap.add_argument("--seed", type=int, default=4004)
    ap.add_argument("--bank", type=int, default=None, help="flip bank size (default: the setting's default)")
    ap.add_argument("--templates", nargs="*", default=list(TEMPLATES))
    ap.add_argument("--out", type=Path, default=None, help="write the Markdown table here")
    ap.add_argument("--json", action="store_true", help="print the rows as JSON too")
    a = ap.parse_args()
    rows = []
    t0 = time.monotonic()
    for name in a.templates:
        tpl = [{"name": name, "flip": True}]
        afresh = build_thrower(Scenario.build(**BASE, templates=tpl, flip_bank=0))
        kw = {} if a.bank is None else {"flip_bank": a.bank}
        banked = build_thrower(Scenario.build(**BASE, templates=tpl, **kw))
        size = banked.scenario.flip_bank
        x, y = per_throw(afresh, a.seed, a.n), per_throw(banked, a.seed, a.n)
        afresh.physics.close()
        banked.physics.close()
        for stat in x:
            rows.append({"template": name, "statistic": stat, "bank_size": size, **compare(x[stat], y[stat], size)})
        print(f"{name}: done ({time.monotonic() - t0:.0f} s)", file=sys.stderr)
    size_note = ", ".join(sorted({str(r["bank_size"]) for r in rows}))
    lines = [
        f"Paired on {a.n} throws per template (seed {a.seed}; bank of {size_note} flips; "
        f"`python tools/flip_bank_equivalence.py -n {a.n}`):",
        "",
        "| template | statistic | afresh | bank | bank - afresh | tolerance | within |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['template']} | {r['statistic']} | {r['afresh']:.3f} | {r['bank']:.3f} | {r['diff']:+.3f} "
            f"| {r['tolerance']:.3f} | {'yes' if r['ok'] else 'NO'} |"
        )
    table = "\n".join(lines) + "\n"
    if a.out is not None:
        a.out.write_text(table)
    else:
        print(table)
    if a.json:
        print(json.dumps(rows))
    return 0 if all(r["ok"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
