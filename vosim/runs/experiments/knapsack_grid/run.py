"""The procedures of the Knapsack Grid experiments: each one's table and chart.

``knapsack-grid`` (:func:`run_synthetic`): the slides' grid and Poisson stream;
``knapsack-grid-lambda`` (:func:`run_lambda`): the same at three mean inter-arrival times;
``knapsack-grid-swf`` (:func:`run_swf`): the bundled UniLu-Gaia trace;
``knapsack-grid-example`` (:func:`run_example`): the slides' two-task example (Knapsack Grid
slides, "Experimental Evaluation of the Knapsack Strategy", "Two Tasks and Their Options").
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import altair as alt
import pandas as pd

from vosim.allocators.mckp import solve_mckp
from vosim.data import DEFAULT_TRACE, trace_path
from vosim.market.swf import read_swf
from vosim.runs.experiments.base import ExperimentConfig
from vosim.runs.experiments.knapsack_grid.charts import _chart, _example_chart, _lambda_chart
from vosim.runs.experiments.knapsack_grid.compare import _compare
from vosim.runs.experiments.knapsack_grid.setup import (
    COLUMNS,
    EXAMPLE_CAPACITY,
    EXAMPLE_COLUMNS,
    EXAMPLE_OPTIMUM,
    EXAMPLE_TASKS,
    LAMBDAS,
    SLIDES_LAMBDA,
    _poisson,
    trace_clusters,
)
from vosim.runs.experiments.knapsack_grid_simulator import swf_tasks


def run_synthetic(
    config: ExperimentConfig, progress: Callable[[int], None]
) -> tuple[pd.DataFrame, alt.TopLevelMixin]:
    """``knapsack-grid``: the slides' grid and Poisson stream."""
    count = 200 if config.quick else 2000
    table = _compare(config, progress, _poisson(count, SLIDES_LAMBDA))
    title = f"Knapsack Grid: {count} tasks, lambda = 0.64 h, clusters 4/8/16/32 (vosim)"
    return table, _chart(table, title)


def run_lambda(
    config: ExperimentConfig, progress: Callable[[int], None]
) -> tuple[pd.DataFrame, alt.TopLevelMixin]:
    """``knapsack-grid-lambda``: the comparison at each mean inter-arrival time of :data:`LAMBDAS`.

    One strategy per family (FCFS, EASY, gang with 1 h slices, the knapsack and KS+BF with
    policy 1 at ``tau = 1 h``) on the same streams at every ``lambda`` (common random
    numbers: the arrivals are scaled, the tasks the same).

    Parameters
    ----------
    config : ExperimentConfig
        Streams per ``lambda`` (``repetitions``), ``seed``; ``quick``: 200 tasks instead of 2000.
    progress : callable
        Called with 1 after each stream.

    Returns
    -------
    table : pandas.DataFrame
        :data:`COLUMNS` with a first column ``lambda`` (hours): the strategy rows and the
        claims' rows of every ``lambda``.
    chart : altair.LayerChart
        Overall completion time (mean, +-1 sd over streams) against ``lambda`` per family, with
        the claim "KS+BF has the lowest overall completion time" at each ``lambda``.

    References
    ----------
    Knapsack Grid slides, "Grid and Task Model" (Poisson task sequences of mean inter-arrival
    time ``lambda``), "Overall Completion Time of Selected Policies For lambda=0.64hr".
    """
    count = 200 if config.quick else 2000
    one_per_family = dataclasses.replace(config, quick=True)  # strategies(quick=True)
    parts = []
    for lam in LAMBDAS:
        part = _compare(one_per_family, progress, _poisson(count, lam))
        parts.append(part.assign(**{"lambda": lam}))
    table = pd.concat(parts, ignore_index=True).reindex(columns=["lambda", *COLUMNS])
    return table, _lambda_chart(table, count, config.repetitions)


def run_swf(
    config: ExperimentConfig, progress: Callable[[int], None]
) -> tuple[pd.DataFrame, alt.TopLevelMixin]:
    """``knapsack-grid-swf``: the same comparison on the bundled UniLu-Gaia trace."""
    count = 60 if config.quick else 500
    clusters = trace_clusters(DEFAULT_TRACE, owners=4)
    frame = read_swf(trace_path(DEFAULT_TRACE), max_jobs=count)

    def make(rng):
        return swf_tasks(frame, clusters, rng=rng), clusters

    table = _compare(config, progress, make, trace=True)
    title = (
        f"Knapsack Grid on {DEFAULT_TRACE}: first {count} jobs, clusters "
        f"{'/'.join(map(str, clusters))} processors (vosim)"
    )
    return table, _chart(table, title)


def run_example(
    config: ExperimentConfig, progress: Callable[[int], None]
) -> tuple[pd.DataFrame, alt.LayerChart]:
    """The slides' two-task example solved by the multiple-choice knapsack, DP and MILP.

    ``config`` is not read (the example has no randomness); ``progress`` is told of its one
    point.

    Returns
    -------
    table : pandas.DataFrame
        One row per option, columns :data:`EXAMPLE_COLUMNS`: its credit value and processors
        per cluster, whether the exact DP and HiGHS's MILP choose it, their optimum and the
        paper's (20).
    chart : altair.LayerChart
        The options' credit values, the chosen ones filled, with both optima beside the
        paper's.

    References
    ----------
    Knapsack Grid slides, "A Small Example Grid", "Two Tasks and Their Options",
    "Constructing the Problem"; :func:`vosim.allocators.mckp.solve_mckp`.
    """
    values = [[credit for credit, _ in task] for task in EXAMPLE_TASKS]
    demands = [[list(procs) for _, procs in task] for task in EXAMPLE_TASKS]
    solved = {m: solve_mckp(values, demands, EXAMPLE_CAPACITY, method=m) for m in ("dp", "milp")}
    rows = []
    for i, task in enumerate(EXAMPLE_TASKS):
        for j, (credit, (c1, c2)) in enumerate(task):
            rows.append(
                {
                    "task": i + 1,
                    "option": j + 1,
                    "credit": credit,
                    "cluster_1": c1,
                    "cluster_2": c2,
                    "chosen_dp": bool(solved["dp"].choice[i] == j),
                    "chosen_milp": bool(solved["milp"].choice[i] == j),
                    "optimum_dp": solved["dp"].value,
                    "optimum_milp": solved["milp"].value,
                    "paper_optimum": EXAMPLE_OPTIMUM,
                }
            )
    table = pd.DataFrame(rows, columns=EXAMPLE_COLUMNS)
    progress(1)
    return table, _example_chart(table, solved["dp"].value, solved["milp"].value)
