"""The simulation study of ICCS 2021 (utilization uncertainty): Figs. 3, 5 and Table 1.

Toporkov, Yemelyanov, Grigorenko, *Optimization of Resources Allocation in High Performance
Computing under Utilization Uncertainty*, ICCS 2021 (``utilization-uncertainty-iccs2021.md``),
§4:

``iccs2021-fig3``
    Fig. 3 (§3.2): the curve ``max P_a^w(t)`` of one environment (Table 1's) on the figure's
    interval ``[0, 1200]``, beside the paper's maximum, 0.93 at ``t = 834``: the shape (an
    interior maximum) can be compared, not the values of another random environment.
``iccs2021-fig2``
    Fig. 2 (§3.1): the job sizes of UniLu-Gaia (the paper's ForHLR II log is not available)
    against a flow generated from vosim's fit of it, with the K-S statistic of each marginal
    beside the paper's 0.14 for sizes.
``iccs2021-fig5``
    Fig. 5 (§4.2): 64 heterogeneous nodes, a job of ``n = 6`` nodes and volume 200 on the
    interval ``[0, 800]``, global load 0.05, job-load ``0, 0.1, ..., 1``: the best ``P_a^w``
    over the interval found by the full time scan with Knapsack (``knapsack_p``) and with
    GreedyJnt (``greedy_united``), and Knapsack's relative advantage (paper: 0.96 against 0.87,
    about 9 %, at job-load 0, falling to almost 0 as the load grows).
``iccs2021-table1``
    Table 1 (§4.3): job-load 0.5, global load 0.05, same job: the Knapsack full scan against
    the §3.5 starting-point search from 1, 5, 10, 20, 50 and 100 starting points, the GreedyJnt
    full scan (and GreedyJnt from 50 starting points, quoted in §4.3's text), and vosim's fast
    exact scan. Accuracy is the mean ratio of the ``P_a^w`` found to the full-scan optimum,
    speedup the full scan's mean time over the method's.

What the paper leaves open and what is chosen here:

* **Volume 200.** §4.3 states the job needs "six nodes for 200 units of time", and a window's
  nodes share their allocation and release times (§3.2), so the volume is read as a
  reservation time ``T = 200`` on every node; node heterogeneity enters through the cost only.
* **Interval.** Start times ``t_k = 0, 1, ..., 800``: the "801 points" of Table 1. A job
  starting at ``t_k`` holds its nodes on ``[t_k, t_k + 200]``, so the span scanned is
  ``[0, 1000]``; job-load is the share of the environment's span covered by local jobs; with
  job-load 1 no window exists at any ``t_k``, as in §4.2.
* **Environment.** :func:`vosim.market.iccs_generators.generate_environment` (ICCS 2021 §4.1; its
  docstring states its own choices), with local jobs of median length 200 (``L / 4``) instead of
  its default ``L / 8`` = 100, laid out over :data:`MARGIN` = 1000 time units before and after
  the span scanned as well (vosim's choice). The paper's local jobs form a job flow with no
  edge at the scheduling interval's ends; laid out only inside it, the first and last windows
  had uncertain neighbours on one side only and the best start was an end of the interval in 18
  of 20 scenarios at job-load 0.5 (seed 11; with the margin in none), so Table 1's accuracy
  measured whether a start reached an end. 1000 time units are five median local job lengths (a
  node's chain of jobs forgets where it began after a few jobs) and the length of the span
  scanned itself; chosen from that, not from the results. On the median: the paper only says the
  lognormal was fitted to the ForHLR II logs; its Fig. 1 shows local jobs 450-540 long. With
  median 100 (and no margin) a node's idle time is cut into many short gaps: at job-load 0.5
  ``P_a^w(t)`` is 0 on three quarters of the interval (so the §3.5 search, which assumes a
  continuous ``P_a^w(t)`` with broad maxima, stalls on zero plateaus) and from job-load 0.7 on
  no window exists in any scenario, while §4.2 still finds some at 0.9 ("about 10" of over
  10,000). With median 200 (and the margin) ``P_a^w(t) > 0`` almost everywhere at job-load 0.5;
  windows of ``P_a^w >= 0.01`` exist in 16 % of the scenarios at job-load 0.7 and in none from
  0.8 on (seed 1, 200 scenarios per job-load).
* **Costs and budget.** Not given. Each node's cost for the whole reservation is an integer
  uniform in ``{1, ..., 10}`` and ``C = 30`` (a random 6-set costs 33 on average, so MaxP's
  set rarely fits and GreedyJnt falls back to MaxP/C). At job-load 0 this gives Knapsack
  0.975 and GreedyJnt 0.862 (seed 1, 200 scenarios; paper: 0.96 and 0.87).
* **Full scan.** Fig. 5 reports only availabilities, so both methods' full-scan answers are
  computed with ``time_scan(..., fast=True)``, which returns the full scan's time index and
  probability for every deterministic method (Table 1 measures the real full scan, and the
  fast scan's accuracy there is 1). Means include scenarios where no window exists
  (``P_a^w = 0``). The paper's Fig. 5 local maximum at job-load 0.9 comes from "about 10"
  scenarios where six concurrently available nodes were found, so ``found_share`` and
  ``mean_probability_found`` give the share of scenarios with a window of ``P_a^w >= 0.01``
  (:data:`FOUND_MIN`; the normal and lognormal tails leave values like 1e-15 that are no
  window in practice) and the mean over those.
* **Starting points.** Uniform (§3.5 option 1), step ``δ = 10`` time units. The paper gives no
  ``δ``; **δ is calibrated**: with ``δ = 10`` the number of time indices solved gives about the
  paper's speedups (99 of 801 with 20 starting points: 8.9x, the paper 8.3x), while ``δ = 1``
  walks so far from each starting point that 10 of them already solve a third of the interval.
  From 5 starting points on, the accuracy was the same with ``δ = 1`` and ``δ = 10`` on 20
  scenarios (before the margin above).
* **Table 1 as measured** (seed 1, 50 scenarios, with the margin): accuracy 0.85 from 1 starting
  point (paper 0.80), 0.99 from 5 (paper 0.93), 0.995 from 10 (0.96); GreedyJnt's full scan 0.99
  (0.953), 59 times faster than Knapsack's full scan (paper 143; 3.1 before its scan was
  vectorised over time). Without the margin the best start was an end of the interval in 18 of
  20 scenarios (seed 11) and 1 starting point gave 0.29, 5 gave 0.999; with it, in none. From 5
  starting points on the search still finds more than the paper's; why is open.
* **Repetitions.** The paper used more than 10,000 (Fig. 5) and 1000 (Table 1) scenarios;
  defaults here are 200 and 50 so that each experiment finishes in about a minute on two cores.
"""

