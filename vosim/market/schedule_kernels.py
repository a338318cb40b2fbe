"""The compiled forms of :class:`vosim.market.schedule.NodeSchedule`'s row edits (numba).

A separate module so that importing vosim does not import numba. :func:`shorten_rows` applies
every shortening buffered since the rows were last read in one pass over the rows, in place,
where the plain form (``VOSIM_REFERENCE=1``, ``NodeSchedule._apply_shortenings``) makes about
fifteen numpy calls and copies every column when a row empties: a pass of re-planning cancels
reservations (shortenings to their start), and the VO's rows are read at every cycle.
:func:`move_rows` moves a re-bound reservation's rows in place (``NodeSchedule.move``'s plain
form builds a dict of the tag's rows and copies every column).
"""

from __future__ import annotations

import numba
import numpy as np

from vosim.core.kernel_signatures import F8, I8, entry, i8

_jit = numba.njit(cache=True, nogil=True)


@entry((I8, F8, F8, I8, i8, I8, I8, F8))
@_jit
def shorten_rows(node, a, b, tag, n, stag, snode, send):  # pragma: no cover - compiled
    """End each row ``(tag, node)`` at the earliest buffered end for it; drop rows left empty.

    Parameters
    ----------
    node, a, b, tag : numpy.ndarray, shape (cap,) each
        The schedule's columns (resource id, start and end in model time units, tag), rows
        ``[0, n)`` in use; written in place.
    n : int
        Rows in use.
    stag, snode, send : numpy.ndarray, shape (k,) each
        The buffered shortenings: interval ``(stag[i], snode[i])`` ends at ``send[i]`` at
        the latest (of several for one interval the earliest holds).

    Returns
    -------
    int
        Rows in use after: a row whose end falls to its start or before is removed, the
        others keep their order (as ``NodeSchedule._drop`` leaves them).

    Raises nothing (compiled). Source: vosim's bookkeeping of the busy time (a job's release
    or a reservation's cancellation, VO Preferences §2's owners' schedules).
    """
    k = stag.size
    if k == 0:
        return n
    order = np.argsort(stag, kind="mergesort")
    st, sn, se = stag[order], snode[order], send[order]
    low, high = st[0], st[k - 1]
    buffered = np.zeros(high - low + 1, dtype=np.bool_)  # the tags shortened, by offset
    for i in range(k):
        buffered[st[i] - low] = True
    w = 0
    for r in range(n):
        t = tag[r]
        end = b[r]
        hit = False
        if low <= t <= high and buffered[t - low]:
            j = np.searchsorted(st, t)
            while j < k and st[j] == t:
                if sn[j] == node[r]:
                    hit = True
                    if se[j] < end:
                        end = se[j]
                j += 1
        if hit and end <= a[r]:
            continue
        node[w], a[w], b[w], tag[w] = node[r], a[r], end, t
        w += 1
    return w


@entry((I8, F8, F8, I8, i8, i8, I8, I8))
@_jit
def move_rows(node, a, b, tag, n, t, old, new):  # pragma: no cover - compiled
    """Move the last row of tag ``t`` on each ``old[i]`` to ``new[i]``, after the other rows.

    ``node, a, b, tag`` and ``n``: the columns, written in place, and the rows in use, as
    :func:`shorten_rows` takes them (a move keeps ``n``). ``t``: the tag (a VO job's index).
    ``old``, ``new`` (int, shape (k,) each): distinct resource ids holding a row of ``t``,
    and the ids the rows move to.

    Returns
    -------
    int
        ``-1`` when moved: the other rows keep their order, the moved ones follow in the
        order of ``old`` with their spans; else the first ``i`` whose ``old[i]`` holds no
        row of ``t`` (nothing changed).

    Raises nothing (compiled). Source: as ``NodeSchedule.move`` (vosim's binding of
    reservations held by count, Mu'alem & Feitelson 2001, §2).
    """
    k = old.size
    rows = np.full(k, -1, dtype=np.int64)
    for r in range(n):
        if tag[r] == t:
            for i in range(k):
                if node[r] == old[i]:
                    rows[i] = r  # the last one holds
    for i in range(k):
        if rows[i] < 0:
            return i
    moved = np.zeros(n, dtype=np.bool_)
    sa = np.empty(k)
    sb = np.empty(k)
    for i in range(k):
        moved[rows[i]] = True
        sa[i], sb[i] = a[rows[i]], b[rows[i]]
    w = 0
    for r in range(n):
        if not moved[r]:
            if w != r:
                node[w], a[w], b[w], tag[w] = node[r], a[r], b[r], tag[r]
            w += 1
    for i in range(k):
        node[w + i], a[w + i], b[w + i], tag[w + i] = new[i], sa[i], sb[i], t
    return -1
