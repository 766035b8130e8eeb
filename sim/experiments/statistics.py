"""Interval estimates for Monte Carlo throw records.

Why these methods: hit rates near 0 or 1 are common (experts, impossible shots), where the textbook
Wald interval collapses to zero width; the Wilson score interval stays honest there. Variants share
their random draws (common random numbers), so comparisons are *paired*: the interval on a paired
difference uses the correlation between the two variants and is much narrower than an unpaired one.

- rates: Wilson score interval (Wilson 1927).
- paired difference of rates: Newcombe's method 10 (Newcombe 1998, Stat. Med. 17:2635), the
  square-and-add combination of the two Wilson intervals corrected for the correlation phi.
- means: Student t interval, or a percentile bootstrap with a fixed seed. Mean damage per throw uses
  the bootstrap: damage is never negative and mostly 0 or a few section values, and there a t
  interval can reach below 0 (n = 30 throws with 3 hits of 1: t gives [-0.01, 0.21]); bootstrap
  percentiles stay within the values thrown. Resampling n throws with replacement is drawing
  multinomial counts over the distinct values, so it costs the number of distinct values, not n.
- paired difference of means: t interval on the per-throw differences.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd
import pyarrow as pa
from scipy.special import ndtri, stdtrit  # norm.ppf and t.ppf without scipy.stats' 1 s import

from sim.vectors import matmul

CONFIDENCE = 0.95


def _z(confidence: float) -> float:
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must lie in (0, 1), got {confidence}")
    return float(ndtri(0.5 + confidence / 2.0))


@dataclass(frozen=True)
class Rate:
    """A proportion with its interval; `rate`/`lo`/`hi` are NaN when n = 0."""

    count: int
    n: int
    rate: float
    lo: float
    hi: float
    method: str = "wilson"

    def as_dict(self) -> dict:
        """JSON-ready fields (NaN and infinities become None)."""
        return _clean(asdict(self))


@dataclass(frozen=True)
class Estimate:
    """A point estimate (mean or difference) with its interval."""

    value: float
    lo: float
    hi: float
    n: int
    method: str
    sd: float = math.nan

    def as_dict(self) -> dict:
        """JSON-ready fields (NaN and infinities become None)."""
        return _clean(asdict(self))


def _clean(d: dict) -> dict:
    """JSON has no NaN: map NaN to None so summary.json stays standard JSON."""
    return {k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in d.items()}


def wilson(count: int, n: int, confidence: float = CONFIDENCE) -> Rate:
    """Wilson score interval for count successes out of n."""
    count, n = int(count), int(n)
    if n < 0 or count < 0 or count > n:
        raise ValueError(f"need 0 <= count <= n, got count={count}, n={n}")
    if n == 0:
        return Rate(0, 0, math.nan, math.nan, math.nan)
    z = _z(confidence)
    p = count / n
    z2 = z * z
    denom = 1.0 + z2 / n
    centre = (p + z2 / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / denom
    lo = 0.0 if count == 0 else max(0.0, centre - half)
    hi = 1.0 if count == n else min(1.0, centre + half)
    return Rate(count, n, p, lo, hi)


def mean_interval(
    x: Iterable[float],
    confidence: float = CONFIDENCE,
    method: str = "t",
    n_boot: int = 2000,
    seed: int = 0,
) -> Estimate:
    """Mean with a Student-t interval, or a percentile bootstrap (`method="bootstrap"`)."""
    a = np.asarray(list(x) if not isinstance(x, np.ndarray) else x, dtype=float)
    n = a.size
    if n == 0:
        return Estimate(math.nan, math.nan, math.nan, 0, method)
    m = float(a.mean())
    sd = float(a.std(ddof=1)) if n > 1 else math.nan
    if n == 1:
        return Estimate(m, math.nan, math.nan, 1, method, sd)
    if method == "t":
        if sd == 0.0:
            return Estimate(m, m, m, n, "t", sd)
        half = float(stdtrit(n - 1, 0.5 + confidence / 2.0)) * sd / math.sqrt(n)
        return Estimate(m, m - half, m + half, n, "t", sd)
    if method == "bootstrap":
        values, counts = np.unique(a, return_counts=True)
        e = bootstrap_mean_from_counts(values, counts, confidence, n_boot, seed)
        return Estimate(m, e.lo, e.hi, n, "bootstrap", sd)
    raise ValueError(f"unknown interval method '{method}' (t or bootstrap)")


def bootstrap_mean_from_counts(
    values, counts, confidence: float = CONFIDENCE, n_boot: int = 4000, seed: int = 0
) -> Estimate:
    """Percentile-bootstrap interval of a mean, from each distinct value and how often it was seen.

    A bootstrap resample of the n observations is a multinomial draw of n over the distinct values
    with their observed shares, so this is the ordinary percentile bootstrap (fixed seed:
    reproducible), in memory and time proportional to the number of distinct values. The interval
    lies within [min, max] of the values: a mean of non-negative values never gets a negative bound."""
    v = np.asarray(values, dtype=float)
    c = np.asarray(counts, dtype=np.int64)
    n = int(c.sum())
    if n == 0:
        return Estimate(math.nan, math.nan, math.nan, 0, "bootstrap")
    m = float((v * c).sum() / n)
    sd = float(math.sqrt(((v - m) ** 2 * c).sum() / (n - 1))) if n > 1 else math.nan
    if n == 1:
        return Estimate(m, math.nan, math.nan, 1, "bootstrap", sd)
    if len(v) == 1:
        return Estimate(m, m, m, n, "bootstrap", sd)
    rng = np.random.default_rng(seed)
    means = matmul(rng.multinomial(n, c / n, size=n_boot), v) / n
    alpha = (1.0 - confidence) / 2.0
    lo, hi = np.quantile(means, [alpha, 1.0 - alpha])
    return Estimate(m, float(lo), float(hi), n, "bootstrap", sd)


def paired_rate_difference(a: Iterable[bool], b: Iterable[bool], confidence: float = CONFIDENCE) -> Estimate:
    """Difference p_a - p_b of two rates measured on the same throws (Newcombe method 10)."""
    x = np.asarray(a, dtype=bool)
    y = np.asarray(b, dtype=bool)
    if x.shape != y.shape:
        raise ValueError(f"paired samples differ in length: {x.size} vs {y.size}")
    both = int(np.sum(x & y))
    only_a = int(np.sum(x & ~y))
    only_b = int(np.sum(~x & y))
    neither = int(np.sum(~x & ~y))
    return newcombe_paired(both, only_a, only_b, neither, confidence)


def newcombe_paired(
    both: int, only_a: int, only_b: int, neither: int, confidence: float = CONFIDENCE
) -> Estimate:
    """Newcombe's square-and-add interval for a paired 2x2 table [[both, only_a], [only_b, neither]]."""
    n = both + only_a + only_b + neither
    if n == 0:
        return Estimate(math.nan, math.nan, math.nan, 0, "newcombe-paired")
    pa = (both + only_a) / n
    pb = (both + only_b) / n
    d = pa - pb
    ra = wilson(both + only_a, n, confidence)
    rb = wilson(both + only_b, n, confidence)
    # phi: correlation of the pair, with Newcombe's continuity adjustment of the numerator
    margins = (both + only_a) * (only_b + neither) * (both + only_b) * (only_a + neither)
    phi = 0.0
    if margins > 0:
        num = float(both * neither - only_a * only_b)
        if num > n / 2:
            num = num - n / 2
        elif num >= 0:
            num = 0.0
        phi = num / math.sqrt(margins)
    dl = math.sqrt(max(0.0, (pa - ra.lo) ** 2 - 2 * phi * (pa - ra.lo) * (rb.hi - pb) + (rb.hi - pb) ** 2))
    du = math.sqrt(max(0.0, (pb - rb.lo) ** 2 - 2 * phi * (pb - rb.lo) * (ra.hi - pa) + (ra.hi - pa) ** 2))
    return Estimate(d, max(-1.0, d - dl), min(1.0, d + du), n, "newcombe-paired")


