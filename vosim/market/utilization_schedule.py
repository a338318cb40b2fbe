"""Utilization events of many resources, chains shared by co-allocated jobs, and ``P_a``.

:class:`UtilizationSchedule` holds the event chains of ``m`` resources (ICCS 2023 §2.1, ICCS
2021 §3.1) and global events (maintenance, network failures: a constant ``P_o`` over the whole
scheduling interval). It evaluates ``P_a`` for many resources and start times at once
(:meth:`UtilizationSchedule.p_avail`, the input of the ICCS 2021 §3.2 time scan) and turns
chains shared by several resources (an earlier parallel job) into the ``group`` / ``group_p``
arrays of :class:`vosim.allocators.availability_problem.AvailabilityProblem` (ICCS 2023 §2.2,
eq. 3). :mod:`vosim.market.iccs_generators` draws the papers' environments and instances
from it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property
from types import ModuleType

import numpy as np
import numpy.typing as npt

from vosim.core.code_path import kernels, reference
from vosim.core.windows import distinct
from vosim.errors import ParameterError
from vosim.market.chain_maths import (
    _CHAIN_FIELDS,
    ChainColumns,
    _ChainTable,
    _check_chain_arrays,
    _check_duration,
    _check_probabilities,
    _p_avail,
    _q_values,
    _ranges,
    _starts_array,
    normal_cdf,
)
from vosim.market.event_chains import EventChain

__all__ = ["UtilizationSchedule"]


@dataclass(frozen=True, eq=False, repr=False)
class UtilizationSchedule:
    """Utilization events of ``m`` resources: event chains (possibly shared) and global events.

    Chains are stored as a struct of arrays (one entry per chain, see :class:`EventChain` for
    the meaning of each field) and a membership list of ``(chain, resource)`` pairs: a chain
    with several resources is one job co-allocated on all of them, a *group dependency*
    (ICCS 2023 §2.2). Build it with :meth:`from_chains` or :func:`generate_environment`.

    Parameters
    ----------
    global_p : array_like, shape (m,)
        Total occupation probability of each resource's global events, in [0, 1] (combine
        several independent global events as ``1 - prod(1 - p_j)``).
    alloc_time, alloc_sd, start, end, release_time, release_sd : array_like, shape (C,)
        The chains' fields (NaN ``alloc_time`` / ``release_time``: no such event).
    chain_of, resource_of : array_like of int, shape (P,)
        Membership pairs: chain ``chain_of[j]`` applies to resource ``resource_of[j]``. Every
        chain has at least one resource; no pair repeats.

    Raises
    ------
    ParameterError
        Mismatched shapes, a probability outside [0, 1], an invalid chain (named by index),
        an index out of range, a chain without resources or a repeated pair.

    References
    ----------
    ICCS 2023 §2.1–2.2 (events, groups), §3.1 ("each node supports a list of active global
    and local job utilization events"); ICCS 2021 §4.1.

    Examples
    --------
    Resource 0 runs a local job; resources 1 and 2 share one parallel job.

    >>> from vosim.market.event_chains import EventChain, occupation_event
    >>> sched = UtilizationSchedule.from_chains(3, [
    ...     (0, occupation_event(0, 100)),
    ...     ([1, 2], EventChain(start=50, end=150, alloc_time=40, alloc_sd=5,
    ...                         release_time=170, release_sd=10)),
    ... ], global_p=[0.05, 0.0, 0.1])
    >>> sched.m, sched.n_chains
    (3, 2)
    >>> sched.p_avail(50, [100, 400]).round(3).tolist()
    [[0.95, 0.95], [0.0, 1.0], [0.0, 0.9]]
    """

    global_p: np.ndarray
    alloc_time: np.ndarray
    alloc_sd: np.ndarray
    start: np.ndarray
    end: np.ndarray
    release_time: np.ndarray
    release_sd: np.ndarray
    chain_of: np.ndarray
    resource_of: np.ndarray

    def __post_init__(self) -> None:
        gp = np.asarray(self.global_p, dtype=float)
        if gp.ndim != 1:
            raise ParameterError(f"global_p must be one-dimensional (m,), got shape {gp.shape}")
        _check_probabilities(gp, "global_p")
        names = _CHAIN_FIELDS
        cols = [np.asarray(getattr(self, n), dtype=float) for n in names]
        for n, col in zip(names, cols, strict=True):
            if col.shape != cols[2].shape or col.ndim != 1:
                raise ParameterError(
                    f"{n} must have the shape (C,) of start {cols[2].shape}, got {col.shape}"
                )
        _check_chain_arrays(*cols)
        pairs = []
        for n in ("chain_of", "resource_of"):
            raw = np.asarray(getattr(self, n))
            if raw.size and not np.issubdtype(raw.dtype, np.integer):
                raise ParameterError(f"{n} must hold integer indices, got dtype {raw.dtype}")
            pairs.append(raw.astype(np.int64).reshape(raw.shape))
        chain_of, resource_of = pairs
        if chain_of.ndim != 1 or chain_of.shape != resource_of.shape:
            raise ParameterError(
                f"chain_of and resource_of must be 1-D of one shape (P,), got "
                f"{chain_of.shape} and {resource_of.shape}"
            )
        C, m = cols[2].size, gp.size
        for n, idx, top in (("chain_of", chain_of, C), ("resource_of", resource_of, m)):
            bad = (idx < 0) | (idx >= top)
            if np.any(bad):
                j = int(np.flatnonzero(bad)[0])
                raise ParameterError(f"{n}[{j}] = {idx[j]} is outside [0, {top})")
        if C and np.bincount(chain_of, minlength=C).min() == 0:
            c = int(np.flatnonzero(np.bincount(chain_of, minlength=C) == 0)[0])
            raise ParameterError(f"chain {c} applies to no resource")
        key = chain_of * max(m, 1) + resource_of
        if np.unique(key).size != key.size:
            raise ParameterError("a (chain, resource) pair is listed twice")
        for n, v in zip(names, cols, strict=True):
            object.__setattr__(self, n, v)
        object.__setattr__(self, "global_p", gp)
        object.__setattr__(self, "chain_of", chain_of)
        object.__setattr__(self, "resource_of", resource_of)
        object.__setattr__(self, "_table", _ChainTable.build(*cols))

    @classmethod
    def trusted(
        cls,
        global_p: np.ndarray,
        chains: ChainColumns,
        chain_of: np.ndarray,
        resource_of: np.ndarray,
    ) -> UtilizationSchedule:
        """A schedule from columns valid by construction: nothing checked, nothing derived.

        The constructor validates its input (a ``np.unique`` over the membership pairs among
        others) and derives each chain's evaluation columns; a caller that keeps chains
        across scheduling cycles (:class:`vosim.market.uncertainty.LocalJobChains`) has
        validated and derived them once, when each chain was created, and builds each
        cycle's schedule here instead. The result equals, array for
        array, what the constructor gives for the same fields.

        Parameters
        ----------
        global_p : numpy.ndarray of float, shape (m,)
            Global occupation probability of each resource, in [0, 1].
        chains : ChainColumns
            The C chains, valid (:class:`EventChain`'s rules).
        chain_of, resource_of : numpy.ndarray of int64, shape (P,)
            Membership pairs: every chain in ``[0, C)`` at least once, resources in
            ``[0, m)``, no pair twice.

        Returns
        -------
        UtilizationSchedule
            Holding these arrays themselves (not copies): do not modify them afterwards.

        Examples
        --------
        >>> chains = ChainColumns.build([100.0], [5.0], [115.0], [170.0], [200.0], [10.0])
        >>> s = UtilizationSchedule.trusted(np.zeros(2), chains, np.array([0]), np.array([1]))
        >>> s.p_avail(10.0, [150.0]).tolist()
        [[1.0], [0.0]]
        """
        self = object.__new__(cls)
        for name, value in zip(_CHAIN_FIELDS, chains.fields(), strict=True):
            object.__setattr__(self, name, value)
        object.__setattr__(self, "global_p", global_p)
        object.__setattr__(self, "chain_of", chain_of)
        object.__setattr__(self, "resource_of", resource_of)
        object.__setattr__(self, "_table", chains.table)
        return self

    def __repr__(self) -> str:
        shared = int(np.sum(np.bincount(self.chain_of, minlength=self.n_chains) > 1))
        return (
            f"UtilizationSchedule(m={self.m}, chains={self.n_chains}, shared chains={shared}, "
            f"mean global_p={float(self.global_p.mean()) if self.m else 0.0:.4g})"
        )

    @classmethod
    def from_chains(
        cls,
        m: int,
        chains: Iterable[tuple[int | Sequence[int], EventChain]] = (),
        global_p: float | npt.ArrayLike = 0.0,
    ) -> UtilizationSchedule:
        """Build a schedule from ``(resources, chain)`` pairs.

        Parameters
        ----------
        m : int
            Number of resources (>= 0).
        chains : iterable of (int or sequence of int, EventChain)
            Each chain with the resource index (a local job) or indices (a job co-allocated
            on several resources: one shared chain, a group dependency).
        global_p : float or array_like, shape (m,)
            Global occupation probability of each resource (a scalar applies to all).

        Returns
        -------
        UtilizationSchedule

        Raises
        ------
        ParameterError
            See the class; also a negative ``m``.
        TypeError
            A chain is not an :class:`EventChain`.
        """
        if isinstance(m, bool) or not isinstance(m, (int, np.integer)) or m < 0:
            raise ParameterError(f"m must be an integer >= 0, got {m!r}")
        if np.ndim(global_p) and np.shape(global_p) != (m,):
            raise ParameterError(
                f"global_p must be a scalar or of shape ({m},), got shape {np.shape(global_p)}"
            )
        gp = np.broadcast_to(np.asarray(global_p, dtype=float), (m,)).copy()
        fields, chain_of, resource_of = [], [], []
        for c, (res, ch) in enumerate(chains):
            if not isinstance(ch, EventChain):
                raise TypeError(f"chain {c} must be an EventChain, got {type(ch).__name__}")
            members = np.atleast_1d(np.asarray(res, dtype=np.int64))
            fields.append(ch._fields())
            chain_of.extend([c] * members.size)
            resource_of.extend(members.tolist())
        cols = np.array(fields, dtype=float).reshape(-1, 6).T
        return cls(
            gp,
            *cols,
            chain_of=np.array(chain_of, dtype=np.int64),
            resource_of=np.array(resource_of, dtype=np.int64),
        )

    def with_chains(
        self, chains: Iterable[tuple[int | Sequence[int], EventChain]]
    ) -> UtilizationSchedule:
        """A new schedule with ``chains`` (``(resources, EventChain)`` pairs) added.

        Examples
        --------
        >>> from vosim.market.event_chains import occupation_event
        >>> s = UtilizationSchedule.from_chains(2).with_chains([([0, 1], occupation_event(0, 5))])
        >>> s.n_chains, s.chains_of(1)[0].end
        (1, 5.0)
        """
        extra = UtilizationSchedule.from_chains(self.m, chains)
        C = self.n_chains
        cols = [np.concatenate([getattr(self, n), getattr(extra, n)]) for n in _CHAIN_FIELDS]
        return UtilizationSchedule(
            self.global_p,
            *cols,
            chain_of=np.concatenate([self.chain_of, extra.chain_of + C]),
            resource_of=np.concatenate([self.resource_of, extra.resource_of]),
        )

    @property
    def m(self) -> int:
        """Number of resources."""
        return int(self.global_p.size)

    @property
    def n_chains(self) -> int:
        """Number of event chains C."""
        return int(self.start.size)

    def chain(self, c: int) -> EventChain:
        """Chain ``c`` as an :class:`EventChain`."""
        return EventChain(
            start=self.start[c],
            end=self.end[c],
            alloc_time=self.alloc_time[c],
            alloc_sd=self.alloc_sd[c],
            release_time=self.release_time[c],
            release_sd=self.release_sd[c],
        )

    def chains_of(self, resource: int) -> list[EventChain]:
        """The chains of one resource (shared ones included), in chain order."""
        if not 0 <= resource < self.m:
            raise ParameterError(f"resource {resource} is outside [0, {self.m})")
        return [self.chain(int(c)) for c in np.sort(self.chains_on(resource))]

    @cached_property
    def _pairs_by_resource(self) -> tuple[np.ndarray, np.ndarray]:
        """The membership pairs grouped by resource: ``(order, offsets)``.

        ``order[offsets[r]:offsets[r + 1]]`` are the positions of resource ``r``'s pairs in
        ``chain_of`` / ``resource_of``, in their order there (a stable sort), shapes (P,) and
        (m + 1,). Built once per schedule, on first use (``O(P log P)``).
        """
        order = np.argsort(self.resource_of, kind="stable")
        offsets = np.searchsorted(self.resource_of[order], np.arange(self.m + 1), side="left")
        return order, offsets

    def chains_on(self, resource: int) -> np.ndarray:
        """Chain indices of resource ``resource``'s pairs, in membership order, shape (c,).

        The same array as ``chain_of[resource_of == resource]``, read from an index built once
        per schedule instead of a scan of every pair. ``resource`` must lie in ``[0, m)``
        (not checked: an index out of range raises ``IndexError``).

        References
        ----------
        ICCS 2023 §2.2 (a chain shared by several resources is one group dependency).
        """
        order, offsets = self._pairs_by_resource
        return self.chain_of[order[offsets[resource] : offsets[resource + 1]]]

    def p_avail(
        self, duration: float, starts: npt.ArrayLike, resources: npt.ArrayLike | None = None
    ) -> np.ndarray:
        """Availability ``P_a(r_i, t_k, T)`` of every resource for every start time.

        Parameters
        ----------
        duration : float
            Reservation time ``T > 0``, model time units.
        starts : array_like, shape (K,)
            Start times ``t_k``, any order (a scalar gives K = 1).
        resources : array_like of int, shape (r,), optional
            Only these resources' rows, in this order (the same values as their rows of the
            full matrix, bit for bit: each entry's product is taken in the same order).
            ``None`` (default): all ``m``.

        Returns
        -------
        numpy.ndarray, shape (m, K) or (r, K)
            ``P_a`` in [0, 1]: the ICCS 2023 §2.1 product, each chain counted once per
            resource, times ``1 - global_p``. This is the ``p_avail`` input of the time scan.

        Raises
        ------
        ParameterError
            ``duration <= 0``, non-finite starts, or ``resources`` not distinct indices in
            ``[0, m)``.

        Notes
        -----
        Vectorised over chains and starts at once. A chain changes ``P_a`` only for starts
        from ``alloc_time - 8.5 alloc_sd - T`` to the point where its release survival falls
        below ``Phi(-8.5) < 2**-54``: outside that window ``1 - P_o`` rounds to exactly 1.0,
        so it is skipped (found by binary search on the sorted starts) without changing any
        bit of the result. Starts whose interval meets an execution get ``P_a = 0`` through a
        difference array, and the normal CDF is evaluated only for the allocation and release
        phases of starts not already zeroed. Cost O(P log K + m K + F) for P membership pairs
        and F affected (pair, start) entries, at most P K. Measured on one core: about 5 ms
        for m = 64, K = 801 at job-load 0.5, and 0.15–0.2 s for m = 2000, K = 600.

        References
        ----------
        ICCS 2023 §2.1; ICCS 2021 §3.2 (``P_a^{r_i}(t; t + T)`` for every ``t_k`` of the
        time scan).
        """
        T = _check_duration(duration)
        t = _starts_array(starts)
        base = 1.0 - self.global_p
        if resources is None:
            return _p_avail(self._table, self.chain_of, self.resource_of, base, t, T)
        rows = self._resource_index(resources)
        position = np.full(self.m, -1, dtype=np.int64)
        position[rows] = np.arange(rows.size)
        keep = position[self.resource_of] >= 0  # the pairs of those resources, in order
        row_of = position[self.resource_of[keep]]
        return _p_avail(self._table, self.chain_of[keep], row_of, base[rows], t, T)

    def _chain_q(
        self, start: float, duration: float, chains: np.ndarray | None = None
    ) -> np.ndarray:
        """``1 - max P_o`` of chains over ``[start, start + T)``: every chain (C,) or ``chains``.

        Elementwise, so the value of a chain does not depend on which others are asked.
        """
        T = _check_duration(duration)
        if np.ndim(start) != 0:
            raise ParameterError(f"start must be a scalar time, got shape {np.shape(start)}")
        t = float(_starts_array(start)[0])
        c = np.arange(self.n_chains, dtype=np.int64) if chains is None else chains
        return _q_values(self._table, c, np.full(c.size, t), np.full(c.size, t + T))

    def _resource_index(self, resources: npt.ArrayLike | None) -> np.ndarray:
        if resources is None:
            return np.arange(self.m, dtype=np.int64)
        raw = np.asarray(resources)
        if raw.ndim != 1 or (raw.size and not np.issubdtype(raw.dtype, np.integer)):
            raise ParameterError(f"resources must be a 1-D array of indices, got {raw!r}")
        r = raw.astype(np.int64)
        bad = (r < 0) | (r >= self.m)
        if np.any(bad):
            j = int(np.flatnonzero(bad)[0])
            raise ParameterError(f"resources[{j}] = {r[j]} is outside [0, {self.m})")
        if np.unique(r).size != r.size:
            raise ParameterError("resources must not repeat")
        return r

    def groups(
        self,
        start: float,
        duration: float,
        resources: npt.ArrayLike | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """Group dependencies at one start time: the ``group`` and ``group_p`` of eq. (3).

        Resources that share an event chain active in ``[start, start + T)`` (its
        ``max P_o > 0``) belong to one group, transitively; the others are singleton groups.

        Parameters
        ----------
        start : float
            Job start time ``t``, model time units.
        duration : float
            Reservation time ``T > 0``.
        resources : array_like of int, shape (N,), optional
            The candidate resources (default: all ``m``), distinct; the arrays returned refer
            to positions in this list.

        Returns
        -------
        group : numpy.ndarray of int, shape (N,)
            Group of each resource in ``[0, G)``, numbered by first appearance.
        group_p : numpy.ndarray, shape (G,)
            Availability of each group in [0, 1]: the product over the *union* of its
            members' independent events, each shared chain once, each member's global event
            and private chains included.

        Raises
        ------
        ParameterError
            ``duration <= 0``, a non-finite start, a resource index out of range or repeated.

        Notes
        -----
        Eq. (3) gives a window one factor per touched group, whichever and however many of
        its members it takes, so the group's probability must not depend on the members
        chosen. The union model satisfies this: it is the exact ``P_a^w`` (the product over
        the union of the events of the selected resources, shared chains once) when a window
        takes every member of each group it touches, or when members have no events of their
        own, as in the paper's Fig. 3 where ``P_a^1 = P_a^3 = P_a^4``; otherwise it is a lower
        bound (never optimistic), since it also counts the private events of the members
        left out. A singleton group's probability is exactly the resource's ``P_a``. The
        exact value of a given selection is :meth:`window_availability`. Chains with
        ``max P_o = 0`` over the interval do not link resources (they change nothing).

        References
        ----------
        ICCS 2023 §2.2, eq. (3) and Fig. 3.

        Examples
        --------
        >>> from vosim.market.event_chains import EventChain, allocation_event
        >>> job = EventChain(start=0, end=80, release_time=100, release_sd=10)
        >>> sched = UtilizationSchedule.from_chains(
        ...     4, [([0, 2], job), (3, allocation_event(300, 20))], global_p=0.1)
        >>> group, group_p = sched.groups(100, 50)
        >>> group.tolist(), group_p.round(3).tolist()
        ([0, 1, 0, 2], [0.405, 0.9, 0.9])
        """
        T = _check_duration(duration)
        q = self._chain_q(start, T)
        res = self._resource_index(resources)
        N = res.size
        pos = np.full(self.m, -1, dtype=np.int64)
        pos[res] = np.arange(N)
        keep = pos[self.resource_of] >= 0
        pc, pr = self.chain_of[keep], pos[self.resource_of[keep]]
        # Union of resources over active shared chains: min-label propagation with pointer
        # jumping; a component's label ends as its smallest position (= first appearance).
        label = np.arange(N, dtype=np.int64)
        active = q[pc] < 1.0
        lc, lr = pc[active], pr[active]
        if lc.size:
            while True:
                low = np.full(self.n_chains, N, dtype=np.int64)
                np.minimum.at(low, lc, label[lr])
                new = label.copy()
                np.minimum.at(new, lr, low[lc])
                new = new[new]
                if np.array_equal(new, label):
                    break
                label = new
        _, group = np.unique(label, return_inverse=True)
        G = int(group.max()) + 1 if N else 0
        group_p = np.ones(G)
        np.multiply.at(group_p, group, 1.0 - self.global_p[res])
        if pc.size:
            gc = np.unique(np.stack([group[pr], pc], axis=1), axis=0)
            np.multiply.at(group_p, gc[:, 0], q[gc[:, 1]])
        return group.astype(np.int64), group_p

    def window_availability(self, selected: npt.ArrayLike, start: float, duration: float) -> float:
        """Exact ``P_a^w`` of a set of resources held together on ``[start, start + T)``.

        The product over the union of the selected resources' independent events: each
        chain once, however many selected resources share it, and each global event.

        Parameters
        ----------
        selected : array_like of int, shape (n,)
            Distinct resource indices.
        start : float
            Job start time ``t``.
        duration : float
            Reservation time ``T > 0``.

        Returns
        -------
        float
            ``P_a^w`` in [0, 1] (eq. 3 with groups made of shared chains; eq. 2 when no chain
            is shared). 1.0 for an empty selection.

        Raises
        ------
        ParameterError
            As for :meth:`groups`.

        References
        ----------
        ICCS 2023 §2.2, eq. (2)–(3).

        Examples
        --------
        >>> from vosim.market.event_chains import EventChain
        >>> job = EventChain(start=0, end=80, release_time=100, release_sd=10)
        >>> sched = UtilizationSchedule.from_chains(3, [([0, 1], job)], global_p=0.1)
        >>> round(sched.window_availability([0, 1], 100, 50), 4)   # 0.5 * 0.9 * 0.9
        0.405
        """
        _check_duration(duration)
        sel = self._resource_index(selected)
        order, offsets = self._pairs_by_resource
        _, pairs = _ranges(offsets[sel], offsets[sel + 1])
        chains = np.unique(self.chain_of[order[pairs]])
        q = self._chain_q(start, duration, chains)
        return float(np.prod(1.0 - self.global_p[sel]) * np.prod(q))

    def tasks_availability(self, node: np.ndarray, length: np.ndarray, start: float) -> float:
        """``P_a^w`` of a window whose tasks may differ in length: one factor per length.

        The product, over the distinct task lengths ``d`` in ascending order, of
        :meth:`window_availability` of the nodes with tasks of length ``d``. Compiled
        (:mod:`vosim.market.window_availability_kernels`: the chains gathered and the
        products taken in two passes, ``log`` and ``Phi`` in numpy between them) unless
        ``VOSIM_REFERENCE=1``; the same value bit for bit.

        Parameters
        ----------
        node : numpy.ndarray of int, shape (n,)
            The window's nodes (distinct resource indices), in window order.
        length : numpy.ndarray of float, shape (n,)
            Each task's reservation time (> 0), model time units.
        start : float
            The window's start ``t``.

        Returns
        -------
        float
            ``P_a^w`` in [0, 1] (1.0 for no task).

        Raises
        ------
        ParameterError
            On the plain path, as :meth:`window_availability`; the compiled path does not
            check its arguments (its callers pass a window's own spans).

        References
        ----------
        ICCS 2023 §2.2, eq. (2)–(3): tasks of one length share one interval.
        """
        if reference():
            predicted = 1.0
            for d in distinct(length).tolist():  # ascending
                predicted *= self.window_availability(node[length == d], start, d)
            return predicted
        order, offsets = self._pairs_by_resource
        tab = self._table
        kernels = _window_kernels()
        node_offsets, nodes, chain_offsets, q, at, z, release, chain, x = kernels.gather(
            np.asarray(node, dtype=np.int64), np.asarray(length, dtype=float), float(start),
            order, offsets, self.chain_of, tab.start, tab.end, tab.alloc_time, tab.alloc_sd,
            tab.has_alloc, tab.has_release,
        )  # fmt: skip
        if x.size:  # numpy's log, as _release_cdf takes it (not libm's: other bits)
            kernels.release_z(np.log(x), release, chain, tab.log_median, tab.shape, z)
        phi = normal_cdf(z)
        return float(kernels.product(node_offsets, nodes, chain_offsets, q, at, phi, self.global_p))


def _window_kernels() -> ModuleType:
    """The compiled passes, imported at the first window evaluated (numba loads then)."""
    return kernels("vosim.market.window_availability_kernels")
