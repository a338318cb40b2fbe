"""Hand-made jobs of every state, as a finished run's ledger holds them (shared by tests)."""

from __future__ import annotations

import dataclasses
import math
from collections import Counter

import numpy as np

from vosim.agents.ledger import JobLedger
from vosim.core import Slot, Window
from vosim.market.workload import Job


class Owner:
    """An owner as the job table reads one: its ``owner_id``."""

    def __init__(self, owner_id: int):
        self.owner_id = owner_id


def hand_job(job_id, state, *, run_time=50.0, requested=100.0, nodes=(), start=math.nan, **kw):
    """A job as a finished run leaves it: the trace's job and its ledger columns.

    A window on ``nodes`` from ``start`` if given; ``kw`` sets other columns.
    """
    job = Job(job_id, 1, 10.0, max(len(nodes), 1), requested, run_time, requested, 4)
    life = {"state": state}
    if nodes:
        slots = tuple(Slot(k, start, start + requested, 1.0, 1.0) for k in nodes)
        life["window"] = Window(slots, start, requested, float(len(nodes)) * requested)
        life["nodes"] = np.array(nodes)
        life["window_runtime"], life["window_cost"] = requested, float(len(nodes)) * requested
        life["start"] = start
    if state == "completed":  # the ledger keeps the window's outcome, not the window
        life["finish"] = start + run_time
        life["node_time"] = run_time * len(nodes)
        life["window"] = None
    return job, life | kw


def hand_ledger(entries) -> JobLedger:
    """A ledger of hand-made ``(job, columns)`` entries, as a finished run leaves one."""
    jobs = [dataclasses.replace(job, index=k) for k, (job, _) in enumerate(entries)]
    ledger = JobLedger(jobs)
    for k, (_, life) in enumerate(entries):
        for name, value in life.items():
            if name != "nodes":  # read from the window a job holds, else kept as completed
                getattr(ledger, name)[k] = value
            elif life.get("window") is None:
                ledger.nodes.keep(k, value)
    ledger.counts = Counter(ledger.state)
    return ledger


#: One job per case: (job, Batsim final state, success, metadata).
CASES = [
    (hand_job(1, "completed", nodes=(0, 1, 3), start=20.0), "COMPLETED_SUCCESSFULLY", 1, ""),
    (
        hand_job(2, "completed", run_time=100.0, nodes=(4,), start=30.0),
        "COMPLETED_WALLTIME_REACHED",
        0,
        "",
    ),
    (hand_job(3, "rejected", reason="needs 9 nodes"), "REJECTED", 0, "rejected: needs 9 nodes"),
    (
        hand_job(4, "withdrawn", reason="waited past the patience", left_time=500.0),
        "REJECTED",
        0,
        "withdrawn: waited past the patience",
    ),
    (
        hand_job(
            5, "unfinished", nodes=(2,), start=400.0, left_time=1000.0, reason="still running"
        ),
        "RUNNING",
        0,
        "unfinished: still running",
    ),
    (
        hand_job(6, "unfinished", nodes=(2,), start=1500.0, left_time=1000.0, reason="reserved"),
        "SUBMITTED",
        0,
        "unfinished: reserved",
    ),
    (
        hand_job(7, "unfinished", left_time=1000.0, reason="no slots"),
        "SUBMITTED",
        0,
        "unfinished: no slots",
    ),
    (
        hand_job(8, "unfinished", reason="not submitted before the horizon"),
        "NOT_SUBMITTED",
        0,
        "unfinished: not submitted before the horizon",
    ),
]
