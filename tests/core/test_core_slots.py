"""Slots and slot lists: order by (start, node), validation, cuts, clipping, merging rows.

The cuts are checked against the owners' free slots of the same busy intervals (the
reference free-slot oracle of ``tests/slot_cases.py``), and the compiled cut against numpy's.
"""

from __future__ import annotations

import dataclasses
import math
import os
from unittest import mock

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from slot_cases import (
    SETTINGS,
    Q,
    as_tuples,
    busy_cases,
    call_free_slots,
    reference_free_slots,
    slot_lists,
)

from vosim.core.code_path import REFERENCE_ENV
from vosim.core.slots import Slot, SlotList, lexsort_order, merge_rows
from vosim.errors import SlotError, VosimError
from vosim.market.schedule import NodeSchedule


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


def test_slot_length_and_immutability():
    s = Slot(3, 2.5, 10.0, 1.5, 4.0)
    assert s.length == 7.5
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.start = 0.0  # type: ignore[misc]


def test_slotlist_sorts_by_start_then_node():
    sl = SlotList(
        [
            Slot(2, 5.0, 6.0, 1.0, 2.0),
            Slot(1, 5.0, 9.0, 1.0, 2.0),
            Slot(0, 7.0, 8.0, 1.0, 2.0),
            Slot(3, 0.0, 1.0, 1.0, 2.0),
            Slot(0, 5.0, 6.0, 1.0, 2.0),
        ]
    )
    assert [(s.start, s.node) for s in sl] == [(0.0, 3), (5.0, 0), (5.0, 1), (5.0, 2), (7.0, 0)]
    assert sl.start.tolist() == [0.0, 5.0, 5.0, 5.0, 7.0]
    assert sl.node.tolist() == [3, 0, 1, 2, 0]
    assert sl.end.tolist() == [1.0, 6.0, 9.0, 6.0, 8.0]


@SETTINGS
@given(slot_lists())
def test_slotlist_is_sorted_permutation_of_input(slots):
    sl = SlotList(slots)
    assert len(sl) == len(slots)
    got = as_tuples(sl)
    assert sorted(got) == sorted(as_tuples(slots))
    keys = [(s[1], s[0]) for s in got]
    assert keys == sorted(keys)
    # the parallel arrays agree with the Slot objects
    assert sl.node.tolist() == [s[0] for s in got]
    assert sl.start.tolist() == [s[1] for s in got]
    assert sl.end.tolist() == [s[2] for s in got]
    assert sl.price.tolist() == [s[3] for s in got]
    assert sl.performance.tolist() == [s[4] for s in got]
    # from_arrays of the same columns in any order gives the same list
    cols = [np.asarray([t[i] for t in as_tuples(slots)]) for i in range(5)]
    if slots:
        assert as_tuples(SlotList.from_arrays(*cols)) == got


def test_slotlist_array_dtypes_and_item_types():
    sl = SlotList([Slot(1, 0, 10, 2, 3)])
    assert sl.node.dtype == np.int64
    for col in (sl.start, sl.end, sl.price, sl.performance):
        assert col.dtype == np.float64
    s = sl[0]
    assert type(s.node) is int and type(s.start) is float and type(s.price) is float
    assert s == Slot(1, 0.0, 10.0, 2.0, 3.0)


def test_empty_slotlist():
    sl = SlotList()
    assert len(sl) == 0
    assert list(sl) == []
    assert sl.node.dtype == np.int64
    assert len(SlotList([])) == 0
    assert len(SlotList.concat([])) == 0