from __future__ import annotations

from collections.abc import Callable

import altair as alt
import numpy as np
import pandas as pd

# importing these modules registers their methods: greedy_united; knapsack_p
from vosim.allocators import greedy, knapsack  # noqa: F401
from vosim.allocators.timescan import time_scan
from vosim.market.iccs_generators import generate_environment
from vosim.runs.experiments.base import (
    CAUSE_UNKNOWN,
    PAPER_SHAPE,
    Experiment,
    ExperimentConfig,
    Fidelity,
    cell,
    close_row,
    factor_row,
    fidelity_row,
    method_colour,
    paper_marks,
    percent,
    register_experiment,
    value_labels,
)

__all__ = [
    "NODES",
    "NODE_COUNT",
    "DURATION",
    "INTERVAL",
    "GLOBAL_LOAD",
    "LOCAL_JOB_MEDIAN",
    "MARGIN",
    "FIG3_INTERVAL",
    "FIG3_PAPER_PEAK",
    "FIG5_PAPER_AT_0",
    "COST_RANGE",
    "BUDGET",
    "FOUND_MIN",
    "TABLE1_JOB_LOAD",
    "TABLE1_STARTS",
    "TABLE1_STEP",
    "FIG3_COLUMNS",
    "FIG5_COLUMNS",
    "TABLE1_COLUMNS",
    "environment",
    "FIG5_PAPER_ADVANTAGE",
    "FIG5_PAPER_FOUND_AT_09",
    "fidelity_fig2",
    "fidelity_fig3",
    "fidelity_fig5",
    "fidelity_table1",
]

