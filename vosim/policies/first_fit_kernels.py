"""The cyclic scheme's first fit in one compiled call (numba).

:meth:`vosim.policies.cyclic_scheme.CyclicScheme._cycle_classes` takes the next job of every
request class that may fit, merged in queue (job index) order, searches its window by its
criterion on the slots of its own interval, notes AMP's earliest start there, and cuts the
window out of the free slots (a count view, or per node); a class whose job finds none drops
out. In Python each job costs some twenty calls around four kernels (the scan, the
criterion's sweep, the window's slots, the cut). :func:`first_fit` runs the same loop with
the same kernels and no Python between two jobs: the same windows, spans in the same order,
the same refusals and the same free slots after each cut. A class that took every job passed
to it is passed its next ones; a job it cannot take (a criterion other than AMP, minCost,
minRuntime or minFinish; a minFinish sweep too large to compile; a cut the compiled cut
refuses) stops it there, and the plain loop goes on from that job. The per-job cycle
(``_cycle_jobs``) searches and cuts each job by the same call, the job its own class, so that
a run loads this kernel and not also the entry points it links (numba links a kernel's
callees into its own code).

Within the call the free slots are held as level ranges (``count_kernels.ranges_of``: a
pool's processors that open and close together, one range), so each job's scan
(``aep_kernels.prepare_ranges``, the runs found among the ranges) and cut
(``count_kernels.cut_ranges``) read the ``r`` ranges rather than the ``m`` rows (Gaia: ~300
against ~2,600); the rows are written back once, when the call returns. Slots per node are
ranges of one processor (each node a pool of its own). A call whose pools are not
consecutive processor ids, where ranges would not keep the rows' order, goes to the plain
loop at once.

A separate module so that importing vosim does not import numba. ``VOSIM_REFERENCE=1`` runs
the plain loop throughout (the oracle of the tests).

References
----------
VO Preferences §2 (the cyclic scheme's first step, a window per job in queue order); AEP
§2.1-2.2 (the criteria's windows, the slot list cut after each); the request classes are
vosim's.
"""

from __future__ import annotations

import numba
import numpy as np

from vosim.allocators.aep import _SWEEP_CELLS, BELOW_FLOOR, FOUND, NO_WINDOW, ONLY_USABLE
from vosim.allocators.aep_kernels import (
    cheapest_start,
    earliest_finish,
    first_feasible,
    least_runtime,
    prepare_ranges,
    range_nodes,
    single,
    window_of_ranges,
)
from vosim.core.kernel_signatures import B1, F8, I8, entry, f8
from vosim.market.count_kernels import (
    consecutive,
    cut_ranges,
    expand,
    ranges_of,
    rows_before,
)
from vosim.policies.cyclic_scheme import DONE, PLAIN, REFILL

__all__ = ["first_fit"]

_jit = numba.njit(cache=True, nogil=True)


