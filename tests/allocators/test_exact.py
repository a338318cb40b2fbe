"""Tests of the exact availability methods: ``brute_force``, ``exact`` (group DP) and ``milp``.

``brute_force`` is the oracle on small instances (it enumerates every subset); the MILP
(scipy.optimize.milp, HiGHS) is the oracle on larger ones.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import vosim.allocators.exact as exact_mod
from vosim.allocators import AvailabilityProblem, allocate_resources, methods, window_probability
from vosim.allocators.exact import brute_force_select, exact_select, milp_select
from vosim.core import Status
from vosim.errors import ProblemError

SETTINGS = settings(max_examples=200, deadline=None)
REL = 1e-12


def check_result(problem: AvailabilityProblem, res) -> None:
    """Every documented invariant of a result: n distinct sorted nodes, budget, cost, P_a^w."""
    if res.status == Status.INFEASIBLE:
        assert res.selected.size == 0
        assert res.probability == 0.0
        assert res.cost == 0.0
        return
    sel = res.selected
    assert sel.dtype.kind == "i"
    assert sel.size == problem.n
    assert np.all(np.diff(sel) > 0), "sorted and distinct"
    assert 0 <= sel[0] and sel[-1] < problem.N
    assert res.cost == pytest.approx(problem.cost[sel].sum(), rel=1e-12, abs=1e-12)
    assert problem.cost[sel].sum() <= problem.budget
    assert res.probability == window_probability(problem, sel)
    assert 0.0 <= res.probability <= 1.0


# --------------------------------------------------------------------------------------------
# random small instances: exact == brute_force


P_VALUES = st.one_of(
    st.just(0.0), st.just(1.0), st.floats(0.01, 0.99, allow_nan=False, allow_infinity=False)
)


@st.composite
def small_problems(draw, real_costs: bool = False) -> AvailabilityProblem:
    N = draw(st.integers(1, 10))
    layout = draw(st.sampled_from(["random", "singletons", "one_big"]))
    if layout == "singletons":
        group = np.arange(N)
    elif layout == "one_big":  # one group holding a random subset, the others singletons
        in_big = np.array(draw(st.lists(st.booleans(), min_size=N, max_size=N)))
        group = np.where(in_big, 0, 1 + np.arange(N))
    else:
        G = draw(st.integers(1, N))
        group = np.array(draw(st.lists(st.integers(0, G - 1), min_size=N, max_size=N)))
    G = int(group.max()) + 1 + draw(st.integers(0, 2))  # a few empty groups are allowed
    group_p = draw(st.lists(P_VALUES, min_size=G, max_size=G))
    if real_costs:
        cost = draw(st.lists(st.floats(0, 10, allow_nan=False), min_size=N, max_size=N))
    else:
        cost = draw(st.lists(st.integers(0, 12), min_size=N, max_size=N))
    cost = np.array(cost, dtype=float)
    n = draw(st.integers(1, N))
    cheapest = float(np.sort(cost)[:n].sum())
    budget = draw(
        st.one_of(
            st.just(math.inf),
            st.integers(0, 80).map(float),
            st.just(cheapest),  # just feasible
            st.just(max(0.0, cheapest - 1)),  # usually infeasible
            st.floats(cheapest, float(np.sort(cost)[-n:].sum()) + 1, allow_nan=False),
        )
    )
    return AvailabilityProblem(cost=cost, group=group, group_p=group_p, n=n, budget=budget)


@SETTINGS
@given(small_problems())
def test_exact_equals_brute_force(problem):
    ex, bf = exact_select(problem), brute_force_select(problem)
    check_result(problem, ex)
    check_result(problem, bf)
    assert ex.status == bf.status
    assert bf.status in (Status.OPTIMAL, Status.INFEASIBLE)
    assert ex.probability == pytest.approx(bf.probability, rel=REL)


@SETTINGS
@given(small_problems())
def test_exact_backtracking_by_choices_equals_values(problem):
    """The 1-byte choice table (used when the value tables are too big) gives the same optimum."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(exact_mod, "_VALUE_TABLE_BYTES", 0)  # value tables never fit: choices
        mp.setattr(exact_mod, "_group_dp", _spy(exact_mod._group_dp, "choices"))
        ex = exact_select(problem)
    check_result(problem, ex)
    bf = brute_force_select(problem)
    assert ex.probability == pytest.approx(bf.probability, rel=REL)


def _spy(fn, expected_kind):
    def wrapper(*args, **kwargs):
        picks, kind = fn(*args, **kwargs)
        assert kind == expected_kind
        return picks, kind

    return wrapper


@SETTINGS
@given(small_problems(real_costs=True))
def test_exact_real_costs_against_brute_force(problem):
    """Real costs: "optimal" means equal to brute force; "feasible" lies between it and a bound."""
    ex, bf = exact_select(problem), brute_force_select(problem)
    check_result(problem, ex)
    assert (ex.status == Status.INFEASIBLE) == (bf.status == Status.INFEASIBLE)
    if ex.status == Status.OPTIMAL:
        assert ex.probability == pytest.approx(bf.probability, rel=REL)
    elif ex.status == Status.FEASIBLE:
        assert ex.probability <= bf.probability
        assert bf.probability <= ex.stats["upper_bound"] * (1 + REL)


