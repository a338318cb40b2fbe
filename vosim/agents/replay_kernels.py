"""The compiled replay of the traced machine under FCFS and EASY (numba).

A separate module so that importing vosim does not import numba. :func:`replay` runs the
agents' event-driven passes on identical processors in one loop over arrivals and ends:
the same decisions, processors, ends, payments and satisfaction updates as the agents, in
the same floating-point operations, and gives them back as columns that
:mod:`vosim.agents.replay` writes into the ledger, the task and cycle logs and the users.
Where the agents' count form would hand a pass to the node form (a tie it does not break)
or a job would be withdrawn, it stops and says so: the caller then runs the agents.
"""

from __future__ import annotations

import numba
import numpy as np

from vosim.core.kernel_signatures import B1, F8, I8, b1, entry, f8, i8

_jit = numba.njit(cache=True, nogil=True)

#: Outcome codes of :func:`replay`: 0 replayed; the others name what stopped it.
DONE = 0
TASK_OUTSIDE = 1  # n < 1, or a task time that is not finite and long enough to move t
SLACK_TIE = 2  # a backfilled job's end slacks in the two groups equal in floats
IDLE_TIE = 3  # a slot freed with the idle time of the processors free now (EASY's head)
PARTS_DIFFER = 4  # a job's tasks end at two times (the payment is then not n equal terms)
WITHDRAWN = 5  # a job would wait past the patience
SHORT_GROUP = 6  # the head's reservation needs more free processors than are left

_INF = np.inf


@_jit
def _push(heap_t, heap_i, size, t, i):  # pragma: no cover
    """Push ``(t, i)`` on the binary heap of ``size`` entries ordered by ``(t, i)``."""
    k = size
    heap_t[k] = t
    heap_i[k] = i
    while k > 0:
        up = (k - 1) // 2
        if heap_t[up] < heap_t[k] or (heap_t[up] == heap_t[k] and heap_i[up] < heap_i[k]):
            break
        heap_t[up], heap_t[k] = heap_t[k], heap_t[up]
        heap_i[up], heap_i[k] = heap_i[k], heap_i[up]
        k = up
    return size + 1


@_jit
def _pop(heap_t, heap_i, size):  # pragma: no cover
    """Remove the heap's least ``(t, i)``; returns the new size (the entry was at 0)."""
    size -= 1
    heap_t[0] = heap_t[size]
    heap_i[0] = heap_i[size]
    k = 0
    while True:
        a = 2 * k + 1
        if a >= size:
            break
        b = a + 1
        c = a
        if b < size and (
            heap_t[b] < heap_t[a] or (heap_t[b] == heap_t[a] and heap_i[b] < heap_i[a])
        ):
            c = b
        if heap_t[k] < heap_t[c] or (heap_t[k] == heap_t[c] and heap_i[k] < heap_i[c]):
            break
        heap_t[c], heap_t[k] = heap_t[k], heap_t[c]
        heap_i[c], heap_i[k] = heap_i[k], heap_i[c]
        k = c
    return size


@_jit
def _take_now(j, t, big_e, n, d, eps, f, groups, win):  # pragma: no cover
    """``IdenticalSlots.take_now`` of job ``j`` at ``t``: 1 taken, 0 none, < 0 a stop code.

    ``groups`` is ``(free_ids, st, ends, noted, later)``: the pass's groups are offset
    ranges of ``free_ids[:f]`` (ids free now, ascending): ``st[0]`` the first id still free
    of the group whose slots end at ``big_e``; ``st[1]`` to ``st[2]`` those of the head's
    group (``st[6]``: it exists), ending at ``ends[0]``; ``st[3]`` whether the head was
    held; ``st[4]`` the processors free not taken; ``st[5]`` the windows noted for the
    shadow time (their ends ``ends[1:]``, sizes ``noted``). ``win`` is the window columns
    ``(start, split, end1, end2, procs, first)``; the job's are written.
    """
    free_ids, st, ends, noted, _ = groups
    _, split, end1, end2, procs, first = win
    nj = n[j]
    if nj > st[4]:
        return 0
    dj = d[j]
    if not (nj >= 1 and dj < _INF and t + dj > t):
        return -TASK_OUTSIDE
    need = dj * (1 - eps)
    has_t = st[6] == 1
    e_free = f - st[0]
    t_free = st[2] - st[1]
    g0_end = ends[0] if has_t else big_e
    if g0_end - t < need and (big_e - t < need or e_free < nj):
        return 0
    use_t = has_t and t_free > 0 and ends[0] - t >= need
    use_e = e_free > 0 and big_e - t >= need
    if use_t and use_e:  # the head's processors first: the least end slack
        if not ends[0] - (t + dj) < big_e - (t + dj):
            return -SLACK_TIE
        a = min(nj, t_free)
    elif use_t:
        a = nj
    elif use_e:
        a = 0
    else:
        return -SHORT_GROUP
    if a > t_free or nj - a > e_free:
        return -SHORT_GROUP
    o = first[j]
    for k in range(a):
        procs[o + k] = free_ids[st[1] + k]
    st[1] += a
    for k in range(nj - a):
        procs[o + a + k] = free_ids[st[0] + k]
    st[0] += nj - a
    split[j] = a
    end1[j] = min(t + dj, ends[0]) if a > 0 else np.nan
    end2[j] = min(t + dj, big_e)
    st[4] -= nj
    if st[3] == 0 and big_e > t + dj:  # its slots go on as [t + d, E): for the shadow time
        w = st[5]
        ends[1 + w] = t + dj
        noted[w] = nj
        st[5] = w + 1
    return 1


