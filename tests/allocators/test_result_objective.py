"""The one result type: every allocator result is a ``Result`` with solution and objective."""

from __future__ import annotations

import math

import numpy as np
import pytest

from vosim.allocators import (
    AvailabilityProblem,
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
from vosim.allocators.mckp import solve_mckp
from vosim.core import ResourceRequest, Result, Slot, SlotList

SLOTS = SlotList(
    [
        Slot(0, 0.0, 100.0, 1.0, 2.0),
        Slot(1, 10.0, 100.0, 1.0, 4.0),
        Slot(2, 5.0, 60.0, 3.0, 8.0),
    ]
)
FITS = ResourceRequest(n=2, volume=80.0, budget=500.0)
TOO_MANY = ResourceRequest(n=5, volume=80.0)


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
    found = allocate_window(SLOTS, FITS, criterion)
    assert isinstance(found, Result) and found.success
    assert found.solution is found.window
    assert found.objective == value(found.window)
    none = allocate_window(SLOTS, TOO_MANY, criterion)
    assert none.solution is None and math.isnan(none.objective) and not none.success


def test_a_user_criterion_reports_its_key():
    found = window_criterion(lambda w: w.finish + 2 * w.cost)(SLOTS, FITS)
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
    alts = find_alternatives(SLOTS, FITS, "min_cost", limit=2)
    assert alts.solution is alts.windows and math.isnan(alts.objective)
    batch = batch_alternatives(SLOTS, [FITS], ["min_cost"], 2)
    assert batch.solution is batch.windows and math.isnan(batch.objective)
    combo = choose_combination([[5, 7, 11, 15], [8, 12, 20]], [[0, 1, 2, 3], [0, 1, 2]], limit=2)
    assert combo.solution is combo.choice and combo.objective == combo.vo_total
    css = choose_alternatives(
        batch.windows, ["cost"], VOPolicy("cost", "user", "relative", ua=25.0)
    )
    assert css.solution is css.choice and css.objective == css.vo_total
    for result in (res, scan, mckp, alts, batch, combo, css):
        assert isinstance(result, Result) and isinstance(result.stats, dict)
