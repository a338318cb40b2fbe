"""Tests of Slot, SlotList (including cut), free_slots and NodeSchedule."""

from __future__ import annotations

import dataclasses
import math
import os
from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vosim.core.code_path import REFERENCE_ENV
from vosim.core.slots import Slot, SlotList, merge_rows
from vosim.errors import SlotError, VosimError
from vosim.market.schedule import LOCAL, NodeSchedule
from vosim.market.slots import free_slots

SETTINGS = settings(max_examples=200, deadline=None)

# Coordinates are multiples of 1/4 so sums and differences are exact in float64: the cut
# property can then be checked with ==, not approximately.
Q = 4


def as_tuples(sl) -> list[tuple]:
    return [(s.node, s.start, s.end, s.price, s.performance) for s in sl]


@st.composite
def node_intervals(draw, max_count=3, lo=0, hi=400, touch=True):
    """Sorted disjoint intervals [a, b) in quarter units; touching ones allowed if ``touch``."""
    count = draw(st.integers(0, max_count))
    t = draw(st.integers(lo, lo + 40))
    out = []
    for _ in range(count):
        gap = draw(st.integers(0 if touch else 1, 40))
        length = draw(st.integers(1, 80))
        a, b = t + gap, t + gap + length
        if b > hi:
            break
        out.append((a / Q, b / Q))
        t = b
    return out


@st.composite
def slot_lists(draw, max_nodes=8, max_per_node=3):
    """Lists of valid slots: disjoint (possibly touching) slots per node, per-node attributes."""
    n_nodes = draw(st.integers(0, max_nodes))
    slots = []
    for node in draw(st.permutations(range(max_nodes)))[:n_nodes]:
        price = draw(st.integers(0, 20)) / Q
        perf = draw(st.integers(2, 10))
        for a, b in draw(node_intervals(max_per_node)):
            slots.append(Slot(node, a, b, price, float(perf)))
    return draw(st.permutations(slots))


# --------------------------------------------------------------------------------------------
# Slot


def test_slot_length_and_immutability():
    s = Slot(3, 2.5, 10.0, 1.5, 4.0)
    assert s.length == 7.5
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.start = 0.0  # type: ignore[misc]


# --------------------------------------------------------------------------------------------
# SlotList construction and validation


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


# --------------------------------------------------------------------------------------------
# SlotList.cut


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


# --------------------------------------------------------------------------------------------
# free_slots


def reference_free_slots(nodes, price, perf, busy, start, end):
    """Brute force: per node, the gaps between its sorted busy intervals clipped to the interval."""
    out = []
    for k in nodes:
        cur = start
        for a, b in sorted((a, b) for n, a, b in busy if n == k):
            a, b = max(a, start), min(b, end)
            if b <= a:
                continue  # outside [start, end)
            if a > cur:
                out.append((k, cur, a))
            cur = max(cur, b)
        if end > cur:
            out.append((k, cur, end))
    return sorted((k, a, b, float(price[k]), float(perf[k])) for k, a, b in out)


@st.composite
def busy_cases(draw):
    nodes = draw(st.lists(st.integers(0, 7), min_size=1, max_size=8, unique=True))
    price = np.asarray([draw(st.integers(0, 20)) / Q for _ in range(8)])
    perf = np.asarray([float(draw(st.integers(2, 10))) for _ in range(8)])
    busy = []
    for k in nodes:
        busy += [(k, a, b) for a, b in draw(node_intervals(max_count=5, lo=0, hi=500))]
    busy = draw(st.permutations(busy))
    start = draw(st.integers(0, 60)) / Q
    end = start + draw(st.integers(1, 120)) / Q
    return nodes, price, perf, busy, start, end


def call_free_slots(nodes, price, perf, busy, start, end):
    node = np.asarray([b[0] for b in busy], dtype=np.int64)
    a = np.asarray([b[1] for b in busy], dtype=float)
    b = np.asarray([b[2] for b in busy], dtype=float)
    return free_slots(np.asarray(nodes), price, perf, node, a, b, start, end)


@SETTINGS
@given(busy_cases())
def test_free_slots_matches_brute_force(case):
    got = call_free_slots(*case)
    assert sorted(as_tuples(got)) == reference_free_slots(*case)
    keys = [(s.start, s.node) for s in got]
    assert keys == sorted(keys)
    SlotList(list(got))  # a valid slot list (no overlap, end > start)
    # maximal: no two slots of one node touch
    for s in got:
        for t in got:
            if s.node == t.node and s != t:
                assert s.end != t.start


