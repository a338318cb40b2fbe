"""BusyTime: the VO's reservations and each owner's local jobs, each row held once."""

from __future__ import annotations

import numpy as np
import pytest

from vosim.errors import SlotError
from vosim.market.busy_time import BusyTime
from vosim.market.schedule import LOCAL


@pytest.fixture
def busy() -> BusyTime:
    """Five resources: 0-2 of owner 0, 3-4 of owner 1."""
    return BusyTime([0, 0, 0, 1, 1], [1.0] * 5, [2.0] * 5)


def test_a_window_over_two_owners_is_one_record_each_owner_sees_its_part(busy):
    busy.reserve([2, 3], 10.0, np.array([50.0, 30.0]), 7)
    busy.local[1].add(4, 0.0, 20.0, LOCAL)
    assert busy.rows == 3  # each row once
    node, a, b, tag = busy.owner_intervals(0)
    assert (node.tolist(), a.tolist(), b.tolist(), tag.tolist()) == ([2], [10.0], [50.0], [7])
    node, _, b, tag = busy.owner_intervals(1)  # its local jobs first, then the reservations
    assert (node.tolist(), b.tolist(), tag.tolist()) == ([4, 3], [20.0, 30.0], [LOCAL, 7])
    busy.release(7, np.array([2, 3]), np.array([25.0, 10.0]), 25.0)  # one ends early, one never ran
    assert busy.owner_intervals(0)[2].tolist() == [25.0]
    assert busy.owner_intervals(1)[0].tolist() == [4]
    node, _, _, tag = busy.intervals()  # all rows: reservations, then local jobs
    assert (node.tolist(), tag.tolist()) == ([2, 4], [7, LOCAL])


def test_local_rows_are_those_of_the_resources_owners_only(busy):
    busy.local[0].add(1, 0.0, 5.0, LOCAL)
    busy.local[1].add(4, 2.0, 9.0, LOCAL)
    busy.reserve([0], 1.0, np.array([3.0]), 7)  # a reservation is no local row
    node, a, b = busy.local_rows(np.array([0, 2]))  # both of owner 0
    assert (node.tolist(), a.tolist(), b.tolist()) == ([1], [0.0], [5.0])
    rows = sorted(zip(*(c.tolist() for c in busy.local_rows(np.array([3, 0]))), strict=True))
    assert rows == [(1, 0.0, 5.0), (4, 2.0, 9.0)]  # two owners: both owners' rows
    assert [c.size for c in busy.local_rows(np.array([], dtype=np.int64))] == [0, 0, 0]
    with pytest.raises(IndexError):
        busy.local_rows(np.array([5]))


def test_changes_name_the_resources_and_all_their_rows(busy):
    """A reservation changed resource 4: its owner's local job there is among the rows read."""
    busy.local[1].add(4, 0.0, 20.0, LOCAL)
    busy.local[0].add(0, 0.0, 5.0, LOCAL)
    dirty, _ = busy.take_changes()
    assert dirty.tolist() == [0, 4]
    assert busy.take_changes()[0].size == 0  # read: the marks are cleared
    busy.reserve([4], 30.0, np.array([40.0]), 3)
    dirty, (node, a, b) = busy.take_changes()
    assert dirty.tolist() == [4]
    assert sorted(zip(node.tolist(), a.tolist(), b.tolist(), strict=True)) == [
        (4, 0.0, 20.0),
        (4, 30.0, 40.0),
    ]
    busy.reserve([0], 30.0, np.array([40.0]), 4)
    busy.clear_changes()
    assert busy.take_changes()[0].size == 0


def test_forget_ended_drops_only_what_ended(busy):
    busy.reserve([0], 0.0, np.array([10.0]), 1)
    busy.reserve([1], 0.0, np.array([30.0]), 2)
    busy.local[1].add(3, 0.0, 5.0, LOCAL)
    busy.forget_ended(20.0, 0.0)  # due at once
    node, _, b, _ = busy.intervals()
    assert (node.tolist(), b.tolist()) == ([1], [30.0])


@pytest.mark.parametrize(
    ("owner", "match"),
    [([], "non-empty"), ([0, 2], "0 .. K-1"), ([-1, 0], "0 .. K-1"), ([[0]], "1-d")],
)
def test_bad_owners_are_named(owner, match):
    n = np.asarray(owner).size
    with pytest.raises(SlotError, match=match):
        BusyTime(owner, np.ones(np.shape(owner)), np.ones(np.shape(owner)) if n else [])
