"""FreeProfile against a brute-force count of free processors per time unit."""

from __future__ import annotations

import math
from itertools import pairwise

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vosim.errors import SlotError
from vosim.market.profile import FreeProfile

HORIZON = 60  # integer times 0 .. HORIZON; holds end by HORIZON - 1 or never


def brute_free(capacity, held, t):
    """Processors free at integer time t given held (count, a, b) intervals."""
    return capacity - sum(c for c, a, b in held if a <= t < b)


def brute_earliest(capacity, held, count, duration, after):
    if count > capacity:
        return None
    for s in range(after, 3 * HORIZON):
        if all(brute_free(capacity, held, t) >= count for t in range(s, s + duration)):
            return float(s)
    return None  # held for ever: every finite hold ends before 3 * HORIZON


interval = st.tuples(
    st.integers(1, 4),
    st.integers(0, HORIZON - 2),
    st.integers(1, 30),
    st.booleans(),
)


@settings(max_examples=300, deadline=None)
@given(
    capacity=st.integers(1, 8),
    ops=st.lists(interval, max_size=25),
    releases=st.lists(st.integers(0, 40), max_size=12),
    query=st.tuples(st.integers(1, 9), st.integers(1, 25), st.integers(0, HORIZON)),
)
def test_profile_matches_brute_force(capacity, ops, releases, query):
    releases = releases[:capacity]
    busy = len(releases)  # busy from 0 until each release
    profile = FreeProfile.of_changes(
        capacity, 0.0, [0.0] * busy + releases, [-1] * busy + [1] * busy
    )
    held = [(1, 0, r) for r in releases]
    kept = []
    for count, a, length, forever in ops:
        b = math.inf if forever else min(a + length, HORIZON - 1)
        fits = all(brute_free(capacity, held, t) >= count for t in range(a, min(b, 2 * HORIZON)))
        if fits:
            profile.hold(count, a, b)
            held.append((count, a, b))
            kept.append((count, a, b))
        else:
            before = profile.steps()
            with pytest.raises(SlotError, match="cannot hold"):
                profile.hold(count, a, b)
            assert profile.steps() == before  # a refused hold changes nothing
    # release half of what was held: the profile is the brute count of the rest
    for count, a, b in kept[::2]:
        profile.release(count, a, b)
        held.remove((count, a, b))
    for t in range(2 * HORIZON):
        assert profile.free_at(t) == brute_free(capacity, held, t)
    steps = profile.steps()
    assert all(f0 != f1 for (_, f0), (_, f1) in pairwise(steps))  # merged
    count, duration, after = query
    assert profile.earliest(count, duration, after) == brute_earliest(
        capacity, held, count, duration, after
    )
    lo, hi = sorted((after, after + duration))
    assert profile.free_over(lo, hi) == min(brute_free(capacity, held, t) for t in range(lo, hi))


@settings(max_examples=300, deadline=None)
@given(capacity=st.integers(1, 8), ops=st.lists(interval, max_size=25), start=st.integers(0, 5))
def test_of_changes_matches_brute_force(capacity, ops, start):
    """The profile built from (time, delta) changes in any order, ties and all, as counted."""
    held = []
    for count, a, length, forever in ops:
        a = max(a, start)
        b = math.inf if forever else min(a + length, HORIZON - 1)
        if b > a and all(
            brute_free(capacity, held, t) >= count for t in range(a, min(b, 2 * HORIZON))
        ):
            held.append((count, a, b))
    at = [float(a) for _, a, _ in held] + [float(b) for _, _, b in held]
    delta = [-c for c, _, _ in held] + [c for c, _, _ in held]
    profile = FreeProfile.of_changes(capacity, float(start), at[::-1], delta[::-1])
    for t in range(start, 2 * HORIZON):
        assert profile.free_at(t) == brute_free(capacity, held, t)
    steps = profile.steps()
    assert steps[0][0] == start
    assert all(t0 < t1 and f0 != f1 for (t0, f0), (t1, f1) in pairwise(steps))  # merged


@settings(max_examples=300, deadline=None)
@given(
    capacity=st.integers(1, 8),
    ops=st.lists(interval, max_size=20),
    window=st.tuples(st.integers(0, HORIZON), st.integers(0, HORIZON), st.booleans()),
)
def test_levels_hold_every_fit(capacity, ops, window):
    """k tasks of length d fit at s exactly when the rows covering [s, s + d) hold k."""
    profile, held = FreeProfile(capacity), []
    for count, a, length, forever in ops:
        b = math.inf if forever else min(a + length, HORIZON - 1)
        if all(brute_free(capacity, held, t) >= count for t in range(a, min(b, 2 * HORIZON))):
            profile.hold(count, a, b)
            held.append((count, a, b))
    lo, width, open_ended = window
    hi = math.inf if open_ended else lo + width
    start, end, count = profile.levels(lo, hi)
    assert (start < end).all() and (count >= 1).all()
    spans = list(zip(start.tolist(), end.tolist(), strict=True))
    assert len(set(spans)) == start.size  # each span once
    assert spans == sorted(spans)
    assert (start >= lo).all() and (end <= hi).all()
    last = int(min(hi, 2 * HORIZON))
    for s in range(lo, last):
        for d in range(1, last - s + 1):
            covering = int(count[(start <= s) & (end >= s + d)].sum())
            assert covering == profile.free_over(s, s + d)


def test_forget_keeps_the_future():
    p = FreeProfile(3)
    p.hold(2, 5.0, 10.0)
    p.forget(7.0)
    assert p.steps() == [(7.0, 1), (10.0, 3)]
    with pytest.raises(SlotError, match="before the profile's start 7"):
        p.free_at(6.0)


def test_bad_input_names_the_value():
    with pytest.raises(SlotError, match="-1"):
        FreeProfile(-1)
    with pytest.raises(SlotError, match="leave -1 of 4 processors free"):
        FreeProfile.of_changes(4, 0.0, [0.0, 5.0], [-5, 5])
    with pytest.raises(SlotError, match="at 1 lies before the profile's start 2"):
        FreeProfile.of_changes(4, 2.0, [1.0], [-1])
    with pytest.raises(SlotError, match="cannot release 1 of 2"):
        FreeProfile(2).release(1, 0.0, 5.0)
    with pytest.raises(SlotError, match=r"\[5, 3\)"):
        FreeProfile(2).hold(1, 5.0, 3.0)
