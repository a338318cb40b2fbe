"""Where and when an owner's local resource manager starts an arriving local job.

The owners' priority over the VO (:data:`LOCAL_PRIORITIES`):

- ``"displace"`` (default): the local job starts at once on processors of its owner that run
  nothing now, taking processors held by VO reservations that have not started (those
  reservations are *displaced*: cancelled and re-planned by the VO); it never preempts a
  running VO task. With too few such processors it waits in its owner's queue ahead of VO
  work: it is given the earliest start at which enough processors are free of running work
  and of earlier local jobs, displacing the reservations in its way.
- ``"queue"``: the local job waits behind every VO reservation: the earliest start at which
  enough processors are free of all busy time.
- ``"preempt"``: as ``displace``, and running VO tasks are killed where no other processor
  is free (their jobs are interrupted and requeued; the work lost is counted).

References
----------
AEP §1 and VO Preferences §2: owners' local jobs have priority over the VO's; the rule by
which they take processors is vosim's (the papers draw local load ahead of every cycle).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from vosim.core.code_path import kernels, reference
from vosim.core.windows import distinct
from vosim.errors import ParameterError

if TYPE_CHECKING:
    from vosim.market.busy_time import BusyTime

__all__ = ["LOCAL_PRIORITIES", "Placement", "place_local_job", "place_on_owner"]

_NONE = np.empty(0, dtype=np.int64)
_NONE.flags.writeable = False

#: The owners' priority rules for arriving local jobs (see the module docstring).
LOCAL_PRIORITIES = ("displace", "queue", "preempt")


@dataclass(frozen=True)
class Placement:
    """An arriving local job's start, processors and the VO work in its way.

    Attributes
    ----------
    start : float
        Start, model time units (the arrival, or later when it waits).
    resources : numpy.ndarray, shape (size,)
        Resource ids (processors) it occupies over ``[start, start + length)``, ascending.
    displaced : numpy.ndarray, shape (d,)
        Tags (VO job indices) of reservations not started at the arrival that overlap it on
        those processors: to be cancelled and re-planned.
    killed : numpy.ndarray, shape (k,)
        Tags of VO jobs running on those processors at the arrival (``preempt`` only).
    """

    start: float
    resources: np.ndarray
    displaced: np.ndarray
    killed: np.ndarray


def place_local_job(
    resources: np.ndarray,
    node: np.ndarray,
    a: np.ndarray,
    b: np.ndarray,
    tag: np.ndarray,
    now: float,
    size: int,
    length: float,
    priority: str = "displace",
) -> Placement | None:
    """Place a local job of ``size`` processors and ``length`` arriving at ``now``.

    Busy time that the job may not take (*hard*): earlier local jobs (tag < 0) always;
    running VO tasks (rows started by ``now``) unless ``preempt``; every VO reservation with
    ``queue``. The start is the earliest time from ``now`` (``now`` or the end of a hard
    interval) at which at least ``size`` processors have no hard busy time over
    ``[start, start + length)``. Among those processors the job takes, in order, those with
    nothing in the way, then those whose first reservation in the way starts latest, then
    (``preempt``) those running VO tasks; ties by lower resource id (so a job tends to stay
    on one node).

    Parameters
    ----------
    resources : numpy.ndarray, shape (m,)
        The owner's resource ids (processors), int64, ascending.
    node, a, b, tag : numpy.ndarray, shape (r,)
        The owner's busy intervals ``[a, b)`` on resource ``node`` with ``tag`` (< 0: a
        local job; >= 0: a VO job's index), model time units
        (:meth:`ResourceOwnerAgent.intervals <vosim.agents.owner.ResourceOwnerAgent.intervals>`).
    now : float
        Arrival, model time units.
    size : int
        Processors (>= 1).
    length : float
        Length, model time units (> 0).
    priority : str
        One of :data:`LOCAL_PRIORITIES`.

    Returns
    -------
    Placement or None
        ``None`` if the owner has fewer than ``size`` processors.

    Raises
    ------
    ParameterError
        ``priority`` unknown, ``size < 1`` or ``length <= 0``.

    Notes
    -----
    ``O(r)`` numpy work per candidate start; the first candidate (``now``) serves unless the
    owner's processors are all held by running work.

    Examples
    --------
    Two processors; a VO reservation (job 7) on processor 0 from 50, processor 1 running job
    3 until 40. A local job of one processor for 20 arriving at 10 takes processor 0 (free
    now) without displacing anything; for 60 it displaces job 7:

    >>> res = np.array([0, 1])
    >>> busy = (np.array([0, 1]), np.array([50.0, 0.0]), np.array([90.0, 40.0]),
    ...         np.array([7, 3]))
    >>> p = place_local_job(res, *busy, now=10.0, size=1, length=20.0)
    >>> p.start, p.resources.tolist(), p.displaced.tolist()
    (10.0, [0], [])
    >>> place_local_job(res, *busy, now=10.0, size=1, length=60.0).displaced.tolist()
    [7]
    >>> q = place_local_job(res, *busy, now=10.0, size=2, length=5.0)  # waits for job 3
    >>> q.start, q.resources.tolist()
    (40.0, [0, 1])
    >>> place_local_job(res, *busy, now=10.0, size=2, length=5.0, priority="preempt").killed
    array([3])
    """
    _check(priority, size, length)
    resources = np.asarray(resources, dtype=np.int64)
    m = resources.size
    if size > m:
        return None
    live = b > now
    if not live.all():
        node, a, b, tag = node[live], a[live], b[live], tag[live]
    pos = np.searchsorted(resources, node)  # each row's processor position
    # the usual case: enough processors with nothing at all in [now, now + length); the rule
    # below takes the lowest of them, displacing nothing
    busy = np.zeros(m, dtype=bool)
    busy[pos[a < now + length]] = True
    clear = np.flatnonzero(~busy)
    if clear.size >= size:
        return Placement(float(now), resources[clear[:size]], _NONE, _NONE)
    running = a <= now
    if priority == "queue":
        hard = np.ones(a.size, dtype=bool)
    elif priority == "displace":
        hard = (tag < 0) | running
    else:
        hard = tag < 0
    blocked = np.zeros(m, dtype=bool)
    for start in distinct(np.concatenate(([now], b[hard]))).tolist():
        end = start + length
        blocked[:] = False
        blocked[pos[hard & (a < end) & (b > start)]] = True
        if m - int(np.count_nonzero(blocked)) >= size:
            break
    soft = ~hard & (a < end) & (b > start)
    # preference: 2 nothing in the way, 1 a reservation in the way (later first), 0 running
    rank = np.full(m, 2, dtype=np.int64)
    first = np.full(m, math.inf)
    np.minimum.at(first, pos[soft], a[soft])
    rank[np.isfinite(first)] = 1
    rank[pos[soft & running]] = 0
    rank[blocked] = -1
    chosen = np.lexsort((np.arange(m), -first, -rank))[:size]
    taken = np.zeros(m, dtype=bool)
    taken[chosen] = True
    hit = soft & taken[pos]
    return Placement(
        start=float(start),
        resources=np.sort(resources[chosen]),
        displaced=distinct(tag[hit & ~running]),
        killed=distinct(tag[hit & running]),
    )


def place_on_owner(
    busy: BusyTime,
    owner: int,
    resources: np.ndarray,
    now: float,
    size: int,
    length: float,
    priority: str = "displace",
) -> Placement | None:
    """:func:`place_local_job` over ``owner``'s rows of the domain's busy time.

    The plain form gathers the owner's busy intervals
    (:meth:`BusyTime.owner_intervals <vosim.market.busy_time.BusyTime.owner_intervals>`) and
    calls :func:`place_local_job`; it runs under ``VOSIM_REFERENCE=1``. Otherwise one compiled
    call (:func:`vosim.market.local_placement_kernels.place`) reads the schedules' rows where
    they are and decides step for step as the plain form does: the same placement.

    Parameters
    ----------
    busy : BusyTime
        The domain's busy time (the VO's reservations and every owner's local jobs).
    owner : int
        The owner's id, ``0 .. K-1``.
    resources : numpy.ndarray of int, shape (m,)
        The owner's resource ids (processors), ascending.
    now, size, length, priority
        As :func:`place_local_job`: the arrival and length in model time units, processors.

    Returns
    -------
    Placement or None
        As :func:`place_local_job`.

    Raises
    ------
    ParameterError
        ``priority`` unknown, ``size < 1`` or ``length <= 0``.

    References
    ----------
    AEP §1 and VO Preferences §2 (local jobs have priority); the rule is vosim's.
    """
    if reference():
        return place_local_job(resources, *busy.owner_intervals(owner), now, size, length, priority)
    _check(priority, size, length)
    resources = np.asarray(resources, dtype=np.int64)
    if size > resources.size:
        return None
    rnode, ra, rb, rtag = busy.reservations.intervals()
    lnode, la, lb, ltag = busy.local[owner].intervals()
    start, taken, displaced, killed = kernels("vosim.market.local_placement_kernels").place(
        resources, rnode, ra, rb, rtag, busy.owner, int(owner), lnode, la, lb, ltag,
        float(now), int(size), float(length), LOCAL_PRIORITIES.index(priority),
    )  # fmt: skip
    return Placement(
        float(start),
        taken,
        displaced if displaced.size else _NONE,
        killed if killed.size else _NONE,
    )


def _check(priority: str, size: int, length: float) -> None:
    """Raise :class:`~vosim.errors.ParameterError` for an unknown rule or an empty job."""
    if priority not in LOCAL_PRIORITIES:
        raise ParameterError(
            f"local_priority must be one of {', '.join(LOCAL_PRIORITIES)}, got {priority!r}"
        )
    if size < 1 or not length > 0:
        raise ParameterError(f"a local job needs size >= 1 and length > 0, got {size}, {length}")
