"""Request classes: the class-level first-fit cycle equals the per-job one, and its bounds hold."""

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from vosim import VOModel
from vosim.allocators.aep import amp
from vosim.core import ResourceRequest, Slot, SlotList
from vosim.core.code_path import REFERENCE_ENV
from vosim.policies.request_classes import RequestClasses, tail_starts

AMP = dict.fromkeys(("finish", "runtime", "cost"), "amp")


def _records(fast: bool, **kwargs) -> tuple[pd.DataFrame, pd.DataFrame, VOModel]:
    with pytest.MonkeyPatch.context() as patch:  # the classes exist on the fast path only
        patch.setenv(REFERENCE_ENV, "0")
        model = VOModel(**kwargs)
    assert model.metascheduler.scheduler.fast  # a static market with first fit
    model.metascheduler.scheduler.fast = fast  # False: every waiting job searched every cycle
    model.run()
    return model.job_frame(), model.cycle_frame(), model


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    trace=st.sampled_from(["UniLu-Gaia-2014-2", "NASA-iPSC-1993-3.1-cln"]),
    jobs=st.integers(150, 400),  # 700 take minutes with processors as the resources (the default)
    seed=st.integers(0, 2**16),
    allocators=st.sampled_from([None, AMP]),
    accounts=st.booleans(),
)
# a returned hold (paid only for the time used) grows a balance mid-period: found by CI
@example(trace="UniLu-Gaia-2014-2", jobs=150, seed=0, allocators=None, accounts=True)
# NASA's whole-machine jobs: classes woken by freed time are held back by the concurrency bound
@example(trace="NASA-iPSC-1993-3.1-cln", jobs=300, seed=1, allocators=None, accounts=False)
def test_class_cycle_gives_the_per_job_cycle_records(trace, jobs, seed, allocators, accounts):
    # patience 2 days: a job as wide as NASA's domain starves behind the owners' online local
    # jobs, and the per-job path searches the whole queue every cycle until it leaves
    kwargs = dict(
        trace=trace, jobs=jobs, rng=seed, criterion_allocators=allocators, patience=2 * 86400.0
    )
    if accounts:
        kwargs.update(budget_period=3 * 86400.0, budget_allowance=0.3)
    jobs_slow, cycles_slow, _ = _records(False, **kwargs)
    jobs_fast, cycles_fast, model = _records(True, **kwargs)
    pd.testing.assert_frame_equal(cycles_fast, cycles_slow)
    # the reason of a job still waiting (also in Batsim's metadata) names its last search,
    # which may be an earlier cycle
    pd.testing.assert_frame_equal(
        jobs_fast.drop(columns=["reason", "metadata"]),
        jobs_slow.drop(columns=["reason", "metadata"]),
    )
    waiting = [
        j
        for j in model.jobs
        if model.ledger[j.index].state == "unfinished" and math.isnan(model.ledger[j.index].start)
    ]
    assert all(model.ledger[j.index].reason for j in waiting)


def test_a_class_fails_at_most_once_per_cycle(monkeypatch):
    """However long the queue, a cycle searches each request class until its first failure.

    Counted where a failed search is recorded (the class's code), which both the plain loop
    and the compiled first fit write.
    """
    from vosim.allocators.request_screen import ALLOCATOR_FAILED

    failures: dict[float, set] = {}
    real = RequestClasses.set_code

    def counted(self, classes, code, cycle, reason=""):
        if code == ALLOCATOR_FAILED:
            seen = failures.setdefault(model.time, set())
            for c in classes.tolist():
                assert c not in seen, f"class {c} searched again after failing at {model.time}"
                seen.add(c)
        return real(self, classes, code, cycle, reason)

    monkeypatch.setattr(RequestClasses, "set_code", counted)
    monkeypatch.setenv(REFERENCE_ENV, "0")  # the classes: the fast path's
    # a long queue: whole nodes and 10-50 % local load (not the defaults)
    model = VOModel(
        trace="UniLu-Gaia-2014-2",
        jobs=2000,
        rng=1,
        criterion_allocators=AMP,
        resources="nodes",
        local_load=(0.1, 0.5),
        local_model="interval",
    )
    model.run()
    assert model.cycle_frame()["queue_length"].max() > 300
    # 2,000 jobs, < 200 distinct requests
    assert len(model.metascheduler.scheduler.classes) < 2000 / 10
    assert sum(len(v) for v in failures.values()) > 0


