"""The compiled eligibility kernel of the maximum-availability window equals its plain scan."""

import numpy as np
from alloc_strategies import instances
from hypothesis import given, settings
from hypothesis import strategies as st


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


def test_eligibility_kernel_on_a_worked_case():
    """Two slots: node 0 usable at starts 0..2, node 1 at starts 2..3; two tasks fit at 2 only."""
    from vosim.allocators import availability_kernels

    count, keep, eligible = availability_kernels.eligibility(
        np.array([0, 2]), np.array([3, 4]), np.array([0, 1]), 4, 2, 2
    )
    assert count.tolist() == [1, 1, 2, 1]
    assert keep.tolist() == [2]
    assert eligible.tolist() == [[True, True]]