#: Heterogeneous nodes in the environment (§4.2, §4.3).
NODES = 64
#: Nodes the job needs simultaneously.
NODE_COUNT = 6
#: Reservation time ``T`` of the job (its volume of 200 read as time units, see the module notes).
DURATION = 200.0
#: Start times ``t_k = 0..INTERVAL`` of the scan (801 points).
INTERVAL = 800
#: Global load (standard deviation of the global occupation probability).
GLOBAL_LOAD = 0.05
#: Median length of the local jobs of the environment (see the module notes).
LOCAL_JOB_MEDIAN = 200.0
#: Inclusive bounds of the integer cost of a node for the whole reservation.
COST_RANGE = (1, 10)
#: Budget ``C`` on the total cost of the window.
BUDGET = 30.0
#: Local jobs are also generated over this many time units before 0 and after the span scanned.
MARGIN = 1000.0
#: Interval ``[0, FIG3_INTERVAL]`` of the example of Fig. 3.
FIG3_INTERVAL = 1200
#: Fig. 3's maximum: ``P_a^w = 0.93`` at ``t = 834``.
FIG3_PAPER_PEAK = (834.0, 0.93)
#: Fig. 5 at job-load 0 (§4.2): the best P_a^w of Knapsack and of GreedyJnt.
FIG5_PAPER_AT_0 = (0.96, 0.87)
#: Fig. 5 at job-load 0 (§4.2): Knapsack's advantage over GreedyJnt, "about 9 %".
FIG5_PAPER_ADVANTAGE = 0.09
#: Fig. 5 at job-load 0.9 (§4.2): "about 10" of "more than 10,000" scenarios found a window.
FIG5_PAPER_FOUND_AT_09 = 10 / 10_000
#: Smallest ``P_a^w`` that counts as a window found (Fig. 5's ``found_share``).
FOUND_MIN = 0.01
#: Job-load of Table 1.
TABLE1_JOB_LOAD = 0.5
#: Starting points of Table 1.
TABLE1_STARTS = (1, 5, 10, 20, 50, 100)
#: Step ``δ`` of the starting-point search, in time indices (see the module notes).
TABLE1_STEP = 10

FIG5_COLUMNS = [
    "job_load",
    "method",
    "label",
    "mean_probability",
    "std_probability",
    "found_share",
    "mean_probability_found",
    "advantage",
    "mean_seconds",
    "repetitions",
]
TABLE1_COLUMNS = [
    "job_load",
    "method",
    "scan",
    "starts",
    "step",
    "label",
    "mean_probability",
    "std_probability",
    "accuracy",
    "mean_seconds",
    "speedup",
    "mean_evaluations",
    "repetitions",
    "compared",
    "paper_accuracy",
    "paper_speedup",
]

_LABELS = {"knapsack_p": "Knapsack", "greedy_united": "GreedyJnt"}
_KEY_FIG5, _KEY_TABLE1, _KEY_FIG3 = 20215, 20211, 20213

Progress = Callable[[int], None]


def environment(
    rng: np.random.Generator, job_load: float, interval: int = INTERVAL
) -> tuple[np.ndarray, np.ndarray]:
    """One random scenario: availability ``p_avail`` (64, 801) and node costs (64,).

    Parameters
    ----------
    rng : numpy.random.Generator
        Source of randomness (environment first, then costs).
    job_load : float
        Share of ``[-MARGIN, interval + DURATION + MARGIN]`` covered by each node's local
        jobs, in [0, 1].
    interval : int
        Last start time scanned (default :data:`INTERVAL`; Fig. 3: :data:`FIG3_INTERVAL`).

    Returns
    -------
    p_avail : numpy.ndarray, shape (NODES, interval + 1)
        ``P_a(r_i, t_k, T = 200)`` for ``t_k = 0..interval``.
    cost : numpy.ndarray of int, shape (NODES,)
        Cost of each node for the whole reservation, uniform in :data:`COST_RANGE`.

    References
    ----------
    ICCS 2021 §4.1 (environment), §4.2-4.3 (64 nodes, ``[0, 800]``, global load 0.05); local
    jobs of median length :data:`LOCAL_JOB_MEDIAN`, also :data:`MARGIN` before and after.
    """
    env = generate_environment(
        NODES,
        interval + DURATION,
        global_load=GLOBAL_LOAD,
        job_load=job_load,
        length_median=LOCAL_JOB_MEDIAN,
        margin=MARGIN,
        rng=rng,
    )
    cost = rng.integers(COST_RANGE[0], COST_RANGE[1] + 1, NODES)
    return env.p_avail(DURATION, np.arange(interval + 1, dtype=float)), cost


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
    paper = pd.DataFrame(
        {
            "job_load": [0.0, 0.0],
            "mean_probability": list(FIG5_PAPER_AT_0),
            "text": [
                f"paper: Knapsack {FIG5_PAPER_AT_0[0]}",
                f"paper: GreedyJnt {FIG5_PAPER_AT_0[1]}",
            ],
        }
    )
    lines = (
        alt.Chart(table)
        .mark_line(point=True)
        .encode(
            x=alt.X("job_load:Q", title="job-load"),
            y=alt.Y("mean_probability:Q", title="mean best P_a^w over [0, 800]"),
            color=method_colour("label", table["label"]),
            tooltip=[
                "label:N",
                "job_load:Q",
                alt.Tooltip("mean_probability:Q", format=".4f"),
                alt.Tooltip("advantage:Q", format=".1%"),
                alt.Tooltip("found_share:Q", format=".0%"),
                alt.Tooltip("mean_probability_found:Q", format=".4f"),
                "repetitions:Q",
            ],
        )
    )
    chart = alt.layer(lines, paper_marks(paper, "job_load:Q", "mean_probability:Q")).properties(
        width=520,
        height=280,
        title="ICCS 2021 Fig. 5: 64 nodes, n = 6, T = 200, t in [0, 800], global load 0.05",
    )
    return table, chart