@pytest.mark.parametrize(
    ("slot", "needle"),
    [
        (Slot(0, 5.0, 5.0, 1.0, 1.0), "end <= start"),
        (Slot(0, 5.0, 4.0, 1.0, 1.0), "end <= start"),
        (Slot(0, 0.0, 4.0, -0.5, 1.0), "negative price"),
        (Slot(0, 0.0, 4.0, math.nan, 1.0), "price"),
        (Slot(0, 0.0, 4.0, 1.0, 0.0), "performance"),
        (Slot(0, 0.0, 4.0, 1.0, -2.0), "performance"),
        (Slot(0, 0.0, 4.0, 1.0, math.nan), "performance"),
        (Slot(0, 0.0, math.inf, 1.0, 1.0), "finite"),
        (Slot(0, math.nan, 4.0, 1.0, 1.0), "finite"),
        (Slot(0, -math.inf, 4.0, 1.0, 1.0), "finite"),
    ],
)
def test_slotlist_rejects_bad_slot(slot, needle):
    good = Slot(1, 0.0, 10.0, 1.0, 1.0)
    with pytest.raises(SlotError, match=needle) as info:
        SlotList([good, slot])
    assert isinstance(info.value, ValueError) and isinstance(info.value, VosimError)
    cols = [
        np.asarray([getattr(s, f.name) for s in (good, slot)]) for f in dataclasses.fields(Slot)
    ]
    with pytest.raises(SlotError):
        SlotList.from_arrays(*cols)
    SlotList.from_arrays(*cols, validate=False)  # the caller vouches for the arrays


def test_slotlist_zero_price_allowed():
    assert SlotList([Slot(0, 0.0, 1.0, 0.0, 1.0)])[0].price == 0.0


@pytest.mark.parametrize(
    "pair",
    [
        ((0.0, 10.0), (5.0, 15.0)),  # partial overlap
        ((5.0, 15.0), (0.0, 10.0)),  # same, other input order
        ((0.0, 10.0), (2.0, 3.0)),  # containment
        ((0.0, 10.0), (0.0, 10.0)),  # identical
        ((0.0, 10.0), (0.0, 3.0)),  # same start
        ((0.0, 10.0), (9.5, 10.0)),  # same end
    ],
)
def test_slotlist_rejects_overlap_on_one_node_and_names_it(pair):
    (a1, b1), (a2, b2) = pair
    slots = [Slot(7, a1, b1, 1.0, 1.0), Slot(2, 0.0, 20.0, 1.0, 1.0), Slot(7, a2, b2, 1.0, 1.0)]
    with pytest.raises(SlotError, match="node 7"):
        SlotList(slots)


def test_slotlist_detects_overlap_hidden_behind_other_slots():
    # [0, 100) contains [60, 70); the slots between them do not overlap their neighbours' ends.
    slots = [
        Slot(4, 0.0, 100.0, 1.0, 1.0),
        Slot(4, 60.0, 70.0, 1.0, 1.0),
        Slot(1, 10.0, 20.0, 1.0, 1.0),
        Slot(1, 20.0, 30.0, 1.0, 1.0),
    ]
    with pytest.raises(SlotError, match="node 4"):
        SlotList(slots)


def test_slotlist_touching_slots_and_overlap_across_nodes_allowed():
    sl = SlotList(
        [
            Slot(0, 0.0, 10.0, 1.0, 1.0),
            Slot(0, 10.0, 20.0, 1.0, 1.0),
            Slot(1, 5.0, 15.0, 1.0, 1.0),
            Slot(2, 5.0, 15.0, 1.0, 1.0),
        ]
    )
    assert len(sl) == 4


@SETTINGS
@given(slot_lists(max_nodes=4), st.data())
def test_slotlist_rejects_any_injected_overlap(slots, data):
    slots = [s for s in slots]
    if not slots:
        return
    victim = data.draw(st.sampled_from(slots))
    # a new slot on the victim's node that shares at least a point of its interior
    a = data.draw(st.floats(victim.start - 10, victim.end, exclude_max=True))
    b = data.draw(st.floats(max(a, victim.start), victim.end + 10, exclude_min=True))
    extra = Slot(victim.node, a, b, victim.price, victim.performance)
    with pytest.raises(SlotError, match=f"node {victim.node}"):
        SlotList([*slots, extra])


