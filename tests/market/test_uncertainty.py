"""Realised interruptions of a window's tasks (vosim.market.uncertainty)."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from vosim.core.slots import Slot
from vosim.core.windows import Window
from vosim.market.chain_maths import lognormal_shapes
from vosim.market.uncertainty import (
    local_jobs_schedule,
    sample_interruptions,
    window_availability,
)
from vosim.market.utilization_schedule import UtilizationSchedule


def plain_interruption(schedule: UtilizationSchedule, node, start, end, rng) -> float:
    """Oracle: one task, its node's chains found by a scan of every membership pair."""
    c = schedule.chain_of[schedule.resource_of == node]
    first = math.inf
    if c.size:
        lo = schedule.start[c].copy()
        has_alloc = ~np.isnan(schedule.alloc_time[c])
        draw = rng.standard_normal(c.size)
        alloc = schedule.alloc_time[c] + schedule.alloc_sd[c] * draw
        lo[has_alloc] = np.minimum(lo[has_alloc], alloc[has_alloc])
        hi = schedule.end[c].copy()
        has_rel = ~np.isnan(schedule.release_time[c])
        draw = rng.standard_normal(c.size)
        if has_rel.any():
            r = np.flatnonzero(has_rel)
            median = schedule.release_time[c][r] - schedule.end[c][r]
            shape = lognormal_shapes(median, schedule.release_sd[c][r])
            hi[r] = np.maximum(hi[r], schedule.end[c][r] + median * np.exp(shape * draw[r]))
        hit = (lo < end) & (hi > start)
        if hit.any():
            first = float(max(start, lo[hit].min()))
    p = float(schedule.global_p[node])
    u, v = rng.random(), rng.random()
    if p > 0 and u < p:
        first = min(first, start + (end - start) * v)
    return first


@st.composite
def windows(draw):
    """A schedule of local jobs on m nodes and a window: distinct nodes, a start, task ends."""
    m = draw(st.integers(1, 8))
    jobs = draw(st.integers(0, 20))
    node = np.array(draw(st.lists(st.integers(0, m - 1), min_size=jobs, max_size=jobs)))
    a = np.array(draw(st.lists(st.floats(0, 1000), min_size=jobs, max_size=jobs)))
    length = np.array(draw(st.lists(st.floats(1, 400), min_size=jobs, max_size=jobs)))
    gp = np.array(draw(st.lists(st.sampled_from([0.0, 0.3, 1.0]), min_size=m, max_size=m)))
    schedule = local_jobs_schedule(m, node.astype(np.int64), a, a + length, gp)
    nodes = np.array(draw(st.permutations(range(m)))[: draw(st.integers(1, m))], dtype=np.int64)
    start = draw(st.floats(0, 1200))
    ends = start + np.array(
        draw(st.lists(st.floats(1, 500), min_size=nodes.size, max_size=nodes.size))
    )
    return schedule, nodes, start, ends


@settings(max_examples=300, deadline=None)
@given(windows(), st.integers(0, 2**32 - 1))
def test_window_draws_equal_task_by_task_draws(case, seed):
    """Same seed: the same interruption of every task, bit for bit, and the same stream after."""
    schedule, nodes, start, ends = case
    rng, plain_rng = np.random.default_rng(seed), np.random.default_rng(seed)
    got = sample_interruptions(schedule, nodes, start, ends, rng)
    want = [
        plain_interruption(schedule, k, start, e, plain_rng)
        for k, e in zip(nodes.tolist(), ends.tolist(), strict=True)
    ]
    assert got.tolist() == want
    assert rng.random() == plain_rng.random()
    assert np.all((got >= start) & ((got < ends) | np.isinf(got)))


@settings(max_examples=200, deadline=None)
@given(windows())
def test_predicted_window_availability_is_the_product_by_task_length(case):
    """Oracle: one factor per distinct task length, nodes listed slot by slot (eq. (3))."""
    schedule, nodes, start, ends = case
    ends = start + np.ceil((ends - start) / 100) * 100  # tasks of equal length share a factor
    slots = tuple(
        Slot(k, start, e, 1.0, 1.0) for k, e in zip(nodes.tolist(), ends.tolist(), strict=True)
    )
    window = Window(slots=slots, start=start, runtime=float(ends.max() - start), cost=0.0)
    want = 1.0
    for d in sorted({s.length for s in slots}):
        want *= schedule.window_availability([s.node for s in slots if s.length == d], start, d)
    assert window_availability(window, schedule) == want
