"""The availability-maximisation problem of ICCS 2023 and the registry of its solution methods."""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from vosim.allocators.base import chain
from vosim.core import registry
from vosim.core.results import Result, Status
from vosim.errors import ProblemError, UnknownAllocatorError

__all__ = [
    "AvailabilityProblem",
    "AvailabilityResult",
    "window_probability",
    "register_method",
    "methods",
    "allocate_resources",
]


def _real_array(name: str, value: Any, keep_int: bool = False) -> np.ndarray:
    """``value`` as a float array (or, with ``keep_int``, as given if integer), checked.

    Raises
    ------
    ProblemError
        ``value`` is ``None`` or holds booleans, strings, complex numbers or other objects,
        naming the field ``name`` (numpy's own errors name none, and ``group=[True, False]``
        would pass as groups 1 and 0).
    """
    try:
        array = np.asarray(value)
    except (TypeError, ValueError) as exc:  # ragged nesting
        raise ProblemError(f"{name} must be numbers, got {value!r} ({exc})") from None
    if value is None or array.dtype.kind not in "iuf":
        raise ProblemError(
            f"{name} must be real numbers (not booleans, strings, complex or None), got {value!r}"
        )
    return array if keep_int and array.dtype.kind in "iu" else array.astype(float)


@dataclass(frozen=True, eq=False)
class AvailabilityProblem:
    """Select ``n`` of ``N`` resources within budget ``C`` maximising window availability (eq. 3).

    Parameters
    ----------
    cost : array_like, shape (N,)
        Cost of each resource for the whole reservation (``T * c_i``), non-negative. Integers
        keep every method exact; real costs are accepted and each method documents how it
        treats them.
    group : array_like of int, shape (N,)
        Group of each resource, in ``[0, G)``. Resources of one group share one chain of
        utilization events (e.g. they run one earlier parallel job).
    group_p : array_like, shape (G,)
        Availability probability ``P_a^{G_i}`` of each group, in [0, 1].
    n : int
        Node count: resources to select, ``1 <= n <= N``.
    budget : float
        Budget ``C`` on the total cost, ``>= 0`` (``inf`` for none).

    Raises
    ------
    ProblemError
        (a ``ValueError``) naming the bad field: negative or non-finite cost, a group index
        outside ``[0, G)``, a probability outside [0, 1], ``n`` outside ``[1, N]``, a negative
        budget, or mismatched shapes.

    References
    ----------
    ICCS 2023 §2.2, eq. (3): ``P_a^w = prod over groups touched by the window of P_a^{G_i}``;
    with every group a singleton this is eq. (2).

    Examples
    --------
    >>> prob = AvailabilityProblem(cost=[3, 1, 2], group=[0, 0, 1], group_p=[0.9, 0.5], n=2,
    ...                            budget=4)
    >>> prob.N, prob.G
    (3, 2)
    >>> prob.resource_p.tolist()
    [0.9, 0.9, 0.5]
    """

    cost: np.ndarray
    group: np.ndarray
    group_p: np.ndarray
    n: int
    budget: float = math.inf

    def __post_init__(self) -> None:
        cost = _real_array("cost", self.cost)
        group_p = _real_array("group_p", self.group_p)
        raw_group = _real_array("group", self.group, keep_int=True)
        if cost.ndim != 1:
            raise ProblemError(f"cost must be one-dimensional (N,), got shape {cost.shape}")
        if raw_group.shape != cost.shape:
            raise ProblemError(
                f"group must have the shape of cost {cost.shape}, got {raw_group.shape}"
            )
        if group_p.ndim != 1:
            raise ProblemError(f"group_p must be one-dimensional (G,), got shape {group_p.shape}")
        if not np.all(np.isfinite(cost)) or np.any(cost < 0):
            bad = int(np.flatnonzero(~np.isfinite(cost) | (cost < 0))[0])
            raise ProblemError(f"cost must be finite and >= 0; cost[{bad}] = {cost[bad]}")
        if raw_group.size and not np.issubdtype(raw_group.dtype, np.integer):
            if not np.all(np.equal(np.mod(raw_group.astype(float), 1), 0)):
                raise ProblemError("group must hold integer group indices")
        group = raw_group.astype(np.int64)
        if group.size and (group.min() < 0 or group.max() >= group_p.size):
            bad = int(np.flatnonzero((group < 0) | (group >= group_p.size))[0])
            raise ProblemError(
                f"group[{bad}] = {group[bad]} is outside [0, G={group_p.size}) given by group_p"
            )
        if np.any(~((group_p >= 0) & (group_p <= 1))):
            bad = int(np.flatnonzero(~((group_p >= 0) & (group_p <= 1)))[0])
            raise ProblemError(f"group_p must lie in [0, 1]; group_p[{bad}] = {group_p[bad]}")
        if isinstance(self.n, bool) or not isinstance(self.n, (int, np.integer)):
            raise ProblemError(f"n must be an integer, got {self.n!r}")
        if not 1 <= self.n <= cost.size:
            raise ProblemError(f"n must be in [1, N={cost.size}], got {self.n}")
        budget = _real_array("budget", self.budget)
        if budget.ndim != 0 or not budget >= 0:
            raise ProblemError(f"budget must be a number >= 0, got {self.budget!r}")
        object.__setattr__(self, "cost", cost)
        object.__setattr__(self, "group", group)
        object.__setattr__(self, "group_p", group_p)
        object.__setattr__(self, "n", int(self.n))
        object.__setattr__(self, "budget", float(self.budget))

    @property
    def N(self) -> int:
        """Number of resources."""
        return int(self.cost.size)

    @property
    def G(self) -> int:
        """Number of groups."""
        return int(self.group_p.size)

    @property
    def resource_p(self) -> np.ndarray:
        """Availability of each resource taken alone, ``group_p[group]``, shape (N,)."""
        return self.group_p[self.group]

    @property
    def integral_costs(self) -> bool:
        """``True`` when every cost is a whole number (DP methods are then exact)."""
        return bool(np.all(self.cost == np.round(self.cost)))


