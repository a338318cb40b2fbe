"""The compiled slot-list kernels give the plain numpy paths' rows, in their order.

``cut_distinct`` is :meth:`SlotList.cut` for a window's spans and ``release_window`` is
:func:`vosim.policies.batch_windows.release`; each is compared with the numpy path the
``VOSIM_REFERENCE=1`` switch runs, on hand-computed lists and on random ones. The merge both
use, ``merged_rows``, is compared with :func:`vosim.core.slots.merge_rows` on the kept rows.
"""

from __future__ import annotations

import itertools
import os
from unittest import mock

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from vosim.core.code_path import REFERENCE_ENV
from vosim.core.slot_kernels import cut_distinct, merged_rows, release_window
from vosim.core.slots import Slot, SlotList, merge_rows
from vosim.core.windows import Window
from vosim.policies.batch_windows import release

FIELDS = ("node", "start", "end", "price", "performance")
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def columns(slots: SlotList) -> tuple[np.ndarray, ...]:
    return tuple(getattr(slots, f) for f in FIELDS)


def rows(cols) -> list[tuple]:
    return list(zip(*(c.tolist() for c in cols), strict=True))


def plain(fn, *args):
    """``fn(*args)`` on the numpy path (``VOSIM_REFERENCE=1``)."""
    with mock.patch.dict(os.environ, {REFERENCE_ENV: "1"}):
        return fn(*args)


SLOTS = SlotList(
    [Slot(0, 0.0, 100.0, 1.0, 2.0), Slot(1, 10.0, 50.0, 2.0, 1.0), Slot(2, 20.0, 30.0, 3.0, 1.0)]
)


def test_cut_distinct_leaves_the_remainders_in_start_node_order():
    wnode, a, b = np.array([0, 1]), np.array([20.0, 10.0]), np.array([40.0, 30.0])
    bad, *cols = cut_distinct(*columns(SLOTS), wnode, a, b)
    assert bad == -1
    # node 0 keeps [0, 20) in its row; node 1's [10, 30) takes its slot's start: dropped;
    # the remainders [30, 50) of node 1 and [40, 100) of node 0 go after node 2's [20, 30)
    assert rows(cols) == [
        (0, 0.0, 20.0, 1.0, 2.0),
        (2, 20.0, 30.0, 3.0, 1.0),
        (1, 30.0, 50.0, 2.0, 1.0),
        (0, 40.0, 100.0, 1.0, 2.0),
    ]
    assert rows(cols) == rows(
        columns(plain(SLOTS.cut, [Slot(0, 20.0, 40.0, 1.0, 2.0), Slot(1, 10.0, 30.0, 2.0, 1.0)]))
    )


def test_cut_distinct_names_the_first_span_in_no_slot_and_returns_no_rows():
    wnode, a, b = np.array([0, 2, 1]), np.array([0.0, 25.0, 0.0]), np.array([5.0, 35.0, 5.0])
    bad, *cols = cut_distinct(*columns(SLOTS), wnode, a, b)
    assert bad == 1  # node 2's slot ends at 30
    assert all(c.size == 0 for c in cols)


def test_release_window_merges_the_spans_with_the_free_slots_they_touch():
    spans = (np.array([0]), np.array([20.0]), np.array([40.0]), np.array([1.0]), np.array([2.0]))
    cut = SLOTS.cut([Slot(0, 20.0, 40.0, 1.0, 2.0)])
    got = release_window(*columns(cut), *spans)
    assert rows(got) == rows(columns(SLOTS))  # the cut undone


@st.composite
def lists_and_windows(draw):
    """Maximal free slots of a few nodes on a grid of 10, and a window: spans on distinct
    nodes inside free slots (for a cut) and the same spans' busy complement (for a release)."""
    free, busy = [], []
    for node in range(draw(st.integers(1, 6))):
        price, perf = draw(st.sampled_from([0.0, 1.0, 2.5])), draw(st.sampled_from([1.0, 4.0]))
        line = draw(st.lists(st.booleans(), min_size=1, max_size=8))
        for k, is_free in enumerate(line):
            step = Slot(node, 10.0 * k, 10.0 * k + 10, price, perf)
            if not is_free:
                busy.append(step)
            elif k and line[k - 1]:
                free[-1] = Slot(node, free[-1].start, step.end, price, perf)
            else:
                free.append(step)
    return SlotList(free), busy, draw(st.data())


def _spans_in(draw, pool):
    picks = draw(
        st.lists(st.sampled_from(pool), min_size=1, max_size=5, unique_by=lambda s: s.node)
    )
    out = []
    for s in picks:
        a = s.start + draw(st.sampled_from([0.0, 2.5]))
        b = s.end - draw(st.sampled_from([0.0, 2.5]))
        out.append(Slot(s.node, a, b, s.price, s.performance))
    return out


