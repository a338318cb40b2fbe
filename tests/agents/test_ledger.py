"""The job ledger: the one writer of a job's state, its transitions and its counts."""

from __future__ import annotations

import ast
import math
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import vosim
from vosim.agents.ledger import JOB_STATES, LIFE, JobLedger, JobLife, JobStateError
from vosim.core import Slot, Window
from vosim.market.workload import Job
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
    "request",
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


def test_the_ledger_keeps_every_life_field_as_a_column():
    assert set(JobLife._fields) == LIFE_FIELDS
    ledger = JobLedger([_job(0), _job(1)])
    assert all(len(getattr(ledger, name)) == 2 for name in LIFE_FIELDS)


def test_the_table_of_transitions_is_the_jobs_life():
    assert {(s, n): to for n, (leaves, to) in LIFE.items() for s in leaves} == ORACLE
    ends = {to for (_, _), to in ORACLE.items()} - {"waiting", "scheduled"}
    assert ends == set(JOB_STATES)


def test_a_life_from_submission_to_completion():
    job = _job(0)
    ledger = JobLedger([job])
    ledger.offer(job, 50.0, "cost")
    assert (ledger[0].state, ledger[0].budget, ledger[0].criterion) == ("pending", 50.0, "cost")
    ledger.queue(job)
    ledger.choose(job, 3, 25.0, 1.0)
    ledger.reserve(job, _window(), (8.0, 13.0), held_in=2)
    assert (
        ledger[0].state,
        ledger[0].start,
        ledger[0].finish,
        ledger[0].attempt,
        ledger[0].held_in,
    ) == (
        "scheduled",
        3.0,
        13.0,
        1,
        2,
    )
    ledger.cancel(job, displaced=True)
    assert (
        ledger[0].state,
        ledger[0].window,
        ledger[0].task_ends,
        ledger[0].attempt,
        ledger[0].displaced,
    ) == (
        "waiting",
        None,
        (),
        2,
        1,
    )
    assert math.isnan(ledger[0].start) and math.isnan(ledger[0].finish)
    assert (
        ledger[0].nodes is None
        and math.isnan(ledger[0].window_cost)
        and math.isnan(ledger[0].window_runtime)
    )
    ledger.reserve(job, _window(5.0), (9.0,))
    ledger.interrupt(job, 4.0)
    assert (
        ledger[0].state,
        ledger[0].failures,
        ledger[0].paid_for_failures,
        ledger[0].attempt,
    ) == ("waiting", 1, 4.0, 3)
    ledger.reserve(job, _window(6.0), (9.0, 16.0))
    assert (ledger[0].nodes.tolist(), ledger[0].window_runtime, ledger[0].window_cost) == (
        [0, 1],
        10.0,
        20.0,
    )
    assert math.isnan(ledger[0].node_time)
    ledger.complete(job, 7.5)
    # what the tables read of the window stays; the window and its task ends go
    assert (ledger[0].window, ledger[0].task_ends, ledger[0].nodes.tolist()) == (None, (), [0, 1])
    assert (ledger[0].start, ledger[0].finish, ledger[0].window_runtime, ledger[0].window_cost) == (
        6.0,
        16.0,
        10.0,
        20.0,
    )
    assert ledger[0].node_time == (9.0 - 6.0) + (16.0 - 6.0)
    assert (ledger[0].state, ledger[0].paid, ledger[0].alternatives, ledger[0].user_evaluation) == (
        "completed",
        7.5,
        3,
        25.0,
    )
    assert ledger.completed == 1 and ledger.settled
    assert +ledger.counts == ledger.states() == Counter(completed=1)


@pytest.mark.parametrize("name", ["complete", "cancel", "reserve", "interrupt"])
def test_a_refused_transition_names_the_job_and_changes_nothing(name):
    ledger = JobLedger([_job(i) for i in range(5)])
    with pytest.raises(JobStateError, match=r"job 104 \(trace row 4\) is pending: it cannot"):
        _apply(ledger, ledger.jobs[4], name)
    assert ledger.state[4] == "pending" and ledger.counts == Counter(pending=5)
    assert isinstance(JobStateError("x"), ValueError)


