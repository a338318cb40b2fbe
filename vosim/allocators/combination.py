"""Choice of a combination of alternatives under a limit on user evaluations (VO Preferences §3).

Step 2 of the cyclic scheduling scheme (CSS) picks one alternative per job of a batch so that
the batch optimises the VO criterion, a sum of the jobs' values,

    f(s) = sum_i f_i(s_j) -> extr,    sum_i u_i(s_j) <= u*,

where ``u_i(s_j) >= 0`` is the *user evaluation* ``U`` of alternative ``s_j`` of job ``i``
(0 = what the user likes best) and ``u*`` the limit for the batch (``U_a = u*/n`` on average
per job). :func:`choose_combination` solves it exactly for real-valued ``U`` (relative
evaluations are percentages such as 33.33...), and :func:`combination_curve` answers a whole
grid of limits with one dynamic programme.

The same function solves every problem of the scheme that limits one additive quantity, with
the limited quantity passed as ``user_evals``:

* ``T -> min, lim C``: ``choose_combination(times, costs, C_limit, "min")``;
* ``C -> max, lim T``: ``choose_combination(costs, times, T_limit, "max")``;
* ``C -> max, lim U`` and ``T -> min, lim U`` (VO Preferences §3):
  ``choose_combination(costs, U, u_star, "max")`` and ``choose_combination(times, U, u_star,
  "min")`` with ``U`` from :func:`user_evaluations` (``u_star = U_a * n``).

:func:`user_evaluations` computes the ordinal and relative evaluations ``U`` of one job's
alternatives (Table 1), :func:`vo_evaluation` the VO's relative evaluation ``A`` of a batch
result and :func:`compromise` the compromise points of an ``(U_a, A)`` curve (§5.2).

Ties. Among the combinations with the optimal VO total, the one with the smallest summed
``U`` is returned; among those (equal VO total and equal summed ``U``), the one whose vector of
alternative indices is lexicographically smallest (the first job's index compared first), so
alternatives found earlier win. Totals are floating-point sums taken left to right in job
order, one addition at a time (Python 3.12's ``sum`` compensates rounding and may differ in the
last bit); the optimum and the smallest summed ``U`` are exact for those sums. The
lexicographic rule is exact whenever the partial sums are exact (e.g. integers or multiples of
a power of two); with other real values, two combinations whose totals tie only after rounding
(their partial sums differed) may resolve the other way.
"""

from __future__ import annotations

import itertools
import math
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np

from vosim.core.results import Result, Status
from vosim.errors import ProblemError

__all__ = [
    "LIMIT_RTOL",
    "CombinationResult",
    "choose_combination",
    "combination_curve",
    "user_evaluations",
    "vo_evaluation",
    "Compromise",
    "compromise",
]

#: A summed user evaluation within this relative distance above the limit counts as within it
#: (``sum U <= limit * (1 + LIMIT_RTOL)``), so that e.g. six relative evaluations of
#: 33.33...% (summing to 200.00000000000003) fit a limit of 200.
LIMIT_RTOL = 1e-12

#: Relative margin (of the values' scale) by which a state's upper bound must miss the lower
#: bound before the state is dropped; rounding errors are some 1e-14 of that scale.
_BOUND_MARGIN = 1e-9
#: With one finite limit, fronts larger than this are pruned by the bounds of :class:`_Bounds`.
_BOUND_MIN = 512
#: Candidate sets larger than this are thinned by U bins before they are sorted.
_FILTER_MIN = 4096

_SENSES = ("max", "min")
_KINDS = ("ordinal", "relative")


@dataclass(frozen=True, slots=True)
class CombinationResult(Result):
    """One alternative per job of a batch, chosen by :func:`choose_combination`.

    Parameters
    ----------
    choice : numpy.ndarray of int64, shape (n_jobs,) or (0,)
        ``choice[i]`` is the index of the alternative chosen for job ``i``; empty when no
        combination fits the limit.
    vo_total : float
        Sum of the chosen VO values, left to right in job order (``nan`` when infeasible).
    user_total : float
        Sum of the chosen user evaluations ``U``, left to right in job order (``nan`` when
        infeasible).
    feasible : bool
        Whether a combination fits the limit.
    reason : str
        ``""`` when feasible; otherwise why not, naming the limit and the least summed ``U``.
    limit : float
        The limit ``u*`` the combination was chosen for.

    Attributes
    ----------
    status : Status
        ``OPTIMAL`` when ``feasible`` (the dynamic programme is exact), else ``INFEASIBLE``.
    message : str
        ``reason`` when there is one, else the status's default message.

    References
    ----------
    VO Preferences §3; ``scipy.optimize.OptimizeResult`` for ``status`` and ``message``.
    """

    choice: np.ndarray
    vo_total: float
    user_total: float
    feasible: bool
    reason: str = ""
    limit: float = math.inf

    stats: dict[str, Any] = field(default_factory=dict)

    @property
    def solution(self) -> Any:
        """The alternative chosen per job (``choice``)."""
        return self.choice

    @property
    def objective(self) -> float:
        """The summed VO values of the choice (``vo_total``; NaN when infeasible)."""
        return self.vo_total

    @property
    def status(self) -> Status:
        """``OPTIMAL`` when a combination fits the limit, else ``INFEASIBLE``."""
        return Status.OPTIMAL if self.feasible else Status.INFEASIBLE

    @property
    def message(self) -> str:
        """``reason``, or the status's default message when there is none."""
        return self.reason or self.status.default_message


