"""A run of one request class searched and cut in one compiled call (numba).

The cyclic scheme's class cycle (:meth:`vosim.policies.cyclic_scheme.CyclicScheme.
_cycle_classes`) takes waiting jobs in queue order; while the next jobs all belong to one
request class, each job's window is its criterion's window on the slots the jobs before it
left: ``allocate_window`` (an AEP criterion), ``CyclicScheme._earliest`` (AMP's start, the
wait's split), then ``cut_window`` on a count view. Each of those calls is compiled already;
what a window cost besides them was Python between them (about half of it). :func:`class_run`
makes the same calls, in the same order, on the same floats, from compiled code: the AEP
sweeps of :mod:`vosim.allocators.aep_kernels` and the cut of
:mod:`vosim.market.count_kernels`. It stops at the first job it cannot decide as those calls
would decide it alone (no window; a minFinish sweep too large for the compiled sweep, which
``aep`` leaves to numpy; a cut the compiled cut refuses), and the scheme's loop then takes
that job by the plain calls, which give its reason or raise.

A separate module so that importing vosim does not import numba. ``VOSIM_REFERENCE=1`` runs
the scheme's loop job by job on the plain paths (the oracle of the tests).

References
----------
AEP §2.1-2.2 (the criteria's windows); VO Preferences §2 (the cyclic scheme: windows found in
queue order, each cut out of the slot list before the next search).
"""

from __future__ import annotations

import numba
import numpy as np

from vosim.allocators.aep_kernels import (
    cheapest_start,
    earliest_finish,
    first_feasible,
    least_runtime,
    prepare,
    single,
    window_of_runs,
)
from vosim.core.kernel_signatures import F8, I8, entry, f8, i8
from vosim.market.count_kernels import cut_view_rows

__all__ = ["class_run"]

_jit = numba.njit(cache=True, nogil=True)  # no Python objects inside: other threads (the UI) run

#: ``class_run``'s criterion codes: ``aep.CRITERION_CODES``, as ``aep_kernels.single`` reads them.
AMP, MIN_COST, MIN_RUNTIME, MIN_FINISH = 0, 1, 2, 3


@_jit
def _start_of_many(
    node, start, end, price, perf, volume, time, min_performance, n, limit, criterion, cells
):  # pragma: no cover - compiled
    """A window of ``n > 1`` tasks as ``aep``'s compiled path finds it, or none.

    Returns ``(found, t, longest, scan...)``: ``found`` False when ``aep`` would refuse (no
    candidate start, the ``n`` cheapest usable slots over ``limit``), find no start, or leave
    the sweep to numpy (minFinish over more than ``cells`` cells); else the window's start
    ``t`` and the longest task time its slots may have (``inf``: any), with the scan's runs
    (``prepare``'s first six values).
    """
    index, weight, s, late, cost, d, candidates, durations, _nodes, floor = prepare(
        node, start, end, price, perf, volume, time, min_performance, n
    )
    scan = (index, weight, s, late, cost, d)
    if candidates.size == 0 or floor > limit:
        return False, np.nan, np.inf, scan
    longest = np.inf
    if criterion == AMP:
        t, _examined = first_feasible(s, late, cost, weight, n, limit)
        return not np.isnan(t), t, longest, scan
    if criterion == MIN_COST:
        t, best = cheapest_start(s, late, cost, weight, n)
        return best <= limit, t, longest, scan
    level = np.searchsorted(durations, d)
    if criterion == MIN_RUNTIME:
        t, k = least_runtime(s, late, cost, weight, level, durations.size, n, limit)
        if k < 0:
            return False, np.nan, longest, scan
        return True, t, durations[k], scan
    if durations.size * (s.size + 1) > cells:  # aep scans it in numpy blocks
        return False, np.nan, longest, scan
    t, runtime = earliest_finish(s, late, cost, weight, level, durations, n, limit)
    return not np.isnan(t), t, runtime, scan


