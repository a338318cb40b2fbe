"""The traced machine under FCFS or EASY, replayed in one compiled loop: the agents' fast path.

On the traced machine (``machine=True``: identical processors, one owner, no local jobs,
budgets that never bind) with event-driven passes (``cycle_period=0``), FCFS and EASY start
every window at its pass and nothing else moves a job, so a whole run is one loop over
arrivals and ends. :func:`replay` runs that loop compiled
(:func:`vosim.agents.replay_kernels.replay`: the count form of
:class:`~vosim.policies.batch_windows.IdenticalSlots`, the metascheduler's pass order, the
executions' ends and payments, the users' satisfaction) and writes what the agents write
one job at a time, as columns: the ledger (:meth:`~vosim.agents.ledger.JobLedger.record_run`),
the task log (:meth:`~vosim.agents.task_log.TaskLog.extend`), the cycle log
(:meth:`VOModel.record_cycles <vosim.model.VOModel.record_cycles>`), the owner's revenue and
the users' satisfaction. The tables it leaves are those of the agents' run, value for value;
``VOSIM_REFERENCE=1`` runs the agents (its oracle in the tests).

It replays only what it covers (:func:`refusal` says why not) and gives up, changing
nothing, where the count form would hand a pass to the node form (a tie it does not break)
or a job would wait past the patience: the agents then run the whole trace.

What a replayed run does not keep: the owners' schedule of the VO's reservations
(``busy_time``, which forgets ended rows anyway), each job's request object and the Mesa
events of a run stepped through.
"""

from __future__ import annotations

import contextlib
import math
import signal
import threading
from collections.abc import Callable, Iterator

import numpy as np

from vosim.core.code_path import kernels, reference
from vosim.policies.batch_windows import RELATIVE_TOLERANCE, equal_window_cost

__all__ = ["REPLAYED_POLICIES", "refusal", "replay"]

#: The policies a replay covers.
REPLAYED_POLICIES = ("fcfs", "easy")


def refusal(model) -> str:
    """Why ``model``'s run cannot be replayed ("" if it can).

    A replay covers a model not yet run, on the traced machine (one owner's identical
    processors at fixed prices, no local jobs, no availability events, no accounts), under
    FCFS or EASY, with event-driven passes, drained to the end (no horizon), without users
    who leave, and not under ``VOSIM_REFERENCE=1``.

    Parameters
    ----------
    model : VOModel
        The model, before :meth:`~vosim.model.VOModel.run`.

    Returns
    -------
    str
        The first condition not met, in words; "" when all are.

    References
    ----------
    None: vosim's rule (what the agents' run reduces to a loop over arrivals and ends).
    """
    ms = model.metascheduler
    begun = model.time != 0 or ms.cycles > 0 or model.ledger.counts["pending"] != len(model.jobs)
    # the traced machine itself excludes accounts, changing prices, owners who leave,
    # availability events and local jobs (the scenario refuses those with it), and its
    # processors are identical, one owner's, at a price no budget reaches
    checks = (
        (reference(), "VOSIM_REFERENCE=1 runs the agents"),
        (not model.machine, "not the traced machine"),
        (model.policy_name not in REPLAYED_POLICIES, f"policy {model.policy_name!r}"),
        (model.cycle_period != 0, "periodic cycles"),
        (math.isfinite(model.horizon), "a horizon"),
        (model.user_exit_satisfaction is not None, "users who leave"),
        (not model.jobs, "no jobs"),
        (begun, "a run already begun"),
    )
    return next((why for failed, why in checks if failed), "")


