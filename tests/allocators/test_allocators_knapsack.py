"""KnapsackP (ICCS 2021 eq. 5) and the integer costs of the knapsack methods."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from paper_oracles import (
    RTOL,
    SETTINGS,
    UNDERFLOW,
    brute,
    brute_eq2,
    check_result,
    problems,
)

import vosim.allocators.knapsack as knapsack_mod
from vosim.allocators.availability_problem import (
    AvailabilityProblem,
    allocate_resources,
)
from vosim.allocators.knapsack import integer_costs, knapsack_select
from vosim.core import Status
from vosim.errors import ProblemError


@SETTINGS
@given(problems(singletons=True))
@example(  # the optimum 0.9 * 0.9 * 0.5625 * 5e-324 underflows to 0.0 in knapsack_p's order
    AvailabilityProblem(
        cost=[0.0] * 9,
        group=list(range(9)),
        group_p=[0.0] * 5 + [0.9, 0.9, 0.5625, 4.941e-324],
        n=4,
        budget=0.0,
    )
)
def test_knapsack_p_equals_brute_force_on_singleton_groups(problem):
    best, _ = brute(problem.cost, problem.group, problem.group_p, problem.n, problem.budget)
    res = allocate_resources(problem, "knapsack_p")
    check_result(problem, res, "knapsack_p")
    if best is None:
        assert res.status == Status.INFEASIBLE
    else:
        assert res.status == Status.OPTIMAL
        assert res.probability == pytest.approx(best, rel=1e-12, abs=UNDERFLOW)


@SETTINGS
@given(problems())
def test_knapsack_p_is_knapsack_single_on_groups(problem):
    """With groups, knapsack_p maximises eq. (2) with p_i = P_G(i) and reports eq. (3)."""
    best2 = brute_eq2(problem.cost, problem.resource_p, problem.n, problem.budget)
    res = allocate_resources(problem, "knapsack_p")
    check_result(problem, res, "knapsack_p")
    if best2 is None:
        assert res.status == Status.INFEASIBLE
    else:
        value2 = math.prod(problem.resource_p[res.selected].tolist())
        assert value2 == pytest.approx(best2, rel=1e-12, abs=UNDERFLOW)
        singletons = np.bincount(problem.group).max() <= 1
        assert res.status == (Status.OPTIMAL if singletons else Status.FEASIBLE)


def eq5_reference(cost, p, n, budget):
    """Eq. (5) item by item, as printed: f_j(c, v) = max(f_{j-1}(c, v), f_{j-1}(c-c_j, v-1) p_j).

    Products, with -1 for "no selection" (so p = 0 stays distinguishable); returns f_m(C, n).
    """
    C = int(budget)
    f = np.full((n + 1, C + 1), -1.0)
    f[0] = 1.0
    for cj, pj in zip(cost, p, strict=True):
        cj = int(cj)
        if cj > C:
            continue
        prev = f.copy()
        src = prev[:-1, : C + 1 - cj]
        cand = np.where(src >= 0, src * pj, -1.0)
        f[1:, cj:] = np.maximum(prev[1:, cj:], cand)
    return f[n, C]


@pytest.mark.parametrize("path", ["blocks", "shifts"])
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_knapsack_select_equals_eq5(path, data):
    m = data.draw(st.integers(1, 60))
    n = data.draw(st.integers(0, min(m, 25)))
    max_cost = data.draw(st.sampled_from([1, 3, 20, 60]))
    cost = np.array(data.draw(st.lists(st.integers(0, max_cost), min_size=m, max_size=m)))
    p = np.array(
        data.draw(
            st.lists(
                st.one_of(st.sampled_from([0.0, 0.5, 1.0]), st.floats(0.01, 1.0)),
                min_size=m,
                max_size=m,
            )
        )
    )
    budget = data.draw(st.integers(0, int(cost.sum()) + 1))
    expected = eq5_reference(cost, p, n, budget)
    # force the small-table (strided blocks) or the large-table (shift loop) forward pass
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(knapsack_mod, "_LOOP_CELLS", 10**9 if path == "blocks" else 0)
        chosen = knapsack_select(cost, p, n, budget)
    if expected < 0:
        assert chosen is None
    else:
        assert chosen is not None and chosen.shape == (n,)
        assert np.all(np.diff(chosen) > 0)
        assert cost[chosen].sum() <= budget
        value = math.prod(p[chosen].tolist())
        assert value == pytest.approx(expected, rel=1e-11, abs=0)


def test_knapsack_select_returns_cheapest_optimum():
    # MaxP {3, 0} costs 8 > 4; {0, 1} and {0, 2} both give 0.45, {0, 2} for 3 instead of 4
    assert knapsack_select([3, 1, 0, 5], [0.9, 0.5, 0.5, 1.0], 2, 4).tolist() == [0, 2]
    # MaxP fits: on equal p the cheaper
    assert knapsack_select([1, 5, 2], [1.0, 0.9, 0.9], 2, 10).tolist() == [0, 2]
    # p = 1 items tie everywhere: the cheapest n
    assert knapsack_select([4, 1, 3, 2], [1.0] * 4, 2, 10).tolist() == [1, 3]


def test_knapsack_select_zero_probabilities():
    # the only affordable pair contains a p = 0 item: product 0, still a selection
    assert knapsack_select([1, 1, 9], [0.0, 0.5, 0.9], 2, 2).tolist() == [0, 1]
    # a positive product beats any with p = 0
    assert knapsack_select([1, 1, 1], [0.0, 0.5, 0.9], 2, 2).tolist() == [1, 2]
    assert knapsack_select([1, 1], [0.0, 0.0], 2, 2).tolist() == [0, 1]
    assert knapsack_select([1, 1], [0.0, 0.0], 2, 1) is None


def test_knapsack_select_edge_cases():
    assert knapsack_select([1, 2], [0.5, 0.5], 0, 0).tolist() == []
    assert knapsack_select([1, 2], [0.5, 0.5], 3, 10) is None
    assert knapsack_select([], [], 0, 0).tolist() == []
    assert knapsack_select([2.0, 3.0], [0.5, 0.6], 1, math.inf).tolist() == [1]


@pytest.mark.parametrize(
    ("args", "field"),
    [
        (([1.5, 2], [0.5, 0.5], 1, 3), "cost"),
        (([-1, 2], [0.5, 0.5], 1, 3), "cost"),
        (([1, 2], [0.5, 1.5], 1, 3), "p"),
        (([1, 2], [0.5], 1, 3), "p"),
        (([1, 2], [0.5, 0.5], -1, 3), "n"),
        (([1, 2], [0.5, 0.5], 1, -3), "budget"),
        (([[1, 2]], [[0.5, 0.5]], 1, 3), "cost"),
    ],
)
def test_knapsack_select_rejects_malformed_input(args, field):
    with pytest.raises(ProblemError, match=field):
        knapsack_select(*args)


def test_knapsack_select_refuses_oversized_table(monkeypatch):
    monkeypatch.setattr(knapsack_mod, "MAX_TABLE_ENTRIES", 100)
    with pytest.raises(ProblemError, match="too fine"):
        knapsack_select(np.arange(1, 41), np.linspace(0.5, 0.99, 40), 5, 100)


def test_integer_costs_exact_and_rounded():
    ic = integer_costs([3, 1, 2], 4.5)
    assert ic.cost.tolist() == [3, 1, 2] and ic.budget == 4.0 and ic.scale == 1 and ic.exact
    ic = integer_costs([0.1, 0.2], 0.3)  # 0.1 + 0.2 > 0.3 in floats; 1 + 2 <= 3 exactly
    assert ic.cost.tolist() == [1, 2] and ic.budget == 3.0 and ic.scale == 10 and ic.exact
    ic = integer_costs([0.25, 1.5], math.inf)
    assert ic.scale == 100 and ic.budget == math.inf and ic.exact
    ic = integer_costs([0.1234, 2.0], 1.0)  # rounded up at 0.001
    assert ic.cost.tolist() == [124, 2000] and ic.budget == 1000.0 and not ic.exact
    assert integer_costs([0.1234], 1.0, decimals=4).exact
    with pytest.raises(ProblemError, match="cost"):
        integer_costs([-0.5], 1.0)
    with pytest.raises(ProblemError, match="budget"):
        integer_costs([0.5], -1.0)


@SETTINGS
@given(problems(max_n=8), st.lists(st.floats(0.0, 0.999), min_size=8, max_size=8))
def test_real_costs_are_rounded_up(problem, noise):
    """Costs off the 0.001 grid: rounded up, so selections stay within budget, and the result
    is at least the optimum of the budget reduced by n * 0.001 (the stated resolution)."""
    cost = problem.cost + np.array(noise[: problem.N]) + 1e-4
    budget = problem.budget + 0.37
    real = AvailabilityProblem(cost, problem.group, problem.group_p, problem.n, budget)
    best, _ = brute(cost, real.group, real.group_p, real.n, budget, tol=RTOL)
    worse, _ = brute(cost, real.group, real.group_p, real.n, budget - real.n * 1e-3)
    for name in ("knapsack_group", "knapsack_p"):
        res = allocate_resources(real, name)
        check_result(real, res, name)
        assert res.stats["cost_scale"] == 1000
        if res.status == Status.INFEASIBLE:
            assert worse is None
            continue
        assert res.status == Status.FEASIBLE
        assert res.probability <= best * (1 + 1e-12)
        if name == "knapsack_group" and worse is not None:
            assert res.probability >= worse * (1 - 1e-12)
