"""The simulation study of ICCS 2023 (group dependencies): Figs. 4-8 as named experiments.

Toporkov, Yemelyanov, Tselishchev, *Allocation of Distributed Resources with Group Dependencies
and Availability Uncertainties*, ICCS 2023 (``group-dependencies-iccs2023.md``), §3:

``iccs2023-fig2``
    Fig. 2 (§2.1): the worked example, one resource's availability over ``[545, 844]`` between
    two jobs' release and allocation events and the global events: ``0.5 x 0.5 x 0.94 =
    0.235``.
``iccs2023-fig4-5``
    Figs. 4 and 5 (§3.2): ``N = 21`` resources in ``G = 8`` groups, no cost limit
    (``C = sum c_i``), ``n = 1..21``: mean window availability ``P_a^w`` (eq. 3) and mean
    calculation time of BruteForce, KnapsackGroup, Greedy, Greedy+, KnapsackSingle and vosim's
    exact multiple-choice DP.
``iccs2023-fig6``
    Fig. 6 (§3.2): ``N = 21``, ``G = 8``, ``n = 8``, budget ``C = 30, 40, ..., 120``.
``iccs2023-fig7-8``
    Figs. 7 and 8 (§3.3): ``N = 200``, ``G = 40``, ``n = 20``, ``C = 40, 60, ..., 220``, without
    BruteForce; with the mean and median tree sizes of the branch and bound methods (the paper:
    "almost 5000" for KnapsackGroup at ``C = 40``, "nearly 100" at ``C = 120``).

What the paper leaves open and what is chosen here:

* **Instances.** "Randomized characteristics c_i, p_i and group dependencies", no distribution
  given. :func:`vosim.market.iccs_generators.random_groups` (its docstring derives each choice
  from the text): integer costs in ``{2, ..., 10}`` for the whole reservation that rise with
  the group's availability (the paper's budget statements say the most available resources
  are the dearest), group availabilities uniform in ``[0.47, 0.94]`` (the occupation
  probabilities of its Fig. 1), a uniformly random partition with every group non-empty.
* **Common random numbers.** Repetition ``r`` uses the same instance at every point of a
  figure (every ``n`` of Figs. 4-5, every ``C`` of Figs. 6-8), so the curves compare the same
  instances.
* **Repetitions.** The paper does not say how many instances it averaged; defaults here are
  20-30 per point so that each experiment finishes in a few minutes on two cores.
* **Reported values** (over the *feasible* instances of each point, those where a window
  within ``C`` exists; ``feasible_share`` is their share): means of the eq. (3) availability
  of each method's selection, its sample standard deviation, the mean wall time of
  :func:`~vosim.allocators.availability_problem.allocate_resources` (``stats["seconds"]``), the
  share where
  the method finds a window (``found_share``) and where it reaches the optimum of ``exact``
  (relative tolerance 1e-9) and, for the branch and bound methods, the mean and median
  ``tree_size`` (candidate solutions created, the root included), Fig. 8's point.

The package: :mod:`~vosim.runs.experiments.iccs2023.setup` (the methods, the instances, the
worked example of Fig. 2, the tables' columns), :mod:`~vosim.runs.experiments.iccs2023.run`
(``run_*``: each experiment's table), :mod:`~vosim.runs.experiments.iccs2023.charts` (each
table's chart) and :mod:`~vosim.runs.experiments.iccs2023.fidelity` (the paper's statements on
Figs. 4-8 and ``fidelity_*``, which compare them with vosim's); importing it registers the
four experiments.
"""

from __future__ import annotations

