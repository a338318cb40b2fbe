"""Greedy selection of ``n`` resources: MaxP, MinC, MaxP/C and GreedyUnited (ICCS 2023 §2.3).

Each rule ranks the resources and takes the first ``n``; they treat resources as independent
(eq. 2, ``p_i = group_p[group_i]``) and the registered methods report the eq. (3) availability
of their choice. GreedyUnited is the GreedyJnt of ICCS 2021 §3.4.

The paper lets MaxP and MaxP/C return a choice over the budget ("may provide infeasible
solutions"); vosim never returns a selection that breaks the budget, so such a choice is
reported with status ``INFEASIBLE``, an empty selection and the reason in ``stats``.
"""

from __future__ import annotations

import numpy as np

from vosim.allocators.availability_problem import (
    AvailabilityProblem,
    AvailabilityResult,
    infeasible,
    make_result,
    register_method,
)
from vosim.core.results import Status
from vosim.errors import ProblemError

__all__ = [
    "BUDGET_RTOL",
    "RULES",
    "greedy_select",
    "max_p",
    "min_c",
    "max_p_per_c",
    "greedy_united",
    "united_scan",
]

#: Relative tolerance of the budget test against float rounding of summed real costs (the
#: value of ``vosim.allocators.aep.BUDGET_RTOL``).
BUDGET_RTOL = 1e-9
#: Rules of :func:`greedy_select`.
RULES = ("max_p", "min_c", "max_p_per_c", "united")


def _rank(cost: np.ndarray, p: np.ndarray, rule: str) -> np.ndarray:
    """Positions in rule order. Ties: higher p, then lower cost, then lower index."""
    index = np.arange(cost.size)
    if rule == "max_p":
        return np.lexsort((index, cost, -p))
    if rule == "min_c":
        return np.lexsort((index, -p, cost))
    # MaxP/C: w = p / c; a free resource (c = 0) comes first (w = +inf) unless p = 0, whose
    # w = 0 (it zeroes the product whatever its cost).
    weight = np.full(cost.size, np.inf)
    np.divide(p, cost, out=weight, where=cost > 0)
    weight[(cost == 0) & (p == 0)] = 0.0
    return np.lexsort((index, cost, -p, -weight))


def _first_n(cost, p, n, budget, rule) -> tuple[np.ndarray, bool]:
    """The first ``n`` by ``rule`` (sorted) and whether they fit the budget."""
    chosen = np.sort(_rank(cost, p, rule)[:n])
    return chosen, bool(cost[chosen].sum() <= budget * (1 + BUDGET_RTOL))


def _united(cost, p, n, budget) -> tuple[np.ndarray | None, str]:
    """GreedyUnited: MaxP, else MaxP/C, else MinC; the selection and the stage that gave it."""
    if n > cost.size:
        return None, "none"
    for rule in ("max_p", "max_p_per_c", "min_c"):
        chosen, fits = _first_n(cost, p, n, budget, rule)
        if fits:
            return chosen, rule
    return None, "none"


