"""FreeTime against per-resource intervals, by hand, by hypothesis and along a run."""

from __future__ import annotations

import itertools
import os

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vosim.agents.offers import Offers
from vosim.core.slots import Slot, SlotList
from vosim.errors import SlotError
from vosim.market.busy_time import BusyTime
from vosim.market.free_time import FreeTime, count_view, pools_of
from vosim.market.schedule import LOCAL
from vosim.model import VOModel


def free_counts(free_time, pool_of, node, a, b, times):
    """Each pool's free count at each of ``times`` from per-resource busy intervals."""
    busy = np.zeros((free_time.pools, len(times)), dtype=np.int64)
    for k, t in enumerate(times):
        on = (a <= t) & (t < b)
        busy[:, k] = np.bincount(pool_of[node[on]], minlength=free_time.pools)
    return free_time.capacity[:, None] - busy


def profile_counts(free_time, now, times):
    """Each pool's free count at each of ``times``, read from its profile from ``now``."""
    return np.array(
        [[free_time.profile(p, now).free_at(t) for t in times] for p in range(free_time.pools)]
    )


def test_pools_share_owner_performance_and_price():
    pool = pools_of([0, 0, 0, 1], [2.0, 2.0, 3.0, 2.0], [1.0, 1.0, 1.0, 1.0])
    assert pool.tolist() == [0, 0, 1, 2]
    with pytest.raises(SlotError, match="one length"):
        pools_of([0], [1.0, 2.0], [1.0])


def test_pools_stop_at_a_nodes_bounds():
    # two nodes of one owner, performance and price: each node's processors are one pool
    pool = pools_of([0, 0, 0, 0], [2.0] * 4, [1.0] * 4, node=[0, 0, 1, 1])
    assert pool.tolist() == [0, 0, 1, 1]
    with pytest.raises(SlotError, match="node"):
        pools_of([0, 0], [1.0, 1.0], [1.0, 1.0], node=[0])


def test_the_bundled_domains_pools_are_their_nodes():
    """Gaia's pools are its nodes; LCG-2005-1's one-processor nodes are pools of one, with
    ``--owners trace`` too, so its runs take the per-processor path."""
    from vosim import VOModel

    gaia = VOModel(trace="UniLu-Gaia-2014-2", jobs=20, rng=1)
    assert gaia.free_time.counted
    assert gaia.free_time.pools == np.unique(gaia.resource_node).size
    for owners in ({}, {"owners": "trace"}):
        lcg = VOModel(trace="LCG-2005-1", jobs=20, rng=1, **owners)
        assert not lcg.free_time.counted


def schedule(resources: int) -> BusyTime:
    """An empty busy time over ``resources`` resources of one owner (price 1, performance 1)."""
    return BusyTime([0] * resources, [1.0] * resources, [1.0] * resources)


def test_counts_by_hand():
    busy = schedule(4)
    ft = FreeTime([0, 0, 0, 1], busy)
    busy.reserve([0, 1], 10.0, np.array([30.0, 30.0]), 5)
    busy.local[0].add(2, 0.0, 20.0, LOCAL)
    assert ft.profile(0, 0.0).steps() == [(0.0, 2), (10.0, 0), (20.0, 1), (30.0, 3)]
    assert ft.profile(1, 0.0).steps() == [(0.0, 1)]
    busy.release(5, [1], [25.0], 25.0)  # one task ends early
    assert ft.profile(0, 0.0).steps() == [(0.0, 2), (10.0, 0), (20.0, 1), (25.0, 2), (30.0, 3)]
    busy.release(5, [0], [10.0], 10.0)  # the whole span given back
    assert ft.profile(0, 0.0).steps() == [(0.0, 2), (10.0, 1), (20.0, 2), (25.0, 3)]
    assert ft.profile(0, 22.0).steps() == [(22.0, 2), (25.0, 3)]  # from a later time
    busy.local[0].add(3, 30.0, np.inf, LOCAL)  # held for ever
    assert ft.profile(1, 0.0).steps() == [(0.0, 1), (30.0, 0)]
    busy.reserve([0, 2], 5.0, np.array([15.0, 15.0]), 6)  # overlaps resource 2's local job
    with pytest.raises(SlotError, match="leave -1 of 3 processors free"):
        ft.profile(0, 0.0)


