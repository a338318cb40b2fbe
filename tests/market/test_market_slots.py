"""free_slots (vosim.market.slots): the free time between busy intervals, against a brute force."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from slot_cases import (
    SETTINGS,
    as_tuples,
    busy_cases,
    call_free_slots,
    reference_free_slots,
)

from vosim.core.slots import SlotList
from vosim.errors import SlotError
from vosim.market.slots import free_slots


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
