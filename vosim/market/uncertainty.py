"""Owners' local jobs as uncertain utilization events, and realising those events."""

from __future__ import annotations

import math

import numpy as np

from vosim.core.windows import Window
from vosim.market.availability import EventChain, UtilizationSchedule, lognormal_shapes

__all__ = [
    "ALLOC_UNCERTAINTY",
    "RELEASE_UNCERTAINTY",
    "local_job_chain",
    "local_jobs_schedule",
    "sample_interruption",
    "window_availability",
]

#: Standard deviation of a local job's allocation time, as a fraction of its length.
ALLOC_UNCERTAINTY = 0.05
#: Standard deviation of a local job's release time, as a fraction of its length.
RELEASE_UNCERTAINTY = 0.1


def local_job_chain(start: float, end: float) -> EventChain:
    """The allocation–execution–release chain of a local job expected on ``[start, end)``.

    Allocation is expected at ``start`` (normal, sd ``0.05 l``), release at ``end`` (lognormal
    median, sd ``0.1 l``), and the execution is certain from ``start + 3 sd_alloc`` to
    ``end - 3 sd_release``, ``l = end - start`` (the choices of
    :func:`vosim.market.availability.generate_environment`, ICCS 2021 §4.1).

    Parameters
    ----------
    start, end : float
        Expected allocation and release times, model time units, ``start < end``.

    Returns
    -------
    EventChain

    Examples
    --------
    >>> chain = local_job_chain(100.0, 200.0)
    >>> chain.p_occupied([100.0, 150.0, 200.0]).tolist()
    [0.5, 1.0, 0.5]
    """
    length = end - start
    sd_a, sd_r = ALLOC_UNCERTAINTY * length, RELEASE_UNCERTAINTY * length
    return EventChain(
        start=start + 3 * sd_a,
        end=end - 3 * sd_r,
        alloc_time=start,
        alloc_sd=sd_a,
        release_time=end,
        release_sd=sd_r,
    )


def local_jobs_schedule(
    m: int, node: np.ndarray, start: np.ndarray, end: np.ndarray, global_p: np.ndarray
) -> UtilizationSchedule:
    """A :class:`UtilizationSchedule` of local jobs, vectorised (one chain per local job).

    Parameters
    ----------
    m : int
        Number of nodes.
    node, start, end : arrays, shape (J,)
        Each local job's node and expected allocation and release times (``start < end``).
    global_p : array, shape (m,)
        Global occupation probability of each node, in [0, 1].

    Returns
    -------
    UtilizationSchedule
        Chains as built by :func:`local_job_chain`, each on its own node.

    Examples
    --------
    >>> s = local_jobs_schedule(2, np.array([0]), np.array([100.0]), np.array([200.0]),
    ...                         np.zeros(2))
    >>> s.p_avail(10.0, [150.0]).tolist()
    [[0.0], [1.0]]
    """
    node = np.asarray(node, dtype=np.int64)
    start = np.asarray(start, dtype=float)
    end = np.asarray(end, dtype=float)
    length = end - start
    sd_a, sd_r = ALLOC_UNCERTAINTY * length, RELEASE_UNCERTAINTY * length
    return UtilizationSchedule(
        global_p=np.asarray(global_p, dtype=float),
        alloc_time=start,
        alloc_sd=sd_a,
        start=start + 3 * sd_a,
        end=end - 3 * sd_r,
        release_time=end,
        release_sd=sd_r,
        chain_of=np.arange(node.size),
        resource_of=node,
    )


def sample_interruption(
    schedule: UtilizationSchedule,
    node: int,
    start: float,
    end: float,
    rng: np.random.Generator,
) -> float:
    """Draw when a node held on ``[start, end)`` is first taken by its utilization events.

    Each of the node's chains draws its allocation time from its normal and its release time
    from its lognormal; the chain occupies the node from the earlier of the drawn allocation
    and its certain execution start until the later of the drawn release and its execution
    end. The node's global event occupies it with probability ``global_p`` at a uniform time
    of the interval.

    Parameters
    ----------
    schedule : UtilizationSchedule
        Events of all nodes.
    node : int
        The node (resource index of ``schedule``).
    start, end : float
        The task's interval, model time units.
    rng : numpy.random.Generator
        Source of randomness (a fixed number of draws per chain, so runs are reproducible).

    Returns
    -------
    float
        The interruption time in ``[start, end)``, or ``inf`` when the task runs through.

    Notes
    -----
    This is the *realised* counterpart of the predicted ``P_a`` (ICCS 2023 §2.1), which takes
    each event's maximum occupation probability over the interval; the two need not agree, and
    the run records both so their calibration can be studied.

    Examples
    --------
    >>> s = local_jobs_schedule(1, np.array([0]), np.array([100.0]), np.array([200.0]),
    ...                         np.zeros(1))
    >>> sample_interruption(s, 0, 150.0, 160.0, np.random.default_rng(0))   # mid-execution
    150.0
    >>> sample_interruption(s, 0, 900.0, 950.0, np.random.default_rng(0))
    inf
    """
    c = schedule.chain_of[schedule.resource_of == node]
    first = math.inf
    if c.size:
        lo = schedule.start[c].copy()
        has_alloc = ~np.isnan(schedule.alloc_time[c])
        draw = rng.standard_normal(c.size)
        alloc = schedule.alloc_time[c] + schedule.alloc_sd[c] * draw
        lo[has_alloc] = np.minimum(lo[has_alloc], alloc[has_alloc])
        hi = schedule.end[c].copy()
        has_rel = ~np.isnan(schedule.release_time[c])
        draw = rng.standard_normal(c.size)
        if has_rel.any():
            r = np.flatnonzero(has_rel)
            median = schedule.release_time[c][r] - schedule.end[c][r]
            shape = lognormal_shapes(median, schedule.release_sd[c][r])
            hi[r] = np.maximum(hi[r], schedule.end[c][r] + median * np.exp(shape * draw[r]))
        hit = (lo < end) & (hi > start)
        if hit.any():
            first = float(max(start, lo[hit].min()))
    p = float(schedule.global_p[node])
    u, v = rng.random(), rng.random()
    if p > 0 and u < p:
        first = min(first, start + (end - start) * v)
    return first


def window_availability(window: Window, schedule: UtilizationSchedule) -> float:
    """Predicted ``P_a^w`` of ``window`` in [0, 1] (ICCS 2023 eq. (3), no groups).

    ``schedule`` gives each node's availability; the window's tasks of one length are one
    factor.
    """
    predicted = 1.0
    for d in sorted({s.length for s in window.slots}):
        nodes = [s.node for s in window.slots if s.length == d]
        predicted *= schedule.window_availability(nodes, window.start, d)
    return predicted
