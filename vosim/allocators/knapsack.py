"""KnapsackP: the multiplicative 0-1 knapsack with a node count (ICCS 2023 eq. 5).

The dynamic programme selects exactly ``n`` of ``m`` resources with total cost within ``C``
maximising the product of their availabilities (eq. 2). :func:`knapsack_select` is the
reusable core (the time scan and the group branch and bound call it); :func:`knapsack_p` is the
registered availability method (the paper's *KnapsackSingle* on problems with groups).

Costs must be integers for the DP. :func:`integer_costs` turns real costs into integers: exactly
when they are multiples of ``10**-COST_DECIMALS``, and otherwise by rounding them *up* at that
resolution, which keeps every selection within the budget but is no longer exact.
"""

from __future__ import annotations

import math
from bisect import bisect_left
from itertools import accumulate
from typing import NamedTuple

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
    "COST_DECIMALS",
    "MAX_TABLE_ENTRIES",
    "IntegerCosts",
    "integer_costs",
    "knapsack_select",
    "knapsack_p",
]

#: Decimal places kept when real-valued costs are turned into integers (resolution 0.001).
COST_DECIMALS = 3
#: Largest DP table the DP will allocate: cost classes x (n+1) x (C'+1) floats (256 MiB).
MAX_TABLE_ENTRIES = 2**25
#: Relative tolerance used when testing whether a scaled cost is a whole number.
_INTEGRAL_RTOL = 1e-9
#: Tables larger than this are updated shift by shift instead of as one strided block.
_LOOP_CELLS = 1 << 14
#: Log-values within this relative distance of the optimum count as ties (float rounding).
_TIE_RTOL = 64 * np.finfo(float).eps


class IntegerCosts(NamedTuple):
    """Integer costs and budget for the DP, from :func:`integer_costs`.

    Attributes
    ----------
    cost : numpy.ndarray of int64, shape (N,)
        ``cost * scale``, whole numbers (rounded up when ``exact`` is ``False``).
    budget : float
        ``floor(budget * scale)`` (a whole number) or ``inf``.
    scale : int
        The power of ten the costs were multiplied by.
    exact : bool
        ``True`` when the integer problem has exactly the feasible selections of the real one.
    """

    cost: np.ndarray
    budget: float
    scale: int
    exact: bool


def integer_costs(cost, budget: float, decimals: int = COST_DECIMALS) -> IntegerCosts:
    """Turn costs and budget into the integers the DP needs, exactly when possible.

    The costs are multiplied by the smallest power of ten ``10**k`` (``k <= decimals``) that
    makes all of them whole numbers (up to a relative ``1e-9``). The budget becomes
    ``floor(budget * 10**k)``: a selection of integer costs fits ``budget`` exactly when it
    fits that. If no such ``k`` exists, the costs are scaled by ``10**decimals`` and rounded
    *up*, so every selection feasible for the integers is feasible for the real costs (within
    a relative ``1e-9``), but a selection whose real cost is within ``n * 10**-decimals`` of the
    budget may be lost: the DP is then exact only up to that resolution.

    Parameters
    ----------
    cost : array_like, shape (N,)
        Non-negative costs (units of money).
    budget : float
        Budget ``C >= 0``, possibly ``inf``.
    decimals : int, optional
        Finest resolution tried, ``10**-decimals`` (default :data:`COST_DECIMALS` = 3).

    Returns
    -------
    IntegerCosts
        ``(cost, budget, scale, exact)``.

    Raises
    ------
    ProblemError
        ``cost`` is negative or not finite, ``budget`` is negative or NaN, or ``decimals``
        is negative.

    References
    ----------
    ICCS 2023 §2.3, eq. (5): the recurrence indexes the budget ``c = 1..C`` by integers.

    Notes
    -----
    O(N · decimals).

    Examples
    --------
    >>> integer_costs([3, 1, 2], 4.5)
    IntegerCosts(cost=array([3, 1, 2]), budget=4.0, scale=1, exact=True)
    >>> integer_costs([0.25, 1.5], 2.0).scale
    100
    >>> ic = integer_costs([0.1234, 1.0], 2.0)
    >>> ic.cost.tolist(), ic.exact
    ([124, 1000], False)
    """
    cost = np.asarray(cost, dtype=float)
    if cost.size and (not np.all(np.isfinite(cost)) or np.any(cost < 0)):
        bad = int(np.flatnonzero(~np.isfinite(cost) | (cost < 0))[0])
        raise ProblemError(f"cost must be finite and >= 0; cost[{bad}] = {cost[bad]}")
    budget = float(budget)
    if not budget >= 0:
        raise ProblemError(f"budget must be >= 0, got {budget!r}")
    if decimals < 0:
        raise ProblemError(f"decimals must be >= 0, got {decimals}")
    for k in range(decimals + 1):
        scale = 10**k
        scaled = cost * scale
        rounded = np.round(scaled)
        if np.all(np.abs(scaled - rounded) <= _INTEGRAL_RTOL * np.maximum(1.0, scaled)):
            return IntegerCosts(
                rounded.astype(np.int64), _scaled_budget(budget, scale), scale, True
            )
    scale = 10**decimals
    scaled = cost * scale
    up = np.ceil(scaled - _INTEGRAL_RTOL * np.maximum(1.0, scaled))
    return IntegerCosts(up.astype(np.int64), _scaled_budget(budget, scale), scale, False)


