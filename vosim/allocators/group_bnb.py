"""Branch and bound over resource groups: KnapsackGroup, Greedy and Greedy+ (ICCS 2023 §2.4).

A candidate solution ``S`` fixes which groups must be used (``G+``) and which must not
(``G-``); the others (``G0``) are open. Its relaxation is an eq. (2) problem without groups
(step 2): the cheapest resource of each ``G+`` group is put into the window with the group's
availability, the other resources of ``G+`` groups enter with ``p = 1``, and every resource of
an open group of ``k`` resources enters with ``p = P_G ** (1/k)``, so that ``k`` of them
together are worth ``P_G``. The relaxation is solved by KnapsackP (*KnapsackGroup*) or
GreedyUnited (*Greedy*, *Greedy+*). A window drawn only from ``G+`` groups is a *valid*
solution whose eq. (2) value is its eq. (3) availability; otherwise the search splits on an
open group that the window uses. Candidates wait in a max-heap keyed by their parent's
relaxation value; the first valid solution popped is the answer.
"""

from __future__ import annotations

import heapq
import itertools
import math
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from vosim.allocators.availability_problem import (
    AvailabilityProblem,
    AvailabilityResult,
    infeasible,
    make_result,
    register_method,
)
from vosim.allocators.greedy import BUDGET_RTOL, _united
from vosim.allocators.knapsack import _select, integer_costs
from vosim.core.results import Status

__all__ = ["MAX_EXPANSIONS", "knapsack_group", "greedy", "greedy_plus", "group_branch_and_bound"]

#: Group states in a candidate solution.
_OPEN, _PLUS, _MINUS = 0, 1, -1
#: Expansions after which the search stops and returns the best window seen (see
#: :func:`group_branch_and_bound`). The §3.3 instances (N = 200, G = 40) need a few thousand,
#: rarely tens of thousands at C = 40 (about 0.2 ms each); G = 400 at a tight budget can
#: exceed it.
MAX_EXPANSIONS = 100_000
#: Order in which S- and S+ are pushed (on equal keys the last pushed is popped first).
_CHILD_ORDER = (_MINUS, _PLUS)
#: Solvers of the relaxation, by name.
SOLVERS = ("knapsack", "greedy")

Solver = Callable[[np.ndarray, np.ndarray, int, float], "np.ndarray | None"]


@dataclass(frozen=True)
class _Groups:
    """Group structure shared by every node of one search."""

    group: np.ndarray  # (N,) group of each resource
    group_p: np.ndarray  # (G,) P_G
    relaxed: np.ndarray  # (G,) P_G ** (1/k): the availability of one of k open resources
    cheapest: np.ndarray  # (G,) the group's cheapest resource (lowest index on ties); -1: empty
    not_cheapest: np.ndarray  # (N,) whether a resource is not its group's cheapest
    resource_relaxed: np.ndarray  # (N,) relaxed[group]
    p_list: list  # group_p as Python floats (split-group choice)


def _groups(problem: AvailabilityProblem) -> _Groups:
    size = np.bincount(problem.group, minlength=problem.G)
    order = np.lexsort((np.arange(problem.N), problem.cost, problem.group))
    first = np.r_[True, problem.group[order][1:] != problem.group[order][:-1]]
    cheapest = np.full(problem.G, -1, dtype=np.int64)
    cheapest[problem.group[order][first]] = order[first]
    not_cheapest = np.ones(problem.N, dtype=bool)
    not_cheapest[order[first]] = False
    relaxed = problem.group_p ** (1.0 / np.maximum(size, 1))
    return _Groups(
        problem.group,
        problem.group_p,
        relaxed,
        cheapest,
        not_cheapest,
        relaxed[problem.group],
        problem.group_p.tolist(),
    )


@dataclass(frozen=True)
class _Relaxation:
    """Step 3's window for one candidate: forced, chosen, key, and the open groups it uses."""

    window: np.ndarray  # (n,) resource indices, unsorted
    key: float  # eq. (2) value with the relaxed p's: an upper estimate of the subtree
    value: float  # the window's own eq. (3) availability (a feasible selection)
    open_used: list  # the G0 group of each window resource in an open group