def test_free_slots_docstring_example():
    sl = free_slots(
        np.array([0, 1]),
        np.ones(2),
        np.full(2, 2.0),
        np.array([0]),
        np.array([10.0]),
        np.array([20.0]),
        0.0,
        100.0,
    )
    assert [(s.node, s.start, s.end) for s in sl] == [
        (0, 0.0, 10.0),
        (1, 0.0, 100.0),
        (0, 20.0, 100.0),
    ]


def test_free_slots_clipping_and_full_cover():
    nodes = np.array([0, 1, 2, 3])
    price = np.array([1.0, 2.0, 3.0, 4.0])
    perf = np.array([2.0, 3.0, 4.0, 5.0])
    busy = [
        (0, -50.0, 10.0),  # starts before the interval
        (0, 90.0, 300.0),  # ends after it
        (1, -10.0, 200.0),  # covers the whole interval: node 1 has no slot
        (2, 100.0, 150.0),  # entirely after the interval: node 2 is idle
        (3, 20.0, 30.0),
        (3, 30.0, 40.0),  # touching busy intervals leave no empty slot between them
    ]
    got = call_free_slots(nodes, price, perf, busy, 0.0, 100.0)
    assert as_tuples(got) == [
        (2, 0.0, 100.0, 3.0, 4.0),
        (3, 0.0, 20.0, 4.0, 5.0),
        (0, 10.0, 90.0, 1.0, 2.0),
        (3, 40.0, 100.0, 4.0, 5.0),
    ]


def test_free_slots_without_busy_intervals():
    empty = np.empty(0)
    got = free_slots(
        np.array([3, 1]), np.arange(4.0), np.full(4, 2.0), empty.astype(int), empty, empty, 5.0, 6.0
    )
    assert as_tuples(got) == [(1, 5.0, 6.0, 1.0, 2.0), (3, 5.0, 6.0, 3.0, 2.0)]


@pytest.mark.parametrize(("start", "end"), [(10.0, 10.0), (10.0, 5.0)])
def test_free_slots_empty_interval_raises(start, end):
    empty = np.empty(0)
    with pytest.raises(SlotError, match="end > start"):
        free_slots(
            np.array([0]), np.ones(1), np.ones(1), empty.astype(int), empty, empty, start, end
        )


def test_free_slots_ignores_busy_intervals_of_uncovered_nodes():
    # Only the nodes in ``nodes`` are covered; a busy interval of another node must not make
    # free slots appear for that node.
    got = call_free_slots([0], np.ones(3), np.ones(3), [(2, 10.0, 20.0)], 0.0, 100.0)
    assert as_tuples(got) == [(0, 0.0, 100.0, 1.0, 1.0)]


# --------------------------------------------------------------------------------------------
# NodeSchedule


def test_node_schedule_needs_nodes():
    with pytest.raises(SlotError):
        NodeSchedule([], [], [])


def test_node_schedule_docstring_example():
    s = NodeSchedule([0, 1], [1.0, 2.0], [2.0, 4.0])
    s.add(0, 10.0, 20.0, LOCAL)
    got = s.free_slots(0.0, 30.0)
    assert as_tuples(got) == [
        (0, 0.0, 10.0, 1.0, 2.0),
        (1, 0.0, 30.0, 2.0, 4.0),
        (0, 20.0, 30.0, 1.0, 2.0),
    ]


def test_node_schedule_noncontiguous_ids_keep_their_attributes():
    s = NodeSchedule([5, 2], [7.0, 3.0], [9.0, 4.0])
    s.add(5, 1.0, 2.0, 11)
    assert as_tuples(s.free_slots(0.0, 3.0)) == [
        (2, 0.0, 3.0, 3.0, 4.0),
        (5, 0.0, 1.0, 7.0, 9.0),
        (5, 2.0, 3.0, 7.0, 9.0),
    ]


def test_node_schedule_add_ignores_empty_intervals():
    s = NodeSchedule([0], [1.0], [1.0])
    s.add(0, 5.0, 5.0, LOCAL)
    s.add(0, 6.0, 4.0, 3)
    node, a, b, tag = s.intervals()
    assert node.size == a.size == b.size == tag.size == 0
    assert as_tuples(s.free_slots(0.0, 10.0)) == [(0, 0.0, 10.0, 1.0, 1.0)]


def test_node_schedule_intervals_and_buffering():
    s = NodeSchedule([0, 1], [1.0, 1.0], [1.0, 1.0])
    s.add(0, 0.0, 5.0, LOCAL)
    s.add(1, 2.0, 3.0, 7)
    node, a, b, tag = s.intervals()
    assert (node.tolist(), a.tolist(), b.tolist(), tag.tolist()) == (
        [0, 1],
        [0.0, 2.0],
        [5.0, 3.0],
        [LOCAL, 7],
    )
    assert node.dtype == np.int64 and tag.dtype == np.int64
    s.add(0, 8.0, 9.0, 8)  # added after a flush
    assert s.intervals()[0].tolist() == [0, 1, 0]
    assert as_tuples(s.free_slots(0.0, 10.0)) == [
        (1, 0.0, 2.0, 1.0, 1.0),
        (1, 3.0, 10.0, 1.0, 1.0),
        (0, 5.0, 8.0, 1.0, 1.0),
        (0, 9.0, 10.0, 1.0, 1.0),
    ]