# ---------------------------------------------------------------------------------------------
# Fig. 3

#: Columns of the Fig. 3 table.
FIG3_COLUMNS = ["scenario", "t", "probability", "best", "paper_t", "paper_probability"]


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


def _fig3_chart(table: pd.DataFrame) -> alt.LayerChart:
    """The curves (one colour per environment), their maxima, and the paper's maximum."""
    colour = alt.Color("scenario:N", title="environment", scale=alt.Scale(scheme="tableau10"))
    x = alt.X("t:Q", title="start time t", scale=alt.Scale(domain=[0, FIG3_INTERVAL]))
    y = alt.Y("probability:Q", title="max P_a^w(t) within budget", scale=alt.Scale(domain=[0, 1]))
    base = alt.Chart(table)
    curves = base.mark_line(strokeWidth=1.2).encode(x=x, y=y, color=colour)
    best = (
        base.transform_filter(alt.datum.best)
        .mark_point(size=70, filled=True)
        .encode(x=x, y=y, color=colour, tooltip=["scenario:N", "t:Q", "probability:Q"])
    )
    peak = pd.DataFrame(
        {
            "t": [FIG3_PAPER_PEAK[0]],
            "probability": [FIG3_PAPER_PEAK[1]],
            "text": ["paper: 0.93 at t = 834"],
        }
    )
    return alt.layer(curves, best, paper_marks(peak, "t:Q", "probability:Q")).properties(
        width=560,
        height=300,
        title=(
            "ICCS 2021 Fig. 3: max P_a^w(t) on [0, 1200] (64 nodes, n = 6, T = 200, C = 30, "
            "job-load 0.5); dots: each curve's maximum"
        ),
    )


# ---------------------------------------------------------------------------------------------
# Table 1

#: Rows of Table 1: (method, scan, starts, label, paper accuracy, paper speedup).
_TABLE1_ROWS: list[tuple[str, str, int | None, str, float, float]] = [
    ("knapsack_p", "full", None, "Full scan (Knapsack)", 1.0, 1.0),
    ("knapsack_p", "starting points", 1, "1 starting point (Knapsack)", 0.8, 65.0),
    ("knapsack_p", "starting points", 5, "5 starting points (Knapsack)", 0.93, 17.0),
    ("knapsack_p", "starting points", 10, "10 starting points (Knapsack)", 0.96, 10.5),
    ("knapsack_p", "starting points", 20, "20 starting points (Knapsack)", 0.97, 8.3),
    ("knapsack_p", "starting points", 50, "50 starting points (Knapsack)", 0.99, 6.8),
    ("knapsack_p", "starting points", 100, "100 starting points (Knapsack)", 0.99, 3.7),
    ("greedy_united", "full", None, "Full scan (GreedyJnt)", 0.953, 143.0),
    ("greedy_united", "starting points", 50, "50 starting points (GreedyJnt)", 0.94, 1000.0),
    ("knapsack_p", "fast exact", None, "Fast exact scan (Knapsack, vosim)", np.nan, np.nan),
]


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


