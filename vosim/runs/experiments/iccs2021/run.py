"""ICCS 2021's procedures: each experiment's runs, the table of each figure or table.

:func:`run_fig5` (Fig. 5), :func:`run_fig3` (Fig. 3), :func:`run_table1` (Table 1) and
:func:`run_fig2` (Fig. 2) compute their tables from the scenarios of
:func:`~vosim.runs.experiments.iccs2021.setup.environment` (or from a trace's fit, Fig. 2) and
draw them with :mod:`~vosim.runs.experiments.iccs2021.charts`.
"""

from __future__ import annotations

from collections.abc import Callable

import altair as alt
import numpy as np
import pandas as pd

# importing these modules registers their methods: greedy_united; knapsack_p
from vosim.allocators import greedy, knapsack  # noqa: F401
from vosim.allocators.timescan import time_scan
from vosim.data import trace_path
from vosim.market.fitted import fitted_workload, usable_columns
from vosim.market.swf import read_swf
from vosim.runs.experiments.base import ExperimentConfig
from vosim.runs.experiments.iccs2021.charts import (
    _fig2_chart,
    _fig3_chart,
    _fig5_chart,
    _table1_chart,
)
from vosim.runs.experiments.iccs2021.setup import (
    _LABELS,
    _TABLE1_ROWS,
    BUDGET,
    FIG2_COLUMNS,
    FIG2_PAPER_KS,
    FIG2_TRACE,
    FIG3_COLUMNS,
    FIG3_INTERVAL,
    FIG3_PAPER_PEAK,
    FIG5_COLUMNS,
    FOUND_MIN,
    NODE_COUNT,
    TABLE1_COLUMNS,
    TABLE1_JOB_LOAD,
    TABLE1_STEP,
    environment,
)

#: Keys of the scenario streams (one per experiment; see ExperimentConfig.rngs).
_KEY_FIG5, _KEY_TABLE1, _KEY_FIG3 = 20215, 20211, 20213

Progress = Callable[[int], None]


def _std(x: np.ndarray) -> float:
    return float(x.std(ddof=1)) if x.size > 1 else np.nan


# ---------------------------------------------------------------------------------------------
# Fig. 5


def _fig5_grid(quick: bool) -> list[float]:
    return [0.0, 0.3, 0.6, 1.0] if quick else [k / 10 for k in range(11)]


def run_fig5(
    config: ExperimentConfig, progress: Progress
) -> tuple[pd.DataFrame, alt.TopLevelMixin]:
    """ICCS 2021 Fig. 5: best ``P_a^w`` of Knapsack and GreedyJnt against the job-load.

    Parameters
    ----------
    config : ExperimentConfig
        Repetitions (scenarios per job-load), seed; ``quick`` takes job-load in
        ``{0, 0.3, 0.6, 1}`` instead of ``0, 0.1, ..., 1``.
    progress : callable
        Called with 1 after each job-load.

    Returns
    -------
    table : pandas.DataFrame
        One row per job-load and method, columns :data:`FIG5_COLUMNS`. ``advantage`` is the
        method's mean ``P_a^w`` over GreedyJnt's minus 1 (NaN when GreedyJnt's mean is 0);
        ``found_share`` the share of scenarios whose best ``P_a^w`` is at least
        :data:`FOUND_MIN` and ``mean_probability_found`` the mean over them; ``mean_seconds``
        the time of the fast exact scan that computed the full-scan answer.
    chart : altair.Chart
        Mean ``P_a^w`` against job-load, a line per method.
    """
    rows: list[dict] = []
    for job_load in _fig5_grid(config.quick):
        raw: dict[str, dict[str, list]] = {m: {"p": [], "s": []} for m in _LABELS}
        for rng in config.rngs(_KEY_FIG5, round(job_load * 10)):
            p_avail, cost = environment(rng, job_load)
            for m in _LABELS:
                res = time_scan(p_avail, cost, NODE_COUNT, BUDGET, method=m, fast=True)
                raw[m]["p"].append(res.probability)
                raw[m]["s"].append(res.stats["seconds"])
        greedy_mean = float(np.mean(raw["greedy_united"]["p"]))
        for m, r in raw.items():
            p = np.asarray(r["p"], dtype=float)
            found = p >= FOUND_MIN
            rows.append(
                {
                    "job_load": job_load,
                    "method": m,
                    "label": _LABELS[m],
                    "mean_probability": float(p.mean()),
                    "std_probability": _std(p),
                    "found_share": float(found.mean()),
                    "mean_probability_found": float(p[found].mean()) if found.any() else np.nan,
                    "advantage": float(p.mean()) / greedy_mean - 1 if greedy_mean > 0 else np.nan,
                    "mean_seconds": float(np.mean(r["s"])),
                    "repetitions": int(p.size),
                }
            )
        progress(1)
    table = pd.DataFrame(rows, columns=FIG5_COLUMNS)
    return table, _fig5_chart(table)


