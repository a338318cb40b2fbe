"""EASY and FCFS on counts (identical processors) equal the node form, decision for decision.

The node form (``decide_by_nodes``: :func:`~vosim.policies.batch_windows.window_at`,
:func:`~vosim.policies.batch_windows.earliest_window` and slot-list cuts) is the oracle of the count
form (``decide_by_counts`` on :class:`~vosim.policies.batch_windows.IdenticalSlots`): on random slot
lists of the traced machine's form, with many ties (equal release times, jobs that end
exactly at the shadow time or at the interval's end, budgets at the window cost), both give
equal :class:`~vosim.policies.base.Decisions` (windows, processors in order, costs, reasons,
stats). Whole runs on the traced machine give equal job records either way.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from vosim.core import ResourceRequest, Slot, SlotList
from vosim.model import VOModel
from vosim.policies import batch_windows as windows
from vosim.policies.base import CycleState
from vosim.policies.batch_windows import IdenticalSlots
from vosim.policies.easy import EASY
from vosim.policies.fcfs import FCFS

SETTINGS = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def machine_states(draw, machine=True):
    """A pass on identical processors: free now from ``t`` or from a release time, to ``E``.

    ``machine=False`` sometimes breaks the form (a second price or performance, a slot that
    ends early or starts before ``t``), where the count form must decline.
    """
    big = draw(st.booleans())
    t = draw(st.sampled_from([0.0, 7.0, 1e8 + 0.1] if big else [0.0, 3.0, 100.0]))
    length = draw(st.sampled_from([10.0, 40.0, 100.0, 1e3 / 3]))
    end = t + length
    perf = draw(st.sampled_from([1.0, 2.0, 6.0, 0.7]))
    price = draw(st.sampled_from([0.0, 1.0, 2.5, 1 / 3]))
    ids = draw(st.lists(st.integers(0, 19), min_size=1, max_size=12, unique=True))
    grid = [t + x for x in (0.0, 0.0, 0.0, 1.0, 2.0, 5.0, 5.0, length / 3, length / 2)]
    slots = []
    for k in ids:
        if draw(st.integers(0, 9)) == 0:
            continue  # busy through the interval: no slot
        start = draw(st.sampled_from(grid) | st.floats(t, end, exclude_max=True))
        slots.append([k, start, end, price, perf])
    if not machine and slots and draw(st.booleans()):
        row = draw(st.sampled_from(slots))
        what = draw(st.sampled_from(["price", "perf", "end", "before"]))
        if what == "price":
            row[3] = price + 1.0
        elif what == "perf":
            row[4] = perf * 2
        elif what == "end":
            row[2] = (row[1] + end) / 2 if (row[1] + end) / 2 > row[1] else end
        else:
            row[1] = t - 1.0
    sl = SlotList([Slot(*row) for row in slots])
    queue = []
    for index in range(draw(st.integers(1, 8))):
        n = draw(st.integers(1, max(len(ids), 1) + 1))
        duration = draw(
            st.sampled_from([1.0, 2.0, 3.0, 5.0, length / 3, length / 2, length, length * 2])
            | st.floats(0.01, 2 * length)
        )
        volume = duration * perf
        cost = float(np.full(n, price * (volume / perf)).sum())
        budget = draw(
            st.sampled_from([math.inf, math.inf, cost, cost * (1 + 1e-9), cost * 0.999, 0.0])
        )
        queue.append(
            ResourceRequest(
                index=index * 3 + 1,
                n=n,
                volume=volume,
                budget=budget,
                criterion="",
                submit_time=float(index),
            )
        )
    return CycleState(t, end, sl, queue)


@SETTINGS
@given(machine_states(), st.sampled_from([EASY, FCFS]))
def test_counts_equal_nodes_on_identical_processors(state, policy_class):
    """EASY and FCFS: the count form's decisions equal the node form's, and decide uses them."""
    policy = policy_class()
    assert IdenticalSlots.of(state.slots, state.time) is not None or len(state.slots) == 0
    fast = policy.decide_by_counts(state)
    plain = policy.decide_by_nodes(state)
    if fast is not None:
        assert fast == plain
    assert policy.decide(state) == plain


@SETTINGS
@given(machine_states(machine=False))
def test_counts_decline_outside_their_form(state):
    sl, t = state.slots, state.time
    form = (
        len(sl) > 0
        and (sl.start >= t).all()
        and np.unique(sl.end).size == 1
        and np.unique(sl.price).size == 1
        and np.unique(sl.performance).size == 1
    )
    assert (IdenticalSlots.of(sl, t) is not None) == form
    for policy in (EASY(), FCFS()):
        assert policy.decide(state) == policy.decide_by_nodes(state)


def test_counts_are_used_on_valid_jobs():
    """A pass of the traced machine's form is decided on counts (not handed back)."""
    sl = SlotList([Slot(k, 0.0 if k < 3 else 4.0 + k, 100.0, 1.0, 6.0) for k in range(8)])
    queue = [
        ResourceRequest(index=0, n=5, volume=60.0, budget=math.inf),
        ResourceRequest(index=1, n=2, volume=24.0, budget=math.inf),
    ]
    state = CycleState(0.0, 100.0, sl, queue)
    fast = EASY().decide_by_counts(state)
    assert fast is not None and fast == EASY().decide_by_nodes(state)
    assert [k for k, _ in fast.reserve] == [1]  # ends by the shadow time: backfills
    assert fast.stats["shadow_time"] == 8.0