def _table1_chart(table: pd.DataFrame) -> alt.TopLevelMixin:
    """Accuracy and speedup (log scale) per variant; the paper's values as black crosses.

    vosim's dots are coloured by method (:func:`~vosim.runs.experiments.base.method_colour`).
    """
    method = table["method"].map(_LABELS)
    ours = table[["label", "accuracy", "speedup"]].assign(source="vosim", method=method)
    paper = (
        table[["label", "paper_accuracy", "paper_speedup"]]
        .rename(columns={"paper_accuracy": "accuracy", "paper_speedup": "speedup"})
        .dropna()
        .assign(source="paper (Table 1, §4.3)")
    )
    order = table["label"].tolist()
    y = alt.Y("label:N", sort=order, title=None)
    tooltip = [
        "source:N",
        "label:N",
        alt.Tooltip("accuracy:Q", format=".3f"),
        alt.Tooltip("speedup:Q", format=".1f"),
    ]
    x_accuracy = alt.X("accuracy:Q", title="accuracy (P_a^w / full-scan optimum)")
    x_speedup = alt.X(
        "speedup:Q",
        title="speedup over the Knapsack full scan",
        scale=alt.Scale(type="log"),
        # powers of ten only: a log axis labels 100, 200, 300 ... on top of each other
        axis=alt.Axis(values=[0.1, 1, 10, 100, 1000, 10000], format="~g"),
    )
    dots = (
        alt.Chart(ours)
        .mark_point(size=80, filled=True)
        .encode(y=y, color=method_colour("method", method), tooltip=tooltip)
    )
    crosses = (
        alt.Chart(paper)
        .mark_point(shape=PAPER_SHAPE, size=110, color="black", strokeWidth=2)
        .encode(y=y, tooltip=tooltip)
    )
    panels = [
        alt.layer(dots.encode(x=x_accuracy), crosses.encode(x=x_accuracy)),
        alt.layer(dots.encode(x=x_speedup), crosses.encode(x=x_speedup)).encode(
            y=alt.Y("label:N", sort=order, axis=None)
        ),
    ]
    return alt.hconcat(*(p.properties(width=300, height=260) for p in panels)).properties(
        title=alt.TitleParams(
            f"ICCS 2021 Table 1: time scan at job-load {TABLE1_JOB_LOAD}, global load 0.05 "
            "(black crosses: the paper's values)",
            subtitle=f"starting points every delta = {TABLE1_STEP} time units: CALIBRATED "
            "(the paper gives no delta; chosen so that 20 starting points give about its 8.3x)",
        )
    )


# ---------------------------------------------------------------------------------------------
# Fig. 2: the job-size fit

#: The trace of Fig. 2's fit: the paper's ForHLR II log is not available, so UniLu-Gaia (the
#: bundled trace closest to it: a university HPC cluster's parallel jobs).
FIG2_TRACE = "UniLu-Gaia-2014-2"
#: Fig. 2's K-S statistic of the generated job sizes against the log's (§3.1).
FIG2_PAPER_KS = 0.14
#: Columns of the Fig. 2 table.
FIG2_COLUMNS = ["repetition", "marginal", "ks", "paper_ks"]


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
    from vosim.data import trace_path
    from vosim.market.fitted import fitted_workload, usable_columns
    from vosim.market.swf import read_swf

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
    cdf = pd.concat(
        [
            pd.DataFrame(
                {"processors": np.sort(v), "share": np.arange(1, v.size + 1) / v.size, "flow": k}
            ).drop_duplicates("processors", keep="last")
            for k, v in sizes.items()
        ],
        ignore_index=True,
    )
    ks = float(table.loc[table["marginal"] == "processors", "ks"].mean())
    x = alt.X("processors:Q", title="processors requested (log)").scale(type="log")
    y = alt.Y("share:Q", title="share of jobs (empirical CDF)")
    lines = (
        alt.Chart(cdf)
        .mark_line(interpolate="step-after")
        .encode(x=x, y=y, color=alt.Color("flow:N", title=None))
    )
    label = value_labels(
        "processors:Q",
        "share:Q",
        (2.0, 0.25),
        [f"vosim: K-S {ks:.3f}", f"paper: K-S {FIG2_PAPER_KS} (ForHLR II)"],
    )
    chart = alt.layer(lines, label).properties(
        width=520,
        height=280,
        title=f"ICCS 2021 Fig. 2: job sizes of {FIG2_TRACE} and of a flow generated from its fit",
    )
    return table, chart


# ---------------------------------------------------------------------------------------------
# Fidelity: the paper's stated values beside vosim's, read from each experiment's table


def _times(speedup: float) -> str:
    return f"{speedup:.0f}x" if speedup >= 100 else f"{speedup:.3g}x"


