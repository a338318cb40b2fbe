"""Tests of the AEP window search: criteria "amp" (earliest start) and "min_cost" (AEP §2.2).

The allocators are checked against an independent brute-force oracle that enumerates every
candidate start and every combination of ``n`` distinct usable nodes in exact integer
arithmetic.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from itertools import combinations, pairwise

import numpy as np
import pytest
from aep_market import CRITERIA, market
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from vosim.allocators import (
    Allocation,
    ResourceRequest,
    Window,
    allocate_window,
)
from vosim.core import Slot, SlotList
from vosim.errors import RequestError, SlotError, VosimError

RTOL = 1e-9  # the budget tolerance the allocators document (aep.BUDGET_RTOL)

SETTINGS = settings(max_examples=200, deadline=None)


# --------------------------------------------------------------------------------------------
# window invariants


def durations(request: ResourceRequest, performance: float) -> float:
    if request.volume is not None:
        return request.volume / performance
    return float(request.time)


def check_window(slots: SlotList, request: ResourceRequest, window: Window) -> None:
    """Assert every documented invariant of a window found for ``request`` in ``slots``."""
    assert isinstance(window, Window)
    assert len(window.slots) == request.n
    assert len(set(window.nodes)) == request.n, "slots must be on distinct nodes"
    inputs = list(slots)
    lengths = []
    for s in window.slots:
        assert s.start == window.start, "all slots start together"
        t_i = durations(request, s.performance)
        lengths.append(t_i)
        assert s.end - s.start == pytest.approx(t_i, rel=1e-12)
        assert s.performance >= request.min_performance
        # [start, start + T_i] lies inside one input slot of that node, which it copies
        hosts = [x for x in inputs if x.node == s.node and x.start <= s.start and s.end <= x.end]
        assert len(hosts) == 1, f"{s} lies in no input slot of node {s.node}"
        assert (hosts[0].price, hosts[0].performance) == (s.price, s.performance)
    expected_cost = sum(s.price * durations(request, s.performance) for s in window.slots)
    assert window.cost == pytest.approx(expected_cost, rel=1e-9, abs=1e-12)
    assert window.cost <= request.budget * (1 + RTOL)
    assert window.runtime == pytest.approx(max(lengths), rel=1e-12)
    assert window.finish == window.start + window.runtime
    assert window.end == window.finish
    assert window.proc_time == pytest.approx(sum(lengths), rel=1e-9)
    # the window can be reserved: cutting it out of the slot list succeeds and removes
    # exactly its processor time
    rest = slots.cut(window)
    before = float(np.sum(slots.end - slots.start))
    after = float(np.sum(rest.end - rest.start))
    assert before - after == pytest.approx(window.proc_time, rel=1e-9, abs=1e-9)


@st.composite
def float_instances(draw):
    """Random slot lists with float bounds, and a request, as the brief describes."""
    n_nodes = draw(st.integers(1, 8))
    per_node = draw(st.booleans())
    slots = []
    for node in draw(st.permutations(range(10)))[:n_nodes]:
        price = draw(st.floats(0.01, 20.0))
        perf = draw(st.floats(2.0, 10.0))
        t = draw(st.floats(0.0, 50.0))
        for _ in range(draw(st.integers(0, 3))):
            a = t + draw(st.one_of(st.just(0.0), st.floats(0.0, 60.0)))
            b = a + draw(st.floats(0.01, 150.0))
            assume(b > a)
            if not per_node:
                price = draw(st.floats(0.01, 20.0))
                perf = draw(st.floats(2.0, 10.0))
            slots.append(Slot(node, a, b, price, perf))
            t = b
    n = draw(st.integers(1, n_nodes + 1))
    if draw(st.booleans()):
        amount = {"volume": draw(st.floats(0.1, 250.0))}
    else:
        amount = {"time": draw(st.floats(0.01, 80.0))}
    budget = draw(st.one_of(st.just(math.inf), st.floats(0.0, 5000.0)))
    min_perf = draw(st.one_of(st.just(0.0), st.floats(0.0, 10.0)))
    request = ResourceRequest(n=n, budget=budget, min_performance=min_perf, **amount)
    return SlotList(slots), request


@SETTINGS
@given(float_instances(), st.sampled_from(CRITERIA))
def test_window_invariants(case, criterion):
    slots, request = case
    result = allocate_window(slots, request, criterion)
    assert isinstance(result, Allocation)
    assert result.criterion == criterion
    if result.window is None:
        assert not result.success
        assert isinstance(result.reason, str) and result.reason
    else:
        assert result.success
        assert result.reason == ""
        check_window(slots, request, result.window)


# --------------------------------------------------------------------------------------------
# brute-force oracle in exact integer arithmetic

Q = 4  # prices are multiples of 1/Q
L = 2520  # lcm(1..10): V * L / p is an integer for integer V and performance p in 2..10
TS = 2 * L  # time scale: scaled slot starts are even, so their midpoints are integers too
CS = Q * L  # cost scale: price * T_i * CS is an integer


@dataclass(frozen=True)
class ISlot:
    """A slot in scaled integers: time unit 1/TS, cost unit 1/CS."""

    node: int
    start: int
    end: int
    duration: int  # T_i
    cost: int  # price * T_i
    eligible: bool  # performance >= min_performance


def scale(slots: SlotList, request: ResourceRequest) -> list[ISlot]:
    out = []
    for s in slots:
        perf = int(s.performance)
        price_q = int(s.price * Q)
        assert (s.start, s.end, s.performance, s.price * Q) == (
            int(s.start),
            int(s.end),
            perf,
            price_q,
        ), "the oracle needs integral instances"
        if request.volume is not None:
            v = int(request.volume)
            assert v == request.volume and (v * L) % perf == 0
            duration, work = v * TS // perf, v * L // perf
        else:
            t = int(request.time)
            assert t == request.time
            duration, work = t * TS, t * L
        eligible = s.performance >= request.min_performance
        out.append(
            ISlot(s.node, int(s.start) * TS, int(s.end) * TS, duration, price_q * work, eligible)
        )
    return out


def usable_at(islots: list[ISlot], t: int) -> dict[int, int]:
    """Node -> cost of its slot that holds ``[t, t + T_i]`` (a node has at most one)."""
    usable: dict[int, int] = {}
    for s in islots:
        if s.eligible and s.start <= t and t + s.duration <= s.end:
            assert s.node not in usable, "disjoint slots: at most one per node holds a task"
            usable[s.node] = s.cost
    return usable


def cheapest_at(islots: list[ISlot], n: int, t: int) -> int | None:
    """Minimum cost over every combination of ``n`` distinct nodes usable at ``t``."""
    usable = usable_at(islots, t)
    costs = [sum(usable[k] for k in combo) for combo in combinations(sorted(usable), n)]
    return min(costs) if costs else None


@dataclass
class Oracle:
    earliest: Fraction | None  # earliest feasible start within the budget
    earliest_cost: Fraction | None  # cheapest window at that start
    min_cost: Fraction | None  # minimum cost over all windows, ignoring the budget
    min_cost_starts: list[Fraction]  # starts at which a window of that cost exists
    window_costs: list[Fraction]  # cheapest window cost at each start that has one


def oracle(slots: SlotList, request: ResourceRequest) -> Oracle:
    """Brute force over candidate starts and node combinations.

    Why slot starts suffice as candidate starts: a window starting at ``t`` uses slots with
    ``start_i <= t <= end_i - T_i``. Let ``t'`` be the largest ``start_i`` of its slots; then
    ``start_i <= t' <= t <= end_i - T_i`` for every chosen slot, so the same nodes form a window
    at ``t'``, a slot start, with the same cost (a slot's cost ``price_i * T_i`` does not depend
    on the start). Hence the earliest feasible start is a slot start, and the cheapest window
    also exists at a slot start.

    The oracle does not take this on trust: it also evaluates extra times that are not slot
    starts (midpoints between consecutive starts, every slot's latest feasible start and the
    time just after it, times before the first and after the last start) and asserts they
    never give an earlier feasible start or a cheaper window.
    """
    islots = scale(slots, request)
    n = request.n
    limit = (
        math.inf
        if math.isinf(request.budget)
        else Fraction(request.budget) * (1 + Fraction(RTOL)) * CS
    )
    starts = sorted({s.start for s in islots})
    extra = {starts[0] - 1, starts[-1] + 1} if starts else set()
    extra |= {(a + b) // 2 for a, b in pairwise(starts)}
    for s in islots:
        extra |= {s.end - s.duration, s.end - s.duration + 1, s.end - s.duration - 1}
    extra -= set(starts)

    best = {t: cheapest_at(islots, n, t) for t in starts}
    best_extra = {t: cheapest_at(islots, n, t) for t in sorted(extra)}

    def feasible(costs: dict[int, int | None]) -> list[int]:
        return [t for t, c in costs.items() if c is not None and c <= limit]

    earliest = min(feasible(best), default=None)
    # claim check: a non-slot-start time is never feasible earlier
    early_extra = min(feasible(best_extra), default=None)
    if early_extra is not None:
        assert earliest is not None and earliest <= early_extra, (
            f"window at non-slot-start {Fraction(early_extra, TS)} beats slot starts"
        )
    found = [c for c in best.values() if c is not None]
    found_extra = [c for c in best_extra.values() if c is not None]
    lowest = min(found, default=None)
    # claim check: a non-slot-start time never gives a cheaper window
    if found_extra:
        assert lowest is not None and lowest <= min(found_extra), (
            "a window at a non-slot-start time is cheaper than every window at a slot start"
        )
    return Oracle(
        earliest=None if earliest is None else Fraction(earliest, TS),
        earliest_cost=None if earliest is None else Fraction(best[earliest], CS),
        min_cost=None if lowest is None else Fraction(lowest, CS),
        min_cost_starts=sorted(Fraction(t, TS) for t, c in best.items() if c == lowest),
        window_costs=sorted({Fraction(c, CS) for c in found}),
    )


@st.composite
def int_instances(draw, per_node: bool = True, max_nodes: int = 8):
    """Small integral instances the oracle can evaluate exactly."""
    n_nodes = draw(st.integers(1, max_nodes))
    slots = []
    for node in draw(st.permutations(range(max_nodes + 2)))[:n_nodes]:
        price_q = draw(st.integers(1, 40))
        perf = draw(st.integers(2, 10))
        t = draw(st.integers(0, 20))
        for _ in range(draw(st.sampled_from([1, 2, 3, 0, 1, 2, 3]))):
            a = t + draw(st.one_of(st.just(0), st.integers(0, 40)))
            b = a + draw(st.integers(1, 120) | st.integers(40, 120))
            if not per_node:
                price_q = draw(st.integers(1, 40))
                perf = draw(st.integers(2, 10))
            slots.append(Slot(node, float(a), float(b), price_q / Q, float(perf)))
            t = b
    # mostly n <= node count, sometimes one more than there are nodes
    n = draw(st.integers(1, n_nodes)) if draw(st.integers(0, 9)) else n_nodes + 1
    if draw(st.booleans()):
        amount = {"volume": float(draw(st.integers(1, 80)))}
    else:
        amount = {"time": float(draw(st.integers(1, 30)))}
    budget = draw(st.one_of(st.just(math.inf), st.integers(0, 4000).map(lambda b: b / Q)))
    min_perf = float(draw(st.sampled_from([0, 0, 0, 2, 3, 5, 8])))
    request = ResourceRequest(n=n, budget=budget, min_performance=min_perf, **amount)
    return SlotList(draw(st.permutations(slots))), request


def check_against_oracle(slots: SlotList, request: ResourceRequest) -> None:
    want = oracle(slots, request)

    got = allocate_window(slots, request, "amp")
    if want.earliest is None:
        assert got.window is None, f"amp found {got.window} but no window fits the budget"
        assert got.reason
    else:
        assert got.window is not None, f"amp: {got.reason!r}; oracle start {want.earliest}"
        check_window(slots, request, got.window)
        assert got.window.start == want.earliest
        # amp takes the n cheapest slots usable at the earliest start
        assert got.window.cost == pytest.approx(float(want.earliest_cost), rel=1e-9)

    got = allocate_window(slots, request, "min_cost")
    within = math.isinf(request.budget) or (
        want.min_cost is not None
        and want.min_cost <= Fraction(request.budget) * (1 + Fraction(RTOL))
    )
    if want.min_cost is None or not within:
        assert got.window is None, f"min_cost found {got.window}, oracle none within budget"
        assert got.reason
    else:
        assert got.window is not None, f"min_cost: {got.reason!r}; oracle cost {want.min_cost}"
        check_window(slots, request, got.window)
        assert got.window.cost == pytest.approx(float(want.min_cost), rel=1e-9)
        assert got.window.start in want.min_cost_starts
        if request.time is not None:
            # costs are exact in float here, so ties are exact: the earliest start wins
            assert got.window.start == want.min_cost_starts[0]


def check_with_boundary_budget(case, data) -> None:
    slots, request = case
    check_against_oracle(slots, request)
    # the same instance with the budget exactly at the cost of some window (the boundary)
    costs = oracle(slots, request).window_costs
    if costs:
        budget = float(data.draw(st.sampled_from(costs), label="budget"))
        check_against_oracle(slots, replace(request, budget=budget))


@settings(max_examples=250, deadline=None)
@given(int_instances(), st.data())
def test_allocators_match_brute_force_oracle(case, data):
    check_with_boundary_budget(case, data)


@settings(max_examples=150, deadline=None)
@given(int_instances(per_node=False), st.data())
def test_allocators_match_oracle_when_slots_of_a_node_differ_in_price(case, data):
    # Slot prices (and performances) are per slot in the SlotList API; nothing requires the
    # slots of one node to agree.
    check_with_boundary_budget(case, data)


def replace(request: ResourceRequest, **changes) -> ResourceRequest:
    fields = {
        "n": request.n,
        "volume": request.volume,
        "time": request.time,
        "budget": request.budget,
        "min_performance": request.min_performance,
    }
    fields.update(changes)
    return ResourceRequest(**fields)


def sorted_oracle(slots: SlotList, request: ResourceRequest) -> tuple[float | None, float | None]:
    """Earliest feasible start and minimum cost, taking the n cheapest usable slots per start.

    Equivalent to the combination oracle (the cheapest n-subset is the n cheapest), fast
    enough for instances with many slots.
    """
    islots = scale(slots, request)
    limit = math.inf if math.isinf(request.budget) else Fraction(request.budget) * CS
    earliest, lowest = None, None
    for t in sorted({s.start for s in islots}):
        costs = sorted(usable_at(islots, t).values())
        if len(costs) < request.n:
            continue
        c = sum(costs[: request.n])
        if earliest is None and c <= limit * (1 + Fraction(RTOL)):
            earliest = t
        lowest = c if lowest is None else min(lowest, c)
    return (
        None if earliest is None else earliest / TS,
        None if lowest is None else lowest / CS,
    )


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_allocators_on_larger_instances(seed):
    # ~100 nodes and ~300 distinct slot starts: the allocators scan the candidate starts in
    # several blocks, which the small instances never need.
    rng = np.random.default_rng(seed)
    slots = []
    for node in range(int(rng.integers(60, 120))):
        price_q, perf = int(rng.integers(1, 40)), int(rng.integers(2, 11))
        t = int(rng.integers(0, 40))
        for _ in range(int(rng.integers(0, 5))):
            a = t + int(rng.integers(0, 60))
            b = a + int(rng.integers(1, 120))
            slots.append(Slot(node, float(a), float(b), price_q / Q, float(perf)))
            t = b
    sl = SlotList(slots)
    request = ResourceRequest(
        n=int(rng.integers(1, 8)),
        volume=float(rng.integers(1, 200)),
        budget=float(rng.integers(0, 3000)) / Q,
    )
    earliest, lowest = sorted_oracle(sl, request)
    amp = allocate_window(sl, request, "amp").window
    assert (amp is None) == (earliest is None)
    if amp is not None:
        check_window(sl, request, amp)
        assert amp.start == earliest
    best = allocate_window(sl, request, "min_cost").window
    if lowest is None or lowest > request.budget * (1 + RTOL):
        assert best is None
    else:
        assert best is not None
        check_window(sl, request, best)
        assert best.cost == pytest.approx(lowest, rel=1e-9)


@pytest.mark.parametrize("n", [1, 2])
def test_every_candidate_position_is_scanned(n):
    # The allocators scan the candidate starts in blocks; whichever position holds the only
    # affordable (or the cheapest) window, it must be found, including at block boundaries.
    m = 400
    start = np.repeat(np.arange(m, dtype=float), n)  # n nodes free from each time 0..m-1
    node = np.arange(m * n)
    # every early position, and windows around later block boundaries (blocks grow
    # geometrically, 8 / 40 / 168 / ... for amp, 64 / 320 / ... for min_cost)
    for j in [*range(72), *range(160, 176), *range(312, 328), m - 1]:
        price = np.where(start == j, 1.0, 100.0)
        sl = SlotList.from_arrays(node, start, start + 10.0, price, np.ones(m * n))
        request = ResourceRequest(n=n, time=1.0, budget=float(n))
        for criterion in CRITERIA:
            w = allocate_window(sl, request, criterion).window
            assert w is not None, (criterion, j)
            assert (w.start, w.cost) == (float(j), float(n)), (criterion, j)
        w = allocate_window(sl, replace(request, budget=1e9), "min_cost").window
        assert (w.start, w.cost) == (float(j), float(n)), j


# --------------------------------------------------------------------------------------------
# worked examples


def test_docstring_example():
    sl = SlotList([Slot(0, 0.0, 100.0, 1.0, 2.0), Slot(1, 10.0, 100.0, 1.0, 4.0)])
    request = ResourceRequest(n=2, volume=80.0)
    for criterion in CRITERIA:
        result = allocate_window(sl, request, criterion)
        w = result.window
        assert (w.start, w.runtime, w.cost) == (10.0, 40.0, 60.0)
        assert w.finish == 50.0
        assert w.nodes == (0, 1)
        assert [(s.start, s.end) for s in w.slots] == [(10.0, 50.0), (10.0, 30.0)]
        assert w.proc_time == 60.0
        assert result.success and result.reason == "" and result.criterion == criterion
        check_window(sl, request, w)


@pytest.mark.parametrize(
    ("budget", "start", "nodes", "cost"),
    [
        (math.inf, 0.0, (0, 1), 100.0),  # no limit: the earliest window, cost 50 + 50
        (100.0, 0.0, (0, 1), 100.0),  # exactly affordable
        (99.0, 30.0, (0, 2), 60.0),  # at 0 it costs 100: wait for node 2 (tie 0/1 -> node 0)
        (60.0, 30.0, (0, 2), 60.0),
        (59.0, 40.0, (2, 3), 20.0),  # only the two cheap nodes fit: wait for node 3
        (20.0, 40.0, (2, 3), 20.0),
    ],
)
def test_amp_moves_later_when_the_earliest_window_is_unaffordable(budget, start, nodes, cost):
    sl = market()
    request = ResourceRequest(n=2, time=10.0, budget=budget)
    w = allocate_window(sl, request, "amp").window
    assert (w.start, w.nodes, w.cost, w.runtime) == (start, nodes, cost, 10.0)
    check_window(sl, request, w)
    # minCost always finds the cheapest window, whatever the (sufficient) budget
    m = allocate_window(sl, request, "min_cost").window
    assert (m.start, m.nodes, m.cost) == (40.0, (2, 3), 20.0)


def test_budget_below_every_window():
    request = ResourceRequest(n=2, time=10.0, budget=19.0)
    for criterion in CRITERIA:
        result = allocate_window(market(), request, criterion)
        assert result.window is None and not result.success
        assert "budget" in result.reason
        assert result.criterion == criterion


def test_heterogeneous_performance_and_too_short_slots():
    # V = 40: node 0 (performance 2) needs 20, node 1 (performance 4) needs 10, node 2
    # (performance 8) needs 5 but is dear.
    sl = SlotList(
        [
            Slot(0, 0.0, 15.0, 1.0, 2.0),  # too short for its 20 units
            Slot(0, 50.0, 80.0, 1.0, 2.0),
            Slot(1, 5.0, 100.0, 2.0, 4.0),
            Slot(2, 0.0, 100.0, 10.0, 8.0),
        ]
    )
    request = ResourceRequest(n=2, volume=40.0, budget=1000.0)
    w = allocate_window(sl, request, "amp").window
    # at 0 only node 2 fits; at 5 nodes 1 (cost 20) and 2 (cost 50)
    assert (w.start, w.nodes, w.cost, w.runtime) == (5.0, (1, 2), 70.0, 10.0)
    w = allocate_window(sl, request, "min_cost").window
    # at 50 nodes 0 (cost 20) and 1 (cost 20)
    assert (w.start, w.nodes, w.cost, w.runtime) == (50.0, (0, 1), 40.0, 20.0)
    assert [(s.start, s.end) for s in w.slots] == [(50.0, 70.0), (50.0, 60.0)]
    # a performance floor of 5 leaves only node 2
    fast = ResourceRequest(n=2, volume=40.0, min_performance=5.0)
    for criterion in CRITERIA:
        result = allocate_window(sl, fast, criterion)
        assert result.window is None and result.reason
    fast = ResourceRequest(n=1, volume=40.0, min_performance=5.0)
    w = allocate_window(sl, fast, "min_cost").window
    assert (w.start, w.nodes, w.cost) == (0.0, (2,), 50.0)


def test_slot_exactly_as_long_as_the_task_is_usable():
    sl = SlotList([Slot(0, 0.0, 10.0, 1.0, 2.0), Slot(1, 0.0, 10.0, 1.0, 2.0)])
    request = ResourceRequest(n=2, volume=20.0)  # T = 10: fills both slots exactly
    for criterion in CRITERIA:
        w = allocate_window(sl, request, criterion).window
        assert (w.start, w.runtime, w.cost) == (0.0, 10.0, 20.0)
        check_window(sl, request, w)
    too_long = ResourceRequest(n=2, volume=20.5)
    for criterion in CRITERIA:
        assert allocate_window(sl, too_long, criterion).window is None


def test_window_starts_at_a_slot_start_inside_other_slots():
    # Node 1 becomes free at 25, inside node 0's slot: the window starts at 25.
    sl = SlotList([Slot(0, 0.0, 100.0, 1.0, 1.0), Slot(1, 25.0, 60.0, 1.0, 1.0)])
    w = allocate_window(sl, ResourceRequest(n=2, time=30.0, budget=1e6), "amp").window
    assert w.start == 25.0
    # T = 40 no longer fits node 1's slot at all
    result = allocate_window(sl, ResourceRequest(n=2, time=40.0), "amp")
    assert result.window is None and "node" in result.reason


@pytest.mark.parametrize("budget", [1000.0, math.inf])
def test_no_concurrent_slots(budget):
    sl = SlotList([Slot(0, 0.0, 10.0, 1.0, 1.0), Slot(1, 20.0, 30.0, 1.0, 1.0)])
    request = ResourceRequest(n=2, time=5.0, budget=budget)
    for criterion in CRITERIA:
        result = allocate_window(sl, request, criterion)
        assert result.window is None
        assert "concurrent" in result.reason


@pytest.mark.parametrize("criterion", CRITERIA)
def test_more_nodes_requested_than_exist(criterion):
    result = allocate_window(market(), ResourceRequest(n=5, time=1.0), criterion)
    assert result.window is None and not result.success
    assert "n=5" in result.reason and "4 node" in result.reason


@pytest.mark.parametrize("criterion", CRITERIA)
def test_empty_slot_list(criterion):
    result = allocate_window(SlotList(), ResourceRequest(n=1, time=1.0), criterion)
    assert result.window is None and result.reason


@pytest.mark.parametrize("criterion", CRITERIA)
def test_zero_budget_with_free_nodes(criterion):
    sl = SlotList([Slot(0, 5.0, 10.0, 0.0, 1.0), Slot(1, 0.0, 10.0, 3.0, 1.0)])
    w = allocate_window(sl, ResourceRequest(n=1, time=2.0, budget=0.0), criterion).window
    assert (w.start, w.nodes, w.cost) == (5.0, (0,), 0.0)


def test_min_cost_tie_goes_to_the_earliest_start():
    sl = SlotList([Slot(0, 0.0, 10.0, 2.0, 1.0), Slot(1, 20.0, 30.0, 2.0, 1.0)])
    w = allocate_window(sl, ResourceRequest(n=1, time=5.0), "min_cost").window
    assert (w.start, w.nodes) == (0.0, (0,))


def test_slots_of_one_node_with_different_prices():
    # The node's first slot is dear, its later slot cheap; only the cheap one is affordable.
    sl = SlotList([Slot(0, 0.0, 10.0, 100.0, 1.0), Slot(0, 20.0, 40.0, 1.0, 1.0)])
    request = ResourceRequest(n=1, time=5.0, budget=10.0)
    for criterion in CRITERIA:
        result = allocate_window(sl, request, criterion)
        assert result.window is not None, f"{criterion}: {result.reason}"
        assert (result.window.start, result.window.cost) == (20.0, 5.0)


def test_allocation_does_not_modify_the_slot_list():
    sl = market()
    before = [tuple(getattr(sl, f).tolist()) for f in ("node", "start", "end", "price")]
    for criterion in CRITERIA:
        allocate_window(sl, ResourceRequest(n=2, time=10.0, budget=60.0), criterion)
    assert [tuple(getattr(sl, f).tolist()) for f in ("node", "start", "end", "price")] == before


def test_window_can_be_cut_and_next_search_avoids_it():
    sl = market()
    request = ResourceRequest(n=2, time=10.0, budget=math.inf)
    first = allocate_window(sl, request, "amp").window
    rest = sl.cut(first)
    second = allocate_window(rest, request, "amp").window
    assert (first.start, first.nodes) == (0.0, (0, 1))
    assert (second.start, second.nodes) == (10.0, (0, 1))
    with pytest.raises(SlotError):
        rest.cut(first)


# --------------------------------------------------------------------------------------------
# requests and errors


@pytest.mark.parametrize(
    "kwargs",
    [
        {"n": 0, "volume": 1.0},
        {"n": -3, "volume": 1.0},
        {"n": 1.5, "volume": 1.0},
        {"n": 2.0, "volume": 1.0},
        {"n": True, "volume": 1.0},
        {"n": "2", "volume": 1.0},
        {"n": None, "volume": 1.0},
        {"n": 2, "volume": 1.0, "time": 1.0},
        {"n": 2},
        {"n": 2, "volume": 0.0},
        {"n": 2, "volume": -1.0},
        {"n": 2, "volume": math.nan},
        {"n": 2, "volume": math.inf},
        {"n": 2, "time": 0.0},
        {"n": 2, "time": -5.0},
        {"n": 2, "time": math.nan},
        {"n": 2, "volume": 1.0, "budget": -1.0},
        {"n": 2, "volume": 1.0, "budget": -math.inf},
        {"n": 2, "volume": 1.0, "budget": math.nan},
        {"n": 2, "volume": 1.0, "min_performance": -1.0},
        {"n": 2, "volume": 1.0, "min_performance": math.nan},
    ],
    ids=repr,
)
def test_bad_request_raises_request_error(kwargs):
    with pytest.raises(RequestError) as info:
        ResourceRequest(**kwargs)
    assert isinstance(info.value, ValueError)
    assert isinstance(info.value, VosimError)
    assert str(info.value)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"n": 1, "volume": 1e-9},
        {"n": np.int64(3), "time": 2.0},
        {"n": 4, "volume": 10, "budget": 0.0},
        {"n": 4, "volume": 10.0, "budget": math.inf},
        {"n": 1, "time": 1.0, "min_performance": 0.0},
    ],
    ids=repr,
)
def test_good_requests(kwargs):
    ResourceRequest(**kwargs)


def test_request_durations():
    r = ResourceRequest(n=5, volume=750.0, budget=1500.0)
    assert r.durations(np.array([5.0, 10.0])).tolist() == [150.0, 75.0]
    r = ResourceRequest(n=5, time=12.0)
    assert r.durations(np.array([5.0, 10.0])).tolist() == [12.0, 12.0]
    assert ResourceRequest(n=1, time=1.0).budget == math.inf


@settings(max_examples=400, deadline=None)
@given(
    # integral instances tie often: equal costs, task times and starts
    st.one_of(float_instances(), int_instances(), int_instances(per_node=False)),
    st.integers(0, 3),
    st.sampled_from(["amp", "min_cost", "min_runtime", "min_finish"]),
)
def test_exact_criteria_for_one_node_equal_the_scan(case, repeat, name):
    """The n = 1 shortcut of each exact criterion gives the window, reason and stats of its scan."""
    from vosim.allocators import aep

    scans = {
        "amp": aep._amp_scan,
        "min_cost": aep._min_cost_scan,
        "min_runtime": aep._min_runtime_scan,
        "min_finish": aep._min_finish_scan,
    }
    slots, request = case
    request = ResourceRequest(
        n=1,
        volume=request.volume,
        time=request.time,
        budget=request.budget,
        min_performance=request.min_performance,
    )
    # repeated starts and ties: slots of other nodes beginning where an earlier one does,
    # of equal task price (k = 0) or dearer, and slower but cheaper ones that cover as long
    if repeat and len(slots):
        extra = [
            Slot(20 + k, s.start, s.end + k, s.price * (1 + k), s.performance)
            for k, s in enumerate(list(slots)[:repeat])
        ] + [
            Slot(30 + k, s.start, s.end + 200, s.price / 8, s.performance / 2)
            for k, s in enumerate(list(slots)[:repeat])
        ]
        slots = SlotList(list(slots) + extra)
    fast, scan = getattr(aep, name)(slots, request), scans[name](slots, request)
    assert fast.window == scan.window
    assert fast.reason == scan.reason
    assert fast.stats == scan.stats


@settings(max_examples=400, deadline=None)
@given(st.one_of(float_instances(), int_instances(), int_instances(per_node=False)))
def test_min_runtime_by_amp_per_threshold_equals_the_threshold_sweep_at_every_start(case):
    """minRuntime as AMP on the slots no longer than each task time in turn gives the window
    of the plain procedure: the shortest runtime at every candidate start (a threshold sweep
    per start), the least over starts, ties to the earliest start."""
    from vosim.allocators import aep

    slots, request = case
    got = aep._min_runtime_scan(slots, request)
    scan = aep._prepare(slots, request)
    if isinstance(scan, str):
        assert got.window is None and got.reason == scan
        return
    best, best_t = np.inf, np.inf
    for block in aep._blocks(scan, first=aep._MIN_BLOCK):
        runtime = aep._min_runtime_rows(block, scan, request.n)
        j = int(np.argmin(runtime))
        if runtime[j] < best:
            best, best_t = float(runtime[j]), block.t[j]
    want = aep._result("min_runtime", slots, scan, request, best_t, best)
    assert got.window == want.window
    assert got.reason == want.reason
