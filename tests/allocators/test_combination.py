"""Tests of the choice of a combination of alternatives under a limit on summed U (VO Pref. §3).

Exhaustive enumeration is the oracle on small batches (the same float sums in job order, so
totals must agree exactly); scipy.optimize.milp (HiGHS, ``mip_rel_gap = 0``) on larger ones.
"""

from __future__ import annotations

import itertools
import math
from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import vosim.allocators.combination as cm
from vosim.allocators.combination import (
    LIMIT_RTOL,
    CombinationResult,
    Compromise,
    choose_combination,
    combination_curve,
    compromise,
    user_evaluations,
    vo_evaluation,
)
from vosim.errors import ProblemError

SETTINGS = settings(max_examples=300, deadline=None)


# --------------------------------------------------------------------------------------------
# oracle and strategies


def seq_sum(values) -> float:
    """Left-to-right float sum, as the DP adds (Python 3.12's ``sum`` compensates rounding)."""
    total = 0.0
    for x in values:
        total += float(x)
    return total


def brute_force(vo, ue, limit, sense):
    """Best (vo_total, user_total, choice) by enumeration, with the documented tie rule.

    Sums are taken left to right in job order (what the DP computes); ``itertools.product`` runs
    through the choices in lexicographic order, so the first optimum found is the
    lexicographically smallest.
    """
    best = None
    for choice in itertools.product(*(range(len(row)) for row in vo)):
        u = seq_sum(float(ue[i][j]) for i, j in enumerate(choice))
        if u > limit * (1.0 + LIMIT_RTOL):
            continue
        v = seq_sum(float(vo[i][j]) for i, j in enumerate(choice))
        key = (-v if sense == "max" else v, u)
        if best is None or key < best[0]:
            best = (key, v, u, choice)
    if best is None:
        return None
    return best[1], best[2], list(best[3])


def check_result(vo, ue, limit, sense, r: CombinationResult) -> None:
    """Invariants of a result, and its agreement with the enumeration oracle."""
    oracle = brute_force(vo, ue, limit, sense)
    assert r.limit == limit
    if oracle is None:
        assert not r.feasible
        assert r.choice.shape == (0,) and r.choice.dtype == np.int64
        assert math.isnan(r.vo_total) and math.isnan(r.user_total)
        assert r.reason.startswith("limit ") and "below the minimum summed U" in r.reason
        return
    assert r.feasible and r.reason == ""
    assert r.choice.dtype == np.int64 and r.choice.shape == (len(vo),)
    v_best, u_best, _ = oracle
    assert r.vo_total == v_best  # exact: the same sums in the same order
    assert r.user_total == u_best
    # the choice achieves the totals and fits the limit
    assert seq_sum(float(ue[i][j]) for i, j in enumerate(r.choice)) == r.user_total
    assert seq_sum(float(vo[i][j]) for i, j in enumerate(r.choice)) == r.vo_total
    assert r.user_total <= limit * (1.0 + LIMIT_RTOL)


@st.composite
def batches(draw, integer: bool | None = None, max_jobs: int = 6, max_alts: int = 4):
    """Ragged batches (vo, ue) of 1..max_jobs jobs with 1..max_alts alternatives each."""
    if integer is None:
        integer = draw(st.booleans())
    n = draw(st.integers(1, max_jobs))
    sizes = draw(st.lists(st.integers(1, max_alts), min_size=n, max_size=n))
    if integer:
        v_el = st.integers(-20, 20).map(float)
        u_el = st.integers(0, 6).map(float)
    else:
        v_el = st.floats(-100, 100, allow_nan=False, allow_infinity=False)
        u_el = st.one_of(
            st.sampled_from([0.0, 100.0, 100 / 3, 200 / 3, 0.1, 0.2, 0.3]),
            st.floats(0, 100, allow_nan=False, allow_infinity=False),
        )
    vo = [draw(st.lists(v_el, min_size=k, max_size=k)) for k in sizes]
    ue = [draw(st.lists(u_el, min_size=k, max_size=k)) for k in sizes]
    return vo, ue


