"""Step 2 of the cyclic scheduling scheme: one alternative per job under a VO policy.

A *VO policy* names the VO criterion of the batch (owners' revenue ``C -> max``, or the batch
time ``T -> min``), what bounds it (the users' evaluations ``U``, the batch cost or the batch
time) and how tightly (``U_a``). :func:`choose_alternatives` turns the alternatives of a batch
(from :func:`~vosim.allocators.csa.batch_alternatives`) into the chosen combination, with the
users' evaluations of every alternative and the VO evaluation ``A`` of the result.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from vosim.allocators.combination import combination_curve, user_evaluations, vo_evaluation
from vosim.core.results import Result, Status
from vosim.core.windows import Window
from vosim.errors import ParameterError

__all__ = [
    "VO_OBJECTIVES",
    "VO_LIMITS",
    "EVALUATIONS",
    "USER_SENSE",
    "VOPolicy",
    "CSSResult",
    "window_value",
    "BatchRows",
    "batch_rows",
    "policy_limit",
    "choose_alternatives",
]

#: VO criteria of the batch and their sense: owners' revenue (the batch cost) is maximised;
#: the batch time, as the sum of runtimes or of finish times, is minimised.
VO_OBJECTIVES = {"cost": "max", "runtime": "min", "finish": "min"}
#: What step 2 bounds: the summed user evaluations, the batch cost or the batch time.
VO_LIMITS = ("user", "cost", "time")
#: User evaluation kinds (VO Preferences §3).
EVALUATIONS = ("ordinal", "relative")
#: The sense of each user criterion: availability ``P_a^w`` is maximised, the rest minimised.
USER_SENSE = {"finish": "min", "runtime": "min", "cost": "min", "availability": "max"}


@dataclass(frozen=True, slots=True)
class VOPolicy:
    """The VO's rule for step 2 of the cyclic scheme.

    Parameters
    ----------
    objective : str
        VO criterion of the batch: ``"cost"`` (``C -> max``, the owners' revenue),
        ``"runtime"`` or ``"finish"`` (``T -> min``, the sum of the windows' runtimes or finish
        times, model time units).
    limit : str
        What is bounded: ``"user"`` (the summed user evaluations, ``lim U``), ``"cost"``
        (``lim C``) or ``"time"`` (``lim T``, the summed runtimes).
    evaluation : str
        User evaluation kind: ``"ordinal"`` (rank 0..N_a-1) or ``"relative"`` (0-100 %).
    ua : float or None
        The VO policy knob ``U_a = u* / n``. With ``limit="user"``: the mean user evaluation
        allowed per job (ranks for ordinal, % for relative, >= 0). With ``"cost"`` or
        ``"time"``: where the limit lies between the least and the largest batch total, in %
        (0: the least total, 100: no limit). ``None``: unconstrained, the VO optimum.
    max_alternatives : int or None
        Alternatives searched per job and cycle (>= 1; ``None`` until the slots run out).
        With 1 the scheme is first fit and step 2 has nothing to choose.

    Raises
    ------
    ParameterError
        A name outside its set, a negative ``ua`` or a ``max_alternatives < 1``.

    References
    ----------
    VO Preferences §2-3: ``C -> max, lim U``; ``T -> min, lim U``; the classical
    ``T -> min, lim C`` and ``C -> max, lim T``; ``U_a = u* / n``.

    Examples
    --------
    >>> VOPolicy("cost", "user", "relative", ua=25.0).sense
    'max'
    """

    objective: str = "cost"
    limit: str = "user"
    evaluation: str = "relative"
    ua: float | None = None
    max_alternatives: int | None = 5

    def __post_init__(self) -> None:
        if self.objective not in VO_OBJECTIVES:
            raise ParameterError(
                f"VO objective must be one of {', '.join(VO_OBJECTIVES)}, got {self.objective!r}"
            )
        if self.limit not in VO_LIMITS:
            raise ParameterError(
                f"VO limit must be one of {', '.join(VO_LIMITS)}, got {self.limit!r}"
            )
        if self.evaluation not in EVALUATIONS:
            raise ParameterError(
                f"user evaluation must be one of {', '.join(EVALUATIONS)}, got {self.evaluation!r}"
            )
        if self.ua is not None and not (self.ua >= 0 and math.isfinite(self.ua)):
            raise ParameterError(f"U_a must be a finite number >= 0 or None, got {self.ua!r}")
        if self.max_alternatives is not None and (
            isinstance(self.max_alternatives, bool)
            or not isinstance(self.max_alternatives, (int, np.integer))
            or self.max_alternatives < 1
        ):
            raise ParameterError(
                f"max_alternatives must be an integer >= 1 or None, got {self.max_alternatives!r}"
            )

    @property
    def sense(self) -> str:
        """``"max"`` or ``"min"``: how the VO criterion is optimised."""
        return VO_OBJECTIVES[self.objective]


def window_value(window: Window, criterion: str) -> float:
    """Return the value of ``window`` by a criterion (time units or cost units).

    ``criterion`` is one of ``start``, ``finish``, ``runtime``, ``cost``, ``proc_time``.

    Raises
    ------
    ParameterError
        An unknown criterion.
    """
    if criterion not in ("start", "finish", "runtime", "cost", "proc_time"):
        raise ParameterError(f"no window value for criterion {criterion!r}")
    return float(getattr(window, criterion))


@dataclass(frozen=True, slots=True)
class CSSResult(Result):
    """Step 2's choice for a batch.

    Parameters
    ----------
    choice : numpy.ndarray of int, shape (J,)
        Index of the chosen alternative of each job; -1 for a job without alternatives.
    user_evals : list of numpy.ndarray
        Per job, the user evaluation ``U`` of each alternative (ranks or %).
    vo_total : float
        The VO criterion of the chosen combination (cost units or time units); NaN if no job
        had an alternative.
    ua : float
        Realised mean user evaluation per job with alternatives (ranks or %); NaN if none.
    vo_evaluation : float
        ``A`` in %: 0 at the VO optimum (``U_a`` unconstrained), 100 at ``U_a = 0`` (with
        ``lim U``: every job its user's best alternative; with a cost or time limit: the
        least batch cost or time); NaN if no job had an alternative.
    limit : float
        The bound applied to the summed user evaluations, cost or time (``inf``: none).

    Attributes
    ----------
    status : Status
        ``OPTIMAL`` when some job has a chosen alternative (the combination is exact),
        ``INFEASIBLE`` when no job of the batch has an alternative.
    message : str
        Why nothing was chosen, else the status's default message.

    References
    ----------
    VO Preferences §2-3; ``scipy.optimize.OptimizeResult`` for ``status`` and ``message``.
    """

    choice: np.ndarray
    user_evals: list[np.ndarray]
    vo_total: float
    ua: float
    vo_evaluation: float
    limit: float

    stats: dict[str, Any] = field(default_factory=dict)

    @property
    def solution(self) -> Any:
        """The alternative chosen per job (``choice``)."""
        return self.choice

    @property
    def objective(self) -> float:
        """The VO objective summed over the chosen alternatives (``vo_total``)."""
        return self.vo_total

    @property
    def status(self) -> Status:
        """``OPTIMAL`` when some job got an alternative, else ``INFEASIBLE``."""
        return Status.OPTIMAL if (np.asarray(self.choice) >= 0).any() else Status.INFEASIBLE

    @property
    def message(self) -> str:
        """Why nothing was chosen, else the status's default message."""
        if self.status is Status.INFEASIBLE:
            return "no job of the batch has an alternative"
        return self.status.default_message


def choose_alternatives(
    windows: Sequence[Sequence[Window]],
    user_criteria: Sequence[str],
    policy: VOPolicy,
    availability: Sequence[Sequence[float]] | None = None,
) -> CSSResult:
    """Pick one alternative per job of a batch under the VO policy (step 2 of the scheme).

    Each job's alternatives are evaluated by its user's criterion (:data:`USER_SENSE`): the
    ordinal or relative ``U`` of VO Preferences §3. The combination optimises the VO criterion
    ``f = sum_i f_i(s_j)`` subject to ``sum_i u_i(s_j) <= u* = U_a * J'`` (``J'`` jobs with
    alternatives), or to a bound on the batch cost or time, by the exact dynamic programming
    of :func:`~vosim.allocators.combination.choose_combination`.

    Parameters
    ----------
    windows : sequence of sequences of Window
        ``windows[i]``: the alternatives of job ``i`` (maybe none), shape (J, N_a(i)).
    user_criteria : sequence of str
        Each job's user criterion, one of :data:`USER_SENSE` (shape (J,)).
    policy : VOPolicy
        The VO policy.
    availability : sequence of sequences of float, optional
        ``P_a^w`` in [0, 1] of each alternative, needed for users with the ``availability``
        criterion (same shape as ``windows``).

    Returns
    -------
    CSSResult

    Raises
    ------
    ParameterError
        Lengths differ, an unknown user criterion, or ``availability`` missing for a user
        with the availability criterion.

    References
    ----------
    VO Preferences §3: user evaluations, the problems ``C -> max, lim U`` and
    ``T -> min, lim U``, ``U_a = u*/n`` and the VO evaluation ``A``; §2 for the classical
    ``T -> min, lim C`` and ``C -> max, lim T``.

    Examples
    --------
    One job whose user minimises cost, alternatives costing 5, 7, 11, 15 (VO Preferences
    Table 1); the VO maximises revenue but allows a mean relative U of 25 %:

    >>> from vosim.core import Slot
    >>> ws = [Window((Slot(0, 0.0, 1.0, c, 1.0),), 0.0, 1.0, c) for c in (5.0, 7.0, 11.0, 15.0)]
    >>> r = choose_alternatives([ws], ["cost"], VOPolicy("cost", "user", "relative", ua=25.0))
    >>> r.user_evals[0].tolist(), int(r.choice[0]), r.vo_total, r.vo_evaluation
    ([0.0, 20.0, 60.0, 100.0], 1, 7.0, 80.0)
    """
    rows = batch_rows(windows, user_criteria, policy, availability)
    evals, jobs = rows.evals, rows.jobs
    choice = np.full(len(windows), -1, dtype=np.int64)
    if not jobs:
        return CSSResult(choice, evals, math.nan, math.nan, math.nan, math.inf)
    vo_rows, bound_rows = rows.vo, rows.bound
    limit = policy_limit(policy, bound_rows)
    sense = policy.sense
    # Y at U_a = 0, the tightest limit: with lim U every job gets its user's best alternative
    tightest = policy_limit(replace(policy, ua=0.0), bound_rows)
    # Unconstrained, every job takes its best alternative for the VO, no DP needed (a DP with
    # an infinite limit could not prune its states).
    free = _unconstrained(vo_rows, bound_rows, sense)
    best = float(sum(row[k] for row, k in zip(vo_rows, free, strict=True)))
    if math.isinf(limit):
        chosen_choice, vo_total = free, best
        users = combination_curve(vo_rows, bound_rows, [tightest], sense)[0].vo_total
    else:
        chosen, at_zero = combination_curve(vo_rows, bound_rows, [limit, tightest], sense)
        users = at_zero.vo_total
        # infeasible cannot happen for limits >= the least total; be safe anyway
        chosen_choice = chosen.choice if chosen.feasible else free
        vo_total = chosen.vo_total if chosen.feasible else best
    choice[jobs] = chosen_choice
    ua = float(np.mean([evals[i][choice[i]] for i in jobs]))
    a = float(vo_evaluation(vo_total, best, users))
    return CSSResult(choice, evals, float(vo_total), ua, a, limit)


def _unconstrained(vo: list[np.ndarray], bound: list[np.ndarray], sense: str) -> np.ndarray:
    """Per job the best VO value; ties: the smaller bound value, then the earlier alternative.

    The tie rule of :func:`~vosim.allocators.combination.choose_combination`, which it equals
    for an infinite limit (the problem separates by job).
    """
    out = []
    for v, b in zip(vo, bound, strict=True):
        key = -v if sense == "max" else v
        out.append(int(np.lexsort((np.arange(v.size), b, key))[0]))
    return np.asarray(out, dtype=np.int64)


@dataclass(frozen=True, slots=True)
class BatchRows:
    """A batch's alternatives as the rows of the step-2 problem.

    Parameters
    ----------
    jobs : list of int
        Indices of the jobs that have alternatives (the rows below, in order).
    evals : list of numpy.ndarray
        Per job of the batch (all of them), the user evaluations ``U`` of its alternatives.
    vo : list of numpy.ndarray
        Per job with alternatives, the VO criterion value of each alternative.
    bound : list of numpy.ndarray
        Per job with alternatives, the limited quantity of each alternative (``U``, cost or
        runtime).
    """

    jobs: list[int]
    evals: list[np.ndarray]
    vo: list[np.ndarray]
    bound: list[np.ndarray]


def batch_rows(
    windows: Sequence[Sequence[Window]],
    user_criteria: Sequence[str],
    policy: VOPolicy,
    availability: Sequence[Sequence[float]] | None = None,
) -> BatchRows:
    """Evaluate a batch's alternatives for step 2: ``U``, VO values and limited quantities.

    Arguments as :func:`choose_alternatives`, which it serves (and experiments that solve
    many limits at once with :func:`~vosim.allocators.combination.combination_curve`).

    Raises
    ------
    ParameterError
        As :func:`choose_alternatives`.
    """
    if len(user_criteria) != len(windows):
        raise ParameterError(f"{len(windows)} jobs but {len(user_criteria)} user criteria")
    if availability is not None and len(availability) != len(windows):
        raise ParameterError(f"{len(windows)} jobs but {len(availability)} availability rows")
    rows = BatchRows([], [], [], [])
    for i, (alts, criterion) in enumerate(zip(windows, user_criteria, strict=True)):
        if criterion not in USER_SENSE:
            raise ParameterError(
                f"job {i}: unknown user criterion {criterion!r} ({', '.join(USER_SENSE)})"
            )
        if not alts:
            rows.evals.append(np.empty(0))
            continue
        if criterion == "availability":
            if availability is None:
                raise ParameterError(f"job {i} has the availability criterion: give availability")
            z = np.asarray(availability[i], dtype=float)
        else:
            z = np.array([window_value(w, criterion) for w in alts])
        u = user_evaluations(z, policy.evaluation, USER_SENSE[criterion])
        rows.evals.append(u)
        rows.vo.append(np.array([window_value(w, policy.objective) for w in alts]))
        if policy.limit == "cost":
            rows.bound.append(np.array([w.cost for w in alts]))
        elif policy.limit == "time":
            rows.bound.append(np.array([w.runtime for w in alts]))
        else:
            rows.bound.append(u)
        rows.jobs.append(i)
    return rows


def policy_limit(policy: VOPolicy, bound: Sequence[np.ndarray]) -> float:
    """The bound ``u*`` (or the cost or time limit) that ``policy`` sets for these rows.

    ``lim U``: ``U_a * J'`` for ``J'`` rows; cost or time: ``low + U_a% * (high - low)`` where
    ``low`` and ``high`` are the least and largest batch totals; ``inf`` when ``U_a`` is None.
    """
    rows = bound
    if policy.ua is None:
        return math.inf
    if policy.limit == "user":
        return policy.ua * len(rows)
    low = float(sum(r.min() for r in rows))
    high = float(sum(r.max() for r in rows))
    return low + min(policy.ua, 100.0) / 100.0 * (high - low)
