"""The availability problem and its registry: every method of ICCS 2023 / ICCS 2021 run through
allocate_resources keeps n, the budget and the optimum, and reports infeasibility as a status.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from paper_oracles import (
    ALL,
    MAY_MISS,
    SETTINGS,
    brute,
    check_result,
    problems,
)

import vosim.allocators.greedy as greedy_mod
import vosim.allocators.group_bnb as groups_mod
from vosim.allocators.availability_problem import (
    AvailabilityProblem,
    allocate_resources,
)
from vosim.core import Status
from vosim.errors import ProblemError


@SETTINGS
@given(problems())
def test_every_method_respects_n_budget_and_optimum(problem):
    best, _ = brute(problem.cost, problem.group, problem.group_p, problem.n, problem.budget)
    for name in ALL:
        res = allocate_resources(problem, name)
        check_result(problem, res, name)
        if best is None:
            assert res.status == Status.INFEASIBLE, name
            continue
        if res.status == Status.INFEASIBLE:
            assert name in MAY_MISS, f"{name} missed a feasible problem"
            assert res.stats["reason"]
            continue
        assert res.probability <= best * (1 + 1e-12), name


@pytest.mark.parametrize("name", ALL)
def test_infeasible_budget_gives_status_not_exception(name):
    # the two cheapest cost 3: budget 2 admits nothing
    problem = AvailabilityProblem(
        cost=[1, 2, 4, 5], group=[0, 0, 1, 2], group_p=[0.9, 0.8, 0.7], n=2, budget=2
    )
    res = allocate_resources(problem, name)
    assert res.status == Status.INFEASIBLE
    assert res.selected.size == 0 and res.probability == 0.0 and res.cost == 0.0
    assert "seconds" in res.stats


@pytest.mark.parametrize("name", ALL)
def test_zero_budget_with_free_resources(name):
    problem = AvailabilityProblem(
        cost=[0, 0, 3], group=[0, 1, 2], group_p=[0.5, 0.6, 0.99], n=2, budget=0
    )
    res = allocate_resources(problem, name)
    if name == "max_p":  # the two most available cost 3: over the budget
        assert res.status == Status.INFEASIBLE
        return
    assert res.selected.tolist() == [0, 1]
    assert res.probability == pytest.approx(0.3)


def test_methods_are_registered():
    from vosim.allocators.availability_problem import methods

    assert set(ALL) <= set(methods())
    assert greedy_mod.max_p.__name__ == "max_p"
    assert groups_mod.knapsack_group.__name__ == "knapsack_group"


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("cost", ["a", 1]),
        ("cost", [1j, 1]),
        ("cost", None),
        ("group", [True, False]),
        ("group", ["0", "1"]),
        ("group_p", ["x", 0.5]),
        ("budget", "a"),
        ("budget", None),
        ("budget", 1j),
    ],
)
def test_problem_fields_of_the_wrong_type_are_named(field, value):
    """Before: numpy's ValueError/TypeError named no field, and boolean groups passed."""
    fields = dict(cost=[1.0, 2.0], group=[0, 1], group_p=[0.5, 0.9], n=1, budget=10.0)
    fields[field] = value
    with pytest.raises(ProblemError, match=f"^{field} must be"):
        AvailabilityProblem(**fields)
