"""What the Knapsack Grid experiments run: strategies, task streams, columns and claims.

The strategies compared (:func:`strategies`, FCFS first), the columns of the tables, the
slides' claims (:data:`CLAIMS`), the Poisson streams of the slides' grid at a mean
inter-arrival time ``lambda`` (:data:`SLIDES_LAMBDA`, :data:`LAMBDAS`), the clusters of the
trace run (:func:`trace_clusters`) and the two tasks of the slides' worked example
(Knapsack Grid slides, "Grid and Task Model", "Two Tasks and Their Options").
"""

from __future__ import annotations

from functools import partial

from vosim.allocators.mckp import solve_mckp
from vosim.data import DEFAULT_TRACE, trace_path
from vosim.market.swf import header_int, read_swf
from vosim.runs.experiments.knapsack_grid_simulator import (
    DEFAULT_CLUSTERS,
    EASY,
    FCFS,
    Gang,
    Knapsack,
    KnapsackBackfill,
    poisson_tasks,
)

#: Seconds HiGHS may spend on one knapsack cycle of the trace run (its clusters are too large
#: for the DP); a cycle that hits it runs HiGHS's best choice so far and is counted in
#: ``suboptimal_cycles``. One cycle of the Gaia run took 11 minutes without a limit.
MILP_TIME_LIMIT = 10.0

#: Columns of both tables.
COLUMNS = [
    "kind",
    "strategy",
    "family",
    "policy",
    "tau",
    "overall_completion_time",
    "overall_completion_time_std",
    "mean_turnaround",
    "mean_speedup",
    "median_speedup",
    "speedup_p10",
    "speedup_p25",
    "speedup_p75",
    "speedup_p90",
    "credit_speedup_correlation",
    "preemptions_per_task",
    "mean_solve_ms",
    "max_solve_ms",
    "wall_seconds",
    "suboptimal_cycles",
    "tasks",
    "repetitions",
    "claim",
    "holds",
    "streams_holding",
]
#: Quantiles of the per-task speedup over the tasks of every stream: column -> quantile.
SPEEDUP_QUANTILES = {
    "speedup_p10": 0.1,
    "speedup_p25": 0.25,
    "median_speedup": 0.5,
    "speedup_p75": 0.75,
    "speedup_p90": 0.9,
}

#: The slides' claims (see the package docstring).
CLAIMS = (
    "KS+BF has the lowest overall completion time",
    "knapsack does better than gang",
    "knapsack gives the largest task speedup",
    "QoS policies favour high-value tasks without raising overall completion time",
)


def strategies(quick: bool, trace: bool = False) -> list:
    """The strategies compared, FCFS first (the speedup baseline).

    ``trace``: the shorter list of the SWF run, where every knapsack cycle is a MILP.
    """
    if quick:
        return [FCFS(), EASY(), Gang(1.0), Knapsack(1, 1.0), KnapsackBackfill(1, 1.0)]
    if trace:
        limited = partial(solve_mckp, time_limit=MILP_TIME_LIMIT)
        return [
            FCFS(),
            EASY(),
            Gang(1.0),
            Knapsack(1, 1.0, solver=limited),
            Knapsack(2, 1.0, solver=limited),
            KnapsackBackfill(1, 1.0, solver=limited),
        ]
    return [
        FCFS(),
        EASY(),
        Gang(1.0),
        Gang(10.0),
        *(Knapsack(p, 1.0) for p in (1, 2, 3, 4, 5)),
        Knapsack(1, 0.25),
        Knapsack(1, 4.0),
        KnapsackBackfill(1, 1.0),
        KnapsackBackfill(5, 1.0),
    ]


def _family(strategy) -> str:
    if isinstance(strategy, KnapsackBackfill):
        return "KS+BF"
    if isinstance(strategy, Knapsack):
        return "KS"
    if isinstance(strategy, Gang):
        return "gang"
    return {"FCFS": "FCFS", "EASY": "BF"}[strategy.name]


def trace_clusters(trace: str = DEFAULT_TRACE, owners: int = 4) -> tuple[int, ...]:
    """Processors per owner when ``owners`` share the trace's ``MaxProcs`` in equal blocks.

    Raises
    ------
    ValueError
        The trace header names no ``MaxProcs``.
    """
    header = read_swf(trace_path(trace), max_jobs=1).attrs.get("header", {})
    procs = header_int(header, "MaxProcs")
    if not procs:
        raise ValueError(f"trace {trace!r} has no MaxProcs in its header")
    return tuple(procs // owners + (1 if k < procs % owners else 0) for k in range(owners))


#: The slides' mean inter-arrival time, hours ("Overall Completion Time ... For lambda=0.64hr").
SLIDES_LAMBDA = 0.64
#: The sweep of ``knapsack-grid-lambda``: half, the slides' and double. The slides name a
#: chart "For lambda = 0.64 hr", which implies others; they give no other value, so these are
#: vosim's, chosen before any run.
LAMBDAS = (0.32, 0.64, 1.28)


def _poisson(count: int, mean_interarrival: float):
    """The task maker of the slides' grid: ``count`` Poisson tasks at ``mean_interarrival`` h."""

    def make(rng):
        tasks = poisson_tasks(
            rng, DEFAULT_CLUSTERS, tasks=count, mean_interarrival=mean_interarrival
        )
        return tasks, DEFAULT_CLUSTERS

    return make


#: "Two Tasks and Their Options": credit values and processors (cluster 1, cluster 2) of each
#: option; clusters of 16 and 8 processors ("A Small Example Grid", "Constructing the Problem").
EXAMPLE_TASKS = (
    ((10.0, (8, 0)), (2.0, (2, 0)), (9.0, (4, 4))),
    ((11.0, (10, 0)), (2.0, (0, 1))),
)
#: Free processors of the example's two clusters.
EXAMPLE_CAPACITY = (16, 8)
#: The example's optimum: task 1's third option with task 2's first (``$9 + $11``); the slides
#: build the problem and leave it to be solved, and 20 is its optimum.
EXAMPLE_OPTIMUM = 20.0
#: The options (1-based, per task) that reach :data:`EXAMPLE_OPTIMUM`: the only feasible pair
#: worth 20 (task 1's options 1 and 2 leave 13 at most).
EXAMPLE_CHOICE = (3, 1)
#: Columns of the example's table.
EXAMPLE_COLUMNS = [
    "task",
    "option",
    "credit",
    "cluster_1",
    "cluster_2",
    "chosen_dp",
    "chosen_milp",
    "optimum_dp",
    "optimum_milp",
    "paper_optimum",
]