@dataclass(frozen=True, eq=False)
class AvailabilityResult(Result):
    """Outcome of an availability allocation method.

    Parameters
    ----------
    selected : numpy.ndarray of int, shape (n,) or (0,)
        Sorted indices of the selected resources; empty when infeasible.
    probability : float
        Window availability by eq. (3), in [0, 1]; 0.0 when infeasible.
    cost : float
        Total cost of the selection (0.0 when infeasible).
    status : Status
        ``OPTIMAL`` (exact method), ``FEASIBLE`` (heuristic, or an exact method on rounded
        costs), ``LIMIT`` (a search stopped by its limit, ``stats["truncated"]``: the best
        selection seen) or ``INFEASIBLE``. The old strings (``"optimal"``, ...) are accepted
        and converted.
    method : str
        Registered name of the method.
    stats : dict
        Diagnostics, e.g. ``{"tree_size": ..., "seconds": ...}``; ``stats["reason"]``, when
        present, says why nothing was found.

    Attributes
    ----------
    message : str
        ``stats["reason"]`` when present, else the status's default message.

    Raises
    ------
    ValueError
        ``status`` is not a :class:`~vosim.core.results.Status` value.

    References
    ----------
    ICCS 2023 §2.2–2.4; ``scipy.optimize.OptimizeResult`` for ``status`` and ``message``.
    """

    selected: np.ndarray
    probability: float
    cost: float
    status: Status
    method: str = ""
    stats: dict[str, Any] = field(default_factory=dict)

    @property
    def solution(self) -> Any:
        """The resources selected (``selected``)."""
        return self.selected

    @property
    def objective(self) -> float:
        """The probability that every selected resource is available (``probability``)."""
        return self.probability

    def __post_init__(self) -> None:
        object.__setattr__(self, "status", Status(self.status))

    @property
    def message(self) -> str:
        """``stats["reason"]`` when present, else the status's default message."""
        return str(self.stats.get("reason") or self.status.default_message)


def window_probability(problem: AvailabilityProblem, selected: np.ndarray) -> float:
    """Window availability ``P_a^w`` of a selection by eq. (3): each touched group counts once.

    Parameters
    ----------
    problem : AvailabilityProblem
        The problem (groups and their probabilities).
    selected : array_like of int, shape (k,)
        Resource indices.

    Returns
    -------
    float
        ``prod_{g in groups(selected)} group_p[g]``; 1.0 for an empty selection.

    References
    ----------
    ICCS 2023, eq. (3); equals eq. (2) when every group is a singleton.

    Examples
    --------
    >>> prob = AvailabilityProblem(cost=[1, 1, 1], group=[0, 0, 1], group_p=[0.5, 0.8], n=2)
    >>> window_probability(prob, [0, 1])   # one group: counted once
    0.5
    >>> round(window_probability(prob, [0, 2]), 3)
    0.4
    """
    groups = np.unique(problem.group[np.asarray(selected, dtype=np.int64)])
    return float(np.prod(problem.group_p[groups]))