def _relax(
    gs: _Groups, state: np.ndarray, cost: np.ndarray, budget: float, n: int, solve: Solver
) -> _Relaxation | None:
    """Steps 2-3 for the candidate with group states ``state``; ``None`` if nothing fits."""
    plus = np.flatnonzero(state == _PLUS)
    rest_n = n - plus.size
    if rest_n < 0:
        return None
    forced = gs.cheapest[plus]  # step 2b: the cheapest resource of each G+ group
    rest_budget = budget - float(cost[forced].sum())
    if rest_budget < 0:
        return None
    where = state[gs.group]
    pool = np.flatnonzero((where == _OPEN) | ((where == _PLUS) & gs.not_cheapest))
    p = np.where(where[pool] == _PLUS, 1.0, gs.resource_relaxed[pool])  # steps 2b, 2c
    picked = solve(cost[pool], p, rest_n, rest_budget)  # step 3
    if picked is None:
        return None
    chosen = pool[picked]
    plus_p = float(np.prod(gs.group_p[plus]))
    key = plus_p * float(np.prod(p[picked]))
    used = gs.group[chosen][where[chosen] == _OPEN].tolist()
    value = plus_p * math.prod(gs.p_list[g] for g in set(used))
    return _Relaxation(np.concatenate((forced, chosen)), key, value, used)


def _branch_group(gs: _Groups, relax: _Relaxation) -> int:
    """Step 4b's split group: the least available open group the window uses.

    Ties: the group with more resources in the window, then the lower index.
    """
    counts = Counter(relax.open_used)
    return min(counts, key=lambda g: (gs.p_list[g], -counts[g], g))