def test_concat_merges_and_sorts():
    a = SlotList([Slot(0, 0.0, 5.0, 1.0, 1.0), Slot(0, 10.0, 20.0, 1.0, 1.0)])
    b = SlotList([Slot(1, 3.0, 5.0, 2.0, 2.0)])
    got = SlotList.concat([a, b])
    assert [(s.node, s.start) for s in got] == [(0, 0.0), (1, 3.0), (0, 10.0)]


def test_repr_counts_slots_and_nodes():
    sl = SlotList([Slot(0, 0.0, 1.0, 1.0, 1.0), Slot(0, 2.0, 3.0, 1.0, 1.0)])
    assert repr(sl) == "SlotList(2 slots on 1 nodes)"


def base_list() -> SlotList:
    return SlotList(
        [
            Slot(0, 0.0, 100.0, 1.0, 2.0),
            Slot(1, 50.0, 100.0, 2.0, 4.0),
            Slot(1, 100.0, 120.0, 3.0, 4.0),  # touches the previous one
        ]
    )


def test_cut_middle_leaves_two_remainders():
    sl = base_list()
    got = sl.cut([Slot(0, 20.0, 30.0, 1.0, 2.0)])
    assert as_tuples(got) == [
        (0, 0.0, 20.0, 1.0, 2.0),
        (0, 30.0, 100.0, 1.0, 2.0),
        (1, 50.0, 100.0, 2.0, 4.0),
        (1, 100.0, 120.0, 3.0, 4.0),
    ]
    assert len(sl) == 3  # the original list is unchanged
    assert as_tuples(sl) == as_tuples(base_list())


def test_cut_at_slot_start_end_and_whole():
    sl = base_list()
    assert as_tuples(sl.cut([Slot(1, 50.0, 60.0, 2.0, 4.0)]))[1:] == [
        (1, 60.0, 100.0, 2.0, 4.0),
        (1, 100.0, 120.0, 3.0, 4.0),
    ]
    assert as_tuples(sl.cut([Slot(1, 90.0, 100.0, 2.0, 4.0)]))[1:] == [
        (1, 50.0, 90.0, 2.0, 4.0),
        (1, 100.0, 120.0, 3.0, 4.0),
    ]
    # the whole slot: both remainders are empty and dropped
    assert as_tuples(sl.cut([Slot(1, 100.0, 120.0, 3.0, 4.0)])) == as_tuples(sl)[:2]


def test_cut_window_on_several_nodes_and_window_object():
    class FakeWindow:
        slots = (Slot(0, 60.0, 80.0, 1.0, 2.0), Slot(1, 60.0, 70.0, 2.0, 4.0))

    sl = base_list()
    got = sl.cut(FakeWindow())
    assert as_tuples(got) == [
        (0, 0.0, 60.0, 1.0, 2.0),
        (1, 50.0, 60.0, 2.0, 4.0),
        (1, 70.0, 100.0, 2.0, 4.0),
        (0, 80.0, 100.0, 1.0, 2.0),
        (1, 100.0, 120.0, 3.0, 4.0),
    ]
    assert as_tuples(sl.cut(FakeWindow.slots)) == as_tuples(got)
    assert len(sl.cut([])) == len(sl)


@pytest.mark.parametrize(
    "span",
    [
        Slot(0, 90.0, 110.0, 1.0, 2.0),  # sticks out of the slot's end
        Slot(1, 40.0, 60.0, 2.0, 4.0),  # starts before the slot
        Slot(1, 95.0, 105.0, 2.0, 4.0),  # across two touching slots
        Slot(2, 10.0, 20.0, 1.0, 1.0),  # a node without slots
        Slot(1, 10.0, 20.0, 2.0, 4.0),  # before the node's first slot
        Slot(1, 130.0, 140.0, 2.0, 4.0),  # after its last slot
    ],
)
def test_cut_outside_free_time_raises(span):
    with pytest.raises(SlotError, match=f"node {span.node}"):
        base_list().cut([span])


