"""Classes of identical resource requests in the metascheduler's queue, and when to search them.

A trace repeats the same request many times: UniLu-Gaia's 51,987 jobs make 619 distinct
``(n, V, C)`` triples, and late in a run 29,000 waiting jobs fall into about 135 of them. Two
jobs with the same request, the same window criterion (and, with per-period accounts, the same
user) are interchangeable for the window search, which gives two exact shortcuts:

* within a cycle, once one job of a class finds no window, no later job of the class can (the
  slot list only shrinks as windows are cut out of it);
* across cycles, on a static market a class that found no window sleeps until capacity it could
  use may appear (:meth:`RequestClasses.sleep` and :meth:`RequestClasses.wake_freed`).

So a cycle costs the number of classes, not the number of waiting jobs.
"""

from __future__ import annotations

import bisect
import math
from types import ModuleType

import numpy as np

from vosim.core import SlotList
from vosim.core.code_path import kernels, reference
from vosim.core.windows import distinct

__all__ = ["RequestClasses"]

#: Slack on the wake-up bounds: waking a class early only costs a search, never a window.
_RTOL = 1e-6
#: At most this many speed groups in the concurrency bound of :meth:`RequestClasses.sleep`.
_GROUPS = 16


class RequestClasses:
    """Jobs grouped by identical resource request, with per-class state for the cyclic scheme.

    Parameters
    ----------
    jobs : int
        Number of jobs of the model (``model.jobs``); job indices are ``0 .. jobs - 1``.
    performance, price : numpy.ndarray of float, shape (N,)
        Performance and price (cost per time unit) of every node of the domain, by node id;
        fixed (a static market) wherever :meth:`sleep` and :meth:`wake_freed` are used.
    interval : float
        Length ``L`` of the scheduling interval, model time units.

    Attributes
    ----------
    of : numpy.ndarray of int64, shape (jobs,)
        Class id of each job (``-1`` until :meth:`assign`).
    n, volume, budget : numpy.ndarray, shape (classes,)
        Node count ``n``, volume ``V`` (performance x time units) and budget ``C`` (cost units)
        of each class's request.
    own : numpy.ndarray of float, shape (classes,)
        Each class's own interval ``L_c <= L`` (model time units): its jobs' windows are
        searched in ``[t, t + L_c)`` (the cyclic scheme's ``look_ahead``).
    user : numpy.ndarray of int64, shape (classes,)
        The user position of the class under per-period accounts, else ``-1``.
    count : numpy.ndarray of int64, shape (classes,)
        Jobs of the class waiting in the queue; ``total`` their sum.
    members : list of list of int
        Per class, its queued job indices in queue (index) order from position ``head[c]``.
    wake : numpy.ndarray of float, shape (classes,)
        Earliest cycle time (model time units) at which the class is worth searching again.
    code : numpy.ndarray of int8, shape (classes,)
        The class's last screening or allocator code; ``reason`` its allocator reason.
    stamp : numpy.ndarray of int64, shape (classes,)
        The cycle that set ``code`` (``-1``: never).

    References
    ----------
    VO Preferences §2: step 1 of the cyclic scheme searches jobs by first fit in queue order,
    cutting each window out of the slot list. Grouping identical requests and the wake-up
    bounds are vosim's: they only skip searches that would fail.
    """

    def __init__(
        self, jobs: int, performance: np.ndarray, price: np.ndarray, interval: float
    ) -> None:
        self.performance = np.asarray(performance, dtype=float)
        self.per_work = np.asarray(price, dtype=float) / self.performance  # cost per work
        # nodes by speed, fastest first, in at most 16 groups (each at its fastest speed)
        self._by_speed = np.argsort(-self.performance, kind="stable")
        speed = self.performance[self._by_speed]
        distinct = np.flatnonzero(np.r_[True, speed[1:] != speed[:-1]])
        if distinct.size > _GROUPS:
            distinct = np.unique(np.linspace(0, speed.size, _GROUPS, endpoint=False).astype(int))
        self._group_speed = speed[distinct]
        self._group_of = np.empty(speed.size, dtype=np.int64)  # group of each node id
        self._group_of[self._by_speed] = (
            np.searchsorted(distinct, np.arange(speed.size), "right") - 1
        )
        self.interval = float(interval)
        self.of = np.full(jobs, -1, dtype=np.int64)
        self._ids: dict[tuple, int] = {}
        self.n = np.empty(0, dtype=np.int64)
        self.volume = np.empty(0)
        self.budget = np.empty(0)
        self.own = np.empty(0)
        self.user = np.empty(0, dtype=np.int64)
        self.count = np.empty(0, dtype=np.int64)
        self.wake = np.empty(0)
        self.code = np.empty(0, dtype=np.int8)
        self.stamp = np.empty(0, dtype=np.int64)
        self.reason: list[str] = []
        self.members: list[list[int]] = []
        self.head: list[int] = []
        self.total = 0

    def __len__(self) -> int:
        return self.n.size

    def assign(
        self,
        job: int,
        n: int,
        volume: float,
        budget: float,
        criterion: str,
        user: int,
        own: float = math.inf,
    ) -> int:
        """Put job index ``job`` into the class of its request; returns the class id.

        ``user`` is the user position under per-period accounts (its jobs search with ``min(C,
        balance)``), ``-1`` otherwise. ``own``: the job's own interval (model time units;
        ``min(own, L)`` is kept), a function of its request, so one per class.
        """
        key = (n, volume, budget, criterion, user)
        cid = self._ids.get(key)
        if cid is None:
            cid = self._ids[key] = self.n.size
            self.n = np.append(self.n, n)
            self.volume = np.append(self.volume, volume)
            self.budget = np.append(self.budget, budget)
            self.own = np.append(self.own, min(float(own), self.interval))
            self.user = np.append(self.user, user)
            self.count = np.append(self.count, 0)
            self.wake = np.append(self.wake, -math.inf)
            self.code = np.append(self.code, np.int8(0))
            self.stamp = np.append(self.stamp, -1)
            self.reason.append("")
            self.members.append([])
            self.head.append(0)
        self.of[job] = cid
        return cid

    def add(self, jobs: np.ndarray) -> None:
        """Queue job indices ``jobs`` (shape (k,)) in their classes, in job-index order.

        A class that had no waiting job wakes at once (its wake time was not kept up to date
        while it was empty); one with waiting jobs keeps sleeping, since a new job with the
        same request can no more find a window than those already waiting.
        """
        for j in jobs.tolist():
            c = int(self.of[j])
            members = self.members[c]
            if self.count[c] == 0:
                self.wake[c] = -math.inf
            if members and j < members[-1]:  # same-time submissions out of index order
                bisect.insort(members, j, lo=self.head[c])
            else:
                members.append(j)
            self.count[c] += 1
        self.total += jobs.size

    def remove(self, jobs: np.ndarray) -> None:
        """Take job indices ``jobs`` (shape (k,)) out of their classes' queues."""
        if jobs.size == 0:
            return
        by_class: dict[int, set[int]] = {}
        for j in jobs.tolist():
            by_class.setdefault(int(self.of[j]), set()).add(j)
        for c, gone in by_class.items():
            members, h = self.members[c], self.head[c]
            if set(members[h : h + len(gone)]) == gone:  # a prefix of the queue: O(1)
                self.head[c] = h + len(gone)
                if self.head[c] > 64 and 2 * self.head[c] > len(members):
                    del members[: self.head[c]]
                    self.head[c] = 0
            else:
                self.members[c] = [j for j in members[h:] if j not in gone]
                self.head[c] = 0
            self.count[c] -= len(gone)
        self.total -= jobs.size

    def waiting(self) -> np.ndarray:
        """Every queued job index, increasing (queue order), shape (total,)."""
        parts = [m[h:] for m, h in zip(self.members, self.head, strict=True) if len(m) > h]
        if not parts:
            return np.empty(0, dtype=np.int64)
        return np.sort(np.concatenate([np.asarray(p, dtype=np.int64) for p in parts]))

    def awake(self, now: float) -> np.ndarray:
        """Ids of the classes with waiting jobs due for a search at ``now``, increasing."""
        return np.flatnonzero((self.count > 0) & (self.wake <= now))

    def set_code(self, classes: np.ndarray, code, cycle: int, reason: str = "") -> None:
        """Record why ``classes`` got no window in cycle number ``cycle``."""
        self.code[classes] = code
        self.stamp[classes] = cycle
        for c in np.atleast_1d(classes).tolist():
            self.reason[c] = reason

    def sleep(self, classes: np.ndarray, budget: np.ndarray, slots: SlotList, now: float) -> None:
        """Set the wake time of ``classes`` (shape (k,)) that found no window at ``now``.

        ``slots`` is what the cycle left free over ``[now, H)``, ``H = now + L``, and
        ``budget`` (shape (k,)) what each class could spend. On a static market, with no
        reserved time freed (see :meth:`wake_freed`), the free time of a later cycle inside
        ``[now, H)`` is a subset of ``slots``. Class ``c``'s jobs saw the part inside their own
        interval ``[now, H_c)``, ``H_c = now + L_c`` (:attr:`own`), or were screened out
        against it; so a window possible at a later ``t`` (inside ``[t, t + L_c)``) runs a task
        past ``H_c`` on some node ``k``: from ``f_k`` (where its free span containing ``H_c``
        begins; ``H_c`` if it is busy there) for ``T_k = V / p_k``, and that task plus
        ``n - 1`` tasks at the domain's least cost per unit of work must fit ``C``. No cycle
        before ``min_k (f_k + T_k) - L_c`` can then find a window. A class with ``n > 1`` that
        this would wake within ``L / 64`` also waits until ``n`` nodes could hold its tasks
        from one start (:meth:`_concurrent_end`); the later of the two bounds is its wake time.

        Raises nothing; ``classes`` must have waiting jobs (ids from :meth:`assign`).
        """
        if classes.size == 0:
            return
        nodes = np.arange(self.performance.size)
        pays, reach = self._reach(classes, budget, slots, now, nodes)
        # multi-node classes the bound above would wake within L / 64: the concurrency bound
        soon = (self.n[classes] > 1) & (reach < now + self.interval / 64)
        if soon.any():
            f = tail_starts(slots, now + self.interval, self.performance.size)
            by_f = np.argsort(f, kind="stable")
            for i in np.flatnonzero(soon).tolist():
                c = int(classes[i])
                end = self._concurrent_end(c, pays[i], slots, f, now, by_f)
                reach[i] = max(reach[i], end - self.own[c] * (1 + _RTOL))
        self.wake[classes] = reach

    def hold_back(
        self, classes: np.ndarray, budget: np.ndarray, slots: SlotList, now: float
    ) -> np.ndarray:
        """Of awake ``classes`` (shape (k,)), those worth a search at ``now``; the rest sleep.

        A class of ``n > 1`` nodes cannot find a window, now or in a later cycle of a static
        market, before its tasks can run together: its wake time becomes the concurrency
        bound (:meth:`_concurrent_end` over ``slots``, the cycle's whole slot list of
        ``[now, now + L)``) less its own interval ``L_c``, and it is held back while that lies
        after ``now``. The bound assumes nothing of earlier searches, so it applies to a class
        freed time woke (:meth:`wake_freed` wakes on one node that could hold one task) as well
        as to one never searched. ``budget``: what each class may spend, shape (k,), cost
        units. Returns the ids kept awake, in the given order. Raises nothing; ``classes``
        must be ids from :meth:`assign`.

        References
        ----------
        VO Preferences §2 (a window's ``n`` tasks start together); the bound is vosim's and
        only skips searches that would fail.
        """
        multi = self.n[classes] > 1
        if not multi.any():
            return classes
        nodes = np.arange(self.performance.size)
        pays = self._pays(classes[multi], budget[multi], nodes)
        f = tail_starts(slots, now + self.interval, self.performance.size)
        by_f = np.argsort(f, kind="stable")
        keep = np.ones(classes.size, dtype=bool)
        for i, k in enumerate(np.flatnonzero(multi).tolist()):
            c = int(classes[k])
            end = self._concurrent_end(c, pays[i], slots, f, now, by_f)
            wake = end - self.own[c] * (1 + _RTOL)
            if wake > now:
                self.wake[c] = max(self.wake[c], wake)
                keep[k] = False
        return classes[keep]

    def _concurrent_end(
        self,
        c: int,
        pays: np.ndarray,
        slots: SlotList,
        f: np.ndarray,
        now: float,
        by_f: np.ndarray | None = None,
    ) -> float:
        """A lower bound on the end of any later window of class ``c`` (``n > 1``).

        The ``n`` tasks of a window start together at some ``t``. A node ``j`` it can pay for
        (``pays``, shape (N,)) can hold its task ``[t, t + T_j)`` in a later cycle only inside
        a slot of ``slots`` that ends before ``H`` and contains it (fixed), or in its slot
        reaching ``H`` (from ``f_j <= t``; ``f_j = H`` for a node busy at ``H``), which then
        ends past ``t + T_j``. So if ``k(t)`` nodes hold it at ``t`` in slots ending before
        ``H``, the other ``r = n - k(t)`` come from slots reaching ``H``, and the window ends no
        earlier than ``t`` plus the ``r``-th smallest ``T_j`` among them. The least over
        every ``t`` where ``k`` or the set of such nodes changes is the bound. Nodes are taken
        in up to 16 speed groups (each at its fastest), which only lowers the bound.
        ``by_f``: the node ids in increasing ``f``, shared by the classes of one cycle
        (sorted here when not given).
        """
        horizon = now + self.interval
        volume, n = self.volume[c], self.n[c]
        if not reference():  # the compiled form: the same bound, bit for bit
            if by_f is None:
                by_f = np.argsort(f, kind="stable")
            return _sleep_kernels().concurrent_end(
                slots.start, slots.end, slots.node, slots.performance, pays, f, by_f,
                self._group_of, self._group_speed, float(volume), int(n), float(now),
                float(horizon), _RTOL,
            )  # fmt: skip
        need = volume / slots.performance * (1 - _RTOL)
        usable = (slots.end < horizon) & (slots.end - slots.start >= need) & pays[slots.node]
        first = np.sort(slots.start[usable])
        last = np.sort(slots.end[usable] - need[usable])
        # slots reaching H by start, with each one's speed group: counts per group by t (one
        # row per distinct start: on processors most of a node's processors share theirs)
        tail = np.flatnonzero(pays)
        tail_start, row = np.unique(f[tail], return_inverse=True)
        width = self._group_speed.size
        cell = (row + 1) * width + self._group_of[tail]
        groups = np.bincount(cell, minlength=(tail_start.size + 1) * width)
        groups = np.cumsum(groups.reshape(tail_start.size + 1, width), axis=0)
        at = distinct(np.concatenate([[now], first, tail_start]))
        fixed = first.searchsorted(at, side="right") - last.searchsorted(at, side="left")
        have = np.cumsum(groups[tail_start.searchsorted(at, side="right")], axis=1)
        # t_g: the earliest t at which the fixed slots and the g fastest groups' slots
        # reaching H give n nodes; the window then ends no earlier than t_g + T_g
        enough = (have + fixed[:, None]) >= n
        t_g = np.where(enough, at[:, None], np.inf).min(axis=0)
        return float((t_g + volume / self._group_speed).min())

    def wake_freed(
        self, freed: np.ndarray, budget: np.ndarray, slots: SlotList, now: float
    ) -> None:
        """Bring forward the wake of sleeping classes after reserved time was freed on ``freed``.

        ``freed`` (node ids, shape (r,)) had time released early (a job finished before its
        reservation ended) and ``slots`` is the slot list of ``now`` (only the freed nodes'
        slots are read, so that part is enough); ``budget`` is indexed by class id. A window
        that uses the freed time runs a task of ``T_k = V / p_k`` inside a slot of node ``k``
        that fits the budget as in :meth:`sleep`: classes with ``V <= p_k * longest_k``
        (``longest_k``: node ``k``'s longest slot now) for such a node wake now (multi-node
        ones may then be held back by :meth:`hold_back`); for the others the freed time may
        later join the span containing ``H_c``, so their wake time becomes at most
        ``f_k + T_k - L_c``.
        """
        sleeping = np.flatnonzero((self.count > 0) & (self.wake > now))
        if sleeping.size == 0 or freed.size == 0:
            return
        longest = np.zeros(self.performance.size)
        np.maximum.at(longest, slots.node, slots.end - slots.start)
        fits, reach = self._reach(sleeping, budget[sleeping], slots, now, freed)
        capacity = self.performance[freed] * longest[freed] * (1 + _RTOL)
        now_fits = (fits & (self.volume[sleeping][:, None] <= capacity)).any(axis=1)
        self.wake[sleeping] = np.where(now_fits, now, np.minimum(self.wake[sleeping], reach))

    def _pays(self, classes: np.ndarray, budget: np.ndarray, nodes: np.ndarray) -> np.ndarray:
        """Whether each class can pay a task on each of ``nodes``, bool, shape (k, r).

        The task ``V / p_k`` on node ``k`` plus ``n - 1`` tasks at the domain's least cost per
        unit of work within the budget (``budget``, shape (k,)).
        """
        volume = self.volume[classes][:, None]
        least = (self.n[classes][:, None] - 1) * self.per_work.min()
        return volume * (self.per_work[nodes] + least) <= budget[:, None] * (1 + _RTOL)

    def _reach(
        self,
        classes: np.ndarray,
        budget: np.ndarray,
        slots: SlotList,
        now: float,
        nodes: np.ndarray,
    ) -> tuple[np.ndarray, np.ndarray]:
        """Which ``nodes`` each class can pay a task on (shape (k, r)), and its tail wake (k,).

        The wake is ``min (f_k + V / p_k) - L_c`` over those nodes, ``f_k`` where node ``k``'s
        free span containing ``H_c = now + L_c`` begins in ``slots`` (:func:`tail_starts`, for
        every distinct ``L_c`` at once).
        """
        own = self.own[classes]
        fits = self._pays(classes, budget, nodes)
        lengths = distinct(own)
        at = tail_starts(slots, now + self.interval, self.performance.size, now + lengths)
        f = at[np.searchsorted(lengths, own)][:, nodes]
        task = self.volume[classes][:, None] / self.performance[nodes]
        reach = np.where(fits, f + task, np.inf).min(axis=1)
        return fits, reach - own * (1 + _RTOL)