class Compromise(NamedTuple):
    """Compromise points of a ``(U_a, A)`` curve, from :func:`compromise`.

    Attributes
    ----------
    equal : tuple of (float, float) or None
        ``(U_a, A)`` where the curve first meets the line ``A = U_a`` (interpolated linearly
        between grid points); ``None`` if it never does.
    additive : tuple of (float, float)
        The grid point minimising ``A + U_a`` (the first one on ties).
    """

    equal: tuple[float, float] | None
    additive: tuple[float, float]


# --------------------------------------------------------------------------------------------
# input checks


def _check_sense(sense: str) -> None:
    if sense not in _SENSES:
        raise ProblemError(f"sense must be 'max' or 'min', got {sense!r}")


def _check_limit(limit, name: str = "limit") -> float:
    try:
        value = float(limit)
    except (TypeError, ValueError):
        raise ProblemError(f"{name} must be a number >= 0, got {limit!r}") from None
    if not value >= 0:  # also NaN
        raise ProblemError(f"{name} must be >= 0 (inf for none), got {value!r}")
    return value


def _rows(values, name: str) -> list[np.ndarray]:
    """One float array per job from a 2-D array or a sequence of sequences."""
    if isinstance(values, np.ndarray):
        if values.ndim != 2:
            raise ProblemError(
                f"{name} must be 2-D (jobs x alternatives) or a sequence of sequences, "
                f"got an array of shape {values.shape}"
            )
        rows = list(values)
    elif isinstance(values, Sequence) and not isinstance(values, str):
        rows = list(values)
    else:
        try:
            rows = list(values)
        except TypeError:
            raise ProblemError(
                f"{name} must be a sequence of jobs' alternatives, got {type(values).__name__}"
            ) from None
    out = []
    for i, row in enumerate(rows):
        try:
            arr = np.asarray(row, dtype=float)
        except (TypeError, ValueError):
            raise ProblemError(f"{name}[{i}] (job {i}) must hold numbers, got {row!r}") from None
        if arr.ndim != 1:
            raise ProblemError(
                f"{name}[{i}] (job {i}) must be a 1-D sequence of alternatives, "
                f"got shape {arr.shape}"
            )
        if arr.size == 0:
            raise ProblemError(f"job {i} has no alternatives ({name}[{i}] is empty)")
        bad = ~np.isfinite(arr)
        if bad.any():
            j = int(np.flatnonzero(bad)[0])
            raise ProblemError(f"{name}[{i}][{j}] = {arr[j]} (job {i}) is not finite")
        out.append(arr)
    return out


def _batch(vo_values, user_evals) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Validated rows of VO values and user evaluations (same shapes, finite, ``U >= 0``)."""
    vo = _rows(vo_values, "vo_values")
    ue = _rows(user_evals, "user_evals")
    if len(vo) != len(ue):
        raise ProblemError(
            f"vo_values has {len(vo)} jobs but user_evals has {len(ue)}; they must match"
        )
    for i, (v, u) in enumerate(zip(vo, ue, strict=True)):
        if v.size != u.size:
            raise ProblemError(
                f"job {i} has {v.size} VO values but {u.size} user evaluations; they must match"
            )
        if np.any(u < 0):
            j = int(np.flatnonzero(u < 0)[0])
            raise ProblemError(f"user_evals[{i}][{j}] = {u[j]} (job {i}) is negative")
    return vo, ue


# --------------------------------------------------------------------------------------------
# the Pareto-front dynamic programme


@dataclass(slots=True)
class _Front:
    """Non-dominated ``(summed U, summed W)`` states after the last job, with back-pointers.

    ``u`` ascending and ``w`` strictly ascending; ``parents[i][k]`` is the state of the front
    before job ``i`` that state ``k`` after job ``i`` extends, ``alts[i][k]`` the alternative
    of job ``i`` it takes.
    """

    u: np.ndarray
    w: np.ndarray
    parents: list[np.ndarray]
    alts: list[np.ndarray]


def _job_front(w: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Indices (ascending) of a job's alternatives not dominated within the job.

    An alternative is dominated when another has ``U`` no larger and ``W`` no smaller, one of
    them strictly: it can always be swapped for that one. Of equal ``(U, W)`` pairs the first
    index is kept.
    """
    if w.size == 1:
        return np.zeros(1, dtype=np.int64)
    order = np.lexsort((np.arange(w.size), -w, u))  # by U, best W first, then index
    ws = w[order]
    keep = np.empty(w.size, dtype=bool)
    keep[0] = True
    keep[1:] = ws[1:] > np.maximum.accumulate(ws)[:-1]
    return np.sort(order[keep])