@SETTINGS
@given(small_problems(real_costs=True), st.sampled_from([0.5, 1.0, 3.0]))
def test_exact_coarse_resolution_is_feasible_and_bounded(problem, resolution):
    ex, bf = exact_select(problem, resolution=resolution), brute_force_select(problem)
    check_result(problem, ex)
    assert (ex.status == Status.INFEASIBLE) == (bf.status == Status.INFEASIBLE)
    assert ex.probability <= bf.probability * (1 + REL)
    if ex.status == Status.OPTIMAL:
        assert ex.probability == pytest.approx(bf.probability, rel=REL)
    if ex.status == Status.FEASIBLE:
        assert bf.probability <= ex.stats["upper_bound"] * (1 + REL)


def test_real_costs_on_an_exact_grid_are_optimal():
    # quarters: the default grid (C' / 4096) holds every shifted cost exactly
    prob = AvailabilityProblem(
        cost=[1.25, 0.5, 2.75, 1.0, 0.75, 2.0],
        group=[0, 0, 1, 1, 2, 3],
        group_p=[0.9, 0.85, 0.6, 0.7],
        n=3,
        budget=3.5,
    )
    ex, bf = exact_select(prob), brute_force_select(prob)
    assert ex.status == Status.OPTIMAL
    assert ex.probability == pytest.approx(bf.probability, rel=REL)
    assert exact_select(prob, resolution=0.25).status == Status.OPTIMAL


def test_real_costs_rounding_gap_is_reported():
    # the docstring example: on a grid of 0.1 the best pair (0.85) rounds into the budget 0.8
    prob = AvailabilityProblem(
        cost=[0.4, 0.45, 0.3, 0.3], group=[0, 0, 1, 2], group_p=[0.9, 0.6, 0.6], n=2, budget=0.8
    )
    res = exact_select(prob, resolution=0.1)
    assert res.status == Status.FEASIBLE
    assert res.stats["upper_bound"] == 0.9
    assert res.probability == pytest.approx(0.9 * 0.6)
    assert res.cost <= 0.8


@pytest.mark.parametrize("resolution", [0.0, -1.0, math.inf, math.nan])
def test_bad_resolution(resolution):
    prob = AvailabilityProblem(cost=[1, 2], group=[0, 1], group_p=[0.5, 0.5], n=1, budget=1)
    with pytest.raises(ProblemError, match="resolution"):
        exact_select(prob, resolution=resolution)


def test_table_limit_coarsens_integer_grid(monkeypatch):
    """Past the memory limit the grid is coarsened; the result stays feasible and bounded."""
    rng = np.random.default_rng(5)
    prob = random_problem(rng, N=60, G=12, n=8, budget=40)
    bf_like = milp_select(prob)
    monkeypatch.setattr(exact_mod, "_CHOICE_TABLE_BYTES", 12 * 17 * 4)  # a few budget cells
    res = exact_select(prob)
    check_result(prob, res)
    assert res.stats["resolution"] > 1
    assert res.probability <= bf_like.probability * (1 + REL)
    if res.status == Status.OPTIMAL:
        assert res.probability == pytest.approx(bf_like.probability, rel=REL)
    else:
        assert res.status == Status.FEASIBLE
        assert bf_like.probability <= res.stats["upper_bound"] * (1 + REL)


# --------------------------------------------------------------------------------------------
# larger instances: exact == milp


def random_problem(rng, N, G, n, budget, p_low=0.5, zeros=0, ones=0, big_group=False):
    """An ICCS 2023 §3-style instance: integer costs in [2, 10], groups uniform over nodes."""
    group = np.concatenate([rng.permutation(G), rng.integers(0, G, N - G)])
    rng.shuffle(group)
    if big_group:
        group[rng.random(N) < 0.3] = 0
    p = rng.uniform(p_low, 1.0, G)
    p[rng.choice(G, zeros, replace=False)] = 0.0
    p[rng.choice(G, ones, replace=False)] = 1.0
    cost = rng.integers(2, 11, N)
    return AvailabilityProblem(cost=cost, group=group, group_p=p, n=n, budget=budget)


def milp_cases():
    cases = []
    rng = np.random.default_rng(2023)
    for i in range(36):
        N = int(rng.integers(30, 201))
        G = int(rng.integers(8, min(40, N) + 1))
        n = int(rng.integers(1, min(N, 25) + 1))
        per_node = [1.5, 2.0, 2.5, 3.0, 4.0, 6.0, 8.0, math.inf][i % 8]
        budget = per_node * n if math.isfinite(per_node) else math.inf
        zeros = int(rng.integers(0, 3)) if i % 3 == 0 else 0
        ones = int(rng.integers(0, 3)) if i % 4 == 1 else 0
        cases.append(
            pytest.param(
                (int(rng.integers(2**31)), N, G, n, budget, zeros, ones, i % 5 == 2),
                id=f"{i}-N{N}-G{G}-n{n}-C{budget:g}",
            )
        )
    return cases