def test_pools_must_be_numbered_from_zero():
    with pytest.raises(SlotError, match=r"0 \.\. P-1"):
        FreeTime([0, 2], schedule(2))


# random reservations on 6 resources in 3 pools, each shortened at a random time or not
reservation = st.tuples(
    st.lists(st.integers(0, 5), min_size=1, max_size=4, unique=True),
    st.integers(0, 40),  # start
    st.integers(1, 30),  # length
    st.one_of(st.none(), st.integers(0, 60)),  # its first resource's new end
    st.booleans(),  # read the profiles before the next reservation (applies the buffers)
)


@settings(max_examples=200, deadline=None)
@given(st.lists(reservation, max_size=12), st.one_of(st.none(), st.integers(0, 40)))
def test_counts_equal_the_intervals_they_stand_for(reservations, prune_at):
    pool_of = np.array([0, 0, 0, 1, 1, 2])
    busy = schedule(6)
    ft = FreeTime(pool_of, busy)
    node, a, b = [], [], []
    for job, (resources, start, length, short, read) in enumerate(reservations):
        taken = list(zip(node, a, b, strict=True))
        if any(r in resources and s < start + length and start < e for r, s, e in taken):
            continue  # the resources are not free over the span: not a reservation
        ends = np.full(len(resources), float(start + length))
        busy.reserve(resources, float(start), ends, job)
        if short is not None:
            busy.release(job, resources[:1], [float(short)], 0.0)
        for k, r in enumerate(resources):
            end = start + length if (short is None or k) else max(start, min(short, start + length))
            node.append(r), a.append(start), b.append(end)
        if read:
            ft.profile(0, 0.0)
    now = 0.0
    if prune_at is not None:  # forgetting what ended changes no count from then on
        now = float(prune_at)
        busy.forget_ended(now, 0.0)
    times = np.arange(now, 75)
    got = profile_counts(ft, now, times)
    want = free_counts(ft, pool_of, np.array(node, dtype=int), np.array(a), np.array(b), times)
    np.testing.assert_array_equal(got, want)


def test_a_run_reads_its_pools_from_the_domains_busy_time():
    """At a pass of a whole run, every pool's count is the busy rows' count at sampled times."""
    model = VOModel(jobs=300, rng=1)
    ft = model.free_time
    assert ft.busy is model.busy_time and ft.pools < model.node_count
    seen = []

    def check(self, now, until):
        prepare(self, now, until)
        if len(seen) % 25 == 0:
            node, a, b, _ = model.busy_time.intervals()
            times = np.linspace(now, until, 7)
            got = profile_counts(ft, now, times)
            np.testing.assert_array_equal(got, free_counts(ft, ft.pool, node, a, b, times))
        seen.append(now)

    prepare = Offers.prepare
    Offers.prepare = check
    try:
        model.run()
    finally:
        Offers.prepare = prepare
    assert len(seen) > 100 and model.ledger.completed > 0


@st.composite
def pooled_slots(draw):
    """A slot list of 1-6 processors in 1-3 pools: disjoint free spans per processor."""
    size = draw(st.integers(1, 6))
    pool = draw(st.lists(st.integers(0, 2), min_size=size, max_size=size))
    price = [1.0 + p for p in pool]  # one price and performance per pool
    rows = []
    for k in range(size):
        cuts = sorted(set(draw(st.lists(st.integers(0, 30), max_size=6))))
        for t, u in zip(cuts[::2], cuts[1::2], strict=False):
            rows.append(Slot(k, float(t), float(u), price[k], price[k]))
    return SlotList(rows), np.array(pool)