@st.composite
def limits_for(draw, ue):
    """A limit around the feasible range: an exact achievable sum, a value in the range, etc."""
    lo = sum(min(row) for row in ue)
    hi = sum(max(row) for row in ue)
    how = draw(st.sampled_from(["sum", "sum", "range", "below", "zero", "inf", "above"]))
    if how == "sum":  # the summed U of some combination: the boundary case
        return float(sum(row[draw(st.integers(0, len(row) - 1))] for row in ue))
    if how == "range":
        return draw(st.floats(lo, hi, allow_nan=False)) if hi > lo else float(lo)
    if how == "below":
        return max(0.0, lo - draw(st.floats(1e-9, 10)))
    if how == "zero":
        return 0.0
    if how == "inf":
        return math.inf
    return hi + draw(st.floats(0, 10))


SENSES = st.sampled_from(["max", "min"])


# --------------------------------------------------------------------------------------------
# choose_combination == enumeration


def small_thresholds():
    """Bounds and the bin filter on from the first state, so small batches exercise them."""
    return mock.patch.multiple(cm, _FILTER_MIN=0, _BOUND_MIN=0)


@SETTINGS
@given(data=st.data(), sense=SENSES, forced=st.booleans())
def test_matches_enumeration(data, sense, forced):
    vo, ue = data.draw(batches())
    limit = data.draw(limits_for(ue))
    if forced:
        with small_thresholds():
            r = choose_combination(vo, ue, limit, sense)
    else:
        r = choose_combination(vo, ue, limit, sense)
    check_result(vo, ue, limit, sense, r)


@SETTINGS
@given(data=st.data(), sense=SENSES, forced=st.booleans())
def test_integer_ties_lexicographic(data, sense, forced):
    """With exact (integer) sums the tie rule is exact: the choice is the oracle's."""
    vo, ue = data.draw(batches(integer=True))
    limit = data.draw(limits_for(ue))
    if forced:
        with small_thresholds():
            r = choose_combination(vo, ue, limit, sense)
    else:
        r = choose_combination(vo, ue, limit, sense)
    oracle = brute_force(vo, ue, limit, sense)
    if oracle is None:
        assert not r.feasible
    else:
        assert r.choice.tolist() == oracle[2]


@settings(max_examples=150, deadline=None)
@given(data=st.data(), sense=SENSES)
def test_bounds_and_bin_filter_change_nothing(data, sense):
    """Bounds and the pre-sort thinning, forced on small batches, give the plain DP's answers."""
    vo, ue = data.draw(batches(max_jobs=5, max_alts=4))
    limits = [data.draw(limits_for(ue)) for _ in range(3)]
    plain = [choose_combination(vo, ue, x, sense) for x in limits]
    with mock.patch.multiple(cm, _FILTER_MIN=10**9, _BOUND_MIN=10**9):
        for x, r in zip(limits, plain, strict=True):
            assert_same(r, choose_combination(vo, ue, x, sense))
    with small_thresholds():
        for x, r in zip(limits, plain, strict=True):
            assert_same(r, choose_combination(vo, ue, x, sense))
        for r in combination_curve(vo, ue, limits, sense):
            check_result(vo, ue, r.limit, sense, r)


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    sense=SENSES,
    kind=st.sampled_from(["conflicting", "independent", "collinear-int"]),
)
def test_bounds_on_medium_batches(seed, sense, kind):
    """12 jobs x 5 alternatives, bounds from the first state: the same as the curve (no bounds)."""
    rng = np.random.default_rng(seed)
    if kind == "collinear-int":  # U a multiple of the VO value: every point on one chord
        v = rng.integers(1, 30, (12, 5)).astype(float)
        u = 2.0 * v
    else:
        v = rng.uniform(10, 100, (12, 5))
        z = v if kind == "conflicting" else rng.uniform(10, 100, (12, 5))
        u = np.array([user_evaluations(row, "relative") for row in z])
    limits = rng.uniform(u.min(axis=1).sum(), u.max(axis=1).sum(), 6).tolist()
    curve = combination_curve(v, u, limits, sense)
    with small_thresholds():
        for x, r in zip(limits, curve, strict=True):
            assert_same(r, choose_combination(v, u, x, sense))


