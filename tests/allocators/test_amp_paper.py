"""The paper's AMP (first n parallel slots within budget) and the paper's CSA (AEP §2.2, §3.1).

``amp_paper`` is checked on hand-made slot lists and against an independent brute-force
oracle that runs the pseudocode of AEP §2.1 slot by slot and, at each step, tries every
``n``-subset of the window in scan order (``itertools.combinations`` yields them in
lexicographic order), in exact arithmetic (integer prices and bounds, task times
``V / p`` exact for ``p`` in {1, 2, 4, 8}).
"""

from __future__ import annotations

import math
from itertools import combinations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_aep import check_window, durations, float_instances
from test_csa import assert_disjoint

from vosim.allocators import ResourceRequest, allocate_window, criteria
from vosim.allocators.aep import amp, amp_paper
from vosim.allocators.csa import CSA_SEARCHES, csa, csa_paper, find_alternatives
from vosim.core import Slot, SlotList
from vosim.core.results import Status
from vosim.errors import UnknownAllocatorError
from vosim.market.domains import aep_domain, aep_job

RTOL = 1e-9  # aep.BUDGET_RTOL


def dear_first(*prices: float, start: float = 0.0) -> SlotList:
    """Nodes 0, 1, ... free on [start, 100) at the given prices, performance 2."""
    return SlotList([Slot(k, start, 100.0, p, 2.0) for k, p in enumerate(prices)])


# -- hand-made cases -------------------------------------------------------------------------


def test_registered_beside_amp():
    assert {"amp", "amp_paper"} <= set(criteria())
    result = allocate_window(dear_first(3.0, 1.0, 1.0), ResourceRequest(n=2, time=10.0))
    assert result.criterion == "amp"  # the default is still vosim's AMP


def test_first_n_slots_not_the_cheapest():
    slots = dear_first(3.0, 1.0, 1.0)  # costs 30, 10, 10 for a task of 10
    job = ResourceRequest(n=2, time=10.0, budget=40.0)
    paper = amp_paper(slots, job)
    assert paper.criterion == "amp_paper" and paper.status is Status.FEASIBLE
    assert paper.window.nodes == (0, 1)  # the first two in scan order, cost 40 <= 40
    assert paper.window.cost == 40.0
    assert amp(slots, job).window.nodes == (1, 2)  # vosim's: the two cheapest, cost 20
    check_window(slots, job, paper.window)


def test_budget_forces_skipping_only_what_it_must():
    # costs 30, 10, 25, 10: the first two (40) exceed C = 35; slot 0 fits with no other slot,
    # so it is skipped; slot 1 is taken, and slot 2 still fits beside it (35 <= 35)
    slots = dear_first(3.0, 1.0, 2.5, 1.0)
    job = ResourceRequest(n=2, time=10.0, budget=35.0)
    window = amp_paper(slots, job).window
    assert window.nodes == (1, 2) and window.cost == 35.0
    assert amp(slots, job).window.nodes == (1, 3)
    # a budget of 30 also skips slot 2
    assert amp_paper(slots, ResourceRequest(n=2, time=10.0, budget=30.0)).window.nodes == (1, 3)


def test_stops_at_the_slot_that_closes_the_window():
    # node 0 is free from 0 (dear), nodes 1-3 from 5; at t = 5 the slots join in node order
    slots = SlotList(
        [
            Slot(0, 0.0, 100.0, 3.0, 2.0),
            Slot(1, 5.0, 100.0, 1.0, 2.0),
            Slot(2, 5.0, 100.0, 1.0, 2.0),
            Slot(3, 5.0, 100.0, 0.5, 2.0),
        ]
    )
    loose = amp_paper(slots, ResourceRequest(n=2, time=10.0, budget=40.0))
    assert (loose.window.start, loose.window.nodes) == (5.0, (0, 1))
    assert loose.stats["step"] == 1  # node 1's slot closed it; node 3's never joined
    tight = amp_paper(slots, ResourceRequest(n=2, time=10.0, budget=20.0))
    assert (tight.window.start, tight.window.nodes) == (5.0, (1, 2))
    assert tight.stats["step"] == 2
    # vosim's AMP looks at every slot of t = 5 and takes the cheapest two
    assert amp(slots, ResourceRequest(n=2, time=10.0, budget=20.0)).window.nodes == (1, 3)


def test_slots_too_short_from_the_new_start_leave_the_window():
    # node 0 cannot host the task from 50 (ends at 55); nodes 1 and 2 arrive at 50
    slots = SlotList(
        [
            Slot(0, 0.0, 55.0, 1.0, 2.0),
            Slot(1, 50.0, 100.0, 1.0, 2.0),
            Slot(2, 50.0, 100.0, 1.0, 2.0),
        ]
    )
    window = amp_paper(slots, ResourceRequest(n=2, time=10.0)).window
    assert (window.start, window.nodes) == (50.0, (1, 2))


@pytest.mark.parametrize(
    ("slots", "job", "reason"),
    [
        (dear_first(3.0, 1.0), ResourceRequest(n=2, time=10.0, budget=39.0), "budget"),
        (dear_first(1.0), ResourceRequest(n=2, time=10.0), "only 1 node"),
        (dear_first(1.0, 1.0, start=95.0), ResourceRequest(n=2, time=10.0), "node"),
        (
            SlotList([Slot(0, 0.0, 20.0, 1.0, 2.0), Slot(1, 30.0, 50.0, 1.0, 2.0)]),
            ResourceRequest(n=2, time=10.0),
            "no 2 concurrent slots",
        ),
    ],
)
def test_no_window(slots, job, reason):
    result = amp_paper(slots, job)
    assert result.window is None and result.status is Status.INFEASIBLE
    assert reason in result.reason
    assert result.reason == amp(slots, job).reason


