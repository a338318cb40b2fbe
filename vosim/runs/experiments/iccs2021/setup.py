"""ICCS 2021's environment, the job and the paper's stated values: what every figure shares.

The constants of the study (64 nodes, a job of ``n = 6`` nodes for ``T = 200``, the interval
``[0, 800]``, the budget), the values the paper states for Figs. 2, 3, 5 and Table 1, the
columns of each experiment's table, and :func:`environment`, one random scenario.
"""

from __future__ import annotations

import numpy as np

from vosim.market.iccs_generators import generate_environment

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

#: Columns of the Fig. 5 table.
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
#: Columns of the Table 1 table.
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
#: Columns of the Fig. 3 table.
FIG3_COLUMNS = ["scenario", "t", "probability", "best", "paper_t", "paper_probability"]

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

#: The trace of Fig. 2's fit: the paper's ForHLR II log is not available, so UniLu-Gaia (the
#: bundled trace closest to it: a university HPC cluster's parallel jobs).
FIG2_TRACE = "UniLu-Gaia-2014-2"
#: Fig. 2's K-S statistic of the generated job sizes against the log's (§3.1).
FIG2_PAPER_KS = 0.14
#: Columns of the Fig. 2 table.
FIG2_COLUMNS = ["repetition", "marginal", "ks", "paper_ks"]

#: The paper's name of each method (the tables' ``label``, the charts' legend).
_LABELS = {"knapsack_p": "Knapsack", "greedy_united": "GreedyJnt"}


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