def greedy_select(cost, p, n: int, budget: float, rule: str = "united") -> np.ndarray | None:
    """The first ``n`` items by a greedy rule, or ``None`` when they do not fit the budget.

    Parameters
    ----------
    cost : array_like, shape (m,)
        Non-negative costs (real values are used as they are).
    p : array_like, shape (m,)
        Availability of each item, in [0, 1].
    n : int
        Number of items, ``0 <= n``.
    budget : float
        Budget ``C >= 0`` (``inf`` for none); compared with a relative tolerance
        :data:`BUDGET_RTOL`.
    rule : {"max_p", "min_c", "max_p_per_c", "united"}
        ``"max_p"``: highest ``p`` first; ``"min_c"``: lowest cost first; ``"max_p_per_c"``:
        highest ``p / c`` first (``c = 0`` gives ``+inf``, or 0 when also ``p = 0``);
        ``"united"``: the first of MaxP, MaxP/C, MinC whose choice fits (GreedyUnited).
        Ties go to the higher ``p``, then the lower cost, then the lower index.

    Returns
    -------
    numpy.ndarray of int64, shape (n,), or None
        Sorted indices; ``None`` if the rule's choice exceeds the budget or ``n > m``.

    Raises
    ------
    ProblemError
        Unknown ``rule``, shapes that differ, a negative or non-finite cost, ``p`` outside
        [0, 1], or a negative ``n`` or budget.

    References
    ----------
    ICCS 2023 §2.3 (MaxP, MinC, MaxP/C, GreedyUnited); ICCS 2021 §3.4 (GreedyJnt).

    Notes
    -----
    O(m log m) (one sort per rule tried).

    Examples
    --------
    >>> cost, p = [3, 1, 2], [0.9, 0.5, 0.8]
    >>> greedy_select(cost, p, 2, budget=5, rule="max_p").tolist()
    [0, 2]
    >>> greedy_select(cost, p, 2, budget=4, rule="max_p") is None
    True
    >>> greedy_select(cost, p, 2, budget=4).tolist()   # MaxP/C: w = 0.3, 0.5, 0.4
    [1, 2]
    """
    if rule not in RULES:
        raise ProblemError(f"rule must be one of {', '.join(RULES)}; got {rule!r}")
    cost = np.asarray(cost, dtype=float)
    p = np.asarray(p, dtype=float)
    if cost.ndim != 1 or p.shape != cost.shape:
        raise ProblemError(
            f"cost and p must be (m,) arrays of one shape; got {cost.shape}, {p.shape}"
        )
    if np.any(~np.isfinite(cost) | (cost < 0)):
        i = int(np.flatnonzero(~np.isfinite(cost) | (cost < 0))[0])
        raise ProblemError(f"cost must be finite and >= 0; cost[{i}] = {cost[i]}")
    if np.any(~((p >= 0) & (p <= 1))):
        i = int(np.flatnonzero(~((p >= 0) & (p <= 1)))[0])
        raise ProblemError(f"p must lie in [0, 1]; p[{i}] = {p[i]}")
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
        raise ProblemError(f"n must be a non-negative integer, got {n!r}")
    if not float(budget) >= 0:
        raise ProblemError(f"budget must be >= 0, got {budget!r}")
    if n > cost.size:
        return None
    if rule == "united":
        return _united(cost, p, int(n), float(budget))[0]
    chosen, fits = _first_n(cost, p, int(n), float(budget), rule)
    return chosen if fits else None


def _rank_columns(cost: np.ndarray, P: np.ndarray, rule: str) -> np.ndarray:
    """:func:`_rank` of every row of ``P`` (K, m) at once: positions (K, m) in rule order."""
    index = np.broadcast_to(np.arange(cost.size), P.shape)
    c = np.broadcast_to(cost, P.shape)
    if rule == "max_p":
        return np.lexsort((index, c, -P), axis=-1)
    if rule == "min_c":
        return np.lexsort((index, -P, c), axis=-1)
    weight = np.full(P.shape, np.inf)
    np.divide(P, c, out=weight, where=c > 0)
    weight[(c == 0) & (P == 0)] = 0.0
    return np.lexsort((index, c, -P, -weight), axis=-1)


