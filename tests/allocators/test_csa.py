"""CSA and step 1 of the cyclic scheme: alternatives disjoint in slots (AEP §3.1, VO Pref. §2)."""

from __future__ import annotations

from itertools import pairwise

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_aep import check_window, float_instances

from vosim.allocators import ResourceRequest, allocate_window
from vosim.allocators.csa import batch_alternatives, csa, find_alternatives
from vosim.core import Slot, SlotList
from vosim.errors import RequestError, UnknownAllocatorError
from vosim.market.domains import aep_domain, aep_job

CRITERIA = ("amp", "min_cost", "min_runtime", "min_finish", "min_proc_time")


def spans(windows):
    return [(s.node, s.start, s.end) for w in windows for s in w.slots]


def assert_disjoint(windows):
    by_node: dict[int, list[tuple[float, float]]] = {}
    for node, a, b in spans(windows):
        by_node.setdefault(node, []).append((a, b))
    for node, xs in by_node.items():
        xs.sort()
        for (_, b0), (a1, _) in pairwise(xs):
            assert a1 >= b0, f"two alternatives share node {node} at {a1} < {b0}"


@settings(max_examples=150, deadline=None)
@given(float_instances(), st.sampled_from(CRITERIA), st.integers(1, 6))
def test_alternatives_are_valid_and_disjoint(case, criterion, limit):
    slots, request = case
    alts = find_alternatives(slots, request, criterion, limit)
    assert alts.criterion == criterion
    assert len(alts.windows) <= limit
    for w in alts.windows:
        check_window(slots, request, w)
    assert_disjoint(alts.windows)
    # the remaining slot list is the input with every alternative cut out
    cut = slots
    for w in alts.windows:
        cut = cut.cut(w)
    assert len(cut) == len(alts.slots)
    if len(alts.windows) < limit:
        # the search ran out: nothing further fits, and the reason says why
        assert alts.reason
        assert allocate_window(alts.slots, request, criterion).window is None


def test_csa_finds_every_alternative_of_the_aep_domain():
    domain = aep_domain(np.random.default_rng(5))
    alts = csa(domain.slots, aep_job())
    assert 20 <= len(alts.windows) <= 150  # the paper: 57 on average at 100 nodes
    starts = [w.start for w in alts.windows]
    assert starts == sorted(starts)  # repeated AMP: each next window starts no earlier
    assert_disjoint(alts.windows)
    assert allocate_window(alts.slots, aep_job(), "amp").window is None
    assert csa(domain.slots, aep_job(), limit=3).windows == alts.windows[:3]


def test_batch_alternatives_round_robin_and_disjoint():
    slots = SlotList([Slot(k, 0.0, 100.0, 1.0 + k, 2.0 + k) for k in range(6)])
    requests = [ResourceRequest(n=2, time=30.0), ResourceRequest(n=1, time=50.0)]
    batch = batch_alternatives(slots, requests, ["amp", "min_cost"], max_alternatives=10)
    assert_disjoint([w for ws in batch.windows for w in ws])
    for request, ws in zip(requests, batch.windows, strict=True):
        for w in ws:
            check_window(slots, request, w)
    # job 0 gets the first window of the interval; job 1 the cheapest that is left: the rest
    # of the cheapest node 0 after job 0's window
    assert batch.windows[0][0].start == 0.0 and batch.windows[0][0].nodes == (0, 1)
    assert (batch.windows[1][0].start, batch.windows[1][0].nodes) == (30.0, (0,))
    # everything that fits was taken: no job finds another window in what is left
    for request, c in zip(requests, ["amp", "min_cost"], strict=True):
        assert allocate_window(batch.slots, request, c).window is None
    assert all(batch.reasons)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 4))
def test_batch_alternatives_respect_the_limit_and_queue_priority(seed, k):
    rng = np.random.default_rng(seed)
    domain = aep_domain(rng, nodes=30)
    requests = [
        ResourceRequest(
            n=int(rng.integers(1, 4)), volume=float(rng.integers(50, 400)), budget=2000.0
        )
        for _ in range(5)
    ]
    criteria = [str(rng.choice(CRITERIA)) for _ in requests]
    batch = batch_alternatives(domain.slots, requests, criteria, k)
    assert all(len(ws) <= k for ws in batch.windows)
    assert_disjoint([w for ws in batch.windows for w in ws])
    # the first job's first alternative is what its criterion finds in the whole slot list
    first = allocate_window(domain.slots, requests[0], criteria[0]).window
    assert (batch.windows[0][:1] or [None])[0] == first


def test_errors():
    slots = SlotList([Slot(0, 0.0, 10.0, 1.0, 1.0)])
    request = ResourceRequest(n=1, time=1.0)
    with pytest.raises(RequestError, match="limit"):
        find_alternatives(slots, request, "amp", limit=0)
    with pytest.raises(RequestError, match="max_alternatives"):
        batch_alternatives(slots, [request], ["amp"], 0)
    with pytest.raises(RequestError, match="criteria"):
        batch_alternatives(slots, [request], [], 1)
    with pytest.raises(UnknownAllocatorError, match="nope"):
        batch_alternatives(slots, [request], ["nope"], 1)
    none = find_alternatives(slots, ResourceRequest(n=2, time=1.0), "amp")
    assert none.windows == () and "node" in none.reason


def _unscreened_batch(slots, requests, criteria, limit):
    """Step 1 without any screening: every active job searched in every pass."""
    windows = [[] for _ in requests]
    active = list(range(len(requests)))
    while active:
        still = []
        for i in active:
            result = allocate_window(slots, requests[i], criteria[i])
            if result.window is None:
                continue
            windows[i].append(result.window)
            slots = slots.cut(result.window)
            if len(windows[i]) < limit:
                still.append(i)
        active = still
    return windows


@settings(max_examples=60, deadline=None)
@given(
    st.integers(0, 10_000),
    st.lists(
        st.tuples(st.integers(1, 6), st.floats(50.0, 2000.0), st.floats(100.0, 5000.0)),
        min_size=1,
        max_size=8,
    ),
    st.integers(1, 3),
    st.sampled_from(("amp", "min_cost", "min_finish")),
)
def test_screening_between_cuts_changes_no_window(seed, jobs, limit, criterion):
    """The re-screen after each cut only skips searches that would find nothing."""
    slots = aep_domain(np.random.default_rng(seed)).slots
    requests = [ResourceRequest(n=n, volume=v, budget=c) for n, v, c in jobs]
    criteria = [criterion] * len(requests)
    got = batch_alternatives(slots, requests, criteria, limit).windows
    assert got == _unscreened_batch(slots, requests, criteria, limit)
