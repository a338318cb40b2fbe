"""Time scan of window availability ``P_a^w(t)`` over a scheduling interval (ICCS 2021 §3.2, §3.5).

At every time index ``k`` of the interval the *static sub-problem* is an
:class:`~vosim.allocators.availability_problem.AvailabilityProblem` on singleton groups: choose
``n`` of ``m``
resources with total cost at most ``C`` maximising ``prod_i p_avail[i, k]`` (ICCS 2021 eq. 2).
The *dynamic generalization* takes the best start over all ``k``. Three ways to get it:

* the full scan of §3.2 (``starts=None``): every ``k`` is solved by the named method;
* the starting-point search of §3.5 (``starts=S``): local searches with step ``δ`` from ``S``
  uniform, random or combined starting points; approximate;
* the *fast exact scan* (``starts=None, fast=True``), beyond the paper: the same answer as the
  full scan, with most time indices never solved (bounds and certificates computed for all
  time indices at once, repeated columns solved once, a DP vectorised across time indices for
  the few that remain; see :func:`time_scan`).
"""

from __future__ import annotations

import importlib
import math
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from vosim.allocators import availability_problem as _problem
from vosim.allocators.availability_problem import AvailabilityProblem, AvailabilityResult
from vosim.allocators.greedy import united_scan
from vosim.allocators.knapsack import integer_costs, knapsack_select
from vosim.core.results import Result, Status
from vosim.errors import ProblemError, UnknownAllocatorError

__all__ = ["TimeScanResult", "time_scan", "starting_points", "TIE_RTOL"]

#: Relative tolerance under which two probabilities count as tied: the best start is the
#: *earliest* time index whose ``P_a^w`` is within ``TIE_RTOL`` of the maximum. Products of the
#: same factors taken in another order differ by a few ulps (about 1e-16), so any two
#: implementations of one criterion agree on the chosen index.
TIE_RTOL = 1e-12

#: Modules whose import registers the availability methods (imported lazily, when present).
_METHOD_MODULES = ("knapsack", "greedy", "exact", "groups")

#: Relative slack added to the Lagrangian upper bounds, which are computed in log space.
_BOUND_SLACK = 1e-9
#: Below this best value the Lagrangian bounds (which may underflow) are not used, and no
#: column is certified from its n largest entries: products of subnormal numbers taken in
#: two orders may differ by more than any relative tolerance (one rounds to 0, one to 5e-324).
_TINY = 1e-290
#: The least positive float (subnormal), the absolute rounding step of products below _TINY.
_LEAST_SUBNORMAL = float(np.nextafter(0.0, 1.0))
#: Columns solved by the first vectorised DP round (the count doubles every round).
_FIRST_CHUNK = 16
#: Consecutive distinct columns bounded together before any column bound is computed.
_BLOCK = 16
#: Multipliers tried by the Lagrangian bound, per unit of log-probability spread.
_LAMBDA_GRID = np.concatenate([[0.0], np.geomspace(1e-6, 1.0, 32)])
#: Largest table (cells) of one vectorised DP round, of the dominance test and of the traced DP.
_MAX_DP_CELLS = 1 << 24

_POINTS = ("uniform", "random", "combined")


@dataclass(frozen=True, eq=False)
class TimeScanResult(Result):
    """Outcome of :func:`time_scan`.

    Parameters
    ----------
    time_index : int
        Index ``k`` of the best start time ``t_k`` (ties: the earliest); ``-1`` when no time
        index has a selection within the budget.
    probability : float
        ``P_a^w(t_k)`` of the selection at ``time_index`` (eq. 2); 0.0 when infeasible.
    selected : numpy.ndarray of int, shape (n,) or (0,)
        Sorted resource indices selected at ``time_index``; empty when infeasible.
    cost : float
        Total cost of ``selected``.
    status : Status
        Status of the static sub-problem at ``time_index`` (``OPTIMAL`` for exact methods,
        ``FEASIBLE`` for heuristics, ``LIMIT`` for a search stopped by its limit) or
        ``INFEASIBLE``. For the starting-point search ``OPTIMAL`` refers to that time index
        only, not to the whole interval. The old strings (``"optimal"``, ...) are accepted
        and converted.
    curve : numpy.ndarray of float, shape (K,)
        ``P_a^w(t_k)`` where it was determined (0.0 for an infeasible sub-problem), NaN where it
        was not evaluated.
    method : str
        Static method name.
    stats : dict
        ``"evaluations"`` (static sub-problems solved), ``"seconds"`` (wall time) and
        search-specific counters (see :func:`time_scan`).

    Attributes
    ----------
    message : str
        Why no time index has a selection (``INFEASIBLE``), else the status's default message.

    Raises
    ------
    ValueError
        ``status`` is not a :class:`~vosim.core.results.Status` value.

    References
    ----------
    ICCS 2021 §3.2, §3.5; ``scipy.optimize.OptimizeResult`` for ``status`` and ``message``.
    """

    time_index: int
    probability: float
    selected: np.ndarray
    cost: float
    status: Status
    curve: np.ndarray
    method: str
    stats: dict[str, Any] = field(default_factory=dict)

    @property
    def solution(self) -> Any:
        """The resources selected at the chosen start (``selected``; its start: ``time_index``)."""
        return self.selected

    @property
    def objective(self) -> float:
        """The probability that every selected resource is available (``probability``)."""
        return self.probability

    def __post_init__(self) -> None:
        object.__setattr__(self, "status", Status(self.status))

    @property
    def message(self) -> str:
        """Why nothing was found, else the status's default message."""
        if self.status is Status.INFEASIBLE:
            return "no time index has a selection of n resources within the budget"
        return self.status.default_message


# ---------------------------------------------------------------------------------------------
# validation and helpers


def _ensure_methods() -> None:
    """Import the allocator modules that register methods, skipping those not written yet."""
    for name in _METHOD_MODULES:
        full = f"vosim.allocators.{name}"
        try:
            importlib.import_module(full)
        except ModuleNotFoundError as exc:
            if exc.name != full:
                raise