def test_fast_path_only_on_a_static_market_with_first_fit(monkeypatch):
    monkeypatch.setenv(REFERENCE_ENV, "1")  # the plain path: the per-job cycle
    assert not VOModel(jobs=50, rng=1).metascheduler.scheduler.fast
    monkeypatch.setenv(REFERENCE_ENV, "0")
    assert VOModel(jobs=50, rng=1).metascheduler.scheduler.fast
    assert not VOModel(jobs=50, rng=1, max_alternatives=3).metascheduler.scheduler.fast
    assert not VOModel(jobs=50, rng=1, pricing_policy="demand").metascheduler.scheduler.fast
    # windows that can fail: classes stay, a search that failed on P_a keeps its class awake
    assert VOModel(jobs=50, rng=1, availability=True).metascheduler.scheduler.fast


def _classes(*requests, price=(1.0, 1.0)):
    rc = RequestClasses(len(requests), np.ones(2), np.array(price), 100.0)
    for j, (n, v, c) in enumerate(requests):
        rc.assign(j, n, v, c, "cost", -1)
    return rc


def test_identical_requests_share_a_class():
    rc = RequestClasses(4, np.ones(2), np.ones(2), 100.0)
    a = rc.assign(0, 2, 10.0, 5.0, "cost", -1)
    assert rc.assign(1, 2, 10.0, 5.0, "cost", -1) == a
    assert rc.assign(2, 2, 10.0, 5.0, "finish", -1) != a  # another window criterion
    assert rc.assign(3, 2, 10.0, 5.0, "cost", 7) != a  # another user's account
    assert len(rc) == 3


def test_queue_order_is_job_index_order_through_adds_and_removals():
    rc = _classes(*[(1, 10.0, 5.0)] * 6)
    rc.add(np.array([0, 2, 5]))
    rc.add(np.array([1, 4]))  # same-time submissions out of order
    assert rc.members[0][rc.head[0] :] == [0, 1, 2, 4, 5]
    rc.remove(np.array([0, 1]))  # a prefix
    assert rc.head[0] == 2 and rc.count[0] == 3 and rc.total == 3
    rc.remove(np.array([4]))  # not a prefix
    assert rc.waiting().tolist() == [2, 5]
    assert rc.count[0] == 2 and rc.total == 2


def test_a_class_wakes_on_arrival_only_when_it_had_no_waiting_job():
    rc = _classes(*[(1, 10.0, 5.0)] * 3)
    rc.add(np.array([0]))
    rc.wake[0] = 50.0
    rc.add(np.array([1]))  # same request as a sleeping job: nothing new to search for
    assert rc.wake[0] == 50.0
    rc.remove(np.array([0, 1]))
    rc.add(np.array([2]))  # the class was empty, its wake time not kept up to date
    assert rc.wake[0] == -math.inf
    assert rc.awake(0.0).tolist() == [0]


def _sl(*slots):
    return SlotList([Slot(node, a, b, price, perf) for node, a, b, price, perf in slots])


def test_tail_starts():
    slots = _sl((0, 0.0, 30.0, 1.0, 1.0), (0, 70.0, 100.0, 1.0, 1.0), (1, 0.0, 40.0, 1.0, 1.0))
    assert tail_starts(slots, 100.0, 3).tolist() == [70.0, 100.0, 100.0]


def test_sleep_until_the_tail_can_hold_a_task():
    # node 0 free at the end from 70, node 1 busy at the end: a 50-long task needs the
    # interval [t, t + 100) to reach 120, i.e. t >= 20
    rc = _classes((1, 50.0, 1e9))
    rc.add(np.array([0]))
    slots = _sl((0, 0.0, 30.0, 1.0, 1.0), (0, 70.0, 100.0, 1.0, 1.0), (1, 0.0, 40.0, 1.0, 1.0))
    assert amp(slots, ResourceRequest(n=1, volume=50.0, budget=1e9)).window is None
    rc.sleep(np.array([0]), np.array([1e9]), slots, 0.0)
    assert 19.99 < rc.wake[0] < 20.0
    assert rc.awake(19.0).size == 0 and rc.awake(20.0).tolist() == [0]