def united_scan(cost, p, n: int, budget: float) -> tuple[np.ndarray, np.ndarray]:
    """GreedyUnited at every time index at once: the selection of each column of ``p``.

    The same rule as :func:`greedy_united` (MaxP if its ``n`` fit the budget, else MaxP/C,
    else MinC; the same ties), one numpy pass per rule over all columns instead of one call
    per column (ICCS 2021 §4.3 reports GreedyJnt's full scan 143 times faster than
    Knapsack's, which per-call overhead hid).

    Parameters
    ----------
    cost : numpy.ndarray of float, shape (m,)
        Non-negative costs of the resources (validated by the caller).
    p : numpy.ndarray of float, shape (m, K)
        Availability of resource ``i`` at time index ``k``, in [0, 1].
    n : int
        Resources to select, ``0 <= n <= m``.
    budget : float
        Budget ``C >= 0`` (``inf`` for none), compared with :data:`BUDGET_RTOL`.

    Returns
    -------
    selected : numpy.ndarray of int64, shape (K, n)
        Sorted resource indices chosen at each time index; rows of ``-1`` where no rule's
        choice fits.
    stage : numpy.ndarray of int64, shape (K,)
        The rule that gave each row: 0 MaxP, 1 MaxP/C, 2 MinC, -1 none.

    References
    ----------
    ICCS 2021 §3.4 (GreedyJnt), §4.3 (its full scan, Table 1); ICCS 2023 §2.3 item 4.
    """
    P = np.ascontiguousarray(np.asarray(p, dtype=float).T)  # (K, m)
    K = P.shape[0]
    selected = np.full((K, n), -1, dtype=np.int64)
    stage = np.full(K, -1, dtype=np.int64)
    todo = np.arange(K)
    for number, rule in enumerate(("max_p", "max_p_per_c", "min_c")):
        if not todo.size:
            break
        chosen = _rank_columns(cost, P[todo], rule)[:, :n]
        fits = cost[chosen].sum(axis=1) <= budget * (1 + BUDGET_RTOL)
        selected[todo[fits]] = np.sort(chosen[fits], axis=1)
        stage[todo[fits]] = number
        todo = todo[~fits]
    return selected, stage


def _single_rule(problem: AvailabilityProblem, rule: str) -> AvailabilityResult:
    chosen, fits = _first_n(problem.cost, problem.resource_p, problem.n, problem.budget, rule)
    if not fits:
        spent = float(problem.cost[chosen].sum())
        return infeasible(
            rule,
            reason=f"the {rule} choice costs {spent:g} > budget {problem.budget:g}",
        )
    return make_result(problem, chosen, Status.FEASIBLE, rule)


@register_method("max_p")
def max_p(problem: AvailabilityProblem) -> AvailabilityResult:
    """MaxP: the ``n`` most available resources, if they fit the budget.

    Parameters
    ----------
    problem : AvailabilityProblem
        Costs ``(N,)`` (money), groups ``(N,)``, group availabilities ``(G,)``, ``n``, budget.

    Returns
    -------
    AvailabilityResult
        Status ``FEASIBLE`` with the sorted ``(n,)`` selection and its eq. (3)
        availability, or ``INFEASIBLE`` (empty selection, ``stats["reason"]``) when the
        choice exceeds the budget. The paper's MaxP "may provide infeasible solutions";
        vosim reports those as infeasible instead of returning them.

    Raises
    ------
    ProblemError
        Never here: a malformed problem is refused when the :class:`AvailabilityProblem` is
        built.

    References
    ----------
    ICCS 2023 §2.3 item 1; ICCS 2021 §3.4 item 1.

    Notes
    -----
    O(N log N). Ties: lower cost, then lower index. Optimal when the budget does not bind
    and every group is a singleton.

    Examples
    --------
    >>> prob = AvailabilityProblem(cost=[3, 1, 2], group=[0, 1, 2], group_p=[0.9, 0.5, 0.8],
    ...                            n=2, budget=5)
    >>> max_p(prob).selected.tolist()
    [0, 2]
    >>> max_p(AvailabilityProblem([3, 1, 2], [0, 1, 2], [0.9, 0.5, 0.8], 2, 4)).status
    <Status.INFEASIBLE: 'infeasible'>
    """
    return _single_rule(problem, "max_p")


