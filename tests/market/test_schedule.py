"""NodeSchedule (vosim.market.schedule): busy intervals per node, buffered, and their free slots."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from slot_cases import (
    SETTINGS,
    Q,
    as_tuples,
    busy_cases,
    reference_free_slots,
)

from vosim.errors import SlotError
from vosim.market.schedule import LOCAL, MIN_PRUNE_ROWS, NodeSchedule


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


def test_forget_ended_keeps_ended_rows_bounded_without_the_spacing():
    """During a burst, the count rule forgets ended rows with the time rule never due.

    8,192 reservations, three in four ending before the next is added: at most
    ``max(2 x the rows left running, MIN_PRUNE_ROWS)`` rows are held after each call, and at
    the end of the burst no more than half of it, so the rows each pass and each bind read
    do not grow with a burst's ended rows.
    """
    burst = 8192
    s = NodeSchedule([0, 1], [1.0, 1.0], [1.0, 1.0])
    running = 0
    for i in range(burst):
        t = float(i)
        if i % 4 == 0:
            s.add(i % 2, t, 1e9, i)
            running += 1
        else:
            s.add(i % 2, t, t + 0.5, i)
        s.forget_ended(t + 1.0)  # spacing inf: only the count rule
        assert s.rows <= max(2 * running, MIN_PRUNE_ROWS)
    assert s.rows <= burst // 2


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
        st.tuples(st.just("move"), st.integers(0, 3), st.permutations([0, 1, 2]),
                  st.integers(1, 3)),
    ),
    max_size=30,
)  # fmt: skip


@SETTINGS
@given(_OPS)
def test_node_schedule_buffers_equal_applying_each_call_at_once(ops):
    """Rows (in order) and dirty nodes after any mix of add, add_many (empty spans among
    them), shorten, prune, move and reads equal a plain list of rows changed call by call
    (a move as a shortening to nothing and an add_many of the moved spans)."""
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
        elif op[0] == "move":  # the tag's rows on the first k nodes of a permutation
            _, tag, order, k = op
            old = [q for q in order if sum(r[3] == tag and r[0] == q for r in rows) == 1][:k]
            new = [order[(order.index(q) + 1) % 3] for q in old]
            if not old:
                continue
            s.move(tag, np.array(old), np.array(new))
            held = {r[0]: r for r in rows if r[3] == tag and r[0] in old}
            rows = [r for r in rows if not (r[3] == tag and r[0] in old)]
            rows += [[q, held[p][1], held[p][2], tag] for p, q in zip(old, new, strict=True)]
            touched.update(old + new)
        else:
            node, a, b, tag = s.intervals()
            got = list(zip(node.tolist(), a.tolist(), b.tolist(), tag.tolist(), strict=True))
            assert got == [tuple(r) for r in rows]
            # every node whose busy time changed is named (others may be: nodes named)
            assert touched <= set(s.take_changed().tolist())
            assert not s.changed and s.take_changed().size == 0  # taken: forgotten
            touched = set()
    node, a, b, tag = s.intervals()
    got = list(zip(node.tolist(), a.tolist(), b.tolist(), tag.tolist(), strict=True))
    assert got == [tuple(r) for r in rows]
    assert s.rows == len(rows)
    assert touched <= set(s.take_changed().tolist())