def test_sleep_ignores_nodes_the_budget_cannot_pay():
    rc = _classes((1, 50.0, 60.0), price=(2.0, 1.0))
    rc.add(np.array([0]))
    slots = _sl((0, 70.0, 100.0, 2.0, 1.0), (1, 90.0, 100.0, 1.0, 1.0))
    # node 0 (price 2: a task costs 100 > 60) cannot take it whatever time it frees
    rc.sleep(np.array([0]), np.array([60.0]), slots, 0.0)
    assert 39.99 < rc.wake[0] < 40.0  # node 1: 90 + 50 - 100
    rc.sleep(np.array([0]), np.array([10.0]), slots, 0.0)
    assert rc.wake[0] == math.inf  # no node affordable: only a new budget wakes it


def test_multi_node_class_sleeps_until_enough_nodes_can_run_at_once():
    # n = 2 tasks of 50 on three unit-speed nodes, L = 100: node 0 has [0, 60) (a task fits
    # from t in [0, 10]), node 1 is free from 50 to the end, node 2 is busy to the end. One
    # node at a time could take a task, so the single-node bound wakes at 50 + 50 - 100 = 0;
    # but two tasks run together only from t = 100 (nodes 1 and 2), ending at 150.
    rc = RequestClasses(1, np.ones(3), np.ones(3), 100.0)
    rc.assign(0, 2, 50.0, 1e9, "cost", -1)
    rc.add(np.array([0]))
    slots = _sl((0, 0.0, 60.0, 1.0, 1.0), (1, 50.0, 100.0, 1.0, 1.0))
    assert amp(slots, ResourceRequest(n=2, volume=50.0, budget=1e9)).window is None
    rc.sleep(np.array([0]), np.array([1e9]), slots, 0.0)
    assert 49.99 < rc.wake[0] < 50.0
    # with node 2 also free from 5 on, two tasks could run together from t = 5 (nodes 0, 2),
    # ending at 55 once the interval reaches 55: wake at -45, i.e. at once
    rc.sleep(
        np.array([0]), np.array([1e9]), _sl(*slots_rows(slots), (2, 5.0, 100.0, 1.0, 1.0)), 0.0
    )
    assert rc.wake[0] <= 0.0


def slots_rows(slots):
    return [(s.node, s.start, s.end, s.price, s.performance) for s in slots]


@pytest.mark.parametrize("speeds", [np.array([1.0, 2.0, 4.0]), np.linspace(1.0, 3.0, 40)])
def test_speed_groups_take_each_group_at_its_fastest(speeds):
    rc = RequestClasses(0, speeds, np.ones(speeds.size), 100.0)
    groups = rc._group_of
    assert groups.min() == 0 and groups.max() == rc._group_speed.size - 1 <= 15
    # every node's group is at least as fast as the node
    assert (rc._group_speed[groups] >= speeds).all()


def test_freed_time_wakes_the_classes_that_fit_in_it():
    rc = _classes((1, 50.0, 1e9), (1, 90.0, 1e9))
    rc.add(np.array([0, 1]))
    rc.wake[:] = 500.0
    # node 1 was freed: its slot [10, 70) holds 50 but not 90; it does not reach the end
    slots = _sl((0, 10.0, 20.0, 1.0, 1.0), (1, 10.0, 70.0, 1.0, 1.0))
    budget = np.full(2, 1e9)
    rc.wake_freed(np.array([1]), budget, slots, 10.0)
    assert rc.wake[0] == 10.0
    # for the 90-long class node 1 is busy at the end (f = 110): wake at 110 + 90 - 100
    assert 99.99 < rc.wake[1] < 100.0


@pytest.mark.parametrize("now", [0.0, 5.0])
def test_wake_freed_leaves_awake_and_empty_classes_alone(now):
    rc = _classes((1, 50.0, 1e9), (1, 60.0, 1e9))
    rc.add(np.array([0]))
    slots = _sl((0, 0.0, 100.0, 1.0, 1.0))
    rc.wake_freed(np.array([0]), np.full(2, 1e9), slots, now)
    assert rc.wake.tolist() == [-math.inf, -math.inf]


