"""The metascheduler's queue: trace order, arrivals joining at a cycle, leavers, views."""

from __future__ import annotations

import numpy as np

from vosim.agents.queue import JobQueue
from vosim.market.swf import swf_frame
from vosim.model import VOModel


def small_model(**kwargs) -> VOModel:
    """Five 1-processor jobs on a 4-processor traced machine, none submitted yet."""
    frame = swf_frame(
        np.arange(5.0),
        np.ones(5, dtype=int),
        np.full(5, 10.0),
        np.full(5, 10.0),
        np.arange(1, 6),
        nodes=4,
        note="test",
    )
    model = VOModel(trace=frame, machine=True, policy="fcfs", cycle_period=0, rng=1, **kwargs)
    for job in model.jobs:  # as its user's submission sets it
        user = model.user_agent[job.user]
        model.ledger.offer(job, user.budget_for(job), user.criterion)
    return model


def test_arrivals_join_in_trace_order_and_leave_once():
    model = small_model()
    queue = JobQueue(model)
    for k in (3, 0, 4):
        assert queue.admit(model.jobs[k])
    assert len(queue) == 3 and queue.count == 0  # arrived, not yet seen by a policy
    assert queue.take_arrivals() == [3, 0, 4]
    assert [q.index for q in queue.jobs()] == [0, 3, 4]
    queue.admit(model.jobs[1])
    queue.withdraw(1)  # arrived and left before a cycle: the policy never saw it
    assert queue.take_left().size == 0 and queue.arrived == []
    queue.withdraw(3)
    assert queue.take_left().tolist() == [3]
    assert queue.take_left().size == 0  # told once
    queue.remove(0)  # got a window
    queue.remove(0)  # a second removal changes nothing
    assert [q.index for q in queue.jobs()] == [4] and len(queue) == 1
    queue.arrived.append(0)  # interrupted: back at the next cycle, in trace order
    queue.take_arrivals()
    assert [q.index for q in queue.jobs()] == [0, 4]
    assert queue.waiting.tolist() == [True, False, False, False, True]


def test_a_job_no_window_can_serve_is_rejected_with_its_reason():
    model = small_model()
    job = model.jobs[2]
    model.ledger.offer(job, 0.0, "")  # below the cheapest window of the domain
    queue = JobQueue(model)
    assert not queue.admit(job)
    assert model.ledger[job.index].state == "rejected" and model.ledger[job.index].reason
    assert len(queue) == 0


def test_views_carry_the_budget_a_policy_may_spend():
    model = small_model()
    queue = JobQueue(model)
    job = model.jobs[1]
    queue.admit(job)
    queue.take_arrivals()
    (view,) = queue.jobs()
    assert (view.index, view.n, view.volume, view.budget) == (
        1,
        job.n,
        job.volume,
        model.ledger.budget[1],
    )
    assert view.account == -1  # no per-period accounts
    assert queue.reserved(list) == []  # no reservation waits to start


def test_refusal_is_what_admit_rejects_with():
    """Read without a move: the reason admit gives, or "" for a job it queues."""
    model = small_model()
    queue, job = JobQueue(model), model.jobs[0]
    budget = float(model.ledger.budget[job.index])
    assert queue.refusal(job, budget) == ""
    assert "budget C=0" in queue.refusal(job, 0.0)
    assert model.ledger.state[job.index] == "pending"