@pytest.mark.parametrize("case", milp_cases())
def test_exact_equals_milp(case):
    seed, N, G, n, budget, zeros, ones, big = case
    prob = random_problem(
        np.random.default_rng(seed), N, G, n, budget, zeros=zeros, ones=ones, big_group=big
    )
    ex, mi = exact_select(prob), milp_select(prob)
    check_result(prob, ex)
    check_result(prob, mi)
    assert ex.status == mi.status
    assert ex.probability == pytest.approx(mi.probability, rel=REL)


def test_exact_equals_milp_when_only_zero_groups_fit():
    # the only affordable resources sit in a p = 0 group: every feasible window has P_a^w = 0
    prob = AvailabilityProblem(
        cost=[1, 1, 1, 9, 9, 9],
        group=[0, 0, 0, 1, 2, 3],
        group_p=[0, 0.9, 0.8, 0.7],
        n=3,
        budget=5,
    )
    for fn in (exact_select, milp_select, brute_force_select):
        res = fn(prob)
        assert res.status == Status.OPTIMAL
        assert res.probability == 0.0
        assert res.selected.tolist() == [0, 1, 2]


# --------------------------------------------------------------------------------------------
# API, registration, infeasibility, malformed input


def test_registered_and_callable_by_name():
    assert {"brute_force", "exact", "milp"} <= set(methods())
    prob = AvailabilityProblem(
        cost=[3, 1, 2, 2], group=[0, 0, 1, 2], group_p=[0.9, 0.5, 0.8], n=2, budget=4
    )
    for name in ("brute_force", "exact", "milp"):
        res = allocate_resources(prob, method=name)
        assert res.method == name
        assert res.status == Status.OPTIMAL
        assert res.selected.tolist() == [0, 1]
        assert res.probability == 0.9
        assert res.stats["seconds"] >= 0


@pytest.mark.parametrize("name", ["brute_force", "exact", "milp"])
def test_infeasible_budget_is_a_status(name):
    prob = AvailabilityProblem(cost=[5, 4, 6], group=[0, 1, 2], group_p=[1, 1, 1], n=2, budget=8)
    res = allocate_resources(prob, method=name)
    assert res.status == Status.INFEASIBLE
    assert res.selected.size == 0 and res.probability == 0.0 and res.cost == 0.0


@pytest.mark.parametrize("name", ["brute_force", "exact", "milp"])
def test_zero_budget_with_free_resources(name):
    prob = AvailabilityProblem(
        cost=[0, 3, 0, 0], group=[0, 1, 2, 2], group_p=[0.5, 1.0, 0.75], n=2, budget=0
    )
    res = allocate_resources(prob, method=name)
    assert res.status == Status.OPTIMAL
    assert res.selected.tolist() == [2, 3] and res.probability == 0.75


def test_brute_force_refuses_26_resources():
    prob = AvailabilityProblem(cost=np.ones(26), group=np.arange(26), group_p=np.ones(26), n=3)
    with pytest.raises(ProblemError, match=r"N = 26"):
        allocate_resources(prob, method="brute_force")
    # 25 is accepted (n = 1 keeps it quick)
    prob = AvailabilityProblem(cost=np.ones(25), group=np.arange(25), group_p=np.ones(25), n=1)
    assert allocate_resources(prob, method="brute_force").status == Status.OPTIMAL


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"cost": [1, -2, 3]}, "cost"),
        ({"group_p": [0.5, 1.5]}, "group_p"),
        ({"group_p": [-0.1, 0.5]}, "group_p"),
        ({"n": 4}, "n must"),
        ({"n": 0}, "n must"),
        ({"group": [0, 1]}, "group must have the shape"),
        ({"cost": [[1, 2, 3]]}, "cost must be one-dimensional"),
        ({"group": [0, 2, 1]}, r"group\[1\] = 2"),
        ({"budget": -1}, "budget"),
    ],
)
@pytest.mark.parametrize("name", ["brute_force", "exact", "milp"])
def test_malformed_problems_name_the_field(kwargs, field, name):
    base = {"cost": [1, 2, 3], "group": [0, 1, 1], "group_p": [0.5, 0.9], "n": 2, "budget": 10}
    with pytest.raises(ValueError, match=field):
        allocate_resources(AvailabilityProblem(**{**base, **kwargs}), method=name)


def test_unlimited_budget_picks_cheapest_of_best_groups():
    # no budget, n = 4: group 2 (p 0.95) holds only 3 resources, so the best window adds
    # group 0 (p 0.9); of the 5 resources of groups 0 and 2 the 4 cheapest are taken
    prob = AvailabilityProblem(
        cost=[5, 1, 7, 2, 2, 9, 4],
        group=[0, 0, 1, 1, 2, 2, 2],
        group_p=[0.9, 0.5, 0.95],
        n=4,
    )
    res = exact_select(prob)
    assert res.status == Status.OPTIMAL
    assert res.probability == pytest.approx(0.9 * 0.95)
    assert res.selected.tolist() == [0, 1, 4, 6]
    assert res.probability == brute_force_select(prob).probability
