"""Tests of the ICCS 2023 / ICCS 2021 availability methods: KnapsackP, the greedy rules and the
§2.4 group branch and bound (KnapsackGroup, Greedy, Greedy+).

Exact methods are checked against two independent oracles written here: a brute force over
every ``n``-subset (eq. 3 computed directly from the groups touched) on small instances, and a
``scipy.optimize.milp`` model with group indicator variables on larger ones.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from scipy.optimize import Bounds, LinearConstraint, milp

import vosim.allocators.greedy as greedy_mod
import vosim.allocators.group_bnb as groups_mod
import vosim.allocators.knapsack as knapsack_mod
from vosim.allocators.availability_problem import (
    AvailabilityProblem,
    allocate_resources,
    window_probability,
)
from vosim.allocators.greedy import greedy_select
from vosim.allocators.group_bnb import group_branch_and_bound
from vosim.allocators.knapsack import integer_costs, knapsack_select
from vosim.core import Status
from vosim.errors import ProblemError

EXACT = ("knapsack_group",)
HEURISTICS = (
    "knapsack_p",
    "max_p",
    "min_c",
    "max_p_per_c",
    "greedy_united",
    "greedy",
    "greedy_plus",
)
ALL = EXACT + HEURISTICS
#: Heuristics allowed to report "infeasible" although some selection fits (paper: "may provide
#: infeasible solutions"); every other method finds a selection whenever one exists.
MAY_MISS = ("max_p", "max_p_per_c")
RTOL = 1e-9  # budget tolerance for real costs (greedy.BUDGET_RTOL)

SETTINGS = settings(max_examples=200, deadline=None)

#: Probabilities below this are zero for the comparisons: products of tiny (or subnormal)
#: probabilities underflow differently in another multiplication order or in log space
#: (hypothesis found 0.0 against 5e-324).
UNDERFLOW = 1e-300


# --------------------------------------------------------------------------------------------
# oracles


def eq3(group, group_p, chosen) -> float:
    """Eq. (3) computed directly: product over the distinct groups of ``chosen``."""
    return math.prod(float(group_p[g]) for g in {int(group[i]) for i in chosen})


def brute(cost, group, group_p, n, budget, tol=0.0):
    """(best eq. 3 probability, all optimal subsets) over every n-subset within budget."""
    best, arg = None, []
    for comb in itertools.combinations(range(len(cost)), n):
        if sum(float(cost[i]) for i in comb) > budget * (1 + tol):
            continue
        value = eq3(group, group_p, comb)
        if best is None or value > best:
            best, arg = value, [comb]
        elif value == best:
            arg.append(comb)
    return best, arg


def brute_eq2(cost, p, n, budget):
    """Best eq. (2) product over every n-subset within budget (None if none fits)."""
    best = None
    for comb in itertools.combinations(range(len(cost)), n):
        if sum(int(cost[i]) for i in comb) <= budget:
            value = math.prod(float(p[i]) for i in comb)
            best = value if best is None else max(best, value)
    return best


def milp_optimum(cost, group, group_p, n, budget):
    """Optimal eq. (3) probability by a MILP with group indicators (None if infeasible).

    Variables ``x_i`` (resource chosen) and ``y_g`` (group touched), binary; maximise
    ``sum_g y_g log p_g`` subject to ``x_i <= y_group(i)``, ``sum x = n``, ``cost . x <= C``.
    Groups with ``p_g = 0`` have ``log p_g = -inf``: their resources are first forbidden; if
    nothing fits then, every feasible selection touches a zero group, so the optimum is 0 when
    the ``n`` cheapest resources fit and the problem is infeasible otherwise.
    """
    cost = np.asarray(cost, dtype=float)
    group = np.asarray(group)
    group_p = np.asarray(group_p, dtype=float)
    N, G = cost.size, group_p.size
    allowed = group_p[group] > 0
    if np.count_nonzero(allowed) >= n:
        logp = np.log(np.where(group_p > 0, group_p, 1.0))
        c = np.concatenate((np.zeros(N), -logp))
        link = np.zeros((N, N + G))
        link[np.arange(N), np.arange(N)] = 1.0
        link[np.arange(N), N + group] = -1.0
        count = np.concatenate((np.ones(N), np.zeros(G)))[None, :]
        spend = np.concatenate((cost, np.zeros(G)))[None, :]
        constraints = [
            LinearConstraint(link, -np.inf, 0.0),
            LinearConstraint(count, n, n),
            LinearConstraint(spend, -np.inf, budget),
        ]
        upper = np.concatenate((allowed.astype(float), np.ones(G)))
        res = milp(
            c,
            constraints=constraints,
            integrality=np.ones(N + G),
            bounds=Bounds(np.zeros(N + G), upper),
            options={"mip_rel_gap": 0},
        )
        if res.status == 0:
            chosen = np.flatnonzero(res.x[:N] > 0.5)
            assert chosen.size == n and cost[chosen].sum() <= budget + 1e-9
            return eq3(group, group_p, chosen)
        assert res.status == 2, res.message  # infeasible
    return 0.0 if np.sort(cost)[:n].sum() <= budget else None


# --------------------------------------------------------------------------------------------
# strategies


@st.composite
def problems(draw, max_n=10, singletons=False, max_cost=10):
    N = draw(st.integers(1, max_n))
    if singletons:
        group = list(range(N))
        G = N
    else:
        G = draw(st.integers(1, N))
        group = draw(st.lists(st.integers(0, G - 1), min_size=N, max_size=N))
    probability = st.one_of(
        st.sampled_from([0.0, 0.25, 0.5, 0.9, 1.0]), st.floats(0.0, 1.0, allow_nan=False)
    )
    group_p = draw(st.lists(probability, min_size=G, max_size=G))
    cost = draw(st.lists(st.integers(0, max_cost), min_size=N, max_size=N))
    n = draw(st.integers(1, N))
    # budgets from hopeless (below the n cheapest) to unlimited
    budget = draw(st.one_of(st.integers(0, sum(cost) + 1).map(float), st.just(math.inf)))
    return AvailabilityProblem(cost=cost, group=group, group_p=group_p, n=n, budget=budget)


def check_result(problem, result, name):
    """Invariants every method's result satisfies."""
    assert result.method == name
    if result.status == Status.INFEASIBLE:
        assert result.selected.size == 0 and result.selected.dtype.kind == "i"
        assert result.probability == 0.0 and result.cost == 0.0
        return
    assert result.status in (Status.OPTIMAL, Status.FEASIBLE, Status.LIMIT)
    assert result.status != Status.LIMIT or result.stats["truncated"]
    sel = result.selected
    assert sel.dtype.kind == "i" and sel.shape == (problem.n,)
    assert np.all(np.diff(sel) > 0), "sorted, distinct"
    assert 0 <= sel[0] and sel[-1] < problem.N
    assert result.cost == pytest.approx(float(problem.cost[sel].sum()), rel=1e-12)
    assert result.cost <= problem.budget * (1 + RTOL)
    assert result.probability == window_probability(problem, sel)
    assert result.probability == pytest.approx(eq3(problem.group, problem.group_p, sel))