def _scaled_budget(budget: float, scale: int) -> float:
    if math.isinf(budget):
        return math.inf
    b = budget * scale
    return float(math.floor(b + _INTEGRAL_RTOL * max(1.0, b)))


def knapsack_select(cost, p, n: int, budget: float) -> np.ndarray | None:
    """Indices of ``n`` items of total cost ``<= budget`` maximising ``prod p`` (eq. 4-5).

    Parameters
    ----------
    cost : array_like of int, shape (m,)
        Non-negative integer costs (whole-number floats are accepted; see
        :func:`integer_costs` for real costs).
    p : array_like, shape (m,)
        Availability of each item, in [0, 1].
    n : int
        Number of items to select, ``>= 0``.
    budget : float
        Budget ``C >= 0`` in the units of ``cost``; ``inf`` for none.

    Returns
    -------
    numpy.ndarray of int64, shape (n,), or None
        Sorted indices of an optimal selection; ``None`` when no ``n`` items fit the budget
        (or ``n > m``). Among optimal selections (products equal up to float rounding,
        relative ~1e-14) the cheapest is returned. When every feasible selection has product
        0, the ``n`` cheapest items are returned.

    Raises
    ------
    ProblemError
        A cost is negative, not finite or not a whole number; ``p`` is outside [0, 1] or
        shaped unlike ``cost``; ``n`` is negative; the budget is negative; or the DP table
        would exceed :data:`MAX_TABLE_ENTRIES`.

    References
    ----------
    ICCS 2023 §2.3, eqs. (4)-(5), *KnapsackP*; ICCS 2021 §3.3, eq. (3), *Knapsack*.

    Notes
    -----
    The recurrence of eq. (5), ``f[v, c] = max(f[v, c], f[v-1, c-c_j] + log p_j)``, runs in
    log space over the whole ``(v, c)`` table at once. Items of equal cost are taken together:
    the best ``t`` of a cost class are its ``t`` most available items, so one array step per
    *distinct* cost chooses ``t = 0..min(size, n)`` of them (the same optimum as item by item,
    with far fewer Python-level steps). Exact reductions shrink the table first: since exactly
    ``n`` items are chosen, the least cost is subtracted from every cost (and ``n`` times from
    the budget), costs are divided by their greatest common divisor, and the budget is capped
    at the sum of the ``n`` largest costs; when the ``n`` most available items fit the budget
    they are returned directly. Items with ``p = 0`` are left out of the DP: they
    are used (by taking the ``n`` cheapest items) only when no selection of positive product
    fits. Time O(m·n·C') and memory O(D·n·C') for ``D`` distinct costs and reduced budget
    ``C' <= C``.

    Examples
    --------
    Two of three nodes, as the budget grows (products 0.4, 0.45, 0.72):

    >>> cost, p = [3, 1, 2], [0.9, 0.5, 0.8]
    >>> [knapsack_select(cost, p, n=2, budget=c).tolist() for c in (3, 4, 5)]
    [[1, 2], [0, 1], [0, 2]]
    >>> knapsack_select(cost, p, n=2, budget=2) is None
    True
    """
    cost = np.asarray(cost)
    p = np.asarray(p, dtype=float)
    if cost.ndim != 1:
        raise ProblemError(f"cost must be one-dimensional (m,), got shape {cost.shape}")
    if p.shape != cost.shape:
        raise ProblemError(f"p must have the shape of cost {cost.shape}, got {p.shape}")
    fcost = cost.astype(float)
    if cost.size:
        bad = ~np.isfinite(fcost) | (fcost < 0) | (fcost != np.round(fcost))
        if np.any(bad):
            i = int(np.flatnonzero(bad)[0])
            raise ProblemError(
                f"cost must be non-negative whole numbers (see integer_costs); "
                f"cost[{i}] = {cost[i]}"
            )
        if np.any(~((p >= 0) & (p <= 1))):
            i = int(np.flatnonzero(~((p >= 0) & (p <= 1)))[0])
            raise ProblemError(f"p must lie in [0, 1]; p[{i}] = {p[i]}")
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
        raise ProblemError(f"n must be a non-negative integer, got {n!r}")
    budget = float(budget)
    if not budget >= 0:
        raise ProblemError(f"budget must be >= 0, got {budget!r}")
    return _select(fcost.astype(np.int64), p, int(n), budget)