def fidelity_fig2(table: pd.DataFrame) -> list[Fidelity]:
    """ICCS 2021 Fig. 2: the K-S statistic of the generated job sizes beside the paper's 0.14.

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`run_fig2`'s table: columns :data:`FIG2_COLUMNS`, one row per flow and marginal
        (``marginal == "processors"``: the job sizes).

    Returns
    -------
    list of Fidelity
        One row: vosim's mean K-S of the sizes over the flows beside :data:`FIG2_PAPER_KS`.

    References
    ----------
    ICCS 2021 §3.1 and Fig. 2 ("0.14 value by the Kolmogorov-Smirnov test").
    """
    ks = table.loc[table["marginal"] == "processors", "ks"]
    return [
        fidelity_row(
            "ICCS 2021 Fig. 2 (§3.1)",
            "K-S statistic of the generated job sizes against the log's",
            f"{FIG2_PAPER_KS:g} (ForHLR II)",
            float(ks.mean()) if len(ks) else None,
            lambda v: f"{v:.3f} ({FIG2_TRACE}, mean of {len(ks)} flow{'s' * (len(ks) > 1)})",
            lambda v: "yes" if v <= FIG2_PAPER_KS else "partly" if v <= 2 * FIG2_PAPER_KS else "no",
            "Yes if vosim's K-S is at most the paper's (a fit at least as close), partly if at "
            "most twice it.",
            "The paper's ForHLR II log is not available: vosim fits UniLu-Gaia (module notes).",
        )
    ]


def fidelity_fig3(table: pd.DataFrame) -> list[Fidelity]:
    """ICCS 2021 Fig. 3: the maximum of ``max P_a^w(t)`` and where it lies, beside 0.93 at 834.

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`run_fig3`'s table: columns :data:`FIG3_COLUMNS`, one row per environment
        (``scenario``) and ``t``; ``best`` marks each curve's maximum.

    Returns
    -------
    list of Fidelity
        The maximum's value (mean over the environments) against 0.93, and whether each
        maximum is interior, as the paper's at ``t = 834`` of ``[0, 1200]`` is.

    References
    ----------
    ICCS 2021 §3.2 and Fig. 3 (:data:`FIG3_PAPER_PEAK`).
    """
    figure = "ICCS 2021 Fig. 3 (§3.2)"
    t_paper, p_paper = FIG3_PAPER_PEAK
    peaks = table.loc[table["best"].astype(bool), ["t", "probability"]]
    listed = "; ".join(f"{p:.2f} at t = {t:g}" for t, p in peaks.itertuples(index=False))
    mean = float(peaks["probability"].mean()) if len(peaks) else None
    inside = (peaks["t"] > 0) & (peaks["t"] < FIG3_INTERVAL)
    return [
        close_row(
            figure,
            "maximum of max P_a^w(t) on [0, 1200]",
            p_paper,
            mean,
            0.05,
            0.25,
            stated=f"{p_paper:g} at t = {t_paper:g}",
            show=lambda v: listed if len(peaks) == 1 else f"mean {v:.2f} ({listed})",
            note="vosim: the mean of its environments' maxima.",
            cause="vosim's environment is another random draw (the paper's is unpublished), so "
            "only the shape is comparable (module notes).",
        ),
        fidelity_row(
            figure,
            "where the maximum lies",
            f"t = {t_paper:g}, inside [0, {FIG3_INTERVAL}]",
            inside if len(peaks) else None,
            lambda v: ", ".join(f"t = {t:g}" for t in peaks["t"]) + f" of [0, {FIG3_INTERVAL}]",
            lambda v: "yes" if v.all() else "partly" if v.any() else "no",
            "Yes if every environment's maximum lies strictly inside the interval, as the "
            "paper's does, partly if some do (t itself depends on the environment drawn).",
        ),
    ]


