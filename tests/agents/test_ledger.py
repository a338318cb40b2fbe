"""The job ledger: the one writer of a job's state, its transitions and its counts."""

from __future__ import annotations

import ast
import math
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import vosim
from vosim.agents.ledger import LIFE, JobLedger, JobStateError
from vosim.core import Slot, Window
from vosim.market.workload import JOB_STATES, Job
from vosim.model import VOModel

#: The life of a job written out by hand from the model's description (``Job``'s notes),
#: independently of ``LIFE``: (state, transition) -> the state it enters.
ORACLE = {
    ("pending", "queue"): "waiting",
    ("pending", "reject"): "rejected",
    ("pending", "withdraw"): "withdrawn",
    ("pending", "end"): "unfinished",
    ("waiting", "reserve"): "scheduled",
    ("waiting", "withdraw"): "withdrawn",
    ("waiting", "end"): "unfinished",
    ("scheduled", "cancel"): "waiting",
    ("scheduled", "interrupt"): "waiting",
    ("scheduled", "complete"): "completed",
    ("scheduled", "end"): "unfinished",
}

#: The fields of a job that change over its life (its request never changes).
LIFE_FIELDS = {
    "state",
    "window",
    "start",
    "finish",
    "task_ends",
    "nodes",
    "window_runtime",
    "window_cost",
    "node_time",
    "attempt",
    "failures",
    "displaced",
    "paid",
    "paid_for_failures",
    "held_in",
    "left_time",
    "predicted_availability",
    "alternatives",
    "user_evaluation",
    "earliest_start",
    "reason",
    "budget",
    "criterion",
}


def _job(index: int) -> Job:
    return Job(100 + index, 1, 0.0, 2, 10.0, 5.0, 10.0, 2, index=index)


def _window(start: float = 3.0) -> Window:
    slots = (Slot(0, start, start + 10.0, 1.0, 1.0), Slot(1, start, start + 10.0, 1.0, 1.0))
    return Window(slots, start, 10.0, 20.0)


def _apply(ledger: JobLedger, job: Job, name: str) -> None:
    if name == "reserve":
        ledger.reserve(job, _window(), (8.0, 9.0))
    elif name in ("interrupt", "complete"):
        getattr(ledger, name)(job, 1.5)
    elif name in ("reject", "withdraw", "end"):
        getattr(ledger, name)(job, "because")
    else:
        getattr(ledger, name)(job)


def test_the_table_of_transitions_is_the_jobs_life():
    assert {(s, n): to for n, (leaves, to) in LIFE.items() for s in leaves} == ORACLE
    ends = {to for (_, _), to in ORACLE.items()} - {"waiting", "scheduled"}
    assert ends == set(JOB_STATES)


def test_a_life_from_submission_to_completion():
    job = _job(0)
    ledger = JobLedger([job])
    ledger.offer(job, 50.0, "cost")
    assert (job.state, job.budget, job.criterion) == ("pending", 50.0, "cost")
    ledger.queue(job)
    ledger.choose(job, 3, 25.0, 1.0)
    ledger.reserve(job, _window(), (8.0, 13.0), held_in=2)
    assert (job.state, job.start, job.finish, job.attempt, job.held_in) == (
        "scheduled",
        3.0,
        13.0,
        1,
        2,
    )
    ledger.cancel(job, displaced=True)
    assert (job.state, job.window, job.task_ends, job.attempt, job.displaced) == (
        "waiting",
        None,
        (),
        2,
        1,
    )
    assert math.isnan(job.start) and math.isnan(job.finish)
    assert job.nodes is None and math.isnan(job.window_cost) and math.isnan(job.window_runtime)
    ledger.reserve(job, _window(5.0), (9.0,))
    ledger.interrupt(job, 4.0)
    assert (job.state, job.failures, job.paid_for_failures, job.attempt) == ("waiting", 1, 4.0, 3)
    ledger.reserve(job, _window(6.0), (9.0, 16.0))
    assert (job.nodes.tolist(), job.window_runtime, job.window_cost) == ([0, 1], 10.0, 20.0)
    assert math.isnan(job.node_time)
    ledger.complete(job, 7.5)
    # what the tables read of the window stays; the window and its task ends go
    assert (job.window, job.task_ends, job.nodes.tolist()) == (None, (), [0, 1])
    assert (job.start, job.finish, job.window_runtime, job.window_cost) == (6.0, 16.0, 10.0, 20.0)
    assert job.node_time == (9.0 - 6.0) + (16.0 - 6.0)
    assert (job.state, job.paid, job.alternatives, job.user_evaluation) == (
        "completed",
        7.5,
        3,
        25.0,
    )
    assert ledger.completed == 1 and ledger.settled
    assert +ledger.counts == ledger.states() == Counter(completed=1)