@SETTINGS
@given(lists_and_windows())
def test_cut_distinct_gives_the_numpy_cuts_rows(case):
    slots, _, data = case
    if not len(slots):
        return
    spans = _spans_in(data.draw, list(slots))
    node = np.array([s.node for s in spans], dtype=np.int64)
    a = np.array([s.start for s in spans])
    b = np.array([s.end for s in spans])
    bad, *cols = cut_distinct(*columns(slots), node, a, b)
    assert bad == -1
    want = plain(slots.cut, spans)
    for got, field in zip(cols, FIELDS, strict=True):
        assert got.dtype == getattr(want, field).dtype
        assert got.tolist() == getattr(want, field).tolist()


@SETTINGS
@given(lists_and_windows())
def test_release_window_gives_the_numpy_releases_rows(case):
    slots, busy, data = case
    if not busy:
        return
    spans = sorted(_spans_in(data.draw, busy), key=lambda s: s.node)
    window = Window(slots=tuple(spans), start=0.0, runtime=1.0, cost=1.0)
    w = window.spans
    got = release_window(*columns(slots), w.node, w.start, w.end, w.price, w.performance)
    want = plain(release, slots, window)
    for col, field in zip(got, FIELDS, strict=True):
        assert col.dtype == getattr(want, field).dtype
        assert col.tolist() == getattr(want, field).tolist()


@st.composite
def rows_drops_and_extras(draw):
    """Rows in (start, node) order, a drop mask, and extra rows keyed apart from kept rows.

    Drops are dense (any row) or sparse (a few positions), so that runs of kept rows are both
    short and long.
    """
    keys = draw(st.sets(st.tuples(st.integers(0, 29), st.integers(0, 9)), max_size=200))
    keys = sorted(keys)
    if draw(st.booleans()):
        drop = np.array([draw(st.booleans()) for _ in keys], dtype=bool)
    else:
        drop = np.zeros(len(keys), dtype=bool)
        if keys:
            drop[draw(st.lists(st.integers(0, len(keys) - 1), max_size=4))] = True
    kept = {k for k, d in zip(keys, drop.tolist(), strict=True) if not d}
    free = [k for k in itertools.product(range(30), range(10)) if k not in kept]
    extra = draw(st.lists(st.sampled_from(free), unique=True, max_size=8)) if free else []
    return keys, drop, extra


def _columns_of(keys, offset):
    node = np.array([n for _, n in keys], dtype=np.int64)
    start = np.array([float(t) for t, _ in keys])
    other = [start + offset + i for i in (1.0, 2.0, 3.0)]  # end, price, performance
    return node, start, *other


@SETTINGS
@given(rows_drops_and_extras())
def test_merged_rows_is_merge_rows_on_the_kept_rows(case):
    keys, drop, extra = case
    cols = _columns_of(keys, 0.0)
    xcols = _columns_of(extra, 100.0)
    order = np.lexsort((xcols[0], xcols[1])) if extra else np.empty(0, dtype=np.int64)
    got = merged_rows(*cols, drop, *xcols, order)
    keep = ~drop
    want = merge_rows([c[keep] for c in cols], [c[order] for c in xcols])
    for g, w in zip(got, want, strict=True):
        assert g.dtype == w.dtype
        assert g.tolist() == w.tolist()


@pytest.mark.parametrize("drops, extras", [(0, 1), (3, 2), (40, 30), (600, 5)])
def test_merged_rows_on_long_lists_is_merge_rows(drops, extras):
    """Long runs of kept rows (few drops and extras), and many short ones."""
    rng = np.random.default_rng(drops + extras)
    pairs = list(itertools.product(range(300), range(10)))
    picked = np.sort(rng.choice(len(pairs), size=2000, replace=False))
    keys = [pairs[i] for i in picked]
    drop = np.zeros(len(keys), dtype=bool)
    drop[rng.choice(len(keys), size=drops, replace=False)] = True
    kept = {k for k, d in zip(keys, drop.tolist(), strict=True) if not d}
    free = [k for k in pairs if k not in kept]
    extra = [free[i] for i in rng.choice(len(free), size=extras, replace=False)]
    cols, xcols = _columns_of(keys, 0.0), _columns_of(extra, 100.0)
    order = np.lexsort((xcols[0], xcols[1]))
    got = merged_rows(*cols, drop, *xcols, order)
    want = merge_rows([c[~drop] for c in cols], [c[order] for c in xcols])
    for g, w in zip(got, want, strict=True):
        assert g.tolist() == w.tolist()


@pytest.mark.parametrize("fn", [cut_distinct, merged_rows, release_window])
def test_the_kernels_are_compiled(fn):
    assert hasattr(fn, "py_func") and hasattr(fn, "signatures")