def _validate(
    p_avail: Any, cost: Any, n: Any, budget: Any
) -> tuple[np.ndarray, np.ndarray, int, float]:
    try:
        p = np.asarray(p_avail, dtype=float)
    except (TypeError, ValueError):
        raise ProblemError("p_avail must be a numeric (m, K) array") from None
    if p.ndim != 2 or p.shape[0] == 0 or p.shape[1] == 0:
        raise ProblemError(f"p_avail must be a non-empty (m, K) array, got shape {p.shape}")
    if not (p.min() >= 0 and p.max() <= 1):  # False for NaN too
        i, k = (int(v) for v in np.argwhere(~((p >= 0) & (p <= 1)))[0])
        raise ProblemError(f"p_avail must lie in [0, 1]; p_avail[{i}, {k}] = {p[i, k]}")
    try:
        c = np.asarray(cost, dtype=float)
    except (TypeError, ValueError):
        raise ProblemError("cost must be a numeric (m,) array") from None
    if c.shape != (p.shape[0],):
        raise ProblemError(
            f"cost must have shape (m,) = ({p.shape[0]},) to match p_avail, got {c.shape}"
        )
    if not np.all(np.isfinite(c)) or np.any(c < 0):
        i = int(np.flatnonzero(~np.isfinite(c) | (c < 0))[0])
        raise ProblemError(f"cost must be finite and >= 0; cost[{i}] = {c[i]}")
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise ProblemError(f"n must be an integer, got {n!r}")
    if not 1 <= n <= p.shape[0]:
        raise ProblemError(f"n must be in [1, m={p.shape[0]}], got {n}")
    try:
        b = float(budget)
    except (TypeError, ValueError):
        raise ProblemError(f"budget must be a number >= 0, got {budget!r}") from None
    if not b >= 0:
        raise ProblemError(f"budget must be >= 0, got {budget!r}")
    return p, c, int(n), b


def _nothing(curve: np.ndarray, method: str, stats: dict[str, Any]) -> TimeScanResult:
    """The result of a scan where no time index has a selection within the budget."""
    empty = np.empty(0, dtype=np.int64)
    return TimeScanResult(-1, 0.0, empty, 0.0, Status.INFEASIBLE, curve, method, stats)


def _pick(values: np.ndarray, keys: np.ndarray) -> int:
    """Position of the best value: the smallest key among values within TIE_RTOL of the max.

    ``values`` holds probabilities of feasible entries (>= 0) and NaN or negative entries for
    infeasible or unknown ones; returns -1 when there is no feasible entry.
    """
    ok = values >= 0  # False for NaN
    if not ok.any():
        return -1
    best = values[ok].max()
    tied = np.flatnonzero(ok & (values >= best * (1.0 - TIE_RTOL)))
    return int(tied[np.argmin(keys[tied])])


