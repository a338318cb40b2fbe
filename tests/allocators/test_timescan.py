"""time_scan (ICCS 2021 §3.2, §3.5): full scan, starting-point search and the fast exact scan.

The oracle is a brute force over every n-subset of every column, registered below under a
private name so that these tests do not depend on the other allocator modules; the full scan
itself is run with the registered ``knapsack_p``.
"""

import itertools
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from vosim.allocators.availability_problem import (
    AvailabilityProblem,
    infeasible,
    make_result,
    methods,
    register_method,
)
from vosim.allocators.timescan import TIE_RTOL, TimeScanResult, starting_points, time_scan
from vosim.core import Status
from vosim.errors import ProblemError, UnknownAllocatorError
from vosim.market.iccs_generators import generate_environment

pytest.importorskip("vosim.allocators.knapsack")  # registers "knapsack_p"

ORACLE = "_test_timescan_brute"
CALLS = {"n": 0}


def brute(p_col, cost, n, budget):
    """Best (product, subset) over all n-subsets within the budget; (None, None) if none."""
    best, best_set = None, None
    for subset in itertools.combinations(range(len(p_col)), n):
        if sum(cost[i] for i in subset) <= budget:
            value = math.prod(p_col[i] for i in subset)
            if best is None or value > best:
                best, best_set = value, subset
    return best, best_set


if ORACLE not in methods():

    @register_method(ORACLE)
    def _oracle(problem: AvailabilityProblem):
        CALLS["n"] += 1
        _, subset = brute(problem.group_p, problem.cost, problem.n, problem.budget)
        if subset is None:
            return infeasible(ORACLE)
        return make_result(problem, np.array(subset), Status.OPTIMAL, ORACLE)


def expected_scan(p, cost, n, budget):
    """Curve (0 where infeasible) and best index (earliest within TIE_RTOL, -1) by brute force."""
    values = [brute(p[:, k], cost, n, budget)[0] for k in range(p.shape[1])]
    curve = np.array([0.0 if v is None else v for v in values])
    feasible = [k for k, v in enumerate(values) if v is not None]
    if not feasible:
        return curve, -1
    top = max(values[k] for k in feasible)
    return curve, min(k for k in feasible if values[k] >= top * (1 - TIE_RTOL))


# ---------------------------------------------------------------------------------------------
# instances: small, with repeated columns, zeros, ties and infeasible budgets

LEVELS = [0.0, 0.25, 0.5, 0.75, 1.0]


@st.composite
def instances(draw, max_m=7, max_k=9):
    m = draw(st.integers(1, max_m))
    n = draw(st.integers(1, m))
    n_base = draw(st.integers(1, 4))
    if draw(st.booleans()):  # dyadic levels: exact ties and zeros
        value = st.sampled_from(LEVELS)
    else:
        value = st.floats(0.0, 1.0, allow_nan=False) | st.sampled_from(LEVELS)
    base = [[draw(value) for _ in range(m)] for _ in range(n_base)]
    K = draw(st.integers(1, max_k))
    cols = [base[draw(st.integers(0, n_base - 1))] for _ in range(K)]  # columns repeat
    p = np.array(cols, dtype=float).T
    cost = np.array([draw(st.integers(0, 6)) for _ in range(m)])
    budget = draw(st.integers(0, 30) | st.just(math.inf))
    return p, cost, n, budget


def assert_same_answer(fast: TimeScanResult, full: TimeScanResult) -> None:
    assert fast.time_index == full.time_index
    assert fast.probability == full.probability
    assert fast.status == full.status
    assert fast.selected.tolist() == full.selected.tolist()
    seen = ~np.isnan(fast.curve)
    np.testing.assert_allclose(fast.curve[seen], full.curve[seen], rtol=1e-12, atol=1e-300)