def _undominated_by_bins(cu: np.ndarray, cw: np.ndarray, bins: int) -> np.ndarray | None:
    """Mask of candidates not beaten by one in a lower ``U`` bin; ``None`` if no bins fit.

    ``U`` is cut into ``bins`` equal bins (a rounding-monotone map, so a lower bin means a
    strictly smaller ``U``); a candidate whose ``W`` does not exceed the best ``W`` of all lower
    bins is strictly dominated and can be dropped before the sort. O(N), no sort.
    """
    lo, hi = float(cu.min()), float(cu.max())
    scale = bins / (hi - lo) if hi > lo else math.inf
    if not math.isfinite(scale):
        return None
    b = ((cu - lo) * scale).astype(np.int64)
    np.minimum(b, bins - 1, out=b)
    best = np.full(bins, -np.inf)
    np.maximum.at(best, b, cw)
    below = np.empty(bins)
    below[0] = -np.inf
    np.maximum.accumulate(best[:-1], out=below[1:])
    return cw > below[b]


class _Bounds:
    """Bounds that drop states no completion can lift to the optimum, for one limit.

    The *upper bound* of a state after job ``i`` (summed ``U`` and ``W`` so far) adds a
    relaxation of the remaining jobs with the remaining budget: each job is a chain of
    segments ``(dU, dW)`` from its least-``U`` alternative through its upper convex hull in
    the ``(U, W)`` plane, and the segments of all remaining jobs are taken by decreasing slope
    ``dW/dU``, the last one fractionally (a fractional knapsack: the linear relaxation of the
    multiple-choice knapsack when the chains are concave, and an upper bound whatever the
    order within a chain). The *lower bound* is the value of a
    feasible combination: the same greedy taking whole segments, each job in its chain's order
    and closed at its first miss, then the budget left filled job by job with the best front
    point that fits, raised during the programme by states completed with every
    remaining job's least-``U`` alternative. A state goes when its upper bound, with the budget
    widened and the bound raised by margins (a relative ``_BOUND_MARGIN`` of the scale of
    ``U`` and ``W``, far above rounding), is below the lower bound. Any state that could still
    reach or tie the optimum is kept, so the answer is the one without bounds.
    """

    def __init__(self, W: list[np.ndarray], U: list[np.ndarray], cap: float) -> None:
        n = len(W)
        jobs, steps, dus, dws = [], [], [], []
        points, hulls = [], []  # each job's front (U and W ascending), its hull's positions
        low_u, low_w = np.zeros(n + 1), np.zeros(n + 1)
        for i, (w, u) in enumerate(zip(W, U, strict=True)):
            idx = _job_front(w, u)
            o = np.argsort(u[idx], kind="stable")  # U and W both strictly ascending
            hu, hw = u[idx][o].tolist(), w[idx][o].tolist()
            hull = [0]
            for k in range(1, len(hu)):
                while len(hull) >= 2 and _below_chord(hu, hw, hull[-2], hull[-1], k):
                    hull.pop()
                hull.append(k)
            points.append((hu, hw))
            hulls.append(hull)
            low_u[i], low_w[i] = hu[0], hw[0]
            for step, (a, b) in enumerate(itertools.pairwise(hull)):
                jobs.append(i)
                steps.append(step)
                dus.append(hu[b] - hu[a])
                dws.append(hw[b] - hw[a])
        job, step = np.array(jobs, dtype=np.int64), np.array(steps, dtype=np.int64)
        du, dw = np.array(dus), np.array(dws)
        with np.errstate(over="ignore"):  # dU can be tiny: an infinite slope goes first
            slope = dw / du
        # the lower bound's greedy follows each chain in order: slopes made non-increasing
        chain_slope = slope.copy()
        for i in range(n):
            on = job == i
            chain_slope[on] = np.minimum.accumulate(slope[on])
        lb_order = np.lexsort((step, job, -chain_slope))
        by_slope = np.lexsort((step, job, -dw, -slope))  # the fractional knapsack's order
        # suffix i: the jobs i..n-1 at their least U, and the knots of their relaxation
        lb_segments = zip(
            job[lb_order].tolist(),
            step[lb_order].tolist(),
            du[lb_order].tolist(),
            dw[lb_order].tolist(),
            strict=True,
        )
        job, du, dw = job[by_slope], du[by_slope], dw[by_slope]
        self.base_u = np.cumsum(low_u[::-1])[::-1]
        self.base_w = np.cumsum(low_w[::-1])[::-1]
        self.knots = []
        for i in range(n + 1):
            mine = job >= i
            xs = np.concatenate(([0.0], np.cumsum(du[mine])))
            ys = np.concatenate(([0.0], np.cumsum(dw[mine])))
            self.knots.append((xs, ys))
        self.margin_w = _BOUND_MARGIN * (1.0 + sum(float(np.abs(w).max()) for w in W))
        self.margin_u = _BOUND_MARGIN * (1.0 + cap + sum(float(u.max()) for u in U))
        self.cap = cap
        # a feasible combination: whole segments by slope, each job's in order, closed at a miss
        room = cap - self.margin_u - self.base_u[0]
        value = float(self.base_w[0])
        taken = [0] * n
        closed = [False] * n
        for j, k, a, b in lb_segments:
            if closed[j]:
                continue
            if k == taken[j] and a <= room:
                room -= a
                value += b
                taken[j] += 1
            else:
                closed[j] = True
        # then what is left of the budget, job by job: the best point of the front that fits
        for (hu, hw), hull, t in zip(points, hulls, taken, strict=True):
            at = hull[t]
            best = bisect_right(hu, hu[at] + room) - 1
            if best > at:
                room -= hu[best] - hu[at]
                value += hw[best] - hw[at]
        self.lower = value if self.base_u[0] <= cap - self.margin_u else -math.inf

    def keep(self, i: int, fu: np.ndarray, fw: np.ndarray) -> np.ndarray | None:
        """Mask of the states after job ``i`` to keep (``None``: all of them)."""
        room = self.cap + self.margin_u - fu - self.base_u[i + 1]
        ok = fu + self.base_u[i + 1] <= self.cap - self.margin_u
        if ok.any():  # completions by the least-U alternatives are feasible combinations
            self.lower = max(self.lower, float(fw[ok].max()) + float(self.base_w[i + 1]))
        xs, ys = self.knots[i + 1]
        upper = fw + self.base_w[i + 1] + np.interp(np.maximum(room, 0.0), xs, ys)
        mask = (room >= 0) & (upper + self.margin_w >= self.lower)
        return None if mask.all() else mask


