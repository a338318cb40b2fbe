"""Slots and slot lists: order by (start, node), clipping to a shorter interval, merging rows.

Slot validation and cuts are also tested with the owners' free slots in
``tests/market/test_slots.py``.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from vosim.core.slots import Slot, SlotList, lexsort_order, merge_rows
from vosim.errors import SlotError


@given(
    st.lists(st.tuples(st.sampled_from([0.0, 1.5, 3.0, 7.0]), st.integers(0, 40_000)), max_size=40)
)
def test_lexsort_order_is_numpys_lexsort(keys):
    start = np.array([k[0] for k in keys], dtype=float)
    node = np.array([k[1] for k in keys], dtype=np.int64)  # past int16 too
    assert lexsort_order(start, node).tolist() == np.lexsort((node, start)).tolist()
    assert lexsort_order(node, start).tolist() == np.lexsort((start, node)).tolist()


def test_from_arrays_sorts_and_checks_unless_told_not_to():
    cols = (np.array([2, 1, 0]), np.array([5.0, 0.0, 5.0]), np.array([9.0, 4.0, 6.0]))
    sl = SlotList.from_arrays(*cols, np.ones(3), np.full(3, 2.0))
    assert [(s.node, s.start) for s in sl] == [(1, 0.0), (0, 5.0), (2, 5.0)]
    assert sl.node.dtype == np.int64 and sl.start.dtype == float
    bad_end = np.array([9.0, 4.0, 5.0])  # node 0: [5, 5)
    with pytest.raises(SlotError, match=r"node=0, start=5.0, end=5.0.*end <= start"):
        SlotList.from_arrays(cols[0], cols[1], bad_end, np.ones(3), np.ones(3))
    unchecked = SlotList.from_arrays(
        cols[0], cols[1], bad_end, np.ones(3), np.ones(3), validate=False
    )
    assert len(unchecked) == 3


def test_trusted_takes_the_columns_as_they_are():
    cols = [np.array([1, 0]), np.array([3.0, 1.0]), np.array([4.0, 2.0]), np.ones(2), np.ones(2)]
    sl = SlotList.trusted(*cols)
    assert sl.node is cols[0] and sl.start.tolist() == [3.0, 1.0]  # neither sorted nor copied


def test_concat_of_nothing_is_the_empty_list():
    assert len(SlotList.concat([])) == 0
    one = SlotList([Slot(3, 1.0, 2.0, 0.0, 1.0)])
    assert list(SlotList.concat([one])) == list(one)


def test_until_clips_the_slots_that_reach_past_the_end_and_drops_later_ones():
    sl = SlotList(
        [
            Slot(0, 0.0, 100.0, 1.0, 2.0),
            Slot(1, 20.0, 40.0, 2.0, 1.0),
            Slot(2, 50.0, 60.0, 3.0, 1.0),
        ]
    )
    got = sl.until(50.0)
    assert [(s.node, s.start, s.end, s.price) for s in got] == [
        (0, 0.0, 50.0, 1.0),
        (1, 20.0, 40.0, 2.0),
    ]
    assert sl.until(100.0) is sl and sl.until(1e9) is sl  # nothing reaches past: itself
    assert len(sl.until(0.0)) == 0
    assert sl.end.tolist() == [100.0, 40.0, 60.0]  # unchanged


def test_a_cut_of_two_spans_in_one_slot_leaves_three_pieces():
    sl = SlotList([Slot(0, 0.0, 100.0, 1.0, 2.0), Slot(1, 0.0, 10.0, 1.0, 2.0)])
    got = sl.cut([Slot(0, 10.0, 20.0, 1.0, 2.0), Slot(0, 50.0, 60.0, 1.0, 2.0)])
    assert [(s.node, s.start, s.end) for s in got] == [
        (0, 0.0, 10.0),
        (1, 0.0, 10.0),
        (0, 20.0, 50.0),
        (0, 60.0, 100.0),
    ]
    with pytest.raises(SlotError, match="lies in no free slot of node 1"):
        sl.cut([Slot(1, 5.0, 15.0, 1.0, 2.0)])


@pytest.mark.parametrize("k", [1, 3, 4, 9])  # spliced (up to three rows) or gathered
def test_merge_rows_puts_each_new_row_by_start_then_node(k):
    cols = [np.array([0, 2, 0, 1]), np.array([0.0, 5.0, 10.0, 10.0]), np.arange(4.0)]
    new_node = np.array([1, 3, 0, 5, 9, 4, 1, 7, 8])[:k]
    new_start = np.array([5.0, 0.0, 5.0, 20.0, 10.0, -1.0, 12.0, 10.0, 5.0])[:k]
    extra = [new_node, new_start, 100.0 + np.arange(k)]
    order = np.lexsort((extra[0], extra[1]))
    extra = [e[order] for e in extra]
    got = merge_rows(cols, extra)
    every = [np.concatenate([c, e]) for c, e in zip(cols, extra, strict=True)]
    want = np.lexsort((every[0], every[1]))
    assert [g.tolist() for g in got] == [c[want].tolist() for c in every]
    assert got[0].dtype == np.int64


def test_merge_rows_of_nothing_returns_the_columns():
    cols = [np.array([0]), np.array([1.0])]
    assert merge_rows(cols, [np.array([], dtype=int), np.array([])]) is cols