# ---------------------------------------------------------------------------------------------
# Fig. 3


def run_fig3(
    config: ExperimentConfig, progress: Progress
) -> tuple[pd.DataFrame, alt.TopLevelMixin]:
    """ICCS 2021 Fig. 3: the curve ``max P_a^w(t)`` of one environment on ``[0, 1200]``.

    The environment of Table 1 (job-load 0.5, global load 0.05, 64 nodes, ``n = 6``,
    ``T = 200``, ``C = 30``) on the paper's Fig. 3 interval, scanned in full with Knapsack
    (``knapsack_p`` at every ``t_k``). The paper's curve comes from its own (unpublished)
    environment; its maximum, 0.93 at ``t = 834``, is drawn beside the curves for reference:
    what can be compared is the shape (an interior maximum, broad peaks between local jobs),
    not the values.

    Parameters
    ----------
    config : ExperimentConfig
        Repetitions: environments drawn (one curve each), seed.
    progress : callable
        Called with 1 at the end (the figure is one point).

    Returns
    -------
    table : pandas.DataFrame
        Columns :data:`FIG3_COLUMNS`, one row per environment and ``t = 0..1200``: its
        ``P_a^w(t)``, ``best`` (the row of the curve's maximum, the earliest), and the paper's
        maximum (:data:`FIG3_PAPER_PEAK`) repeated.
    chart : altair.LayerChart
        The curves, their maxima and the paper's maximum (a labelled cross).
    """
    frames = []
    for k, rng in enumerate(config.rngs(_KEY_FIG3)):
        p_avail, cost = environment(rng, TABLE1_JOB_LOAD, interval=FIG3_INTERVAL)
        res = time_scan(p_avail, cost, NODE_COUNT, BUDGET, method="knapsack_p")
        t = np.arange(FIG3_INTERVAL + 1, dtype=float)
        frames.append(
            pd.DataFrame(
                {
                    "scenario": k,
                    "t": t,
                    "probability": res.curve,
                    "best": t == res.time_index,
                    "paper_t": FIG3_PAPER_PEAK[0],
                    "paper_probability": FIG3_PAPER_PEAK[1],
                }
            )
        )
    progress(1)
    table = pd.concat(frames, ignore_index=True)[FIG3_COLUMNS]
    return table, _fig3_chart(table)


# ---------------------------------------------------------------------------------------------
# Table 1