def _below_chord(hu: list, hw: list, a: int, b: int, k: int) -> bool:
    """Whether point ``b`` lies on, below or within a relative 1e-12 above the chord ``a``-``k``.

    Dropping a point at most that far above the chord lowers the bound of :class:`_Bounds` by
    at most ``1e-12 * (hw[k] - hw[a])``, far inside its margin, and leaves chains with clearly
    decreasing slopes (collinear points, as when ``U`` rescales the VO value itself, go).
    Points whose products underflow are kept: keeping a point never lowers the bound.
    """
    left = (hw[b] - hw[a]) * (hu[k] - hu[a])
    right = (hw[k] - hw[a]) * (hu[b] - hu[a])
    if min(abs(left), abs(right)) < 1e-280:
        return False
    return left <= right * (1.0 + 1e-12)


def _pareto_dp(W: list[np.ndarray], U: list[np.ndarray], cap: float, bound: bool = False) -> _Front:
    """The front of the whole batch, states with summed ``U > cap`` left out (``W`` maximised).

    Each step combines the front (``K`` states, sorted by ``U``) with the job's ``m``
    non-dominated alternatives into ``K * m`` candidates. Large candidate sets are first
    thinned by :func:`_undominated_by_bins` (exact: only strictly dominated candidates go).
    The rest are sorted by ``U`` ascending, then ``W`` descending, then by the lexicographic
    rank of their partial choice (the last two keys only among candidates whose ``U`` ties),
    and a candidate survives when its ``W`` exceeds every ``W`` before it (running maximum).
    With ``bound`` (one limit, ``cap`` finite), fronts above ``_BOUND_MIN`` states are also
    pruned by :class:`_Bounds`; the answer for the limit is unchanged.
    """
    fu = np.zeros(1)
    fw = np.zeros(1)
    rank = np.zeros(1, dtype=np.int64)  # lexicographic rank of each state's partial choice
    bounds = None  # built once the front is large enough to be worth bounding
    parents: list[np.ndarray] = []
    alts: list[np.ndarray] = []
    for i, (w_job, u_job) in enumerate(zip(W, U, strict=True)):
        idx = _job_front(w_job, u_job)
        uj, wj = u_job[idx], w_job[idx]
        K, m = fu.size, idx.size
        cu = (uj[:, None] + fu[None, :]).ravel()  # candidate (alternative a, state p): a*K + p
        cw = (wj[:, None] + fw[None, :]).ravel()
        flat = None  # positions a*K + p of the candidates kept, None while all are
        if cap < math.inf:
            inside = cu <= cap
            if not inside.all():
                flat = np.flatnonzero(inside)
                cu, cw = cu[flat], cw[flat]
        if cu.size > _FILTER_MIN:
            fine = _undominated_by_bins(cu, cw, max(K, 16))
            if fine is not None:
                kept = np.flatnonzero(fine)
                flat = kept if flat is None else flat[kept]
                cu, cw = cu[kept], cw[kept]
        order = np.argsort(cu)  # ties in U are ordered below; vectorised quicksort
        us = cu[order]
        ties = us[1:] == us[:-1]
        if ties.any():  # order equal U by W descending, then lexicographic rank
            grouped = np.zeros(us.size, dtype=bool)
            grouped[1:] = ties
            grouped[:-1] |= ties
            pos = np.flatnonzero(grouped)
            sub = order[pos]
            f = sub if flat is None else flat[sub]
            lex = rank[f % K] * m + f // K
            order[pos] = sub[np.lexsort((lex, -cw[sub], cu[sub]))]
        ws = cw[order]
        keep = np.empty(ws.size, dtype=bool)
        keep[0] = True
        keep[1:] = ws[1:] > np.maximum.accumulate(ws)[:-1]
        survivors = order[keep]
        if bound and bounds is None and survivors.size > _BOUND_MIN and i < len(W) - 1:
            bounds = _Bounds(W, U, cap)
        if bounds is not None:
            mask = bounds.keep(i, cu[survivors], cw[survivors])
            if mask is not None:
                survivors = survivors[mask]
        f = survivors if flat is None else flat[survivors]
        p, a = f % K, f // K
        fu, fw = cu[survivors], cw[survivors]
        lex = rank[p] * m + a
        rank = np.empty(lex.size, dtype=np.int64)
        rank[np.argsort(lex)] = np.arange(lex.size)
        parents.append(p)
        alts.append(idx[a])
    return _Front(fu, fw, parents, alts)


