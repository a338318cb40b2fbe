"""The batch rules' windows: the window at a start and the earliest one, a window put back
into the slot list it was cut from, and the count form's windows on identical processors."""

from __future__ import annotations

import math
import os
from unittest import mock

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from vosim.allocators.base import Window
from vosim.core import ResourceRequest, Slot, SlotList
from vosim.core.code_path import REFERENCE_ENV
from vosim.core.windows import Spans
from vosim.policies.batch_windows import (
    IdenticalSlots,
    candidate_starts,
    earliest_window,
    equal_window_cost,
    task_starts,
    window_at,
)


def _release_by_sorting(slots: SlotList, window: Window) -> SlotList:
    """The plain release: all rows and spans sorted by (node, start), touching rows joined."""
    rows = sorted(
        [(s.node, s.start, s.end, s.price, s.performance) for s in slots]
        + [(s.node, s.start, s.end, s.price, s.performance) for s in window.slots],
        key=lambda r: (r[0], r[1]),
    )
    out: list[list] = []
    for r in rows:
        if out and out[-1][0] == r[0] and r[1] <= out[-1][2]:
            out[-1][2] = max(out[-1][2], r[2])
        else:
            out.append(list(r))
    return SlotList([Slot(*r) for r in out])


@settings(max_examples=200, deadline=None)
@given(
    st.lists(  # per node: free spans of a busy timeline on a grid of 10
        st.lists(st.booleans(), min_size=1, max_size=8), min_size=1, max_size=6
    ),
    st.data(),
)
def test_release_equals_sorting_every_row(timelines, data):
    """``release`` merges only the window's nodes, and gives what sorting all rows gives; its
    compiled form (the fast path) gives the numpy form's rows."""
    from vosim.policies.batch_windows import release

    free, busy = [], []
    for node, line in enumerate(timelines):
        price, perf = 1.0 + node, 2.0 + node % 3
        for k, is_free in enumerate(line):
            step = Slot(node, 10.0 * k, 10.0 * k + 10, price, perf)
            if not is_free:
                busy.append(step)
            elif k and line[k - 1]:  # free slots are maximal: extend the previous one
                free[-1] = Slot(node, free[-1].start, step.end, price, perf)
            else:
                free.append(step)
    slots = SlotList(free)
    if not busy:
        assert len(slots) == len(free)
        return
    # a window: busy spans on distinct nodes (part of a busy step, or all of it)
    picks = data.draw(
        st.lists(st.sampled_from(busy), min_size=1, max_size=4, unique_by=lambda s: s.node)
    )
    spans = []
    for s in picks:
        a = s.start + data.draw(st.sampled_from([0.0, 2.5]))
        b = s.end - data.draw(st.sampled_from([0.0, 2.5]))
        spans.append(Slot(s.node, a, b, s.price, s.performance))
    window = Window(
        slots=tuple(sorted(spans, key=lambda s: s.node)), start=0.0, runtime=1.0, cost=1.0
    )
    got, want = release(slots, window), _release_by_sorting(slots, window)
    assert list(got) == list(want)
    assert len(list(got)) == len(want)
    with mock.patch.dict(os.environ, {REFERENCE_ENV: "1"}):  # the numpy form, row for row
        plain = release(slots, window)
    for field in ("node", "start", "end", "price", "performance"):
        assert getattr(got, field).dtype == getattr(plain, field).dtype
        assert getattr(got, field).tolist() == getattr(plain, field).tolist()


def test_count_form_windows_keep_no_view_of_the_pass():
    """A window outlives its pass (held by its job until the end of the run): its columns must
    own their data, not view the pass's processor arrays (a view kept each pass's free list
    alive: 740 MB instead of 450 MB on the whole of UniLu-Gaia)."""
    free = IdenticalSlots(0.0, 100.0, 1.0, 1.0, np.arange(64), (np.empty(0), np.empty(0)))
    window = free.take_now(ResourceRequest(index=0, n=8, volume=10.0, budget=math.inf))
    spans = window.slots
    assert isinstance(spans, Spans)
    for column in (spans.node, spans.start, spans.end, spans.price, spans.performance):
        assert column.base is None


# -- windows on a hand-made slot list -----------------------------------------------------------
# node 0 cheap and slow from 0, node 1 dear and fast from 0 to 60, node 2 cheap and slow from 30
HAND = SlotList(
    [
        Slot(0, 0.0, 100.0, 1.0, 1.0),
        Slot(1, 0.0, 60.0, 3.0, 2.0),
        Slot(2, 30.0, 100.0, 1.0, 1.0),
    ]
)