from vosim.runs.experiments.base import Experiment, register_experiment
from vosim.runs.experiments.iccs2023.fidelity import (
    FIG4_PAPER_SINGLE_GAP,
    FIG5_PAPER_BRUTE,
    FIG5_PAPER_BRUTE_PEAK,
    FIG5_PAPER_SPEEDUPS,
    FIG6_PAPER_GREEDY_GAP,
    FIG6_PAPER_GREEDY_OPTIMAL_ABOVE,
    FIG6_PAPER_SINGLE_ADVANTAGE,
    FIG7_PAPER_GREEDY_BEATS_SINGLE_ABOVE,
    FIG7_PAPER_GREEDY_LOSS,
    FIG7_PAPER_SINGLE_GAP,
    FIG8_PAPER_SECONDS,
    FIG8_PAPER_TREE,
    fidelity_fig2,
    fidelity_fig4_5,
    fidelity_fig6,
    fidelity_fig7_8,
)
from vosim.runs.experiments.iccs2023.run import (
    _fig4_5_grid,
    _fig6_grid,
    _fig7_8_grid,
    run_fig2,
    run_fig4_5,
    run_fig6,
    run_fig7_8,
)
from vosim.runs.experiments.iccs2023.setup import (
    COLUMNS,
    FIG2_COLUMNS,
    FIG2_PAPER,
    LABELS,
    LARGE_METHODS,
    SMALL_METHODS,
    TREE_METHODS,
)

__all__ = [
    "COLUMNS",
    "LABELS",
    "SMALL_METHODS",
    "LARGE_METHODS",
    "TREE_METHODS",
    "FIG2_COLUMNS",
    "FIG2_PAPER",
    "FIG4_PAPER_SINGLE_GAP",
    "FIG5_PAPER_BRUTE",
    "FIG5_PAPER_BRUTE_PEAK",
    "FIG5_PAPER_SPEEDUPS",
    "FIG6_PAPER_SINGLE_ADVANTAGE",
    "FIG6_PAPER_GREEDY_GAP",
    "FIG6_PAPER_GREEDY_OPTIMAL_ABOVE",
    "FIG7_PAPER_GREEDY_LOSS",
    "FIG7_PAPER_SINGLE_GAP",
    "FIG7_PAPER_GREEDY_BEATS_SINGLE_ABOVE",
    "FIG8_PAPER_TREE",
    "FIG8_PAPER_SECONDS",
    "fidelity_fig2",
    "fidelity_fig4_5",
    "fidelity_fig6",
    "fidelity_fig7_8",
]

FIG4_5 = register_experiment(
    Experiment(
        name="iccs2023-fig4-5",
        description=(
            "ICCS 2023 Figs. 4-5: P_a^w and time vs n = 1..21 (N = 21, G = 8, no cost limit), "
            "BruteForce, KnapsackGroup, Greedy, Greedy+, KnapsackSingle, exact DP; "
            "20 instances per point by default (the paper does not say how many)"
        ),
        default_repetitions=20,
        quick_repetitions=2,
        run=run_fig4_5,
        points=lambda quick: len(_fig4_5_grid(quick)),
        fidelity=fidelity_fig4_5,
    )
)

FIG6 = register_experiment(
    Experiment(
        name="iccs2023-fig6",
        description=(
            "ICCS 2023 Fig. 6: P_a^w vs budget C = 30..120 (N = 21, G = 8, n = 8), all methods "
            "with BruteForce; 30 instances per point by default"
        ),
        default_repetitions=30,
        quick_repetitions=2,
        run=run_fig6,
        points=lambda quick: len(_fig6_grid(quick)),
        fidelity=fidelity_fig6,
    )
)

FIG7_8 = register_experiment(
    Experiment(
        name="iccs2023-fig7-8",
        description=(
            "ICCS 2023 Figs. 7-8: P_a^w, time and tree size vs budget C = 40..220 (N = 200, "
            "G = 40, n = 20), no BruteForce; 20 instances per point by default"
        ),
        default_repetitions=20,
        quick_repetitions=2,
        run=run_fig7_8,
        points=lambda quick: len(_fig7_8_grid(quick)),
        fidelity=fidelity_fig7_8,
    )
)

FIG2 = register_experiment(
    Experiment(
        name="iccs2023-fig2",
        description=(
            "ICCS 2023 Fig. 2: the worked example, a resource's availability over [545, 844] "
            "between two jobs and global events (paper: 0.5 x 0.5 x 0.94 = 0.235)"
        ),
        default_repetitions=1,
        quick_repetitions=1,
        run=run_fig2,
        points=lambda quick: 1,
        fidelity=fidelity_fig2,
    )
)