def assert_same(a: CombinationResult, b: CombinationResult) -> None:
    assert a.choice.tolist() == b.choice.tolist()
    assert a.choice.dtype == b.choice.dtype
    assert a.feasible == b.feasible and a.reason == b.reason and a.limit == b.limit
    for x, y in ((a.vo_total, b.vo_total), (a.user_total, b.user_total)):
        assert x == y or (math.isnan(x) and math.isnan(y))


def test_tie_rules():
    # equal VO totals: the smaller summed U
    r = choose_combination([[3, 3]], [[2, 1]], limit=5)
    assert r.choice.tolist() == [1] and r.user_total == 1.0
    # equal VO and U totals: lexicographically smallest choice (first job first)
    r = choose_combination([[0, 1], [0, 1]], [[0, 1], [0, 1]], limit=1)
    assert r.choice.tolist() == [0, 1]
    r = choose_combination([[5, 5, 5]], [[1, 1, 1]], limit=1, sense="min")
    assert r.choice.tolist() == [0]
    r = choose_combination([[0, 1]] * 3, [[0, 1]] * 3, limit=2)
    assert r.choice.tolist() == [0, 1, 1]  # [0, 1, 1] < [1, 0, 1] < [1, 1, 0], all 2 / 2


def test_relative_thirds_fit_their_sum():
    """Six 33.33...% evaluations add up to 200.00000000000003: within 1e-12 of a limit of 200."""
    third = 100 / 3
    total = 0.0
    for _ in range(6):
        total += third
    assert total > 200
    ue = [[0.0, third, 100.0]] * 6
    vo = [[0.0, 1.0, 2.0]] * 6
    r = choose_combination(vo, ue, limit=200)
    assert r.feasible and r.choice.tolist() == [1] * 6 and r.vo_total == 6.0
    assert r.user_total == total
    r = choose_combination(vo, ue, limit=200 * (1 - 1e-11))
    assert r.feasible and r.vo_total < 6.0


def test_senses_mirror():
    rng = np.random.default_rng(5)
    v = rng.uniform(-10, 10, (8, 5))
    u = rng.uniform(0, 100, (8, 5))
    for limit in (150.0, 250.0, 400.0, math.inf):
        a = choose_combination(v, u, limit, "min")
        b = choose_combination(-v, u, limit, "max")
        assert a.feasible and b.feasible
        assert a.choice.tolist() == b.choice.tolist()
        assert a.vo_total == -b.vo_total and a.user_total == b.user_total
    assert not choose_combination(v, u, 0.0, "min").feasible


def test_array_and_ragged_inputs_agree():
    rng = np.random.default_rng(2)
    v = rng.integers(0, 50, (6, 4)).astype(float)
    u = rng.integers(0, 4, (6, 4)).astype(float)
    a = choose_combination(v, u, 9)
    b = choose_combination(v.tolist(), [list(row) for row in u], 9)
    c = choose_combination((row for row in v), tuple(u), 9)
    assert_same(a, b)
    assert_same(a, c)


def test_no_jobs_is_trivially_feasible():
    r = choose_combination([], [], 0)
    assert r.feasible and r.choice.shape == (0,) and r.vo_total == 0.0 and r.user_total == 0.0


def test_infeasible_reason():
    r = choose_combination([[1, 2], [3]], [[3, 4], [2]], limit=3)
    assert not r.feasible and r.choice.shape == (0,) and r.choice.dtype == np.int64
    assert math.isnan(r.vo_total) and math.isnan(r.user_total)
    assert r.reason == "limit 3 below the minimum summed U 5"
    assert choose_combination([[1, 2], [3]], [[3, 4], [2]], limit=5).feasible