@pytest.mark.parametrize("policy", ["easy", "fcfs"])
def test_whole_runs_equal_with_the_node_form(policy, monkeypatch):
    """The job records of a traced-machine run are the same on counts and on nodes."""

    def run():
        model = VOModel(
            trace="UniLu-Gaia-2014-2", jobs=1500, machine=True, cycle_period=0, policy=policy, rng=5
        )
        model.run(replayed=False)  # the agents' passes, not the machine's compiled replay
        frame = model.job_frame()
        nodes = [
            () if model.ledger[job.index].nodes is None else tuple(model.ledger[job.index].nodes)
            for job in model.jobs
        ]
        return frame, nodes

    fast, fast_nodes = run()
    cls = EASY if policy == "easy" else FCFS
    monkeypatch.setattr(cls, "decide_by_counts", lambda self, state: None)
    plain, plain_nodes = run()
    assert fast.equals(plain)
    assert fast_nodes == plain_nodes


def test_processors_are_not_offered_off_the_machine():
    """With owners' local load or distinct nodes the count form is not offered (slots are read)."""
    model = VOModel(trace="UniLu-Gaia-2014-2", jobs=50, policy="easy", rng=3)
    assert not model.metascheduler.offers.counted


def test_a_slot_short_by_rounding_only_gets_a_span_inside_it():
    """At t = 1e8 a slot ``[t + L/2, t + L)`` is shorter than ``L/2`` by float rounding: the
    span is clipped to the slot (hypothesis found ``start + d`` past its end by 2 ulp)."""
    t, length = 1e8 + 0.1, 1e3 / 3
    mid, end = t + length / 2, t + length
    assert mid + length / 2 > end  # the rounding this test is about
    sl = SlotList([Slot(k, mid, end, 0.0, 1.0) for k in (0, 1)])
    queue = [
        ResourceRequest(
            index=1, n=2, volume=length / 2, budget=math.inf, criterion="", submit_time=0.0
        )
    ]
    state = CycleState(t, end, sl, queue)
    for policy in (EASY(), FCFS()):
        decisions = policy.decide(state)
        assert decisions == policy.decide_by_nodes(state)
    window = windows.earliest_window(sl, queue[0], t)
    assert window is not None and all(s.end <= end for s in window.slots)
    sl.cut(window.slots)  # inside the free slots: no SlotError
