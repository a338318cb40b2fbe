"""Utilization events, resource availability ``P_a(r, t, T)`` and group dependencies.

A resource's utilization schedule is a list of *event chains* (ICCS 2023 §2.1, ICCS 2021 §3.1):
one job on the resource gives an *allocation* phase (occupation probability ``P_o`` rising as a
normal CDF around the expected allocation time), an *occupation* (execution) phase with
``P_o = 1`` and a *release* phase (``P_o`` falling as a lognormal survival function around the
expected release time, with a heavy right tail). The three events of one job are dependent and
count once, with their maximum. *Global* events (maintenance, network failures) have a
constant ``P_o`` over the whole scheduling interval.

The availability of a resource for a job that holds it on ``[t, t + T)`` is the product over
its independent events of ``1 - max P_o`` over the interval (ICCS 2023 §2.1, step 3).
:class:`UtilizationSchedule` evaluates it for many resources and start times at once
(:meth:`UtilizationSchedule.p_avail`, the input of the ICCS 2021 §3.2 time scan) and turns
chains shared by several resources (an earlier parallel job) into the ``group`` / ``group_p``
arrays of :class:`vosim.allocators.availability_problem.AvailabilityProblem` (ICCS 2023 §2.2, eq.
3).
:mod:`vosim.market.iccs_generators` draws the papers' environments and instances from it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import NamedTuple

import numpy as np
import numpy.typing as npt
from scipy.special import ndtr

from vosim.errors import ParameterError

__all__ = [
    "EventChain",
    "allocation_event",
    "occupation_event",
    "release_event",
    "lognormal_shape",
    "lognormal_shapes",
    "normal_cdf",
    "availability",
    "UtilizationSchedule",
    "ChainColumns",
]

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
# Events

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


@dataclass(frozen=True)
class EventChain:
    """The dependent allocation–occupation–release events of one job on a resource.

    The occupation probability ``P_o(s)`` of the chain at time ``s`` is:

    * ``s < start`` (allocation phase): ``Phi((s - alloc_time) / alloc_sd)``, the normal CDF
      of the allocation time; 0 when there is no allocation event (``alloc_time`` NaN);
    * ``start <= s < end`` (occupation / execution): 1;
    * ``s >= end`` (release phase): ``P(R > s)`` for the release time ``R = end + D`` with
      ``D`` lognormal of median ``release_time - end`` and standard deviation ``release_sd``;
      0 when there is no release event (``release_time`` NaN).

    So ``P_o(alloc_time) = P_o(release_time) = 0.5`` as in ICCS 2023 §2.1, and the release has
    the heavy right tail of the lognormal. The "expected" release time is therefore the
    lognormal's *median* (the paper's ``P_o = 0.5`` there fixes it); its mean lies later, at
    ``end + (release_time - end) * exp(s**2 / 2)`` with ``s`` = :attr:`release_shape`. The
    lognormal is parametrised by its median and its standard deviation in time units
    (:func:`lognormal_shape`), like the normal allocation by its mean and standard deviation.

    The three events count once, with their maximum (they are phases of one job, ICCS 2023
    §2.1 step 1). Use :func:`allocation_event`, :func:`occupation_event` and
    :func:`release_event` for single events.

    Parameters
    ----------
    start : float
        Start of the certain execution, model time units (``-inf``: running since before the
        interval; ``+inf`` together with ``end = +inf``: an allocation never followed by a
        known execution).
    end : float
        End of the certain execution (``start < end``), the origin of the release lognormal;
        ``+inf`` if the job holds the resource beyond the horizon.
    alloc_time : float
        Expected allocation time (mean and median of the normal), NaN for none.
    alloc_sd : float
        Its standard deviation, model time units, >= 0 (0: a step at ``alloc_time``).
    release_time : float
        Expected (median) release time, ``> end``, NaN for none.
    release_sd : float
        Standard deviation of the release time, model time units, >= 0 (0: a step).

    Raises
    ------
    ParameterError
        NaN or out-of-order ``start``/``end``, an infinite expected time, a negative or
        non-finite standard deviation, or ``release_time <= end``.

    References
    ----------
    ICCS 2023 §2.1 and Fig. 1 (allocation normal, release lognormal, ``P_o = 0.5`` at the
    expected times, execution ``P_o = 1``); ICCS 2021 §3.1.

    Examples
    --------
    The first job of ICCS 2023 Fig. 1: allocation expected at 85, execution from 133,
    release expected at 545.

    >>> job = EventChain(start=133, end=450, alloc_time=85, alloc_sd=16,
    ...                  release_time=545, release_sd=40)
    >>> job.p_occupied([85, 300, 545]).tolist()
    [0.5, 1.0, 0.5]
    """

    start: float
    end: float
    alloc_time: float = math.nan
    alloc_sd: float = 0.0
    release_time: float = math.nan
    release_sd: float = 0.0

    def __post_init__(self) -> None:
        for name in _CHAIN_FIELDS:
            value = getattr(self, name)
            try:
                number = float(value)
            except (TypeError, ValueError):
                raise ParameterError(f"{name} must be a number, got {value!r}") from None
            # one NaN object for "no event", so that equal chains compare and hash equal
            object.__setattr__(self, name, math.nan if math.isnan(number) else number)
        _check_chain_arrays(*(np.array([v]) for v in self._fields()), label="")

    def _fields(self) -> tuple[float, ...]:
        """The fields in the column order of :class:`UtilizationSchedule` (``_CHAIN_FIELDS``)."""
        return tuple(getattr(self, name) for name in _CHAIN_FIELDS)

    @property
    def release_shape(self) -> float:
        """Log-scale shape ``s`` of the release lognormal (NaN without a release event)."""
        if math.isnan(self.release_time):
            return math.nan
        return lognormal_shape(self.release_time - self.end, self.release_sd)

    def p_occupied(self, times: npt.ArrayLike) -> np.ndarray:
        """Occupation probability ``P_o(s)`` at the given times.

        Parameters
        ----------
        times : array_like, shape (K,)
            Times ``s``, model time units.

        Returns
        -------
        numpy.ndarray, shape (K,)
            ``P_o(s)`` in [0, 1].
        """
        s = np.asarray(times, dtype=float)
        tab = _ChainTable.build(*(np.array([v]) for v in self._fields()))
        out = np.where((s >= self.start) & (s < self.end), 1.0, 0.0)
        before, after = s < self.start, s >= self.end
        if tab.has_alloc[0]:
            sd = np.full(int(before.sum()), self.alloc_sd)
            out[before] = normal_cdf(_ratio(s[before] - self.alloc_time, sd))
        if tab.has_release[0]:
            c = np.zeros(int(after.sum()), dtype=np.int64)
            out[after] = _release_cdf(tab, c, s[after], survival=True)
        return out

    def max_p_occupied(self, starts: npt.ArrayLike, duration: float) -> np.ndarray:
        """``max P_o(s)`` over each job interval ``[t, t + T)`` (supremum), shape (K,).

        Parameters
        ----------
        starts : array_like, shape (K,)
            Start times ``t``, model time units.
        duration : float
            Reservation time ``T > 0``.

        Returns
        -------
        numpy.ndarray, shape (K,)
            ``P_o^max`` in [0, 1] (ICCS 2023 §2.1 step 2).

        Raises
        ------
        ParameterError
            ``duration <= 0`` or non-finite starts.
        """
        return 1.0 - availability([self], _starts_array(starts), duration)


def allocation_event(time: float, sd: float) -> EventChain:
    """An allocation event: ``P_o(s) = Phi((s - time) / sd)`` for every ``s``.

    The resource is taken at a normally distributed time and kept beyond the horizon.

    Parameters
    ----------
    time : float
        Expected allocation time, model time units (``P_o(time) = 0.5``).
    sd : float
        Standard deviation, >= 0.

    Returns
    -------
    EventChain
        A chain with the execution at ``+inf``.

    Raises
    ------
    ParameterError
        A non-finite time or a negative standard deviation.

    References
    ----------
    ICCS 2023 §2.1: allocation events are normal random variables.

    Examples
    --------
    >>> allocation_event(844, 25).p_occupied([844]).tolist()
    [0.5]
    """
    return EventChain(start=math.inf, end=math.inf, alloc_time=time, alloc_sd=sd)


def occupation_event(start: float, end: float) -> EventChain:
    """An occupation (execution) event: ``P_o = 1`` on ``[start, end)``, 0 elsewhere.

    Parameters
    ----------
    start, end : float
        The execution interval, model time units, ``start < end``.

    Returns
    -------
    EventChain

    Raises
    ------
    ParameterError
        ``start >= end`` or NaN.

    References
    ----------
    ICCS 2023 §2.1: "during the whole execution interval ... P_o = 1".

    Examples
    --------
    >>> occupation_event(10, 20).p_occupied([9, 10, 19.5, 20]).tolist()
    [0.0, 1.0, 1.0, 0.0]
    """
    return EventChain(start=start, end=end)


def release_event(time: float, sd: float, origin: float) -> EventChain:
    """A release event: the resource is held until ``origin``, then released at a lognormal time.

    ``P_o(s) = 1`` for ``s < origin`` and ``P(origin + D > s)`` after, with ``D`` lognormal of
    median ``time - origin`` and standard deviation ``sd`` (heavy right tail).

    Parameters
    ----------
    time : float
        Expected (median) release time, model time units (``P_o(time) = 0.5``), ``> origin``.
    sd : float
        Standard deviation of the release time, >= 0.
    origin : float
        Time until which the resource is certainly held (start of the lognormal's support).

    Returns
    -------
    EventChain
        A chain whose execution runs from ``-inf`` to ``origin``.

    Raises
    ------
    ParameterError
        ``time <= origin``, a non-finite time, or a negative standard deviation.

    References
    ----------
    ICCS 2023 §2.1 and ICCS 2021 §3.1: release events are lognormal, "to consider the long
    tails".

    Examples
    --------
    >>> release_event(545, 40, origin=450).p_occupied([400, 545]).tolist()
    [1.0, 0.5]
    """
    return EventChain(start=-math.inf, end=origin, release_time=time, release_sd=sd)


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


def availability(
    chains: Iterable[EventChain],
    starts: npt.ArrayLike,
    duration: float,
    global_p: float | Sequence[float] = 0.0,
) -> float | np.ndarray:
    """Availability ``P_a(r, t, T)`` of one resource for a job on ``[t, t + T)``.

    The ICCS 2023 §2.1 procedure: each independent event ``e_i`` (an event chain counts once,
    with the maximum of its events) contributes ``P_a(e_i) = 1 - max_{s in [t, t+T)} P_o(e_i,
    s)``, each global event ``1 - p``, and ``P_a`` is their product.

    Parameters
    ----------
    chains : iterable of EventChain
        The resource's independent event chains.
    starts : float or array_like, shape (K,)
        Job start times ``t``, model time units; any order.
    duration : float
        Reservation time ``T > 0``.
    global_p : float or sequence of float
        Constant occupation probability of each global event, in [0, 1].

    Returns
    -------
    float or numpy.ndarray, shape (K,)
        ``P_a`` in [0, 1] for each start (a float for a scalar ``starts``).

    Raises
    ------
    ParameterError
        ``duration <= 0``, non-finite starts, a global probability outside [0, 1].
    TypeError
        An element of ``chains`` is not an :class:`EventChain`.

    Notes
    -----
    The maximum of a chain's ``P_o`` over the interval is taken at an endpoint: the
    allocation CDF is nondecreasing (maximum at ``t + T``), the release survival
    nonincreasing (maximum at ``t``), and an interval meeting the execution gives 1. The job
    holds the resource on the half-open ``[t, t + T)``, so an execution ending at ``t`` or
    starting at ``t + T`` does not conflict (as for slots); the continuous parts are evaluated
    at the closed endpoints (their supremum). Cost O(C K) for C chains and K starts, less when
    chains are far from most starts (see :meth:`UtilizationSchedule.p_avail`).

    References
    ----------
    ICCS 2023 §2.1, steps 1–3 and the worked example of Fig. 2; ICCS 2021 §3.2,
    ``P_a^{r_i}(t; t + T)``.

    Examples
    --------
    ICCS 2023 §2.1: on ``[545, 844]`` a release expected at 545, an allocation expected at 844
    and a global event 0.06 give ``0.5 * 0.5 * 0.94``.

    >>> events = [release_event(545, 40, origin=450), allocation_event(844, 25)]
    >>> availability(events, 545, 844 - 545, global_p=0.06)
    0.235
    >>> availability(events, [300, 545, 600], 299, global_p=0.06).round(3).tolist()
    [0.0, 0.235, 0.012]
    """
    chains = list(chains)
    for i, ch in enumerate(chains):
        if not isinstance(ch, EventChain):
            raise TypeError(f"chains[{i}] must be an EventChain, got {type(ch).__name__}")
    gp = np.atleast_1d(np.asarray(global_p, dtype=float))
    _check_probabilities(gp, "global_p")
    T = _check_duration(duration)
    scalar = np.ndim(starts) == 0
    t = _starts_array(starts)
    cols = np.array([ch._fields() for ch in chains], dtype=float).reshape(-1, 6)
    tab = _ChainTable.build(*cols.T)
    idx = np.arange(len(chains), dtype=np.int64)
    base = np.array([np.prod(1.0 - gp)])
    out = _p_avail(tab, idx, np.zeros_like(idx), base, t, T)[0]
    return float(out[0]) if scalar else out


def _check_probabilities(p: np.ndarray, name: str) -> None:
    bad = ~((p >= 0) & (p <= 1))
    if np.any(bad):
        i = int(np.flatnonzero(bad)[0])
        where = f"{name}[{i}]" if p.ndim else name
        raise ParameterError(f"{name} must lie in [0, 1]; {where} = {p.reshape(-1)[i]}")


# --------------------------------------------------------------------------------------------
# Many resources


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
