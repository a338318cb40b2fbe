"""A test spy: the windows of jobs as they complete (the ledger lets them go then)."""

from __future__ import annotations

from collections.abc import Iterator

from vosim.core.windows import Window
from vosim.market.workload import Job


def keep_windows(model) -> dict[int, tuple[Window, tuple[float, ...]]]:
    """Record each job's window and task ends when the ledger completes it.

    Call before ``model.run()``; returns the dict it fills, job index -> (window, task ends).
    """
    kept: dict[int, tuple[Window, tuple[float, ...]]] = {}
    complete = model.ledger.complete

    def spy(job: Job, paid: float) -> None:
        kept[job.index] = (model.ledger.window[job.index], model.ledger.task_ends[job.index])
        complete(job, paid)

    model.ledger.complete = spy
    return kept


def held_windows(model, kept) -> Iterator[tuple[Job, Window, tuple[float, ...]]]:
    """Every job that completed (its kept window) or holds a window now, with its task ends."""
    for job in model.jobs:
        if model.ledger[job.index].state == "completed":
            yield job, *kept[job.index]
        elif model.ledger[job.index].window is not None:
            yield job, model.ledger[job.index].window, model.ledger[job.index].task_ends
