"""Tests of the multiple-choice knapsack of task options across clusters (Knapsack Grid).

Exhaustive enumeration is the oracle on small instances (the same float sums in task order, so
values must agree exactly, and with integer values the DP's tie rule is checked too);
scipy.optimize.milp (HiGHS, ``mip_rel_gap = 0``) is the cross-check on larger ones.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import vosim.allocators.mckp as mk
from vosim.allocators.mckp import DP_MAX_STATES, METHODS, MCKPResult, solve_mckp
from vosim.errors import ProblemError

SETTINGS = settings(max_examples=200, deadline=None)
SLIDES_CLUSTERS = np.array([4, 8, 16, 32])

# 'Two Tasks and Their Options' on clusters of 16 and 8 processors
SLIDES_VALUES = [[10, 2, 9], [11, 2]]
SLIDES_DEMANDS = [[[8, 0], [2, 0], [4, 4]], [[10, 0], [0, 1]]]


# --------------------------------------------------------------------------------------------
# oracle and strategies


def seq_sum(values) -> float:
    """Left-to-right float sum, as the DP adds (Python 3.12's ``sum`` compensates rounding)."""
    total = 0.0
    for x in values:
        total += float(x)
    return total


def evaluate(values, demands, capacity, choice):
    """(value, used, fits) of a choice (``-1`` = waits)."""
    used = np.zeros(len(capacity), dtype=np.int64)
    picked = []
    for i, j in enumerate(choice):
        if j >= 0:
            used += np.asarray(demands[i][j], dtype=np.int64)
            picked.append(values[i][j])
    return seq_sum(picked), used, bool((used <= np.asarray(capacity)).all())


def brute_force(values, demands, capacity):
    """Best (value, choice) by enumeration with the documented tie rule.

    Among the feasible choices of the largest left-to-right sum, the smallest compared from the
    last task to the first with waiting (-1) before option 0 before option 1 ...
    """
    best = None
    for choice in itertools.product(*(range(-1, len(v)) for v in values)):
        value, _, fits = evaluate(values, demands, capacity, choice)
        if not fits:
            continue
        key = (-value, choice[::-1])
        if best is None or key < best:
            best = key
    return -best[0], np.array(best[1][::-1], dtype=np.int64)


@st.composite
def instances(draw, reals: bool = False):
    """1-6 tasks x 1-4 options x 1-3 clusters, capacities 0-8, demands 0-10 (some too big)."""
    K = draw(st.integers(1, 3))
    n = draw(st.integers(1, 6))
    capacity = draw(st.lists(st.integers(0, 8), min_size=K, max_size=K))
    if reals:
        value = st.floats(-100, 100, allow_nan=False, allow_subnormal=False)
    else:
        value = st.integers(-5, 20)
    option = st.lists(st.integers(0, 10), min_size=K, max_size=K).filter(any)
    values, demands = [], []
    for _ in range(n):
        m = draw(st.integers(1, 4))
        values.append(draw(st.lists(value, min_size=m, max_size=m)))
        demands.append(draw(st.lists(option, min_size=m, max_size=m)))
    return values, demands, capacity


def random_cycle(rng, tasks, capacity, options=4, single=0.5):
    """Tasks whose options use 1-32 processors on one cluster or split across two."""
    K = len(capacity)
    values, demands = [], []
    for _ in range(tasks):
        procs = rng.integers(1, 33, options)
        d = np.zeros((options, K), dtype=np.int64)
        for j, p in enumerate(procs.tolist()):
            if p == 1 or K == 1 or rng.random() < single:
                d[j, rng.integers(K)] = p
            else:
                a, b = rng.choice(K, 2, replace=False)
                first = int(rng.integers(1, p))
                d[j, a], d[j, b] = first, p - first
        values.append(procs * rng.uniform(1.0, 10.0, options))
        demands.append(d)
    return values, demands


def check_result(r, values, demands, capacity, method):
    assert isinstance(r, MCKPResult)
    assert r.method == method
    assert r.choice.dtype == np.int64 and r.choice.shape == (len(values),)
    assert r.used.dtype == np.int64 and r.used.shape == (len(capacity),)
    assert isinstance(r.value, float) and r.seconds >= 0
    assert ((r.choice >= -1) & (r.choice < [len(v) for v in values])).all()
    value, used, fits = evaluate(values, demands, capacity, r.choice.tolist())
    assert fits
    assert np.array_equal(used, r.used)
    assert value == r.value


# --------------------------------------------------------------------------------------------
# the oracle


@SETTINGS
@given(instances())
def test_dp_matches_oracle_with_its_tie_rule(inst):
    values, demands, capacity = inst
    value, choice = brute_force(values, demands, capacity)
    r = solve_mckp(values, demands, capacity, method="dp")
    check_result(r, values, demands, capacity, "dp")
    assert r.value == value
    assert r.choice.tolist() == choice.tolist()
    auto = solve_mckp(values, demands, capacity)
    assert auto.method == "dp" and auto.choice.tolist() == choice.tolist()


@SETTINGS
@given(instances())
def test_milp_matches_oracle_integers(inst):
    values, demands, capacity = inst
    value, _ = brute_force(values, demands, capacity)
    r = solve_mckp(values, demands, capacity, method="milp")
    check_result(r, values, demands, capacity, "milp")
    assert r.value == value  # integers: any other choice is at least 1 worse
    assert all(values[i][j] > 0 for i, j in enumerate(r.choice.tolist()) if j >= 0)


@SETTINGS
@given(instances(reals=True))
def test_real_values_match_oracle(inst):
    values, demands, capacity = inst
    value, _ = brute_force(values, demands, capacity)
    dp = solve_mckp(values, demands, capacity, method="dp")
    check_result(dp, values, demands, capacity, "dp")
    assert dp.value == value  # the same left-to-right sums: exact
    mi = solve_mckp(values, demands, capacity, method="milp")
    check_result(mi, values, demands, capacity, "milp")
    assert math.isclose(mi.value, value, rel_tol=1e-9, abs_tol=1e-12)


@SETTINGS
@given(instances(), st.randoms(use_true_random=False))
def test_cluster_order_does_not_change_the_choice(inst, rnd):
    values, demands, capacity = inst
    perm = list(range(len(capacity)))
    rnd.shuffle(perm)
    r = solve_mckp(values, demands, capacity, method="dp")
    moved = solve_mckp(
        values,
        [np.asarray(d)[:, perm] for d in demands],
        np.asarray(capacity)[perm],
        method="dp",
    )
    assert moved.choice.tolist() == r.choice.tolist()
    assert moved.value == r.value
    assert moved.used.tolist() == r.used[perm].tolist()


# --------------------------------------------------------------------------------------------
# larger instances: dp against HiGHS


@pytest.mark.parametrize(("tasks", "seed"), [(60, 0), (100, 1), (150, 2), (200, 3)])
def test_dp_equals_milp_on_the_slides_clusters(tasks, seed):
    rng = np.random.default_rng(seed)
    values, demands = random_cycle(rng, tasks, SLIDES_CLUSTERS)
    dp = solve_mckp(values, demands, SLIDES_CLUSTERS, method="dp")
    mi = solve_mckp(values, demands, SLIDES_CLUSTERS, method="milp")
    check_result(dp, values, demands, SLIDES_CLUSTERS, "dp")
    check_result(mi, values, demands, SLIDES_CLUSTERS, "milp")
    assert math.isclose(dp.value, mi.value, rel_tol=1e-9)
    assert solve_mckp(values, demands, SLIDES_CLUSTERS).method == "dp"


@pytest.mark.parametrize("seed", [4, 5, 6])
def test_dp_equals_milp_on_busy_clusters(seed):
    """Partly busy clusters (a later cycle) and integer values (ties between choices)."""
    rng = np.random.default_rng(seed)
    capacity = rng.integers(0, SLIDES_CLUSTERS + 1)
    values, demands = random_cycle(rng, 120, capacity)
    values = [np.round(v / 10) for v in values]
    dp = solve_mckp(values, demands, capacity, method="dp")
    mi = solve_mckp(values, demands, capacity, method="milp")
    check_result(dp, values, demands, capacity, "dp")
    check_result(mi, values, demands, capacity, "milp")
    assert dp.value == mi.value


def test_five_clusters_dp_equals_milp():
    rng = np.random.default_rng(7)
    capacity = np.array([3, 5, 2, 6, 4])
    values, demands = random_cycle(rng, 40, capacity, options=3)
    demands = [np.minimum(d, 6) for d in demands]
    dp = solve_mckp(values, demands, capacity, method="dp")
    mi = solve_mckp(values, demands, capacity, method="milp")
    check_result(dp, values, demands, capacity, "dp")
    assert math.isclose(dp.value, mi.value, rel_tol=1e-9)


# --------------------------------------------------------------------------------------------
# the slides' example


def test_slides_two_tasks():
    r = solve_mckp(SLIDES_VALUES, SLIDES_DEMANDS, [16, 8])
    assert r.choice.tolist() == [2, 0]  # $9 for 4 + 4, $11 for 10 on cluster 1
    assert r.value == 20.0
    assert r.used.tolist() == [14, 4]
    assert r.method == "dp"
    for method in METHODS:
        assert solve_mckp(SLIDES_VALUES, SLIDES_DEMANDS, [16, 8], method).value == 20.0
    assert brute_force(SLIDES_VALUES, SLIDES_DEMANDS, [16, 8])[0] == 20.0


def test_slides_two_tasks_with_the_constraint_row_of_11():
    """'Constructing the Problem' writes 11 x21 on cluster 1 (the text says 10): same optimum."""
    demands = [SLIDES_DEMANDS[0], [[11, 0], [0, 1]]]
    r = solve_mckp(SLIDES_VALUES, demands, [16, 8])
    assert r.choice.tolist() == [2, 0] and r.value == 20.0 and r.used.tolist() == [15, 4]


def test_slides_every_task_gets_an_option_here():
    """With the slides' '= 1' rows the optimum is the same: no task waits at 16 + 8."""
    best = max(
        SLIDES_VALUES[0][a] + SLIDES_VALUES[1][b]
        for a in range(3)
        for b in range(2)
        if evaluate(SLIDES_VALUES, SLIDES_DEMANDS, [16, 8], (a, b))[2]
    )
    assert best == solve_mckp(SLIDES_VALUES, SLIDES_DEMANDS, [16, 8]).value


def test_a_task_waits_when_its_options_do_not_fit():
    r = solve_mckp(SLIDES_VALUES, SLIDES_DEMANDS, [10, 0])
    assert r.choice.tolist() == [-1, 0] and r.value == 11.0 and r.used.tolist() == [10, 0]
    r = solve_mckp(SLIDES_VALUES, SLIDES_DEMANDS, [1, 0])
    assert r.choice.tolist() == [-1, -1] and r.value == 0.0 and r.used.tolist() == [0, 0]


# --------------------------------------------------------------------------------------------
# ties and options left out


def test_ties_last_task_first():
    # one processor, two tasks worth 5 each: the last task waits (it can at no loss)
    r = solve_mckp([[5], [5]], [[[1]], [[1]]], [1])
    assert r.choice.tolist() == [0, -1]
    # ... unless only its option keeps the optimum
    r = solve_mckp([[5, 1], [5]], [[[1], [1]], [[1]]], [2])
    assert r.choice.tolist() == [0, 0]
    r = solve_mckp([[5], [5, 5]], [[[1]], [[2], [1]]], [2])
    assert r.choice.tolist() == [0, 1]
    # equal options within a task: the lowest index
    r = solve_mckp([[3, 3, 3]], [[[2], [1], [1]]], [2])
    assert r.choice.tolist() == [0]
    # an option worth 0 never beats waiting
    r = solve_mckp([[0.0], [4]], [[[1]], [[1]]], [2])
    assert r.choice.tolist() == [-1, 0] and r.value == 4.0


def test_non_positive_and_oversized_options_are_never_taken():
    values = [[-3, 0, 7], [2, 50]]
    demands = [[[1, 0], [1, 0], [1, 1]], [[0, 1], [0, 9]]]  # 9 > cluster 2's 8
    for method in ("dp", "milp"):
        r = solve_mckp(values, demands, [4, 8], method)
        assert r.choice.tolist() == [2, 0] and r.value == 9.0


@pytest.mark.parametrize("method", METHODS)
def test_nothing_to_take(method):
    r = solve_mckp([], [], [4, 8], method)
    assert r.choice.shape == (0,) and r.choice.dtype == np.int64
    assert r.value == 0.0 and r.used.tolist() == [0, 0]
    assert r.method == (method if method in ("milp", "greedy") else "dp")
    r = solve_mckp([[], [-1.0]], [np.zeros((0, 2), dtype=int), [[1, 1]]], [4, 8], method)
    assert r.choice.tolist() == [-1, -1] and r.value == 0.0


def test_many_options_wide_back_pointers():
    """More than 127 options per task: int16 back-pointers."""
    n_opt = 300
    values = [np.arange(n_opt, dtype=float), np.full(n_opt, 1.0)]
    d = np.ones((n_opt, 1), dtype=np.int64)
    d[250:] = 5
    r = solve_mckp(values, [d, d], [2], method="dp")
    assert r.choice.tolist() == [249, 0] and r.value == 250.0
    assert solve_mckp(values, [d, d], [2], method="milp").value == 250.0


# --------------------------------------------------------------------------------------------
# the choice of method


def test_auto_cuts_the_lattice_to_what_the_tasks_can_use():
    # a million free processors, tasks using a few: the DP's lattice is tiny
    r = solve_mckp([[3, 4], [5]], [[[2], [3]], [[4]]], [1_000_000])
    assert r.method == "dp" and r.choice.tolist() == [1, 0] and r.value == 9.0


def test_auto_takes_milp_for_large_lattices():
    values = [[5.0], [4.0], [3.0]]
    demands = [[[400, 400]], [[400, 500]], [[300, 300]]]
    capacity = [1000, 1000]  # lattice 1001 x 1001 > DP_MAX_STATES
    assert 1001 * 1001 > DP_MAX_STATES
    r = solve_mckp(values, demands, capacity)  # all three would need 1100 on cluster 1
    assert r.method == "milp" and r.value == 9.0 and r.choice.tolist() == [0, 0, -1]
    dp = solve_mckp(values, demands, capacity, method="dp")
    assert dp.method == "dp" and dp.value == 9.0 and dp.choice.tolist() == [0, 0, -1]


def test_auto_takes_milp_when_back_pointers_are_too_many(monkeypatch):
    rng = np.random.default_rng(8)
    values, demands = random_cycle(rng, 20, SLIDES_CLUSTERS)
    assert solve_mckp(values, demands, SLIDES_CLUSTERS).method == "dp"
    monkeypatch.setattr(mk, "DP_MAX_CELLS", 19 * 25_245)
    assert solve_mckp(values, demands, SLIDES_CLUSTERS).method == "milp"


# --------------------------------------------------------------------------------------------
# input forms


def test_array_inputs_and_integral_floats():
    values = np.array([[10.0, 2.0, 9.0], [11.0, 2.0, -1.0]])
    demands = np.array([[[8, 0], [2, 0], [4, 4]], [[10, 0], [0, 1], [1, 1]]])
    r = solve_mckp(values, demands, np.array([16.0, 8.0]))
    assert r.choice.tolist() == [2, 0] and r.value == 20.0
    r = solve_mckp(
        (v for v in SLIDES_VALUES), tuple(np.asarray(d, float) for d in SLIDES_DEMANDS), (16, 8)
    )
    assert r.choice.tolist() == [2, 0]


# --------------------------------------------------------------------------------------------
# errors


@pytest.mark.parametrize(
    ("values", "demands", "capacity", "method", "match"),
    [
        ([[1]], [[[1]]], [1], "simplex", r"method must be one of .*'greedy'"),
        ([[1], [2]], [[[1]]], [1], "auto", r"values has 2 tasks but demands has 1"),
        ([[1, 2]], [[[1]]], [1], "auto", r"demands\[0\] \(task 0\) must have shape .* \(2, 1\)"),
        ([[1]], [[[1, 1]]], [1], "auto", r"demands\[0\] \(task 0\) must have shape .* \(1, 1\)"),
        ([[1], [2]], [[[1]], [[1], [2, 3]]], [1], "auto", r"demands\[1\] must be a rectangular"),
        ([[1], [[2]]], [[[1]], [[1]]], [1], "auto", r"values\[1\] \(task 1\) must be 1-D"),
        ([[1, "x"]], [[[1], [1]]], [1], "auto", r"values\[0\] \(task 0\) must hold numbers"),
        ([[1, math.nan]], [[[1], [1]]], [1], "auto", r"values\[0\]\[1\] = nan .* not finite"),
        ([[1], [math.inf]], [[[1]], [[1]]], [1], "auto", r"values\[1\]\[0\] = inf .*task 1"),
        ([[1]], [[[1, -2]]], [1, 1], "auto", r"demands\[0\]\[0, 1\] = -2 .*cluster 1.*negative"),
        ([[1, 2]], [[[1], [0]]], [1], "auto", r"demands\[0\]\[1\] \(task 0, option 1\) asks for"),
        ([[1]], [[[1.5]]], [1], "auto", r"demands\[0\]\[0, 0\] = 1.5 is not an integer"),
        ([[1]], [[[1]]], [-1], "auto", r"capacity\[0\] = -1 \(cluster 0\) is negative"),
        ([[1]], [[[1]]], [2.5], "auto", r"capacity\[0\] = 2.5 is not an integer"),
        ([[1]], [[[1]]], 3, "auto", r"capacity must be a non-empty 1-D array"),
        ([], [], [], "auto", r"capacity must be a non-empty 1-D array"),
        ("ab", [[[1]]], [1], "auto", r"values must be a sequence .* string"),
        ([[1]], 7, [1], "auto", r"demands must be a sequence .* int"),
        ([[1]], [[["a"]]], [1], "auto", r"demands\[0\] must hold integers"),
    ],
)
def test_errors(values, demands, capacity, method, match):
    with pytest.raises(ProblemError, match=match):
        solve_mckp(values, demands, capacity, method)


def test_errors_are_value_errors():
    with pytest.raises(ValueError, match="not finite"):
        solve_mckp([[math.nan]], [[[1]]], [1])


def test_oversized_option_is_not_an_error():
    r = solve_mckp([[5]], [[[100, 0]]], [4, 8])
    assert r.choice.tolist() == [-1] and r.value == 0.0


def test_time_limit_returns_a_feasible_choice_and_says_whether_optimal():
    rng = np.random.default_rng(3)
    values = [rng.uniform(1, 10, size=4) for _ in range(60)]
    demands = [rng.integers(0, 40, size=(4, 3)) + np.eye(4, 3, dtype=int) for _ in range(60)]
    exact = solve_mckp(values, demands, [120, 130, 140], method="milp")
    limited = solve_mckp(values, demands, [120, 130, 140], method="milp", time_limit=30.0)
    assert exact.optimal and limited.used.tolist() <= [120, 130, 140]
    if limited.optimal:
        assert limited.value == pytest.approx(exact.value)
    else:
        assert limited.value <= exact.value + 1e-9
    with pytest.raises(ProblemError, match="time_limit"):
        solve_mckp(values, demands, [120, 130, 140], time_limit=0.0)