def _min_user_total(U: list[np.ndarray]) -> float:
    """Least summed ``U`` in job order: rounding is monotone, so each job's least ``U``."""
    total = 0.0
    for u in U:
        total += float(u.min())
    return total


def _answer(front: _Front, limit: float, sense: str, min_u: float) -> CombinationResult:
    """The optimal combination of the front for one limit, rebuilt from the back-pointers."""
    n = len(front.parents)
    k = int(np.searchsorted(front.u, limit * (1.0 + LIMIT_RTOL), side="right")) - 1
    if k < 0:
        return _infeasible(limit, min_u)
    choice = np.empty(n, dtype=np.int64)
    state = k
    for i in range(n - 1, -1, -1):
        choice[i] = front.alts[i][state]
        state = front.parents[i][state]
    w = float(front.w[k])
    vo_total = (w if sense == "max" else -w) + 0.0  # + 0.0 turns -0.0 into 0.0
    return CombinationResult(choice, vo_total, float(front.u[k]), True, "", limit)


def _infeasible(limit: float, min_u: float) -> CombinationResult:
    reason = f"limit {limit:.12g} below the minimum summed U {min_u:.12g}"
    return CombinationResult(np.empty(0, dtype=np.int64), math.nan, math.nan, False, reason, limit)


def choose_combination(vo_values, user_evals, limit: float, sense: str = "max"):
    """One alternative per job optimising the summed VO value under a limit on summed ``U``.

    Solves ``sum_i vo_values[i][s_i] -> sense`` subject to ``sum_i user_evals[i][s_i] <=
    limit`` over the choices ``s_i`` of one alternative per job (a multiple-choice knapsack).

    Parameters
    ----------
    vo_values : array_like, shape (n_jobs, n_alternatives) or sequence of sequences
        ``vo_values[i][j]``: VO criterion value (e.g. cost or time) of alternative ``j`` of
        job ``i``; jobs may have different numbers of alternatives (ragged sequences).
    user_evals : array_like, same shape as ``vo_values``
        ``user_evals[i][j] >= 0``: the limited quantity of that alternative, e.g. its user
        evaluation ``U`` (:func:`user_evaluations`), or its cost for ``T -> min, lim C``.
    limit : float
        Limit ``u* >= 0`` on the summed ``U`` (``inf`` for none); ``U_a * n_jobs`` for an
        average ``U_a`` per job. Sums within a relative :data:`LIMIT_RTOL` (1e-12) above it
        count as within it.
    sense : {"max", "min"}, optional
        Whether the summed VO value is maximised (default, e.g. owners' revenue) or
        minimised (e.g. the batch's time).

    Returns
    -------
    CombinationResult
        ``choice`` (int64, one index per job), ``vo_total``, ``user_total``, ``feasible`` and
        ``reason``. Infeasible (every combination exceeds the limit): empty ``choice``,
        ``nan`` totals and a ``reason``. Ties: the smallest ``user_total`` among the optimal
        ``vo_total``, then the lexicographically smallest ``choice`` (see the module notes).

    Raises
    ------
    ProblemError
        ``vo_values`` and ``user_evals`` differ in shape; a job has no alternatives; a value
        is not finite; a ``U`` is negative; ``limit`` is negative or NaN; ``sense`` is not
        ``"max"`` or ``"min"``. The message names the value and the job.

    References
    ----------
    VO Preferences §2 (the CSS problems ``T -> min, lim C`` and ``C -> max, lim T``) and §3
    (``f(s) = sum f_i(s_j) -> extr``, ``sum u_i(s_j) <= u*``, ``U_a = u*/n``), solved there by
    dynamic programming over the batch.

    Notes
    -----
    A dynamic programme over the jobs whose state is a Pareto front: after job ``i`` the
    non-dominated pairs (summed ``U``, best summed VO value) of the jobs ``0..i``, with
    back-pointers to rebuild the choice. Being exact for any real ``U``, it needs no integer
    grid of the limit. Each step merges the front with the job's non-dominated alternatives,
    sorts the candidates by ``U`` and drops the dominated ones with a running maximum
    (vectorised with numpy); states above the limit are dropped too, and large candidate sets
    are first thinned by a binned running maximum (O(K m), no sort). For one limit, large
    fronts are also pruned by bounds: a state goes when even the linear relaxation of the
    remaining jobs cannot lift it to a feasible combination's value (the answer is unchanged).
    Time O(sum_i K_i m_i log(K_i m_i)) and memory O(sum_i K_i) for fronts of ``K_i`` states
    and ``m_i`` alternatives; ``K_i`` is at most the number of distinct sums of ``U`` (e.g.
    ``1 + sum (N_a - 1)`` for ordinal evaluations). Fronts are largest when the VO value rises
    with ``U`` in every job (strictly conflicting preferences): with 40 jobs x 10 alternatives
    and relative ``U`` a final front of ~100,000 states, some 0.3-0.4 s for the whole curve and
    tens of milliseconds per single limit; independent random values give fronts of a few
    hundred states and milliseconds.

    Examples
    --------
    ``C -> max, lim U``: two jobs whose users minimise cost (ordinal ``U``), the VO maximising
    the owners' revenue. With ``U_a = 1`` (limit 2) the second job gets its dearest
    alternative, the first its cheapest:

    >>> costs = [[5, 7, 11, 15], [8, 12, 20]]
    >>> U = [user_evaluations(c) for c in costs]
    >>> r = choose_combination(costs, U, limit=2)
    >>> r.choice.tolist(), r.vo_total, r.user_total
    ([0, 2], 25.0, 2.0)
    >>> choose_combination(costs, U, limit=float("inf")).choice.tolist()
    [3, 2]

    ``T -> min, lim C``, the limited quantity being the cost:

    >>> times = [[10, 8, 4, 3], [9, 6, 5]]
    >>> r = choose_combination(times, costs, limit=30, sense="min")
    >>> r.choice.tolist(), r.vo_total, r.user_total
    ([3, 1], 9.0, 27.0)
    >>> choose_combination(times, costs, limit=12, sense="min").reason
    'limit 12 below the minimum summed U 13'
    """
    _check_sense(sense)
    limit = _check_limit(limit)
    vo, ue = _batch(vo_values, user_evals)
    min_u = _min_user_total(ue)
    if min_u > limit * (1.0 + LIMIT_RTOL):
        return _infeasible(limit, min_u)
    W = vo if sense == "max" else [-v for v in vo]
    cap = limit * (1.0 + LIMIT_RTOL)
    front = _pareto_dp(W, ue, cap, bound=cap < math.inf)
    return _answer(front, limit, sense, min_u)


