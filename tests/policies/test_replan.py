"""Re-planning of unstarted reservations: moves earlier, never later, no worse."""

from __future__ import annotations

import math
from itertools import pairwise

import numpy as np
import pandas as pd
import pytest
from batch_oracle import random_trace, swf_frame
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from vosim.allocators.base import Window
from vosim.core import ResourceRequest, Slot, SlotList
from vosim.model import VOModel
from vosim.policies.base import CycleState, Decisions
from vosim.policies.replan import Replanner, earlier_window, replan

STATES = {"completed", "rejected", "withdrawn", "unfinished"}


def _window(node, start, length, price=1.0, perf=1.0):
    span = Slot(node, start, start + length, price, perf)
    return Window(slots=(span,), start=start, runtime=length, cost=price * length)


# -- the search on a hand-made slot list --------------------------------------------------------
def test_a_reservation_moves_only_to_an_earlier_window_no_worse_for_its_user():
    job = ResourceRequest(index=0, n=1, volume=100.0, budget=1e9)
    old = _window(0, 200.0, 100.0)  # node 0, [200, 300), cost 100
    slots = SlotList(
        [
            Slot(0, 0.0, 50.0, 1.0, 1.0),  # too short
            Slot(0, 300.0, 1000.0, 1.0, 1.0),
            Slot(1, 0.0, 1000.0, 5.0, 1.0),  # earlier, but 5x the cost
            Slot(2, 0.0, 1000.0, 1.0, 0.5),  # earlier and as cheap per time, but half as fast
        ]
    )
    assert earlier_window(slots, job, old, 0.0) is None
    # node 0 freed [150, 200): putting the reservation back joins it to [150, 1000)
    joined = SlotList([*slots, Slot(0, 150.0, 200.0, 1.0, 1.0)])
    w = earlier_window(joined, job, old, 0.0)
    assert (w.nodes, w.start, w.runtime, w.cost) == ((0,), 150.0, 100.0, 100.0)
    # a budget below the old window's cost: no move at all
    poor = ResourceRequest(index=0, n=1, volume=100.0, budget=50.0)
    assert earlier_window(joined, poor, old, 0.0) is None


def test_replan_goes_in_priority_order_and_the_policy_decides_on_what_is_left():
    first, second = (ResourceRequest(index=k, n=1, volume=100.0, budget=1e9) for k in (3, 7))
    old = [_window(0, 500.0, 100.0), _window(1, 600.0, 100.0)]
    slots = SlotList(
        [
            Slot(0, 600.0, 1000.0, 1.0, 1.0),
            Slot(1, 0.0, 150.0, 1.0, 1.0),  # room for one of the two from t = 0
            Slot(1, 700.0, 1000.0, 1.0, 1.0),
        ]
    )
    state = CycleState(0.0, 1000.0, slots, [], [(first, old[0]), (second, old[1])])
    result = replan(state)
    # the first in priority order takes the free time; the second then gets node 0's
    moved = dict(result.decisions.reserve)
    assert result.decisions.cancel == [3, 7]
    assert moved[3].start == 0.0 and moved[3].nodes == (1,)
    assert moved[7].start == 500.0 and moved[7].nodes == (0,)
    assert set(result.freed.tolist()) == {0, 1}

    seen = []

    class Policy:
        name = "stub"

        def decide(self, s):
            seen.append(s)
            return Decisions(reserve=[(9, _window(1, 100.0, 10.0))]).settle()

    decisions = Replanner().decide(Policy(), state)
    assert decisions.cancel == [3, 7]
    assert [k for k, _ in decisions.reserve] == [3, 7, 9]  # moves first
    assert decisions.stats["moved"] == 2
    (after,) = seen
    assert set(after.freed.tolist()) == {0, 1}
    assert [w.start for _, w in after.reserved] == [0.0, 500.0]
    # the moved windows are busy in the slots the policy sees
    busy = after.slots
    assert not ((busy.node == 1) & (busy.start < 100.0)).any()


