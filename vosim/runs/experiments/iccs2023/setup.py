"""ICCS 2023's methods, instances and worked example: what every figure shares.

The methods compared (:data:`SMALL_METHODS`, :data:`LARGE_METHODS`, :data:`TREE_METHODS`) and
their names, the columns of the tables, the worked example of Fig. 2 with the paper's values,
and the random instances of an experiment.
"""

from __future__ import annotations

from vosim.market.event_chains import EventChain
from vosim.market.iccs_generators import random_groups
from vosim.runs.experiments.base import ExperimentConfig

#: Methods of §3.2 (N = 21), in the paper's order, plus vosim's exact DP.
SMALL_METHODS = ("brute_force", "knapsack_group", "greedy", "greedy_plus", "knapsack_p", "exact")
#: Methods of §3.3 (N = 200): BruteForce is impractical there.
LARGE_METHODS = SMALL_METHODS[1:]
#: The §2.4 branch and bound methods, which report a tree size.
TREE_METHODS = ("knapsack_group", "greedy", "greedy_plus")
#: The paper's name of each method (legend of the charts).
LABELS = {
    "brute_force": "BruteForce",
    "knapsack_group": "KnapsackGroup",
    "greedy": "Greedy",
    "greedy_plus": "Greedy+",
    "knapsack_p": "KnapsackSingle",
    "exact": "Exact (group DP)",
}
#: Columns of the tables of Figs. 4-8 (``n`` and ``C`` are the figure's axes).
COLUMNS = [
    "n",
    "C",
    "method",
    "label",
    "mean_probability",
    "std_probability",
    "mean_seconds",
    "repetitions",
    "feasible_share",
    "found_share",
    "optimal_share",
    "mean_tree_size",
    "median_tree_size",
]

#: Fig. 1's two jobs on one resource: allocation expected at 85 and 844, execution from 133
#: and 921, release expected at 545 and 1250 (the paper's times). The execution ends (450,
#: 1150) and the standard deviations are vosim's: the paper gives neither, and neither changes
#: the example (``P_o`` is 0.5 at an expected time whatever its spread).
FIG2_JOBS = (
    EventChain(133, 450, alloc_time=85, alloc_sd=16, release_time=545, release_sd=40),
    EventChain(921, 1150, alloc_time=844, alloc_sd=25, release_time=1250, release_sd=60),
)
#: Fig. 1's global utilization events: a total occupation probability of 0.06.
FIG2_GLOBAL_P = 0.06
#: The interval of Fig. 2 (the dotted rectangle): ``T = [545; 844]``.
FIG2_INTERVAL = (545.0, 844.0)
#: §2.1: ``P_a(e_1) = P_a(e_2) = 0.5``, ``P_a(e_3) = 0.94``, ``P_a^r = 0.235``.
FIG2_PAPER = {"release at 545": 0.5, "allocation at 844": 0.5, "global": 0.94, "P_a^r": 0.235}
#: Columns of the Fig. 2 table.
FIG2_COLUMNS = ["event", "max_p_occupied", "p_available", "paper_p_available"]


def _instances(config: ExperimentConfig, key: int, N: int, G: int) -> list[tuple]:
    """The ``config.repetitions`` random instances of one experiment (the same at every point)."""
    return [random_groups(N, G, rng) for rng in config.rngs(key)]
