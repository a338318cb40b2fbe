"""The maximum-availability window over a slot list (time scan of the VO model)."""

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vosim.allocators import ResourceRequest
from vosim.allocators.availability_window import max_availability_window
from vosim.core import Slot, SlotList


@st.composite
def instances(draw):
    slots = []
    nodes = draw(st.integers(1, 5))
    for node in range(nodes):
        perf = float(draw(st.integers(2, 10)))
        price = float(draw(st.integers(1, 5)))
        t = 0.0
        for _ in range(draw(st.integers(1, 2))):
            start = t + draw(st.integers(0, 50))
            end = start + draw(st.integers(20, 200))
            slots.append(Slot(node, float(start), float(end), price, perf))
            t = end
    # availability depends on the node and on the start (a step in time)
    base = np.array([draw(st.floats(0.05, 1.0)) for _ in range(nodes)])
    cut = draw(st.integers(0, 150))
    n = draw(st.integers(1, nodes))
    volume = float(draw(st.integers(20, 300)))
    return SlotList(slots), base, cut, n, volume


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


def plain_eligibility(slots, duration, candidates, size, usable):
    """Oracle of the compiled kernel: node by node, start by start, which slot covers the task."""
    eligible = np.zeros((candidates.size, size), dtype=bool)
    for s in slots:
        if not usable[s.node]:
            continue
        for k, t in enumerate(candidates.tolist()):
            if s.start <= t and t <= s.end - duration[s.node]:
                eligible[k, s.node] = True
    return eligible, eligible.sum(axis=1)


@settings(max_examples=300, deadline=None)
@given(instances(), st.integers(2, 10), st.floats(0.5, 2.0), st.integers(1, 4))
def test_compiled_eligibility_equals_the_plain_scan(case, min_perf, stretch, n):
    from vosim.allocators.availability_window import _eligibility

    slots = case[0]
    size = int(slots.node.max()) + 1
    perf = np.ones(size)
    perf[slots.node] = slots.performance
    duration = case[4] * stretch / perf
    candidates = np.unique(slots.start)
    usable = perf >= min_perf
    count, keep, got = _eligibility(slots, duration, candidates, size, usable, n)
    want, want_count = plain_eligibility(slots, duration, candidates, size, usable)
    assert np.array_equal(count, want_count)
    assert np.array_equal(keep, np.flatnonzero(want_count >= n))
    assert np.array_equal(got, want[keep])