def test_window_at_takes_the_cheapest_nodes_free_long_enough():
    one = window_at(HAND, 0.0, ResourceRequest(index=0, n=1, volume=40.0, budget=1e9))
    assert one.nodes == (0,) and (one.runtime, one.cost) == (40.0, 40.0)  # 40 < 3 x 20
    two = window_at(HAND, 0.0, ResourceRequest(index=0, n=2, volume=40.0, budget=1e9))
    assert sorted(two.nodes) == [0, 1]
    assert (two.runtime, two.cost) == (40.0, 40.0 + 60.0)  # the longest task; both costs
    assert [s.end for s in sorted(two.slots, key=lambda s: s.node)] == [40.0, 20.0]
    # volume 70 from 30: nodes 0 and 2 end at 100, node 1 (free to 60) would end at 65
    assert window_at(HAND, 30.0, ResourceRequest(index=0, n=3, volume=70.0, budget=1e9)) is None
    assert window_at(HAND, 30.0, ResourceRequest(index=0, n=3, volume=60.0, budget=1e9)) is not None
    assert window_at(HAND, 0.0, ResourceRequest(index=0, n=2, volume=40.0, budget=99.0)) is None


def test_the_earliest_window_starts_where_enough_nodes_are_free():
    job = ResourceRequest(index=0, n=3, volume=40.0, budget=1e9)
    assert candidate_starts(HAND, job, 0.0).tolist() == [30.0]
    assert earliest_window(HAND, job, 0.0).start == 30.0
    assert earliest_window(HAND, job, 0.0, before=30.0) is None
    lo, hi = task_starts(HAND, job, 10.0)
    assert lo.tolist() == [10.0, 10.0, 30.0]
    np.testing.assert_allclose(hi, [60.0, 40.0, 60.0])
    assert earliest_window(HAND, job, 45.0) is None  # node 1 is gone by then


def test_a_budget_skips_to_the_first_start_it_can_pay():
    # two tasks of 40: at 0 only nodes 0 and 1 (cost 100); from 30 nodes 0 and 2 (cost 80)
    job = ResourceRequest(index=0, n=2, volume=40.0, budget=80.0)
    assert candidate_starts(HAND, job, 0.0).tolist() == [0.0, 30.0]
    window = earliest_window(HAND, job, 0.0)
    assert window.start == 30.0 and sorted(window.nodes) == [0, 2] and window.cost == 80.0


def _count_view_of_lines(pool: np.ndarray, data: st.DataObject) -> SlotList:
    """A count view of random free time: each processor free over some of 6 steps of 10."""
    from vosim.market.free_time import count_view

    free = []
    for node, p in enumerate(pool.tolist()):
        line = data.draw(st.lists(st.booleans(), min_size=1, max_size=6))
        for k, is_free in enumerate(line):
            if not is_free:
                continue
            if k and line[k - 1]:  # maximal on its processor
                free[-1] = Slot(node, free[-1].start, 10.0 * k + 10, 1.0 + p, 2.0 + p % 3)
            else:
                free.append(Slot(node, 10.0 * k, 10.0 * k + 10, 1.0 + p, 2.0 + p % 3))
    return count_view(SlotList(free), pool)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.integers(1, 3), min_size=1, max_size=5),  # each pool's processors
    st.data(),
)
def test_cut_window_relevels_only_pools_of_several_processors(sizes, data):
    """A cut out of a count view re-levels the window's pools of several processors only, and
    gives what re-levelling every pool of the window gives (a pool of one: its spans)."""
    from vosim.core.windows import distinct
    from vosim.market.free_time import count_view
    from vosim.policies.batch_windows import cut_window

    pool = np.repeat(np.arange(len(sizes)), sizes).astype(np.int64)
    view = _count_view_of_lines(pool, data)
    if not len(view):
        return
    rows = data.draw(
        st.lists(st.sampled_from(list(view)), min_size=1, max_size=3, unique_by=lambda s: s.node)
    )
    t = max(r.start for r in rows)
    rows = [r for r in rows if r.end > t]
    if not rows:
        return
    spans = [Slot(r.node, t, min(r.end, t + 5.0), r.price, r.performance) for r in rows]
    window = Window(
        slots=tuple(sorted(spans, key=lambda s: s.node)), start=t, runtime=5.0, cost=1.0
    )
    got = cut_window(view, window, pool)
    want = count_view(view.cut(window), pool, distinct(pool[window.spans.node]))
    for field in ("node", "start", "end", "price", "performance"):
        assert getattr(got, field).tolist() == getattr(want, field).tolist()


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(1, 4), min_size=1, max_size=5), st.data())
def test_cut_window_compiled_gives_the_plain_cut_and_relevel(sizes, data):
    """The one-pass cut of a count view gives the rows of the plain cut then re-levelling,
    in order, for spans anywhere inside their rows (heads and tails left or not, pools of
    one or several processors), raises the plain path's error for a span in no free row,
    and cuts spans that share a processor as the plain path does."""
    from vosim.errors import SlotError
    from vosim.policies.batch_windows import cut_window

    pool = np.repeat(np.arange(len(sizes)), sizes).astype(np.int64)
    view = _count_view_of_lines(pool, data)
    if not len(view):
        return
    rows = data.draw(st.lists(st.sampled_from(list(view)), min_size=1, max_size=6))
    share = st.sampled_from([0.0, 0.25, 0.5, 1.0])
    spans = []
    for r in rows:
        a = r.start + data.draw(share) * (r.end - r.start) * 0.5
        b = r.end - data.draw(share) * (r.end - a) * 0.5
        if data.draw(st.booleans(), label="outside") and len(spans) == 0:
            b = r.end + 5.0  # past its row: in no free slot of its node
        spans.append(Slot(r.node, a, b, r.price, r.performance))
    window = Window(slots=tuple(spans), start=min(s.start for s in spans), runtime=1.0, cost=1.0)

    def cut() -> SlotList | str:
        try:
            return cut_window(view, window, pool)
        except SlotError as error:
            return str(error)

    got = cut()
    with mock.patch.dict(os.environ, {REFERENCE_ENV: "1"}):
        want = cut()
    if isinstance(want, str) or isinstance(got, str):
        assert got == want
        return
    for field in ("node", "start", "end", "price", "performance"):
        assert getattr(got, field).dtype == getattr(want, field).dtype
        assert getattr(got, field).tolist() == getattr(want, field).tolist()


