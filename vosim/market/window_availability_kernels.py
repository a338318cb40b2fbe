"""The compiled parts of :func:`vosim.market.uncertainty.window_availability`.

``P_a^w`` of one window took ~25 numpy calls on arrays of a few dozen entries (~200 µs),
and re-planning under uncertainty asks it twice for every move it finds. Here the chains of
each task length are gathered and classified in one pass (:func:`gather`) and the product is
taken in another (:func:`product`); what needs a transcendental function stays in numpy
between them (``np.log`` and ``scipy.special.ndtr``): numpy's ``log`` is not bit for bit
``libm``'s on every CPU, and the values must be the plain path's to the last bit, since
moves compare them.

A separate module so that importing vosim does not import numba.
"""

from __future__ import annotations

import math

import numba
import numpy as np

from vosim.core.kernel_signatures import B1, F8, I8, entry, f8

__all__ = ["gather", "product", "release_z"]


@entry((I8, F8, f8, I8, I8, I8, F8, F8, F8, F8, B1, B1))
@numba.njit(cache=True, nogil=True)  # no Python objects inside: other threads (the UI) run
def gather(
    node: np.ndarray,
    length: np.ndarray,
    start: float,
    order: np.ndarray,
    offsets: np.ndarray,
    chain_of: np.ndarray,
    chain_start: np.ndarray,
    chain_end: np.ndarray,
    alloc_time: np.ndarray,
    alloc_sd: np.ndarray,
    has_alloc: np.ndarray,
    has_release: np.ndarray,
) -> tuple:
    """Each task length's chains, their ``q`` where no function is needed, and what is.

    The tasks of one length ``d`` (distinct lengths ascending) form a group: its nodes in
    window order and the distinct chains on them, increasing (as ``np.unique`` gives them).
    A chain's ``q = 1 - sup P_o`` over ``[start, start + d)`` is 1 before its start or after
    its end, 0 on its execution; the allocation phase needs ``Phi(z)`` with ``z`` computed
    here (``(alloc_time - u) / alloc_sd``, with the step limit where ``sd = 0``); the release
    phase needs ``log(start - end)`` first (taken by numpy, then :func:`release_z`).

    Parameters
    ----------
    node : numpy.ndarray of int64, shape (n,)
        The window's nodes (distinct), in window order.
    length : numpy.ndarray of float, shape (n,)
        Each task's length (> 0), model time units.
    start : float
        The window's start.
    order, offsets : numpy.ndarray of int64
        The schedule's membership pairs grouped by resource (``_pairs_by_resource``).
    chain_of : numpy.ndarray of int64
        Chain of each membership pair.
    chain_start, chain_end, alloc_time, alloc_sd : numpy.ndarray of float, shape (C,)
        The chain table's columns.
    has_alloc, has_release : numpy.ndarray of bool, shape (C,)
        Whether each chain has an allocation phase and a release phase.

    Returns
    -------
    tuple
        ``(node_offsets (g + 1,), nodes (n,), chain_offsets (g + 1,), q (e,), at (k,), z (k,),
        release (r,), chain (r,), x (r,))``: the groups' nodes and chain entries; ``q`` is
        final but at ``at``, where it is ``Phi(z)``; ``z`` is filled for the allocation
        phase, and for the release phase (positions ``release`` of ``z``, their ``chain``)
        it needs ``log(x)``, ``x = start - end`` (:func:`release_z`).

    Raises nothing: compiled, it takes the arrays ``UtilizationSchedule`` holds; a node
    outside the schedule reads out of bounds.

    References
    ----------
    ICCS 2023 §2.1 (a chain's occupation ``P_o``: allocation, execution, release) and §2.2,
    eq. (2)-(3) (a window's ``P_a^w``: each chain once per task length).
    """
    n = node.size
    by_length = np.argsort(length, kind="mergesort")  # stable: window order within a length
    lengths = np.empty(n)
    node_offsets = np.zeros(n + 1, dtype=np.int64)
    nodes = np.empty(n, dtype=np.int64)
    groups = 0
    for k in range(n):
        i = by_length[k]
        if k == 0 or length[i] != lengths[groups - 1]:
            lengths[groups] = length[i]
            groups += 1
        nodes[k] = node[i]
        node_offsets[groups] = k + 1
    pairs = 0
    for k in range(n):
        pairs += offsets[nodes[k] + 1] - offsets[nodes[k]]
    chains = np.empty(pairs, dtype=np.int64)
    chain_offsets = np.zeros(groups + 1, dtype=np.int64)
    e = 0
    for g in range(groups):
        first = e
        for k in range(node_offsets[g], node_offsets[g + 1]):
            r = nodes[k]
            for p in range(offsets[r], offsets[r + 1]):
                chains[e] = chain_of[order[p]]
                e += 1
        part = np.sort(chains[first:e])
        kept = first
        for j in range(part.size):
            if j == 0 or part[j] != part[j - 1]:
                chains[kept] = part[j]
                kept += 1
        e = kept
        chain_offsets[g + 1] = e
    q = np.empty(e)
    at = np.empty(e, dtype=np.int64)  # the entries whose q is Phi(z)
    z = np.empty(e)
    release = np.empty(e, dtype=np.int64)  # of those, the release phase's: z needs a log
    chain_r = np.empty(e, dtype=np.int64)
    x = np.empty(e)
    k = 0
    r = 0
    for g in range(groups):
        u = start + lengths[g]
        for j in range(chain_offsets[g], chain_offsets[g + 1]):
            c = chains[j]
            before = u <= chain_start[c]
            after = start >= chain_end[c]
            q[j] = 1.0 if (before or after) else 0.0
            if before and has_alloc[c]:
                at[k] = j
                z[k] = _ratio(alloc_time[c] - u, alloc_sd[c])
                k += 1
            elif after and has_release[c]:
                at[k] = j
                release[r] = k
                chain_r[r] = c
                x[r] = start - chain_end[c]
                k += 1
                r += 1
    return (
        node_offsets[: groups + 1],
        nodes,
        chain_offsets,
        q,
        at[:k],
        z[:k],
        release[:r],
        chain_r[:r],
        x[:r],
    )