@pytest.mark.parametrize("name", ["complete", "cancel", "reserve", "interrupt"])
def test_a_refused_transition_names_the_job_and_changes_nothing(name):
    job = _job(4)
    ledger = JobLedger([job])
    with pytest.raises(JobStateError, match=r"job 104 \(trace row 4\) is pending: it cannot"):
        _apply(ledger, job, name)
    assert job.state == "pending" and ledger.counts == Counter(pending=1)
    assert isinstance(JobStateError("x"), ValueError)


def test_a_ledger_starts_from_pending_jobs_only():
    job = _job(0)
    job.state = "waiting"
    with pytest.raises(JobStateError, match="starts waiting, not pending"):
        JobLedger([job])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 2), st.sampled_from(sorted(LIFE))), max_size=40))
def test_the_counts_follow_any_sequence_of_transitions(steps):
    jobs = [_job(i) for i in range(3)]
    ledger = JobLedger(jobs)
    for i, name in steps:
        job = jobs[i]
        expected = ORACLE.get((job.state, name))
        if expected is None:
            before = job.state
            with pytest.raises(JobStateError):
                _apply(ledger, job, name)
            assert job.state == before
        else:
            _apply(ledger, job, name)
            assert job.state == expected
        assert +ledger.counts == ledger.states()
        assert sum(ledger.counts.values()) == len(jobs)


@pytest.mark.parametrize(
    "options",
    [
        # users leave, jobs wait past their patience
        dict(jobs=400, user_exit_satisfaction=0.8, patience=20_000.0),
        # windows fail (interrupted jobs wait again); local jobs displace reservations
        dict(jobs=150, availability=True),
        dict(jobs=300, local_priority="preempt", budget_period=86_400.0),
        # a horizon: jobs end unfinished
        dict(jobs=400, horizon=400_000.0),
    ],
    ids=["churn", "availability", "preempt", "horizon"],
)
def test_every_job_is_in_exactly_one_state_at_every_cycle(options):
    model = VOModel(**options, rng=3)
    ledger, record, checked = model.ledger, model.record_cycle, []

    def record_and_check():
        record()
        assert +ledger.counts == ledger.states()
        checked.append(ledger.counts["scheduled"])

    model.record_cycle = record_and_check
    model.run()
    assert checked and max(checked) > 0
    frame = model.job_frame()
    assert Counter(frame["state"]) == +ledger.counts
    assert set(ledger.counts) <= set(JOB_STATES) | {"pending", "waiting", "scheduled"}
    assert +ledger.counts == Counter({k: v for k, v in ledger.counts.items() if k in JOB_STATES})


def test_only_the_ledger_writes_a_jobs_life():
    """No module but the ledger assigns a life field of an object other than ``self``."""
    root = Path(vosim.__file__).parent
    found = []
    for path in sorted(root.rglob("*.py")):
        if path.name == "ledger.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            targets = []
            if isinstance(node, ast.Assign):
                targets = [t for target in node.targets for t in ast.walk(target) if t is not None]
            elif isinstance(node, ast.AugAssign | ast.AnnAssign):
                targets = [node.target]
            for target in targets:
                if (
                    isinstance(target, ast.Attribute)
                    and target.attr in LIFE_FIELDS
                    and isinstance(target.ctx, ast.Store)
                    and not (isinstance(target.value, ast.Name) and target.value.id == "self")
                ):
                    found.append(f"{path.relative_to(root)}:{node.lineno} .{target.attr}")
    assert not found, "a job's life written outside the ledger: " + ", ".join(found)
