"""What the AEP experiments run on: the algorithms, the grids and the domains.

The algorithms of Figs. 1-3 and Tables 1-2 and their names in the paper, the window metrics,
the grids of Tables 1-2 (CPU nodes, interval lengths), the columns of both tables, and the
domain of a grid point of Table 2 (:func:`aep_table_domain`, local jobs scaled with the
interval; AEP §3.1-3.2).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from vosim.market.domains import Domain, aep_domain

Progress = Callable[[int], None]

#: Algorithms of Figs. 1-3: the paper's six (§3.1) and its own minRuntime/minFinish procedures.
FIG1_3_ALGORITHMS = (
    "amp",
    "amp_paper",
    "min_finish",
    "min_cost",
    "min_runtime",
    "min_proc_time",
    "csa",
    "csa_paper",
    "min_runtime_substitution",
    "min_finish_substitution",
)
#: The CSA variants and the AMP each repeats: vosim's and the paper's (AEP §2.2, §3.1).
CSA_VARIANTS = {"csa": "amp", "csa_paper": "amp_paper"}
#: Algorithms timed for Tables 1-2 (the paper's rows, plus its own procedures).
TIME_ALGORITHMS = (
    "amp",
    "amp_paper",
    "min_runtime",
    "min_finish",
    "min_proc_time",
    "min_cost",
    "csa",
    "csa_per_alternative",
    "csa_paper",
    "csa_paper_per_alternative",
    "min_runtime_substitution",
    "min_finish_substitution",
)
#: Key of each CSA variant's mean number of alternatives in :func:`time_algorithms`' output.
ALTERNATIVES_KEYS = {"csa": "alternatives", "csa_paper": "csa_paper_alternatives"}
#: The paper's name of each algorithm (legends and the ``label`` column).
LABELS = {
    "amp": "AMP",
    "amp_paper": "AMP (paper)",
    "min_finish": "minFinish",
    "min_cost": "minCost",
    "min_runtime": "minRuntime",
    "min_proc_time": "minProcTime",
    "csa": "CSA",
    "csa_per_alternative": "CSA per alternative",
    "csa_paper": "CSA (paper)",
    "csa_paper_per_alternative": "CSA (paper) per alternative",
    "min_runtime_substitution": "minRuntime (paper's procedure)",
    "min_finish_substitution": "minFinish (paper's procedure)",
}
#: What each algorithm is, in vosim (the ``kind`` column of Figs. 1-3).
KINDS = {
    "amp": "AEP, exact",
    "amp_paper": "paper's procedure",
    "min_finish": "AEP, exact",
    "min_cost": "AEP, exact",
    "min_runtime": "AEP, exact",
    "min_proc_time": "AEP, heuristic",
    "csa": "CSA, best alternative",
    "csa_paper": "CSA on the paper's AMP, best alternative",
    "min_runtime_substitution": "paper's procedure",
    "min_finish_substitution": "paper's procedure",
}
#: The paper's procedures and the algorithm of the paper whose reported values they share.
PAPER_PROCEDURES = {
    "amp_paper": "amp",
    "csa_paper": "csa",
    "csa_paper_per_alternative": "csa_per_alternative",
    "min_runtime_substitution": "min_runtime",
    "min_finish_substitution": "min_finish",
}
#: Window characteristics of Figs. 1-3 (model time units; cost in price x time).
METRICS = ("start", "runtime", "finish", "cpu_time", "cost")

#: Columns of the ``aep-fig1-3`` table: one row per (algorithm, metric).
FIG1_3_COLUMNS = [
    "algorithm",
    "label",
    "kind",
    "metric",
    "mean",
    "std",
    "paper",
    "found_share",
    "repetitions",
]

#: Columns of the ``aep-table1-2`` table: one row per (table, grid point, algorithm).
TABLE1_2_COLUMNS = [
    "table",
    "nodes",
    "interval",
    "algorithm",
    "label",
    "ms",
    "paper_ms",
    "ratio",
    "slots",
    "paper_slots",
    "alternatives",
    "paper_alternatives",
    "csa_paper_alternatives",
    "repetitions",
]

#: Table 1: CPU node counts at interval 600.
TABLE1_NODES = (50, 100, 200, 300, 400)
TABLE1_INTERVAL = 600
#: Table 2: interval lengths at 100 nodes.
TABLE2_INTERVALS = (600, 1200, 1800, 2400, 3000, 3600)
TABLE2_NODES = 100

#: Keys of the domain streams (see ExperimentConfig.rngs).
_KEY_FIG1_3, _KEY_TABLE1, _KEY_TABLE2 = 2013_13, 2013_1, 2013_2
#: Length of the paper's base scheduling interval, model time units.
_BASE_INTERVAL = 600.0


def aep_table_domain(
    rng: np.random.Generator, *, nodes: int = 100, interval: float = 600.0
) -> Domain:
    """An AEP domain whose local job count grows with the interval (Table 2).

    Parameters
    ----------
    rng : numpy.random.Generator
        The only source of randomness.
    nodes : int
        Number of CPU nodes (>= 1).
    interval : float
        Length of the scheduling interval ``[0, interval)``, model time units (> 0).

    Returns
    -------
    Domain
        :func:`~vosim.market.domains.aep_domain` with ``local_jobs = (2 k, 6 k)`` local jobs per
        node for ``k = interval / 600`` (rounded, at least 1): the default domain at 600, and
        the same density and lengths of local jobs on longer intervals.

    References
    ----------
    AEP §3.2, Table 2: the number of slots grows linearly with the interval length.

    Examples
    --------
    >>> short = aep_table_domain(np.random.default_rng(1), interval=600.0)
    >>> long = aep_table_domain(np.random.default_rng(1), interval=3600.0)
    >>> 5 < len(long.slots) / len(short.slots) < 7
    True
    """
    k = max(1, round(float(interval) / _BASE_INTERVAL))
    return aep_domain(rng, nodes=nodes, interval=interval, local_jobs=(2 * k, 6 * k))


def _table1_2_grid(quick: bool) -> tuple[tuple[int, ...], tuple[int, ...]]:
    if quick:
        return TABLE1_NODES[:2], TABLE2_INTERVALS[:2]
    return TABLE1_NODES, TABLE2_INTERVALS