def test_node_schedule_shorten():
    s = NodeSchedule([0, 1], [1.0, 1.0], [1.0, 1.0])
    s.add(0, 10.0, 50.0, 4)
    s.add(1, 10.0, 50.0, 4)  # same tag, other node
    s.add(0, 60.0, 80.0, 5)  # other tag, same node
    s.shorten(4, 0, 30.0)
    node, a, b, tag = s.intervals()
    assert sorted(zip(node.tolist(), a.tolist(), b.tolist(), tag.tolist(), strict=True)) == [
        (0, 10.0, 30.0, 4),
        (0, 60.0, 80.0, 5),
        (1, 10.0, 50.0, 4),
    ]
    s.shorten(4, 0, 40.0)  # never extends an interval
    assert 30.0 in s.intervals()[2].tolist() and 40.0 not in s.intervals()[2].tolist()
    assert [(x.start, x.end) for x in s.free_slots(0.0, 100.0) if x.node == 0] == [
        (0.0, 10.0),
        (30.0, 60.0),
        (80.0, 100.0),
    ]
    s.shorten(4, 0, 10.0)  # empty: dropped
    s.shorten(5, 0, 0.0)  # ends before it starts: dropped
    node, a, b, tag = s.intervals()
    assert list(zip(node.tolist(), a.tolist(), b.tolist(), tag.tolist(), strict=True)) == [
        (1, 10.0, 50.0, 4)
    ]
    assert [(x.start, x.end) for x in s.free_slots(0.0, 100.0) if x.node == 0] == [(0.0, 100.0)]
    s.shorten(99, 1, 0.0)  # unknown tag: nothing happens
    assert s.intervals()[0].tolist() == [1]


def test_node_schedule_shorten_sees_pending_rows():
    s = NodeSchedule([0], [1.0], [1.0])
    s.add(0, 10.0, 50.0, 4)
    s.shorten(4, 0, 20.0)  # without an intervals() call in between
    assert s.intervals()[2].tolist() == [20.0]


def test_node_schedule_prune():
    s = NodeSchedule([0, 1], [1.0, 1.0], [1.0, 1.0])
    s.add(0, 0.0, 10.0, LOCAL)
    s.add(0, 10.0, 20.0, 1)
    s.add(1, 5.0, 25.0, 2)
    s.prune(10.0)  # ended by 10: dropped (end == now counts as ended)
    assert sorted(s.intervals()[2].tolist()) == [20.0, 25.0]
    s.prune(19.999)
    assert sorted(s.intervals()[2].tolist()) == [20.0, 25.0]
    s.prune(100.0)
    assert s.intervals()[0].size == 0
    assert len(s.free_slots(0.0, 1.0)) == 2


@SETTINGS
@given(busy_cases(), st.integers(0, 60))
def test_node_schedule_free_slots_match_brute_force(case, now_q):
    nodes, price, perf, busy, start, end = case
    s = NodeSchedule(nodes, price[nodes], perf[nodes])
    for i, (k, a, b) in enumerate(busy):
        s.add(k, a, b, i)
    assert sorted(as_tuples(s.free_slots(start, end))) == reference_free_slots(*case)
    now = now_q / Q
    s.prune(now)
    left = [x for x in busy if x[2] > now]
    assert sorted(s.intervals()[2].tolist()) == sorted(x[2] for x in left)
    # pruning forgets only the past: free time from ``now`` on is unchanged
    if end > now:
        lo = max(start, now)
        assert sorted(as_tuples(s.free_slots(lo, end))) == reference_free_slots(
            nodes, price, perf, busy, lo, end
        )


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


@st.composite
def schedule_ops(draw):
    """Reservations (add_many), releases (shorten), prunes and reads on 3 nodes, 4 tags."""
    ops = []
    for _ in range(draw(st.integers(1, 25))):
        kind = draw(st.sampled_from(["add", "shorten", "prune", "read"]))
        tag = draw(st.integers(0, 3))
        nodes = draw(st.lists(st.integers(0, 2), min_size=1, max_size=3, unique=True))
        if kind == "add":
            a = float(draw(st.integers(0, 20)))
            ends = [a + draw(st.integers(0, 10)) for _ in nodes]
            ops.append(("add", tag, nodes, a, ends))
        elif kind == "shorten":
            ops.append(("shorten", tag, nodes, [float(draw(st.integers(0, 30))) for _ in nodes]))
        else:
            ops.append((kind, float(draw(st.integers(0, 30)))))
    return ops