def _static_domain(draw_seed: int, nodes: int, horizon: float):
    """Random busy intervals on ``nodes`` unit-price nodes of speeds 1-3, fixed for ever."""
    rng = np.random.default_rng(draw_seed)
    performance = rng.integers(1, 4, nodes).astype(float)
    busy = []
    for k in range(nodes):
        t = 0.0
        while t < horizon:
            a = t + float(rng.choice([0.0, rng.uniform(0.0, 150.0)]))
            b = a + float(rng.uniform(5.0, 200.0))
            busy.append((k, a, b))
            t = b + float(rng.uniform(0.0, 120.0))
    node, a, b = (np.array(c) for c in zip(*busy, strict=True))
    return performance, node.astype(np.int64), a, b


def _slots_at(performance, busy, t: float, length: float) -> SlotList:
    from vosim.market.slots import free_slots

    ids = np.arange(performance.size)
    return free_slots(ids, np.ones(ids.size), performance, *busy, t, t + length)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**20),
    nodes=st.integers(1, 8),
    n=st.integers(1, 4),
    volume=st.sampled_from([40.0, 120.0, 300.0]),
    own=st.sampled_from([100.0, 250.0, 400.0]),
)
def test_no_window_appears_before_a_class_wakes(seed, nodes, n, volume, own):
    """The sleep bound and the concurrency bound on a static market: no cycle they skip
    (``t`` before the wake time) finds a window in the class's own interval ``[t, t + L_c)``;
    the own interval may be shorter than the pass's ``L`` (``look_ahead``)."""
    interval = 400.0
    performance, *busy = _static_domain(seed, nodes, 3000.0)
    request = ResourceRequest(n=n, volume=volume, budget=math.inf)
    rc = RequestClasses(1, performance, np.ones(nodes), interval)
    c = rc.assign(0, n, volume, math.inf, "amp", -1, own=own)
    rc.add(np.array([0]))
    for now in (0.0, 500.0, 1100.0):
        slots = _slots_at(performance, busy, now, interval)
        # the concurrency bound holds back a class never searched: no window from now on
        rc.wake[c] = -math.inf
        if rc.hold_back(np.array([c]), np.array([math.inf]), slots, now).size == 0:
            _assert_no_window(performance, busy, request, now, rc.wake[c], interval, own)
        if amp(slots.until(now + own), request).window is None:  # it sleeps after a search
            rc.sleep(np.array([c]), np.array([math.inf]), slots, now)
            _assert_no_window(performance, busy, request, now, rc.wake[c], interval, own)


def _assert_no_window(performance, busy, request, now, wake, interval, own):
    if not wake > now:  # awake: nothing skipped
        return
    for t in np.linspace(now, min(wake, now + 1500.0), 40, endpoint=False):
        later = _slots_at(performance, busy, float(t), interval).until(float(t) + own)
        assert amp(later, request).window is None, (now, t, wake)


@settings(max_examples=80, deadline=None)
@given(seed=st.integers(0, 2**20), nodes=st.integers(1, 6), times=st.integers(1, 5))
def test_tail_starts_at_several_times_is_a_scan_of_each_node(seed, nodes, times):
    """Every (time, node): the start of the node's slot that holds the time, by a plain scan."""
    performance, *busy = _static_domain(seed, nodes, 600.0)
    now, horizon = 50.0, 450.0
    slots = _slots_at(performance, busy, now, horizon - now)
    rng = np.random.default_rng(seed)
    at = np.unique(np.append(rng.choice(np.r_[slots.start, slots.end, 300.0], times), horizon))
    at = at[at > now]
    got = tail_starts(slots, horizon, nodes, at)
    for i, a in enumerate(at.tolist()):
        for k in range(nodes):
            holding = [s.start for s in slots if s.node == k and s.start <= a < s.end]
            holding += [s.start for s in slots if s.node == k and s.end == horizon]
            assert got[i, k] == (holding[0] if holding and holding[0] <= a else a)
        assert got[i].tolist() == tail_starts(slots, horizon, nodes, a).tolist()