# ---------------------------------------------------------------------------------------------
# full scan


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(instances())
def test_full_scan_equals_brute_force_per_column(inst):
    p, cost, n, budget = inst
    res = time_scan(p, cost, n, budget)
    curve, best = expected_scan(p, cost, n, budget)
    np.testing.assert_allclose(res.curve, curve, rtol=1e-12, atol=1e-300)
    assert res.time_index == best
    assert res.stats["evaluations"] == p.shape[1]
    if best < 0:
        assert res.probability == 0.0 and res.selected.size == 0 and res.status == Status.INFEASIBLE
    else:
        assert res.probability == pytest.approx(curve[best], rel=1e-12, abs=1e-300)
        assert res.selected.size == n and cost[res.selected].sum() <= budget
        assert res.probability == pytest.approx(np.prod(p[res.selected, best]), rel=1e-12)


def test_full_scan_counts_solved_subproblems():
    p = np.random.default_rng(0).random((5, 11))
    before = CALLS["n"]
    res = time_scan(p, np.arange(5), 2, 5, method=ORACLE)
    assert CALLS["n"] - before == 11 == res.stats["evaluations"]
    assert not np.isnan(res.curve).any() and res.curve.shape == (11,)
    assert res.stats["seconds"] > 0 and res.method == ORACLE


# ---------------------------------------------------------------------------------------------
# fast exact scan


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(instances())
def test_fast_scan_equals_full_scan(inst):
    p, cost, n, budget = inst
    assert_same_answer(time_scan(p, cost, n, budget, fast=True), time_scan(p, cost, n, budget))


@settings(max_examples=60, deadline=None)
@given(instances(max_m=6, max_k=6))
def test_fast_scan_of_any_method_equals_its_full_scan(inst):
    p, cost, n, budget = inst
    names = [ORACLE] + [name for name in ("greedy_united", "max_p") if name in methods()]
    for name in names:
        before = CALLS["n"]
        fast = time_scan(p, cost, n, budget, method=name, fast=True)
        full = time_scan(p, cost, n, budget, method=name)
        assert_same_answer(fast, full)
        if name == ORACLE:
            assert CALLS["n"] - before - p.shape[1] == fast.stats["evaluations"]


def test_fast_scan_equals_full_scan_on_subnormal_products():
    # the n largest (0.46875 first) times 5e-324 round to 0; the full scan's order, to 5e-324:
    # no certificate below _TINY, and the bounds allow for the subnormal rounding
    p = np.array([[0, 1], [0, 1], [0, 0.625], [0, 5e-324], [0, 0.75]])
    fast = time_scan(p, np.zeros(5), 5, 0, fast=True)
    assert_same_answer(fast, time_scan(p, np.zeros(5), 5, 0))
    assert (fast.time_index, fast.probability) == (1, 5e-324)
    for method in [name for name in ("greedy_united", "max_p") if name in methods()]:
        assert_same_answer(
            time_scan(p, np.zeros(5), 5, 0, method=method, fast=True),
            time_scan(p, np.zeros(5), 5, 0, method=method),
        )


def stepped_instance(seed, m=24, K=300, events=12):
    """Availability that changes only at a few event times (repeated columns), with zeros."""
    rng = np.random.default_rng(seed)
    cuts = np.sort(rng.choice(np.arange(1, K), size=events, replace=False))
    levels = rng.choice([0.0, 0.3, 0.6, 0.8, 0.9, 0.95, 0.99, 1.0], size=(m, events + 1))
    p = np.repeat(levels, np.diff(np.r_[0, cuts, K]), axis=1)
    return p, rng.integers(1, 15, m)


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("budget", [0, 20, 45, 90, math.inf])
def test_fast_scan_equals_full_scan_on_larger_instances(seed, budget):
    rng = np.random.default_rng(seed)
    if seed % 2:
        p, cost = stepped_instance(seed)
    else:  # smooth, every column distinct
        t = np.linspace(0, 1, 250)
        phase, width = rng.random((30, 1)), 0.05 + 0.3 * rng.random((30, 1))
        p = np.clip(1 - np.exp(-(((t - phase) / width) ** 2)) * rng.random((30, 1)), 0, 1)
        p *= 1 - 0.1 * rng.random((30, 1))
        cost = rng.integers(1, 20, 30)
    n = 5
    fast = time_scan(p, cost, n, budget, fast=True)
    full = time_scan(p, cost, n, budget)
    assert_same_answer(fast, full)
    if full.time_index >= 0:
        assert fast.stats["evaluations"] <= fast.stats["unique_columns"] <= p.shape[1]
        # the curve is known exactly where the fast scan settled a column
        assert np.count_nonzero(~np.isnan(fast.curve)) >= fast.stats["evaluations"]