def _free_ids(slots, ids, s, e):
    """The processors among ``ids`` free over all of ``[s, e)`` in ``slots``."""
    return {n for n, a, b in zip(slots.node, slots.start, slots.end, strict=True)
            if n in ids and a <= s and e <= b}  # fmt: skip


@settings(max_examples=200, deadline=None)
@given(pooled_slots(), st.integers(0, 29), st.integers(1, 15))
def test_count_view_fits_k_tasks_exactly_where_k_processors_are_free(case, s, d):
    """The count view holds each pool's free count, one span at a time per processor, and
    ``k`` of a pool's processors are free over ``[s, s + d)`` in it exactly when at least
    ``k`` are free at every time of it in the per-processor list."""
    slots, pool = case
    view = count_view(slots, pool)
    for k in set(view.node.tolist()):  # each processor's spans are disjoint
        spans = sorted(zip(view.start[view.node == k], view.end[view.node == k], strict=True))
        assert all(b <= a2 for (_, b), (a2, _) in itertools.pairwise(spans))
    assert set(view.node.tolist()) <= set(range(pool.size))
    e = s + d
    times = [t + 0.5 for t in range(31)]
    for p in set(pool.tolist()):
        ids = set(np.flatnonzero(pool == p).tolist())
        for t in times:  # the same free count at every time
            count = [sum(1 for n, a, b in zip(sl.node, sl.start, sl.end, strict=True)
                         if n in ids and a <= t < b) for sl in (slots, view)]  # fmt: skip
            assert count[0] == count[1]
        least = min(
            sum(1 for n, a, b in zip(slots.node, slots.start, slots.end, strict=True)
                if n in ids and a <= t < b)
            for t in [s, *[x for x in slots.start.tolist() + slots.end.tolist() if s < x < e]]
        )  # fmt: skip
        assert len(_free_ids(view, ids, s, e)) == least
    assert np.allclose(view.price, view.performance)  # each pool's price and performance kept


@pytest.mark.parametrize("path", ["fast", "reference"])
def test_count_view_refuses_more_free_than_a_pool_holds(path, monkeypatch):
    if path == "reference":
        monkeypatch.setenv("VOSIM_REFERENCE", "1")
    twice = SlotList.from_arrays(
        np.array([0, 0, 1]), np.array([0.0, 0.0, 1.0]), np.array([5.0, 5.0, 2.0]),
        np.ones(3), np.ones(3), validate=False,
    )  # fmt: skip
    with pytest.raises(SlotError, match="pool 0 has more processors free at once than the 1"):
        count_view(twice, np.array([0, 1]))


@settings(max_examples=200, deadline=None)
@given(pooled_slots(), st.lists(st.integers(0, 2), max_size=2), st.randoms())
def test_count_view_compiled_equals_plain(case, pools, rnd):
    """The compiled count view gives the plain one's rows (both sorted as a slot list), for
    every pool or some; with rows that overlap on a processor (a window put back on its
    processors beside a level's) too."""
    slots, pool = case
    moved = np.array([rnd.choice(np.flatnonzero(pool == pool[k]).tolist()) for k in slots.node])
    columns = [moved, slots.start, slots.end, slots.price, slots.performance]
    shuffled = SlotList.from_arrays(*[np.asarray(c) for c in columns], validate=False)
    for sl in (slots, shuffled):
        for only in (None, np.array(sorted(set(pools)), dtype=np.int64)):
            fast = count_view(sl, pool, only)
            os.environ["VOSIM_REFERENCE"] = "1"
            try:
                plain = count_view(sl, pool, only)
            finally:
                del os.environ["VOSIM_REFERENCE"]
            for f in ("node", "start", "end", "price", "performance"):
                assert getattr(fast, f).tolist() == getattr(plain, f).tolist()
