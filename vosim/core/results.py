"""The one result type of every allocator (:class:`Result`) and its :class:`Status`, after scipy."""

from __future__ import annotations

import abc
import enum
from typing import Any

__all__ = ["Status", "Result"]


class Status(enum.StrEnum):
    """How an allocator's search ended: the ``status`` of every allocator result.

    A string enum, so a status compares equal to (and prints as) the string the results held
    before the enum existed (``res.status == "infeasible"``, ``f"{res.status}"``).

    Attributes
    ----------
    OPTIMAL
        A solution that is optimal for the allocator's criterion (an exact method that ran to
        the end).
    FEASIBLE
        A solution without a proof of optimality (a heuristic, or an exact method on rounded
        costs).
    LIMIT
        A time or node limit stopped the search before it could prove optimality; the result
        holds the best solution found until then.
    INFEASIBLE
        No solution: nothing fits (for a heuristic, none was found, which does not prove that
        none exists). The result's ``message`` says why.

    References
    ----------
    ``scipy.optimize.OptimizeResult`` (``status``, ``message``) and the status codes of
    ``scipy.optimize.milp`` (optimal, limit reached, infeasible).

    Examples
    --------
    >>> Status.INFEASIBLE == "infeasible", Status.LIMIT.found
    (True, True)
    >>> Status.INFEASIBLE.default_message
    'no solution found'
    """

    OPTIMAL = "optimal"
    FEASIBLE = "feasible"
    LIMIT = "limit"
    INFEASIBLE = "infeasible"

    @property
    def found(self) -> bool:
        """``True`` when the result holds a solution (every status but ``INFEASIBLE``)."""
        return self is not Status.INFEASIBLE

    @property
    def default_message(self) -> str:
        """The message of a result with this status that has no reason text of its own."""
        return _MESSAGES[self]


_MESSAGES = {
    Status.OPTIMAL: "optimal solution found",
    Status.FEASIBLE: "solution found; optimality not proven",
    Status.LIMIT: "a time or node limit stopped the search; best solution found so far",
    Status.INFEASIBLE: "no solution found",
}


class Result(abc.ABC):
    """The one type of every allocator's result: how the search ended and what it found.

    Every allocator returns an instance of a subclass (a window search an
    :class:`~vosim.core.windows.Allocation`, step 1 of the cyclic scheme
    :class:`~vosim.allocators.csa.Alternatives`, the MCKP an ``MCKPResult`` ...), so a caller
    reads any of them the same way, as ``scipy.optimize.OptimizeResult``'s ``status``,
    ``message``, ``x``, ``fun`` and statistics; each subclass keeps beside them the fields
    named as its paper names them (``window``, ``choice``, ``selected``, ``probability``).

    Attributes
    ----------
    status : Status
        How the search ended (a field or a property of the subclass).
    message : str
        A sentence on it, never empty: why nothing was found (the result's ``reason`` where it
        has one), or what was found.
    solution : Any
        What was found (:attr:`solution`, the subclass's own field by its paper's name); the
        subclass's empty value when nothing was.
    objective : float
        The value the method optimised for :attr:`solution` (:attr:`objective`); NaN when
        nothing was found or when the result is a set of candidates with no single value
        (step 1's alternatives).
    stats : dict
        Diagnostics of the search (counts, times, the reason of a fallback), possibly empty.

    References
    ----------
    ``scipy.optimize.OptimizeResult`` (status, message, x, fun, nit...); vosim's type.
    """

    __slots__ = ()

    status: Status
    message: str
    stats: dict[str, Any]

    @property
    @abc.abstractmethod
    def solution(self) -> Any:
        """What the search found: the subclass's field named by its paper."""

    @property
    @abc.abstractmethod
    def objective(self) -> float:
        """The value the search optimised for :attr:`solution` (NaN if none)."""

    @property
    def success(self) -> bool:
        """``True`` when the result holds a solution (``status.found``)."""
        return self.status.found
