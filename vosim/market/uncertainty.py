"""Owners' local jobs as uncertain utilization events, and realising those events."""

from __future__ import annotations

import math

import numpy as np

from vosim.core.windows import Window
from vosim.errors import ParameterError
from vosim.market.chain_maths import ChainColumns, lognormal_shapes
from vosim.market.event_chains import EventChain
from vosim.market.utilization_schedule import UtilizationSchedule

__all__ = [
    "ALLOC_UNCERTAINTY",
    "RELEASE_UNCERTAINTY",
    "LocalJobChains",
    "local_chains_schedule",
    "local_job_chain",
    "local_jobs_schedule",
    "sample_interruptions",
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
    :func:`vosim.market.iccs_generators.generate_environment`, ICCS 2021 §4.1).

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
    return UtilizationSchedule(
        np.asarray(global_p, dtype=float),
        *_local_job_fields(start, end),
        chain_of=np.arange(node.size),
        resource_of=node,
    )


def _local_job_fields(start: np.ndarray, end: np.ndarray) -> tuple[np.ndarray, ...]:
    """The six chain fields of local jobs on ``[start, end)`` (:func:`local_job_chain`).

    In the column order of :class:`UtilizationSchedule`; ``start``, ``end`` of shape (J,),
    model time units. The one formula of :func:`local_jobs_schedule` and
    :class:`LocalJobChains`, so both give the same bits.
    """
    start = np.asarray(start, dtype=float)
    end = np.asarray(end, dtype=float)
    length = end - start
    sd_a, sd_r = ALLOC_UNCERTAINTY * length, RELEASE_UNCERTAINTY * length
    return start, sd_a, start + 3 * sd_a, end - 3 * sd_r, end, sd_r


class LocalJobChains:
    """One owner's local jobs as event chains, kept from cycle to cycle in placement order.

    A local job ``(node, start, end)`` is added when the owner places it; it is forgotten
    once its expected end lies more than one job length before the current time (ten
    release standard deviations: ``end + (end - start) <= now``). The jobs still known are
    kept as columns (their nodes and :class:`~vosim.market.chain_maths.ChainColumns`, built
    and checked once per job, when :meth:`update` first sees it), in the order added: the
    chains of :func:`local_jobs_schedule` for the same jobs, bit for bit, without rebuilding
    and validating them every cycle. :attr:`version` changes whenever the set changes, so a
    schedule built from it can be reused until then.

    Notes
    -----
    :meth:`add` is O(1) (a list append); :meth:`update` is O(1) when nothing was added and
    nothing is due to be forgotten (the earliest forgetting time is kept), else O(J) for J
    jobs known.

    References
    ----------
    vosim's rule: the chains are kept across cycles (rebuilding the schedule from every local
    job each cycle took 30 to 70 times the run time of either option alone); ICCS 2023
    §2.1–2.2 (the events).

    Examples
    --------
    >>> jobs = LocalJobChains()
    >>> jobs.add(0, 100.0, 200.0)
    >>> jobs.add(1, 150.0, 400.0)
    >>> jobs.update(250.0)
    >>> jobs.jobs(), jobs.version
    ([(0, 100.0, 200.0), (1, 150.0, 400.0)], 1)
    >>> jobs.update(300.0)   # 200 + (200 - 100) <= 300: the first is forgotten
    >>> jobs.jobs(), jobs.version
    ([(1, 150.0, 400.0)], 2)
    """

    def __init__(self) -> None:
        self._added: list[tuple[int, float, float]] = []  # since the last update, in order
        #: Node of each job known, shape (J,), int64.
        self.node = np.empty(0, dtype=np.int64)
        #: The jobs' chains (:func:`local_job_chain`), J of them, in the order of ``node``.
        self.chains = ChainColumns.build(*_local_job_fields(np.empty(0), np.empty(0)))
        self._forget_at = np.empty(0)  # end + (end - start): forgotten once now reaches it
        self._next_forget = math.inf  # the smallest of _forget_at
        #: Changes (grows) whenever a job is added or forgotten.
        self.version = 0

    def add(self, node: int, start: float, end: float) -> None:
        """Add the local job expected on ``[start, end)`` (model time units) of ``node``."""
        self._added.append((node, start, end))

    def __len__(self) -> int:
        """Number of jobs known (added and not forgotten)."""
        return self.node.size + len(self._added)

    def jobs(self) -> list[tuple[int, float, float]]:
        """The jobs known, ``(node, start, end)`` in the order added (none forgotten here)."""
        self._flush()
        t = self.chains.table
        return list(
            zip(
                self.node.tolist(),
                t.alloc_time.tolist(),
                self.chains.release_time.tolist(),
                strict=True,
            )
        )

    def update(self, now: float) -> None:
        """Take in the jobs added since the last call and forget those ended long before ``now``.

        A job on ``[a, b)`` is forgotten when ``b + (b - a) <= now`` (model time units).

        Raises
        ------
        ParameterError
            A job added since the last call gives an invalid chain (e.g. ``start >= end``);
            it is dropped with the others added since then.
        """
        self._flush()
        if now >= self._next_forget:
            keep = self._forget_at > now
            self.node = self.node[keep]
            self.chains = self.chains.take(keep)
            self._forget_at = self._forget_at[keep]
            self._next_forget = float(self._forget_at.min()) if keep.any() else math.inf
            self.version += 1

    def _flush(self) -> None:
        """Derive the chains of the jobs added since the last call and append them."""
        if not self._added:
            return
        node, start, end = zip(*self._added, strict=True)
        self._added = []
        fields = _local_job_fields(np.asarray(start), np.asarray(end))
        start, end = fields[0], fields[4]
        forget_at = end + (end - start)
        self.node = np.concatenate([self.node, np.asarray(node, dtype=np.int64)])
        self.chains = ChainColumns.concatenate([self.chains, ChainColumns.build(*fields)])
        self._forget_at = np.concatenate([self._forget_at, forget_at])
        self._next_forget = min(self._next_forget, float(forget_at.min()))
        self.version += 1