def test_cut_same_span_twice_raises():
    span = Slot(0, 20.0, 30.0, 1.0, 2.0)
    with pytest.raises(SlotError):
        base_list().cut([span, span])
    once = base_list().cut([span])
    with pytest.raises(SlotError):
        once.cut([span])


def test_cut_two_disjoint_spans_in_one_slot_equals_two_cuts():
    # Both spans lie inside the free slot [0, 100) of node 0: cutting them together must
    # equal cutting them one after the other.
    a, b = Slot(0, 10.0, 20.0, 1.0, 2.0), Slot(0, 40.0, 50.0, 1.0, 2.0)
    sl = base_list()
    expected = as_tuples(sl.cut([a]).cut([b]))
    assert expected[:3] == [
        (0, 0.0, 10.0, 1.0, 2.0),
        (0, 20.0, 40.0, 1.0, 2.0),
        (0, 50.0, 100.0, 1.0, 2.0),
    ]
    assert as_tuples(sl.cut([a, b])) == expected


@st.composite
def list_and_spans(draw):
    """A slot list and reserved spans on distinct nodes, each inside one slot of its node."""
    slots = draw(slot_lists())
    by_node: dict[int, list[Slot]] = {}
    for s in slots:
        by_node.setdefault(s.node, []).append(s)
    spans = []
    for node in draw(st.lists(st.sampled_from(sorted(by_node)), unique=True)) if by_node else []:
        host = draw(st.sampled_from(by_node[node]))
        a = draw(st.integers(int(host.start * Q), int(host.end * Q) - 1))
        b = draw(st.integers(a + 1, int(host.end * Q)))
        spans.append(Slot(node, a / Q, b / Q, host.price, host.performance))
    return SlotList(slots), spans


def overlaps(a0: float, a1: float, b0: float, b1: float) -> bool:
    return a0 < b1 and b0 < a1


@SETTINGS
@given(list_and_spans())
def test_cut_property(case):
    sl, spans = case
    got = sl.cut(spans)
    reserved = sum(s.length for s in spans)
    # total free length decreases by exactly the reserved length (exact: quarter units)
    assert float(np.sum(got.end - got.start)) == float(np.sum(sl.end - sl.start)) - reserved
    # no remaining slot overlaps a reserved span of its node
    for r in got:
        for s in spans:
            if r.node == s.node:
                assert not overlaps(r.start, r.end, s.start, s.end)
    # still a valid, sorted slot list; remainders keep their slot's price and performance
    again = SlotList(list(got))
    assert as_tuples(again) == as_tuples(got)
    attrs = {(s.node): (s.price, s.performance) for s in sl}
    assert all(attrs[r.node] == (r.price, r.performance) for r in got)
    # every remaining slot lies inside one original slot, and per node the remaining slots
    # plus the spans tile exactly the original free time
    for node in set(sl.node.tolist()):
        orig = sorted((s.start, s.end) for s in sl if s.node == node)
        rest = sorted(
            [(s.start, s.end) for s in got if s.node == node]
            + [(s.start, s.end) for s in spans if s.node == node]
        )
        assert merge(rest) == merge(orig)
        for r0, r1 in rest:
            assert any(o0 <= r0 and r1 <= o1 for o0, o1 in orig)
    # untouched nodes keep their slots verbatim
    cut_nodes = {s.node for s in spans}
    assert [t for t in as_tuples(got) if t[0] not in cut_nodes] == [
        t for t in as_tuples(sl) if t[0] not in cut_nodes
    ]


