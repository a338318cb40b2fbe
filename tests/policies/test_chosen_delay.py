"""A job's wait split in two: the delay its user chose, and queueing (no earlier window)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from vosim.agents.execution import Execution
from vosim.core.slots import Slot, SlotList
from vosim.model import VOModel
from vosim.policies.base import CycleState, QueuedJob
from vosim.policies.cyclic_scheme import CyclicScheme

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
    job = QueuedJob(index=0, n=1, volume=200.0, budget=1e9, criterion=criterion)
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
    job = QueuedJob(index=0, n=1, volume=200.0, budget=150.0, criterion="finish")
    decisions = scheme.decide(CycleState(0.0, 10_000.0, SLOTS, (), (), arrived=(job,)))
    ((_, window),) = decisions.reserve
    assert window.start == 500.0 and decisions.earliest == {0: 500.0}


def _run(**kwargs):
    noted = []
    reserve = Execution.reserve

    def spy(self, job, window, uncertain=None):
        noted.append((job.index, job.earliest_start, window.start, self.model.time))
        return reserve(self, job, window, uncertain)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Execution, "reserve", spy)
        model = VOModel(trace="UniLu-Gaia-2014-2", jobs=300, rng=2, **kwargs)
        model.run()
    return model, np.array(noted)


def test_a_run_splits_every_wait_into_chosen_delay_and_queueing():
    model, noted = _run()
    # at a job's first reservation (a move keeps it) the earliest affordable start lies
    # between the pass and the window
    _, first = np.unique(noted[:, 0], return_index=True)
    _, earliest, start, now = noted[first].T
    assert (now <= earliest).all() and (earliest <= start).all()
    jobs = model.job_frame()
    ran = jobs["starting_time"].notna()
    chosen = jobs.loc[ran, "chosen_delay"]
    assert (chosen >= 0).all() and (chosen <= jobs.loc[ran, "waiting_time"] + 1e-9).all()
    assert jobs.loc[~ran, "chosen_delay"].isna().all()
    assert chosen.max() > 0  # cost- and runtime-minded users choose later windows
    summary = model.summary()
    assert math.isclose(
        summary["mean_wait"],
        summary["mean_chosen_delay"] + summary["mean_queue_wait"],
        rel_tol=1e-12,
    )


@pytest.mark.parametrize("policy", ["easy", "conservative"])
def test_batch_policies_choose_no_delay(policy):
    model, _ = _run(policy=policy)
    jobs = model.job_frame()
    assert (jobs["chosen_delay"].dropna() == 0).all()
    summary = model.summary()
    assert summary["mean_chosen_delay"] == 0
    assert summary["mean_queue_wait"] == summary["mean_wait"]