@entry(
    (
        I8, F8, F8, F8, F8, I8, I8, I8,  # the count view and its pools
        I8, I8, B1, I8, F8, F8, I8, F8,  # the classes
        f8, I8, B1,  # the pass time, each class's progress
        I8, I8, I8, F8, F8, F8, F8, I8, F8, I8,  # the events
        I8, F8, F8, F8, F8,  # the windows' spans
    )
)  # fmt: skip
@_jit
def first_fit(  # noqa: C901 - pragma: no cover - compiled
    node, start, end, price, perf, pool, pfirst, pmembers,
    off, jobs, more, n, volume, limit, crit, own_end,
    now, ptr, failed,
    ev_job, ev_class, ev_kind, ev_t, ev_runtime, ev_cost, ev_earliest, ev_usable, ev_floor,
    ev_span,
    snode, sstart, send, sprice, sperf,
):  # fmt: skip
    """First fit of the classes' jobs in job index order, searched and cut one by one.

    Parameters
    ----------
    node, start, end, price, perf : arrays of shape (m,)
        The free slots (a count view's rows, or per node) ordered by (start, node): processor
        or node id (int64), the free span
        ``[start, end)`` (model time units), price per time unit and performance.
    pool, pfirst, pmembers : int64 arrays
        Each processor's pool, shape (N,), and each pool's processors
        ``pmembers[pfirst[p]:pfirst[p + 1]]`` (``free_time.members_of``); all three empty
        when the slots are not a count view (each window is then cut as ``SlotList.cut``).
    off, jobs : int64 arrays, shapes (C + 1,) and (off[C],)
        Class ``c``'s next waiting jobs, increasing: ``jobs[off[c]:off[c + 1]]``.
    more : bool array, shape (C,)
        Whether class ``c`` has waiting jobs after those passed.
    n, volume, limit, crit, own_end : arrays of shape (C,)
        Each class's request: tasks ``n``, volume ``V`` (performance x time units), budget
        with its rounding tolerance (``aep.budget_limit``, cost units), criterion
        (``aep.CRITERION_CODES``) or ``-1`` for one the plain loop searches, and where its
        own interval ends (``inf``: the pass's interval).
    now : float
        The pass time ``t``.
    ptr, failed : arrays of shape (C,), updated in place
        Jobs of each class taken so far (from 0), and whether its search failed.
    ev_job, ev_class, ev_kind : int64 arrays of shape (E,), ``E >= off[C] + C``
        Written per event (a job searched), in order: the job, its class (position in the
        classes' arrays) and the outcome (``aep.FOUND`` or the refusal's code).
    ev_t, ev_runtime, ev_cost, ev_earliest : float arrays of shape (E,)
        The window's start, runtime (model time units) and cost (cost units), and AMP's
        earliest start in the job's slots (``nan`` without a window).
    ev_usable, ev_floor : arrays of shape (E,)
        The nodes with a usable slot (``aep.ONLY_USABLE``) or the cheapest tasks' cost
        (``aep.BELOW_FLOOR``).
    ev_span : int64 array of shape (E + 1,)
        The event's window spans are ``ev_span[e]:ev_span[e + 1]`` of the span arrays.
    snode, sstart, send, sprice, sperf : arrays of shape (S,), ``S >= sum of n per job``
        The windows' spans, in each window's order.

    Returns
    -------
    (stop, events, node, start, end, price, perf)
        ``stop``: ``cyclic_scheme.DONE`` when no job is left, ``REFILL`` when a class's jobs
        passed are all taken and it has more (call again with its next ones), ``PLAIN``
        when the next job must go to the plain loop (it was not searched here); the events
        written; the free slots after the windows cut.

    Raises nothing (compiled; the caller passes free slots and classes it checked).
    Source: VO Preferences §2; AEP §2.1-2.2 (criteria and cuts as ``aep`` and
    ``batch_windows.cut_window`` make them).
    """
    classes = n.size
    e = 0
    ev_span[0] = 0
    if pool.size == 0:  # per node: each node a pool of its own (cut as SlotList.cut cuts)
        size = node.max() + 1 if node.size else 0
        pool = np.arange(size)
        pfirst = np.arange(size + 1)
        pmembers = np.arange(size)
    if not consecutive(pfirst, pmembers):  # ranges would not keep the rows' order
        return PLAIN, e, node, start, end, price, perf
    ranges = ranges_of(node, start, end, price, perf, pool, pfirst, pmembers)
    while True:
        best, bj = -1, np.iinfo(np.int64).max
        for c in range(classes):
            if failed[c]:
                continue
            if off[c] + ptr[c] >= off[c + 1]:
                if more[c]:  # its next job is not known here
                    return _rows(REFILL, e, ranges, pmembers)
                continue
            j = jobs[off[c] + ptr[c]]
            if j < bj:
                best, bj = c, j
        if best < 0:
            return _rows(DONE, e, ranges, pmembers)
        c = best
        if crit[c] < 0:
            return _rows(PLAIN, e, ranges, pmembers)
        rs, re_, rp, rf, _, rpos, rcount = ranges
        rowstart = rows_before(rcount)
        # the slots of the job's own interval: SlotList.until
        if own_end[c] < np.inf:
            k = np.searchsorted(rs, own_end[c])
            cs, cp, cf, cc = rs[:k], rp[:k], rf[:k], rcount[:k]
            ce = np.minimum(re_[:k], own_end[c])
        else:
            cs, ce, cp, cf, cc = rs, re_, rp, rf, rcount
        tasks, v, lim = n[c], volume[c], limit[c]
        kind, usable, floor = FOUND, 0, np.nan
        t = runtime = cost = earliest = np.nan
        at = np.empty(0, dtype=np.int64)
        d = np.empty(0)
        if tasks == 1:  # aep._single_compiled, each range read as its first row
            lowest = pmembers[rpos[: cs.size]]
            code, jj, t, _, floor = single(cs, ce, cp, cf, lowest, v, np.nan, 0.0, lim, crit[c])
            if code == 1:
                kind = ONLY_USABLE
            elif code == 2:
                kind = BELOW_FLOOR
            else:
                at = np.full(1, rowstart[jj])
                d = np.full(1, v / cf[jj])
                runtime, cost = d[0], cp[jj] * d[0]
                if t <= now or crit[c] == 0:
                    earliest = t
                else:
                    code0, _, t0, _, _ = single(cs, ce, cp, cf, lowest, v, np.nan, 0.0, lim, 0)
                    earliest = t0 if code0 == 0 else np.nan
        else:  # aep._sweep_scan, _refused and the criterion's sweep
            index, count, s, late, tcost, dur, cands, durations, floor, fr, by_cost, by_late = (
                prepare_ranges(cs, ce, cp, cf, cc, rowstart, v, np.nan, 0.0, tasks)
            )
            longest = np.inf
            if cands.size == 0:
                nodes = range_nodes(fr, count, cc, rpos, pmembers, pool.size)
                kind, usable = (ONLY_USABLE, nodes) if nodes < tasks else (NO_WINDOW, 0)
            elif floor > lim:
                kind = BELOW_FLOOR
            elif crit[c] == 0:
                t, _ = first_feasible(s, late, tcost, count, tasks, lim, by_cost, by_late)
                kind = NO_WINDOW if np.isnan(t) else FOUND
            elif crit[c] == 1:
                t, least = cheapest_start(s, late, tcost, count, tasks, by_cost, by_late)
                kind = FOUND if least <= lim else NO_WINDOW
            elif crit[c] == 2:
                level = np.searchsorted(durations, dur)
                t, kk = least_runtime(
                    s, late, tcost, count, level, durations.size, tasks, lim, by_cost, by_late
                )
                kind = NO_WINDOW if kk < 0 else FOUND
                if kk >= 0:
                    longest = durations[kk]
            else:
                if durations.size * (s.size + 1) > _SWEEP_CELLS:
                    return _rows(PLAIN, e, ranges, pmembers)
                level = np.searchsorted(durations, dur)
                t, longest = earliest_finish(
                    s, late, tcost, count, level, durations, tasks, lim, by_cost, by_late
                )
                kind = NO_WINDOW if np.isnan(t) else FOUND
            if kind == FOUND:
                at, d, cost = window_of_ranges(
                    s, late, dur, tcost, count, index, rowstart, rpos, pmembers, t, longest,
                    tasks,
                )  # fmt: skip
                runtime = d.max()
                if t <= now or crit[c] == 0:
                    earliest = t
                else:
                    earliest, _ = first_feasible(
                        s, late, tcost, count, tasks, lim, by_cost, by_late
                    )
        if kind == FOUND:  # batch_windows.cut_window (SlotList.cut without pools)
            hit = np.searchsorted(rowstart, at, side="right") - 1
            offset = at - rowstart[hit]
            bad, cut = cut_ranges(ranges, hit, offset, np.full(tasks, t), t + d, pfirst, pmembers)
            if bad != -1:  # the plain cut (or its error) takes it
                return _rows(PLAIN, e, ranges, pmembers)
            h = ev_span[e]
            for i in range(tasks):
                snode[h + i] = pmembers[rpos[hit[i]] + offset[i]]
                sstart[h + i] = t
                send[h + i] = t + d[i]
                sprice[h + i] = rp[hit[i]]
                sperf[h + i] = rf[hit[i]]
            ev_span[e + 1] = h + tasks
            ranges = cut
            ptr[c] += 1
        else:
            ev_span[e + 1] = ev_span[e]
            failed[c] = True
        ev_job[e], ev_class[e], ev_kind[e] = bj, c, kind
        ev_t[e], ev_runtime[e], ev_cost[e], ev_earliest[e] = t, runtime, cost, earliest
        ev_usable[e], ev_floor[e] = usable, floor
        e += 1


@_jit
def _rows(stop, e, ranges, members):  # pragma: no cover - compiled
    """:func:`first_fit`'s return: ``stop``, the events written and the free slots as rows."""
    node, start, end, price, perf = expand(ranges, members)
    return stop, e, node, start, end, price, perf
