"""FreeTime against per-resource intervals, by hand, by hypothesis and along whole runs."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vosim.agents.offers import Offers
from vosim.errors import SlotError
from vosim.market.free_time import FreeTime, pools_of
from vosim.market.profile import FreeProfile
from vosim.model import VOModel


def free_counts(free_time, pool_of, node, a, b, times):
    """Each pool's free count at each of ``times`` from per-resource busy intervals."""
    busy = np.zeros((free_time.pools, len(times)), dtype=np.int64)
    for k, t in enumerate(times):
        on = (a <= t) & (t < b)
        busy[:, k] = np.bincount(pool_of[node[on]], minlength=free_time.pools)
    return free_time.capacity[:, None] - busy


def profile_counts(free_time, times):
    """Each pool's free count at each of ``times``, read from its profile."""
    counts = []
    for p in range(free_time.pools):
        profile = free_time.profile(p)
        counts.append([profile.free_at(t) for t in times])
    return np.array(counts)


def test_pools_share_owner_performance_and_price():
    pool = pools_of([0, 0, 0, 1], [2.0, 2.0, 3.0, 2.0], [1.0, 1.0, 1.0, 1.0])
    assert pool.tolist() == [0, 0, 1, 2]
    with pytest.raises(SlotError, match="one length"):
        pools_of([0], [1.0, 2.0], [1.0])


def test_hold_and_release_by_hand():
    ft = FreeTime([0, 0, 0, 1])
    ft.hold([0, 1], 10.0, np.array([30.0, 30.0]))
    ft.hold([2], 0.0, 20.0)  # a local job
    assert ft.profile(0).steps() == [(0.0, 2), (10.0, 0), (20.0, 1), (30.0, 3)]
    ft.release(np.array([1]), 10.0, np.array([30.0]), 25.0)  # one task ends early
    assert ft.profile(0).steps() == [(0.0, 2), (10.0, 0), (20.0, 1), (25.0, 2), (30.0, 3)]
    ft.release(np.array([0]), 10.0, np.array([30.0]), 10.0)  # the whole span given back
    assert ft.profile(0).steps() == [(0.0, 2), (10.0, 1), (20.0, 2), (25.0, 3)]
    ft.release(np.array([0]), 10.0, np.array([30.0]), np.array([40.0]))  # past its end
    assert ft.profile(0).steps() == [(0.0, 2), (10.0, 1), (20.0, 2), (25.0, 3)]
    ft.hold([0, 1, 2], 5.0, [15.0, 15.0, 15.0])  # more than is free: refused when read
    with pytest.raises(SlotError, match="leave -1 of 3 processors free"):
        ft.profile(0)


def test_forget_keeps_what_is_later():
    ft = FreeTime([0, 0])
    ft.hold([0], 0.0, np.array([50.0]))
    ft.hold([1], 0.0, np.array([10.0]))
    ft.forget(20.0)
    assert ft.start == 20.0 and ft.profile(0).steps() == [(20.0, 1), (50.0, 2)]
    ft.release(np.array([0]), 0.0, np.array([50.0]), 15.0)  # freed from before the kept time
    assert ft.profile(0).steps() == [(20.0, 2)]
    ft.hold([1], 30.0, np.inf)  # held for ever
    assert ft.profile(0).steps() == [(20.0, 2), (30.0, 1)]


# random reservations on 6 resources in 3 pools, each shortened at a random time or not
reservation = st.tuples(
    st.lists(st.integers(0, 5), min_size=1, max_size=4, unique=True),
    st.integers(0, 40),  # start
    st.integers(1, 30),  # length
    st.one_of(st.none(), st.integers(0, 60)),  # its first resource's new end
    st.booleans(),  # read the profiles before the next reservation (folds the log)
)


@settings(max_examples=200, deadline=None)
@given(st.lists(reservation, max_size=12), st.one_of(st.none(), st.integers(0, 40)))
def test_counts_equal_the_intervals_they_stand_for(reservations, forget_at):
    pool_of = np.array([0, 0, 0, 1, 1, 2])
    ft = FreeTime(pool_of)
    node, a, b = [], [], []
    for resources, start, length, short, read in reservations:
        taken = list(zip(node, a, b, strict=True))
        if any(r in resources and s < start + length and start < e for r, s, e in taken):
            continue  # the resources are not free over the span: not a reservation
        ends = np.full(len(resources), float(start + length))
        ft.hold(resources, float(start), ends)
        if short is not None:
            ft.release(np.array(resources[:1]), float(start), ends[:1], float(short))
        for k, r in enumerate(resources):
            end = start + length if (short is None or k) else max(start, min(short, start + length))
            node.append(r), a.append(start), b.append(end)
        if read:
            ft.profile(0)
    times = np.arange(0, 75)
    if forget_at is not None:
        ft.forget(float(forget_at))
        times = times[times >= forget_at]
    got = profile_counts(ft, times)
    want = free_counts(ft, pool_of, np.array(node, dtype=int), np.array(a), np.array(b), times)
    np.testing.assert_array_equal(got, want)


def step_values(profile, query):
    """A profile's free count at each of ``query`` (>= its start), shape (q,)."""
    times, free = np.array(profile.times), np.array(profile.free)
    return free[np.searchsorted(times, query, side="right") - 1]


def _checked_run(every=1, **kwargs):
    """Run a model, comparing its FreeTime with the owners' schedules at every pass.

    ``every``: check one pass in this many (a local load of the interval model makes
    thousands of rows a pass).
    """
    model = VOModel(rng=1, **kwargs)
    ft = model.free_time
    prepare = Offers.prepare
    checked = [0]

    def check(self, now, until):
        prepare(self, now, until)
        checked[0] += 1
        if checked[0] % every:
            return
        node, a, b, _ = self.model.busy_time.intervals()
        live = b > now
        node, a, b = node[live], np.maximum(a[live], now), b[live]
        of = ft.pool[node]
        for p in range(ft.pools):
            mine = of == p
            ends = b[mine][np.isfinite(b[mine])]
            rows = FreeProfile.of_changes(
                int(ft.capacity[p]),
                now,
                np.concatenate([a[mine], ends]),
                np.concatenate([-np.ones(mine.sum(), int), np.ones(ends.size, int)]),
            )
            kept = ft.profile(p)
            query = np.unique([now, *rows.times, *(t for t in kept.times if t >= now)])
            np.testing.assert_array_equal(
                step_values(kept, query), step_values(rows, query), err_msg=f"pool {p} at {now}"
            )

    Offers.prepare = check
    try:
        model.run()
    finally:
        Offers.prepare = prepare
    assert checked[0] > 10 * every
    return model


@pytest.mark.parametrize(
    "kwargs",
    [
        {},  # the cyclic scheme, online local jobs displacing reservations
        {"local_priority": "preempt"},
        {"local_priority": "queue", "pricing_policy": "demand", "every": 3},
        {"local_model": "interval", "policy": "conservative"},
        {"policy": "easy", "max_alternatives": 3},
        {"availability": True, "jobs": 100, "every": 15},
    ],
)
def test_free_time_follows_the_owners_schedules(kwargs):
    model = _checked_run(**{"jobs": 200, **kwargs})
    assert (model.job_frame()["state"] == "completed").mean() > 0.5