def replay(model, step: float, progress: Callable[[int, int], None] | None = None) -> bool:
    """Run ``model`` to its end in one compiled loop, if it can be replayed; whether it was.

    Parameters
    ----------
    model : VOModel
        A model :func:`refusal` accepts (else nothing is done and ``False`` returned).
    step : float
        The time slices :meth:`~vosim.model.VOModel.run` advances by, model time units:
        the model's time ends at the first slice's end by which every job was done, as
        there.
    progress : callable, optional
        Called once per slice with ``(jobs_done, jobs_total)``, as by ``run``.

    Returns
    -------
    bool
        ``True`` when the model now holds the whole run (then call ``model.finish()``);
        ``False`` when it was not replayed and is unchanged (run the agents).

    Raises
    ------
    ValueError
        ``step`` is not a positive finite number.

    References
    ----------
    Mu'alem & Feitelson (2001), IEEE TPDS 12(6), §1-2 (FCFS and EASY on identical
    processors); the loop is the agents' event-driven passes.
    """
    if not (step > 0 and math.isfinite(step)):
        raise ValueError(f"step must be a positive finite time, got {step!r}")
    if refusal(model):
        return False
    jobs, users = model.jobs, model.users
    count = len(jobs)
    n = model.job_n
    volume = model.job_volume
    submit = np.array([j.submit_time for j in jobs], dtype=float)
    run_time = np.array([j.run_time for j in jobs], dtype=float)
    requested = np.array([j.requested_time for j in jobs], dtype=float)
    where = model.job_user_index
    budget = np.array(
        [users[k].budget_for(job) for k, job in zip(where.tolist(), jobs, strict=True)]
    )
    queue = model.metascheduler.queue
    refusals = [queue.refusal(job, c) for job, c in zip(jobs, budget.tolist(), strict=True)]
    admitted = np.array([not r for r in refusals], dtype=bool)
    price, performance = float(model.node_price[0]), float(model.node_performance[0])
    task_time = volume / performance
    on_processor = run_time * model.reference_performance / performance
    first = np.zeros(count + 1, dtype=np.int64)
    np.cumsum(np.where(admitted, n, 0), out=first[1:])
    by_submit = np.argsort(submit, kind="stable")
    parts = [
        np.array([getattr(u, name) for u in users], dtype=float)
        for name in ("satisfaction", "choice_part", "wait_part", "queue_part")
    ]
    patience = math.inf if model.patience is None else model.patience
    (code, start, split, end1, end2, procs, paid, node_time, order, c_time, c_int, c_rev,
     e_user, e_sat, until) = kernels("vosim.agents.replay_kernels").replay(
        submit, n, task_time, on_processor, requested, admitted, where, by_submit, first,
        model.node_count, model.scheduling_interval, price, model.policy_name == "easy",
        float(patience), RELATIVE_TOLERANCE, *parts,
    )  # fmt: skip
    if code:
        return False
    finish = start + on_processor
    costs: dict[tuple[int, float], float] = {}
    window_cost = np.full(count, np.nan)
    for i in np.flatnonzero(admitted).tolist():
        key = (int(n[i]), float(task_time[i]))
        if key not in costs:
            costs[key] = equal_window_cost(key[0], price, key[1])
        window_cost[i] = costs[key]
    nodes = [procs[first[i] : first[i + 1]] for i in range(count)]
    with _interrupts_after():  # the records are written whole
        model.ledger.record_run(
            budget,
            [users[k].criterion for k in where.tolist()],
            refusals,
            start,
            nodes,
            np.where(admitted, task_time, np.nan),
            window_cost,
            finish,
            paid,
            node_time,
        )
        _log_tasks(model, order, start, finish, split, end1, end2, procs, first, n, price)
        _log_cycles(model, c_time, c_int, c_rev, e_user, e_sat)
        _settle_agents(model, parts, paid[order], admitted, until, c_int)
        _advance(model, step, progress, np.where(admitted, finish, submit))
    return True


