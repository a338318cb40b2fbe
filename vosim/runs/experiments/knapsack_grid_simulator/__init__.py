"""The simulator of the Knapsack Grid slides' preemptive experiment, and nothing else.

The experiments ``knapsack-grid`` and ``knapsack-grid-swf``
(:mod:`vosim.runs.experiments.knapsack_grid`) reproduce the slides' comparison on the slides'
own grid, which is not the VO: homogeneous clusters, time in hours, tasks with several
allocation options, and a *preemptive* allocator that may stop a running task and resume it
later on any option. This package is that grid, kept only as far as the two experiments (and
``benchmarks/bench_grid.py``) use it:

* :mod:`.workload` -- clusters, tasks with options, the slides' Poisson stream and tasks from
  an SWF trace;
* :mod:`.simulator` -- the event-driven, preemptive simulation of a stream under a strategy;
* :mod:`.strategies` -- FCFS, EASY backfilling, gang scheduling, the knapsack and KS+BF.

The rules it shares with the VO's scheduling are not copied here: the option layouts, credit
values and utility policies 1-5 are :mod:`vosim.policies.knapsack_rules` (as the VO's knapsack
policies, :mod:`vosim.policies.knapsack`, apply them), and the knapsack is solved by
:func:`vosim.allocators.mckp.solve_mckp`. The VO's own FCFS, EASY and knapsack policies are in
:mod:`vosim.policies`; use those for anything but this experiment.

References
----------
Parra-Hernandez, Vanderster, Dimopoulos, *Resource Management and Knapsack Formulations on the
Grid* (Knapsack Grid slides), "Grid and Task Model", "Assumptions and Definitions" and
"Allocation Strategies Used".

Examples
--------
>>> import numpy as np
>>> from vosim.runs.experiments.knapsack_grid_simulator import EASY, poisson_tasks, simulate
>>> tasks = poisson_tasks(np.random.default_rng(0), tasks=50)
>>> r = simulate(tasks, (4, 8, 16, 32), EASY())
>>> len(r.tasks), r.strategy
(50, 'EASY')
"""

from vosim.runs.experiments.knapsack_grid_simulator.simulator import (
    GridResult,
    GridState,
    Strategy,
    simulate,
)
from vosim.runs.experiments.knapsack_grid_simulator.strategies import (
    EASY,
    FCFS,
    Gang,
    Knapsack,
    KnapsackBackfill,
)
from vosim.runs.experiments.knapsack_grid_simulator.workload import (
    DEFAULT_CLUSTERS,
    GridTask,
    TaskOption,
    poisson_tasks,
    swf_tasks,
)

__all__ = [
    "DEFAULT_CLUSTERS",
    "EASY",
    "FCFS",
    "Gang",
    "GridResult",
    "GridState",
    "GridTask",
    "Knapsack",
    "KnapsackBackfill",
    "Strategy",
    "TaskOption",
    "poisson_tasks",
    "simulate",
    "swf_tasks",
]