# --------------------------------------------------------------------------------------------
# exactness against brute force


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


# --------------------------------------------------------------------------------------------
# heuristics: feasible, valid, never above the optimum


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


@SETTINGS
@given(problems(), st.sampled_from(["max_p", "min_c", "max_p_per_c"]))
def test_single_rules_take_the_first_n_by_their_order(problem, rule):
    res = allocate_resources(problem, rule)
    p, c = problem.resource_p, problem.cost
    if rule == "max_p":
        key = [(-p[i], c[i], i) for i in range(problem.N)]
    elif rule == "min_c":
        key = [(c[i], -p[i], i) for i in range(problem.N)]
    else:
        w = [
            math.inf if c[i] == 0 and p[i] > 0 else (0.0 if c[i] == 0 else p[i] / c[i])
            for i in range(problem.N)
        ]
        key = [(-w[i], -p[i], c[i], i) for i in range(problem.N)]
    first = sorted(sorted(range(problem.N), key=lambda i: key[i])[: problem.n])
    fits = c[first].sum() <= problem.budget * (1 + RTOL)
    if fits:
        assert res.selected.tolist() == first
    else:
        assert res.status == Status.INFEASIBLE


@SETTINGS
@given(problems())
def test_greedy_united_is_first_fitting_stage(problem):
    res = allocate_resources(problem, "greedy_united")
    for rule in ("max_p", "max_p_per_c", "min_c"):
        single = allocate_resources(problem, rule)
        if single.status != Status.INFEASIBLE:
            assert res.stats["stage"] == rule
            assert np.array_equal(res.selected, single.selected)
            return
    assert res.status == Status.INFEASIBLE


# --------------------------------------------------------------------------------------------
# infeasible budgets and worked examples


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


# --------------------------------------------------------------------------------------------
# larger instances: MILP oracle


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


# --------------------------------------------------------------------------------------------
# the knapsack DP against the plain recurrence of eq. (5)


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


# --------------------------------------------------------------------------------------------
# greedy_select


def test_greedy_select_rules_and_free_resources():
    cost, p = [0, 2, 1, 0], [0.5, 0.9, 0.6, 0.0]
    # MaxP/C: free with p > 0 first (w = inf), then 0.6 / 1, then 0.9 / 2; free with p = 0 last
    assert greedy_select(cost, p, 3, 10, "max_p_per_c").tolist() == [0, 1, 2]
    assert greedy_select(cost, p, 2, 10, "max_p").tolist() == [1, 2]
    assert greedy_select(cost, p, 2, 10, "min_c").tolist() == [0, 3]
    assert greedy_select(cost, p, 2, 1, "max_p") is None
    assert greedy_select(cost, p, 5, 10) is None


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"rule": "random"}, "rule"),
        ({"cost": [-1, 1]}, "cost"),
        ({"p": [0.5, 2.0]}, "p"),
        ({"n": -1}, "n"),
        ({"budget": -1.0}, "budget"),
    ],
)
def test_greedy_select_rejects_malformed_input(kwargs, field):
    args = {"cost": [1, 1], "p": [0.5, 0.5], "n": 1, "budget": 1.0, "rule": "united"}
    args.update(kwargs)
    with pytest.raises(ProblemError, match=field):
        greedy_select(**args)


# --------------------------------------------------------------------------------------------
# real-valued costs


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


# --------------------------------------------------------------------------------------------
# the modules register their methods at import


def test_methods_are_registered():
    from vosim.allocators.availability_problem import methods

    assert set(ALL) <= set(methods())
    assert greedy_mod.max_p.__name__ == "max_p"
    assert groups_mod.knapsack_group.__name__ == "knapsack_group"