# -- brute-force oracle ----------------------------------------------------------------------


def oracle(slots: SlotList, request: ResourceRequest) -> tuple[float, tuple[int, ...]] | None:
    """AEP §2.1's scan with AMP's window: the first n-subset in scan order within budget.

    Slot by slot in list order: a slot of enough performance joins the window, the window's
    start becomes its start, slots too short from there leave; at the first step where some
    ``n`` slots of the window fit the budget, the first such subset in lexicographic order
    of the window (the order the slots joined) is the answer: ``(start, nodes)``.
    """
    window: list[Slot] = []
    for slot in slots:
        if slot.performance < request.min_performance:
            continue
        window.append(slot)
        t = slot.start
        window = [s for s in window if s.end - t >= durations(request, s.performance)]
        for subset in combinations(window, request.n):
            cost = sum(s.price * durations(request, s.performance) for s in subset)
            if cost <= request.budget * (1 + RTOL):
                return t, tuple(sorted(s.node for s in subset))
    return None


@st.composite
def exact_instances(draw):
    """Slot lists on up to 7 nodes with integer bounds and prices; exact task times.

    ``n`` may exceed the nodes (no window); ``V / p`` is exact for ``V = 8 k``.
    """
    n_nodes = draw(st.integers(1, 7))
    # crowded: every node's first slot starts at 0 or 5, so windows hold more than n slots
    crowded = draw(st.booleans())
    slots = []
    for node in range(n_nodes):
        perf = draw(st.sampled_from([1.0, 2.0, 4.0, 8.0]))
        t = draw(st.sampled_from([0, 5]) if crowded else st.integers(0, 10))
        for k in range(draw(st.integers(1, 3))):
            a = t + (0 if crowded and k == 0 else draw(st.integers(0, 10)))
            b = a + draw(st.integers(1, 80))
            slots.append(Slot(node, float(a), float(b), float(draw(st.integers(0, 12))), perf))
            t = b
    n = draw(st.integers(1, max(1, n_nodes - 2)) if crowded else st.integers(1, n_nodes + 1))
    if draw(st.booleans()):
        amount = {"volume": 8.0 * draw(st.integers(1, 6))}
    else:
        amount = {"time": float(draw(st.integers(1, 30)))}
    budget = draw(st.one_of(st.just(math.inf), st.integers(0, 300).map(float)))
    min_perf = draw(st.sampled_from([0.0, 0.0, 2.0, 4.0]))
    request = ResourceRequest(n=n, budget=budget, min_performance=min_perf, **amount)
    return SlotList(slots), request


@settings(max_examples=400, deadline=None)
@given(exact_instances())
def test_matches_the_brute_force_oracle(case):
    slots, request = case
    expected = oracle(slots, request)
    result = amp_paper(slots, request)
    if expected is None:
        assert result.window is None and result.reason
        return
    window = result.window
    assert window is not None, result.reason
    assert (window.start, window.nodes) == expected
    check_window(slots, request, window)
    # the earliest start, as vosim's AMP; the closing slot is the one the scan stopped at
    assert window.start == amp(slots, request).window.start
    closing = slots[result.stats["step"]]
    assert closing.start == window.start and closing.node in window.nodes


@settings(max_examples=200, deadline=None)
@given(float_instances())
def test_window_invariants_on_float_instances(case):
    slots, request = case
    result = amp_paper(slots, request)
    reference = amp(slots, request)
    assert (result.window is None) == (reference.window is None)
    if result.window is None:
        assert result.reason
        return
    check_window(slots, request, result.window)
    assert result.window.start == reference.window.start
    assert result.window.cost >= reference.window.cost * (1 - RTOL)  # amp's is the cheapest at t


# -- the paper's CSA -------------------------------------------------------------------------


@settings(max_examples=150, deadline=None)
@given(float_instances(), st.integers(1, 8))
def test_paper_csa_alternatives_are_disjoint_and_within_budget(case, limit):
    slots, request = case
    alts = csa_paper(slots, request, limit)  # a limit: a short task fits thousands of times
    assert alts.criterion == "amp_paper"
    assert len(alts.windows) <= limit
    for window in alts.windows:
        check_window(slots, request, window)  # within budget, inside the input slots
    assert_disjoint(alts.windows)
    if len(alts.windows) < limit:
        assert alts.reason and amp_paper(alts.slots, request).window is None
    # the same loop as vosim's CSA, with the paper's AMP as its search
    again = find_alternatives(slots, request, "amp_paper", limit)
    assert alts.windows == again.windows


def test_paper_csa_on_an_aep_domain():
    slots = aep_domain(np.random.default_rng(5)).slots
    job = aep_job()
    alts = csa_paper(slots, job)
    assert len(alts.windows) >= 10
    assert all(w.cost <= job.budget * (1 + RTOL) for w in alts.windows)
    assert_disjoint(alts.windows)
    # the first alternative is the paper's AMP window on the whole list
    assert alts.windows[0] == amp_paper(slots, job).window
    limited = csa(slots, job, 3, search="amp_paper")
    assert limited.windows == alts.windows[:3]


def test_csa_search_must_be_an_amp():
    assert CSA_SEARCHES == ("amp", "amp_paper")
    with pytest.raises(UnknownAllocatorError, match="amp_paper"):
        csa(dear_first(1.0, 1.0), ResourceRequest(n=1, time=10.0), search="min_cost")
