"""The maximum-availability window over a slot list (time scan of the VO model)."""

import itertools
import math

import numpy as np
import pytest
from alloc_strategies import instances
from hypothesis import given, settings
from hypothesis import strategies as st

from vosim.allocators import ResourceRequest
from vosim.allocators.availability_window import max_availability_window
from vosim.core import Slot, SlotList


def p_function(base, cut):
    def p_avail(duration, starts, rows):
        starts = np.asarray(starts, dtype=float)
        late = np.where(starts >= cut, 0.5, 1.0)
        return base[rows, None] * late[None, :]

    return p_avail


def brute(slots, base, cut, n, volume):
    best = 0.0
    for t in sorted({s.start for s in slots}):
        usable = {s.node for s in slots if s.start <= t and s.end - volume / s.performance >= t}
        for combo in itertools.combinations(sorted(usable), n):
            p = math.prod(base[i] for i in combo) * (0.5**n if t >= cut else 1.0)
            best = max(best, p)
    return best


@settings(max_examples=200, deadline=None)
@given(instances())
def test_unbounded_budget_matches_brute_force(case):
    slots, base, cut, n, volume = case
    result = max_availability_window(
        slots, ResourceRequest(n=n, volume=volume), p_function(base, cut)
    )
    want = brute(slots, base, cut, n, volume)
    if want == 0.0:
        assert result.window is None and result.reason
        return
    assert result.window is not None
    assert result.stats["probability"] == pytest.approx(want, rel=1e-12)
    w = result.window
    assert len(set(w.nodes)) == n
    for s in w.slots:
        assert any(f.node == s.node and f.start <= s.start and s.end <= f.end + 1e-9 for f in slots)


@settings(max_examples=200, deadline=None)
@given(instances(), st.floats(0.0, 3000.0))
def test_budget_is_always_respected(case, budget):
    slots, base, cut, n, volume = case
    result = max_availability_window(
        slots, ResourceRequest(n=n, volume=volume, budget=budget), p_function(base, cut)
    )
    if result.window is not None:
        assert result.window.cost <= budget * (1 + 1e-9)
        assert result.stats["probability"] > 0


def test_prefers_the_more_available_start():
    slots = SlotList([Slot(0, 0.0, 100.0, 1.0, 5.0), Slot(1, 0.0, 100.0, 1.0, 5.0)])

    def p_avail(duration, starts, rows):
        return np.tile(np.asarray(starts) >= 0, (len(rows), 1)) * 1.0

    result = max_availability_window(slots, ResourceRequest(n=2, volume=100.0), p_avail)
    assert result.window.start == 0.0 and result.stats["probability"] == 1.0
