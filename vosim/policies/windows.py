"""Windows of the batch-system rules on a slot list: one start time, or the earliest start.

The batch baselines (FCFS, EASY, conservative backfilling) start a job on ``n`` processors at
once. On the VO's heterogeneous, priced nodes the same rules hold with these choices, which
reduce to the traced machine's on identical processors:

* a task on node ``i`` is estimated to take ``volume / performance_i`` (the requested time on
  a reference node), so faster nodes end their task earlier; the node is held to that
  estimate and released at the actual end, ``run time x p_ref / performance_i``;
* of the nodes free over a task's whole estimated span, the ``n`` cheapest for this job are
  taken (cost ``price_i x volume / performance_i``), and the window must fit the job's budget
  ``C``; ties go to the tightest fit: the slot whose end leaves least time after the task,
  then the slot that has been idle least before the start, then the lowest node id. On
  identical processors only the tie rules act, and they make the node-level rules equal to the
  count-based ones of EASY (a backfilled job that ends before the shadow time takes the head's
  processors first; the head's reservation takes processors that are busy now first).
"""

from __future__ import annotations

import numpy as np

from vosim.allocators.base import Window
from vosim.market.slots import Slot, SlotList
from vosim.policies.base import QueuedJob

__all__ = ["window_at", "earliest_window"]

#: Relative tolerance on budgets and task lengths (float noise of volume / performance).
_EPS = 1e-9


def window_at(slots: SlotList, start: float, job: QueuedJob) -> Window | None:
    """The window for ``job`` starting exactly at ``start``, or ``None`` if none fits.

    Parameters
    ----------
    slots : SlotList
        Free slots (at most one per node contains ``start``).
    start : float
        The window's start, model time units.
    job : QueuedJob
        ``n`` tasks of ``volume`` each, within ``budget``.

    Returns
    -------
    Window or None
        ``n`` spans ``[start, start + volume / performance_i)``, chosen by the rule of the
        module docstring; ``None`` when fewer than ``n`` nodes are free long enough or the
        cheapest ``n`` exceed the budget.

    References
    ----------
    Mu'alem & Feitelson (2001), §2 (a job starts when enough processors are free for its
    estimated run time); AEP §2.1 (slots, task time ``V / p_i``, window cost).

    Examples
    --------
    >>> sl = SlotList([Slot(0, 0.0, 50.0, 1.0, 1.0), Slot(1, 0.0, 99.0, 1.0, 1.0)])
    >>> w = window_at(sl, 0.0, QueuedJob(index=0, n=1, volume=40.0, budget=100.0))
    >>> w.nodes, w.runtime
    ((0,), 40.0)
    """
    d = job.volume / slots.performance
    ok = (slots.start <= start) & (slots.end - start >= d * (1 - _EPS))
    rows = np.flatnonzero(ok)
    if rows.size < job.n:
        return None
    cost = slots.price[rows] * d[rows]
    end_slack = slots.end[rows] - (start + d[rows])
    idle = start - slots.start[rows]
    order = np.lexsort((slots.node[rows], idle, end_slack, cost))[: job.n]
    total = float(cost[order].sum())
    if total > job.budget * (1 + _EPS):
        return None
    pick = rows[order]
    spans = tuple(
        Slot(
            int(slots.node[k]),
            start,
            start + float(d[k]),
            float(slots.price[k]),
            float(slots.performance[k]),
        )
        for k in pick.tolist()
    )
    return Window(slots=spans, start=start, runtime=float(d[pick].max()), cost=total)


def earliest_window(slots: SlotList, job: QueuedJob, not_before: float) -> Window | None:
    """The window for ``job`` with the earliest start ``>= not_before``, or ``None``.

    Candidate starts are ``not_before`` and the slot starts after it (a window's start is
    where its last node becomes free). Slot ``r`` can hold the task from any start in
    ``[max(start_r, not_before), end_r - T_r]``; one sweep over these intervals counts the
    slots usable at every candidate, and :func:`window_at` is tried, in time order, only
    where at least ``n`` are (it fails there only on the budget).

    Parameters
    ----------
    slots : SlotList
        Free slots of the scheduling interval.
    job : QueuedJob
        The resource request.
    not_before : float
        Earliest allowed start, model time units.

    Returns
    -------
    Window or None
        ``None`` when no start inside the slot list's interval holds the job.

    Notes
    -----
    ``O(m log m)`` for ``m`` slots, plus ``O(m)`` per candidate that fails on the budget.

    References
    ----------
    Mu'alem & Feitelson (2001), §2: the shadow time of EASY's head job and the reservations
    of conservative backfilling are the earliest times enough processors are free for the
    job's estimated run time.

    Examples
    --------
    >>> sl = SlotList([Slot(0, 0.0, 99.0, 1.0, 1.0), Slot(1, 30.0, 99.0, 1.0, 1.0)])
    >>> earliest_window(sl, QueuedJob(index=0, n=2, volume=40.0, budget=1e9), 0.0).start
    30.0
    """
    if len(slots) < job.n:
        return None
    # slot r can hold the task from any start in [lo_r, hi_r]
    lo = np.maximum(slots.start, not_before)
    hi = slots.end - job.volume / slots.performance * (1 - _EPS)
    ok = lo <= hi
    if np.count_nonzero(ok) < job.n:
        return None
    lo, hi = np.sort(lo[ok]), np.sort(hi[ok])
    candidates = np.unique(lo)
    # slots that can hold the task from each candidate start: lo <= t minus hi < t
    count = np.searchsorted(lo, candidates, "right") - np.searchsorted(hi, candidates, "left")
    for t in candidates[count >= job.n].tolist():
        window = window_at(slots, t, job)  # None only when the budget does not allow it
        if window is not None:
            return window
    return None
    starts = np.maximum(slots.start, not_before)
    first = float(np.partition(starts, job.n - 1)[job.n - 1])
    candidates = np.unique(starts[starts >= first])
    long_enough = slots.end - job.volume / slots.performance * (1 - _EPS)
    for t in candidates.tolist():
        if np.count_nonzero((slots.start <= t) & (long_enough >= t)) < job.n:
            continue
        window = window_at(slots, t, job)
        if window is not None:
            return window
    return None