def combination_curve(vo_values, user_evals, limits, sense: str = "max"):
    """:func:`choose_combination` for many limits from one dynamic programme.

    The final Pareto front of the batch is the optimum as a function of the limit, so one
    pass answers every limit (e.g. a grid of 100 ``U_a`` values).

    Parameters
    ----------
    vo_values, user_evals : array_like
        As for :func:`choose_combination`.
    limits : array_like, shape (L,)
        Limits ``u* >= 0`` (``inf`` for none), in any order.
    sense : {"max", "min"}, optional
        As for :func:`choose_combination`.

    Returns
    -------
    list of CombinationResult, length L
        ``result[k]`` is exactly ``choose_combination(vo_values, user_evals, limits[k],
        sense)``.

    Raises
    ------
    ProblemError
        As :func:`choose_combination`; ``limits`` is not one-dimensional, or ``limits[k]`` is
        negative or NaN.

    References
    ----------
    VO Preferences §5.1, Figs. 1–4: the batch's cost and time as functions of ``U_a``.

    Notes
    -----
    One dynamic programme (see :func:`choose_combination`) up to the largest finite limit,
    then a binary search and a back-pointer walk of ``n_jobs`` steps per limit.

    Examples
    --------
    >>> costs = [[5, 7, 11, 15], [8, 12, 20]]
    >>> U = [user_evaluations(c) for c in costs]
    >>> [r.vo_total for r in combination_curve(costs, U, [0, 1, 2, 3, 4, 5])]
    [13.0, 17.0, 25.0, 27.0, 31.0, 35.0]
    """
    _check_sense(sense)
    try:
        arr = np.asarray(limits, dtype=float)
    except (TypeError, ValueError):
        raise ProblemError(f"limits must be numbers >= 0, got {limits!r}") from None
    if arr.ndim != 1:
        raise ProblemError(f"limits must be one-dimensional, got shape {arr.shape}")
    values = [_check_limit(x, f"limits[{k}]") for k, x in enumerate(arr.tolist())]
    vo, ue = _batch(vo_values, user_evals)
    min_u = _min_user_total(ue)
    fits = [x for x in values if min_u <= x * (1.0 + LIMIT_RTOL)]
    if not fits:
        return [_infeasible(x, min_u) for x in values]
    cap = max(fits) * (1.0 + LIMIT_RTOL)
    W = vo if sense == "max" else [-v for v in vo]
    front = _pareto_dp(W, ue, cap)
    return [_answer(front, x, sense, min_u) for x in values]