def _select(cost: np.ndarray, p: np.ndarray, n: int, budget: float) -> np.ndarray | None:
    """:func:`knapsack_select` on validated input (int64 costs, p in [0, 1])."""
    if n == 0:
        return np.empty(0, dtype=np.int64)
    if n > cost.size:
        return None
    order = np.lexsort((-p, cost))  # by cost, then most available, then index
    sc = cost[order]
    if sc[:n].sum() > budget:
        return None
    positive = p[order] > 0
    if np.count_nonzero(positive) < n:  # every selection has product 0: the n cheapest
        return np.sort(order[:n])
    order, sc = order[positive], sc[positive]
    top = np.lexsort((sc, -p[order]))[:n]  # MaxP, the cheaper first on equal p
    if sc[top].sum() <= budget:  # the n most available fit: nothing can beat them
        return np.sort(order[top])
    chosen = _dp(sc, np.log(p[order]), n, budget)
    if chosen is None:  # only selections with a p = 0 item fit
        return np.sort(np.lexsort((-p, cost))[:n])
    return np.sort(order[chosen])


def _dp(sc: np.ndarray, sl: np.ndarray, n: int, budget: float) -> np.ndarray | None:
    """Eq. (5) in log space over cost classes; positions of the chosen items or ``None``.

    ``sc`` (int costs) and ``sl`` (log p, finite) are sorted by cost, then by ``-sl``.
    """
    # Exact reductions: exactly n items are taken, so a common offset and a common divisor of
    # the costs only rescale the budget; items dearer than the reduced budget never fit.
    low = int(sc[0])
    cap = math.floor(budget) - n * low
    sc = sc - low
    step = int(np.gcd.reduce(sc))
    if step > 1:
        sc = sc // step
        cap //= step
    k = int(np.searchsorted(sc, cap, side="right"))
    if k < n:
        return None
    cap = min(cap, int(sc[k - n : k].sum()))
    bounds = (np.flatnonzero(np.diff(sc[:k])) + 1).tolist()
    costs = sc[[0, *bounds]].tolist()
    logs = sl[:k].tolist()
    # Cost classes kept after dominance: an item with n items at most as dear and at least as
    # available before it (in this order) is never needed (swap it for one of them); inside a
    # class these are its trailing items. At most n items, and t * w <= cap, per class.
    classes = []  # (first item, cost, t_max, gains)
    earlier: list[float] = []  # the n largest log p of the cheaper classes, ascending
    for s, e, w in zip([0, *bounds], [*bounds, k], costs, strict=True):
        limit = min(e - s, n, cap // w if w else n)
        t_max = 0
        while t_max < limit and t_max + len(earlier) - bisect_left(earlier, logs[s + t_max]) < n:
            t_max += 1
        if e < k:
            earlier = sorted(earlier + logs[s : min(e, s + n)])[-n:]
        if t_max:
            classes.append((s, w, t_max, [0.0, *accumulate(logs[s : s + t_max])]))
    rows, cols = n + 1, cap + 1
    if len(classes) * rows * cols > MAX_TABLE_ENTRIES:
        raise ProblemError(
            f"budget too fine for the DP: {len(classes)} cost classes x {rows} counts x "
            f"{cols} budget steps exceed {MAX_TABLE_ENTRIES} entries; use coarser costs"
        )
    # Only counts v in a band matter after class d: v <= items kept so far, and v >= n minus
    # the items kept in later classes (fewer could never reach n).
    taken = list(accumulate(t_max for _, _, t_max, _ in classes))
    if not taken or taken[-1] < n:
        return None
    bands = [(max(0, n - (taken[-1] - upto)), min(n, upto)) for upto in taken]
    if rows * cols <= _LOOP_CELLS:
        tables, top, left = _forward_blocks(classes, bands, rows, cols)
    else:
        tables, top, left = _forward_shifts(classes, bands, rows, cols), 0, 0
    get = tables.item if isinstance(tables, np.ndarray) else None
    last = tables[len(classes)]
    best = float(last[top + n, left + cap])
    if best == -math.inf:
        return None
    # The cheapest budget column that already reaches the optimum (ties up to rounding).
    c = int(np.argmax(last[top + n, left:] >= best - _TIE_RTOL * (1.0 + abs(best))))
    v = n
    chosen = []
    for d in range(len(classes) - 1, -1, -1):
        s, w, t_max, gains = classes[d]
        prev = tables[d] if get is None else None
        # Recompute the candidates of cell (v, c) with the forward pass's arithmetic.
        t_best, val = 0, -math.inf
        for t in range(min(t_max, v, c // w if w else v) + 1):
            i, j = top + v - t, left + c - t * w
            cand = (get(d, i, j) if get else prev.item(i, j)) + gains[t]
            if cand > val:
                t_best, val = t, cand
        if t_best:
            chosen.append(np.arange(s, s + t_best))
            v -= t_best
            c -= t_best * w
    return np.concatenate(chosen)


def _forward_blocks(
    classes: list, bands: list, rows: int, cols: int
) -> tuple[np.ndarray, int, int]:
    """Forward pass for small tables: each class in one strided block operation.

    Table ``d`` (before class ``d``) lives at ``tables[d, top:, left:]`` inside a ``-inf``
    border as deep as the largest shift, so a strided view reads every shift at once:
    ``V[u, i, c] = f[lo + i - t, c - t * w]`` with ``u = t_max - t``, for the band
    ``lo <= v <= hi`` of counts that matter.
    """
    top, left = rows - 1, cols - 1  # t <= n and t * w <= cap
    tables = np.full((len(classes) + 1, rows + top, cols + left), -np.inf)
    tables[0, top, left:] = 0.0  # f[0, c] = 0: the empty selection fits every budget
    s_d, s_v, s_c = tables.strides
    scratch = np.empty(rows * rows * cols)
    # The first class is the cheapest (w = 0 after the offset): f[v, c] = gains[v] directly.
    lo, hi = bands[0]
    tables[1, top + lo : top + hi + 1, left:] = np.array(classes[0][3][lo : hi + 1])[:, None]
    for d in range(1, len(classes)):
        _, w, t_max, gains = classes[d]
        lo, hi = bands[d]
        height = hi - lo + 1
        offset = d * s_d + (top + lo - t_max) * s_v + (left - t_max * w) * s_c
        shape = (t_max + 1, height, cols)
        view = np.ndarray(shape, float, tables, offset, (s_v + w * s_c, s_v, s_c))
        block = scratch[: (t_max + 1) * height * cols].reshape(shape)
        np.add(view, np.array(gains[::-1]).reshape(-1, 1, 1), out=block)
        np.max(block, axis=0, out=tables[d + 1, top + lo : top + hi + 1, left:])
    return tables, top, left


def _forward_shifts(classes: list, bands: list, rows: int, cols: int) -> list[np.ndarray]:
    """Forward pass for large tables: one array update per item taken (no border copies)."""
    f = np.full((rows, cols), -np.inf)
    f[0] = 0.0
    tables = [f]
    for (_, w, t_max, gains), (lo, hi) in zip(classes, bands, strict=True):
        new = np.full((rows, cols), -np.inf)
        new[lo : hi + 1] = f[lo : hi + 1]
        for t in range(1, t_max + 1):
            shift = t * w
            first = max(lo, t)
            if first > hi or shift >= cols:
                break
            np.maximum(
                new[first : hi + 1, shift:],
                f[first - t : hi + 1 - t, : cols - shift] + gains[t],
                out=new[first : hi + 1, shift:],
            )
        tables.append(new)
        f = new
    return tables


@register_method("knapsack_p")
def knapsack_p(problem: AvailabilityProblem) -> AvailabilityResult:
    """KnapsackP / KnapsackSingle: maximise eq. (2) with the DP of eq. (5), report eq. (3).

    Every resource is treated as independent with ``p_i = group_p[group_i]``; the selection's
    availability is then reported by eq. (3) (a group counted once), as the paper does for
    *KnapsackSingle*.

    Parameters
    ----------
    problem : AvailabilityProblem
        Costs ``(N,)`` (money), groups ``(N,)``, group availabilities ``(G,)``, ``n``, budget.

    Returns
    -------
    AvailabilityResult
        Status ``OPTIMAL`` when every group is a singleton (eq. 2 is eq. 3) and the costs
        are exact integers after :func:`integer_costs`; ``FEASIBLE`` otherwise;
        ``INFEASIBLE`` with an empty selection when no ``n`` resources fit the budget.
        ``stats["cost_scale"]`` is the factor real costs were scaled by (1 for integers).

    Raises
    ------
    ProblemError
        The DP table would be too large (see :func:`knapsack_select`).

    References
    ----------
    ICCS 2023 §2.3, eq. (5) (*KnapsackP*) and §3.1 (*KnapsackSingle*); ICCS 2021 §3.3
    (*Knapsack*).

    Notes
    -----
    O(N·n·C) time (see :func:`knapsack_select` for the reductions). Real costs: see
    :func:`integer_costs`; with costs that are not multiples of ``10**-COST_DECIMALS`` they
    are rounded up, the status is ``FEASIBLE`` and a selection within ``n * 0.001`` of the
    budget may be missed.

    Examples
    --------
    The §2.2 setting: resources 0 and 1 share group 0 (0.5), resource 2 is alone (0.8).
    KnapsackSingle sees 0.5 * 0.5 = 0.25 < 0.5 * 0.8 for the pair across groups, although by
    eq. (3) the pair inside group 0 is worth 0.5:

    >>> prob = AvailabilityProblem(cost=[1, 1, 1], group=[0, 0, 1], group_p=[0.5, 0.8], n=2,
    ...                            budget=2)
    >>> res = knapsack_p(prob)
    >>> res.selected.tolist(), round(res.probability, 3), res.status
    ([0, 2], 0.4, <Status.FEASIBLE: 'feasible'>)
    """
    ic = integer_costs(problem.cost, problem.budget)
    chosen = _select(ic.cost, problem.resource_p, problem.n, ic.budget)
    if chosen is None:
        return infeasible("knapsack_p", cost_scale=ic.scale)
    singletons = bool(np.all(np.bincount(problem.group, minlength=problem.G) <= 1))
    status = Status.OPTIMAL if ic.exact and singletons else Status.FEASIBLE
    return make_result(problem, chosen, status, "knapsack_p", cost_scale=ic.scale)