def test_fast_scan_with_optimum_zero_everywhere_knows_every_column():
    p = np.random.default_rng(0).random((8, 100))
    p[:4] = 0.0  # the cheap resources are never available; the others are unaffordable
    cost = np.array([1, 1, 1, 1, 9, 9, 9, 9])
    fast = time_scan(p, cost, 3, 5, fast=True)
    assert_same_answer(fast, time_scan(p, cost, 3, 5))
    assert fast.time_index == 0 and fast.probability == 0.0
    assert fast.stats["dp_solves"] == 0 and np.all(fast.curve == 0.0)


def test_fast_scan_deduplicates_repeated_columns_and_prunes():
    p, cost = stepped_instance(3, m=30, K=400, events=8)
    fast = time_scan(p, cost, 6, 40, fast=True)
    assert fast.stats["unique_columns"] <= 9
    assert fast.stats["dp_solves"] <= fast.stats["unique_columns"]
    assert_same_answer(fast, time_scan(p, cost, 6, 40))


def test_fast_scan_on_the_iccs2021_environment():
    env = generate_environment(
        40, 500.0, global_load=0.05, job_load=0.5, rng=np.random.default_rng(7)
    )
    p = env.p_avail(100.0, np.arange(401, dtype=float))
    cost = np.random.default_rng(8).integers(1, 21, 40)
    for budget in (25, 40, 60, 120):
        fast = time_scan(p, cost, 5, budget, fast=True)
        assert_same_answer(fast, time_scan(p, cost, 5, budget))
        assert fast.stats["dp_solves"] < p.shape[1] // 4


@pytest.mark.parametrize("budget", [12, 20, 40])
def test_fast_scan_certifies_columns_of_tied_free_resources_without_a_dp(budget):
    # free processors tie at availability 1: the bound is reached by the cheapest tied ones
    rng = np.random.default_rng(11)
    p = np.where(rng.random((60, 80)) < 0.7, 1.0, rng.choice(LEVELS[:-1], (60, 80)))
    cost = rng.integers(1, 6, 60)
    fast = time_scan(p, cost, 10, budget, fast=True)
    assert_same_answer(fast, time_scan(p, cost, 10, budget))
    assert fast.probability == 1.0 and fast.stats["dp_solves"] == 0


def test_fast_scan_with_real_costs_matches_knapsack_p():
    rng = np.random.default_rng(5)
    p = rng.random((12, 40))
    cost = np.round(rng.uniform(0.5, 3.0, 12), 2)  # exact at a scale of 100
    assert_same_answer(time_scan(p, cost, 4, 5.5, fast=True), time_scan(p, cost, 4, 5.5))


def test_fast_scan_falls_back_to_per_column_solves_when_the_dp_is_too_large(monkeypatch):
    from vosim.allocators import timescan

    p, cost = stepped_instance(4, m=12, K=60, events=6)
    monkeypatch.setattr(timescan, "_MAX_DP_CELLS", 16)
    fast = time_scan(p, cost, 3, 20, fast=True)
    assert fast.stats["certified"] == 0 and fast.stats["dp_solves"] >= 1
    assert_same_answer(fast, time_scan(p, cost, 3, 20))


# ---------------------------------------------------------------------------------------------
# ties and infeasibility