def tail_starts(
    slots: SlotList, horizon: float, nodes: int, at: float | np.ndarray | None = None
) -> np.ndarray:
    """Per node id, where its free span containing each time of ``at`` begins.

    ``slots`` covers ``[t, horizon)``, in any order. ``at``: one time or increasing
    distinct times in ``(t, horizon]`` (model time units; default ``horizon``). A slot
    contains ``a`` when it starts by ``a`` and ends after it, or reaches ``horizon`` (free to
    the end of what is known). Nodes without such a slot (busy at ``a``) get ``a``. Returns
    shape (nodes,) for one time, ``(len(at), nodes)`` for an array: one pass over the slots,
    ``O(m log h + h * nodes)`` for ``h`` times. Raises nothing; node ids must be below
    ``nodes``.

    References
    ----------
    AEP §2.1 (slots: a node's free span); used by the request classes' wake-up bounds,
    which are vosim's.
    """
    times = np.atleast_1d(np.asarray(horizon if at is None else at, dtype=float))
    out = np.repeat(times[:, None], nodes, axis=1)
    lo = np.searchsorted(times, slots.start, side="left")  # the first time at or after its start
    hi = np.where(slots.end >= horizon, times.size, np.searchsorted(times, slots.end, side="left"))
    count = np.maximum(hi - lo, 0)
    if count.any():  # each slot's run of times lo .. hi - 1, flattened
        first = np.repeat(lo - np.cumsum(count) + count, count)
        row = np.arange(int(count.sum())) + first
        out[row, np.repeat(slots.node, count)] = np.repeat(slots.start, count)
    return out if np.ndim(at) else out[0]


def _sleep_kernels() -> ModuleType:
    """The compiled bound, imported at the first class put to sleep (numba loads then)."""
    return kernels("vosim.policies.sleep_kernels")
