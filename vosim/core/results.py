"""The status and message every allocator result exposes, after scipy's ``OptimizeResult``."""

from __future__ import annotations

import enum
from typing import Protocol, runtime_checkable

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


@runtime_checkable
class Result(Protocol):
    """What every allocator result exposes besides its own fields.

    Attributes
    ----------
    status : Status
        How the search ended.
    message : str
        A sentence on it, never empty: why nothing was found (the result's ``reason`` where it
        has one), or what was found.
    """

    @property
    def status(self) -> Status:
        """How the search ended."""
        ...

    @property
    def message(self) -> str:
        """A sentence on how the search ended."""
        ...
