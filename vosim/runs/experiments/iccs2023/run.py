"""ICCS 2023's procedures: each experiment's runs, the table of each figure.

:func:`run_fig4_5` (Figs. 4-5), :func:`run_fig6` (Fig. 6) and :func:`run_fig7_8` (Figs. 7-8)
solve the random instances of :mod:`~vosim.runs.experiments.iccs2023.setup` with every method
at each point of the figure; :func:`run_fig2` computes the worked example of Fig. 2. Their
charts come from :mod:`~vosim.runs.experiments.iccs2023.charts`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import altair as alt
import numpy as np
import pandas as pd

# importing these modules registers their methods: brute_force and exact; greedy_united;
# knapsack_group, greedy and greedy_plus; knapsack_p
from vosim.allocators import exact, greedy, group_bnb, knapsack  # noqa: F401
from vosim.allocators.availability_problem import AvailabilityProblem, allocate_resources
from vosim.market.event_chains import availability
from vosim.runs.experiments.base import ExperimentConfig
from vosim.runs.experiments.iccs2023.charts import (
    _fig2_chart,
    _fig4_5_chart,
    _fig6_chart,
    _fig7_8_chart,
)
from vosim.runs.experiments.iccs2023.setup import (
    COLUMNS,
    FIG2_COLUMNS,
    FIG2_GLOBAL_P,
    FIG2_INTERVAL,
    FIG2_JOBS,
    FIG2_PAPER,
    LABELS,
    LARGE_METHODS,
    SMALL_METHODS,
    TREE_METHODS,
    _instances,
)

#: Relative tolerance under which a method's probability counts as the optimum.
_OPT_RTOL = 1e-9
#: Keys of the instance streams (one per experiment; see ExperimentConfig.rngs).
_KEY_FIG4_5, _KEY_FIG6, _KEY_FIG7_8 = 20234, 20236, 20237

Progress = Callable[[int], None]


# ---------------------------------------------------------------------------------------------
# shared machinery


def _point(
    instances: Iterable[tuple],
    n: int,
    budget: Callable[[np.ndarray], float],
    method_names: tuple[str, ...],
) -> dict[str, dict[str, list]]:
    """Solve every instance at one figure point with every method; raw per-instance results."""
    raw: dict[str, dict[str, list]] = {
        m: {"p": [], "s": [], "tree": [], "feasible": []} for m in method_names
    }
    for cost, group, group_p in instances:
        problem = AvailabilityProblem(
            cost=cost, group=group, group_p=group_p, n=n, budget=budget(cost)
        )
        for m in method_names:
            res = allocate_resources(problem, m)
            raw[m]["p"].append(res.probability)
            raw[m]["s"].append(res.stats["seconds"])
            raw[m]["tree"].append(res.stats.get("tree_size", np.nan))
            raw[m]["feasible"].append(res.status.found)
    return raw


def _rows(raw: dict[str, dict[str, list]], **axes: float) -> list[dict]:
    """Aggregate one figure point's raw results into one row per method.

    Means, spreads, times, tree sizes and shares are over the *feasible* instances only: those
    where the exact DP finds a window within ``C`` (an infeasible instance has no availability
    to compare; counting it as 0 made the means measure feasibility). ``feasible_share`` is
    their share of all instances; NaN statistics when none is feasible.
    """
    feasible = np.asarray(raw["exact"]["feasible"], dtype=bool)
    best = np.asarray(raw["exact"]["p"], dtype=float)[feasible]
    rows = []
    for m, r in raw.items():
        p = np.asarray(r["p"], dtype=float)[feasible]
        tree = np.asarray(r["tree"], dtype=float)[feasible]
        seconds = np.asarray(r["s"], dtype=float)[feasible]
        found = np.asarray(r["feasible"], dtype=bool)[feasible]
        some = p.size > 0
        has_tree = m in TREE_METHODS and some
        rows.append(
            {
                **axes,
                "method": m,
                "label": LABELS[m],
                "mean_probability": float(p.mean()) if some else np.nan,
                "std_probability": float(p.std(ddof=1)) if p.size > 1 else np.nan,
                "mean_seconds": float(seconds.mean()) if some else np.nan,
                "repetitions": int(feasible.size),
                "feasible_share": float(feasible.mean()),
                "found_share": float(found.mean()) if some else np.nan,
                "optimal_share": float(np.mean(p >= best * (1 - _OPT_RTOL))) if some else np.nan,
                "mean_tree_size": float(tree.mean()) if has_tree else np.nan,
                "median_tree_size": float(np.median(tree)) if has_tree else np.nan,
            }
        )
    return rows


def _table(rows: list[dict]) -> pd.DataFrame:
    table = pd.DataFrame(rows, columns=COLUMNS)
    table["n"] = table["n"].astype("int64")
    table["repetitions"] = table["repetitions"].astype("int64")
    return table


# ---------------------------------------------------------------------------------------------
# Figs. 4 and 5


def _fig4_5_grid(quick: bool) -> list[int]:
    return [1, 4, 8, 14, 18, 21] if quick else list(range(1, 22))


def run_fig4_5(
    config: ExperimentConfig, progress: Progress
) -> tuple[pd.DataFrame, alt.TopLevelMixin]:
    """ICCS 2023 Figs. 4-5: ``P_a^w`` and time against ``n`` (N = 21, G = 8, no cost limit).

    Parameters
    ----------
    config : ExperimentConfig
        Repetitions (instances per ``n``), seed; ``quick`` takes ``n`` in
        ``{1, 4, 8, 14, 18, 21}`` instead of ``1..21``.
    progress : callable
        Called with 1 after each ``n``.

    Returns
    -------
    table : pandas.DataFrame
        One row per ``n`` and method, columns :data:`COLUMNS` (``C`` is NaN: the budget is each
        instance's total cost ``sum c_i``).
    chart : altair.VConcatChart
        Mean ``P_a^w`` (Fig. 4) and mean time on a log scale (Fig. 5) against ``n``.

    Notes
    -----
    The paper (§3.2) finds KnapsackGroup, Greedy and Greedy+ equal to BruteForce at every
    ``n`` (without a budget the greedy relaxations are exact), KnapsackSingle up to 5 % lower
    except at ``n = 1`` and ``n = 21``, and BruteForce's time peaking for ``n`` in ``[7, 15]``.
    """
    instances = _instances(config, _KEY_FIG4_5, 21, 8)
    rows: list[dict] = []
    for n in _fig4_5_grid(config.quick):
        raw = _point(instances, n, lambda cost: float(cost.sum()), SMALL_METHODS)
        rows += _rows(raw, n=n, C=np.nan)
        progress(1)
    table = _table(rows)
    return table, _fig4_5_chart(table)


# ---------------------------------------------------------------------------------------------
# Fig. 6


def _fig6_grid(quick: bool) -> list[int]:
    return [30, 60, 90, 120] if quick else list(range(30, 121, 10))


def run_fig6(
    config: ExperimentConfig, progress: Progress
) -> tuple[pd.DataFrame, alt.TopLevelMixin]:
    """ICCS 2023 Fig. 6: ``P_a^w`` against the budget ``C`` (N = 21, G = 8, n = 8).

    Parameters
    ----------
    config : ExperimentConfig
        Repetitions (instances per ``C``), seed; ``quick`` takes ``C`` in ``{30, 60, 90, 120}``
        instead of ``30, 40, ..., 120``.
    progress : callable
        Called with 1 after each ``C``.

    Returns
    -------
    table : pandas.DataFrame
        One row per ``C`` and method, columns :data:`COLUMNS`.
    chart : altair.Chart
        Mean ``P_a^w`` against ``C``, a line per method.

    Notes
    -----
    The paper finds KnapsackGroup equal to BruteForce at every ``C``, about 5 % above
    KnapsackSingle, and the greedy methods within 5 % of the optimum, reaching it for
    ``C > 90``.
    """
    instances = _instances(config, _KEY_FIG6, 21, 8)
    rows: list[dict] = []
    for C in _fig6_grid(config.quick):
        rows += _rows(_point(instances, 8, lambda cost, C=C: float(C), SMALL_METHODS), n=8, C=C)
        progress(1)
    table = _table(rows)
    return table, _fig6_chart(table)


# ---------------------------------------------------------------------------------------------
# Figs. 7 and 8


def _fig7_8_grid(quick: bool) -> list[int]:
    return [80, 140, 220] if quick else list(range(40, 221, 20))


def run_fig7_8(
    config: ExperimentConfig, progress: Progress
) -> tuple[pd.DataFrame, alt.TopLevelMixin]:
    """ICCS 2023 Figs. 7-8: ``P_a^w``, time and tree size against ``C`` (N = 200, G = 40, n = 20).

    Parameters
    ----------
    config : ExperimentConfig
        Repetitions (instances per ``C``), seed; ``quick`` takes ``C`` in ``{80, 140, 220}``
        (the tight budgets, whose trees are largest, are left to the full run).
    progress : callable
        Called with 1 after each ``C``.

    Returns
    -------
    table : pandas.DataFrame
        One row per ``C`` and method (no BruteForce), columns :data:`COLUMNS`, with the mean
        and median tree sizes of KnapsackGroup, Greedy and Greedy+.
    chart : altair.VConcatChart
        Mean ``P_a^w`` (Fig. 7) and mean time on a log scale (Fig. 8) against ``C``.

    Notes
    -----
    The paper uses KnapsackGroup as the reference here: greedy methods lose more than 20 % for
    some ``C``, KnapsackSingle about 10 %; the trees shrink from almost 5000 candidates
    (about 8 s) at ``C = 40`` to about 100 at ``C = 120``. ``exact`` is vosim's multiple-choice
    DP (not in the paper), which gives the same optimum without a tree.
    """
    instances = _instances(config, _KEY_FIG7_8, 200, 40)
    rows: list[dict] = []
    for C in _fig7_8_grid(config.quick):
        rows += _rows(_point(instances, 20, lambda cost, C=C: float(C), LARGE_METHODS), n=20, C=C)
        progress(1)
    table = _table(rows)
    return table, _fig7_8_chart(table)


# ---------------------------------------------------------------------------------------------
# Fig. 2: the worked example


def run_fig2(config: ExperimentConfig, progress: Progress) -> tuple[pd.DataFrame, alt.LayerChart]:
    """ICCS 2023 Fig. 2: the worked example of a resource's availability over ``[545, 844]``.

    Parameters
    ----------
    config : ExperimentConfig
        Unused beyond the interface (the example is deterministic).
    progress : callable
        Called with 1 once.

    Returns
    -------
    table : pandas.DataFrame
        One row per independent event active in the interval (the first job's release, the
        second's allocation, the global events) and one for the resource, columns
        :data:`FIG2_COLUMNS`: ``P_o^max`` over the interval, ``P_a = 1 - P_o^max`` (their
        product for the resource) and the paper's value.
    chart : altair.LayerChart
        The occupation probability ``P_o(t)`` of the two jobs (Figs. 1-2) with the interval
        shaded and the paper's ``P_a^r = 0.235`` beside vosim's.

    References
    ----------
    ICCS 2023 §2.1, steps 1-3 and the example of Fig. 2; Fig. 1 (the events' times).
    """
    start, end = FIG2_INTERVAL
    duration = end - start
    first, second = FIG2_JOBS
    p_o = [
        float(first.max_p_occupied([start], duration)[0]),
        float(second.max_p_occupied([start], duration)[0]),
        FIG2_GLOBAL_P,
    ]
    total = availability(FIG2_JOBS, start, duration, global_p=FIG2_GLOBAL_P)
    events = list(FIG2_PAPER)
    table = pd.DataFrame(
        {
            "event": events,
            "max_p_occupied": [*p_o, np.nan],
            "p_available": [*(1.0 - p for p in p_o), float(total)],
            "paper_p_available": list(FIG2_PAPER.values()),
        },
        columns=FIG2_COLUMNS,
    )
    progress(1)
    return table, _fig2_chart(total)
