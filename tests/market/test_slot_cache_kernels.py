"""The compiled parts of the slot-list cache give the rows of the numpy functions they replace.

``update_spans`` must return exactly ``merge_rows(kept rows of unmarked nodes,
free_slots(marked nodes, ...))``, and ``clipped`` the kept spans clipped to the interval and
sorted as ``SlotList`` sorts them: the same rows in the same (start, node) order.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from vosim.core.slots import SlotList, merge_rows
from vosim.market.slot_cache_kernels import clipped, update_spans
from vosim.market.slots import free_slots


def busy_rows(rng: np.random.Generator, nodes: int, ties: bool):
    """Disjoint busy intervals on each of ``nodes`` nodes, in a shuffled order."""
    rows = []
    for node in range(nodes):
        t = float(rng.choice([0.0, 5.0])) if ties else rng.uniform(0.0, 20.0)
        for _ in range(rng.integers(0, 4)):
            a = t + (float(rng.choice([0.0, 10.0])) if ties else rng.uniform(0.0, 30.0))
            b = a + (float(rng.choice([10.0, 40.0])) if ties else rng.uniform(1.0, 50.0))
            rows.append((node, a, b))
            t = b
    rng.shuffle(rows)
    if not rows:
        return np.empty(0, dtype=np.int64), np.empty(0), np.empty(0)
    node, a, b = zip(*rows, strict=True)
    return np.array(node, dtype=np.int64), np.array(a), np.array(b)


@settings(max_examples=300, deadline=None)
@given(
    seed=st.integers(0, 2**20),
    nodes=st.integers(1, 40),
    ties=st.booleans(),
    share=st.floats(0.0, 1.0),
    now=st.sampled_from([0.0, 10.0, 25.0]),
)
def test_update_is_free_slots_merged_into_the_kept_rows(seed, nodes, ties, share, now):
    rng = np.random.default_rng(seed)
    upto = now + 100.0
    ids = np.arange(nodes)
    unpriced, perf = np.zeros(nodes), np.ones(nodes)
    old = free_slots(ids, unpriced, perf, *busy_rows(rng, nodes, ties), now, upto)
    mark = rng.random(nodes) < share
    bnode, ba, bb = busy_rows(rng, nodes, ties)  # the marked nodes' new busy time
    got = update_spans(old.node, old.start, old.end, mark, bnode, ba, bb, now, upto)
    keep = ~mark[old.node]
    fresh = free_slots(np.flatnonzero(mark), unpriced, perf, bnode, ba, bb, now, upto)
    want = merge_rows(
        [old.node[keep], old.start[keep], old.end[keep]], [fresh.node, fresh.start, fresh.end]
    )
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(g, w)


def test_a_marked_node_without_busy_time_is_free_throughout():
    node, start, end = update_spans(
        np.array([0, 1]),
        np.array([0.0, 0.0]),
        np.array([5.0, 100.0]),
        np.array([True, False]),
        np.empty(0, dtype=np.int64),
        np.empty(0),
        np.empty(0),
        0.0,
        100.0,
    )
    assert node.tolist() == [0, 1] and start.tolist() == [0.0, 0.0]
    assert end.tolist() == [100.0, 100.0]


@settings(max_examples=200, deadline=None)
@given(
    seed=st.integers(0, 2**20),
    nodes=st.integers(1, 40),
    ties=st.booleans(),
    later=st.sampled_from([0.0, 5.0, 30.0]),
    length=st.sampled_from([20.0, 60.0, 200.0]),
)
def test_clipped_is_the_kept_spans_clipped_and_sorted(seed, nodes, ties, later, length):
    """Spans kept since an earlier pass, read at a later ``now`` for a shorter interval."""
    rng = np.random.default_rng(seed)
    ids = np.arange(nodes)
    kept = free_slots(
        ids, np.zeros(nodes), np.ones(nodes), *busy_rows(rng, nodes, ties), 0.0, 150.0
    )
    price, perf = rng.uniform(1.0, 2.0, nodes), rng.choice([2.0, 4.0], nodes)
    now, until = later, later + length
    got = clipped(kept.node, kept.start, kept.end, now, until, price, perf)
    start, end = np.maximum(kept.start, now), np.minimum(kept.end, until)
    live = end > start
    node = kept.node[live]
    want = SlotList.from_arrays(node, start[live], end[live], price[node], perf[node])
    for g, column in zip(got, ("node", "start", "end", "price", "performance"), strict=True):
        np.testing.assert_array_equal(g, getattr(want, column), err_msg=column)


@settings(max_examples=200, deadline=None)
@given(ids=st.lists(st.integers(0, 63), max_size=80), spare=st.integers(0, 600))
def test_by_node_is_a_stable_argsort(ids, spare):
    """Node ids few or many beside their bound (the mergesort and the counting sort): both
    give ``np.argsort(kind="stable")``'s order, repeats in their first order."""
    from vosim.market.slot_cache_kernels import _by_node

    ids = np.array(ids, dtype=np.int64)
    got = _by_node(ids, 64 + spare)
    np.testing.assert_array_equal(got, np.argsort(ids, kind="stable"))