def test_ties_go_to_the_earliest_time_index():
    p = np.array([[0.5, 0.25, 0.5, 0.5], [0.5, 0.5, 0.25, 0.5]])
    for kw in ({}, {"fast": True}, {"starts": 2}):
        res = time_scan(p, [1, 1], 1, 1, **kw)
        assert res.time_index == 0 and res.probability == 0.5
    later = np.array([[0.1, 0.9, 0.9], [0.1, 0.9, 0.9]])  # identical columns 1 and 2
    assert time_scan(later, [1, 1], 2, 2, fast=True).time_index == 1


@pytest.mark.parametrize("kw", [{}, {"fast": True}, {"starts": 3, "step": 2}])
def test_infeasible_budget_gives_minus_one_not_an_exception(kw):
    p = np.random.default_rng(1).random((4, 9))
    res = time_scan(p, [5, 6, 7, 8], 2, 10, **kw)
    assert res.time_index == -1
    assert res.probability == 0.0 and res.cost == 0.0
    assert res.selected.size == 0 and res.status == Status.INFEASIBLE
    seen = ~np.isnan(res.curve)
    assert np.all(res.curve[seen] == 0.0)


def test_zero_availability_everywhere_is_feasible_with_probability_zero():
    p = np.zeros((4, 6))
    p[0] = 1.0
    for kw in ({}, {"fast": True}):
        res = time_scan(p, [1, 1, 1, 1], 2, 2, **kw)
        assert res.time_index == 0 and res.probability == 0.0
        assert res.selected.size == 2 and res.status == Status.OPTIMAL


# ---------------------------------------------------------------------------------------------
# starting-point search (§3.5)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    instances(max_k=14),
    st.integers(1, 16),
    st.integers(1, 4),
    st.sampled_from(["uniform", "random", "combined"]),
    st.integers(0, 2**32 - 1),
)
def test_starting_points_never_beat_the_full_scan(inst, S, step, points, seed):
    p, cost, n, budget = inst
    full = time_scan(p, cost, n, budget)
    before = CALLS["n"]
    res = time_scan(p, cost, n, budget, ORACLE, S, step, points=points, rng=seed)
    solved = CALLS["n"] - before
    assert res.stats["evaluations"] == solved == np.count_nonzero(~np.isnan(res.curve))
    seen = ~np.isnan(res.curve)
    np.testing.assert_allclose(res.curve[seen], full.curve[seen], rtol=1e-12, atol=1e-300)
    assert set(res.stats["starts"]) <= set(np.flatnonzero(seen).tolist())
    if full.time_index < 0:
        assert res.time_index == -1
    else:
        assert res.probability <= full.probability * (1 + 1e-12)
        assert seen[res.time_index]


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(instances(max_k=12), st.sampled_from(["uniform", "random", "combined"]))
def test_every_index_as_a_start_with_step_one_is_the_full_scan(inst, points):
    p, cost, n, budget = inst
    K = p.shape[1]
    res = time_scan(p, cost, n, budget, starts=K, step=1, points=points, rng=0)
    full = time_scan(p, cost, n, budget)
    assert res.stats["evaluations"] == K
    assert res.time_index == full.time_index and res.probability == full.probability
    np.testing.assert_array_equal(res.curve, full.curve)


def one_resource(values):
    """n = m = 1: the curve P_a^w(t_k) is the availability row itself."""
    return np.asarray(values, dtype=float)[None, :], [0], 1, 0


def evaluated(res):
    return np.flatnonzero(~np.isnan(res.curve)).tolist()


def test_search_climbs_to_the_maximum_from_one_start():
    values = np.r_[np.linspace(0.1, 0.9, 30), np.linspace(0.85, 0.2, 30)]
    res = time_scan(*one_resource(values), starts=1)  # starts at 30, climbs left to 29
    assert res.time_index == 29 and res.probability == pytest.approx(0.9)
    assert evaluated(res) == [28, 29, 30, 31]