def test_paper_css_problems():
    """T -> min, lim C and C -> max, lim T, as the module docstring writes them."""
    times = [[10, 8, 4, 3], [9, 6, 5]]
    costs = [[5, 7, 11, 15], [8, 12, 20]]
    r = choose_combination(times, costs, 30, "min")  # T -> min, lim C = 30
    assert (r.vo_total, r.user_total, r.choice.tolist()) == (9.0, 27.0, [3, 1])
    r = choose_combination(costs, times, 14, "max")  # C -> max, lim T: dearer is faster here
    assert (r.vo_total, r.user_total, r.choice.tolist()) == (35.0, 8.0, [3, 2])
    slow = [[2, 3, 5, 8], [4, 6, 9]]  # dearer is slower: (11 + 8, 5 + 4) ties (7 + 12, 3 + 6)
    r = choose_combination(costs, slow, 10, "max")
    check_result(costs, slow, 10, "max", r)
    assert (r.vo_total, r.user_total, r.choice.tolist()) == (19.0, 9.0, [1, 1])


# --------------------------------------------------------------------------------------------
# combination_curve == choose_combination


@settings(max_examples=150, deadline=None)
@given(data=st.data(), sense=SENSES)
def test_curve_equals_single_calls(data, sense):
    vo, ue = data.draw(batches())
    limits = data.draw(st.lists(limits_for(ue), min_size=1, max_size=6))
    curve = combination_curve(vo, ue, limits, sense)
    assert len(curve) == len(limits)
    for limit, r in zip(limits, curve, strict=True):
        assert_same(r, choose_combination(vo, ue, limit, sense))


def test_curve_on_a_grid_of_ua():
    rng = np.random.default_rng(11)
    n, m = 30, 7
    v = rng.uniform(10, 100, (n, m))
    u = np.array([user_evaluations(row, "relative") for row in v])  # conflicting preferences
    ua = np.linspace(0, 100, 41)
    curve = combination_curve(v, u, ua * n, "max")
    totals = [r.vo_total for r in curve]
    assert all(r.feasible for r in curve)
    assert np.all(np.diff(totals) >= 0)  # a looser limit never hurts the VO
    assert totals[0] == seq_sum(float(row[np.argmin(urow)]) for row, urow in zip(v, u, strict=True))
    assert totals[-1] == seq_sum(float(row.max()) for row in v)
    for k in (0, 7, 20, 33, 40):
        assert_same(curve[k], choose_combination(v, u, ua[k] * n, "max"))


def test_curve_all_infeasible_and_order_kept():
    curve = combination_curve([[1, 2]], [[3, 4]], [2.0, 0.0, 1.0])
    assert [r.limit for r in curve] == [2.0, 0.0, 1.0]
    assert not any(r.feasible for r in curve)
    curve = combination_curve([[1, 2]], [[3, 4]], np.array([5.0, 3.0, math.inf, 2.0]))
    assert [r.vo_total for r in curve[:3]] == [2.0, 1.0, 2.0] and not curve[3].feasible


# --------------------------------------------------------------------------------------------
# larger batches: scipy.optimize.milp as the oracle


def milp_optimum(v, u, limit, sense):
    """(objective, choice) from HiGHS; the choice's totals recomputed in job order."""
    from scipy.optimize import Bounds, LinearConstraint, milp
    from scipy.sparse import csr_array

    n, m = v.shape
    c = v.ravel() if sense == "min" else -v.ravel()
    rows = np.repeat(np.arange(n), m)
    one_each = csr_array((np.ones(n * m), (rows, np.arange(n * m))), shape=(n, n * m))
    res = milp(
        c,
        constraints=[
            LinearConstraint(one_each, 1, 1),
            LinearConstraint(u.ravel()[None, :], -np.inf, limit),
        ],
        integrality=np.ones(n * m),
        bounds=Bounds(0, 1),
        options={"mip_rel_gap": 0},
    )
    if res.status == 2:
        return None
    assert res.x is not None, res.message
    choice = res.x.reshape(n, m).argmax(axis=1)
    return (res.fun if sense == "min" else -res.fun), choice