def local_chains_schedule(
    m: int, jobs: list[LocalJobChains], global_p: np.ndarray
) -> UtilizationSchedule:
    """The :class:`UtilizationSchedule` of several owners' local jobs, without revalidating.

    Equal, array for array, to :func:`local_jobs_schedule` of the jobs of ``jobs`` one owner
    after the other, but built by concatenating the chains each :class:`LocalJobChains` keeps
    (through :meth:`UtilizationSchedule.trusted`): O(J) copies, nothing derived or validated.

    Parameters
    ----------
    m : int
        Number of nodes; every job's node lies in ``[0, m)``.
    jobs : list of LocalJobChains
        Each owner's local jobs, brought up to date (:meth:`LocalJobChains.update`).
    global_p : numpy.ndarray of float, shape (m,)
        Global occupation probability of each node, in [0, 1].

    Returns
    -------
    UtilizationSchedule
        One chain per local job, on its own node.

    Raises
    ------
    ParameterError
        ``global_p`` not of shape (m,) or outside [0, 1]. The jobs' chains are not checked
        again: :class:`LocalJobChains` checked each once, when it first saw it.

    Examples
    --------
    >>> jobs = LocalJobChains()
    >>> jobs.add(0, 100.0, 200.0)
    >>> jobs.update(0.0)
    >>> local_chains_schedule(2, [jobs], np.zeros(2)).p_avail(10.0, [150.0]).tolist()
    [[0.0], [1.0]]
    """
    gp = np.asarray(global_p, dtype=float)
    if gp.shape != (m,) or not np.all((gp >= 0) & (gp <= 1)):
        raise ParameterError(f"global_p must be of shape ({m},) with values in [0, 1]")
    node = np.concatenate([j.node for j in jobs]) if jobs else np.empty(0, dtype=np.int64)
    chains = ChainColumns.concatenate([j.chains for j in jobs]) if jobs else LocalJobChains().chains
    return UtilizationSchedule.trusted(
        gp, chains, chain_of=np.arange(node.size, dtype=np.int64), resource_of=node
    )