def test_a_ledger_holds_the_jobs_at_their_positions():
    with pytest.raises(JobStateError, match=r"job 101 \(trace row 1\) is at position 0"):
        JobLedger([_job(1)])
    assert JobLedger([_job(0), _job(1)]).state == ["pending", "pending"]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 2), st.sampled_from(sorted(LIFE))), max_size=40))
def test_the_counts_follow_any_sequence_of_transitions(steps):
    jobs = [_job(i) for i in range(3)]
    ledger = JobLedger(jobs)
    for job in jobs:  # its user's terms (no state change)
        ledger.offer(job, 50.0, "cost")
    for i, name in steps:
        job = jobs[i]
        expected = ORACLE.get((ledger.state[i], name))
        if expected is None:
            before = ledger.state[i]
            with pytest.raises(JobStateError):
                _apply(ledger, job, name)
            assert ledger.state[i] == before
        else:
            _apply(ledger, job, name)
            assert ledger.state[i] == expected
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
    """No module but the ledger assigns a life field, or an entry of a life column, of an
    object other than ``self``."""
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
                # job.start = ..., or ledger.start[i] = ... (a column written in place)
                column = target.value if isinstance(target, ast.Subscript) else target
                if (
                    isinstance(column, ast.Attribute)
                    and column.attr in LIFE_FIELDS
                    and isinstance(target.ctx, ast.Store)
                    and not (isinstance(column.value, ast.Name) and column.value.id == "self")
                ):
                    found.append(f"{path.relative_to(root)}:{node.lineno} .{column.attr}")
    assert not found, "a job's life written outside the ledger: " + ", ".join(found)


def test_record_run_leaves_the_state_the_moves_leave():
    """A whole run written at once equals the same lives moved one by one: one job
    rejected, two queued, reserved and completed (the request object aside)."""
    jobs = [_job(k) for k in range(3)]
    moved, recorded = JobLedger(jobs), JobLedger(jobs)
    for job, budget in zip(jobs, (5.0, 6.0, 7.0), strict=True):
        moved.offer(job, budget, "cost")
    moved.reject(jobs[1], "too wide")
    for k in (0, 2):
        moved.queue(jobs[k])
        moved.choose(jobs[k], 1, 0.0, 3.0)
        moved.reserve(jobs[k], _window(), (8.0, 9.0))
        moved.complete(jobs[k], 1.5)
    nan = math.nan
    node = _window().spans.node
    recorded.record_run(
        np.array([5.0, 6.0, 7.0]), ["cost"] * 3, ["", "too wide", ""],
        np.array([3.0, nan, 3.0]), [node, None, node], np.array([10.0, nan, 10.0]),
        np.array([20.0, nan, 20.0]), np.array([9.0, nan, 9.0]), np.array([1.5, 0.0, 1.5]),
        np.array([11.0, nan, 11.0]),
    )  # fmt: skip
    for name in LIFE_FIELDS - {"request", "nodes"}:
        a, b = getattr(recorded, name), getattr(moved, name)
        assert str(list(a)) == str(list(b)), name  # NaN == NaN as text
    assert [list(x) if x is not None else None for x in recorded.nodes] == [
        list(x) if x is not None else None for x in moved.nodes
    ]
    assert recorded.states() == moved.states()
    assert recorded.completed == 2 and recorded.rejected == 1 and recorded.settled


def test_record_run_refuses_a_ledger_begun_or_columns_short():
    jobs = [_job(k) for k in range(2)]
    ledger = JobLedger(jobs)
    columns = (np.ones(2), ["cost"] * 2, ["", ""], np.zeros(2), [None, None], *[np.zeros(2)] * 5)
    with pytest.raises(ValueError, match="refusal has 1 entries, not 2"):
        ledger.record_run(*columns[:2], [""], *columns[3:])
    ledger.offer(jobs[1], 1.0, "cost")
    ledger.reject(jobs[1], "no")
    with pytest.raises(JobStateError, match="trace row 1"):
        ledger.record_run(*columns)
    assert ledger.counts["pending"] == 1