def test_cut_window_relevels_a_pool_whose_processors_each_hold_a_span():
    """Two spans on one pool of three processors: every row of the pool is re-levelled,
    including the second span's processor's rows that hold no span."""
    from vosim.market.free_time import count_view
    from vosim.policies.batch_windows import cut_window

    pool = np.array([0, 1, 1, 1], dtype=np.int64)
    free = [Slot(1, 0.0, 10.0, 2.0, 3.0), Slot(2, 20.0, 30.0, 2.0, 3.0)]
    free += [Slot(3, 0.0, 10.0, 2.0, 3.0), Slot(3, 20.0, 30.0, 2.0, 3.0)]
    view = count_view(SlotList(free), pool)  # two free in pool 1 over [0, 10) and [20, 30)
    spans = (Slot(2, 0.0, 10.0, 2.0, 3.0), Slot(1, 0.0, 10.0, 2.0, 3.0))
    got = cut_window(view, Window(slots=spans, start=0.0, runtime=10.0, cost=1.0), pool)
    assert [(s.node, s.start, s.end) for s in got] == [(1, 20.0, 30.0), (2, 20.0, 30.0)]


def test_cut_window_names_a_node_with_no_pool_on_both_paths():
    """A row or span on a processor beyond ``pool`` raises ``IndexError`` on both paths
    (the compiled pass reads no memory outside ``pool``)."""
    import pytest

    from vosim.policies.batch_windows import cut_window

    pool = np.array([0, 0], dtype=np.int64)
    free = SlotList([Slot(0, 0.0, 10.0, 1.0, 1.0), Slot(5, 0.0, 10.0, 1.0, 1.0)])
    inside = Window(slots=(Slot(0, 0.0, 5.0, 1.0, 1.0),), start=0.0, runtime=5.0, cost=5.0)
    beyond = Window(slots=(Slot(5, 0.0, 5.0, 1.0, 1.0),), start=0.0, runtime=5.0, cost=5.0)
    for window in (inside, beyond):
        for env in ({}, {REFERENCE_ENV: "1"}):
            with mock.patch.dict(os.environ, env), pytest.raises(IndexError):
                cut_window(free, window, pool)


@given(st.integers(0, 3000), st.floats(0.01, 100.0), st.floats(1.0, 1e6))
def test_equal_window_cost_is_numpys_sum_of_the_terms(n, price, task_time):
    """The n equal terms summed pairwise as numpy's sum does (not n x price x time)."""
    assert equal_window_cost(n, price, task_time) == float(np.full(n, price * task_time).sum())


def test_equal_window_cost_differs_from_the_product_in_the_last_bits():
    """Why the replay sums as window_at does: a case where the two roundings differ."""
    cases = [(n, 4.481689070338065, 0.1 * k) for n in range(2, 200) for k in range(1, 30)]
    assert any(equal_window_cost(n, p, d) != n * (p * d) for n, p, d in cases)
