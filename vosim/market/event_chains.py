"""A resource's utilization events: allocation, occupation and release of one job (a chain).

One job on a resource gives an *allocation* phase (occupation probability ``P_o`` rising as a
normal CDF around the expected allocation time), an *occupation* (execution) phase with
``P_o = 1`` and a *release* phase (``P_o`` falling as a lognormal survival function around the
expected release time, with a heavy right tail). The three events of one job are dependent and
count once, with their maximum (ICCS 2023 §2.1, ICCS 2021 §3.1). :func:`availability` is
``P_a(r, t, T)`` of one resource from its chains: the product over its independent events of
``1 - max P_o`` over the interval (ICCS 2023 §2.1, step 3).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from vosim.errors import ParameterError
from vosim.market.chain_maths import (
    _CHAIN_FIELDS,
    _ChainTable,
    _check_chain_arrays,
    _check_duration,
    _check_probabilities,
    _p_avail,
    _ratio,
    _release_cdf,
    _starts_array,
    lognormal_shape,
    normal_cdf,
)

__all__ = ["EventChain", "allocation_event", "availability", "occupation_event", "release_event"]


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