def fidelity_fig5(table: pd.DataFrame) -> list[Fidelity]:
    """ICCS 2021 Fig. 5: Knapsack and GreedyJnt at job-load 0 and the trend §4.2 states.

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`run_fig5`'s table: columns :data:`FIG5_COLUMNS`, one row per ``job_load`` and
        ``method`` (``mean_probability``, ``advantage`` over GreedyJnt, ``found_share``).

    Returns
    -------
    list of Fidelity
        The two means and the advantage at job-load 0 (:data:`FIG5_PAPER_AT_0`,
        :data:`FIG5_PAPER_ADVANTAGE`), the advantage at the highest job-load with a window
        ("almost 0 %"), Knapsack at least GreedyJnt at every job-load < 1, the share of
        scenarios with a window at job-load 0.9 (:data:`FIG5_PAPER_FOUND_AT_09`) and 1 (none).

    References
    ----------
    ICCS 2021 §4.2 and Fig. 5.
    """
    figure = "ICCS 2021 Fig. 5 (§4.2)"
    costs = (
        "Cause unknown; the paper gives no node costs or budget, vosim's are chosen (module notes)."
    )

    def at(column: str, job_load: float, method: str = "knapsack_p") -> float | None:
        return cell(table, column, job_load=job_load, method=method)

    ours = table[table["method"] == "knapsack_p"].sort_values("job_load")
    advantage_0 = at("advantage", 0.0)
    loaded = ours[(ours["job_load"] > 0) & (ours["job_load"] < 1) & ours["advantage"].notna()]
    last = (
        (float(loaded["job_load"].iloc[-1]), float(loaded["advantage"].iloc[-1]))
        if len(loaded) and advantage_0 is not None
        else None
    )
    p = table.pivot(index="job_load", columns="method", values="mean_probability")
    p = p[p.index < 1 - 1e-9]
    at_least = (p["knapsack_p"] >= p["greedy_united"] * (1 - 1e-12)).to_numpy()
    return [
        close_row(
            figure,
            f"mean best P_a^w of {_LABELS[method]} at job-load 0",
            paper,
            at("mean_probability", 0.0, method),
            0.03,
            0.10,
            cause=costs,
        )
        for method, paper in zip(_LABELS, FIG5_PAPER_AT_0, strict=True)
    ] + [
        close_row(
            figure,
            "Knapsack's advantage over GreedyJnt at job-load 0",
            FIG5_PAPER_ADVANTAGE,
            advantage_0,
            0.25,
            0.75,
            stated=f"about {percent(FIG5_PAPER_ADVANTAGE)}",
            show=percent,
            cause=costs,
        ),
        fidelity_row(
            figure,
            "Knapsack's advantage at the highest job-load < 1 with a window",
            f"almost 0 % (from about {percent(FIG5_PAPER_ADVANTAGE)} at job-load 0)",
            last,
            lambda v: f"{percent(v[1])} at job-load {v[0]:g}",
            lambda v: "yes" if v[1] < 0.02 else "partly" if v[1] < (advantage_0 or 0) else "no",
            "Yes if below 2 %, partly if below the advantage at job-load 0 (it falls).",
        ),
        fidelity_row(
            figure,
            "Knapsack against GreedyJnt at every job-load < 1",
            "Knapsack higher at every job-load < 1",
            at_least if at_least.size else None,
            lambda v: f"Knapsack at least GreedyJnt's at {v.sum()} of {v.size} job-loads",
            lambda v: "yes" if v.all() else "no",
            "Yes if Knapsack's mean is at least GreedyJnt's at every job-load < 1 of the run "
            "(equal where neither finds a window).",
        ),
        fidelity_row(
            figure,
            "share of scenarios with a window at job-load 0.9",
            f"about 10 of over 10,000 ({percent(FIG5_PAPER_FOUND_AT_09)})",
            at("found_share", 0.9),
            lambda v: f"{percent(v)} of {at('repetitions', 0.9):.0f} scenarios",
            lambda v: "yes" if 0 < v <= 0.01 else "partly" if v == 0 else "no",
            f"Yes if above 0 and at most 1 %, partly if 0 (a run of fewer than 1000 scenarios "
            f"may find none), no above 1 %; a window is P_a^w >= {FOUND_MIN}.",
            "With vosim's local jobs (median 200, the paper gives none) no window exists from "
            "job-load 0.8 on (module notes).",
        ),
        fidelity_row(
            figure,
            "share of scenarios with a window at job-load 1",
            "none (P_a^w = 0)",
            at("found_share", 1.0),
            lambda v: f"{percent(v)} of {at('repetitions', 1.0):.0f} scenarios",
            lambda v: "yes" if v == 0 else "no",
            f"Yes if no scenario has a window (P_a^w >= {FOUND_MIN}).",
        ),
    ]


#: Why Knapsack's search from 5 or more starting points is more accurate than the paper's.
_TABLE1_OPEN = (
    "Cause unknown: from 5 starting points on vosim's search finds more than the paper's, why "
    "is open (module notes)."
)
#: Why the starting-point searches' speedups are near the paper's.
_TABLE1_DELTA = (
    "Calibrated: the paper gives no search step; delta = 10 was chosen so that 20 starting "
    "points solve about as many time indices as the paper's 8.3x implies (module notes)."
)
#: Table 1's cells :func:`fidelity_table1` compares: (row label, column, cause if they differ).
_TABLE1_FIDELITY = (
    ("1 starting point (Knapsack)", "accuracy", CAUSE_UNKNOWN),
    ("5 starting points (Knapsack)", "accuracy", _TABLE1_OPEN),
    ("50 starting points (Knapsack)", "accuracy", _TABLE1_OPEN),
    ("50 starting points (Knapsack)", "speedup", _TABLE1_DELTA),
    ("Full scan (GreedyJnt)", "accuracy", CAUSE_UNKNOWN),
    ("Full scan (GreedyJnt)", "speedup", CAUSE_UNKNOWN),
    ("50 starting points (GreedyJnt)", "accuracy", CAUSE_UNKNOWN),
    ("50 starting points (GreedyJnt)", "speedup", _TABLE1_DELTA),
)
#: The one compared row that is not in the paper's Table 1 but in §4.3's text.
_TABLE1_FROM_TEXT = "50 starting points (GreedyJnt)"