# -- a model run ---------------------------------------------------------------------------------
def _early_end_model(replan_mode):
    """Job A (4 of 4 processors, estimate 1000) ends at 500; B (submitted at 1) is reserved
    at A's estimated end, 1000, by the cycle at 300 (one interval ``L`` for every job: B's
    own, 6 x 100, would not reach it); the cycle at 600 sees A ended."""
    trace = swf_frame([0, 1], [4, 4], [1000, 100], [500, 50], 4)
    model = VOModel(
        trace=trace,
        jobs=None,
        machine=True,
        policy="css",
        cycle_period=300.0,
        replan=replan_mode,
        look_ahead=math.inf,
        rng=1,
    )
    model.run()
    return model


def test_an_early_end_lets_a_waiting_reservation_start_earlier_next_cycle():
    model = _early_end_model("always")
    a, b = model.jobs
    assert (
        model.ledger[a.index].state,
        model.ledger[a.index].start,
        model.ledger[a.index].finish,
    ) == ("completed", 0.0, 500.0)
    assert (model.ledger[b.index].state, model.ledger[b.index].start) == ("completed", 600.0)
    assert model.metascheduler.replanner.moved == 1
    # the move is not a new choice: the user is evaluated once per job
    assert sum(u.evaluated for u in model.users) == 2
    never = _early_end_model("never")
    assert never.metascheduler.replanner is None
    assert never.ledger.start[1] == 1000.0


def test_replan_leaves_policies_that_never_reserve_ahead_unchanged():
    frames = []
    for r in ("always", "never"):
        model = VOModel(trace="UniLu-Gaia-2014-2", jobs=150, policy="easy", replan=r, rng=2)
        model.run()
        frames.append(model.job_frame())
    assert (frames[0]["state"] == "completed").sum() > 100
    pd.testing.assert_frame_equal(*frames)
    model = VOModel(trace="UniLu-Gaia-2014-2", jobs=10, policy="conservative", rng=2)
    assert model.metascheduler.replanner is None  # it re-plans itself


@pytest.mark.parametrize(
    "scenario",
    [
        {"jobs": 200, "rng": 4},
        # the main study's alternatives and U_a, where windows decided fail to bind
        {
            "jobs": 1000,
            "first_job": 18000,
            "offered_load": 0.6,
            "max_alternatives": 3,
            "vo_objective": "runtime",
            "ua": 100.0,
            "rng": 5220146013781160048,
        },
    ],
)
def test_searching_only_what_may_move_gives_the_same_moves(scenario):
    """The static market's shortcut (search a reservation only once after it is made and
    after freed time it could use) decides exactly as searching every one every pass."""

    def run(static):
        model = VOModel(trace="UniLu-Gaia-2014-2", **scenario)
        model.metascheduler.replanner.static = static
        model.run()
        return model

    fast, full = run(True), run(False)
    assert fast.metascheduler.replanner.moved > 0
    assert fast.metascheduler.replanner.moved == full.metascheduler.replanner.moved
    pd.testing.assert_frame_equal(fast.job_frame(), full.job_frame())