@_jit
def _kth_least(values, size, k):  # pragma: no cover
    """The ``k``-th least of ``values[:size]`` (1-based), reordering them in place.

    Hoare's selection; the value ``np.partition(values[:size], k - 1)[k - 1]`` gives
    (numba's own ``partition`` takes seconds to compile).
    """
    lo, hi, want = 0, size - 1, k - 1
    while lo < hi:
        pivot = values[(lo + hi) // 2]
        i, j = lo, hi
        while i <= j:
            while values[i] < pivot:
                i += 1
            while values[j] > pivot:
                j -= 1
            if i <= j:
                values[i], values[j] = values[j], values[i]
                i += 1
                j -= 1
        if want <= j:
            hi = j
        elif want >= i:
            lo = i
        else:
            break
    return values[want]


@_jit
def _releases(t, big_e, until, st, ends, noted, later):  # pragma: no cover
    """The releases before ``E`` into ``later``; returns how many.

    The running tasks' reserved ends in ``(t, E)``, then the ends of the windows noted in
    this pass, one per processor.
    """
    size = 0
    for p in range(until.size):
        u = until[p]
        if u > t and u < big_e:
            later[size] = u
            size += 1
    for w in range(st[5]):
        for _ in range(noted[w]):
            later[size] = ends[1 + w]
            size += 1
    return size


@_jit
def _idle_counts(later, size, shadow, t):  # pragma: no cover
    """Of the releases by ``shadow``: ``(idle less, idle as long)`` as the processors free now.

    Idle at ``shadow``: ``shadow - release`` against ``shadow - t``, in floats.
    """
    idle_now = shadow - t
    before = 0
    ties = 0
    for q in range(size):
        s = later[q]
        if s <= shadow:
            idle = shadow - s
            if idle < idle_now:
                before += 1
            elif idle == idle_now:
                ties += 1
    return before, ties


@_jit
def _hold_head(j, t, big_e, n, d, eps, f, until, groups):  # pragma: no cover
    """``IdenticalSlots.hold_head``: set the head's processors free now aside; 0 or a code.

    The shadow time is the ``k``-th least release among the running tasks' reserved ends in
    ``(t, E)`` and the ends of the windows taken in this pass; the head's group takes the
    lowest ids free now that its window at the shadow time uses (none when slots freed by
    then cover it). ``groups`` as in :func:`_take_now`.
    """
    _, st, ends, noted, later = groups
    st[3] = 1
    nj = n[j]
    dj = d[j]
    if not (nj >= 1 and dj < _INF and t + dj > t):
        return -TASK_OUTSIDE
    need = dj * (1 - eps)
    hi = big_e - need
    if not t <= hi:
        return 0
    size = _releases(t, big_e, until, st, ends, noted, later)
    g_free = f - st[0]
    if nj <= g_free:
        shadow = t
    else:
        k = nj - g_free
        if size < k:
            return 0
        shadow = _kth_least(later, size, k)
        if not shadow <= hi:
            return 0
    if not big_e - shadow >= need:
        return 0
    before, ties = _idle_counts(later, size, shadow, t)
    if nj > before:
        x = nj - before
        if ties > 0:
            return -IDLE_TIE
        if x > g_free:
            return -SHORT_GROUP
        st[1] = st[0]
        st[2] = st[0] + x
        st[0] += x
        st[6] = 1
        ends[0] = shadow
    return 0


@_jit
def _cycle(
    t, interval, easy, queue, qlen, n, d, eps, until, groups, win, started
):  # pragma: no cover
    """One pass at ``t``: the jobs started, in decision order, into ``started``.

    Returns ``(count started, stop code or 0)``. FCFS starts heads while they fit; EASY then
    holds the blocked head's reservation and backfills the later jobs in queue order.
    ``groups`` and ``win`` as in :func:`_take_now`.
    """
    free_ids, st = groups[0], groups[1]
    big_e = t + interval
    f = 0
    for p in range(until.size):
        if until[p] <= t:
            free_ids[f] = p
            f += 1
    st[:] = 0
    st[4] = f
    count = 0
    k = 0
    while k < qlen:
        got = _take_now(queue[k], t, big_e, n, d, eps, f, groups, win)
        if got < 0:
            return count, -got
        if got == 0:
            break
        started[count] = queue[k]
        count += 1
        k += 1
    if k == qlen or not easy:
        return count, 0
    code = _hold_head(queue[k], t, big_e, n, d, eps, f, until, groups)
    if code < 0:
        return count, -code
    left = st[4]
    for q in range(k + 1, qlen):
        if left == 0:
            break
        j = queue[q]
        if n[j] > left:
            continue
        got = _take_now(j, t, big_e, n, d, eps, f, groups, win)
        if got < 0:
            return count, -got
        if got == 1:
            started[count] = j
            count += 1
            left -= n[j]
    return count, 0


@_jit
def _end(j, win, dur, n, price, until, paid, node_time):  # pragma: no cover
    """Job ``j`` ends: its processors free at its tasks' ends, its payment and node time.

    ``win`` as in :func:`_take_now`. Returns ``(payment, whether it counted as busy, stop
    code or 0)``: the payment is ``math.fsum`` of its ``n`` equal task costs (``n * cost``,
    rounded once), the node time the ledger's sum over its task ends, term by term.
    """
    start, split, end1, end2, procs, first = win
    s = start[j]
    te = s + dur[j]
    nj = n[j]
    a = split[j]
    e1 = min(end1[j], te)
    e2 = min(end2[j], te)
    if 0 < a < nj and e1 != e2:
        return 0.0, False, PARTS_DIFFER
    e = e1 if a == nj else e2
    pay = nj * (price * (e - s))
    paid[j] = pay
    total = 0.0
    for _ in range(nj):
        total += te - s
    node_time[j] = total
    o = first[j]
    for q in range(nj):
        until[procs[o + q]] = e1 if q < a else e2
    return pay, te > s, DONE


@_jit
def _ends_due(
    t, heap, heap_size, win, dur, n, price, until, paid, node_time, order, tally
):  # pragma: no cover
    """The jobs due by ``t`` end, by (time, job); returns ``(heap size, stop code or 0)``.

    ``heap`` is ``(times, jobs)``; ``tally`` (float, shape (5,)): revenue, busy processors,
    running jobs, jobs ended and whether any ended now, updated in place; ``order`` gets
    the jobs in the order they end.
    """
    heap_t, heap_i = heap
    while heap_size > 0 and heap_t[0] <= t:
        j = heap_i[0]
        heap_size = _pop(heap_t, heap_i, heap_size)
        pay, was_busy, code = _end(j, win, dur, n, price, until, paid, node_time)
        if code != DONE:
            return heap_size, code
        tally[0] += pay
        tally[1] -= n[j] if was_busy else 0
        tally[2] -= 1
        order[int(tally[3])] = j
        tally[3] += 1
        tally[4] = 1
    return heap_size, DONE


@_jit
def _arrive(t, a, submit, by_submit, admitted, queue, qlen):  # pragma: no cover
    """The jobs submitted by ``t`` enter the queue (trace order; refused ones never do).

    Returns ``(next arrival position, queue length, whether any entered)``.
    """
    entered = False
    while a < submit.size and submit[by_submit[a]] <= t:
        j = by_submit[a]
        a += 1
        if admitted[j]:  # arrivals are nearly always the latest jobs: a short shift
            q = qlen
            while q > 0 and queue[q - 1] > j:
                queue[q] = queue[q - 1]
                q -= 1
            queue[q] = j
            qlen += 1
            entered = True
    return a, qlen, entered


@_jit
def _evaluate(u, t, submit_j, requested_j, users):  # pragma: no cover
    """``UserAgent.evaluate`` of a job started at ``t`` as its only alternative (``U`` 0).

    ``users`` is ``(satisfaction, choice part, wait part, queue part, stamp)``, shape (U,)
    each, updated in place for user ``u``.
    """
    sat, choice, wait_part, queue_part, _ = users
    tt = max(requested_j, 1e-12)
    wait = t - submit_j
    waited = tt / (tt + max(wait, 0.0))
    queued = tt / (tt + max(wait - 0.0, 0.0))
    sat[u] = 0.8 * sat[u] + 0.2 * 1.0 * waited
    choice[u] = 0.8 * choice[u] + 0.2 * 1.0
    wait_part[u] = 0.8 * wait_part[u] + 0.2 * waited
    queue_part[u] = 0.8 * queue_part[u] + 0.2 * queued


@_jit
def _start(
    t, started, count, jobs, win, until, heap, heap_size, patience, users, log, tally
):  # pragma: no cover
    """The pass's windows start: reserved ends, end events, busy count, users' scores.

    ``jobs`` is ``(submit, requested, user, n, dur)``; ``win`` as in :func:`_take_now`;
    ``users`` as in :func:`_evaluate`; ``log`` the evaluation log ``(user, satisfaction,
    entries)``: one entry per user and pass, its last value. Returns ``(heap size, stop
    code or 0)``.
    """
    submit, requested, user, n, dur = jobs
    start, split, end1, end2, procs, first = win
    stamp = users[4]
    e_user, e_sat, entries = log
    mark = entries[0]
    for c in range(count):
        j = started[c]
        if submit[j] + patience <= t:  # it would have been withdrawn first
            return heap_size, WITHDRAWN
        start[j] = t
        te = t + dur[j]
        o = first[j]
        for q in range(n[j]):
            until[procs[o + q]] = end1[j] if q < split[j] else end2[j]
        heap_size = _push(heap[0], heap[1], heap_size, te, j)
        tally[2] += 1
        tally[1] += n[j] if te > t else 0
        u = user[j]
        _evaluate(u, t, submit[j], requested[j], users)
        if stamp[u] >= mark:
            e_sat[stamp[u]] = users[0][u]
        else:
            stamp[u] = entries[0]
            e_user[entries[0]] = u
            e_sat[entries[0]] = users[0][u]
            entries[0] += 1
    return heap_size, DONE


@entry((F8, I8, F8, F8, F8, B1, I8, I8, I8, i8, f8, f8, b1, f8, f8, F8, F8, F8, F8))
@_jit
def replay(
    submit,
    n,
    d,
    dur,
    requested,
    admitted,
    user,
    by_submit,
    first,
    m,
    interval,
    price,
    easy,
    patience,
    eps,
    sat,
    choice,
    wait_part,
    queue_part,
):  # pragma: no cover
    """The whole event-driven run of the traced machine under FCFS or EASY.

    At each event time, in the agents' order: the jobs due end (each pays for its tasks),
    the jobs submitted enter the queue (in trace order), and, if any did either and the
    queue is not empty, a pass decides; jobs of no run time started by it end at once and
    ask for another pass at the same time.

    Parameters
    ----------
    submit, d, dur, requested : numpy.ndarray of float, shape (J,)
        Per job in trace order: submission time, task time ``volume / performance``, run
        time on a processor ``run_time * p_ref / performance`` and requested time, s.
    n, user : numpy.ndarray of int, shape (J,)
        Processors asked for, and the job's user position (0 .. U - 1).
    admitted : numpy.ndarray of bool, shape (J,)
        Whether the queue admits the job (the others are rejected at submission).
    by_submit : numpy.ndarray of int, shape (J,)
        Job indices by submission time, ties in trace order.
    first : numpy.ndarray of int, shape (J + 1,)
        Each job's first row in the processor column (``n`` rows per admitted job).
    m : int
        Processors of the machine.
    interval : float
        The slot list's length ``L``, s: a pass sees ``[t, t + L)``.
    price : float
        Every processor's price, cost units per second.
    easy : bool
        EASY (else FCFS).
    patience : float
        The longest wait for a start, s (``inf``: none).
    eps : float
        The count form's relative tolerance on task lengths.
    sat, choice, wait_part, queue_part : numpy.ndarray of float, shape (U,)
        The users' satisfaction and its parts, updated in place as the agents update them.

    Returns
    -------
    tuple
        ``(code, start, split, end1, end2, procs, paid, node_time, order, cycle_time,
        cycle_counts, cycle_revenue, evaluated_user, evaluated_satisfaction, until)``:
        ``code`` is :data:`DONE` or what stopped the replay; a job's first ``split``
        processors (of its ``procs`` rows) have spans ending at ``end1``, the rest at
        ``end2``; ``order`` the jobs in the order they ended; per pass its time, the counts
        (batch, started, queue after, running, processors busy, jobs completed, evaluation
        entries so far; shape (C, 7)) and the revenue so far; per evaluation entry (one per
        user and pass, its last) the user and its satisfaction after the pass; ``until``,
        each processor's reserved end of its last task (shape (m,), ``-inf`` if none).

    References
    ----------
    Mu'alem & Feitelson (2001), IEEE TPDS 12(6), §1-2 (FCFS, EASY's shadow time and extra
    processors); Lifka (1995). The passes' order is the agents' event-driven one.
    """
    k = submit.size
    win = (
        np.full(k, np.nan),  # start
        np.zeros(k, dtype=np.int64),  # split
        np.full(k, np.nan),  # end1
        np.full(k, np.nan),  # end2
        np.empty(first[k], dtype=np.int64),  # procs
        first,
    )
    start = win[0]
    paid = np.zeros(k)
    node_time = np.full(k, np.nan)
    order = np.empty(k, dtype=np.int64)
    cap = 3 * k + 1  # a pass per arrival or end time, one more per job of no run time
    c_time = np.empty(cap)
    c_int = np.empty((cap, 7), dtype=np.int64)
    c_rev = np.empty(cap)
    log = (np.empty(k, dtype=np.int64), np.empty(k), np.zeros(1, dtype=np.int64))
    users = (sat, choice, wait_part, queue_part, np.full(sat.size, -1, dtype=np.int64))
    until = np.full(m, -np.inf)
    groups = (
        np.empty(m, dtype=np.int64),  # free ids
        np.zeros(7, dtype=np.int64),  # the groups' offsets and counts
        np.zeros(m + 1),  # the head's group's end, the noted windows' ends
        np.zeros(m, dtype=np.int64),  # the noted windows' sizes
        np.empty(2 * m),  # releases
    )
    heap = (np.empty(k), np.empty(k, dtype=np.int64))
    jobs = (submit, requested, user, n, dur)
    queue = np.empty(k, dtype=np.int64)
    started = np.empty(k, dtype=np.int64)
    tally = np.zeros(5)  # revenue, busy, running, ended, an end or arrival now
    size = qlen = cycles = a = 0
    code = DONE
    while code == DONE:
        t = submit[by_submit[a]] if a < k else _INF
        t = heap[0][0] if size > 0 and heap[0][0] < t else t  # a job of no run time: t again
        if t == _INF:
            break
        tally[4] = 0  # an end or an arrival now asks for a pass
        size, code = _ends_due(
            t, heap, size, win, dur, n, price, until, paid, node_time, order, tally
        )
        a, qlen, entered = _arrive(t, a, submit, by_submit, admitted, queue, qlen)
        if code != DONE or not ((tally[4] or entered) and qlen > 0):
            continue
        count, code = _cycle(t, interval, easy, queue, qlen, n, d, eps, until, groups, win, started)
        if code == DONE:
            size, code = _start(
                t, started, count, jobs, win, until, heap, size, patience, users, log, tally
            )
        if code != DONE:
            continue
        batch, keep = qlen, 0
        for q in range(qlen):  # the jobs started leave the queue
            if np.isnan(start[queue[q]]):
                queue[keep] = queue[q]
                keep += 1
        qlen = keep
        c_time[cycles] = t
        row = c_int[cycles]
        row[0], row[1], row[2], row[6] = batch, count, qlen, log[2][0]
        row[3], row[4], row[5] = int(tally[2]), int(tally[1]), int(tally[3])
        c_rev[cycles] = tally[0]
        cycles += 1
    e = log[2][0]
    done = int(tally[3])
    start, split, end1, end2, procs, _ = win
    return (
        code,
        start,
        split,
        end1,
        end2,
        procs,
        paid,
        node_time,
        order[:done],
        c_time[:cycles],
        c_int[:cycles],
        c_rev[:cycles],
        log[0][:e],
        log[1][:e],
        until,
    )
