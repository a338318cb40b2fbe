"""Tests of the fallback chains: ``knapsack_group>greedy_plus``, ``min_cost>amp``
and ``milp>greedy``.

With a budget that suffices a chain returns the exact method's answer; with a tiny one it
returns a valid answer no better than the optimum and no worse than the greedy link's. Optima
come from independent brute-force oracles written here (every ``n``-subset, every candidate
start and node combination, every choice of options).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import vosim.allocators.group_bnb as groups_mod
from vosim.allocators import (
    FallbackBudget,
    FallbackLog,
    ResourceRequest,
    allocate_resources,
    allocate_window,
    is_method,
    resolve,
)
from vosim.allocators.aep import min_cost
from vosim.allocators.availability_problem import AvailabilityProblem
from vosim.allocators.fallback import Chain, budgeted_methods
from vosim.allocators.mckp import solve_mckp
from vosim.core import Slot, SlotList
from vosim.errors import ParameterError, ProblemError, UnknownAllocatorError

SETTINGS = settings(max_examples=60, deadline=None)
BIG = FallbackBudget(seconds=60.0, nodes=10**6)  # always suffices on these instances
TINY_BUDGETS = ("1 node", FallbackBudget(seconds=1e-9), FallbackBudget(seconds=1e-9, nodes=1))


# --------------------------------------------------------------------------------------------
# names and budgets


@pytest.mark.parametrize(
    ("name", "registry", "links"),
    [
        ("knapsack_group>greedy_plus", "methods", ("knapsack_group", "greedy_plus")),
        (" knapsack_group > greedy ", "methods", ("knapsack_group", "greedy")),
        ("greedy_plus", "methods", ("greedy_plus",)),
        ("min_cost>amp", "criteria", ("min_cost", "amp")),
        ("amp", "criteria", ("amp",)),
        ("milp>greedy", "mckp", ("milp", "greedy")),
        ("milp>dp", "mckp", ("milp", "dp")),
    ],
)
def test_resolve_accepts_names_and_chains(name, registry, links):
    chain = resolve(name, registry)
    assert chain == Chain(links, registry)
    assert str(chain) == ">".join(links)
    assert chain.is_chain == (len(links) > 1)
    assert resolve(chain, registry) is chain
    assert is_method(name, registry)


@pytest.mark.parametrize(
    ("name", "registry", "match"),
    [
        ("knapsack_group>nope", "methods", r"unknown method 'nope' in chain .*greedy_plus"),
        ("nope", "methods", r"unknown method 'nope'; registered: .*knapsack_group"),
        ("min_cost>nope", "criteria", r"unknown criterion 'nope' in chain .*amp"),
        ("milp>nope", "mckp", r"unknown MCKP method 'nope' in chain .*greedy"),
        (">greedy_plus", "methods", r"empty link \(link 1\)"),
        ("knapsack_group>", "methods", r"empty link \(link 2\)"),
        ("knapsack_group>>greedy_plus", "methods", r"empty link \(link 2\)"),
        ("knapsack_group>knapsack_group", "methods", r"names 'knapsack_group' twice"),
        ("greedy_plus>greedy", "methods", r"'greedy_plus' .* takes no budget.*knapsack_group"),
        ("amp>min_cost", "criteria", r"'amp' .* takes no budget.*: min_cost"),
        ("dp>greedy", "mckp", r"'dp' .* takes no budget.*: milp"),
        ("knapsack_group>greedy>greedy_plus", "methods", r"'greedy' .* takes no budget"),
        (3, "methods", r"must be text"),
    ],
)
def test_resolve_rejects_bad_names(name, registry, match):
    with pytest.raises(UnknownAllocatorError, match=match):
        resolve(name, registry)
    assert not is_method(name, registry)


def test_resolve_checks_the_registry():
    with pytest.raises(ValueError, match="registry must be one of"):
        resolve("amp", "windows")
    with pytest.raises(UnknownAllocatorError, match="registry"):
        resolve(resolve("min_cost>amp", "criteria"), "methods")
    assert budgeted_methods("methods") == ["knapsack_group"]


def test_lookups_reject_bad_chains():
    prob = AvailabilityProblem(cost=[1, 2], group=[0, 1], group_p=[0.5, 0.5], n=1)
    with pytest.raises(UnknownAllocatorError, match="'nope' in chain"):
        allocate_resources(prob, "knapsack_group>nope")
    slots = SlotList([Slot(0, 0.0, 10.0, 1.0, 1.0)])
    with pytest.raises(UnknownAllocatorError, match="takes no budget"):
        allocate_window(slots, ResourceRequest(n=1, time=1.0), "amp>min_cost")
    with pytest.raises(UnknownAllocatorError, match="'nope' in chain"):
        solve_mckp([[1]], [[[1]]], [1], "milp>nope")
    with pytest.raises(TypeError, match="SlotList"):
        allocate_window(list(slots), ResourceRequest(n=1, time=1.0), "min_cost>amp")


@pytest.mark.parametrize(
    ("text", "seconds", "nodes"),
    [
        ("2s", 2.0, None),
        (" 2.5 S ", 2.5, None),
        ("500ms", 0.5, None),
        ("3 seconds", 3.0, None),
        ("5000", None, 5000),
        ("5000 nodes", None, 5000),
        ("1 node", None, 1),
        ("2s, 100 nodes", 2.0, 100),
        ("100,1e-3s", 0.001, 100),
        ("none", None, None),
    ],
)
def test_budget_parse(text, seconds, nodes):
    budget = FallbackBudget.parse(text)
    assert (budget.seconds, budget.nodes) == (seconds, nodes)
    assert budget.unlimited == (seconds is None and nodes is None)
    assert FallbackBudget.parse(str(budget)) == budget


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("", "cannot read ''"),
        ("2x", "unknown unit 'x'"),
        ("2.5", "not a whole number of nodes"),
        ("-1s", "cannot read"),
        ("0s", "seconds must be > 0"),
        ("0", "nodes must be an integer >= 1"),
        ("2s,3s", "seconds twice"),
        ("5,6 nodes", "nodes twice"),
        ("fast", "cannot read"),
    ],
)
def test_budget_parse_errors(text, match):
    with pytest.raises(ParameterError, match=match):
        FallbackBudget.parse(text)


def test_budget_fields_and_coerce():
    assert FallbackBudget.coerce(None).unlimited
    assert FallbackBudget.coerce(7) == FallbackBudget(nodes=7)
    assert FallbackBudget.coerce(np.int64(7)) == FallbackBudget(nodes=7)
    assert FallbackBudget.coerce(0.25) == FallbackBudget(seconds=0.25)
    assert FallbackBudget.coerce("3s") == FallbackBudget(seconds=3.0)
    b = FallbackBudget(seconds=1.0)
    assert FallbackBudget.coerce(b) is b
    for bad in (True, [1], "1 hour"):
        with pytest.raises(ParameterError):
            FallbackBudget.coerce(bad)
    for kwargs in ({"seconds": 0}, {"seconds": math.nan}, {"seconds": math.inf}, {"nodes": 0}):
        with pytest.raises(ParameterError):
            FallbackBudget(**kwargs)
    with pytest.raises(ParameterError):
        FallbackBudget(nodes=1.5)
    assert str(FallbackBudget()) == "none"


# --------------------------------------------------------------------------------------------
# availability: knapsack_group>greedy_plus


def eq3(group, group_p, chosen) -> float:
    return math.prod(float(group_p[g]) for g in {int(group[i]) for i in chosen})


def availability_optimum(problem: AvailabilityProblem) -> float | None:
    """Best eq. (3) value over every ``n``-subset within budget (None: none fits)."""
    best = None
    for chosen in itertools.combinations(range(problem.N), problem.n):
        if sum(float(problem.cost[i]) for i in chosen) <= problem.budget:
            p = eq3(problem.group, problem.group_p, chosen)
            best = p if best is None else max(best, p)
    return best


@st.composite
def problems(draw):
    N = draw(st.integers(2, 9))
    G = draw(st.integers(1, N))
    group = draw(st.lists(st.integers(0, G - 1), min_size=N, max_size=N))
    p = st.one_of(st.sampled_from([0.25, 0.5, 0.9, 1.0]), st.floats(0.05, 1.0))
    group_p = draw(st.lists(p, min_size=G, max_size=G))
    cost = draw(st.lists(st.integers(0, 10), min_size=N, max_size=N))
    n = draw(st.integers(1, N))
    budget = draw(st.integers(0, sum(cost) + 1))
    return AvailabilityProblem(cost=cost, group=group, group_p=group_p, n=n, budget=budget)


def check_selection(problem, result):
    sel = result.selected
    assert sel.shape == (problem.n,) and np.all(np.diff(sel) > 0)
    assert float(problem.cost[sel].sum()) <= problem.budget
    assert result.probability == pytest.approx(eq3(problem.group, problem.group_p, sel))


CHAIN = "knapsack_group>greedy_plus"


@SETTINGS
@given(problems())
def test_availability_chain_is_exact_when_the_budget_suffices(problem):
    best = availability_optimum(problem)
    res = allocate_resources(problem, CHAIN, fallback_after=BIG)
    alone = allocate_resources(problem, "knapsack_group")
    assert res.stats["answered_by"] == "knapsack_group" and res.stats["fell_back"] is False
    assert res.stats["chain"] == CHAIN and res.stats["seconds"] >= 0
    assert res.selected.tolist() == alone.selected.tolist() and res.status == alone.status
    if best is None:
        assert res.status == "infeasible"
    else:
        check_selection(problem, res)
        assert res.probability == pytest.approx(best, rel=1e-12)


@SETTINGS
@given(problems(), st.sampled_from(TINY_BUDGETS))
def test_availability_chain_with_a_tiny_budget_is_valid_and_no_better_than_optimal(problem, budget):
    best = availability_optimum(problem)
    res = allocate_resources(problem, CHAIN, fallback_after=budget)
    greedy = allocate_resources(problem, "greedy_plus")
    if best is None:
        assert res.status == "infeasible" and res.stats["fell_back"] is False
        return
    check_selection(problem, res)
    assert res.probability <= best * (1 + 1e-12)
    if res.stats["fell_back"]:
        assert res.status not in ("optimal", "infeasible")
        assert (res.probability, -res.cost) >= (greedy.probability, -greedy.cost)
        if res.stats["answered_by"] == "greedy_plus":
            assert res.selected.tolist() == greedy.selected.tolist()
        else:  # the incumbent, strictly better than greedy_plus
            assert (res.probability, -res.cost) > (greedy.probability, -greedy.cost)
    else:  # knapsack_group proved its answer within the budget
        assert res.stats["answered_by"] == "knapsack_group"
        assert res.probability == pytest.approx(best, rel=1e-12)


def test_availability_chain_falls_back_to_greedy_plus():
    prob = AvailabilityProblem(
        cost=[1, 1, 3, 2], group=[0, 1, 2, 2], group_p=[0.5, 0.9, 0.99], n=2, budget=5
    )
    for budget in ("1 node", 1, FallbackBudget(seconds=1e-9)):
        res = allocate_resources(prob, CHAIN, fallback_after=budget)
        assert res.stats["fell_back"] and res.stats["answered_by"] == "greedy_plus"
        assert res.method == "greedy_plus"
        assert res.selected.tolist() == allocate_resources(prob, "greedy_plus").selected.tolist()
    res = allocate_resources(prob, CHAIN, fallback_after="2s")
    assert not res.stats["fell_back"] and res.status == "optimal"
    assert res.stats["fallback_after"] == "2s"


def test_availability_chain_keeps_a_better_incumbent():
    # after one expansion KnapsackGroup holds the optimum (unproven); Greedy+ finds less
    prob = AvailabilityProblem(
        cost=[9, 6, 10, 1, 6, 3, 6, 1, 7],
        group=[5, 0, 0, 0, 6, 1, 7, 0, 2],
        group_p=[0.67, 0.9, 0.33, 0.82, 0.62, 0.78, 0.16, 0.2, 0.1],
        n=7,
        budget=34,
    )
    greedy = allocate_resources(prob, "greedy_plus")
    res = allocate_resources(prob, CHAIN, fallback_after="1 node")
    assert res.stats["fell_back"] and res.stats["answered_by"] == "knapsack_group"
    assert res.stats["truncated"] and res.status not in ("optimal", "infeasible")
    assert res.probability > greedy.probability
    assert res.probability == pytest.approx(availability_optimum(prob), rel=1e-12)
    assert res.stats["fallback_after"] == "1 node"


def test_unlimited_chain_keeps_knapsack_groups_own_limit(monkeypatch):
    prob = AvailabilityProblem(
        cost=[1, 1, 3, 2], group=[0, 1, 2, 2], group_p=[0.5, 0.9, 0.99], n=2, budget=5
    )
    res = allocate_resources(prob, CHAIN)
    assert res.stats["answered_by"] == "knapsack_group" and not res.stats["fell_back"]
    monkeypatch.setattr(groups_mod, "MAX_EXPANSIONS", 1)
    res = allocate_resources(prob, CHAIN)
    assert res.stats["fell_back"] and res.stats["fallback_after"] == "none"


def test_fallback_after_is_ignored_for_a_single_name():
    prob = AvailabilityProblem(cost=[1, 2], group=[0, 1], group_p=[0.5, 0.9], n=1, budget=2)
    res = allocate_resources(prob, "knapsack_group", fallback_after="1 node")
    assert "chain" not in res.stats and res.status == "optimal"


def test_knapsack_group_budget_arguments():
    prob = AvailabilityProblem(
        cost=[1, 1, 3, 2], group=[0, 1, 2, 2], group_p=[0.5, 0.9, 0.99], n=2, budget=5
    )
    res = groups_mod.knapsack_group(prob, max_expansions=1)
    assert res.stats["truncated"] and res.stats["expanded"] == 1
    assert res.status not in ("optimal", "infeasible")
    res = groups_mod.knapsack_group(prob, time_limit=1e-9)
    assert res.stats["truncated"] and res.stats["expanded"] == 1
    with pytest.raises(ValueError, match="time_limit"):
        groups_mod.knapsack_group(prob, time_limit=0)


# --------------------------------------------------------------------------------------------
# windows: min_cost>amp


def min_window_cost(slots: SlotList, request: ResourceRequest) -> float | None:
    """Least cost of ``n`` slots on distinct nodes covering a common start (every slot start)."""
    items = list(slots)
    best = None
    for t in sorted({s.start for s in items}):
        cover = {}  # node -> cost of its slot covering [t, t + T_i]
        for s in items:
            d = request.time
            if s.performance >= request.min_performance and s.start <= t and t + d <= s.end:
                cover[s.node] = min(cover.get(s.node, math.inf), s.price * d)
        for combo in itertools.combinations(cover.values(), request.n):
            if sum(combo) <= request.budget:
                best = sum(combo) if best is None else min(best, sum(combo))
    return best


@st.composite
def windows(draw):
    slots = []
    n_nodes = draw(st.integers(1, 5))
    for node in range(n_nodes):
        price = float(draw(st.integers(1, 6)))
        t = draw(st.integers(0, 10))
        for _ in range(draw(st.integers(1, 3))):
            a = t + draw(st.integers(0, 15))
            b = a + draw(st.integers(1, 30))
            slots.append(Slot(node, float(a), float(b), price, 1.0))
            t = b
    n = draw(st.integers(1, n_nodes))
    budget = draw(st.one_of(st.just(math.inf), st.integers(0, 400).map(float)))
    request = ResourceRequest(n=n, time=float(draw(st.integers(1, 10))), budget=budget)
    return SlotList(draw(st.permutations(slots))), request


def check_window(slots, request, window):
    assert len(window.slots) == request.n and len(set(window.nodes)) == request.n
    assert window.cost <= request.budget
    for s in window.slots:
        assert s.start == window.start
        assert any(x.node == s.node and x.start <= s.start and s.end <= x.end for x in slots)


@SETTINGS
@given(windows())
def test_window_chain_is_exact_when_the_budget_suffices(case):
    slots, request = case
    best = min_window_cost(slots, request)
    a = allocate_window(slots, request, "min_cost>amp", fallback_after=BIG)
    alone = allocate_window(slots, request, "min_cost")
    assert a.stats["answered_by"] == "min_cost" and a.stats["fell_back"] is False
    assert a.window == alone.window
    if best is None:
        assert a.window is None and a.reason
    else:
        check_window(slots, request, a.window)
        assert a.window.cost == best


@SETTINGS
@given(windows(), st.sampled_from(TINY_BUDGETS))
def test_window_chain_with_a_tiny_budget_is_valid_and_no_cheaper_than_optimal(case, budget):
    slots, request = case
    best = min_window_cost(slots, request)
    a = allocate_window(slots, request, "min_cost>amp", fallback_after=budget)
    amp = allocate_window(slots, request, "amp")
    if best is None:
        assert a.window is None
        return
    check_window(slots, request, a.window)
    assert a.window.cost >= best
    assert a.window.cost <= amp.window.cost
    if a.stats["answered_by"] == "amp":
        assert a.stats["fell_back"] and a.window == amp.window
    elif a.stats["fell_back"]:  # min_cost's incumbent, strictly cheaper than AMP's window
        assert a.window.cost < amp.window.cost
    else:
        assert a.window.cost == best


def test_window_chain_falls_back_to_amp():
    sl = SlotList(
        [
            Slot(0, 0.0, 100.0, 3.0, 2.0),
            Slot(1, 0.0, 100.0, 1.0, 2.0),
            Slot(2, 10.0, 100.0, 1.0, 2.0),
        ]
    )
    request = ResourceRequest(n=2, time=20.0)
    a = allocate_window(sl, request, "min_cost>amp", fallback_after=1)
    assert a.stats["fell_back"] and a.stats["answered_by"] == "amp" and a.criterion == "amp"
    assert (a.window.start, a.window.cost) == (0.0, 80.0)
    a = allocate_window(sl, request, "min_cost>amp", fallback_after="2 nodes")
    assert not a.stats["fell_back"] and (a.window.start, a.window.cost) == (10.0, 40.0)


def test_min_cost_budget_arguments():
    # node k is free from 10k for 50 time units at price 9 - k: the later, the cheaper
    sl = SlotList([Slot(k, 10.0 * k, 10.0 * k + 50, 9.0 - k, 1.0) for k in range(9)])
    request = ResourceRequest(n=1, time=5.0)
    full = min_cost(sl, request)
    assert "truncated" not in full.stats and (full.window.start, full.window.cost) == (80.0, 5.0)
    a = min_cost(sl, request, max_candidates=1)
    assert a.stats["examined"] == 1 and a.stats["truncated"]
    assert (a.window.start, a.window.cost) == (0.0, 45.0)
    a = min_cost(sl, request, max_candidates=100, time_limit=60.0)
    assert a.stats["examined"] == 9 and not a.stats["truncated"] and a.window == full.window
    b = min_cost(sl, ResourceRequest(n=1, time=5.0, budget=40.0), max_candidates=1)
    assert b.window is None and b.reason.startswith("stopped after 1 of 9 candidate starts")
    for kwargs in ({"max_candidates": 0}, {"time_limit": 0.0}):
        with pytest.raises(ValueError):
            min_cost(sl, request, **kwargs)


# --------------------------------------------------------------------------------------------
# the MCKP: milp>greedy


def mckp_optimum(values, demands, capacity):
    best = 0.0
    for choice in itertools.product(*(range(-1, len(v)) for v in values)):
        used = np.zeros(len(capacity), dtype=np.int64)
        total = 0.0
        for i, j in enumerate(choice):
            if j >= 0:
                used += np.asarray(demands[i][j])
                total += values[i][j]
        if (used <= capacity).all():
            best = max(best, total)
    return best


@st.composite
def knapsacks(draw):
    K = draw(st.integers(1, 3))
    capacity = np.array(draw(st.lists(st.integers(0, 10), min_size=K, max_size=K)))
    option = st.lists(st.integers(0, 8), min_size=K, max_size=K).filter(any)
    values, demands = [], []
    for _ in range(draw(st.integers(1, 6))):
        m = draw(st.integers(1, 3))
        values.append(draw(st.lists(st.integers(-3, 20), min_size=m, max_size=m)))
        demands.append(draw(st.lists(option, min_size=m, max_size=m)))
    return values, demands, capacity


def check_choice(values, demands, capacity, r):
    used = np.zeros(len(capacity), dtype=np.int64)
    total = 0.0
    for i, j in enumerate(r.choice.tolist()):
        if j >= 0:
            used += np.asarray(demands[i][j])
            total += values[i][j]
    assert (used <= capacity).all() and np.array_equal(used, r.used)
    assert total == r.value


@SETTINGS
@given(knapsacks())
def test_greedy_mckp_is_feasible_and_no_better_than_optimal(inst):
    values, demands, capacity = inst
    r = solve_mckp(values, demands, capacity, method="greedy")
    assert r.method == "greedy" and not r.optimal
    check_choice(values, demands, capacity, r)
    assert r.value <= mckp_optimum(values, demands, capacity)
    # never below the best single option that fits (its by-value pass starts with it)
    fits = [
        v
        for vs, ds in zip(values, demands, strict=True)
        for v, d in zip(vs, ds, strict=True)
        if (np.asarray(d) <= capacity).all()
    ]
    assert r.value >= max([0, *fits])


@SETTINGS
@given(knapsacks())
def test_mckp_chain_is_exact_when_the_budget_suffices(inst):
    values, demands, capacity = inst
    r = solve_mckp(values, demands, capacity, method="milp>greedy", fallback_after=BIG)
    assert r.stats["answered_by"] == "milp" and r.stats["fell_back"] is False
    assert r.method == "milp" and r.optimal
    check_choice(values, demands, capacity, r)
    assert r.value == mckp_optimum(values, demands, capacity)


@SETTINGS
@given(knapsacks(), st.sampled_from(TINY_BUDGETS))
def test_mckp_chain_with_a_tiny_budget_is_valid_and_no_better_than_optimal(inst, budget):
    values, demands, capacity = inst
    r = solve_mckp(values, demands, capacity, method="milp>greedy", fallback_after=budget)
    greedy = solve_mckp(values, demands, capacity, method="greedy")
    check_choice(values, demands, capacity, r)
    assert greedy.value <= r.value <= mckp_optimum(values, demands, capacity)
    if r.stats["answered_by"] == "greedy":
        assert r.stats["fell_back"] and r.choice.tolist() == greedy.choice.tolist()
    elif r.stats["fell_back"]:  # HiGHS's incumbent, strictly better than the greedy's
        assert r.value > greedy.value and r.method == "milp" and not r.optimal
    else:
        assert r.optimal and r.value == mckp_optimum(values, demands, capacity)


def test_mckp_chain_falls_back_when_highs_runs_out():
    rng = np.random.default_rng(3)
    values = [rng.uniform(1, 10, size=4) for _ in range(60)]
    demands = [rng.integers(0, 40, size=(4, 3)) + np.eye(4, 3, dtype=int) for _ in range(60)]
    capacity = [120, 130, 140]
    r = solve_mckp(values, demands, capacity, "milp>greedy", fallback_after=1e-9)
    greedy = solve_mckp(values, demands, capacity, "greedy")
    assert r.stats["fell_back"] and r.stats["answered_by"] == "greedy"
    assert r.choice.tolist() == greedy.choice.tolist() and r.seconds >= greedy.seconds * 0
    # time_limit stands in for the budget when fallback_after is not given
    r = solve_mckp(values, demands, capacity, "milp>greedy", time_limit=1e-9)
    assert r.stats["fell_back"] and r.stats["fallback_after"] == "1e-09s"
    # the MILP alone stopped before any incumbent: every task waits, not optimal
    alone = solve_mckp(values, demands, capacity, "milp", time_limit=1e-9)
    assert not alone.optimal and alone.value <= r.value
    with pytest.raises(ProblemError, match="node_limit"):
        solve_mckp(values, demands, capacity, "milp", node_limit=0)


def test_mckp_slides_example_greedy():
    values = [[10, 2, 9], [11, 2]]
    demands = [[[8, 0], [2, 0], [4, 4]], [[10, 0], [0, 1]]]
    r = solve_mckp(values, demands, [16, 8], method="greedy")
    assert r.value <= 20.0 and (r.used <= [16, 8]).all()


# --------------------------------------------------------------------------------------------
# counting


def test_fallback_log_counts_per_method_and_merges():
    prob = AvailabilityProblem(
        cost=[1, 1, 3, 2], group=[0, 1, 2, 2], group_p=[0.5, 0.9, 0.99], n=2, budget=5
    )
    log = FallbackLog()
    for budget in ("1 node", "1 node", "2s"):
        log.record(allocate_resources(prob, CHAIN, fallback_after=budget))
    log.record(allocate_resources(prob, "greedy_plus"))
    log.record(solve_mckp([[1]], [[[1]]], [1], "milp>greedy", fallback_after="1s"))
    want = {
        "greedy_plus": {"calls": 1, "fell_back": 0, "answered_by": {"greedy_plus": 1}},
        CHAIN: {
            "calls": 3,
            "fell_back": 2,
            "answered_by": {"greedy_plus": 2, "knapsack_group": 1},
        },
        "milp>greedy": {"calls": 1, "fell_back": 0, "answered_by": {"milp": 1}},
    }
    assert log.to_dict() == want
    other = FallbackLog()
    other.merge(log)
    other.merge(log.to_dict())
    assert other.to_dict()[CHAIN]["calls"] == 6
    assert other.to_dict()[CHAIN]["answered_by"] == {"greedy_plus": 4, "knapsack_group": 2}
    single = FallbackLog()
    single.record(
        allocate_window(
            SlotList([Slot(0, 0.0, 9.0, 1.0, 1.0)]), ResourceRequest(n=1, time=1.0), "amp"
        )
    )
    assert single.to_dict() == {"amp": {"calls": 1, "fell_back": 0, "answered_by": {"amp": 1}}}