# --------------------------------------------------------------------------------------------
# evaluations


def user_evaluations(values, kind: str = "ordinal", sense: str = "min") -> np.ndarray:
    """User evaluations ``U`` of one job's alternatives by the user's criterion (Table 1).

    Parameters
    ----------
    values : array_like, shape (N_a,)
        The user criterion's value of each alternative (e.g. cost, runtime, finish time).
    kind : {"ordinal", "relative"}, optional
        ``"ordinal"`` (default): the alternative's rank ``0..N_a-1`` when sorted by the
        criterion, best first; equal values keep the alternatives' order (stable sort), so
        ranks are distinct. ``"relative"``: ``(Z - Z_min) / (Z_max - Z_min) * 100`` (%),
        ``Z_max`` and ``Z_min`` swapped in role when the criterion is maximised; all zeros
        when every value is equal.
    sense : {"min", "max"}, optional
        Whether the user minimises the criterion (default; best = smallest) or maximises it.

    Returns
    -------
    numpy.ndarray of float, shape (N_a,)
        ``U >= 0``, 0 for the best alternative.

    Raises
    ------
    ProblemError
        ``values`` is not 1-D, empty or not finite; ``kind`` or ``sense`` is unknown.

    References
    ----------
    VO Preferences §3, Table 1 (ordinal and relative evaluations).

    Examples
    --------
    Table 1 (costs 5, 7, 11, 15 minimised):

    >>> user_evaluations([5, 7, 11, 15]).tolist()
    [0.0, 1.0, 2.0, 3.0]
    >>> user_evaluations([5, 7, 11, 15], kind="relative").tolist()
    [0.0, 20.0, 60.0, 100.0]
    >>> user_evaluations([5, 7, 7, 3], sense="max").tolist()
    [2.0, 0.0, 1.0, 3.0]
    """
    if kind not in _KINDS:
        raise ProblemError(f"kind must be 'ordinal' or 'relative', got {kind!r}")
    _check_sense(sense)
    try:
        z = np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        raise ProblemError(f"values must hold numbers, got {values!r}") from None
    if z.ndim != 1:
        raise ProblemError(f"values must be 1-D (one job's alternatives), got shape {z.shape}")
    if z.size == 0:
        raise ProblemError("values is empty: a job needs at least one alternative")
    bad = ~np.isfinite(z)
    if bad.any():
        j = int(np.flatnonzero(bad)[0])
        raise ProblemError(f"values[{j}] = {z[j]} is not finite")
    if kind == "ordinal":
        order = np.argsort(z if sense == "min" else -z, kind="stable")
        ranks = np.empty(z.size)
        ranks[order] = np.arange(z.size, dtype=float)
        return ranks
    lo, hi = float(z.min()), float(z.max())
    if lo == hi:
        return np.zeros(z.size)
    gap = z - lo if sense == "min" else hi - z
    u = 100.0 * gap / (hi - lo)
    u[gap == hi - lo] = 100.0  # the worst alternative exactly, whatever the rounding
    return np.clip(u, 0.0, 100.0)


