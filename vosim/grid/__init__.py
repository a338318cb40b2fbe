"""Grid of homogeneous clusters with preemptive knapsack allocation (Knapsack Grid slides).

:mod:`~vosim.grid.workload` makes clusters and task streams, :mod:`~vosim.grid.simulator` runs
them event by event, and :mod:`~vosim.grid.strategies` holds FCFS, EASY backfilling, gang
scheduling and the knapsack strategies with utility policies 1-5.

Examples
--------
>>> import numpy as np
>>> from vosim.grid import DEFAULT_CLUSTERS, EASY, poisson_tasks, simulate
>>> tasks = poisson_tasks(np.random.default_rng(0), tasks=50)
>>> r = simulate(tasks, DEFAULT_CLUSTERS, EASY())
>>> len(r.tasks), r.strategy
(50, 'EASY')
"""

from vosim.grid.simulator import GridResult, GridState, Strategy, simulate
from vosim.grid.strategies import (
    EASY,
    FCFS,
    POLICIES,
    Gang,
    Knapsack,
    KnapsackBackfill,
    sigmoid,
    utilities,
)
from vosim.grid.workload import (
    DEFAULT_CLUSTERS,
    GridTask,
    TaskOption,
    TraceTasks,
    check_clusters,
    check_tasks,
    clusters_from_owners,
    make_options,
    option_credit,
    poisson_tasks,
    swf_tasks,
)

__all__ = [
    "DEFAULT_CLUSTERS",
    "EASY",
    "FCFS",
    "POLICIES",
    "Gang",
    "GridResult",
    "GridState",
    "GridTask",
    "Knapsack",
    "KnapsackBackfill",
    "Strategy",
    "TaskOption",
    "TraceTasks",
    "check_clusters",
    "check_tasks",
    "clusters_from_owners",
    "make_options",
    "option_credit",
    "poisson_tasks",
    "sigmoid",
    "simulate",
    "swf_tasks",
    "utilities",
]