Method = Callable[[AvailabilityProblem], AvailabilityResult]


def register_method(name: str) -> Callable[[Method], Method]:
    """Register an availability allocation method under ``name`` (decorator).

    The function takes an :class:`AvailabilityProblem` and returns an
    :class:`AvailabilityResult`. Raises ``ValueError`` if ``name`` is taken.
    """
    return registry.registering("availability method", name)


def methods() -> list[str]:
    """Return the registered availability method names, sorted."""
    return registry.names("availability method")


def infeasible(method: str, **stats: Any) -> AvailabilityResult:
    """The result of a method that found no selection within the budget.

    Parameters
    ----------
    method : str
        Registered name of the method.
    **stats
        Diagnostics; ``reason`` (str), when given, becomes the result's ``message``.

    Returns
    -------
    AvailabilityResult
        Status ``INFEASIBLE``, an empty selection, probability and cost 0.0.
    """
    return AvailabilityResult(
        np.empty(0, dtype=np.int64), 0.0, 0.0, Status.INFEASIBLE, method, stats
    )


def make_result(
    problem: AvailabilityProblem,
    selected: np.ndarray,
    status: Status,
    method: str,
    **stats: Any,
) -> AvailabilityResult:
    """Build a result from a selection, computing its eq. (3) probability and cost.

    Parameters
    ----------
    problem : AvailabilityProblem
        The instance.
    selected : array_like of int, shape (n,)
        Resource indices, in any order.
    status : Status
        ``OPTIMAL`` or ``FEASIBLE``; it becomes ``LIMIT`` when ``stats["truncated"]`` is true
        (a search stopped by its limit returns the best selection seen).
    method : str
        Registered name of the method.
    **stats
        Diagnostics.

    Returns
    -------
    AvailabilityResult
        The sorted selection with its eq. (3) probability and total cost.
    """
    status = Status.LIMIT if stats.get("truncated") else Status(status)
    selected = np.sort(np.asarray(selected, dtype=np.int64))
    return AvailabilityResult(
        selected,
        window_probability(problem, selected),
        float(problem.cost[selected].sum()),
        status,
        method,
        stats,
    )


def allocate_resources(
    problem: AvailabilityProblem, method: str = "exact", *, fallback_after=None
) -> AvailabilityResult:
    """Solve ``problem`` with the named method; ``result.stats["seconds"]`` is its wall time.

    Parameters
    ----------
    problem : AvailabilityProblem
        The instance.
    method : str
        A registered name (see :func:`methods`), or a fallback chain such as
        ``"knapsack_group>greedy_plus"`` (:mod:`vosim.allocators.fallback`).
    fallback_after : FallbackBudget, str, int or float, optional
        A chain's budget (``"2s"``, ``"5000"`` nodes: for KnapsackGroup, candidates
        expanded); ignored for a single name. ``None``: the links' own defaults.

    Returns
    -------
    AvailabilityResult
        Status ``"infeasible"`` (not an exception) when no selection fits the budget. A
        chain's result records ``stats["answered_by"]`` and ``stats["fell_back"]``.

    Raises
    ------
    UnknownAllocatorError
        ``method`` is not registered, or not a valid chain.
    TypeError
        ``problem`` is not an :class:`AvailabilityProblem`.
    """
    if isinstance(method, str) and ">" in method:  # a fallback chain
        fn = chain("availability method")(method, fallback_after)
    else:
        try:
            fn = registry.entry("availability method", method)
        except KeyError:
            raise UnknownAllocatorError(
                f"unknown method {method!r}; registered: {', '.join(methods())}"
            ) from None
    if not isinstance(problem, AvailabilityProblem):
        raise TypeError(f"problem must be an AvailabilityProblem, got {type(problem).__name__}")
    started = time.perf_counter()
    result = fn(problem)
    result.stats["seconds"] = time.perf_counter() - started
    return result