def vo_evaluation(y, y_best, y_worst):
    """The VO's relative evaluation ``A = (Y - Y_best) / (Y_worst - Y_best) * 100`` (%).

    Parameters
    ----------
    y : float or array_like
        Batch criterion value(s) ``Y`` (e.g. the ``vo_total`` of :func:`combination_curve`);
        ``nan`` passes through (infeasible points).
    y_best : float
        The VO's optimum, with ``U`` unconstrained (``A = 0``): ``Y_min`` for a minimised
        criterion, ``Y_max`` for a maximised one.
    y_worst : float
        The result with ``U_a = 0``, every job getting its user's best alternative
        (``A = 100``).

    Returns
    -------
    float or numpy.ndarray
        ``A`` in %, a float for scalar ``y``; NaN when ``y_best == y_worst`` (no choice:
        the VO's optimum is what the users choose, so ``A`` is undefined; ``A = 0``
        in such cycles would pull the run's mean down).

    Raises
    ------
    ProblemError
        ``y_best`` or ``y_worst`` is not finite, or ``y`` holds an infinity.

    References
    ----------
    VO Preferences §3, ``A = (Y - Y_min) / (Y_max - Y_min) * 100 %``.

    Examples
    --------
    Revenue maximised by the VO: best 35, worst 13.

    >>> vo_evaluation(25.0, y_best=35.0, y_worst=13.0)
    45.45454545454545
    >>> vo_evaluation([35, 13], 35, 13).tolist()
    [0.0, 100.0]
    """
    ends = []
    for name, v in (("y_best", y_best), ("y_worst", y_worst)):
        try:
            ends.append(float(v))
        except (TypeError, ValueError):
            raise ProblemError(f"{name} must be a finite number, got {v!r}") from None
        if not math.isfinite(ends[-1]):
            raise ProblemError(f"{name} must be a finite number, got {v!r}")
    best, worst = ends
    try:
        arr = np.asarray(y, dtype=float)
    except (TypeError, ValueError):
        raise ProblemError(f"y must hold numbers, got {y!r}") from None
    if np.any(np.isinf(arr)):
        raise ProblemError(f"y must not hold infinities, got {y!r}")
    span = worst - best
    if span == 0:  # no choice: the VO's optimum is the users' choice, A is undefined
        a = np.full(arr.shape, np.nan)
    else:
        a = 100.0 * (arr - best) / span + 0.0  # no -0.0
    return float(a) if a.ndim == 0 else a


def compromise(ua, a) -> Compromise:
    """Compromise points of a curve ``A(U_a)``: where ``A = U_a``, and the least ``A + U_a``.

    Parameters
    ----------
    ua : array_like, shape (L,)
        Average user evaluation limits ``U_a`` in %, ascending.
    a : array_like, shape (L,)
        The VO's relative evaluation ``A`` in % at each ``U_a`` (:func:`vo_evaluation`).

    Returns
    -------
    Compromise
        ``equal``: ``(U_a, A)`` at the first grid point with ``A = U_a`` or the first sign
        change of ``A - U_a`` between neighbouring grid points, linearly interpolated there
        (so ``A = U_a`` exactly); ``None`` if the curve never meets the line. ``additive``:
        the grid point with the least ``A + U_a`` (the first on ties).

    Raises
    ------
    ProblemError
        ``ua`` and ``a`` differ in shape, are empty or not 1-D, hold a non-finite value, or
        ``ua`` is not ascending.

    References
    ----------
    VO Preferences §5.2, Figs. 5–6: the strictly conflicting preferences meet ``A = U_a`` at
    about (37 %, 37 %) and the additive metric is least at (45 %, 28 %).

    Examples
    --------
    >>> c = compromise([0, 25, 50, 75, 100], [100, 60, 30, 10, 0])
    >>> [round(x, 3) for x in c.equal], c.additive
    ([40.909, 40.909], (50.0, 30.0))
    >>> compromise([0, 50, 100], [0, 10, 20]).equal
    (0.0, 0.0)
    >>> compromise([10, 50, 100], [0, 10, 20]).equal is None
    True
    """
    x = np.asarray(ua, dtype=float)
    y = np.asarray(a, dtype=float)
    if x.ndim != 1 or x.size == 0:
        raise ProblemError(f"ua must be a non-empty 1-D array, got shape {x.shape}")
    if y.shape != x.shape:
        raise ProblemError(f"a must have the shape of ua {x.shape}, got {y.shape}")
    for name, arr in (("ua", x), ("a", y)):
        bad = ~np.isfinite(arr)
        if bad.any():
            k = int(np.flatnonzero(bad)[0])
            raise ProblemError(f"{name}[{k}] = {arr[k]} is not finite")
    down = np.flatnonzero(np.diff(x) < 0)
    if down.size:
        k = int(down[0])
        raise ProblemError(f"ua must be ascending; ua[{k + 1}] = {x[k + 1]} < ua[{k}] = {x[k]}")
    d = y - x
    event = d == 0
    event[:-1] |= (d[:-1] < 0) & (d[1:] > 0) | (d[:-1] > 0) & (d[1:] < 0)
    equal = None
    if event.any():
        k = int(np.flatnonzero(event)[0])
        if d[k] == 0:
            equal = (float(x[k]), float(y[k]))
        else:
            t = d[k] / (d[k] - d[k + 1])
            cross = float(x[k] + t * (x[k + 1] - x[k]))
            equal = (cross, cross)
    k = int(np.argmin(x + y))
    return Compromise(equal, (float(x[k]), float(y[k])))