def sample_interruptions(
    schedule: UtilizationSchedule,
    nodes: np.ndarray,
    start: float,
    ends: np.ndarray,
    rng: np.random.Generator,
) -> np.ndarray:
    """Draw when each task of a window is first taken by its node's utilization events.

    Task ``j`` holds node ``nodes[j]`` on ``[start, ends[j])``. Each of the node's chains
    draws its allocation time from its normal and its release time from its lognormal; the
    chain occupies the node from the earlier of the drawn allocation and its certain execution
    start until the later of the drawn release and its execution end. The node's global event
    occupies it with probability ``global_p`` at a uniform time of the task's interval.

    Parameters
    ----------
    schedule : UtilizationSchedule
        Events of all nodes.
    nodes : numpy.ndarray of int, shape (n,)
        The tasks' nodes (resource indices of ``schedule``), distinct.
    start : float
        The window's start, model time units.
    ends : numpy.ndarray of float, shape (n,)
        Each task's end, model time units, > ``start``.
    rng : numpy.random.Generator
        Source of randomness. Task by task, in order: the allocation draws of the node's
        chains, their release draws, then two uniforms for the global event (a fixed number
        of draws per chain and per task, so runs are reproducible).

    Returns
    -------
    numpy.ndarray of float, shape (n,)
        Each task's interruption time in ``[start, ends[j])``, or ``inf`` when it runs through.

    Notes
    -----
    This is the *realised* counterpart of the predicted ``P_a`` (ICCS 2023 §2.1), which takes
    each event's maximum occupation probability over the interval; the two need not agree, and
    the run records both so their calibration can be studied. The draws are taken task by
    task; the arithmetic is done once for all the window's chains. Nothing is checked: a node
    outside ``[0, m)`` raises ``IndexError``.

    References
    ----------
    ICCS 2023 §2.1 (allocation, execution and release events of a local job; global events);
    ICCS 2021 §4.1 (the environment whose events are realised).

    Examples
    --------
    >>> s = local_jobs_schedule(1, np.array([0]), np.array([100.0]), np.array([200.0]),
    ...                         np.zeros(1))
    >>> rng = np.random.default_rng(0)
    >>> sample_interruptions(s, np.array([0]), 150.0, np.array([160.0]), rng)  # mid-execution
    array([150.])
    >>> sample_interruptions(s, np.array([0]), 900.0, np.array([950.0]), rng)
    array([inf])
    """
    n = len(nodes)
    ends = np.asarray(ends, dtype=float)
    chains, alloc_draw, release_draw, owner = [], [], [], []
    uniform = np.empty((n, 2))
    for j, node in enumerate(nodes.tolist()):
        c = schedule.chains_on(node)
        if c.size:
            chains.append(c)
            owner.append(j)
            alloc_draw.append(rng.standard_normal(c.size))
            release_draw.append(rng.standard_normal(c.size))
        uniform[j, 0], uniform[j, 1] = rng.random(), rng.random()
    first = np.full(n, math.inf)
    if chains:
        task = np.repeat(owner, [c.size for c in chains])  # the task of each chain
        c = np.concatenate(chains)
        lo = schedule.start[c]
        alloc = schedule.alloc_time[c] + schedule.alloc_sd[c] * np.concatenate(alloc_draw)
        has_alloc = ~np.isnan(schedule.alloc_time[c])
        lo = np.where(has_alloc, np.minimum(lo, alloc), lo)
        end = schedule.end[c]
        hi = end
        has_rel = ~np.isnan(schedule.release_time[c])
        if has_rel.any():
            r = np.flatnonzero(has_rel)
            median = schedule.release_time[c[r]] - end[r]
            shape = lognormal_shapes(median, schedule.release_sd[c[r]])
            draw = np.concatenate(release_draw)[r]
            hi = end.copy()
            hi[r] = np.maximum(end[r], end[r] + median * np.exp(shape * draw))
        hit = (lo < ends[task]) & (hi > start)
        np.minimum.at(first, task[hit], lo[hit])
        first = np.where(np.isfinite(first), np.maximum(first, start), first)
    p = schedule.global_p[nodes]
    taken = (p > 0) & (uniform[:, 0] < p)
    return np.where(taken, np.minimum(first, start + (ends - start) * uniform[:, 1]), first)


def window_availability(window: Window, schedule: UtilizationSchedule) -> float:
    """Predicted ``P_a^w`` of ``window`` in [0, 1] (ICCS 2023 eq. (3), no groups).

    ``schedule`` gives each node's availability; the window's tasks of one length are one
    factor (:meth:`UtilizationSchedule.tasks_availability`).
    """
    spans = window.spans
    return schedule.tasks_availability(spans.node, spans.end - spans.start, window.start)
