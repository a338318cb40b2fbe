"""Event chains as columns: ``P_o`` and ``P_a`` evaluated over many chains and starts at once.

The vectorised maths under :class:`~vosim.market.event_chains.EventChain` (one resource's
events) and :class:`~vosim.market.utilization_schedule.UtilizationSchedule` (many resources):
the normal and lognormal CDFs of the allocation and release phases, a chain table with the
values derived once per chain, and the product over a resource's chains of ``1 - max P_o``
over a job's interval (ICCS 2023 §2.1, step 3; ICCS 2021 §3.2).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
import numpy.typing as npt
from scipy.special import ndtr

from vosim.errors import ParameterError

__all__ = ["ChainColumns", "lognormal_shape", "lognormal_shapes", "normal_cdf"]

# --------------------------------------------------------------------------------------------
# The standard normal CDF


def normal_cdf(z: npt.ArrayLike) -> np.ndarray:
    """Standard normal cumulative distribution function ``Phi(z)``, elementwise.

    Parameters
    ----------
    z : array_like
        Arguments (standard deviations from the mean); ``+-inf`` allowed, ``NaN`` propagates.

    Returns
    -------
    numpy.ndarray
        ``Phi(z)`` in [0, 1], the shape of ``z`` (float64). ``Phi(0) = 0.5`` exactly.

    Notes
    -----
    ``scipy.special.ndtr`` (Cephes). Values of ``Phi(z)`` within 2**-54 of 1 round to exactly
    1.0, which :meth:`UtilizationSchedule.p_avail` relies on to skip far events.

    Examples
    --------
    >>> normal_cdf([0.0, -np.inf, np.inf]).tolist()
    [0.5, 0.0, 1.0]
    >>> round(float(normal_cdf(1.0)), 6)
    0.841345
    """
    return np.asarray(ndtr(np.asarray(z, dtype=float)), dtype=float)


# --------------------------------------------------------------------------------------------
# A chain's fields and their checks

#: Column order of a chain's fields (EventChain, UtilizationSchedule, _ChainTable.build).
_CHAIN_FIELDS = ("alloc_time", "alloc_sd", "start", "end", "release_time", "release_sd")

#: ``Phi(-Z_FAR)`` is below 2**-54, so ``1 - P_o`` rounds to exactly 1.0 beyond ``Z_FAR``
#: standard deviations: events are skipped there without changing a single bit of ``P_a``.
_Z_FAR = 8.5


def lognormal_shape(median_offset: float, sd: float) -> float:
    """Log-scale shape ``s`` of a lognormal of median ``median_offset`` and deviation ``sd``.

    A lognormal ``D = exp(mu + s Z)`` has median ``M = exp(mu)`` and variance
    ``M**2 * u * (u - 1)`` with ``u = exp(s**2)``; solving for ``u`` gives
    ``u = (1 + sqrt(1 + 4 r**2)) / 2`` with ``r = sd / M``.

    Parameters
    ----------
    median_offset : float
        Median ``M`` of the lognormal (time from the release origin to the expected release),
        model time units, > 0.
    sd : float
        Its standard deviation, model time units, >= 0.

    Returns
    -------
    float
        ``s = sqrt(log(u))`` (0 for ``sd = 0``: a deterministic release).

    Raises
    ------
    ParameterError
        ``median_offset <= 0`` or ``sd < 0`` (or non-finite).

    Examples
    --------
    >>> s = lognormal_shape(100.0, 50.0)
    >>> variance = 100.0**2 * math.exp(s * s) * math.expm1(s * s)
    >>> round(math.sqrt(variance), 9)
    50.0
    """
    if not (math.isfinite(median_offset) and median_offset > 0):
        raise ParameterError(f"median_offset must be a finite number > 0, got {median_offset!r}")
    if not (math.isfinite(sd) and sd >= 0):
        raise ParameterError(f"release sd must be a finite number >= 0, got {sd!r}")
    return float(lognormal_shapes(np.array([median_offset]), np.array([sd]))[0])


def lognormal_shapes(median_offset: np.ndarray, sd: np.ndarray) -> np.ndarray:
    """Vectorised :func:`lognormal_shape` (no validation), shapes like the inputs."""
    r2 = (sd / median_offset) ** 2
    # log(u) = log1p(u - 1), u - 1 = (sqrt(1 + 4 r^2) - 1) / 2 = 2 r^2 / (1 + sqrt(1 + 4 r^2))
    return np.sqrt(np.log1p(2.0 * r2 / (1.0 + np.sqrt(1.0 + 4.0 * r2))))


def _check_chain_arrays(
    alloc_time: np.ndarray,
    alloc_sd: np.ndarray,
    start: np.ndarray,
    end: np.ndarray,
    release_time: np.ndarray,
    release_sd: np.ndarray,
    label: str = "chain",
) -> None:
    """Raise ParameterError naming the first invalid chain (arrays of equal shape (C,))."""

    def fail(mask: np.ndarray, message: str) -> None:
        if np.any(mask):
            i = int(np.flatnonzero(mask)[0])
            where = f"{label} {i}: " if label else ""
            values = dict(
                alloc_time=alloc_time[i],
                alloc_sd=alloc_sd[i],
                start=start[i],
                end=end[i],
                release_time=release_time[i],
                release_sd=release_sd[i],
            )
            raise ParameterError(where + message.format(**values))

    with np.errstate(invalid="ignore"):
        fail(np.isnan(start) | np.isnan(end), "start={start} and end={end} must not be NaN")
        fail(
            ~((start < end) | ((start == end) & (start == math.inf))),
            "execution must satisfy start < end, got start={start}, end={end}",
        )
        fail(np.isinf(alloc_time), "alloc_time must be finite (or NaN for none), got {alloc_time}")
        fail(
            ~(np.isfinite(alloc_sd) & (alloc_sd >= 0)),
            "alloc_sd must be a finite standard deviation >= 0, got {alloc_sd}",
        )
        fail(
            np.isinf(release_time),
            "release_time must be finite (or NaN for none), got {release_time}",
        )
        fail(
            ~(np.isfinite(release_sd) & (release_sd >= 0)),
            "release_sd must be a finite standard deviation >= 0, got {release_sd}",
        )
        fail(
            ~np.isnan(release_time) & ~(release_time > end),
            "release_time={release_time} must be after the execution end={end}",
        )


class _ChainTable(NamedTuple):
    """Struct of arrays of C chains, prepared for evaluation (internal)."""

    alloc_time: np.ndarray  # (C,) expected allocation, +inf where none (then never reached)
    alloc_sd: np.ndarray
    start: np.ndarray
    end: np.ndarray
    log_median: np.ndarray  # log(release_time - end), NaN where none
    shape: np.ndarray  # lognormal s
    has_alloc: np.ndarray
    has_release: np.ndarray
    lo: np.ndarray  # chain is negligible for job intervals ending before lo
    hi: np.ndarray  # ... and for job intervals starting after hi

    @classmethod
    def build(
        cls,
        alloc_time: np.ndarray,
        alloc_sd: np.ndarray,
        start: np.ndarray,
        end: np.ndarray,
        release_time: np.ndarray,
        release_sd: np.ndarray,
    ) -> _ChainTable:
        has_alloc = ~np.isnan(alloc_time)
        has_release = ~np.isnan(release_time)
        with np.errstate(invalid="ignore"):
            median = np.where(has_release, release_time - end, 1.0)
            shape = np.where(has_release, lognormal_shapes(median, release_sd), 0.0)
            log_median = np.where(has_release, np.log(median), np.nan)
            lo = np.where(has_alloc, alloc_time - _Z_FAR * alloc_sd, start)
            with np.errstate(over="ignore"):
                tail = median * np.exp(_Z_FAR * shape)
            hi = np.where(has_release, end + tail, end)
        lo = np.minimum(lo, start)
        return cls(
            alloc_time, alloc_sd, start, end, log_median, shape, has_alloc, has_release, lo, hi
        )


class ChainColumns(NamedTuple):
    """Event chains as columns, with what evaluating them derives, computed once per chain.

    What :class:`UtilizationSchedule` derives from its chains when it is built (lognormal
    shapes, log medians, the span outside which a chain is negligible) is elementwise, so it
    can be derived once when a chain is created and kept: chains that persist from one
    scheduling cycle to the next are then not derived again. :meth:`take` and
    :meth:`concatenate` keep the derived columns with their chains, and
    :meth:`UtilizationSchedule.trusted` builds a schedule from them without deriving or
    validating anything.

    Build it with :meth:`build`; the derived columns are internal.

    Attributes
    ----------
    table : _ChainTable
        ``alloc_time``, ``alloc_sd``, ``start``, ``end`` (the chains' fields) and the derived
        columns, each of shape (C,).
    release_time, release_sd : numpy.ndarray, shape (C,)
        The chains' release fields (NaN ``release_time``: no release event).

    Examples
    --------
    >>> c = ChainColumns.build([100.0], [5.0], [115.0], [170.0], [200.0], [10.0])
    >>> len(c), c.take(np.array([False])).release_time.tolist()
    (1, [])
    """

    table: _ChainTable
    release_time: np.ndarray
    release_sd: np.ndarray

    @classmethod
    def build(
        cls,
        alloc_time: npt.ArrayLike,
        alloc_sd: npt.ArrayLike,
        start: npt.ArrayLike,
        end: npt.ArrayLike,
        release_time: npt.ArrayLike,
        release_sd: npt.ArrayLike,
    ) -> ChainColumns:
        """Columns of chains given by their fields (arrays of one shape (C,), model time units).

        Checks each chain as :class:`UtilizationSchedule` does and derives what it derives,
        with the same functions: once per chain, however many schedules it later joins.

        Raises
        ------
        ParameterError
            Fields of different shapes or not 1-D, or an invalid chain (named by index;
            :class:`EventChain`'s rules).
        """
        cols = [
            np.asarray(c, dtype=float)
            for c in (alloc_time, alloc_sd, start, end, release_time, release_sd)
        ]
        if any(c.ndim != 1 or c.shape != cols[2].shape for c in cols):
            raise ParameterError(
                f"chain fields must be 1-D of one shape (C,), got {[c.shape for c in cols]}"
            )
        _check_chain_arrays(*cols)
        return cls(_ChainTable.build(*cols), cols[4], cols[5])

    def __len__(self) -> int:
        """Number of chains C (not the number of columns)."""
        return int(self.release_time.size)

    def fields(self) -> tuple[np.ndarray, ...]:
        """The six field columns in the order of :class:`UtilizationSchedule`'s parameters."""
        t = self.table
        return (t.alloc_time, t.alloc_sd, t.start, t.end, self.release_time, self.release_sd)

    def take(self, keep: np.ndarray) -> ChainColumns:
        """The chains where ``keep`` (bool, shape (C,)) is true, in their order."""
        return ChainColumns(
            _ChainTable(*(col[keep] for col in self.table)),
            self.release_time[keep],
            self.release_sd[keep],
        )

    @classmethod
    def concatenate(cls, parts: Sequence[ChainColumns]) -> ChainColumns:
        """The chains of ``parts`` (at least one), one after the other."""
        if len(parts) == 1:
            return parts[0]
        return cls(
            _ChainTable(
                *(np.concatenate(col) for col in zip(*(p.table for p in parts), strict=True))
            ),
            np.concatenate([p.release_time for p in parts]),
            np.concatenate([p.release_sd for p in parts]),
        )


def _ratio(d: np.ndarray, sd: np.ndarray) -> np.ndarray:
    """``d / sd``, with the step limit ``+-inf`` (and 0 for ``d = 0``) where ``sd = 0``."""
    with np.errstate(divide="ignore", invalid="ignore"):
        z = d / sd
    zero = sd == 0
    if np.any(zero):
        z = np.where(zero, np.where(d == 0, 0.0, np.copysign(np.inf, d)), z)
    return z


def _release_cdf(
    tab: _ChainTable, c: np.ndarray, s: np.ndarray, survival: bool = False
) -> np.ndarray:
    """``P(R <= s)`` (``1 - P_o``) of the release times of chains ``c`` at times ``s >= end``.

    ``survival=True`` gives ``P(R > s)`` (``P_o``) instead, computed directly, not as 1 - cdf.
    """
    with np.errstate(divide="ignore"):
        d = np.log(s - tab.end[c]) - tab.log_median[c]
    z = _ratio(d, tab.shape[c])
    return normal_cdf(-z if survival else z)


def _q_values(tab: _ChainTable, c: np.ndarray, t: np.ndarray, u: np.ndarray) -> np.ndarray:
    """``1 - sup P_o`` of chains ``c`` over job intervals ``[t, u)``, elementwise.

    ``P_o`` rises (allocation phase, before ``start``), is 1 on the execution ``[start, end)``
    and falls (release phase, from ``end``), so its supremum over ``[t, u)`` is: the
    allocation CDF at ``u`` if ``u <= start`` (a nondecreasing function peaks at the right
    end), the release survival at ``t`` if ``t >= end`` (nonincreasing: peaks at the left end),
    and 1 if the interval meets the execution.
    """
    b = tab.start[c]
    e = tab.end[c]
    before = u <= b
    after = t >= e
    q = np.where(before | after, 1.0, 0.0)
    i = np.flatnonzero(before & tab.has_alloc[c])
    if i.size:
        ci = c[i]
        q[i] = normal_cdf(_ratio(tab.alloc_time[ci] - u[i], tab.alloc_sd[ci]))
    i = np.flatnonzero(after & tab.has_release[c])
    if i.size:
        q[i] = _release_cdf(tab, c[i], t[i])
    return q


def _check_duration(duration: float) -> float:
    try:
        T = float(duration)
    except (TypeError, ValueError):
        raise ParameterError(f"duration T must be a number, got {duration!r}") from None
    if not (math.isfinite(T) and T > 0):
        raise ParameterError(f"duration T must be a finite number > 0, got {duration!r}")
    return T


def _starts_array(starts: npt.ArrayLike) -> np.ndarray:
    """Start times as a 1-D float array (scalars become shape (1,)); raises on NaN/inf."""
    t = np.asarray(starts, dtype=float)
    if t.ndim > 1:
        raise ParameterError(f"starts must be a scalar or 1-D (K,), got shape {t.shape}")
    t = t.reshape(-1)
    if not np.all(np.isfinite(t)):
        bad = int(np.flatnonzero(~np.isfinite(t))[0])
        raise ParameterError(f"starts must be finite; starts[{bad}] = {t[bad]}")
    return t


def _ranges(first: np.ndarray, stop: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Flatten the index ranges ``[first[j], stop[j])``: returns (owner j, index) arrays."""
    counts = np.maximum(stop - first, 0)
    owner = np.repeat(np.arange(first.size), counts)
    offsets = np.cumsum(counts) - counts
    index = np.arange(int(counts.sum()), dtype=np.int64) - np.repeat(offsets - first, counts)
    return owner, index


def _p_avail(
    tab: _ChainTable,
    chain_of: np.ndarray,
    resource_of: np.ndarray,
    base: np.ndarray,
    starts: np.ndarray,
    duration: float,
) -> np.ndarray:
    """``P_a`` of each resource for each start, shape (m, K) (see UtilizationSchedule.p_avail).

    With the starts sorted, each (chain, resource) pair splits them into four contiguous
    ranges found by binary search: too early to matter, allocation phase (``t + T <= start``),
    execution met (``P_a = 0``), release phase (``t >= end``) until the tail is negligible.
    Only the two phase ranges need the normal CDF; the execution ranges are zeroed through a
    difference array.
    """
    m, K = base.size, starts.size
    order = None
    if K > 1 and np.any(starts[1:] < starts[:-1]):
        order = np.argsort(starts, kind="stable")
        starts = starts[order]
    ends = starts + duration
    out = np.empty((m, K))
    out[:] = base[:, None]
    if chain_of.size and K:
        flat_out = out.reshape(-1)
        c = chain_of
        k0 = np.searchsorted(ends, tab.lo[c], side="left")  # first t + T >= lo
        kb = np.searchsorted(ends, tab.start[c], side="right")  # first t + T > start
        ke = np.searchsorted(starts, tab.end[c], side="left")  # first t >= end
        k1 = np.searchsorted(starts, tab.hi[c], side="right")  # first t > hi
        # execution met on [kb, ke): P_a = 0, through a difference array per resource row
        busy = np.zeros(m * K, dtype=bool)
        hit = np.flatnonzero(kb < ke)
        if hit.size:
            marks = np.zeros(m * (K + 1), dtype=np.int64)
            row = resource_of[hit] * (K + 1)
            np.add.at(marks, row + kb[hit], 1)
            np.add.at(marks, row + ke[hit], -1)
            busy = (np.cumsum(marks.reshape(m, K + 1), axis=1)[:, :K] > 0).reshape(-1)
            flat_out[busy] = 0.0
        # allocation phase on [k0, kb): 1 - P_o = Phi((alloc_time - (t + T)) / alloc_sd);
        # release phase on [ke, k1): 1 - P_o = P(R <= t) with R = end + lognormal. Entries
        # already zeroed by an execution are skipped (most of them at a high job-load).
        for phase in ("allocation", "release"):
            if phase == "allocation":
                j = np.flatnonzero(tab.has_alloc[c])
                pair, k = _ranges(k0[j], kb[j])
            else:
                j = np.flatnonzero(tab.has_release[c])
                pair, k = _ranges(ke[j], k1[j])
            p = j[pair]
            cell = resource_of[p] * K + k
            free = np.flatnonzero(~busy[cell])
            if free.size == 0:
                continue
            p, k, cell = p[free], k[free], cell[free]
            ci = c[p]
            if phase == "allocation":
                q = normal_cdf(_ratio(tab.alloc_time[ci] - ends[k], tab.alloc_sd[ci]))
            else:
                q = _release_cdf(tab, ci, starts[k])
            np.multiply.at(flat_out, cell, q)
    if order is not None:
        unsorted = np.empty_like(out)
        unsorted[:, order] = out
        out = unsorted
    return out


def _check_probabilities(p: np.ndarray, name: str) -> None:
    bad = ~((p >= 0) & (p <= 1))
    if np.any(bad):
        i = int(np.flatnonzero(bad)[0])
        where = f"{name}[{i}]" if p.ndim else name
        raise ParameterError(f"{name} must lie in [0, 1]; {where} = {p.reshape(-1)[i]}")