def test_under_accounts_only_a_hold_of_this_budget_period_moves():
    """Cancelling returns a window's hold only within the period it was taken in; a move of
    an older hold would charge the new window to this period on top, so none happens."""
    model = VOModel(
        trace="UniLu-Gaia-2014-2", jobs=300, rng=5, budget_period=86400.0, budget_allowance=0.5
    )
    periods = []
    cancel = model.metascheduler.execution.cancel

    def spy(job):
        periods.append((model.ledger[job.index].held_in, model.budget_periods))
        return cancel(job)

    model.metascheduler.execution.cancel = spy
    model.run()
    assert model.metascheduler.replanner.moved == len(periods) > 0
    assert all(held == now for held, now in periods), periods


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**16),
    n=st.integers(8, 40),
    procs=st.sampled_from([8, 16, 32]),
    option=st.sampled_from(["first-fit", "alternatives", "accounts", "availability"]),
)
def test_replanning_never_delays_a_reserved_start(seed, n, procs, option):
    trace = random_trace(seed, n, procs)
    options = {
        "first-fit": {},
        "alternatives": {"max_alternatives": 3, "ua": 50.0},
        "accounts": {"budget_period": 6 * 3600.0, "budget_allowance": 0.5},
        "availability": {"availability": True},
    }[option]
    # patience 5 days: a job as wide as the domain can starve behind the owners' local jobs
    # (each arrival displaces its reservation); the drain stops with its withdrawal
    model = VOModel(
        trace=trace, jobs=None, owners=2, policy="css", replan="always", rng=seed,
        patience=5 * 86400.0, **options,
    )  # fmt: skip
    starts: dict[tuple[int, int, int], list[float]] = {}
    reserve = model.metascheduler.execution.reserve

    def spy(job, window, uncertain=None):
        # a failed or displaced job's new window is a new reservation
        ledger = model.ledger
        key = (job.index, ledger.failures[job.index], ledger.displaced[job.index])
        starts.setdefault(key, []).append(window.start)
        reserve(job, window, uncertain)

    model.metascheduler.execution.reserve = spy
    model.run()
    for (index, _, _), promised in starts.items():
        # every move is strictly earlier: no reserved start is ever later than the one before
        assert all(b < a for a, b in pairwise(promised)), (index, promised)
    for job in model.jobs:
        assert model.ledger[job.index].state in STATES
        if (
            model.ledger[job.index].state == "completed"
            and model.ledger[job.index].failures == 0
            and model.ledger[job.index].displaced == 0
        ):
            assert model.ledger[job.index].start <= starts[job.index, 0, 0][0]
    frame = model.job_frame()
    assert len(frame) == n and set(frame["state"]) <= STATES


@pytest.mark.parametrize("name", ["aep", "vo-preferences"])
def test_the_papers_presets_do_not_replan(name):
    from vosim.scenario import Scenario

    assert Scenario.preset(name).replan == "never"
    assert Scenario().replan == "always"


def test_replanning_under_utilization_uncertainty_moves_to_no_lower_availability():
    """With availability, reservations move too, never to a window of lower ``P_a^w``."""
    from vosim.market.uncertainty import window_availability

    # whole nodes: the availability knapsack is slow on Gaia's 2,004 processors
    model = VOModel(jobs=150, availability=True, rng=1, resources="nodes")
    assert model.metascheduler.replanner is not None
    held: dict[int, object] = {}
    moves = []
    reserve = model.metascheduler.execution.reserve

    def spy(job, window, uncertain=None):
        key = (
            job.index,
            model.ledger[job.index].failures,
        )  # after a failure a window is a new reservation
        if key in held:
            before = window_availability(held[key], uncertain)
            moves.append((window_availability(window, uncertain), before))
        held[key] = window
        reserve(job, window, uncertain)

    model.metascheduler.execution.reserve = spy
    model.run()
    assert model.metascheduler.replanner.moved == len(moves) > 0
    assert all(after >= before for after, before in moves)


