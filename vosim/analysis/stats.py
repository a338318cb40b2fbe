"""Statistics of a sweep: confidence intervals, paired tests against baselines, Holm's correction.

A sweep runs every policy on the same random instances (common random numbers: repetition
``r`` of every combination has the same seed, :mod:`vosim.runs.config`), so a policy and a
baseline are compared run by run: the difference of a metric on each pair of runs that share
the environment (the sweep's ``factors``, e.g. the offered load) and the repetition.
:func:`mean_ci` gives a mean with its t interval, :func:`paired_tests` the table of
differences with their intervals, paired t-tests, Holm-adjusted p-values (:func:`holm`) and
effect sizes (Cohen's ``d_z``). ``vosim report`` writes that table (CSV and HTML) and states
each claim from it.

Examples
--------
>>> lo_mean_hi = mean_ci([1.0, 2.0, 3.0])
>>> [round(x, 3) for x in lo_mean_hi]
[2.0, -0.484, 4.484]
>>> holm([0.01, 0.04, 0.03]).tolist()
[0.03, 0.06, 0.06]
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd
from scipy import stats

from vosim.runs.config import value_label

__all__ = ["LEVEL", "mean_ci", "holm", "paired_tests", "TEST_COLUMNS"]

#: Confidence level of every interval (and 1 - the tests' significance level).
LEVEL = 0.95
#: Columns of :func:`paired_tests`.
TEST_COLUMNS = (
    "metric",
    "policy",
    "baseline",
    "factors",
    "n",
    "policy_mean",
    "baseline_mean",
    "difference",
    "difference_lo",
    "difference_hi",
    "p_value",
    "p_holm",
    "effect_size",
    "significant",
)


def mean_ci(values: Sequence[float], level: float = LEVEL) -> tuple[float, float, float]:
    """Mean of ``values`` with its two-sided Student t confidence interval.

    Parameters
    ----------
    values : array_like, shape (k,)
        Independent observations (NaN ones are left out).
    level : float
        Confidence level in (0, 1).

    Returns
    -------
    (mean, lo, hi) : tuple of float
        ``mean +- t_{(1+level)/2, k-1} s / sqrt(k)``; NaN bounds for fewer than 2 values
        (NaN mean for none); equal bounds when every value is equal.

    Raises
    ------
    ValueError
        ``level`` outside (0, 1).

    References
    ----------
    Montgomery & Runger, *Applied Statistics and Probability for Engineers* (7th ed.), §8.2
    (the t interval of a mean); ``scipy.stats.t``.
    """
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1), got {level!r}")
    x = np.asarray(values, dtype=float)
    x = x[~np.isnan(x)]
    if x.size == 0:
        return math.nan, math.nan, math.nan
    mean = float(x.mean())
    if x.size < 2:
        return mean, math.nan, math.nan
    with np.errstate(invalid="ignore"):  # an infinite value: an undefined interval, NaN
        sd = float(x.std(ddof=1))
    half = float(stats.t.ppf((1 + level) / 2, x.size - 1) * sd / math.sqrt(x.size))
    return mean, mean - half, mean + half


def holm(p_values: Sequence[float]) -> np.ndarray:
    """Holm's step-down adjusted p-values: reject where ``adjusted <= alpha``.

    For ``m`` p-values sorted ascending, ``adjusted_(i) = max_{j <= i} min(1, (m - j + 1)
    p_(j))``; this controls the family-wise error rate at ``alpha`` under any dependence.
    NaN p-values (no test) stay NaN and do not count in ``m``.

    Parameters
    ----------
    p_values : array_like, shape (m,)
        p-values of one family of tests, in [0, 1] or NaN.

    Returns
    -------
    numpy.ndarray
        Shape (m,), the adjusted p-values in the input order.

    Raises
    ------
    ValueError
        A p-value outside [0, 1].

    References
    ----------
    Holm, "A simple sequentially rejective multiple test procedure", *Scandinavian Journal
    of Statistics* 6(2), 1979, 65-70.
    """
    p = np.asarray(p_values, dtype=float)
    if ((p < 0) | (p > 1)).any():
        raise ValueError(f"p-values must be in [0, 1], got {p[(p < 0) | (p > 1)].tolist()}")
    out = np.full(p.shape, np.nan)
    tested = np.flatnonzero(~np.isnan(p))
    order = tested[np.argsort(p[tested], kind="stable")]
    m = order.size
    scaled = np.minimum(1.0, (m - np.arange(m)) * p[order])
    out[order] = np.maximum.accumulate(scaled)
    return out


def paired_tests(
    runs: pd.DataFrame,
    metrics: Sequence[str],
    *,
    factors: Sequence[str] = (),
    level: float = LEVEL,
) -> pd.DataFrame:
    """Each policy against each baseline, metric by metric, on paired runs.

    A pair is a policy's run and a baseline's run with equal ``factors`` values and equal
    ``repetition`` (the same seed under common random numbers). Per (metric, policy,
    baseline, factor values): ``n`` pairs with both values finite, the means of each side,
    the mean difference ``policy - baseline`` with its t interval (:func:`mean_ci` of the
    differences), the two-sided paired t-test's p-value (``scipy.stats.ttest_rel``),
    ``p_holm`` (:func:`holm` over all tests of the same metric: one family per question) and
    the effect size ``d_z`` = mean difference / sd of the differences (Cohen's paired
    standardised difference; ``inf`` when every pair differs by the same amount, NaN for no
    difference). ``significant`` is ``p_holm < 1 - level``. Fewer than 2 pairs: no test (NaN).

    Parameters
    ----------
    runs : pandas.DataFrame
        One row per run: columns ``label`` (the policy's name), ``baseline`` (the baseline's
        name on baseline runs, else null), ``repetition``, the ``factors`` and the
        ``metrics`` (numbers; non-numeric values count as missing).
    metrics : sequence of str
        The metric columns to compare.
    factors : sequence of str
        Columns that set the environment; pairs agree on them.
    level : float
        Confidence level of the intervals, in (0, 1).

    Returns
    -------
    pandas.DataFrame
        Columns :data:`TEST_COLUMNS` (``factors`` as text ``"offered_load=0.6"``), one row
        per (metric, policy, baseline, factor values), in that order.

    Raises
    ------
    KeyError
        A column named above is missing.

    References
    ----------
    Law, *Simulation Modeling and Analysis* (5th ed., 2015), §11.2 (common random numbers)
    and §10.2.2 (paired-t confidence interval); Cohen, *Statistical Power Analysis for the
    Behavioral Sciences* (2nd ed., 1988), §2.3 (``d_z``); Holm (1979).
    """
    factors = list(factors)
    keys = [*factors, "repetition"]
    is_base = runs["baseline"].notna()
    bases = runs[is_base]
    policies = runs[~is_base]
    rows = []
    for metric in metrics:
        values = pd.to_numeric(runs[metric], errors="coerce")
        for label in dict.fromkeys(policies["label"]):
            mine = policies[policies["label"] == label]
            for base in dict.fromkeys(bases["baseline"]):
                theirs = bases[bases["baseline"] == base]
                left = mine[keys].assign(x=values[mine.index])
                right = theirs[keys].assign(y=values[theirs.index])
                pairs = left.merge(right, on=keys).dropna(subset=["x", "y"])
                groups = (  # a factor's "none" level (NaN in the table) is a level too
                    pairs.groupby(factors, sort=False, dropna=False) if factors else [((), pairs)]
                )
                for level_values, group in groups:
                    rows.append(_compare(metric, label, base, factors, level_values, group, level))
    table = pd.DataFrame(rows, columns=list(TEST_COLUMNS))
    for metric in metrics:
        at = table["metric"] == metric
        table.loc[at, "p_holm"] = holm(table.loc[at, "p_value"].to_numpy(dtype=float))
    table["significant"] = table["p_holm"] < 1 - level
    return table


def _compare(metric, label, base, factors, level_values, group, level) -> dict:
    """One row of :func:`paired_tests`."""
    if not isinstance(level_values, tuple):
        level_values = (level_values,)
    where = ", ".join(f"{f}={value_label(v)}" for f, v in zip(factors, level_values, strict=True))
    x, y = group["x"].to_numpy(float), group["y"].to_numpy(float)
    d = x - y
    diff, lo, hi = mean_ci(d, level)
    p = math.nan
    effect = math.nan
    if d.size >= 2:
        sd = float(d.std(ddof=1))
        if sd > 0:
            p = float(stats.ttest_rel(x, y).pvalue)
            effect = diff / sd
        elif diff != 0:  # every pair differs by the same amount: as certain as it gets
            p, effect = 0.0, math.copysign(math.inf, diff)
        else:
            p, effect = 1.0, 0.0
    return {
        "metric": metric,
        "policy": label,
        "baseline": base,
        "factors": where,
        "n": int(d.size),
        "policy_mean": float(x.mean()) if x.size else math.nan,
        "baseline_mean": float(y.mean()) if y.size else math.nan,
        "difference": diff,
        "difference_lo": lo,
        "difference_hi": hi,
        "p_value": p,
        "p_holm": math.nan,
        "effect_size": effect,
        "significant": False,
    }
