"""Every allocator result is a ``Result``: status, message, solution, objective (OptimizeResult)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from vosim.allocators import (
    AvailabilityProblem,
    AvailabilityResult,
    TimeScanResult,
    VOPolicy,
    allocate_resources,
    allocate_window,
    batch_alternatives,
    choose_alternatives,
    choose_combination,
    find_alternatives,
    time_scan,
)
from vosim.allocators.aep import window_criterion
from vosim.allocators.availability_problem import infeasible, make_result
from vosim.allocators.availability_window import max_availability_window
from vosim.allocators.mckp import MCKPResult, solve_mckp
from vosim.core import Allocation, ResourceRequest, Result, Slot, SlotList, Status, Window

SLOTS = SlotList([Slot(0, 0.0, 100.0, 1.0, 2.0), Slot(1, 10.0, 100.0, 1.0, 4.0)])
FITS = ResourceRequest(n=2, volume=80.0)
TOO_MANY = ResourceRequest(n=3, volume=80.0)
PROBLEM = AvailabilityProblem(cost=[3, 1, 2], group=[0, 1, 2], group_p=[0.9, 0.5, 0.8], n=2)


def check(result, status: Status) -> None:
    """The shared protocol: a Status, a non-empty message, the reason when there is one."""
    assert isinstance(result, Result)
    assert isinstance(result.status, Status)
    assert result.status is status
    assert isinstance(result.message, str) and result.message
    assert result.status.found == (status is not Status.INFEASIBLE)
    reason = getattr(result, "reason", "")
    if reason:
        assert result.message == reason


# -- window searches (Allocation) -----------------------------------------------------------


@pytest.mark.parametrize("criterion", ["amp", "min_cost", "min_runtime", "min_finish"])
def test_exact_criteria_are_optimal_or_infeasible(criterion):
    found = allocate_window(SLOTS, FITS, criterion)
    check(found, Status.OPTIMAL)
    assert found.exact and found.window is not None and found.reason == ""
    none = allocate_window(SLOTS, TOO_MANY, criterion)
    check(none, Status.INFEASIBLE)
    assert none.window is None and none.message == none.reason != ""


@pytest.mark.parametrize(
    "criterion", ["min_proc_time", "min_runtime_substitution", "min_finish_substitution"]
)
def test_heuristic_criteria_are_feasible_or_infeasible(criterion):
    check(allocate_window(SLOTS, FITS, criterion), Status.FEASIBLE)
    check(allocate_window(SLOTS, TOO_MANY, criterion), Status.INFEASIBLE)


def test_allocation_status_from_its_fields():
    window = Window((Slot(0, 0.0, 10.0, 1.0, 1.0),), 0.0, 10.0, 10.0)
    check(Allocation(window, criterion="custom"), Status.FEASIBLE)
    check(Allocation(window, criterion="amp", exact=True), Status.OPTIMAL)
    limited = Allocation(window, criterion="min_cost", stats={"truncated": True}, exact=True)
    check(limited, Status.LIMIT)
    check(Allocation(None, "x"), Status.INFEASIBLE)
    assert Allocation(None).message == Status.INFEASIBLE.default_message


def test_max_availability_window():
    def p_avail(duration, starts, rows):
        return np.full((len(rows), len(starts)), 0.9)

    check(max_availability_window(SLOTS, FITS, p_avail), Status.FEASIBLE)
    check(max_availability_window(SLOTS, TOO_MANY, p_avail), Status.INFEASIBLE)


# -- availability problems (AvailabilityResult, TimeScanResult) -----------------------------


def test_availability_result():
    check(allocate_resources(PROBLEM, "exact"), Status.OPTIMAL)
    check(allocate_resources(PROBLEM, "greedy_united"), Status.FEASIBLE)
    poor = AvailabilityProblem(
        cost=[3, 1, 2], group=[0, 1, 2], group_p=[0.9, 0.5, 0.8], n=2, budget=2
    )
    for method in ("exact", "greedy_united"):
        res = allocate_resources(poor, method)
        check(res, Status.INFEASIBLE)
        assert res.selected.size == 0
    # a heuristic's own reason becomes the message
    res = allocate_resources(poor, "greedy_united")
    assert res.message == res.stats["reason"]


def test_availability_result_limit_and_strings():
    res = make_result(PROBLEM, np.array([0, 2]), Status.OPTIMAL, "x", truncated=True)
    check(res, Status.LIMIT)
    check(make_result(PROBLEM, np.array([0, 2]), "optimal", "x"), Status.OPTIMAL)
    check(infeasible("x", reason="nothing fits"), Status.INFEASIBLE)
    assert infeasible("x", reason="nothing fits").message == "nothing fits"
    with pytest.raises(ValueError, match="not a valid Status"):
        AvailabilityResult(np.empty(0, dtype=np.int64), 0.0, 0.0, "maybe")


def test_time_scan_result():
    p = np.array([[0.9, 0.5], [0.8, 0.7], [0.6, 0.95]])
    check(time_scan(p, [3, 1, 2], 2, 5), Status.OPTIMAL)
    check(time_scan(p, [3, 1, 2], 2, 5, fast=True), Status.OPTIMAL)
    check(time_scan(p, [3, 1, 2], 2, 5, method="greedy_united"), Status.FEASIBLE)
    for fast in (False, True):
        none = time_scan(p, [3, 1, 2], 2, 2, fast=fast)
        check(none, Status.INFEASIBLE)
        assert none.time_index == -1
    legacy = TimeScanResult(-1, 0.0, np.empty(0), 0.0, "infeasible", np.zeros(2), "m")
    assert legacy.status is Status.INFEASIBLE


# -- the cyclic scheme: alternatives, combination, CSS ---------------------------------------


def test_alternatives():
    found = find_alternatives(SLOTS, ResourceRequest(n=2, time=30.0), "amp", limit=2)
    check(found, Status.FEASIBLE)
    assert found.message == "limit of 2 alternative(s)"
    none = find_alternatives(SLOTS, TOO_MANY, "amp")
    check(none, Status.INFEASIBLE)
    assert none.windows == ()


def test_batch_alternatives():
    found = batch_alternatives(SLOTS, [FITS, TOO_MANY], ["amp", "amp"], 1)
    check(found, Status.FEASIBLE)
    assert found.message == "alternatives found for 1 of 2 job(s)"
    none = batch_alternatives(SLOTS, [TOO_MANY, TOO_MANY], ["amp", "min_cost"], 1)
    check(none, Status.INFEASIBLE)
    assert none.message.startswith("no alternative for any of the 2 job(s)")
    check(batch_alternatives(SLOTS, [], [], 1), Status.INFEASIBLE)


def test_combination():
    costs = [[5, 7, 11, 15], [8, 12, 20]]
    found = choose_combination(costs, [[0, 1, 2, 3], [0, 1, 2]], limit=2)
    check(found, Status.OPTIMAL)
    assert found.feasible and found.reason == ""
    none = choose_combination(costs, [[1, 1, 2, 3], [1, 1, 2]], limit=1)
    check(none, Status.INFEASIBLE)
    assert not none.feasible and none.message == none.reason


def test_css():
    ws = [Window((Slot(0, 0.0, 1.0, c, 1.0),), 0.0, 1.0, c) for c in (5.0, 7.0)]
    policy = VOPolicy("cost", "user", "relative", ua=25.0)
    check(choose_alternatives([ws, []], ["cost", "cost"], policy), Status.OPTIMAL)
    none = choose_alternatives([[], []], ["cost", "cost"], policy)
    check(none, Status.INFEASIBLE)
    assert none.choice.tolist() == [-1, -1]


# -- the multiple-choice knapsack ------------------------------------------------------------

VALUES = [[10, 2, 9], [11, 2]]
DEMANDS = [[[8, 0], [2, 0], [4, 4]], [[10, 0], [0, 1]]]


@pytest.mark.parametrize("method", ["dp", "milp"])
def test_mckp_exact(method):
    found = solve_mckp(VALUES, DEMANDS, [16, 8], method)
    check(found, Status.OPTIMAL)
    waits = solve_mckp(VALUES, DEMANDS, [1, 0], method)
    check(waits, Status.OPTIMAL)  # taking nothing is the optimum, not a failure
    assert waits.choice.tolist() == [-1, -1] and "every task waits" in waits.message


def test_mckp_heuristic_and_limit():
    check(solve_mckp(VALUES, DEMANDS, [16, 8], "greedy"), Status.FEASIBLE)
    stopped = MCKPResult(np.array([0, -1]), 10.0, "milp", 1.0, np.array([8, 0]), optimal=False)
    check(stopped, Status.LIMIT)
    assert "limit" in stopped.message


# -- solution and objective ------------------------------------------------------------------


SLOTS3 = SlotList(
    [
        Slot(0, 0.0, 100.0, 1.0, 2.0),
        Slot(1, 10.0, 100.0, 1.0, 4.0),
        Slot(2, 5.0, 60.0, 3.0, 8.0),
    ]
)


FITS3 = ResourceRequest(n=2, volume=80.0, budget=500.0)


TOO_MANY3 = ResourceRequest(n=5, volume=80.0)


@pytest.mark.parametrize(
    ("criterion", "value"),
    [
        ("amp", lambda w: w.start),
        ("min_cost", lambda w: w.cost),
        ("min_runtime", lambda w: w.runtime),
        ("min_finish", lambda w: w.finish),
        ("min_proc_time", lambda w: w.proc_time),
        ("min_runtime_substitution", lambda w: w.runtime),
        ("min_finish_substitution", lambda w: w.finish),
    ],
)
def test_a_window_search_reports_the_value_its_criterion_minimises(criterion, value):
    found = allocate_window(SLOTS3, FITS3, criterion)
    assert isinstance(found, Result) and found.success
    assert found.solution is found.window
    assert found.objective == value(found.window)
    none = allocate_window(SLOTS3, TOO_MANY3, criterion)
    assert none.solution is None and math.isnan(none.objective) and not none.success


def test_a_user_criterion_reports_its_key():
    found = window_criterion(lambda w: w.finish + 2 * w.cost)(SLOTS3, FITS3)
    assert found.objective == found.window.finish + 2 * found.window.cost


def test_every_allocator_result_names_its_solution_and_objective():
    problem = AvailabilityProblem(cost=[3, 1, 2], group=[0, 1, 2], group_p=[0.9, 0.5, 0.8], n=2)
    res = allocate_resources(problem, "exact")
    assert res.solution is res.selected and res.objective == res.probability
    scan = time_scan(
        np.array([[0.9, 0.5], [0.8, 0.9], [0.7, 0.95]]), np.array([1, 1, 1]), 2, budget=3
    )
    assert scan.solution is scan.selected and scan.objective == scan.probability
    mckp = solve_mckp([[10, 2, 9], [11, 2]], [[[8, 0], [2, 0], [4, 4]], [[10, 0], [0, 1]]], [16, 8])
    assert mckp.solution is mckp.choice and mckp.objective == mckp.value
    alts = find_alternatives(SLOTS3, FITS3, "min_cost", limit=2)
    assert alts.solution is alts.windows and math.isnan(alts.objective)
    batch = batch_alternatives(SLOTS3, [FITS3], ["min_cost"], 2)
    assert batch.solution is batch.windows and math.isnan(batch.objective)
    combo = choose_combination([[5, 7, 11, 15], [8, 12, 20]], [[0, 1, 2, 3], [0, 1, 2]], limit=2)
    assert combo.solution is combo.choice and combo.objective == combo.vo_total
    css = choose_alternatives(
        batch.windows, ["cost"], VOPolicy("cost", "user", "relative", ua=25.0)
    )
    assert css.solution is css.choice and css.objective == css.vo_total
    for result in (res, scan, mckp, alts, batch, combo, css):
        assert isinstance(result, Result) and isinstance(result.stats, dict)