@entry((I8, F8, F8, F8, F8, I8, I8, I8, f8, f8, f8, i8, f8, i8, i8, f8, i8))
@_jit
def class_run(  # pragma: no cover - compiled
    node, start, end, price, perf, pool, first, members,
    volume, time, min_performance, n, limit, criterion, jobs, now, cells,
):  # fmt: skip
    """Up to ``jobs`` windows of one request, each searched, then cut out of the count view.

    Parameters
    ----------
    node, start, end, price, perf : numpy.ndarray, shape (m,)
        The count view's columns, ordered by (start, node); times in model time units.
    pool, first, members : numpy.ndarray of int64
        Each processor's pool (shape (N,)) and the pools' processors
        (``free_time.members_of``), as ``batch_windows.cut_window`` takes them.
    volume, time, min_performance, n : float, float, float, int
        The request: ``volume`` ``V`` (``nan`` when it gives a ``time`` ``T``), ``time``
        (``nan`` otherwise), the performance floor and the task count.
    limit : float
        The budget ``C`` with its rounding tolerance, finite (``aep.budget_limit``), cost units.
    criterion : int
        The criterion's code (``aep.CRITERION_CODES``): :data:`AMP`, :data:`MIN_COST`,
        :data:`MIN_RUNTIME` or :data:`MIN_FINISH`.
    jobs : int
        Windows wanted at most (``>= 1``).
    now : float
        The pass time: a window starting later gets AMP's start as its earliest.
    cells : int
        ``aep``'s bound on a compiled minFinish sweep (``aep.SWEEP_CELLS``).

    Returns
    -------
    tuple
        ``(done, wnode, wend, wprice, wperf, wt, wruntime, wcost, wearliest, node, start,
        end, price, perf)``: the windows found (``done`` of them; window ``q``'s spans are
        rows ``q n .. q n + n - 1`` of the ``w`` span columns, ordered by node id, all
        starting at ``wt[q]``), each one's runtime, cost and earliest affordable start, and
        the count view after their cuts.

    Raises nothing (compiled); it stops at the first job it leaves to the plain calls.
    Source: AEP §2.1-2.2; VO Preferences §2.
    """
    wnode = np.empty(jobs * n, dtype=np.int64)
    wend = np.empty(jobs * n)
    wprice = np.empty(jobs * n)
    wperf = np.empty(jobs * n)
    wt = np.empty(jobs)
    wruntime = np.empty(jobs)
    wcost = np.empty(jobs)
    wearliest = np.empty(jobs)
    done = 0
    while done < jobs:
        o = done * n
        if n == 1:
            code, j, t, _c, _f = single(
                start, end, price, perf, node, volume, time, min_performance, limit, criterion
            )
            if code != 0:
                break
            d = volume / perf[j] if not np.isnan(volume) else time
            wnode[o], wend[o], wprice[o], wperf[o] = node[j], t + d, price[j], perf[j]
            runtime, cost = d, price[j] * d
            early = t
            if t > now:  # AMP's start: the least start of a slot within the budget
                code1, _j1, early, _c1, _f1 = single(
                    start, end, price, perf, node, volume, time, min_performance, limit, AMP
                )
                if code1 != 0:
                    early = np.nan
        else:
            found, t, longest, scan = _start_of_many(
                node, start, end, price, perf, volume, time, min_performance, n, limit,
                criterion, cells,
            )  # fmt: skip
            if not found:
                break
            index, weight, s, late, costs, d = scan
            at, dd, cost = window_of_runs(s, late, d, costs, weight, index, node, t, longest, n)
            runtime = dd.max()
            for q in range(n):
                wnode[o + q], wend[o + q] = node[at[q]], t + dd[q]
                wprice[o + q], wperf[o + q] = price[at[q]], perf[at[q]]
            early = t
            if t > now:
                early, _examined = first_feasible(s, late, costs, weight, n, limit)
        a = np.full(n, t)
        bad, node2, start2, end2, price2, perf2 = cut_view_rows(
            node, start, end, price, perf, wnode[o : o + n], a, wend[o : o + n],
            pool, first, members,
        )  # fmt: skip
        if bad != -1:  # the plain cut decides (it raises, or cuts spans sharing a processor)
            break
        node, start, end, price, perf = node2, start2, end2, price2, perf2
        wt[done], wruntime[done], wcost[done], wearliest[done] = t, runtime, cost, early
        done += 1
    return (
        done, wnode, wend, wprice, wperf, wt, wruntime, wcost, wearliest,
        node, start, end, price, perf,
    )  # fmt: skip