@register_method("min_c")
def min_c(problem: AvailabilityProblem) -> AvailabilityResult:
    """MinC: the ``n`` cheapest resources, or infeasible when even they exceed the budget.

    Parameters
    ----------
    problem : AvailabilityProblem
        Costs ``(N,)`` (money), groups ``(N,)``, group availabilities ``(G,)``, ``n``, budget.

    Returns
    -------
    AvailabilityResult
        Status ``FEASIBLE`` (sorted ``(n,)`` selection, eq. (3) availability) whenever any
        selection fits the budget; ``INFEASIBLE`` otherwise.

    Raises
    ------
    ProblemError
        Never here: a malformed problem is refused when the :class:`AvailabilityProblem` is
        built.

    References
    ----------
    ICCS 2023 §2.3 item 2; ICCS 2021 §3.4 item 2.

    Notes
    -----
    O(N log N). Ties in cost: higher availability, then lower index. Its cost is the least
    budget any selection needs.

    Examples
    --------
    >>> prob = AvailabilityProblem(cost=[3, 1, 2], group=[0, 1, 2], group_p=[0.9, 0.5, 0.8],
    ...                            n=2, budget=3)
    >>> res = min_c(prob)
    >>> res.selected.tolist(), res.cost, round(res.probability, 2)
    ([1, 2], 3.0, 0.4)
    """
    return _single_rule(problem, "min_c")


@register_method("max_p_per_c")
def max_p_per_c(problem: AvailabilityProblem) -> AvailabilityResult:
    """MaxP/C: the ``n`` resources of highest ``p_i / c_i``, if they fit the budget.

    Parameters
    ----------
    problem : AvailabilityProblem
        Costs ``(N,)`` (money), groups ``(N,)``, group availabilities ``(G,)``, ``n``, budget.

    Returns
    -------
    AvailabilityResult
        Status ``FEASIBLE`` or, when the choice exceeds the budget (the paper: "does not
        guarantee feasible solutions"), ``INFEASIBLE`` with an empty selection.

    Raises
    ------
    ProblemError
        Never here: a malformed problem is refused when the :class:`AvailabilityProblem` is
        built.

    References
    ----------
    ICCS 2023 §2.3 item 3; ICCS 2021 §3.4 item 3.

    Notes
    -----
    O(N log N). The weight ``p/c`` is ``+inf`` for a free resource (``c = 0``) with
    ``p > 0`` and 0 when also ``p = 0``. Ties: higher ``p``, lower cost, lower index.

    Examples
    --------
    >>> prob = AvailabilityProblem(cost=[3, 1, 2], group=[0, 1, 2], group_p=[0.9, 0.5, 0.8],
    ...                            n=2, budget=4)
    >>> max_p_per_c(prob).selected.tolist()   # w = 0.3, 0.5, 0.4
    [1, 2]
    """
    return _single_rule(problem, "max_p_per_c")


@register_method("greedy_united")
def greedy_united(problem: AvailabilityProblem) -> AvailabilityResult:
    """GreedyUnited (GreedyJnt): MaxP if it fits, else MaxP/C if it fits, else MinC.

    Parameters
    ----------
    problem : AvailabilityProblem
        Costs ``(N,)`` (money), groups ``(N,)``, group availabilities ``(G,)``, ``n``, budget.

    Returns
    -------
    AvailabilityResult
        Status ``FEASIBLE`` whenever any selection fits the budget (MinC's does then),
        with ``stats["stage"]`` the rule that gave it (``"max_p"``, ``"max_p_per_c"``,
        ``"min_c"``); ``INFEASIBLE`` otherwise.

    Raises
    ------
    ProblemError
        Never here: a malformed problem is refused when the :class:`AvailabilityProblem` is
        built.

    References
    ----------
    ICCS 2023 §2.3 item 4 (*GreedyUnited*); ICCS 2021 §3.4 item 4 (*GreedyJnt*).

    Notes
    -----
    O(N log N): at most three sorts.

    Examples
    --------
    >>> prob = AvailabilityProblem(cost=[3, 1, 2], group=[0, 1, 2], group_p=[0.9, 0.5, 0.8],
    ...                            n=2, budget=4)
    >>> res = greedy_united(prob)
    >>> res.selected.tolist(), res.stats["stage"]
    ([1, 2], 'max_p_per_c')
    """
    chosen, stage = _united(problem.cost, problem.resource_p, problem.n, problem.budget)
    if chosen is None:
        return infeasible(
            "greedy_united", reason=f"the {problem.n} cheapest resources exceed the budget"
        )
    return make_result(problem, chosen, Status.FEASIBLE, "greedy_united", stage=stage)
