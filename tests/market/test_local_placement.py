"""place_local_job against a brute-force oracle of the owners' priority rules."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vosim.errors import ParameterError
from vosim.market.local_placement import LOCAL_PRIORITIES, place_local_job


@st.composite
def owners(draw):
    """An owner's processors and disjoint busy intervals on integer times."""
    m = draw(st.integers(1, 5))
    node, a, b, tag = [], [], [], []
    for k in range(m):
        t = 0
        for _ in range(draw(st.integers(0, 3))):
            t += draw(st.integers(0, 6))
            length = draw(st.integers(1, 8))
            node.append(k + 10)  # resource ids need not start at 0
            a.append(t)
            b.append(t + length)
            tag.append(draw(st.sampled_from([-3, -2, 0, 1, 2, 3])))
            t += length
    return (
        np.arange(m, dtype=np.int64) + 10,
        np.array(node, dtype=np.int64),
        np.array(a, dtype=float),
        np.array(b, dtype=float),
        np.array(tag, dtype=np.int64),
    )


def _hard(a, b, tag, now, priority):
    running = a <= now
    if priority == "queue":
        return np.ones(a.size, dtype=bool)
    if priority == "displace":
        return (tag < 0) | running
    return tag < 0


def _free(res, node, a, b, hard, start, end):
    """Processors with no hard busy time overlapping [start, end)."""
    return [k for k in res if not np.any(hard & (node == k) & (a < end) & (b > start))]


@settings(max_examples=300, deadline=None)
@given(owners(), st.integers(0, 12), st.integers(1, 4), st.integers(1, 9),
       st.sampled_from(LOCAL_PRIORITIES))  # fmt: skip
def test_placement_matches_brute_force(owner, now, size, length, priority):
    res, node, a, b, tag = owner
    p = place_local_job(res, node, a, b, tag, float(now), size, float(length), priority)
    if size > res.size:
        assert p is None
        return
    live = b > now
    hard = _hard(a, b, tag, now, priority) & live
    # no earlier (integer) start has enough processors free of hard busy time
    for t in range(now, int(p.start)):
        assert len(_free(res, node, a, b, hard, t, t + length)) < size
    free = _free(res, node, a, b, hard, p.start, p.start + length)
    assert len(free) >= size
    assert set(p.resources.tolist()) <= set(free)
    assert p.resources.size == size
    # what is in the way on the chosen processors is exactly what is displaced or killed
    soft = live & ~hard & (a < p.start + length) & (b > p.start) & np.isin(node, p.resources)
    assert set(p.displaced.tolist()) == set(tag[soft & (a > now)].tolist())
    assert set(p.killed.tolist()) == set(tag[soft & (a <= now)].tolist())
    assert priority == "preempt" or p.killed.size == 0
    assert priority != "queue" or p.displaced.size == 0
    # the local job never displaces a VO job when enough processors have nothing in the way
    clear = [
        k for k in free if not np.any(live & (node == k) & (a < p.start + length) & (b > p.start))
    ]
    if len(clear) >= size:
        assert p.displaced.size == 0 and p.killed.size == 0
    assert (
        priority == "queue"
        or p.start == now
        or len(_free(res, node, a, b, hard, now, now + length)) < size
    )


def test_displace_takes_the_latest_reservation_first():
    res = np.array([0, 1, 2])
    busy = (
        np.array([0, 1, 2]),
        np.array([20.0, 30.0, 0.0]),
        np.array([40.0, 50.0, 100.0]),
        np.array([5, 6, 7]),
    )
    p = place_local_job(res, *busy, now=10.0, size=1, length=50.0)
    assert p.start == 10.0 and p.resources.tolist() == [1] and p.displaced.tolist() == [6]


def test_queue_waits_behind_reservations():
    res = np.array([0])
    busy = (np.array([0]), np.array([20.0]), np.array([40.0]), np.array([5]))
    p = place_local_job(res, *busy, now=10.0, size=1, length=15.0, priority="queue")
    assert p.start == 40.0 and p.displaced.size == 0


def test_preempt_prefers_idle_processors():
    res = np.array([0, 1])
    busy = (np.array([0]), np.array([0.0]), np.array([100.0]), np.array([4]))
    p = place_local_job(res, *busy, now=10.0, size=1, length=5.0, priority="preempt")
    assert p.resources.tolist() == [1] and p.killed.size == 0
    p = place_local_job(res, *busy, now=10.0, size=2, length=5.0, priority="preempt")
    assert p.killed.tolist() == [4] and p.start == 10.0


def test_bad_priority_and_size():
    empty = (np.empty(0, dtype=np.int64), np.empty(0), np.empty(0), np.empty(0, dtype=np.int64))
    with pytest.raises(ParameterError, match=r"local_priority.*'x'"):
        place_local_job(np.array([0]), *empty, now=0.0, size=1, length=1.0, priority="x")
    with pytest.raises(ParameterError, match="size >= 1"):
        place_local_job(np.array([0]), *empty, now=0.0, size=0, length=1.0)
    assert place_local_job(np.array([0]), *empty, now=0.0, size=2, length=1.0) is None