@numba.njit(cache=True, nogil=True)
def _ratio(d: float, sd: float) -> float:
    """``d / sd`` with the step limit where ``sd = 0`` (``chain_maths._ratio``, one value)."""
    if sd == 0.0:
        return 0.0 if d == 0.0 else math.copysign(math.inf, d)
    return d / sd


@entry((F8, I8, I8, F8, F8, F8))
@numba.njit(cache=True, nogil=True)
def release_z(
    log_x: np.ndarray,
    release: np.ndarray,
    chain: np.ndarray,
    log_median: np.ndarray,
    shape: np.ndarray,
    z: np.ndarray,
) -> None:
    """Write the release phase's ``z = (log(t - end) - log(median)) / s`` into ``z``.

    ``log_x`` (r,): ``np.log`` of :func:`gather`'s ``x``; ``release`` and ``chain`` (r,) its
    positions in ``z`` and chains; ``log_median`` and ``shape`` (C,): the chain table's.
    Raises nothing. Source: ICCS 2023 §2.1 (the lognormal release phase).
    """
    for i in range(release.size):
        c = chain[i]
        z[release[i]] = _ratio(log_x[i] - log_median[c], shape[c])


@entry((I8, I8, I8, F8, I8, F8, F8))
@numba.njit(cache=True, nogil=True)
def product(
    node_offsets: np.ndarray,
    nodes: np.ndarray,
    chain_offsets: np.ndarray,
    q: np.ndarray,
    at: np.ndarray,
    phi: np.ndarray,
    global_p: np.ndarray,
) -> float:
    """``P_a^w``: per group ``prod(1 - global_p) * prod(q)``, the groups multiplied in order.

    ``q`` takes ``phi`` (``Phi(z)`` of :func:`gather`'s ``z``) at ``at`` first. Each product
    is taken left to right, as ``np.prod`` takes it, so the value is the plain path's bit for
    bit. Shapes as :func:`gather` returns them; ``global_p`` (m,). Raises nothing.
    Source: ICCS 2023 eq. (2)-(3) (global events times the chains' ``1 - max P_o``).
    """
    for i in range(at.size):
        q[at[i]] = phi[i]
    predicted = 1.0
    for g in range(node_offsets.size - 1):
        free = 1.0
        for k in range(node_offsets[g], node_offsets[g + 1]):
            free *= 1.0 - global_p[nodes[k]]
        kept = 1.0
        for j in range(chain_offsets[g], chain_offsets[g + 1]):
            kept *= q[j]
        predicted *= free * kept
    return predicted