@contextlib.contextmanager
def _interrupts_after() -> Iterator[None]:
    """Hold Ctrl-C (SIGINT) until the block is done, then hand it to the handler it had.

    The replay's records go to several writers one after another; an interrupt between two
    would leave jobs completed without their tasks. In the main thread only (signals reach
    no other); elsewhere the block runs as it is.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[tuple] = []
    previous = signal.signal(signal.SIGINT, lambda *args: caught.append(args))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if caught and callable(previous):
        previous(*caught[0])


def _log_tasks(model, order, start, finish, split, end1, end2, procs, first, n, price) -> None:
    """The tasks of the jobs that ended, in the order they ended, into the task log."""
    jobs = model.jobs
    size = n[order]
    within = np.arange(size.sum()) - np.repeat(np.cumsum(size) - size, size)
    rows = np.repeat(first[order], size) + within
    s = np.repeat(start[order], size)
    te = np.repeat(finish[order], size)
    span_end = np.where(within < np.repeat(split[order], size),
                        np.repeat(end1[order], size), np.repeat(end2[order], size))  # fmt: skip
    ends = np.minimum(span_end, te)
    model.metascheduler.execution.tasks.extend(
        {
            "job_id": np.array([jobs[i].job_id for i in order.tolist()], dtype=np.int64),
            "job": order,
            "user": np.array([jobs[i].user for i in order.tolist()], dtype=np.int64),
            "attempt": np.ones(order.size, dtype=np.int64),
            "start": start[order],
            "size": size,
        },
        {
            "resource": procs[rows],
            "end": ends,
            "price": np.full(ends.size, price),
            "cost": price * (ends - s),
        },
    )


def _log_cycles(model, c_time, c_int, c_rev, e_user, e_sat) -> None:
    """The passes' rows, with each pass's mean satisfaction as the model computes it."""
    sat = model.user_satisfaction.copy()
    active = model.user_active
    means = np.empty(c_time.size)
    done, mean = 0, math.nan
    for c, upto in enumerate(c_int[:, 6].tolist()):
        if c == 0 or upto > done:  # the model's mean, recomputed after a user changed
            sat[e_user[done:upto]] = e_sat[done:upto]
            values = sat[active]
            mean = float(np.add.reduce(values) / values.size) if values.size else math.nan
            done = upto
        means[c] = mean
    scheduled = c_int[:, 1]
    model.record_cycles(
        {
            "time": c_time,
            "batch_size": c_int[:, 0],
            "jobs_scheduled": scheduled,
            "alternatives": scheduled,
            "queue_length": c_int[:, 2],
            "running_jobs": c_int[:, 3],
            "utilization": c_int[:, 4] / model.node_count,
            "revenue": c_rev,
            "users_active": np.full(c_time.size, int(active.sum()), dtype=np.int64),
            "mean_satisfaction": means,
            "completed": c_int[:, 5],
        }
    )
    model.user_satisfaction[:] = sat


def _settle_agents(model, parts, paid, admitted, until, c_int) -> None:
    """The owner's revenue, the users' records and the metascheduler's counts at the end."""
    total = float(np.cumsum(paid)[-1]) if paid.size else 0.0  # added in the order paid
    model.owners[0].earn(total)
    evaluated = np.bincount(model.job_user_index[admitted], minlength=len(model.users))
    for k, user in enumerate(model.users):
        user.replayed(int(evaluated[k]), *(float(p[k]) for p in parts))
    model.metascheduler.execution.reserved_until[:] = until
    ms = model.metascheduler
    ms.cycles = len(c_int)
    if len(c_int):
        ms.last_batch, ms.last_scheduled = int(c_int[-1, 0]), int(c_int[-1, 1])
        ms.last_alternatives = ms.last_scheduled


def _advance(model, step: float, progress, done_at: np.ndarray) -> None:
    """The model's time to the end of the slice in which the last job was done, as ``run``.

    ``done_at`` (shape (J,)): when each job was completed or rejected, model time units.
    """
    done_at = np.sort(done_at)
    last, total = done_at[-1], done_at.size
    time = model.time
    while True:
        time = time + step  # the slices' ends as run() adds them
        if progress is not None:
            progress(int(done_at.searchsorted(time, side="right")), total)
        if last <= time:
            break
    model.time = time