def test_search_stops_at_the_neighbouring_start():
    values = np.linspace(0.05, 0.95, 20)  # increasing: both searches go right
    res = time_scan(*one_resource(values), starts=2)  # starts 5 and 15
    assert res.stats["starts"] == [5, 15]
    assert evaluated(res) == list(range(4, 20))  # the first search stops before 15
    assert res.time_index == 19


def test_search_moves_by_step_and_clips_at_the_end():
    values = np.linspace(0.05, 0.95, 30)
    res = time_scan(*one_resource(values), starts=1, step=3)  # start 15
    assert evaluated(res) == [14, 15, 16, 18, 21, 24, 27, 29]
    assert res.time_index == 29


def test_search_walks_across_plateaus_but_a_flat_start_is_a_maximum():
    values = [0.95, 0.1, 0.2, 0.25, 0.3, 0.5, 0.5, 0.9]
    res = time_scan(*one_resource(values), starts=1)  # start 4: right is better
    assert evaluated(res) == [3, 4, 5, 6, 7]  # 5 -> 6 is flat: the walk goes on to 0.9
    assert res.time_index == 7 and res.probability == 0.9  # 0.95 at t_0 is missed
    flat = [0.5, 0.6, 0.6, 0.6, 0.7, 0.4, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3, 0.5, 0.99, 0.5]
    res = time_scan(*one_resource(flat), starts=1)  # start 7: both neighbours equal
    assert evaluated(res) == [6, 7, 8] and res.probability == 0.3 and res.time_index == 6
    res = time_scan(*one_resource(flat), starts=3)  # starts 2, 7, 12
    assert res.time_index == 13 and res.probability == 0.99


def test_search_stops_at_a_local_maximum():
    values = [0.5, 0.6, 0.6, 0.65, 0.7, 0.4, 0.2, 0.1, 0.95]
    res = time_scan(*one_resource(values), starts=1)  # start 4 is a local maximum
    assert evaluated(res) == [3, 4, 5]
    assert res.time_index == 4 and res.probability == 0.7


def test_search_prefers_the_earlier_side_on_equal_gradients():
    res = time_scan(*one_resource([0.1, 0.8, 0.5, 0.8, 0.2]), starts=1)  # start 2
    assert evaluated(res) == [0, 1, 2, 3]  # left first: 1, then 0 is worse
    assert res.time_index == 1


def test_random_points_are_reproducible_and_need_an_rng():
    p = np.random.default_rng(3).random((6, 50))
    a = time_scan(p, np.ones(6), 2, 5, starts=5, points="random", rng=np.random.default_rng(9))
    b = time_scan(p, np.ones(6), 2, 5, starts=5, points="random", rng=np.random.default_rng(9))
    assert a.stats["starts"] == b.stats["starts"] and a.time_index == b.time_index
    with pytest.raises(ProblemError, match="rng"):
        time_scan(p, np.ones(6), 2, 5, starts=5, points="combined")


# ---------------------------------------------------------------------------------------------
# starting_points


def test_uniform_starting_points_are_segment_midpoints():
    assert starting_points(801, 1).tolist() == [400]
    assert starting_points(10, 2).tolist() == [2, 7]
    assert starting_points(7, 7).tolist() == list(range(7))
    assert starting_points(3, 100).tolist() == [0, 1, 2]