def starting_points(
    K: int, S: int, points: str = "uniform", rng: np.random.Generator | int | None = None
) -> np.ndarray:
    """Starting time indices of the §3.5 search on an interval of ``K`` time indices.

    Parameters
    ----------
    K : int
        Number of time indices ``t_0 .. t_{K-1}``.
    S : int
        Number of starting points, ``>= 1``; values above ``K`` are clipped to ``K``.
    points : {"uniform", "random", "combined"}
        ``"uniform"``: the midpoints of ``S`` equal segments of the interval,
        ``floor((s + 1/2) K / S)``, so ``S = 1`` starts in the middle and ``S = K`` gives every
        index. ``"random"``: ``S`` distinct indices drawn uniformly by ``rng``.
        ``"combined"``: ``ceil(S / 2)`` uniform points plus ``floor(S / 2)`` distinct random
        points among the other indices.
    rng : numpy.random.Generator or int, optional
        Source of randomness; required for ``"random"`` and ``"combined"``.

    Returns
    -------
    numpy.ndarray of int, shape (min(S, K),)
        Sorted, distinct starting indices.

    Raises
    ------
    ValueError
        ``K`` or ``S`` below 1, an unknown ``points``, or random points without ``rng``.

    References
    ----------
    ICCS 2021 §3.5, step 1 (uniform, randomized or combined starting points).

    Notes
    -----
    O(K) for random points (a permutation draw), O(S) otherwise.

    Examples
    --------
    >>> starting_points(801, 4).tolist()
    [100, 300, 500, 700]
    >>> starting_points(5, 9).tolist()
    [0, 1, 2, 3, 4]
    >>> len(starting_points(801, 10, "combined", rng=0))
    10
    """
    if isinstance(K, bool) or not isinstance(K, (int, np.integer)) or K < 1:
        raise ProblemError(f"K must be an integer >= 1, got {K!r}")
    if isinstance(S, bool) or not isinstance(S, (int, np.integer)) or S < 1:
        raise ProblemError(f"starts must be an integer >= 1, got {S!r}")
    if points not in _POINTS:
        raise ProblemError(f"points must be one of {', '.join(_POINTS)}; got {points!r}")
    S = min(int(S), int(K))
    n_uniform = {"uniform": S, "random": 0, "combined": (S + 1) // 2}[points]
    uniform = ((np.arange(n_uniform) + 0.5) * K / max(n_uniform, 1)).astype(np.int64)
    n_random = S - n_uniform
    if n_random == 0:
        return np.unique(uniform)
    if rng is None:
        raise ProblemError(f"rng: points={points!r} needs a numpy.random.Generator (or a seed)")
    gen = np.random.default_rng(rng)
    free = np.setdiff1d(np.arange(K), uniform)
    drawn = gen.choice(free, size=n_random, replace=False)
    return np.unique(np.concatenate([uniform, drawn]).astype(np.int64))


# ---------------------------------------------------------------------------------------------
# the public entry point


def time_scan(
    p_avail: Any,
    cost: Any,
    n: int,
    budget: float,
    method: str = "knapsack_p",
    starts: int | None = None,
    step: int = 1,
    *,
    points: str = "uniform",
    rng: np.random.Generator | int | None = None,
    fast: bool = False,
) -> TimeScanResult:
    """Best start time of an ``n``-node window over a scheduling interval by ``P_a^w`` (eq. 2).

    Parameters
    ----------
    p_avail : array_like, shape (m, K)
        ``P_a^{r_i}(t_k; t_k + T)``: availability of resource ``i`` for the whole job when it
        starts at time index ``k``, in [0, 1] (from the availability model).
    cost : array_like, shape (m,)
        Cost of each resource for the whole reservation (``T * c_i``, cost units),
        non-negative; integers keep the DP exact (real costs are passed on to the method;
        the fast scan turns them into integers exactly as ``knapsack_p`` does, with
        :func:`vosim.allocators.knapsack.integer_costs`).
    n : int
        Resources to select, ``1 <= n <= m``.
    budget : float
        Budget ``C`` on the total cost, ``>= 0`` (``inf`` for none).
    method : str
        Static method solving each time index, a name registered with
        :func:`~vosim.allocators.availability_problem.register_method` (``"knapsack_p"``,
        ``"greedy_united"``
        (GreedyJnt), ``"exact"``, ...).
    starts : int, optional
        ``None``: full scan of every time index. ``S >= 1``: the §3.5 starting-point search
        from ``S`` starting points (see :func:`starting_points`).
    step : int
        Search step ``δ >= 1`` in time indices (starting-point search only).
    points : {"uniform", "random", "combined"}
        Placement of the starting points (keyword only).
    rng : numpy.random.Generator or int, optional
        Randomness for ``points="random"`` or ``"combined"`` (keyword only).
    fast : bool
        With ``starts=None``: the fast exact scan (keyword only). It returns the time index,
        probability, status and (see Notes) selection of the full scan; the curve is NaN where
        a bound proved that a time index cannot win. Combining ``fast=True`` with ``starts``
        raises.

    Returns
    -------
    TimeScanResult
        ``time_index`` is ``-1`` (with probability 0.0 and an empty selection) when no time index
        has a feasible selection, e.g. when the ``n`` cheapest resources exceed the budget.

    Raises
    ------
    ValueError
        (:class:`~vosim.errors.ProblemError`) naming the field: ``p_avail`` not a non-empty 2-D
        array or outside [0, 1] (or NaN); ``cost`` of the wrong shape, negative or non-finite;
        ``n`` not an integer in ``[1, m]``; a negative or NaN ``budget``; ``starts`` or ``step``
        not an integer >= 1; an unknown ``points``; random points without ``rng``;
        ``fast=True`` with ``starts``.
        :class:`~vosim.errors.UnknownAllocatorError` (also a ``ValueError``) for an unknown
        ``method``.

    See Also
    --------
    starting_points, vosim.allocators.availability_problem.allocate_resources

    Notes
    -----
    **Ties.** The best start is the earliest time index whose probability is within
    :data:`TIE_RTOL` (relative 1e-12) of the maximum; infeasible time indices never win.

    **Full scan** (§3.2): ``K`` calls of the static method, e.g. ``O(K m n C)`` for
    ``"knapsack_p"`` (eq. 3 DP). ``stats["evaluations"] == K``.

    **Starting-point search** (§3.5). Each starting point ``s`` is solved, then its neighbours
    ``s - 1`` and ``s + 1`` (the gradient of step 3). If neither is strictly better, ``s`` is a
    local maximum (a plateau counts as one). Otherwise the search moves towards the better
    neighbour (the earlier one on a tie) through ``s ± δ, s ± 2δ, ...`` and stops when the value
    strictly decreases (the paper's stopping rule, so it walks across plateaus), when the next
    point would reach or pass the neighbouring starting point in that direction (whose own
    search covers the rest), or at the end of the interval (the last step is clipped to the end
    point). Every time index is solved at most once (memoised); the answer is the best of all
    evaluated points, so it never beats the full scan and equals it with ``starts=K, step=1``.
    Cost: one static solve per evaluated point (at most ``K``, typically a few per start).
    ``stats`` adds ``"starts"``, the starting indices.

    **Fast exact scan** (``fast=True``, beyond the paper). A sub-problem depends on ``k`` only
    through the column ``p_avail[:, k]``, and no selection of a column beats the product of its
    ``n`` largest entries (costs ignored). For ``"knapsack_p"``, with the integer costs of
    ``knapsack_p``:

    1. exact reductions: the least cost is subtracted from every cost (``n`` times from ``C``),
       costs are divided by their gcd, ``C`` is capped at the ``n`` dearest, resources dearer
       than the reduced ``C`` are dropped; if the ``n`` cheapest do not fit, every time index
       is infeasible (``O(m log m)``, no DP);
    2. runs of identical consecutive columns (``P_a`` changes only near events) are solved once;
    3. bounds in two levels: every block of 16 consecutive columns is bounded at once by the
       product of the ``n`` largest of its resources' maxima over the block (``O(K m)``, one
       pass); a block that can still reach the best value found is *opened*: its columns get
       their own bound (``np.partition``), with a *certificate* when it is 0 or when the
       resources above the ``n``-th largest entry and the cheapest of those tied with it fit
       the budget (the bound is then the optimum; free processors tie at 1). A block after
       the earliest column of the largest optimum known, whose bound does not exceed that
       optimum, is never opened (the earliest tie wins). Blocks open in rounds, the
       block of largest bound first; while no positive value is known, 1, 2, 4, ... blocks at
       a time, and columns of optimum 0 are recognised without a DP (the ``n`` cheapest
       resources of positive availability do not fit). Every column is feasible, so the best
       value is >= 0 from the start;
    4. Lagrangian bounds ``exp(λ C + max_{|S|=n} Σ_S (log p - λ c))``, with the multiplier
       that minimises the bound of the first column or block it is needed for (a grid of
       ``λ``; any ``λ >= 0`` gives a valid bound), prune columns and whole blocks (a block's
       bound uses its maxima); the maximisers that fit the budget are lower bounds;
    5. chunks of 16, 32, 64, ... open columns of largest bound are solved exactly by the eq. 3
       DP, vectorised across the chunk and the budget axis (``O(m' n C)`` numpy work per
       chunk); ``m'`` counts only resources that can belong to a set reaching the best value
       so far (``p_i`` times the ``n - 1`` largest entries must reach it) and that are not
       dominated, in every column of the chunk, by ``n`` others no dearer and at least as
       available. Columns (and blocks) whose bound falls below the best value found (minus
       the tie tolerance) are never solved.

    The time index is then the full scan's (same tie rule, same criterion). The selection at
    that index is the one ``knapsack_p`` makes there: the n most available resources when they
    are certified and clearly ahead of the next one, else the eq. 3 DP traced back from the
    cheapest budget that reaches the optimum (the rule of
    :func:`vosim.allocators.knapsack.knapsack_select`) when no two of the resources that can
    reach the optimum have (nearly) equal availability, else ``knapsack_select`` itself. So
    the probability is the full scan's bit for bit, up to exact coincidences between products
    of different availabilities (then both selections are optimal). If the DP table would be
    too large (very fine budgets), the scan falls back to the generic pruning below with
    ``knapsack_p`` itself.

    **GreedyJnt** (``"greedy_united"``): the full scan (with or without ``fast``) applies
    its rule to every column in one vectorised pass
    (:func:`vosim.allocators.greedy.united_scan`), the same selections as calling the
    method at each time index (the tests' oracle); ``stats["vectorised"]`` is True. ICCS
    2021 §4.3 reports its full scan 143 times faster than Knapsack's, which one Python call
    per time index hid.

    For any other ``method``, ``fast=True`` solves the distinct columns with the method, in
    decreasing order of the ``n``-largest bound, until no bound can reach the best value: it
    returns that method's full-scan answer (for deterministic methods; the bound holds for
    heuristics too, since no selection exceeds it).

    ``stats`` adds ``"unique_columns"``, ``"certified"`` (columns settled without a solve),
    ``"dp_solves"`` (columns solved) and ``"pruned"`` (columns whose optimum stays unknown);
    ``"evaluations"`` counts the distinct columns whose optimum is known. The worst case (all
    bounds loose) is the full scan's ``O(K m n C)``, vectorised; on the ICCS 2021 Table 1
    instances the median is a handful of solved columns out of 801 (see
    ``benchmarks/bench_timescan.py``).

    References
    ----------
    ICCS 2021 (``utilization-uncertainty-iccs2021.md``): §3.2 (static sub-problem and dynamic
    generalization, ``P_a^w = max_{t_k} P_a^w(t_k)``), eq. 2 and the Knapsack DP eq. 3 (§3.3),
    GreedyJnt (§3.4), §3.5 (starting points, step δ), Table 1.

    Examples
    --------
    Three resources over four start times; pick ``n = 2`` within budget 3:

    >>> p = np.array([[0.9, 0.9, 0.5, 0.5],
    ...               [0.8, 0.6, 0.9, 0.9],
    ...               [0.7, 0.95, 0.95, 0.2]])
    >>> cost = np.array([1, 2, 2])
    >>> full = time_scan(p, cost, 2, 3)                # §3.2 full scan, knapsack_p
    >>> full.time_index, round(full.probability, 4), full.selected.tolist()
    (1, 0.855, [0, 2])
    >>> full.curve.round(4).tolist(), full.stats["evaluations"]
    ([0.72, 0.855, 0.475, 0.45], 4)
    >>> fast = time_scan(p, cost, 2, 3, fast=True)     # the same answer, fewer solves
    >>> fast.time_index, fast.probability == full.probability
    (1, True)
    >>> time_scan(p, cost, 2, 3, starts=1).time_index  # from k = 2, climbs to k = 1
    1
    >>> time_scan(p, cost, 2, 2).time_index            # no pair fits the budget
    -1
    """
    started = time.perf_counter()
    p, c, n, b = _validate(p_avail, cost, n, budget)
    if not isinstance(method, str):
        raise ProblemError(f"method must be a registered method name, got {method!r}")
    if starts is not None and fast:
        raise ProblemError("fast: the fast exact scan applies to the full scan (starts=None)")
    if isinstance(step, bool) or not isinstance(step, (int, np.integer)) or step < 1:
        raise ProblemError(f"step must be an integer >= 1, got {step!r}")
    if points not in _POINTS:
        raise ProblemError(f"points must be one of {', '.join(_POINTS)}; got {points!r}")
    start_idx = None
    if starts is not None:
        start_idx = starting_points(p.shape[1], starts, points, rng)
    if fast and method == "knapsack_p":
        res = _fast_knapsack(p, c, n, b)
    elif method == "greedy_united" and start_idx is None:
        res = _united_scan(p, c, n, b)
    else:
        _ensure_methods()
        if method not in _problem.methods():
            raise UnknownAllocatorError(
                f"unknown method {method!r}; registered: {', '.join(_problem.methods())}"
            )
        if fast:
            res = _fast_generic(p, c, n, b, method)
        elif start_idx is None:
            res = _full_scan(p, c, n, b, method)
        else:
            res = _start_search(p, c, n, b, method, start_idx, int(step))
    res.stats["seconds"] = time.perf_counter() - started
    return res


# ---------------------------------------------------------------------------------------------
# full scan and the starting-point search, both through the method registry


def _solver(p: np.ndarray, c: np.ndarray, n: int, b: float, method: str):
    group = np.arange(p.shape[0])

    def solve(k: int) -> AvailabilityResult:
        prob = AvailabilityProblem(cost=c, group=group, group_p=p[:, k], n=n, budget=b)
        return _problem.allocate_resources(prob, method)

    return solve


def _score(res: AvailabilityResult) -> float:
    """Probability of a feasible result, -1 for an infeasible one (never wins, never ties)."""
    return -1.0 if res.status == Status.INFEASIBLE else float(res.probability)


def _finish(
    results: dict[int, AvailabilityResult], K: int, method: str, **stats: Any
) -> TimeScanResult:
    ks = np.fromiter(results, dtype=np.int64, count=len(results))
    scores = np.array([_score(results[int(k)]) for k in ks])
    curve = np.full(K, np.nan)
    curve[ks] = [results[int(k)].probability for k in ks]
    stats = {"evaluations": len(results), **stats}
    pos = _pick(scores, ks)
    if pos < 0:
        return _nothing(curve, method, stats)
    best = results[int(ks[pos])]
    return TimeScanResult(
        int(ks[pos]),
        float(best.probability),
        np.asarray(best.selected, dtype=np.int64),
        float(best.cost),
        best.status,
        curve,
        method,
        stats,
    )


def _full_scan(p: np.ndarray, c: np.ndarray, n: int, b: float, method: str) -> TimeScanResult:
    solve = _solver(p, c, n, b, method)
    results = {k: solve(k) for k in range(p.shape[1])}
    return _finish(results, p.shape[1], method)


def _start_search(
    p: np.ndarray, c: np.ndarray, n: int, b: float, method: str, starts: np.ndarray, step: int
) -> TimeScanResult:
    K = p.shape[1]
    solve = _solver(p, c, n, b, method)
    results: dict[int, AvailabilityResult] = {}

    def value(k: int) -> float:
        if k not in results:
            results[k] = solve(k)
        return _score(results[k])

    for i, s in enumerate(starts.tolist()):
        here = value(s)
        # step 3: the gradient from the two neighbours at distance 1
        left = value(s - 1) if s > 0 else -math.inf
        right = value(s + 1) if s < K - 1 else -math.inf
        if max(left, right) <= here:
            continue  # a local maximum (or plateau) at the starting point
        direction = -1 if left >= right else 1
        # the neighbouring starting point in that direction stops the movement
        if direction > 0:
            limit = int(starts[i + 1]) if i + 1 < len(starts) else None
        else:
            limit = int(starts[i - 1]) if i > 0 else None
        # step 4: move by δ while the value does not decrease
        pos, prev = s, here
        while True:
            nxt = min(max(pos + direction * step, 0), K - 1)
            if nxt == pos:
                break  # end of the interval
            if limit is not None and (nxt - limit) * direction >= 0:
                break  # reached (or would pass) the neighbouring start
            v = value(nxt)
            if v < prev:
                break  # the maximum lies in [pos, nxt]: stop
            pos, prev = nxt, v
    return _finish(results, K, method, starts=starts.tolist())


def _united_scan(p: np.ndarray, c: np.ndarray, n: int, b: float) -> TimeScanResult:
    """The full scan of ``greedy_united``, every time index in one vectorised pass.

    Same answer as :func:`_full_scan` with the registered method (the tests' oracle):
    :func:`vosim.allocators.greedy.united_scan` applies its rule to all columns at once.
    """
    selected, _ = united_scan(c, p, n, b)
    K = p.shape[1]
    ok = selected[:, 0] >= 0 if n else np.ones(K, dtype=bool)
    curve = np.zeros(K)
    rows = np.flatnonzero(ok)
    if n:
        curve[rows] = np.prod(p[selected[rows], rows[:, None]], axis=1)
    else:
        curve[rows] = 1.0
    scores = np.where(ok, curve, -1.0)
    k = _pick(scores, np.arange(K))
    stats = {"evaluations": K, "vectorised": True}
    if k < 0:
        return _nothing(curve, "greedy_united", stats)
    chosen = selected[k]
    return TimeScanResult(
        k,
        float(curve[k]),
        chosen,
        float(c[chosen].sum()),
        Status.FEASIBLE,
        curve,
        "greedy_united",
        stats,
    )


# ---------------------------------------------------------------------------------------------
# the fast exact scan


def _any_order_bound(product: np.ndarray, smallest: np.ndarray, n: int) -> np.ndarray:
    """Upper bounds of ``n``-factor products however their factors are multiplied: (U,) -> (U,).

    ``product`` is one order's product and ``smallest`` its least factor. In the subnormal
    range a rounding is absolute (up to half of the least subnormal each), so a product that
    one order rounds to 0 may be positive in another; ``n`` least subnormals are added where
    every factor is positive. Relative roundings of normal products stay within
    :data:`TIE_RTOL`, which every comparison with a bound allows for.
    """
    return product + (smallest > 0) * (n * _LEAST_SUBNORMAL)


def _runs(Q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Runs of identical consecutive rows of ``Q`` (K, m): first index of each run, row -> run."""
    new = np.empty(Q.shape[0], dtype=bool)
    new[0] = True
    np.any(Q[1:] != Q[:-1], axis=1, out=new[1:])
    return np.flatnonzero(new), np.cumsum(new) - 1


def _reduce_costs(
    cost: np.ndarray, budget: float, n: int
) -> tuple[np.ndarray, np.ndarray, int] | None:
    """Exact reductions of an integer problem: (rows kept, reduced costs, reduced budget).

    Exactly ``n`` resources are chosen, so subtracting the least cost from every cost (and
    ``n`` times from the budget) and dividing by the costs' greatest common divisor keep the
    feasible sets; no ``n``-set costs more than the ``n`` dearest resources, which caps the
    budget. Resources dearer than the reduced budget are dropped. ``None`` when no ``n``
    resources fit.
    """
    rows = np.flatnonzero(cost <= budget)
    if rows.size < n or np.sort(cost[rows])[:n].sum() > budget:
        return None
    c = cost[rows]
    low = int(c.min())
    c = c - low
    step = int(np.gcd.reduce(c)) if c.any() else 1
    c //= step
    cap = int(np.sort(c)[-n:].sum())
    if not math.isinf(budget):
        cap = min(cap, math.floor((budget - n * low) / step))
    keep = c <= cap
    return rows[keep], c[keep], cap


def _dp_chunk(Q: np.ndarray, c: np.ndarray, n: int, B: int) -> np.ndarray:
    """Eq. 3 DP optima of many columns at once: (b, m) probabilities -> (b,) best products.

    ``f[v, x, col]`` is the best product of ``v`` of the resources seen so far with total cost
    at most ``x``; NaN marks "no such set" (``np.fmax`` ignores it and ``NaN * 0`` stays NaN,
    so zero probabilities remain feasible). One numpy step per resource, across the budget
    axis and all ``b`` columns.
    """
    b, m = Q.shape
    P = np.ascontiguousarray(Q.T)
    f = np.full((n + 1, B + 1, b), np.nan)
    f[0] = 1.0
    for j in range(m):
        cj = int(c[j])
        hi = min(j + 1, n)  # sets of at most j + 1 resources exist after resource j
        lo = max(1, n - (m - j) + 1)  # sets of fewer than lo can no longer reach n
        if lo > hi or cj > B:
            continue
        cand = f[lo - 1 : hi, : B + 1 - cj] * P[j]
        np.fmax(f[lo : hi + 1, cj:], cand, out=f[lo : hi + 1, cj:])
    return f[n, B]


def _dp_select(q: np.ndarray, c: np.ndarray, n: int, B: int) -> np.ndarray:
    """Eq. 3 DP with backward induction for one column: (m,) -> chosen positions (n,).

    The tables after each resource are kept; the trace starts from the cheapest budget that
    reaches the optimum (like :func:`vosim.allocators.knapsack.knapsack_select`), and resource
    ``j`` was taken where it changed the table at the state being traced back.
    """
    m = q.size
    layers = np.full((m + 1, n + 1, B + 1), np.nan)
    layers[:, 0] = 1.0
    for j in range(m):
        f, g = layers[j], layers[j + 1]
        g[1:] = f[1:]
        cj = int(c[j])
        if cj <= B:
            np.fmax(g[1:, cj:], f[:n, : B + 1 - cj] * q[j], out=g[1:, cj:])
    last = layers[m, n]
    x = int(np.argmax(last >= last[B]))  # cheapest budget reaching the optimum
    chosen = []
    v = n
    for j in range(m - 1, -1, -1):
        if v and not layers[j + 1, v, x] == layers[j, v, x]:  # NaN != value: taken
            chosen.append(j)
            v -= 1
            x -= int(c[j])
    return np.array(chosen[::-1], dtype=np.int64)


def _dual_lambda(q: np.ndarray, c: np.ndarray, n: int, B: int) -> tuple[float, float]:
    """A good Lagrange multiplier of the budget for one column, and a feasible value.

    ``g(λ) = λ C + max_{|S|=n} Σ_S (log p - λ c)`` bounds ``log P_a^w`` from above for every
    ``λ >= 0`` (convex, piecewise linear); its minimiser on a geometric grid of ``λ`` up to
    the largest useful slope (log-probability spread per unit of reduced cost) is returned,
    with the best product of the maximisers that fit the budget (-1 if none does).
    """
    m = q.size
    with np.errstate(divide="ignore"):
        logq = np.log(q)
    finite = logq[np.isfinite(logq)]
    if finite.size < n:
        return 0.0, -1.0
    grid = _LAMBDA_GRID * (float(finite.max() - finite.min()) or 1.0)
    score = logq[None, :] - grid[:, None] * c[None, :]
    idx = np.argpartition(score, m - n, axis=1)[:, m - n :]
    top = np.take_along_axis(score, idx, axis=1).sum(axis=1) + grid * B
    fits = c[idx].sum(axis=1) <= B
    lower = float(np.prod(q[idx[fits]], axis=1).max()) if fits.any() else -1.0
    return float(grid[int(np.argmin(top))]), lower


def _lagrange_pass(
    Q: np.ndarray, c: np.ndarray, n: int, B: int, lam: float
) -> tuple[np.ndarray, float]:
    """Lagrangian upper bounds (b,) of columns ``Q`` (b, m) for one ``λ``, and a lower bound.

    Every feasible ``n``-set ``S`` has ``Σ_S log p <= Σ_S (log p - λ c) + λ C``, at most the
    sum over the ``n`` best-scoring resources plus ``λ C``. Those resources, when they fit the
    budget, are a feasible set: their product is a lower bound of the column's optimum.
    """
    m = Q.shape[1]
    with np.errstate(divide="ignore"):
        logq = np.log(Q)
    score = logq - lam * c
    idx = np.argpartition(score, m - n, axis=1)[:, m - n :]
    with np.errstate(over="ignore"):  # an infinite bound is merely useless
        upper = np.exp(np.take_along_axis(score, idx, axis=1).sum(axis=1) + lam * B)
    fits = c[idx].sum(axis=1) <= B
    values = np.prod(np.take_along_axis(Q, idx, axis=1), axis=1)
    lower = float(values[fits].max()) if fits.any() else -1.0
    return upper * (1 + _BOUND_SLACK), lower


def _undominated(Q: np.ndarray, c: np.ndarray, n: int) -> np.ndarray:
    """Resources not dominated, in some column of ``Q`` (b, m), by ``n`` others.

    Resource ``j`` dominates ``i`` when it comes first in the order by (cost, index) and
    ``p_j >= p_i``. A resource with ``n`` dominators is never needed: an optimal set holding it
    misses one of them, and the swap keeps the product and the budget (swaps end, since
    domination is a strict order).
    """
    m = Q.shape[1]
    order = np.lexsort((np.arange(m), c))
    P = Q[:, order]  # (b, m) in (cost, index) order
    before = np.tri(m, m, -1, dtype=bool).T  # before[j, i]: j < i
    count = ((P[:, :, None] >= P[:, None, :]) & before).sum(axis=1)  # (col, i)
    return np.sort(order[(count < n).any(axis=0)])


# Complexity above 15: the ICCS 2021 time scan's knapsack with its exactness certificates and
# pruning in one loop over candidate starts, so each start's bounds are computed once.
def _fast_knapsack(p: np.ndarray, c: np.ndarray, n: int, b: float) -> TimeScanResult:  # noqa: C901
    m, K = p.shape
    method = "knapsack_p"
    stats: dict[str, Any] = {"unique_columns": 0, "certified": 0, "dp_solves": 0, "pruned": 0}
    ic = integer_costs(c, b)
    status = Status.OPTIMAL if ic.exact else Status.FEASIBLE
    reduced = _reduce_costs(ic.cost, ic.budget, n)
    if reduced is None:
        stats["evaluations"] = 0
        return _nothing(np.zeros(K), method, stats)
    rows, cr, B = reduced
    if (n + 1) * (B + 1) > _MAX_DP_CELLS:  # too fine a budget to vectorise across columns
        return _fast_generic(p, c, n, b, method)
    r = rows.size
    # (K, r): a row per time index. take() writes a C-ordered copy; gathering rows and then
    # transposing costs ten times more on a (2000, 350) matrix.
    Q = np.ascontiguousarray(p.T) if r == m else np.take(p.T, rows, axis=1)
    first, inverse = _runs(Q)
    if first.size < K:  # repeated columns: keep one of each run
        Q = Q[first]
    U = first.size
    stats["unique_columns"] = U
    exact = np.full(U, np.nan)  # the known optimum of each distinct column

    # (3) bounds. A block of _BLOCK consecutive columns is bounded by the product of the n
    # largest of its resources' block maxima; a column by the product of its n largest
    # entries, which is its optimum when those fit the budget (or when it is 0).
    starts_b = np.arange(0, U, _BLOCK)
    full = U // _BLOCK
    block_max = Q[: full * _BLOCK].reshape(full, _BLOCK, r).max(axis=1)  # (blocks, r)
    if full < starts_b.size:
        block_max = np.vstack([block_max, Q[full * _BLOCK :].max(axis=0)])
    part_b = np.sort(block_max, axis=1)[:, r - n :]  # not partition: see bound()
    rest_b = np.prod(part_b[:, 1:], axis=1)
    upper_b = _any_order_bound(rest_b * part_b[:, 0], part_b[:, 0], n)
    closed = np.zeros(starts_b.size, dtype=bool)  # blocks whose columns are bounded
    part = np.zeros((U, n))
    rest = np.zeros(U)  # product of the n - 1 largest entries of a column
    upper = np.full(U, -1.0)
    is_top = np.zeros(U, dtype=bool)  # optimum certified as the n most available resources
    best = 0.0  # every column is feasible: every optimum is >= 0
    cost_f = cr.astype(float)
    by_cost = np.argsort(cr, kind="stable")
    cheap = by_cost[:n]

    def floor() -> float:
        return best * (1 - 2 * TIE_RTOL)

    def survivors(idx: np.ndarray) -> np.ndarray:
        return idx[upper[idx] >= floor()]

    def zero_optimum(idx: np.ndarray) -> np.ndarray:
        # the optimum is 0 when the n cheapest resources of positive availability do not fit
        # (only possible where one of the n cheapest resources has availability 0)
        Qi = Q[idx]
        out = (Qi[:, cheap] == 0).any(axis=1)
        if out.any():
            pos_cost = np.where(Qi[out] > 0, cr, B + 1)
            out[out] = np.sort(pos_cost, axis=1)[:, :n].sum(axis=1) > B
        exact[idx[out]] = 0.0
        stats["certified"] += int(out.sum())
        return out

    def bound(blocks: np.ndarray) -> np.ndarray:
        # column bounds and certificates for the columns of `blocks`; the others returned
        nonlocal best
        closed[blocks] = True
        cols = (starts_b[blocks, None] + np.arange(_BLOCK)).ravel()
        cols = cols[cols < U]
        Qi = Q[cols]
        # The n largest by a sort: np.partition (introselect) slows down tenfold on the many
        # equal values of these columns (free nodes at 1, busy ones at 0): 2.5 ms against
        # 0.16 ms on a 16 x 2004 block, which made a few runs of a study eight times slower.
        pt = np.sort(Qi, axis=1)[:, r - n :]
        part[cols] = pt
        rest[cols] = np.prod(pt[:, 1:], axis=1)
        value = rest[cols] * pt[:, 0]
        upper[cols] = _any_order_bound(value, pt[:, 0], n)
        # The bound is reached by the resources above the n-th largest value and the
        # cheapest of those tied with it (free processors tie at 1): if they fit, it is the
        # optimum (when it is not subnormal: see _TINY). An n-th largest of 0 makes every
        # n-set's product 0.
        over, tie = Qi > pt[:, :1], Qi == pt[:, :1]
        need = n - over.sum(axis=1)  # >= 1, at most the tied count
        tie_c = tie[:, by_cost]  # the tied resources in cost order: take the first `need`
        taken = tie_c & (np.cumsum(tie_c, axis=1) <= need[:, None])
        fits = over @ cost_f + taken @ cost_f[by_cost] <= B
        ok = (fits & (value >= _TINY)) | (pt[:, 0] == 0)
        exact[cols[ok]] = value[ok]
        unique = need == tie.sum(axis=1)  # no tie at the n-th: the n largest are one set
        is_top[cols[ok]] = (value[ok] > 0) & unique[ok]
        stats["certified"] += int(ok.sum())
        best = max(best, float(np.max(value[ok], initial=0.0)))
        return cols[~ok]

    def live(idx: np.ndarray, floor_: float, M: np.ndarray = Q, R: np.ndarray = rest) -> np.ndarray:
        # Only a set worth at least `floor_` matters, and each of its resources has p_i times
        # the n - 1 largest availabilities of the column >= floor_: the other resources can
        # be left out, which keeps every optimum >= floor_ (and only those are recorded).
        reach = M[idx] * R[idx, None] >= floor_ * (1 - _BOUND_SLACK)
        return np.flatnonzero(reach.any(axis=0))

    def tighten(idx: np.ndarray, M: np.ndarray = Q, R: np.ndarray = rest, U_: np.ndarray = upper):
        # (4) Lagrangian bounds of the rows `idx` of M (columns, or block maxima), with the
        # multiplier that suits the first leading row (then reused); computed in log space,
        # so used only above underflow (_TINY). Returns the rows that may still reach the
        # best value.
        nonlocal best
        rows_l = live(idx, floor(), M, R)
        if rows_l.size < n:
            return idx[:0]  # none can reach the best value
        Mt, cl = M[np.ix_(idx, rows_l)], cr[rows_l]
        lam = multiplier[0]
        if lam is None:  # chosen once, for the first leading column, then reused
            lam, lead_lower = _dual_lambda(Mt[np.argmax(U_[idx])], cl, n, B)
            multiplier[0] = lam
            if M is Q:  # a block's maximiser is no selection of a column
                best = max(best, lead_lower)
        if lam > 0:
            lag_upper, lag_lower = _lagrange_pass(Mt, cl, n, B, lam)
            if M is Q:
                best = max(best, lag_lower)
            if best > _TINY:
                U_[idx] = np.minimum(U_[idx], lag_upper)
                return idx[U_[idx] >= floor()]
        return idx

    def settle_late_blocks() -> None:
        # A block after the earliest column of the largest known optimum, bounded by that
        # optimum, cannot hold the answer (the earliest of the ties): it is closed unsolved.
        if np.isnan(exact).all():
            return
        top = np.nanmax(exact)
        lead = int(np.argmax(exact >= top))
        closed[(upper_b <= top) & (starts_b > lead)] = True

    multiplier: list[float | None] = [None]
    # the block of largest bound first (ties: the earliest), then the others that can reach
    # the best value found, in rounds
    todo = bound(np.array([int(np.argmax(upper_b))]))
    chunk = _FIRST_CHUNK
    max_chunk = max(1, _MAX_DP_CELLS // ((n + 1) * (B + 1)))
    zero_checked = False
    grow = 3
    while True:
        todo = survivors(todo)
        if todo.size:
            # (5) exact DP of the columns of largest bound, vectorised across them
            todo = todo[np.lexsort((first[todo], -upper[todo]))]  # largest bound first
            size = min(chunk, max_chunk)
            now, todo = todo[:size], todo[size:]
            if not zero_checked:
                now = now[~zero_optimum(now)]
            keep = live(now, floor())
            if keep.size > 2 * n and now.size > 1:  # a lower bound first shrinks the DP
                now = tighten(now)
                keep = live(now, floor())
            low = floor()
            if now.size and keep.size >= n:  # else no column of the chunk reaches the floor
                Qn = Q[np.ix_(now, keep)]
                if keep.size > 2 * n and now.size * keep.size**2 <= _MAX_DP_CELLS:
                    sub = _undominated(Qn, cr[keep], n)
                    keep, Qn = keep[sub], Qn[:, sub]
                values = _dp_chunk(Qn, cr[keep], n, B)
                values[~(values >= low)] = np.nan  # below the floor: not exact, cannot win
                exact[now] = values
                stats["dp_solves"] += int(now.size)
                best = max(best, float(np.nanmax(values, initial=-1.0)))
            if now.size == size:
                chunk *= 2
        # the blocks that may still reach the best value; while no positive value is known
        # (nothing to prune with), a few at a time in bound order, doubling each round
        settle_late_blocks()
        more = np.flatnonzero(~closed & (upper_b >= floor()))
        if best == 0 and not todo.size:
            more = more[np.lexsort((more, -upper_b[more]))[:grow]]
            grow *= 4
        if more.size > 1 and best > _TINY:
            more = tighten(more, block_max, rest_b, upper_b)
            closed[np.flatnonzero(~closed & (upper_b < floor()))] = True  # pruned for good
        if more.size:
            new = bound(more)
            if best == 0:  # still no positive value: settle the zero columns
                new = new[~zero_optimum(new)]
                zero_checked = True
            todo = np.concatenate([todo, new])
        todo = survivors(todo)
        if not todo.size and not np.any(~closed & (upper_b >= floor())):
            break
        if todo.size > chunk:
            todo = tighten(todo)
    known = ~np.isnan(exact)
    stats["pruned"] = int(U - known.sum())
    stats["evaluations"] = int(known.sum())
    u = _pick(exact, first)
    k = int(first[u])
    selected = None
    if is_top[u] and exact[u] > 0:
        # the n most available resources fit; with a clear gap to the next one they are the
        # only selection within rounding of the optimum, which knapsack_select then returns
        col = Q[u]
        nth = part[u, 0]
        below = col[col < nth]
        if below.size == 0 or below.max() < nth * (1 - 64 * TIE_RTOL):
            selected = np.sort(rows[np.flatnonzero(col >= nth)])
    if selected is None and exact[u] > 0:
        # Every selection within rounding of the optimum uses resources that can reach it
        # (`live`). Without two (nearly) equal availabilities among those, the optimal
        # selection is unique up to exact coincidences of products, and the DP traced back
        # finds the one knapsack_select returns.
        keep = live(np.array([u]), exact[u] * (1 - _BOUND_SLACK))
        vals = np.sort(Q[u, keep])
        small = (keep.size + 1) * (n + 1) * (B + 1) <= _MAX_DP_CELLS
        if small and np.all(np.diff(vals) > 64 * TIE_RTOL * vals[1:]):
            selected = np.sort(rows[keep[_dp_select(Q[u, keep], cr[keep], n, B)]])
    if selected is None:
        # the selection knapsack_p makes at t_k (same function, same integer costs)
        selected = knapsack_select(ic.cost, p[:, k], n, ic.budget)
    return TimeScanResult(
        k,
        float(np.prod(p[selected, k])),
        selected,
        float(c[selected].sum()),
        status,
        exact[inverse],
        method,
        stats,
    )


def _fast_generic(p: np.ndarray, c: np.ndarray, n: int, b: float, method: str) -> TimeScanResult:
    m = p.shape[0]
    Q = np.ascontiguousarray(p.T)
    first, inverse = _runs(Q)
    U = first.size
    top = np.take_along_axis(Q[first], np.argpartition(Q[first], m - n, axis=1)[:, m - n :], axis=1)
    upper = _any_order_bound(np.prod(top, axis=1), top.min(axis=1), n)
    solve = _solver(p[:, first], c, n, b, method)
    results: dict[int, AvailabilityResult] = {}
    best = -1.0
    for u in np.lexsort((first, -upper)).tolist():
        if upper[u] < best * (1 - 2 * TIE_RTOL):
            break  # no remaining column can reach the best value
        results[u] = solve(u)
        best = max(best, _score(results[u]))
    scores = np.full(U, np.nan)
    probs = np.full(U, np.nan)
    for u, res in results.items():
        scores[u], probs[u] = _score(res), res.probability
    stats = {
        "evaluations": len(results),
        "unique_columns": U,
        "certified": 0,
        "dp_solves": len(results),
        "pruned": U - len(results),
    }
    u = _pick(scores, first)
    if u < 0:
        return _nothing(probs[inverse], method, stats)
    res = results[u]
    return TimeScanResult(
        int(first[u]),
        float(res.probability),
        np.asarray(res.selected, dtype=np.int64),
        float(res.cost),
        res.status,
        probs[inverse],
        method,
        stats,
    )
