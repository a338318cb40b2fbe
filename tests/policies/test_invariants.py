"""Every policy on one trace prefix: no node double booked, budgets kept, one state per job."""

from __future__ import annotations

from collections import defaultdict
from itertools import pairwise

import numpy as np
import pytest
from batch_oracle import heavy_workload, swf_frame
from kept_windows import keep_windows

from vosim.data import trace_path
from vosim.market.swf import read_swf
from vosim.model import VOModel
from vosim.policies.base import policy_names

#: (trace, jobs) prefixes: NASA's 128-node jobs and Gaia's many small ones, both with the
#: owners' generated local load.
PREFIXES = [("NASA-iPSC-1993-3.1-cln", 150), ("UniLu-Gaia-2014-2", 300)]


def busy_intervals(model, kept):
    """Per node: every VO task as run ([start, actual end)) and every local job."""
    busy = defaultdict(list)
    for job in model.jobs:
        if model.ledger[job.index].state == "completed":
            window, task_ends = kept[job.index]
            for s, end in zip(window.slots, task_ends, strict=True):
                busy[s.node].append((s.start, end, job.job_id))
    for owner in model.owners:
        for node, a, b in owner.local_jobs:
            busy[node].append((a, b, "local"))
    return busy


@pytest.mark.parametrize("policy", policy_names())
@pytest.mark.parametrize(("trace", "jobs"), PREFIXES)
def test_policy_invariants(policy, trace, jobs):
    # the availability knapsack's exact time scan is a DP over slots x tasks x budget units:
    # on Gaia's 2,004 processors one wide job takes ~100 s, so it runs on whole nodes here
    nodes = {"resources": "nodes"} if policy == "availability" else {}
    # NASA's 128-node jobs starve behind the owners' local jobs and wait out the default
    # 30-day patience (~8,000 cycles of an unchanged queue): a 2-day patience ends that drain.
    # The conservative case is not changed here: it keeps the default patience.
    if trace == "NASA-iPSC-1993-3.1-cln" and policy != "conservative":
        nodes["patience"] = 2 * 86400.0
    model = VOModel(trace=trace, jobs=jobs, policy=policy, rng=7, **nodes)
    kept = keep_windows(model)
    model.run()
    states = [model.ledger[job.index].state for job in model.jobs]
    assert set(states) <= {"completed", "rejected", "withdrawn"}  # drained: none unfinished
    frame = model.job_frame()
    assert frame["state"].value_counts().sum() == jobs
    completed = [job for job in model.jobs if model.ledger[job.index].state == "completed"]
    # On NASA a 128-node job needs the whole domain free at once, which the owners' local
    # load never allows: FCFS then blocks behind it for good, as FCFS does.
    if trace != "NASA-iPSC-1993-3.1-cln" or policy != "fcfs":
        assert len(completed) > jobs // 2, f"{policy} completed only {len(completed)} of {jobs}"
    for job in completed:
        w, task_ends = kept[job.index]
        assert len({s.node for s in w.slots}) == job.n  # n distinct nodes
        assert w.cost <= model.ledger[job.index].budget * (1 + 1e-9)  # within the user's budget C
        assert model.ledger[job.index].start >= job.submit_time
        for s, end in zip(w.slots, task_ends, strict=True):
            assert (
                s.start == model.ledger.start[job.index] and end <= s.end + 1e-6
            )  # killed at the estimate
    for node, spans in busy_intervals(model, kept).items():
        spans.sort(key=lambda x: (x[0], x[1]))
        for (a0, b0, who0), (a1, _, who1) in pairwise(spans):
            assert a1 >= b0 - 1e-6, f"node {node}: {who0} [{a0}, {b0}) overlaps {who1} at {a1}"


@pytest.mark.parametrize("machine", [False, True])
def test_conservative_never_starts_a_job_later_than_first_reserved(machine, monkeypatch):
    if machine:  # a heavy workload: Gaia's machine has no queue to re-plan
        work = heavy_workload(np.random.default_rng(5), 300, 64)
        trace = swf_frame(*(np.maximum(np.round(x), 1) for x in work), 64)
    else:
        trace = read_swf(trace_path("UniLu-Gaia-2014-2"), 400)
    model = VOModel(
        trace=trace,
        jobs=None,
        policy="conservative",
        machine=machine,
        cycle_period=0 if machine else 300.0,
        rng=3,
    )
    first: dict[int, float] = {}
    ms = model.metascheduler
    reserve, decide = ms.execution.reserve, ms.scheduler.decide

    def spy(job, window, uncertain=None):
        first.setdefault(job.index, window.start)
        reserve(job, window, uncertain)

    def promises(state):  # on the machine a reservation is a promised start (count form)
        decisions = decide(state)
        for index, start in ms.scheduler.promised.items():
            first.setdefault(index, start)
        return decisions

    monkeypatch.setattr(ms.execution, "reserve", spy)
    monkeypatch.setattr(ms.scheduler, "decide", promises)
    model.run()
    if machine:  # every pass ran the count form: nothing was reserved ahead at the owners
        assert not ms.execution.ahead
    moved = 0
    for job in model.jobs:
        if model.ledger[job.index].state == "completed":
            assert model.ledger[job.index].start <= first[job.index] + 1e-9
            moved += model.ledger[job.index].start < first[job.index]
    assert moved > 0  # early ends did move reservations earlier


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"max_alternatives": 3, "ua": 50.0},
        {"pricing_policy": "demand"},
        {"budget_period": 3 * 86400.0, "budget_allowance": 0.3},
        # whole nodes: the availability knapsack is slow on Gaia's 2,004 processors
        {"availability": True, "policy": "availability", "resources": "nodes"},
        {"patience": 86400.0},  # jobs withdrawn from the queue after a day
    ],
    ids=["first-fit", "alternatives", "demand", "accounts", "availability", "patience"],
)
def test_the_cyclic_schemes_queue_is_the_metaschedulers(options, until_last_submission):
    """The CSS keeps its own queue (request classes or an index array) between cycles, fed by
    the jobs that arrived and emptied by its reservations; after every cycle it holds exactly
    the jobs the metascheduler counts as waiting. (The runs stop at the last submission plus
    L: a drain adds only cycles of a queue that no longer changes but by withdrawals.)"""
    # 40 of its 151 nodes: a queue forms (jobs wider than 533 processors are rejected)
    kwargs = dict(trace="UniLu-Gaia-2014-2", jobs=400, nodes=40, rng=5, **options)
    model = VOModel(**kwargs, horizon=until_last_submission(**kwargs))
    ms, css = model.metascheduler, model.metascheduler.scheduler
    record, checked = model.record_cycle, []

    def record_and_check():  # called by the metascheduler at the end of every cycle
        record()
        np.testing.assert_array_equal(css._waiting(), np.flatnonzero(ms.queue.waiting))
        checked.append(css._waiting().size)

    model.record_cycle = record_and_check
    model.run()
    assert len(checked) == ms.cycles and max(checked) > 0
    if "patience" in options:
        assert model.ledger.withdrawn > 0  # the case is exercised