def run_table1(
    config: ExperimentConfig, progress: Progress
) -> tuple[pd.DataFrame, alt.TopLevelMixin]:
    """ICCS 2021 Table 1: accuracy and speedup of time scan variants against the full scan.

    Parameters
    ----------
    config : ExperimentConfig
        Repetitions (scenarios, job-load 0.5), seed; ``quick`` changes only the default
        repetitions (the rows are cheap next to the full scan they are compared with).
    progress : callable
        Called with 1 after each row (variant).

    Returns
    -------
    table : pandas.DataFrame
        One row per variant, columns :data:`TABLE1_COLUMNS` (``starts`` and ``step`` of the
        starting-point searches, uniform points and ``δ =`` :data:`TABLE1_STEP`; missing for
        the other scans): ``accuracy`` is the mean over scenarios with a positive full-scan
        optimum (``compared`` of them) of ``P_a^w`` found / optimum; ``speedup`` the full
        scan's mean seconds over the variant's; ``mean_evaluations`` the mean number of time
        indices solved (for the fast scan: distinct columns whose optimum became known, by a
        certificate or a solve); ``paper_accuracy`` and
        ``paper_speedup`` the values of the paper's Table 1 (and of §4.3's text for GreedyJnt
        from 50 starting points).
    chart : altair.HConcatChart
        Accuracy and speedup (log scale) of each variant, vosim's next to the paper's.

    Notes
    -----
    Each variant runs over all scenarios before the next one starts; times are the
    ``stats["seconds"]`` of :func:`~vosim.allocators.timescan.time_scan` (validation included).
    Knapsack's full scan calls the registered method once per time index, as the paper does;
    GreedyJnt's full scan applies its rule to all time indices in one vectorised pass (the
    same selections; :func:`~vosim.allocators.greedy.united_scan`), since one Python call per
    time index cost more than the rule itself.
    """
    scenarios = [environment(rng, TABLE1_JOB_LOAD) for rng in config.rngs(_KEY_TABLE1)]
    results: list[tuple[tuple, np.ndarray, np.ndarray, np.ndarray]] = []
    for spec in _TABLE1_ROWS:
        method, scan, starts = spec[0], spec[1], spec[2]
        p, s, ev = [], [], []
        for p_avail, cost in scenarios:
            res = time_scan(
                p_avail,
                cost,
                NODE_COUNT,
                BUDGET,
                method=method,
                starts=starts,
                step=TABLE1_STEP,
                fast=scan == "fast exact",
            )
            p.append(res.probability)
            s.append(res.stats["seconds"])
            ev.append(res.stats["evaluations"])
        results.append((spec, np.asarray(p), np.asarray(s), np.asarray(ev, dtype=float)))
        progress(1)
    optimum, full_seconds = results[0][1], results[0][2].mean()
    positive = optimum > 0
    rows = []
    for (method, scan, starts, label, paper_acc, paper_speed), p, s, ev in results:
        ratio = p[positive] / optimum[positive]
        rows.append(
            {
                "job_load": TABLE1_JOB_LOAD,
                "method": method,
                "scan": scan,
                "starts": starts,
                "step": TABLE1_STEP if starts is not None else None,
                "label": label,
                "mean_probability": float(p.mean()),
                "std_probability": _std(p),
                "accuracy": float(ratio.mean()) if ratio.size else np.nan,
                "mean_seconds": float(s.mean()),
                "speedup": float(full_seconds / s.mean()),
                "mean_evaluations": float(ev.mean()),
                "repetitions": int(p.size),
                "compared": int(positive.sum()),
                "paper_accuracy": paper_acc,
                "paper_speedup": paper_speed,
            }
        )
    table = pd.DataFrame(rows, columns=TABLE1_COLUMNS)
    table["starts"] = table["starts"].astype("Int64")
    table["step"] = table["step"].astype("Int64")
    return table, _table1_chart(table)


# ---------------------------------------------------------------------------------------------
# Fig. 2: the job-size fit


def run_fig2(
    config: ExperimentConfig, progress: Callable[[int], None]
) -> tuple[pd.DataFrame, alt.LayerChart]:
    """ICCS 2021 Fig. 2: the job sizes of a trace against a flow generated from its fit.

    The flow is :func:`vosim.market.fitted.fitted_workload` (sizes: the trace's popular sizes
    as point masses and a lognormal for the rest); each repetition
    draws a flow as long as the trace and measures the two-sample K-S statistic of each
    marginal.

    Parameters
    ----------
    config : ExperimentConfig
        Flows drawn (``repetitions``) and ``seed``.
    progress : callable
        Called with 1 after each flow.

    Returns
    -------
    table : pandas.DataFrame
        One row per flow and marginal (processors, run time, inter-arrival, estimate ratio),
        columns :data:`FIG2_COLUMNS`; ``paper_ks`` is 0.14 on the processors' rows.
    chart : altair.LayerChart
        The empirical CDFs of the processors of the trace and of the first flow (log axis),
        with vosim's mean K-S beside the paper's.

    References
    ----------
    ICCS 2021 §3.1 and Fig. 2 (lognormal sizes and lengths fitted to the ForHLR II log,
    K-S 0.14).
    """
    frame = read_swf(trace_path(FIG2_TRACE))
    fit = fitted_workload(FIG2_TRACE)
    rows, first = [], None
    for rep, rng in enumerate(config.rngs(21)):
        for marginal, value in fit.ks(frame, rng).items():
            paper = FIG2_PAPER_KS if marginal == "processors" else np.nan
            rows.append({"repetition": rep, "marginal": marginal, "ks": value, "paper_ks": paper})
        if first is None:
            first = usable_columns(
                fit.generate(len(frame), np.random.default_rng([config.seed, 21]))
            )[0]
        progress(1)
    table = pd.DataFrame(rows, columns=FIG2_COLUMNS)
    sizes = {"trace": usable_columns(frame)[0], "generated": first}
    return table, _fig2_chart(table, sizes)