def milp_cases():
    cases = []
    for seed in range(12):
        kind = ("integer", "relative", "conflicting")[seed % 3]
        sense = ("max", "min")[(seed // 3) % 2]
        cases.append(pytest.param(seed, kind, sense, id=f"{kind}-{sense}-{seed}"))
    return cases


@pytest.mark.parametrize(("seed", "kind", "sense"), milp_cases())
def test_matches_milp_on_25_jobs(seed, kind, sense):
    rng = np.random.default_rng(seed)
    n, m = 25, 6
    if kind == "integer":
        v = rng.integers(1, 60, (n, m)).astype(float)
        u = np.array([user_evaluations(row) for row in rng.uniform(0, 1, (n, m))])
        ua_grid = (0.0, 0.5, 1.0, 2.5, 4.0)
    else:
        v = rng.uniform(10, 100, (n, m))
        z = v if kind == "conflicting" else rng.uniform(10, 100, (n, m))
        u = np.array([user_evaluations(row, "relative") for row in z])
        ua_grid = (0.0, 12.5, 25.0, 50.0, 80.0)
    limits = [ua * n for ua in ua_grid]
    curve = combination_curve(v, u, limits, sense)
    for limit, r in zip(limits, curve, strict=True):
        assert_same(r, choose_combination(v, u, limit, sense))
        ref = milp_optimum(v, u, limit, sense)
        assert r.feasible == (ref is not None)
        obj, choice = ref
        assert r.user_total <= limit * (1 + LIMIT_RTOL)
        assert seq_sum(float(v[i, j]) for i, j in enumerate(r.choice)) == r.vo_total
        # HiGHS's optimum within its tolerances (absolute gap 1e-6, feasibility 1e-7) ...
        assert r.vo_total == pytest.approx(obj, rel=1e-9, abs=1e-5)
        # ... and never better than the DP with a choice that really fits the limit
        fits = seq_sum(float(u[i, j]) for i, j in enumerate(choice)) <= limit * (1 + LIMIT_RTOL)
        v_milp = seq_sum(float(v[i, j]) for i, j in enumerate(choice))
        if fits:
            assert (v_milp <= r.vo_total) if sense == "max" else (v_milp >= r.vo_total)


# --------------------------------------------------------------------------------------------
# user_evaluations: Table 1


def test_table_1():
    costs = [5, 7, 11, 15]
    ordinal = user_evaluations(costs, kind="ordinal", sense="min")
    relative = user_evaluations(costs, kind="relative", sense="min")
    assert ordinal.dtype == float and relative.dtype == float
    assert ordinal.tolist() == [0.0, 1.0, 2.0, 3.0]
    assert relative.tolist() == [0.0, 20.0, 60.0, 100.0]


def test_user_evaluations_order_and_sense():
    assert user_evaluations([15, 5, 11, 7]).tolist() == [3.0, 0.0, 2.0, 1.0]
    assert user_evaluations([3, 1, 3, 2]).tolist() == [2.0, 0.0, 3.0, 1.0]  # stable on ties
    assert user_evaluations([5, 7, 7, 3], sense="max").tolist() == [2.0, 0.0, 1.0, 3.0]
    assert user_evaluations([5, 7, 11, 15], "relative", "max").tolist() == [100.0, 80.0, 40.0, 0.0]
    assert user_evaluations([4, 4, 4], "relative").tolist() == [0.0, 0.0, 0.0]
    assert user_evaluations([4, 4, 4]).tolist() == [0.0, 1.0, 2.0]
    assert user_evaluations([7.5]).tolist() == [0.0]


@settings(max_examples=200, deadline=None)
@given(
    z=st.lists(st.floats(-1e6, 1e6, allow_nan=False), min_size=1, max_size=12),
    sense=SENSES,
)
def test_user_evaluations_properties(z, sense):
    o = user_evaluations(z, "ordinal", sense)
    assert sorted(o.tolist()) == [float(k) for k in range(len(z))]
    r = user_evaluations(z, "relative", sense)
    assert np.all((r >= 0) & (r <= 100))
    if max(z) > min(z):
        assert r.min() == 0.0 and r.max() == 100.0
        best = np.argmin(z) if sense == "min" else np.argmax(z)
        assert r[best] == 0.0 and o[best] == 0.0
        # the better the value, the smaller U
        zz = np.asarray(z) if sense == "min" else -np.asarray(z)
        assert np.all(np.diff(r[np.argsort(zz, kind="stable")]) >= 0)


# --------------------------------------------------------------------------------------------
# vo_evaluation and compromise


def test_vo_evaluation():
    assert vo_evaluation(25.0, 35.0, 13.0) == pytest.approx(100 * 10 / 22)
    assert isinstance(vo_evaluation(25, 35, 13), float)
    assert vo_evaluation(15.0, y_best=10.0, y_worst=30.0) == 25.0  # a minimised criterion (time)
    assert vo_evaluation([10, 20, 30], 10, 30).tolist() == [0.0, 50.0, 100.0]
    assert np.isnan(vo_evaluation([5.0, 5.0], 5.0, 5.0)).all()  # no choice: A undefined
    assert math.isnan(vo_evaluation(7.0, 5.0, 5.0))
    a = vo_evaluation([math.nan, 20.0], 10, 30)
    assert math.isnan(a[0]) and a[1] == 50.0
    a = vo_evaluation(np.array([[10.0, 30.0]]), 30, 10)
    assert a.shape == (1, 2) and a.tolist() == [[100.0, 0.0]]


def test_compromise_crossing_between_grid_points():
    c = compromise([0, 25, 50, 75, 100], [100, 60, 30, 10, 0])
    assert isinstance(c, Compromise)
    # A - U_a: 100, 35, -20: crosses between 25 and 50 at 25 + 25 * 35 / 55
    x = 25 + 25 * 35 / 55
    assert c.equal == pytest.approx((x, x))
    assert c.additive == (50.0, 30.0)


def test_compromise_on_a_grid_point_and_first_crossing():
    c = compromise([0, 20, 40, 60], [80, 40, 40, 70])
    assert c.equal == (40.0, 40.0)
    c = compromise([0, 10, 20, 30, 40], [50, 5, 30, 35, 10])  # crosses three times
    assert c.equal == pytest.approx((10 * 50 / 55, 10 * 50 / 55))
    assert c.additive == (10.0, 5.0)


def test_compromise_never_crosses():
    c = compromise([10, 50, 100], [0, 10, 20])
    assert c.equal is None
    assert c.additive == (10.0, 0.0)
    assert compromise([0, 50], [60, 70]).equal is None
    assert compromise([30], [30]).equal == (30.0, 30.0)


def test_compromise_additive_ties_take_the_first():
    assert compromise([0, 10, 20], [30, 20, 10]).additive == (0.0, 30.0)


def test_compromise_on_a_real_curve():
    rng = np.random.default_rng(3)
    n = 40
    v = rng.uniform(10, 100, (n, 8))
    u = np.array([user_evaluations(row, "relative") for row in v])
    ua = np.linspace(0, 100, 101)
    totals = np.array([r.vo_total for r in combination_curve(v, u, ua * n)])
    a = vo_evaluation(totals, y_best=totals[-1], y_worst=totals[0])
    c = compromise(ua, a)
    assert a[0] == 100.0 and a[-1] == 0.0
    assert c.equal is not None and 0 < c.equal[0] < 100
    assert c.additive[0] + c.additive[1] <= 100.0


# --------------------------------------------------------------------------------------------
# errors


@pytest.mark.parametrize(
    ("vo", "ue", "limit", "sense", "match"),
    [
        ([[1, 2]], [[1, 2], [3]], 1, "max", r"vo_values has 1 jobs but user_evals has 2"),
        ([[1, 2], [3]], [[1, 2], [3, 4]], 1, "max", r"job 1 has 1 VO values but 2 user"),
        ([[1, 2], []], [[1, 2], []], 1, "max", r"job 1 has no alternatives"),
        ([[1, math.nan]], [[1, 2]], 1, "max", r"vo_values\[0\]\[1\] = nan \(job 0\) is not fin"),
        ([[1, 2]], [[1, math.inf]], 1, "max", r"user_evals\[0\]\[1\] = inf \(job 0\)"),
        (
            [[1], [2, 3]],
            [[1], [2, -0.5]],
            1,
            "max",
            r"user_evals\[1\]\[1\] = -0.5 \(job 1\) is neg",
        ),
        ([[1, 2]], [[1, 2]], -1, "max", r"limit must be >= 0.*-1\.0"),
        ([[1, 2]], [[1, 2]], math.nan, "max", r"limit must be >= 0.*nan"),
        ([[1, 2]], [[1, 2]], "a", "max", r"limit must be a number"),
        ([[1, 2]], [[1, 2]], 1, "maximum", r"sense must be 'max' or 'min', got 'maximum'"),
        (np.ones(3), np.ones(3), 1, "max", r"vo_values must be 2-D"),
        ([[[1]]], [[[1]]], 1, "max", r"vo_values\[0\] \(job 0\) must be a 1-D sequence"),
        ([1, 2], [1, 2], 1, "max", r"vo_values\[0\] \(job 0\) must be a 1-D"),
        ([["x"]], [[1]], 1, "max", r"vo_values\[0\] \(job 0\) must hold numbers"),
        (5, 5, 1, "max", r"vo_values must be a sequence"),
    ],
)
def test_choose_combination_errors(vo, ue, limit, sense, match):
    with pytest.raises(ProblemError, match=match):
        choose_combination(vo, ue, limit, sense)


def test_curve_errors():
    with pytest.raises(ProblemError, match=r"limits\[2\] must be >= 0.*-3\.0"):
        combination_curve([[1]], [[1]], [1, 2, -3])
    with pytest.raises(ProblemError, match=r"limits\[0\] must be >= 0.*nan"):
        combination_curve([[1]], [[1]], [math.nan])
    with pytest.raises(ProblemError, match=r"limits must be one-dimensional"):
        combination_curve([[1]], [[1]], 5.0)
    with pytest.raises(ProblemError, match=r"sense must be"):
        combination_curve([[1]], [[1]], [1], sense="best")
    with pytest.raises(ProblemError, match=r"user_evals\[0\]\[0\] = -1.0 \(job 0\) is negative"):
        combination_curve([[1]], [[-1]], [1])


def test_evaluation_errors():
    with pytest.raises(ProblemError, match=r"kind must be 'ordinal' or 'relative', got 'rank'"):
        user_evaluations([1, 2], kind="rank")
    with pytest.raises(ProblemError, match=r"sense must be 'max' or 'min', got 'up'"):
        user_evaluations([1, 2], sense="up")
    with pytest.raises(ProblemError, match=r"values\[1\] = nan is not finite"):
        user_evaluations([1, math.nan])
    with pytest.raises(ProblemError, match=r"values is empty"):
        user_evaluations([])
    with pytest.raises(ProblemError, match=r"values must be 1-D"):
        user_evaluations([[1, 2]])
    with pytest.raises(ProblemError, match=r"y_best must be a finite number"):
        vo_evaluation(1.0, math.nan, 2.0)
    with pytest.raises(ProblemError, match=r"y_worst must be a finite number"):
        vo_evaluation(1.0, 0.0, math.inf)
    with pytest.raises(ProblemError, match=r"y must not hold infinities"):
        vo_evaluation([1.0, math.inf], 0.0, 2.0)
    with pytest.raises(ProblemError, match=r"a must have the shape of ua"):
        compromise([0, 1], [0])
    with pytest.raises(ProblemError, match=r"ua must be a non-empty 1-D"):
        compromise([], [])
    with pytest.raises(ProblemError, match=r"a\[1\] = nan is not finite"):
        compromise([0, 1], [0, math.nan])
    with pytest.raises(ProblemError, match=r"ua must be ascending; ua\[2\] = 1.0 < ua\[1\] = 5.0"):
        compromise([0, 5, 1], [0, 1, 2])


def test_problem_error_is_a_value_error():
    with pytest.raises(ValueError, match="sense"):
        choose_combination([[1]], [[1]], 1, "up")