def group_branch_and_bound(
    problem: AvailabilityProblem,
    solver: str = "knapsack",
    max_expansions: int | None = None,
    time_limit: float | None = None,
) -> tuple[np.ndarray | None, np.ndarray | None, dict]:
    """Run the §2.4 branch and bound; return (window, final group states, stats).

    Parameters
    ----------
    problem : AvailabilityProblem
        Costs ``(N,)`` (money), groups ``(N,)``, group availabilities ``(G,)``, ``n``, budget.
    solver : {"knapsack", "greedy"}
        Step 3's direct method: KnapsackP (exact relaxations, integer costs by
        :func:`~vosim.allocators.knapsack.integer_costs`) or GreedyUnited (real costs).
    max_expansions : int, optional
        Safety limit on relaxations solved (default :data:`MAX_EXPANSIONS`). When reached,
        the search stops and returns the best window (by eq. 3) of all candidates relaxed so
        far, with ``stats["truncated"] = True``; every such window fits the budget.
    time_limit : float, optional
        Wall-clock seconds (> 0) after which the search stops in the same way, checked
        before each expansion after the root's (the root is always relaxed, so a window is
        found whenever one fits). ``None`` (default): no time limit.

    Returns
    -------
    window : numpy.ndarray of int64, shape (n,), or None
        Sorted resource indices of the valid solution popped first; ``None`` when no ``n``
        resources fit the budget.
    state : numpy.ndarray of int8, shape (G,), or None
        The final candidate's group states: 1 (``G+``), -1 (``G-``), 0 (``G0``); ``None``
        when infeasible or truncated.
    stats : dict
        ``tree_size``: candidate solutions created (the root ``S0`` plus two per split),
        ``expanded``: candidates popped and relaxed (steps 2-4), ``splits``, ``cost_scale``,
        ``exact_costs`` (whether the integer costs are exact), ``truncated``; when truncated
        also ``bound``, the largest key left in the heap (with KnapsackP an upper bound of
        the optimum).

    Raises
    ------
    ValueError
        Unknown ``solver``, ``max_expansions < 1`` or ``time_limit <= 0``.
    ProblemError
        The KnapsackP table would be too large (see
        :func:`~vosim.allocators.knapsack.knapsack_select`).

    References
    ----------
    ICCS 2023 §2.4, steps 1-5; §3.1 (KnapsackGroup, Greedy).

    Notes
    -----
    Choices where the paper is silent:

    * split group (step 4b): of the open groups the window uses, the least available one
      (then the one with most resources in the window, then the lowest index). On the §3.3
      instances this gave the smallest trees of six rules tried (about 2x smaller than
      "first group used" or "most resources in the window" at ``C = 40``);
    * heap order: the higher key first; on equal keys a valid solution first, then the most
      recently created candidate (depth first), ``S+`` before ``S-`` (``S-`` is pushed
      first). The root's key (the paper's ``-inf``) is irrelevant as it is alone.
    * an empty group never matters; a group with ``P_G = 0`` relaxes to ``p = 0``.

    Each expansion costs one relaxation: O(N·n·C) with KnapsackP, O(N log N) with
    GreedyUnited. The tree can grow exponentially in ``G`` in the worst case; tight budgets
    make it larger (ICCS 2023 §3.3), and with GreedyUnited, whose values are not bounds, it
    can grow far beyond KnapsackGroup's (hence ``max_expansions``; at N = 200, G = 40 only
    the hardest tight-budget instances come within a factor of three of it).

    Examples
    --------
    >>> prob = AvailabilityProblem(cost=[1, 1, 1], group=[0, 0, 1], group_p=[0.5, 0.8], n=2,
    ...                            budget=2)
    >>> window, state, stats = group_branch_and_bound(prob)
    >>> window.tolist(), state.tolist(), stats["tree_size"], stats["expanded"]
    ([0, 1], [1, 0], 3, 3)
    """
    if solver == "knapsack":
        ic = integer_costs(problem.cost, problem.budget)
        cost, budget, scale, exact = ic.cost, ic.budget, ic.scale, ic.exact

        def solve(c, p, k, b):
            return _select(c, p, k, b)

    elif solver == "greedy":
        cost, scale, exact = problem.cost, 1, True
        budget = problem.budget * (1 + BUDGET_RTOL)

        def solve(c, p, k, b):
            return _united(c, p, k, b / (1 + BUDGET_RTOL))[0]

    else:
        raise ValueError(f"solver must be one of {', '.join(SOLVERS)}; got {solver!r}")
    limit = MAX_EXPANSIONS if max_expansions is None else max_expansions
    if limit < 1:
        raise ValueError(f"max_expansions must be >= 1, got {limit}")
    if time_limit is not None and not time_limit > 0:
        raise ValueError(f"time_limit must be > 0 seconds or None, got {time_limit!r}")
    deadline = None if time_limit is None else time.perf_counter() + time_limit
    gs = _groups(problem)
    seq = itertools.count()
    # Entries: (-key, 0 for a valid solution / 1 for a candidate, -sequence, payload, state).
    root_key = -math.inf  # the paper's key of S0 (G0 = G); irrelevant, S0 is alone
    heap: list = [(-root_key, 1, -next(seq), None, np.zeros(problem.G, dtype=np.int8))]
    created, expanded = 1, 0
    best: tuple[float, float, np.ndarray] | None = None  # best window seen: (value, -cost, w)

    def stats(**extra) -> dict:
        out = {"tree_size": created, "expanded": expanded, "splits": (created - 1) // 2}
        return {**out, "cost_scale": scale, "exact_costs": exact, **extra}

    while heap:
        if heap[0][1] == 0:  # step 1: a valid solution on top of the heap is optimal
            _, _, _, window, state = heapq.heappop(heap)
            return np.sort(window), state, stats(truncated=False)
        if expanded >= limit or (
            deadline is not None and expanded and time.perf_counter() >= deadline
        ):
            bound = -heap[0][0]
            return np.sort(best[2]), None, stats(truncated=True, bound=bound)
        _, _, _, _, state = heapq.heappop(heap)
        expanded += 1
        relax = _relax(gs, state, cost, budget, problem.n, solve)
        if relax is None:  # no window fits this candidate's group states: prune
            continue
        spent = float(problem.cost[relax.window].sum())
        if best is None or (relax.value, -spent) > best[:2]:
            best = (relax.value, -spent, relax.window)
        if not relax.open_used:  # step 4a: only G+ groups, a valid solution
            heapq.heappush(heap, (-relax.key, 0, -next(seq), relax.window, state))
            continue
        g = _branch_group(gs, relax)  # step 4b: split into S- and S+
        for mark in _CHILD_ORDER:
            child = state.copy()
            child[g] = mark
            heapq.heappush(heap, (-relax.key, 1, -next(seq), None, child))
        created += 2
    return None, None, stats(truncated=False)


@register_method("knapsack_group")
def knapsack_group(
    problem: AvailabilityProblem,
    *,
    max_expansions: int | None = None,
    time_limit: float | None = None,
) -> AvailabilityResult:
    """KnapsackGroup: the §2.4 branch and bound with KnapsackP relaxations (exact).

    Parameters
    ----------
    problem : AvailabilityProblem
        Costs ``(N,)`` (money), groups ``(N,)``, group availabilities ``(G,)``, ``n``, budget.
    max_expansions : int, optional
        Search-tree nodes (relaxations solved, ``>= 1``) after which the search stops with the
        best window seen (default :data:`MAX_EXPANSIONS`).
    time_limit : float, optional
        Wall-clock seconds (> 0) after which the search stops likewise (the root is always
        relaxed). The budget of a fallback chain such as ``"knapsack_group>greedy_plus"``
        (:mod:`vosim.allocators.fallback`) arrives through these two arguments.

    Returns
    -------
    AvailabilityResult
        Status ``OPTIMAL`` (the eq. (3) maximum within the budget) when the costs are exact
        integers after :func:`~vosim.allocators.knapsack.integer_costs`; ``FEASIBLE`` when
        real costs had to be rounded up; ``LIMIT`` when the search hit a limit
        (``stats["truncated"]``: the best window seen, with ``stats["bound"]`` an upper
        bound of the optimum); ``INFEASIBLE`` when no ``n`` resources fit. ``stats``:
        ``tree_size`` (candidates created), ``expanded`` (relaxations solved), ``splits``,
        ``cost_scale``, ``truncated``.

    Raises
    ------
    ProblemError
        The KnapsackP table would be too large.
    ValueError
        ``max_expansions < 1`` or ``time_limit <= 0``.

    References
    ----------
    ICCS 2023 §2.4 and §3.1 (*KnapsackGroup*).

    Notes
    -----
    Exact because every key is an upper bound of its subtree: an open group of ``k``
    resources contributes ``P_G ** (j/k) >= P_G`` for ``j <= k`` of them, and forcing a
    ``G+`` group's cheapest resource loses nothing (any of its resources can be swapped for
    it). Keys are floats: the result is optimal up to rounding (relative ~1e-14). Cost:
    ``expanded`` KnapsackP runs of O(N·n·C) each; see :func:`group_branch_and_bound` for the
    choices where the paper is silent. On §3.3-sized instances (N = 200, G = 40, n = 20,
    integer costs 1-10) the median tree is about 1,100-2,600 candidates at C = 40 and about
    30 at C = 120 (the paper: "almost 5000" and "nearly 100"), at roughly 0.2 ms per
    expansion; a few tight-budget instances need tens of thousands.

    Examples
    --------
    Resources 0 and 1 share group 0 (0.5); resource 2 is alone (0.8). The pair inside group
    0 is worth 0.5 by eq. (3), more than 0.5 * 0.8 across groups:

    >>> prob = AvailabilityProblem(cost=[1, 1, 1], group=[0, 0, 1], group_p=[0.5, 0.8], n=2,
    ...                            budget=2)
    >>> res = knapsack_group(prob)
    >>> res.selected.tolist(), res.probability, res.status
    ([0, 1], 0.5, <Status.OPTIMAL: 'optimal'>)
    """
    window, _, stats = group_branch_and_bound(problem, "knapsack", max_expansions, time_limit)
    if window is None:
        del stats["exact_costs"]
        return infeasible("knapsack_group", **stats)
    exact = stats.pop("exact_costs") and not stats["truncated"]
    return make_result(
        problem, window, Status.OPTIMAL if exact else Status.FEASIBLE, "knapsack_group", **stats
    )


@register_method("greedy")
def greedy(problem: AvailabilityProblem) -> AvailabilityResult:
    """Greedy: the §2.4 branch and bound with GreedyUnited relaxations (a heuristic).

    Parameters
    ----------
    problem : AvailabilityProblem
        Costs ``(N,)`` (money), groups ``(N,)``, group availabilities ``(G,)``, ``n``, budget.

    Returns
    -------
    AvailabilityResult
        Status ``FEASIBLE`` whenever any selection fits the budget (GreedyUnited falls back
        to MinC, so a candidate is pruned only when nothing fits it), ``INFEASIBLE``
        otherwise. ``stats`` as for :func:`knapsack_group`.

    Raises
    ------
    ProblemError
        Never here: a malformed problem is refused when the :class:`AvailabilityProblem` is
        built.

    References
    ----------
    ICCS 2023 §2.4 and §3.1 (*Greedy*).

    Notes
    -----
    GreedyUnited's value is not an upper bound, so the first valid solution need not be
    optimal. Each expansion is O(N log N). Real costs are used as they are (budget tolerance
    :data:`~vosim.allocators.greedy.BUDGET_RTOL`).

    Examples
    --------
    >>> prob = AvailabilityProblem(cost=[1, 1, 1], group=[0, 0, 1], group_p=[0.5, 0.8], n=2,
    ...                            budget=2)
    >>> res = greedy(prob)
    >>> res.selected.tolist(), res.probability, res.status
    ([0, 1], 0.5, <Status.FEASIBLE: 'feasible'>)
    """
    window, _, stats = group_branch_and_bound(problem, "greedy")
    del stats["exact_costs"]
    if window is None:
        return infeasible("greedy", **stats)
    return make_result(problem, window, Status.FEASIBLE, "greedy", **stats)


@register_method("greedy_plus")
def greedy_plus(problem: AvailabilityProblem) -> AvailabilityResult:
    """Greedy+: Greedy's search, then the final solution re-optimised with KnapsackP.

    Parameters
    ----------
    problem : AvailabilityProblem
        Costs ``(N,)`` (money), groups ``(N,)``, group availabilities ``(G,)``, ``n``, budget.

    Returns
    -------
    AvailabilityResult
        Status ``FEASIBLE`` or ``INFEASIBLE`` as for :func:`greedy`;
        ``stats["improved"]`` tells whether KnapsackP's window replaced Greedy's.

    Raises
    ------
    ProblemError
        The KnapsackP table would be too large.

    References
    ----------
    ICCS 2023 §3.1 (*Greedy+*: "once the solution is found, the final solution optimization
    is performed again using more accurate KnapsackP").

    Notes
    -----
    The paper does not say what "performed again" ranges over; vosim re-solves the final
    candidate's relaxation (its ``G+``, ``G-`` and ``G0`` groups, steps 2-3) with KnapsackP and
    keeps the better window by eq. (3), then the cheaper. Because Greedy's final window is
    valid, it already attains the best eq. (3) value of that candidate's subtree (it uses only
    the ``G+`` groups, which every window there must use), so this step cannot raise the
    availability; it returns the cheapest window of that value. This matches the paper's
    Greedy and Greedy+ curves, which it reports together. Cost: Greedy's plus one KnapsackP
    run.

    Examples
    --------
    Greedy keeps resource 2 (cost 3); the same availability is available for 2:

    >>> prob = AvailabilityProblem(cost=[1, 1, 3, 2], group=[0, 1, 2, 2],
    ...                            group_p=[0.5, 0.9, 0.99], n=2, budget=5)
    >>> greedy(prob).selected.tolist(), greedy_plus(prob).selected.tolist()
    ([2, 3], [2, 3])
    """
    window, state, stats = group_branch_and_bound(problem, "greedy")
    del stats["exact_costs"]
    if window is None:
        return infeasible("greedy_plus", **stats, improved=False)
    best_p = float(np.prod(problem.group_p[np.unique(problem.group[window])]))
    best_cost = float(problem.cost[window].sum())
    ic = integer_costs(problem.cost, problem.budget)
    improved = False
    relax = None
    if state is not None:  # not truncated
        relax = _relax(_groups(problem), state, ic.cost, ic.budget, problem.n, _select)
    if relax is not None:
        w = np.sort(relax.window)
        p = float(np.prod(problem.group_p[np.unique(problem.group[w])]))
        c = float(problem.cost[w].sum())
        if (p, -c) > (best_p, -best_cost):
            window, improved = w, True
    stats["cost_scale"] = ic.scale
    return make_result(problem, window, Status.FEASIBLE, "greedy_plus", **stats, improved=improved)