@given(st.integers(1, 300), st.integers(1, 400), st.integers(0, 1000))
def test_random_and_combined_starting_points(K, S, seed):
    for points in ("random", "combined"):
        s = starting_points(K, S, points, rng=seed)
        assert s.size == min(S, K) == np.unique(s).size
        assert np.all(np.diff(s) > 0) and s.min() >= 0 and s.max() < K
    combined = starting_points(K, S, "combined", rng=seed)
    half = starting_points(K, (min(S, K) + 1) // 2)
    assert set(half.tolist()) <= set(combined.tolist())


# ---------------------------------------------------------------------------------------------
# malformed input


GOOD = {"p_avail": np.full((3, 4), 0.5), "cost": [1, 2, 3], "n": 2, "budget": 10}


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"p_avail": np.full(3, 0.5)}, "p_avail"),
        ({"p_avail": np.full((3, 0), 0.5)}, "p_avail"),
        ({"p_avail": np.full((3, 4), 1.5)}, "p_avail"),
        ({"p_avail": np.full((3, 4), -0.1)}, "p_avail"),
        ({"p_avail": np.full((3, 4), np.nan)}, "p_avail"),
        ({"p_avail": [["a"] * 4] * 3}, "p_avail"),
        ({"cost": [1, 2]}, "cost"),
        ({"cost": [[1, 2, 3]]}, "cost"),
        ({"cost": [1, -2, 3]}, "cost"),
        ({"cost": [1, np.inf, 3]}, "cost"),
        ({"cost": ["x", 2, 3]}, "cost"),
        ({"n": 4}, "n"),
        ({"n": 0}, "n"),
        ({"n": 2.0}, "n"),
        ({"budget": -1}, "budget"),
        ({"budget": float("nan")}, "budget"),
        ({"budget": "a lot"}, "budget"),
    ],
)
def test_malformed_input_raises_value_error_naming_the_field(change, field):
    args = {**GOOD, **change}
    for kw in ({}, {"fast": True}):
        with pytest.raises(ValueError, match=rf"\b{field}\b"):
            time_scan(args["p_avail"], args["cost"], args["n"], args["budget"], **kw)


@pytest.mark.parametrize(
    ("kw", "field"),
    [
        ({"starts": 0}, "starts"),
        ({"starts": 2.5}, "starts"),
        ({"starts": 2, "step": 0}, "step"),
        ({"starts": 2, "points": "grid"}, "points"),
        ({"starts": 2, "fast": True}, "fast"),
        ({"method": "no_such_method"}, "method"),
        ({"method": "no_such_method", "fast": True}, "method"),
    ],
)
def test_bad_options_raise_value_error(kw, field):
    with pytest.raises(ValueError, match=field):
        time_scan(GOOD["p_avail"], GOOD["cost"], 2, 10, **kw)


def test_unknown_method_is_an_unknown_allocator_error():
    with pytest.raises(UnknownAllocatorError, match="knapsack_p"):
        time_scan(GOOD["p_avail"], GOOD["cost"], 2, 10, method="nope")


# ---------------------------------------------------------------------------------------------
# GreedyJnt's full scan, vectorised over time


def _united_by_column(p, cost, n, budget):
    """Oracle: greedy_select column by column, then the earliest best (TIE_RTOL)."""
    from vosim.allocators.greedy import greedy_select

    values, picks = [], []
    for k in range(p.shape[1]):
        sel = greedy_select(cost, p[:, k], n, budget)
        picks.append(sel)
        values.append(-1.0 if sel is None else float(np.prod(p[sel, k])))
    values = np.array(values)
    if (values < 0).all():
        return -1, None, values
    top = values.max()
    k = int(np.flatnonzero(values >= top * (1 - TIE_RTOL))[0])
    return k, picks[k], values


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(instances())
def test_greedy_united_scan_equals_its_column_by_column_scan(inst):
    p, cost, n, budget = inst
    k, sel, values = _united_by_column(p, cost, n, budget)
    for fast in (False, True):
        res = time_scan(p, cost, n, budget, method="greedy_united", fast=fast)
        assert res.time_index == k
        assert res.stats["evaluations"] == p.shape[1] and res.stats["vectorised"]
        if k < 0:
            assert res.status == Status.INFEASIBLE and res.selected.size == 0
            continue
        assert res.selected.tolist() == sel.tolist()
        assert res.probability == pytest.approx(values[k], rel=1e-12, abs=1e-300)
        assert res.status == Status.FEASIBLE
        feasible = values >= 0
        np.testing.assert_allclose(res.curve[feasible], values[feasible], rtol=1e-12, atol=1e-300)
        assert (res.curve[~feasible] == 0).all()
