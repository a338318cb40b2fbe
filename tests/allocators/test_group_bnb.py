"""The §2.4 group branch and bound of ICCS 2023 (KnapsackGroup, Greedy, Greedy+).

Checked against the brute force and the MILP oracle of :mod:`paper_oracles`.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from paper_oracles import (
    HEURISTICS,
    RTOL,
    SETTINGS,
    UNDERFLOW,
    brute,
    check_result,
    milp_optimum,
    problems,
)

import vosim.allocators.group_bnb as groups_mod
from vosim.allocators.availability_problem import (
    AvailabilityProblem,
    allocate_resources,
    window_probability,
)
from vosim.allocators.group_bnb import group_branch_and_bound
from vosim.core import Status


@SETTINGS
@given(problems())
def test_knapsack_group_equals_brute_force(problem):
    best, _ = brute(problem.cost, problem.group, problem.group_p, problem.n, problem.budget)
    res = allocate_resources(problem, "knapsack_group")
    check_result(problem, res, "knapsack_group")
    if best is None:
        assert res.status == Status.INFEASIBLE
    else:
        assert res.status == Status.OPTIMAL
        assert res.probability == pytest.approx(best, rel=1e-12, abs=UNDERFLOW)
        assert isinstance(res.stats["tree_size"], int) and res.stats["tree_size"] >= 1


@SETTINGS
@given(problems())
def test_greedy_plus_never_worse_than_greedy(problem):
    g = allocate_resources(problem, "greedy")
    gp = allocate_resources(problem, "greedy_plus")
    assert g.status == gp.status
    if g.status != Status.INFEASIBLE:
        assert gp.probability >= g.probability
        if gp.probability == g.probability:
            assert gp.cost <= g.cost
        assert gp.stats["improved"] == (not np.array_equal(g.selected, gp.selected))


@SETTINGS
@given(problems())
def test_branch_and_bound_final_candidate_is_valid(problem):
    """§2.4 step 4a: the answer uses exactly the G+ groups of the final candidate."""
    for solver in ("knapsack", "greedy"):
        window, state, stats = group_branch_and_bound(problem, solver)
        assert stats["tree_size"] == 1 + 2 * stats["splits"]
        assert 1 <= stats["expanded"] <= stats["tree_size"]
        if window is None:
            assert state is None
            continue
        used = np.unique(problem.group[window])
        assert np.array_equal(used, np.flatnonzero(state == 1))


def test_iccs2023_section_2_2_a_group_is_counted_once():
    """Fig. 3: resources of one parallel job share a group, so P_a^w = P_a^G, not P_a^G ** 3.

    Resources 0-2 run one job (group 0, 0.8); resources 3-5 are independent (0.85 each). By
    eq. (2) the three independent ones look best (0.85^3 = 0.614 > 0.8^3 = 0.512); by eq. (3)
    the group is worth 0.8.
    """
    problem = AvailabilityProblem(
        cost=[1, 1, 1, 1, 1, 1],
        group=[0, 0, 0, 1, 2, 3],
        group_p=[0.8, 0.85, 0.85, 0.85],
        n=3,
        budget=math.inf,
    )
    assert window_probability(problem, [0, 1, 2]) == 0.8
    assert window_probability(problem, [3, 4, 5]) == pytest.approx(0.85**3)
    exact = allocate_resources(problem, "knapsack_group")
    assert exact.selected.tolist() == [0, 1, 2] and exact.probability == 0.8
    assert exact.status == Status.OPTIMAL
    single = allocate_resources(problem, "knapsack_p")  # KnapsackSingle
    assert single.selected.tolist() == [3, 4, 5]
    assert single.probability == pytest.approx(0.85**3)
    for name in ("greedy", "greedy_plus"):  # no cost limit: the greedy trees are exact (§3.2)
        assert allocate_resources(problem, name).probability == 0.8


def test_branch_and_bound_tree_of_the_doc_example():
    problem = AvailabilityProblem(
        cost=[1, 1, 1], group=[0, 0, 1], group_p=[0.5, 0.8], n=2, budget=2
    )
    window, state, stats = group_branch_and_bound(problem)
    # S0: p = 0.5 ** 0.5 for both resources of group 0, 0.8 for group 1 -> {0, 2}, key 0.566,
    # split on group 0 (the least available used). S+ (popped first): resource 0 forced with
    # 0.5, resource 1 enters with p = 1 -> {0, 1}, valid, key 0.5. S- (key 0.566 > 0.5): only
    # resource 2 is left for n = 2, pruned. Then the valid {0, 1} is on top.
    assert window.tolist() == [0, 1] and state.tolist() == [1, 0]
    assert stats == {
        "tree_size": 3,
        "expanded": 3,
        "splits": 1,
        "cost_scale": 1,
        "exact_costs": True,
        "truncated": False,
    }


@SETTINGS
@given(problems(), st.integers(1, 3))
def test_truncated_search_returns_best_window_seen(problem, limit):
    """The expansion limit: a feasible window (the best relaxed so far), never an exception."""
    best, _ = brute(problem.cost, problem.group, problem.group_p, problem.n, problem.budget)
    full = group_branch_and_bound(problem)[2]
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(groups_mod, "MAX_EXPANSIONS", limit)
        for name in ("knapsack_group", "greedy", "greedy_plus"):
            res = allocate_resources(problem, name)
            check_result(problem, res, name)
            assert (res.status == Status.INFEASIBLE) == (best is None)
            if res.status == Status.INFEASIBLE:
                continue
            truncated = res.stats["truncated"]
            if name == "knapsack_group":
                assert truncated == (full["expanded"] > limit)
                assert res.status == (Status.LIMIT if truncated else Status.OPTIMAL)
                if truncated:
                    assert res.stats["bound"] >= best * (1 - 1e-12)
            assert res.stats["expanded"] <= limit
            assert res.probability <= best * (1 + 1e-12)


def test_unknown_solver():
    problem = AvailabilityProblem(cost=[1], group=[0], group_p=[0.5], n=1)
    with pytest.raises(ValueError, match="solver"):
        group_branch_and_bound(problem, "simplex")


def milp_instances():
    rng = np.random.default_rng(20230705)
    out = []
    for k in range(36):
        N = int(rng.integers(40, 61))
        G = 10
        group = rng.integers(0, G, N)
        group_p = rng.uniform(0.5, 1.0, G)
        if k % 6 == 0:
            group_p[rng.integers(G)] = 0.0
        if k % 6 == 1:
            group_p[rng.integers(G)] = 1.0
        cost = rng.integers(1, 11, N)
        n = int(rng.integers(5, 21))
        cheapest = int(np.sort(cost)[:n].sum())
        budget = float(cheapest + rng.integers(0, 6 * n)) if k % 9 else float(cheapest - 1)
        out.append((cost, group, group_p, n, budget))
    return out


MILP_INSTANCES = milp_instances()


@pytest.mark.parametrize("k", range(len(MILP_INSTANCES)))
def test_knapsack_group_equals_milp(k):
    cost, group, group_p, n, budget = MILP_INSTANCES[k]
    problem = AvailabilityProblem(cost, group, group_p, n, budget)
    expected = milp_optimum(cost, group, group_p, n, budget)
    res = allocate_resources(problem, "knapsack_group")
    check_result(problem, res, "knapsack_group")
    if expected is None:
        assert res.status == Status.INFEASIBLE
    else:
        assert res.status == Status.OPTIMAL
        assert res.probability == pytest.approx(expected, rel=1e-12, abs=0)
        for name in HEURISTICS:
            other = allocate_resources(problem, name)
            check_result(problem, other, name)
            assert other.probability <= res.probability * (1 + 1e-12)


@st.composite
def quarter_cost_problems(draw):
    """Costs that are multiples of 0.25: exact after scaling, so exact methods stay exact."""
    problem = draw(problems(max_n=8))
    scale = draw(st.sampled_from([0.25, 0.5, 1.5]))
    return AvailabilityProblem(
        problem.cost * scale,
        problem.group,
        problem.group_p,
        problem.n,
        problem.budget * scale,
    )


@SETTINGS
@given(quarter_cost_problems())
def test_decimal_costs_are_exact(problem):
    best, _ = brute(
        problem.cost, problem.group, problem.group_p, problem.n, problem.budget, tol=RTOL
    )
    res = allocate_resources(problem, "knapsack_group")
    check_result(problem, res, "knapsack_group")
    if best is None:
        assert res.status == Status.INFEASIBLE
    else:
        assert res.status == Status.OPTIMAL
        assert res.probability == pytest.approx(best, rel=1e-12, abs=UNDERFLOW)
