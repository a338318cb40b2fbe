"""The cyclic scheduling scheme: a job's own interval (no window beyond ``look_ahead`` task
times) and the earliest affordable start noted beside the window chosen."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from vosim.agents.execution import Execution
from vosim.allocators.base import ResourceRequest, allocate_window
from vosim.core.slots import Slot, SlotList
from vosim.errors import ParameterError
from vosim.model import VOModel
from vosim.policies.base import CycleState
from vosim.policies.cyclic_scheme import CyclicScheme, _searched


def _scheme(look_ahead: float, performance=(2.0, 4.0)) -> CyclicScheme:
    perf = np.asarray(performance)
    return CyclicScheme(
        jobs=1,
        price=np.ones(perf.size),
        performance=perf,
        scheduling_interval=10_000.0,
        criterion_allocators={"cost": "min_cost"},
        look_ahead=look_ahead,
        reference_performance=2.0,
    )


def test_a_cost_minded_job_takes_the_cheap_far_window_only_within_its_interval():
    # node 0 (slow, cheap) is free only from 500; node 1 (fast, dear) now. V = 200 at the
    # reference performance 2: T_j = 100, so L_j = look_ahead * 100.
    slots = SlotList([Slot(0, 500.0, 10_000.0, 1.0, 2.0), Slot(1, 0.0, 10_000.0, 5.0, 4.0)])
    job = ResourceRequest(index=0, n=1, volume=200.0, budget=1e9, criterion="cost")

    def decide(look_ahead):
        state = CycleState(0.0, 10_000.0, slots, (), (), arrived=(job,))
        ((_, window),) = _scheme(look_ahead).decide(state).reserve
        return window

    assert decide(math.inf).start == 500.0  # the papers' one interval: the cheapest anywhere
    assert decide(6.0).start == 500.0  # [0, 600) holds [500, 600) on node 0
    near = decide(5.0)  # [0, 500): node 0's slot is out of reach
    assert near.start == 0.0 and near.spans.node.tolist() == [1]
    # the same window as the search over the owners' free time of [0, 500) itself
    short = SlotList([Slot(1, 0.0, 500.0, 5.0, 4.0)])
    oracle = allocate_window(short, ResourceRequest(n=1, volume=200.0, budget=1e9), "min_cost")
    assert (near.start, near.cost) == (oracle.window.start, oracle.window.cost)


def test_look_ahead_must_be_positive_and_know_the_reference_performance():
    with pytest.raises(ParameterError, match="look_ahead"):
        _scheme(0.0)
    with pytest.raises(ParameterError, match="reference_performance"):
        CyclicScheme(1, np.ones(1), np.ones(1), 600.0, look_ahead=6.0)


def test_every_window_of_a_run_lies_in_its_jobs_interval(monkeypatch):
    # a real trace: each window reserved at time t (a new job's or a move's) ends by
    # t + min(L, look_ahead * V / p_ref)
    seen = []
    reserve = Execution.reserve

    def spy(self, job, window, uncertain=None):
        seen.append((self.model.time, job.volume, window.start, float(window.spans.end.max())))
        return reserve(self, job, window, uncertain)

    monkeypatch.setattr(Execution, "reserve", spy)
    model = VOModel(trace="UniLu-Gaia-2014-2", jobs=300, rng=3, look_ahead=2.0)
    model.run()
    p_ref = model.reference_performance
    t, volume, start, end = (np.array(c) for c in zip(*seen, strict=True))
    reach = np.minimum(model.scheduling_interval, 2.0 * volume / p_ref)
    assert (start >= t).all()
    assert (end <= t + reach * (1 + 1e-12)).all()
    # the bound binds: without it some windows reach further than their jobs' intervals
    seen.clear()
    VOModel(trace="UniLu-Gaia-2014-2", jobs=300, rng=3, look_ahead=math.inf).run()
    t, volume, start, end = (np.array(c) for c in zip(*seen, strict=True))
    reach = np.minimum(model.scheduling_interval, 2.0 * volume / p_ref)
    assert (end > t + reach).any()


@pytest.mark.parametrize("preset", ["aep", "vo-preferences"])
def test_the_papers_experiments_are_unchanged_at_the_default(preset):
    # every job of AEP §3.1 and VO Preferences §4 is at least 1/6 of the interval long on the
    # slowest node, so its own interval is the whole one
    from vosim.scenario import Scenario

    def run(look_ahead):
        values = Scenario.preset(preset, jobs=150, look_ahead=look_ahead).kwargs()
        model = VOModel(**values, rng=5)
        assert model.reference_performance == 2.0  # the papers' T is on the slowest node
        model.run()
        return model.job_frame()

    pd.testing.assert_frame_equal(run(6.0), run(math.inf))


SLOTS = SlotList([Slot(0, 500.0, 10_000.0, 1.0, 2.0), Slot(1, 0.0, 10_000.0, 5.0, 4.0)])


@pytest.mark.parametrize(
    ("criterion", "start"),
    [("cost", 500.0), ("finish", 0.0)],  # node 0 cheap from 500, node 1 dear from now
)
def test_the_earliest_affordable_start_is_noted_beside_the_window_chosen(criterion, start):
    scheme = CyclicScheme(
        jobs=1,
        price=np.array([1.0, 5.0]),
        performance=np.array([2.0, 4.0]),
        scheduling_interval=10_000.0,
    )
    job = ResourceRequest(index=0, n=1, volume=200.0, budget=1e9, criterion=criterion)
    decisions = scheme.decide(CycleState(0.0, 10_000.0, SLOTS, (), (), arrived=(job,)))
    ((_, window),) = decisions.reserve
    assert window.start == start
    assert decisions.earliest == {0: 0.0}  # node 1 now was affordable either way


def test_an_unaffordable_earlier_window_is_queueing_not_choice():
    scheme = CyclicScheme(
        jobs=1,
        price=np.array([1.0, 5.0]),
        performance=np.array([2.0, 4.0]),
        scheduling_interval=10_000.0,
    )
    # budget 150: node 1 (5 per unit for 50 units: 250) is out of reach, node 0 costs 100
    job = ResourceRequest(index=0, n=1, volume=200.0, budget=150.0, criterion="finish")
    decisions = scheme.decide(CycleState(0.0, 10_000.0, SLOTS, (), (), arrived=(job,)))
    ((_, window),) = decisions.reserve
    assert window.start == 500.0 and decisions.earliest == {0: 500.0}


def _availability_scheme() -> CyclicScheme:
    return CyclicScheme(
        jobs=1,
        price=np.ones(2),
        performance=np.full(2, 2.0),
        scheduling_interval=10_000.0,
        criterion_allocators={"availability": "max_availability"},
    )


@pytest.mark.parametrize(
    ("slots", "global_p", "awake"),
    [
        # both nodes free together but taken for sure: the search reads P_a = 0 and fails;
        # the chains move with time, so the class is searched again at the next cycle
        (SlotList([Slot(0, 0.0, 10_000.0, 1.0, 2.0), Slot(1, 0.0, 10_000.0, 1.0, 2.0)]), 1.0, True),
        # never free together: no P_a is read, and no later cycle can do better on these slots
        (SlotList([Slot(0, 0.0, 300.0, 1.0, 2.0), Slot(1, 400.0, 700.0, 1.0, 2.0)]), 0.0, False),
    ],
)
def test_under_uncertainty_only_a_failure_on_p_a_keeps_its_class_awake(slots, global_p, awake):
    from vosim.market.utilization_schedule import UtilizationSchedule

    scheme = _availability_scheme()
    assert scheme.fast  # classes, even though windows can fail
    job = ResourceRequest(index=0, n=2, volume=400.0, budget=1e9, criterion="availability")
    uncertain = UtilizationSchedule.from_chains(2, global_p=global_p)
    state = CycleState(0.0, 10_000.0, slots, (), (), arrived=(job,), availability=uncertain)
    assert scheme.decide(state).reserve == []
    assert "slots" in scheme.last_code(0)[1] or "available" in scheme.last_code(0)[1]
    wake = scheme.classes.wake[scheme.classes.of[0]]
    assert (wake == -math.inf) if awake else (wake > 0.0)
    # without uncertainty (P_a = 1) the first domain has a window
    if awake:
        plain = _availability_scheme().decide(
            CycleState(0.0, 10_000.0, slots, (), (), arrived=(job,))
        )
        assert len(plain.reserve) == 1


def _burst_decisions(monkeypatch, reference: str, chain: str, plain=_searched):
    """One cycle of four identical jobs and another, with three alternatives each.

    Each node has a slot long enough for a task, but never both at once: every job passes
    the screen and its search fails, on a slot list that never changes.
    """
    from vosim.allocators.vo_choice import VOPolicy
    from vosim.core.code_path import REFERENCE_ENV
    from vosim.policies import cyclic_scheme

    monkeypatch.setenv(REFERENCE_ENV, reference)
    searches = []

    def counted(slots, request, search):
        searches.append(request.n)
        return plain(slots, request, search)

    monkeypatch.setattr(cyclic_scheme, "_searched", counted)
    scheme = CyclicScheme(
        jobs=5,
        price=np.ones(2),
        performance=np.full(2, 2.0),
        scheduling_interval=1_000.0,
        vo_policy=VOPolicy(max_alternatives=3),
        criterion_allocators={"finish": chain},
    )
    slots = SlotList([Slot(0, 0.0, 300.0, 1.0, 2.0), Slot(1, 300.0, 700.0, 1.0, 2.0)])
    burst = [
        ResourceRequest(index=j, n=2, volume=400.0, budget=1e9, criterion="finish")
        for j in range(4)
    ]
    other = ResourceRequest(index=4, n=2, volume=300.0, budget=1e9, criterion="finish")
    state = CycleState(0.0, 1_000.0, slots, (), (), arrived=(*burst, other))
    decisions = scheme.decide(state)
    codes = [scheme.last_code(j) for j in range(5)]
    return decisions, searches, codes, scheme.fallbacks.to_dict()


@pytest.mark.parametrize("chain", ["min_finish", "min_cost>amp"])
def test_a_burst_of_identical_jobs_is_searched_once_per_slot_list(monkeypatch, chain):
    fast, searches, codes, counted = _burst_decisions(monkeypatch, "0", chain)
    plain, every, plain_codes, plain_counted = _burst_decisions(monkeypatch, "1", chain)
    assert fast.reserve == plain.reserve == [] and codes == plain_codes  # the same cycle
    assert counted == plain_counted  # a chain counts each job's failure, searched or not
    assert codes[0][1] and codes[0] == codes[3]  # each job records the search's failure
    assert len(every) == 5  # the plain path searches every job
    assert len(searches) == 2  # the burst's first job, and the other request