@SETTINGS
@given(schedule_ops())
def test_node_schedule_buffered_shorten_equals_a_plain_list(ops):
    """Buffered adds, shorten, prune and reads do what the plain rule does on a row list."""
    s = NodeSchedule([0, 1, 2], [1.0] * 3, [1.0] * 3)
    plain: list[list] = []  # rows [node, a, b, tag]; the plain rule, no buffering
    for op in ops:
        if op[0] == "add":
            _, tag, nodes, a, ends = op
            s.add_many(nodes, a, ends, tag)
            plain += [[k, a, e, tag] for k, e in zip(nodes, ends, strict=True) if e > a]
        elif op[0] == "shorten":
            _, tag, nodes, ends = op
            s.shorten(tag, nodes, ends)
            for row in plain:  # every row of the tag on a node: min of its end and each new end
                for k, e in zip(nodes, ends, strict=True):
                    if row[3] == tag and row[0] == k:
                        row[2] = min(row[2], e)
            plain = [r for r in plain if r[2] > r[1]]
        elif op[0] == "prune":
            s.prune(op[1])
            plain = [r for r in plain if r[2] > op[1]]
        else:
            node, a, b, tag = s.intervals()
            got = zip(node.tolist(), a.tolist(), b.tolist(), tag.tolist(), strict=True)
            assert sorted(map(list, got)) == sorted(plain)
    node, a, b, tag = s.intervals()
    got = zip(node.tolist(), a.tolist(), b.tolist(), tag.tolist(), strict=True)
    assert sorted(map(list, got)) == sorted(plain)


_OPS = st.lists(
    st.one_of(
        st.tuples(st.just("add"), st.integers(0, 2), st.integers(0, 8), st.integers(0, 8),
                  st.integers(-1, 3)),
        st.tuples(st.just("add_many"), st.lists(st.integers(0, 2), min_size=1, max_size=3,
                  unique=True), st.integers(0, 8), st.lists(st.integers(0, 8), min_size=3,
                  max_size=3), st.integers(0, 3)),
        st.tuples(st.just("shorten"), st.integers(0, 3), st.lists(st.integers(0, 2),
                  min_size=1, max_size=3, unique=True), st.integers(0, 8)),
        st.tuples(st.just("prune"), st.integers(0, 8)),
        st.tuples(st.just("read"),),
    ),
    max_size=30,
)  # fmt: skip


@SETTINGS
@given(_OPS)
def test_node_schedule_buffers_equal_applying_each_call_at_once(ops):
    """Rows (in order) and dirty nodes after any mix of add, add_many (empty spans among
    them), shorten, prune and reads equal a plain list of rows changed call by call."""
    s = NodeSchedule([0, 1, 2], [1.0, 1.0, 1.0], [1.0, 1.0, 1.0])
    rows: list[list] = []  # the oracle: [node, a, b, tag], in the order added
    touched: set[int] = set()
    for op in ops:
        if op[0] == "add":
            _, k, a, b, tag = op
            s.add(k, float(a), float(b), tag)
            if b > a:
                rows.append([k, a, b, tag])
                touched.add(k)
        elif op[0] == "add_many":
            _, nodes, a, ends, tag = op
            ends = ends[: len(nodes)]
            s.add_many(np.array(nodes), float(a), np.array(ends, dtype=float), tag)
            rows += [[k, a, b, tag] for k, b in zip(nodes, ends, strict=True) if b > a]
            touched.update(k for k, b in zip(nodes, ends, strict=True) if b > a)
        elif op[0] == "shorten":
            _, tag, nodes, end = op
            s.shorten(tag, np.array(nodes), np.full(len(nodes), float(end)))
            for row in rows:
                if row[3] == tag and row[0] in nodes and end < row[2]:
                    row[2] = end
                    touched.add(row[0])
            rows = [r for r in rows if r[2] > r[1]]
        elif op[0] == "prune":
            s.prune(float(op[1]))
            rows = [r for r in rows if r[2] > op[1]]
        else:
            node, a, b, tag = s.intervals()
            got = list(zip(node.tolist(), a.tolist(), b.tolist(), tag.tolist(), strict=True))
            assert got == [tuple(r) for r in rows]
            # every node whose busy time changed is dirty (others may be: nodes named)
            assert touched <= s.dirty
            s.dirty.clear()
            touched = set()
    node, a, b, tag = s.intervals()
    got = list(zip(node.tolist(), a.tolist(), b.tolist(), tag.tolist(), strict=True))
    assert got == [tuple(r) for r in rows]
    assert s.rows == len(rows)
    assert touched <= s.dirty


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
