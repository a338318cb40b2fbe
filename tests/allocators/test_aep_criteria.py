"""AEP criteria minRuntime, minFinish, minProcTime and the paper's procedures (AEP §2.2, §3.1).

The oracle enumerates every slot start and every combination of ``n`` distinct usable nodes in
exact integer arithmetic (the scaled instances of ``test_aep``), and every criterion is checked
against it: the exact criteria reach its optimum, the heuristics never beat it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from itertools import combinations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_aep import CS, RTOL, TS, check_window, float_instances, int_instances, replace, scale

from vosim.allocators import ResourceRequest, allocate_window, criteria, register_criterion
from vosim.allocators.aep import window_criterion
from vosim.core import Slot, SlotList

EXACT = ("amp", "min_cost", "min_runtime", "min_finish")
HEURISTIC = ("min_proc_time", "min_runtime_substitution", "min_finish_substitution")
ALL = EXACT + HEURISTIC


@dataclass
class Optimum:
    """Optimal values over every window within budget, in scaled integers (None: no window)."""

    start: int | None = None
    cost: int | None = None
    runtime: int | None = None
    finish: int | None = None
    proc_time: int | None = None


def brute_force(slots: SlotList, request: ResourceRequest) -> Optimum:
    islots = scale(slots, request)
    limit = (
        math.inf
        if math.isinf(request.budget)
        else Fraction(request.budget) * (1 + Fraction(RTOL)) * CS
    )
    best = Optimum()

    def better(current, value):
        return value if current is None or value < current else current

    for t in sorted({s.start for s in islots}):
        usable = {}
        for s in islots:
            if s.eligible and s.start <= t and t + s.duration <= s.end:
                usable[s.node] = s
        for combo in combinations(sorted(usable), request.n):
            chosen = [usable[k] for k in combo]
            cost = sum(s.cost for s in chosen)
            if cost > limit:
                continue
            runtime = max(s.duration for s in chosen)
            best.start = better(best.start, t)
            best.cost = better(best.cost, cost)
            best.runtime = better(best.runtime, runtime)
            best.finish = better(best.finish, t + runtime)
            best.proc_time = better(best.proc_time, sum(s.duration for s in chosen))
    return best


def value(window, criterion: str) -> float:
    if criterion in ("amp",):
        return window.start
    if criterion == "min_cost":
        return window.cost
    if criterion in ("min_runtime", "min_runtime_substitution"):
        return window.runtime
    if criterion in ("min_finish", "min_finish_substitution"):
        return window.finish
    return window.proc_time


def optimum(best: Optimum, criterion: str) -> float | None:
    scaled = {
        "amp": (best.start, TS),
        "min_cost": (best.cost, CS),
        "min_runtime": (best.runtime, TS),
        "min_runtime_substitution": (best.runtime, TS),
        "min_finish": (best.finish, TS),
        "min_finish_substitution": (best.finish, TS),
        "min_proc_time": (best.proc_time, TS),
    }[criterion]
    return None if scaled[0] is None else scaled[0] / scaled[1]


def check_all(slots: SlotList, request: ResourceRequest) -> None:
    best = brute_force(slots, request)
    for criterion in ALL:
        got = allocate_window(slots, request, criterion)
        want = optimum(best, criterion)
        if want is None:
            assert got.window is None, (criterion, got.window)
            assert got.reason
            continue
        # every criterion finds a window whenever one exists within budget
        assert got.window is not None, (criterion, got.reason)
        check_window(slots, request, got.window)
        if criterion in EXACT:
            assert value(got.window, criterion) == pytest.approx(want, rel=1e-9), criterion
        else:
            assert value(got.window, criterion) >= want * (1 - 1e-9), criterion


@settings(max_examples=250, deadline=None)
@given(int_instances(max_nodes=7), st.data())
def test_criteria_against_brute_force(case, data):
    slots, request = case
    check_all(slots, request)
    best = brute_force(slots, replace(request, budget=math.inf))
    if best.cost is not None:
        # a budget exactly at the cheapest window's cost, or a little above it
        budget = best.cost / CS * data.draw(st.sampled_from([1.0, 1.0, 1.2, 1.5, 2.0]))
        check_all(slots, replace(request, budget=float(budget)))


@settings(max_examples=150, deadline=None)
@given(int_instances(per_node=False, max_nodes=6))
def test_criteria_when_slots_of_a_node_differ(case):
    check_all(*case)


@settings(max_examples=200, deadline=None)
@given(float_instances(), st.sampled_from(ALL))
def test_windows_are_valid_on_float_instances(case, criterion):
    slots, request = case
    got = allocate_window(slots, request, criterion)
    assert got.criterion == criterion
    if got.window is None:
        assert got.reason
    else:
        check_window(slots, request, got.window)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_exact_criteria_dominate_on_larger_instances(seed):
    # ~100 nodes, hundreds of starts: several blocks. Each exact criterion is at least as good
    # as every other criterion's window by its own measure, and the heuristics never beat it.
    rng = np.random.default_rng(seed)
    slots = []
    for node in range(int(rng.integers(60, 120))):
        price, perf = float(rng.integers(1, 40)) / 4, float(rng.integers(2, 11))
        t = float(rng.integers(0, 40))
        for _ in range(int(rng.integers(0, 5))):
            a = t + float(rng.integers(0, 60))
            b = a + float(rng.integers(1, 200))
            slots.append(Slot(node, a, b, price, perf))
            t = b
    sl = SlotList(slots)
    request = ResourceRequest(
        n=int(rng.integers(1, 8)),
        volume=float(rng.integers(1, 400)),
        budget=float(rng.integers(0, 800)),
    )
    windows = {c: allocate_window(sl, request, c).window for c in ALL}
    found = {c for c, w in windows.items() if w is not None}
    assert found in (set(), set(ALL)), found
    for w in windows.values():
        if w is not None:
            check_window(sl, request, w)
    if found:
        for exact in ("amp", "min_cost", "min_runtime", "min_finish"):
            for other in windows.values():
                assert value(windows[exact], exact) <= value(other, exact) * (1 + 1e-12)


# --------------------------------------------------------------------------------------------
# worked cases


def market() -> SlotList:
    # node: price, performance; volume 80 -> task times 40 (p=2), 20 (p=4), 10 (p=8)
    return SlotList(
        [
            Slot(0, 0.0, 300.0, 1.0, 2.0),
            Slot(1, 0.0, 300.0, 1.0, 2.0),
            Slot(2, 0.0, 300.0, 2.0, 4.0),
            Slot(3, 50.0, 300.0, 3.0, 8.0),
            Slot(4, 50.0, 300.0, 3.0, 8.0),
        ]
    )


def test_each_criterion_picks_its_own_optimum():
    # costs: slow nodes 0-1 and medium node 2 cost 40 a task, the fast nodes 3-4 (free from 50)
    # cost 30 a task; with C = 80 a window at 0 takes two 40s, the fast pair waits until 50
    sl = market()
    got = {
        c: allocate_window(sl, ResourceRequest(n=2, volume=80.0, budget=80.0), c).window
        for c in ALL
    }
    # equal costs at 0: the shorter slot (node 2) first
    assert (got["amp"].start, got["amp"].nodes, got["amp"].cost) == (0.0, (0, 2), 80.0)
    assert (got["min_cost"].start, got["min_cost"].cost) == (50.0, 60.0)
    w = got["min_runtime"]
    assert (w.start, w.nodes, w.runtime) == (50.0, (3, 4), 10.0)
    # at 0 the shortest affordable window runs 40 (finish 40); the fast pair finishes at 60
    assert (got["min_finish"].start, got["min_finish"].finish) == (0.0, 40.0)
    assert got["min_finish_substitution"].finish == 40.0
    assert got["min_runtime_substitution"].runtime == 10.0
    assert got["min_proc_time"].proc_time == 20.0


def test_min_finish_waits_for_fast_nodes_when_it_pays():
    sl = SlotList(
        [
            Slot(0, 0.0, 500.0, 1.0, 2.0),
            Slot(1, 0.0, 500.0, 1.0, 2.0),
            Slot(2, 5.0, 500.0, 3.0, 8.0),
            Slot(3, 5.0, 500.0, 3.0, 8.0),
        ]
    )
    w = allocate_window(sl, ResourceRequest(n=2, volume=160.0), "min_finish").window
    assert (w.start, w.finish, w.nodes) == (5.0, 25.0, (2, 3))
    # a tighter budget keeps the slow pair: cost 2 * 80 = 160 vs the fast pair 2 * 60 = 120
    w = allocate_window(sl, ResourceRequest(n=2, volume=160.0, budget=100.0), "min_finish")
    assert w.window is None and "budget" in w.reason


def test_min_runtime_prefers_the_earliest_start_on_ties():
    sl = SlotList([Slot(0, 0.0, 100.0, 1.0, 4.0), Slot(0, 200.0, 300.0, 1.0, 4.0)])
    w = allocate_window(sl, ResourceRequest(n=1, volume=40.0), "min_runtime").window
    assert (w.start, w.runtime) == (0.0, 10.0)


def test_homogeneous_time_request():
    # with a reservation time T every slot of the window is T long: runtime is T everywhere
    sl = market()
    request = ResourceRequest(n=3, time=30.0, budget=1000.0)
    for c in ALL:
        w = allocate_window(sl, request, c).window
        assert w.runtime == 30.0 and w.proc_time == 90.0, c


@pytest.mark.parametrize("criterion", ALL)
def test_impossible_requests_give_a_reason(criterion):
    sl = market()
    for request, words in [
        (ResourceRequest(n=6, volume=80.0), "node"),
        (ResourceRequest(n=2, volume=80.0, budget=10.0), "budget"),
        (ResourceRequest(n=2, volume=80.0, min_performance=9.0), "node"),
        (ResourceRequest(n=1, volume=1e6), "node"),
    ]:
        got = allocate_window(sl, request, criterion)
        assert got.window is None
        assert words in got.reason, (request, got.reason)
    empty = allocate_window(SlotList(), ResourceRequest(n=1, time=1.0), criterion)
    assert empty.window is None and empty.reason


def test_every_criterion_is_registered():
    assert set(ALL) <= set(criteria())


def test_window_criterion_from_a_user_function():
    sl = market()
    request = ResourceRequest(n=2, volume=80.0, budget=1000.0)
    # a finish-and-cost trade-off: the user function sees every threshold window per start
    fn = window_criterion(lambda w: w.finish + w.cost)
    w = fn(sl, request).window
    brute = [allocate_window(sl, request, c).window for c in ("amp", "min_cost", "min_finish")]
    assert w.finish + w.cost <= min(x.finish + x.cost for x in brute)
    # the same function reproduces min_proc_time and min_finish
    assert window_criterion(lambda w: w.proc_time)(sl, request).window.proc_time == (
        allocate_window(sl, request, "min_proc_time").window.proc_time
    )
    assert window_criterion(lambda w: w.finish)(sl, request).window.finish == (
        allocate_window(sl, request, "min_finish").window.finish
    )
    name = "test_finish_plus_cost"
    register_criterion(name)(fn)
    assert allocate_window(sl, request, name).window == w
    nothing = fn(sl, ResourceRequest(n=2, volume=80.0, budget=1.0))
    assert nothing.window is None and "budget" in nothing.reason