def merge(intervals: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """Union of sorted intervals as maximal disjoint intervals (touching ones merged)."""
    out: list[list[float]] = []
    for a, b in intervals:
        if out and a <= out[-1][1]:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return [(a, b) for a, b in out]


@SETTINGS
@given(list_and_spans(), st.data())
def test_cut_rejects_span_sticking_out(case, data):
    sl, spans = case
    if not spans:
        return
    s = data.draw(st.sampled_from(spans))
    # the only slot of the node holding s.start; a span past its end lies in no single slot,
    # even when the next slot touches it
    (host_end,) = [x.end for x in sl if x.node == s.node and x.start <= s.start < x.end]
    end = host_end + data.draw(st.integers(1, 40)) / Q
    bad = Slot(s.node, s.start, end, s.price, s.performance)
    with pytest.raises(SlotError):
        sl.cut([bad])


@SETTINGS
@given(busy_cases(), st.data())
def test_cut_keeps_start_node_order_like_a_full_sort(case, data):
    nodes, price, perf, busy, start, end = case
    s = NodeSchedule(nodes, price[nodes], perf[nodes])
    for i, (k, a, b) in enumerate(busy):
        s.add(k, a, b, i)
    sl = s.free_slots(start, end)
    if len(sl) == 0:
        return
    # one span per node, inside a slot of that node (a window's shape)
    picks = data.draw(st.lists(st.integers(0, len(sl) - 1), min_size=1, max_size=4, unique=True))
    spans, seen = [], set()
    for i in picks:
        slot = sl[i]
        if slot.node in seen:
            continue
        seen.add(slot.node)
        lo = data.draw(st.floats(slot.start, slot.end))
        hi = data.draw(st.floats(lo, slot.end))
        if hi > lo:
            spans.append(Slot(slot.node, lo, hi, slot.price, slot.performance))
    got = sl.cut(spans)
    again = SlotList.from_arrays(got.node, got.start, got.end, got.price, got.performance)
    for f in ("node", "start", "end", "price", "performance"):
        assert np.array_equal(getattr(got, f), getattr(again, f))


@SETTINGS
@given(slot_lists(max_nodes=12, max_per_node=4), st.data())
def test_merge_rows_equals_sorting_all_rows(slots, data):
    # any split of a slot list into kept rows and new rows merges back into the sorted list;
    # many nodes and slots reach both the splice path (few new rows) and the gather path
    sl = SlotList(slots)
    new = np.array(data.draw(st.lists(st.booleans(), min_size=len(sl), max_size=len(sl))), bool)
    columns = [sl.node, sl.start, sl.end, sl.price, sl.performance]
    merged = merge_rows([c[~new] for c in columns], [c[new] for c in columns])
    for got, want in zip(merged, columns, strict=True):
        np.testing.assert_array_equal(got, want)
        assert got.dtype == want.dtype


@SETTINGS
@given(busy_cases(), st.integers(0, 200))
def test_until_gives_the_free_slots_of_the_shorter_interval(case, cut_q):
    # a job's own interval [start, end') is the owners' free time over it, from the busy
    # intervals themselves: the oracle of SlotList.until on the longer interval's list
    nodes, price, perf, busy, start, end = case
    shorter = start + cut_q / Q
    got = call_free_slots(*case).until(shorter)
    if shorter <= start:
        assert len(got) == 0
        return
    expected = reference_free_slots(nodes, price, perf, busy, start, min(shorter, end))
    assert sorted(as_tuples(got)) == expected
    keys = [(s.start, s.node) for s in got]
    assert keys == sorted(keys)


@SETTINGS
@given(list_and_spans())
def test_the_compiled_cut_gives_the_numpy_rows(case):
    """The compiled cut (the fast path) gives the plain numpy cut's rows, in its order, with
    its dtypes."""
    sl, spans = case
    fast = sl.cut(spans)
    with mock.patch.dict(os.environ, {REFERENCE_ENV: "1"}):
        plain = sl.cut(spans)
    for field in ("node", "start", "end", "price", "performance"):
        assert getattr(fast, field).dtype == getattr(plain, field).dtype
        assert getattr(fast, field).tolist() == getattr(plain, field).tolist()
