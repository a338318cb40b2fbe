"""Slots alike in groups: the grouped necessary test before the search for an earlier window."""

from __future__ import annotations

from itertools import pairwise

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from vosim.allocators.base import Window
from vosim.core import ResourceRequest, Slot, SlotList
from vosim.policies.replan import earlier_window


# -- the grouped test before the search, against the search itself ------------------------------
@st.composite
def _processor_cases(draw):
    """Processors in physical nodes of 1-3 (shared price and performance), each free in
    random cells of a time grid, a held window on some of them, its spans busy and often
    touching free time on both sides, and slots of the other processors alike in groups."""
    per = draw(st.integers(1, 3))
    hosts = draw(st.integers(2, 4))
    price = draw(st.lists(st.sampled_from([1.0, 2.0]), min_size=hosts, max_size=hosts))
    perf = draw(st.lists(st.sampled_from([1.0, 2.0]), min_size=hosts, max_size=hosts))
    procs = hosts * per
    n = draw(st.integers(1, min(4, procs)))
    held = sorted(draw(st.permutations(range(procs)))[:n])
    start, volume = draw(st.sampled_from([30.0, 50.0])), 20.0
    spans = tuple(
        Slot(p, start, start + volume / perf[p // per], price[p // per], perf[p // per])
        for p in held
    )
    grid = [0.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 80.0, 100.0]
    rows = []
    for p in range(procs):
        mine = [s for s in spans if s.node == p]
        cuts = sorted(set(grid) | ({mine[0].start, mine[0].end} if mine else set()))
        free = [
            (a, b)
            for a, b in pairwise(cuts)
            if not (mine and mine[0].start <= a < mine[0].end) and draw(st.booleans())
        ]
        for a, b in free:  # maximal rows: touching free cells joined
            if rows and rows[-1].node == p and rows[-1].end == a:
                rows[-1] = Slot(p, rows[-1].start, b, rows[-1].price, rows[-1].performance)
            else:
                rows.append(Slot(p, a, b, price[p // per], perf[p // per]))
    cost = sum(s.price * (s.end - s.start) for s in spans)
    old = Window(slots=spans, start=start, runtime=max(s.end - s.start for s in spans), cost=cost)
    budget = draw(st.sampled_from([cost, cost * 0.8, 1e9]))
    job = ResourceRequest(index=0, n=n, volume=volume, budget=budget)
    return SlotList(rows), job, old, draw(st.sampled_from([0.0, 5.0, 15.0]))


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_processor_cases())
def test_the_grouped_test_before_the_search_changes_no_answer(case):
    """``movable`` (over slots alike, compiled) says False only where the search finds
    nothing, so the search with it gives the window the plain search gives; and the cheapest
    task of every reservation at once equals one call each."""
    from vosim.policies import replan as rp
    from vosim.policies.slot_groups import SlotGroups, movable

    slots, job, old, now = case
    groups = SlotGroups(slots)
    plain = earlier_window(slots, job, old, now)
    assert earlier_window(slots, job, old, now, groups=groups) == plain
    sp = old.spans
    held = (sp.node, sp.start, sp.end, sp.price, sp.performance)
    budget = min(job.budget, old.cost)
    if not movable(groups, held, job.volume, job.n, old.runtime, budget, old.start, now):
        assert plain is None
    reserved = [(job, old), (ResourceRequest(index=1, n=1, volume=5.0, budget=1e9), old)]
    each = rp._cheapest_each(groups, reserved)
    assert each.tolist() == [rp._cheapest_task(slots, j, w) for j, w in reserved]


def test_the_grouped_test_finds_a_move_onto_the_held_nodes_themselves():
    """A window held at 30 on two processors free from 10: putting it back joins the free
    time before it, so the same processors hold it from 10 (the join must count)."""
    from vosim.policies.slot_groups import SlotGroups, movable

    spans = tuple(Slot(p, 30.0, 50.0, 1.0, 1.0) for p in (0, 1))
    slots = SlotList([Slot(p, 10.0, 30.0, 1.0, 1.0) for p in (0, 1)])
    old = Window(slots=spans, start=30.0, runtime=20.0, cost=40.0)
    job = ResourceRequest(index=0, n=2, volume=20.0, budget=40.0)
    held = tuple(getattr(old.spans, f) for f in ("node", "start", "end", "price", "performance"))
    assert movable(SlotGroups(slots), held, 20.0, 2, 20.0, 40.0, 30.0, 0.0)
    assert earlier_window(slots, job, old, 0.0, groups=SlotGroups(slots)).start == 10.0
    # without the join (slots that end before the window), nothing earlier holds 20 units
    short = SlotList([Slot(p, 10.0, 25.0, 1.0, 1.0) for p in (0, 1)])
    assert not movable(SlotGroups(short), held, 20.0, 2, 20.0, 40.0, 30.0, 0.0)