def fidelity_table1(table: pd.DataFrame) -> list[Fidelity]:
    """ICCS 2021 Table 1: accuracy and speedup of the main variants beside the paper's.

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`run_table1`'s table: columns :data:`TABLE1_COLUMNS`, one row per variant
        (``label``) with its ``accuracy`` and ``speedup``.

    Returns
    -------
    list of Fidelity
        The cells of ``_TABLE1_FIDELITY``: Knapsack's accuracy from 1, 5 and 50 starting
        points and its speedup from 50, GreedyJnt's full scan and from 50 starting points
        (accuracy and speedup); the paper's values are those of ``_TABLE1_ROWS``.

    References
    ----------
    ICCS 2021 §4.3 and Table 1 (GreedyJnt from 50 starting points: §4.3's text).
    """
    paper = {row[3]: {"accuracy": row[4], "speedup": row[5]} for row in _TABLE1_ROWS}
    rows = []
    for label, column, cause in _TABLE1_FIDELITY:
        figure = "ICCS 2021 §4.3 (text)" if label == _TABLE1_FROM_TEXT else "ICCS 2021 Table 1"
        value = cell(table, column, label=label)
        stated = paper[label][column]
        if column == "accuracy":
            row = close_row(figure, f"accuracy, {label}", stated, value, 0.03, 0.10, cause=cause)
        else:
            row = factor_row(
                figure,
                f"speedup over the Knapsack full scan, {label}",
                stated,
                value,
                2.0,
                10.0,
                stated=_times(stated),
                show=_times,
                note="Times depend on the machine and the implementation.",
                cause=cause,
            )
        rows.append(row)
    return rows


FIG2 = register_experiment(
    Experiment(
        name="iccs2021-fig2",
        description=(
            "ICCS 2021 Fig. 2: job sizes of UniLu-Gaia against a flow generated from its fit "
            "(the paper's ForHLR II log is not available), K-S per marginal beside the "
            "paper's 0.14; 5 flows by default"
        ),
        default_repetitions=5,
        quick_repetitions=1,
        run=run_fig2,
        points=lambda quick: 1 if quick else 5,
        fidelity=fidelity_fig2,
    )
)

FIG3 = register_experiment(
    Experiment(
        name="iccs2021-fig3",
        description=(
            "ICCS 2021 Fig. 3: the curve max P_a^w(t) on [0, 1200] of an environment at "
            "job-load 0.5 (64 nodes, n = 6, T = 200), full Knapsack scan, beside the paper's "
            "maximum 0.93 at t = 834; 3 environments by default"
        ),
        default_repetitions=3,
        quick_repetitions=1,
        run=run_fig3,
        points=lambda quick: 1,
        fidelity=fidelity_fig3,
    )
)

FIG5 = register_experiment(
    Experiment(
        name="iccs2021-fig5",
        description=(
            "ICCS 2021 Fig. 5: best P_a^w over [0, 800] vs job-load 0..1 (64 nodes, n = 6, "
            "T = 200, global load 0.05), Knapsack vs GreedyJnt full scans; 200 scenarios per "
            "point by default (the paper: over 10,000)"
        ),
        default_repetitions=200,
        quick_repetitions=3,
        run=run_fig5,
        points=lambda quick: len(_fig5_grid(quick)),
        fidelity=fidelity_fig5,
    )
)

TABLE1 = register_experiment(
    Experiment(
        name="iccs2021-table1",
        description=(
            "ICCS 2021 Table 1: Knapsack full scan vs 1-100 starting points, GreedyJnt and the "
            "fast exact scan (accuracy, speedup) at job-load 0.5; 50 scenarios by default "
            "(the paper: 1000)"
        ),
        default_repetitions=50,
        quick_repetitions=3,
        run=run_table1,
        points=lambda quick: len(_TABLE1_ROWS),
        fidelity=fidelity_table1,
    )
)