def paired_mean_difference(
    a: Iterable[float], b: Iterable[float], confidence: float = CONFIDENCE
) -> Estimate:
    """Mean of a - b over the same throws, with a t interval on the per-throw differences."""
    x = np.asarray(a, dtype=float)
    y = np.asarray(b, dtype=float)
    if x.shape != y.shape:
        raise ValueError(f"paired samples differ in length: {x.size} vs {y.size}")
    e = mean_interval(x - y, confidence, "t")
    return Estimate(e.value, e.lo, e.hi, e.n, "paired-t", e.sd)


def category_rates(
    values: Iterable[object], confidence: float = CONFIDENCE, order: Iterable[str] = ()
) -> dict[str, Rate]:
    """Count and Wilson rate of every category (outcome reason, section id...) among n throws.

    Missing values (None/NaN) count as the category "none". Categories listed in `order` come
    first (even with zero count); the rest follow by descending count, then name.
    """
    labels = [_label(v) for v in values]
    counts: dict[str, int] = {}
    for lab in labels:
        counts[lab] = counts.get(lab, 0) + 1
    return rates_from_counts(counts, len(labels), confidence, order)


def rates_from_counts(
    counts: dict[str, int], n: int, confidence: float = CONFIDENCE, order: Iterable[str] = ()
) -> dict[str, Rate]:
    """category_rates for counts gathered elsewhere (e.g. streamed batch by batch)."""
    keys = list(dict.fromkeys(order))
    keys += sorted((k for k in counts if k not in keys), key=lambda k: (-counts[k], k))
    return {k: wilson(counts.get(k, 0), n, confidence) for k in keys}


def mean_interval_from_moments(n: int, mean: float, m2: float, confidence: float = CONFIDENCE) -> Estimate:
    """Student t interval from a count, a mean and the sum of squared deviations (streamed data)."""
    if n == 0:
        return Estimate(math.nan, math.nan, math.nan, 0, "t")
    if n == 1:
        return Estimate(mean, math.nan, math.nan, 1, "t")
    sd = math.sqrt(max(m2, 0.0) / (n - 1))
    if sd == 0.0:
        return Estimate(mean, mean, mean, n, "t", sd)
    half = float(stdtrit(n - 1, 0.5 + confidence / 2.0)) * sd / math.sqrt(n)
    return Estimate(mean, mean - half, mean + half, n, "t", sd)


def _label(v: object) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "none"
    return str(v)


def interval_width(rate: Rate) -> float:
    """Width hi - lo of a rate's interval (inf when undefined, so a stopping rule keeps going)."""
    if rate.n == 0 or math.isnan(rate.lo) or math.isnan(rate.hi):
        return math.inf
    return rate.hi - rate.lo


RATE_COLUMNS = ["result", "reason", "section", "face", "insta_kill", "cocked"]


def rate_mask(table: pa.Table | pd.DataFrame, rate: str) -> np.ndarray:
    """Which throws count toward a named rate (see sim.experiment.StopRule)."""
    df = (
        table
        if isinstance(table, pd.DataFrame)
        else table.select([c for c in RATE_COLUMNS if c in table.column_names]).to_pandas()
    )
    if rate in ("hit", "miss"):
        return (df["result"] == rate).to_numpy(bool)
    if rate in ("insta_kill", "cocked"):
        return df[rate].fillna(False).to_numpy(bool)
    kind, _, value = rate.partition(":")
    return (df[kind].astype(str) == value).to_numpy(bool)