# -- the budget filter of the search, against plain sums ----------------------------------------
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    rows=st.lists(
        st.tuples(  # one slot per node (nodes alike: the groups)
            st.sampled_from([0.0, 10.0, 20.0, 35.0]),  # start
            st.sampled_from([40.0, 60.0, 100.0]),  # length
            st.sampled_from([1.0, 2.0, 3.0]),  # price
            st.sampled_from([1.0, 2.0]),  # performance
        ),
        min_size=1,
        max_size=24,
    ),
    n=st.integers(1, 6),
    budget=st.sampled_from([20.0, 60.0, 150.0, 1e9]),
)
def test_the_budget_filter_keeps_exactly_the_starts_whose_cheapest_tasks_fit(rows, n, budget):
    """``_affordable`` (slots alike counted as one group) yields the starts at which the ``n``
    cheapest tasks that fit sum to at most the budget, as a plain sort-and-sum at each start
    says; so it never drops a start where ``window_at`` finds a window."""
    from vosim.policies import replan as rp
    from vosim.policies.batch_windows import task_starts, window_at

    slots = SlotList([Slot(k, a, a + d, p, f) for k, (a, d, p, f) in enumerate(rows)])
    job = ResourceRequest(index=0, n=n, volume=20.0, budget=budget)
    starts = np.unique(np.concatenate([slots.start, slots.start + 5.0]))
    got = list(rp._affordable(slots, job, starts, 0.0))
    cost = rp._task_cost(slots, job)
    lo, hi = task_starts(slots, job, 0.0)
    plain = []
    for t in starts.tolist():
        fits = np.sort(cost[(lo <= t) & (t <= hi)])[:n]
        if fits.sum() <= budget * (1 + 1e-6):
            plain.append(t)
    if starts.size > rp._FEW_STARTS:  # else every start is yielded as it is
        assert got == plain
    assert {t for t in starts.tolist() if window_at(slots, t, job) is not None} <= set(got)


@st.composite
def _near_cases(draw):
    """Free slots of a few nodes on a grid of 10, reservations ahead on other nodes or on
    free nodes' later time, and a set of nodes whose time was freed."""
    k = draw(st.integers(2, 6))
    price = draw(st.lists(st.sampled_from([1.0, 2.0, 3.0]), min_size=k, max_size=k))
    perf = draw(st.lists(st.sampled_from([1.0, 2.0]), min_size=k, max_size=k))
    rows = []
    for node in range(k):
        a = draw(st.sampled_from([0.0, 10.0, 20.0, 30.0]))
        b = a + draw(st.sampled_from([10.0, 20.0, 40.0]))
        rows.append(Slot(node, a, b, price[node], perf[node]))
    slots = SlotList(rows)
    reserved = []
    for index in range(draw(st.integers(1, 4))):
        n = draw(st.integers(1, 3))
        start = draw(st.sampled_from([40.0, 60.0, 80.0]))  # after every free slot above
        nodes = sorted(draw(st.permutations(range(k + 3)))[:n])  # k.. : nodes with no slot
        spans = tuple(
            Slot(i, start, start + 20.0, price[i] if i < k else 1.5, perf[i] if i < k else 1.0)
            for i in nodes
        )
        cost = sum(s.price * 20.0 / s.performance for s in spans)
        budget = draw(st.sampled_from([20.0, 50.0, 1e9]))
        job = ResourceRequest(index=index, n=n, volume=20.0, budget=budget)
        reserved.append((job, Window(slots=spans, start=start, runtime=20.0, cost=cost)))
    near = np.array(sorted(draw(st.sets(st.integers(0, k + 2), min_size=1))), dtype=np.int64)
    return slots, reserved, near, draw(st.sampled_from([0.0, 5.0, 10.0]))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_near_cases())
def test_the_freed_node_filter_is_necessary_and_the_same_for_all_at_once(case):
    """``_may_use`` (with the cheapest task as the other tasks' least cost) is False only
    where the search restricted to the freed nodes finds nothing; ``_may_use_each`` answers
    as ``_may_use`` for each reservation."""
    from vosim.policies import replan as rp

    slots, reserved, near, now = case
    near_slots = rp._rows(slots, np.isin(slots.node, near))
    lows = np.array([rp._cheapest_task(slots, job, old) for job, old in reserved])
    each = rp._may_use_each(near_slots, near, reserved, now, lows)
    for (job, old), low, at_once in zip(reserved, lows, each, strict=True):
        may = rp._may_use(near_slots, near, job, old, now, low)
        assert may == at_once
        if not may:
            assert earlier_window(slots, job, old, now, near) is None
