"""The status every allocator result reports, and the abstract result type they share."""

from __future__ import annotations

import math

import pytest

from vosim.core.results import Result, Status


def test_statuses_are_the_strings_results_held_before():
    assert [s.value for s in Status] == ["optimal", "feasible", "limit", "infeasible"]
    assert Status.INFEASIBLE == "infeasible" and f"{Status.LIMIT}" == "limit"
    assert Status("feasible") is Status.FEASIBLE
    with pytest.raises(ValueError, match="'unknown'"):
        Status("unknown")


@pytest.mark.parametrize(
    ("status", "found", "message"),
    [
        (Status.OPTIMAL, True, "optimal solution found"),
        (Status.FEASIBLE, True, "solution found; optimality not proven"),
        (Status.LIMIT, True, "a time or node limit stopped the search; best solution found so far"),
        (Status.INFEASIBLE, False, "no solution found"),
    ],
)
def test_each_status_says_whether_a_solution_was_found(status, found, message):
    assert status.found is found
    assert status.default_message == message


class _Found(Result):
    """The least a result must define: its solution and objective."""

    def __init__(self, status: Status) -> None:
        self.status, self.message, self.stats = status, status.default_message, {}

    @property
    def solution(self):
        return "x" if self.status.found else None

    @property
    def objective(self) -> float:
        return 1.0 if self.status.found else math.nan


@pytest.mark.parametrize("status", list(Status))
def test_a_results_success_is_its_status_found(status):
    result = _Found(status)
    assert result.success is status.found
    assert (result.solution is None) is not status.found


def test_a_result_type_without_solution_or_objective_cannot_be_made():
    class Partial(Result):
        @property
        def solution(self):
            return None

    with pytest.raises(TypeError, match="objective"):
        Partial()
