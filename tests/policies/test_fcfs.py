"""FCFS: heads start in queue order while they fit; the first that does not blocks the rest."""

from __future__ import annotations

import math

import pytest

from vosim.core import ResourceRequest, Slot, SlotList
from vosim.policies.base import CycleState, Decisions
from vosim.policies.easy import EASY
from vosim.policies.fcfs import FCFS, start_heads

BLOCKED = "FCFS: not enough free nodes now (queue head)"


def four_free_nodes() -> SlotList:
    return SlotList([Slot(k, 0.0, 100.0, 1.0, 1.0) for k in range(4)])


def state_of(queue) -> CycleState:
    return CycleState(0.0, 100.0, four_free_nodes(), queue)


QUEUE = [
    ResourceRequest(index=10, n=2, volume=10.0, budget=math.inf),  # fits: 2 of 4 nodes
    ResourceRequest(index=11, n=3, volume=10.0, budget=math.inf),  # 3 nodes, 2 left: blocks
    ResourceRequest(
        index=12, n=1, volume=10.0, budget=math.inf
    ),  # would fit, but FCFS never passes the head
]


@pytest.mark.parametrize("form", ["decide", "decide_by_nodes", "decide_by_counts"])
def test_the_first_head_that_does_not_fit_blocks_every_later_job(form):
    decisions = getattr(FCFS(), form)(state_of(QUEUE))
    assert [index for index, _ in decisions.reserve] == [10]
    ((_, window),) = decisions.reserve
    assert (window.start, window.runtime, window.cost) == (0.0, 10.0, 20.0)
    assert len(set(window.nodes)) == 2
    assert decisions.reasons[11] == BLOCKED and decisions.stats["blocked_head"] == 11
    assert 12 not in dict(decisions.reserve)


def test_easy_backfills_the_job_fcfs_leaves_waiting():
    easy = EASY().decide(state_of(QUEUE))
    assert [index for index, _ in easy.reserve] == [10, 12]


def test_start_heads_cuts_each_started_window_out_and_says_where_it_stopped():
    decisions = FCFS().decide_by_nodes(state_of([]))
    assert decisions.reserve == []
    out = Decisions()
    slots, k = start_heads(state_of(QUEUE), out)
    assert k == 1 and len(out.reserve) == 1
    used = set(out.reserve[0][1].nodes)
    assert sorted((s.node, s.start, s.end) for s in slots) == sorted(
        [(n, 10.0, 100.0) for n in used] + [(n, 0.0, 100.0) for n in range(4) if n not in used]
    )


def test_every_head_that_fits_starts_now():
    queue = [ResourceRequest(index=i, n=1, volume=5.0 * (i + 1), budget=math.inf) for i in range(4)]
    decisions = FCFS().decide(state_of(queue))
    assert [index for index, _ in decisions.reserve] == [0, 1, 2, 3]
    assert [w.runtime for _, w in decisions.reserve] == [5.0, 10.0, 15.0, 20.0]
    assert "blocked_head" not in decisions.stats and not decisions.reasons


def test_a_head_over_its_budget_blocks_as_one_without_nodes():
    queue = [
        ResourceRequest(index=20, n=2, volume=10.0, budget=19.0),
        ResourceRequest(index=21, n=1, volume=10.0, budget=math.inf),
    ]  # cost 20 > 19
    decisions = FCFS().decide(state_of(queue))
    assert decisions.reserve == []
    assert decisions.reasons[20] == BLOCKED and decisions.stats["blocked_head"] == 20


def test_nothing_waiting_decides_nothing():
    decisions = FCFS().decide(state_of([]))
    assert decisions.reserve == [] and decisions.reasons == {}
