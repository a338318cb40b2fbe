"""Owners' local jobs as an online job flow: arrivals over time, sizes in processors.

Two local-load models exist in vosim (:data:`LOCAL_MODELS`):

- ``"online"`` (the default of real-trace runs): each owner's local jobs are a job flow that
  arrives over time. A local job is known only when it arrives; its owner's local resource
  manager places it then, by the owners' priority rule
  (:func:`~vosim.market.local_placement.place_local_job`). The flow is either generated
  (:class:`PoissonLocalJobs`: Poisson arrivals whose rate gives the owner a share of its
  processor time, sizes of 1 up to a node's processors, lognormal lengths) or replayed from an
  SWF trace (:func:`trace_local_jobs`: each trace job arrives at its submit time).
- ``"interval"``: the papers' initial load of one scheduling interval, drawn per node one
  interval ahead (:class:`~vosim.market.workload.HypergeometricLocalLoad`, AEP §3.1 and VO
  Preferences §4; :class:`~vosim.market.local_trace.TraceLocalFlow` for a trace). The
  single-cycle experiments of the papers (presets ``aep`` and ``vo-preferences``) use it.

References
----------
AEP §1 ("during each scheduling cycle the sets of available slots are updated based on the
information from local resource managers"); ICCS 2021 §3.1 (lengths lognormal, their
parameters fitted to the machine's own log) and §4.1 (local jobs of each resource as a job
flow with submit times and lengths).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist
from typing import TYPE_CHECKING

import numpy as np

from vosim.errors import ParameterError

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "LOCAL_MODELS",
    "LocalLengths",
    "PoissonLocalJobs",
    "ReplayedLocalJobs",
    "fitted_lengths",
    "trace_local_jobs",
]

#: The owners' local-load models: jobs arriving online, or one interval drawn ahead.
LOCAL_MODELS = ("online", "interval")


@dataclass(frozen=True)
class LocalLengths:
    """Local job lengths: lognormal of median ``median`` and log-scale deviation ``sigma``.

    Lengths are capped at ``cap`` (a local job longer than the scheduling interval would hold
    its processors past every slot list the VO reads).

    Parameters
    ----------
    median : float
        Median length, model time units (> 0).
    sigma : float
        Standard deviation of the log length (>= 0).
    cap : float
        Longest length, model time units (> 0; ``inf``: none).

    Raises
    ------
    ParameterError
        A parameter outside its range (named).

    References
    ----------
    ICCS 2021 §3.1: "the normal distribution on a logarithmic scale (lognormal) was chosen as
    the most suitable for modeling the jobs' length".

    Examples
    --------
    >>> lengths = LocalLengths(3600.0, 1.0)
    >>> round(lengths.mean(), 1)  # exp(mu + sigma^2 / 2)
    5935.4
    >>> round(LocalLengths(3600.0, 1.0, cap=3600.0).mean(), 1) < 3600.0
    True
    """

    median: float
    sigma: float
    cap: float = math.inf

    def __post_init__(self) -> None:
        if not (math.isfinite(self.median) and self.median > 0):
            raise ParameterError(f"local job median length must be > 0, got {self.median!r}")
        if not (math.isfinite(self.sigma) and self.sigma >= 0):
            raise ParameterError(f"local job length sigma must be >= 0, got {self.sigma!r}")
        if not self.cap > 0:
            raise ParameterError(f"local job length cap must be > 0, got {self.cap!r}")

    def mean(self) -> float:
        """Mean length of the capped lognormal, model time units.

        ``E[min(X, c)] = e^(mu + s^2/2) Phi((ln c - mu - s^2) / s) + c (1 - Phi((ln c - mu) / s))``.
        """
        mu, s, c = math.log(self.median), self.sigma, self.cap
        if s == 0:
            return min(self.median, c)
        if math.isinf(c):
            return math.exp(mu + s * s / 2)
        z = (math.log(c) - mu) / s
        phi = NormalDist().cdf  # the standard library's, no scipy import for the declaration
        return math.exp(mu + s * s / 2) * phi(z - s) + c * (1.0 - phi(z))

    def scaled(self, factor: float) -> LocalLengths:
        """The same shape with every length times ``factor`` (> 0): the median scales."""
        return LocalLengths(self.median * factor, self.sigma, self.cap)

    def draws(self, rng: np.random.Generator, n: int) -> np.ndarray:
        """``n`` lengths, model time units, shape (n,)."""
        return np.minimum(rng.lognormal(math.log(self.median), self.sigma, size=n), self.cap)


def fitted_lengths(
    run_times: np.ndarray, cap: float = math.inf, median: float | None = None
) -> LocalLengths:
    """The lognormal of largest likelihood for a machine's recorded run times.

    ICCS 2021 §3.1 models local jobs' lengths as lognormal with parameters fitted to the
    machine's own log; vosim fits them to the trace being run (the owners' local users are
    users of the same machine). The maximum-likelihood lognormal (location 0) has
    ``mu = mean(ln x)`` and ``sigma = std(ln x)`` over the positive run times.

    Parameters
    ----------
    run_times : numpy.ndarray, shape (k,)
        Recorded run times, seconds; values <= 0 (unknown) are left out.
    cap : float
        Longest local job (:class:`LocalLengths`), model time units.
    median : float or None
        Override the fitted median (model time units, > 0; the sensitivity runs halve and
        double it); ``None``: the fitted one.

    Returns
    -------
    LocalLengths

    Raises
    ------
    ParameterError
        No positive run time (one gives ``sigma`` 0).

    Examples
    --------
    >>> lengths = fitted_lengths(np.array([10.0, 100.0, 1000.0, -1.0]))
    >>> round(lengths.median, 6), round(lengths.sigma, 4)
    (100.0, 1.8801)
    """
    x = np.asarray(run_times, dtype=float)
    x = x[np.isfinite(x) & (x > 0)]
    if x.size == 0:
        raise ParameterError(
            "the local job lengths are fitted to the trace's run times, and it has no positive "
            "one: use local_model='interval' or no local load"
        )
    logs = np.log(x)
    fitted = math.exp(float(logs.mean()))
    return LocalLengths(fitted if median is None else float(median), float(logs.std()), cap)


class PoissonLocalJobs:
    """One owner's generated local job flow: Poisson arrivals, sizes and lengths.

    Arrivals are a Poisson process of rate ``share * processors / (E[size] * E[length])``, so
    that on average the owner's local jobs ask for ``share`` of its processor time. A size is
    uniform on ``1 .. max_size`` processors (``max_size``: the processors of the owner's
    smallest node, so a generated local job fits on one node); a length is drawn from
    ``lengths``.

    Parameters
    ----------
    share : float
        Share of the owner's processor time its local jobs ask for, in [0, 1).
    processors : int
        Processors of the owner (>= 1).
    max_size : int
        Largest local job, processors (1 <= max_size <= processors).
    lengths : LocalLengths
        Length distribution.
    rng : numpy.random.Generator
        This owner's own stream (the flow is the same whatever the VO's policy does).
    start : float
        Time of the flow's beginning, model time units.

    Raises
    ------
    ParameterError
        A parameter outside its range (named).

    References
    ----------
    ICCS 2021 §4.1 (local job flows, job-load as a share of the time); VO Preferences §4
    (owners' local load 5-10 %, here a share of processor time over the whole run).

    Examples
    --------
    >>> flow = PoissonLocalJobs(0.1, 28, 14, LocalLengths(3600.0, 1.0),
    ...                         np.random.default_rng(1))
    >>> t, size, length = flow.next()
    >>> 0 < t and 1 <= size <= 14 and length > 0
    True
    """

    def __init__(
        self,
        share: float,
        processors: int,
        max_size: int,
        lengths: LocalLengths,
        rng: np.random.Generator,
        start: float = 0.0,
    ) -> None:
        if not 0 <= share < 1:
            raise ParameterError(f"local load share must be in [0, 1), got {share!r}")
        if not 1 <= max_size <= processors:
            raise ParameterError(
                f"local job sizes must satisfy 1 <= max_size <= processors, got {max_size} "
                f"and {processors}"
            )
        self.share = float(share)
        self.max_size = int(max_size)
        self.lengths = lengths
        self.rng = rng
        mean_size = (1 + self.max_size) / 2
        #: Arrivals per time unit (0: none).
        self.rate = self.share * processors / (mean_size * lengths.mean())
        self._t = float(start)
        self._block: list[tuple[float, int, float]] = []

    def next(self) -> tuple[float, int, float] | None:
        """The next local job ``(arrival, size, length)``; ``None`` if the flow is empty.

        Jobs are drawn in blocks of :data:`_BLOCK` (three vectorised draws a block: gaps,
        sizes, lengths), so the stream is the same however far it is read.
        """
        if self.rate <= 0:
            return None
        if not self._block:
            rng, n = self.rng, _BLOCK
            arrival = self._t + np.cumsum(rng.exponential(1.0 / self.rate, size=n))
            size = rng.integers(1, self.max_size + 1, size=n)
            length = self.lengths.draws(rng, n)
            self._t = float(arrival[-1])
            self._block = list(zip(arrival.tolist(), size.tolist(), length.tolist(), strict=True))[
                ::-1
            ]
        return self._block.pop()


#: Local jobs drawn at once by :class:`PoissonLocalJobs`.
_BLOCK = 256


class ReplayedLocalJobs:
    """One owner's local job flow replayed from a trace: its jobs, in order of arrival.

    Parameters
    ----------
    arrival, size, length : numpy.ndarray, shape (k,)
        The jobs' arrival times (model time units, non-decreasing), processors and lengths
        (model time units).

    Examples
    --------
    >>> flow = ReplayedLocalJobs(np.array([0.0, 5.0]), np.array([2, 1]), np.array([9.0, 3.0]))
    >>> flow.next(), flow.next(), flow.next()
    ((0.0, 2, 9.0), (5.0, 1, 3.0), None)
    """

    def __init__(self, arrival: np.ndarray, size: np.ndarray, length: np.ndarray) -> None:
        self._rows = list(
            zip(
                np.asarray(arrival, dtype=float).tolist(),
                np.asarray(size, dtype=np.int64).tolist(),
                np.asarray(length, dtype=float).tolist(),
                strict=True,
            )
        )
        self._at = 0

    def next(self) -> tuple[float, int, float] | None:
        """The next local job ``(arrival, size, length)``; ``None`` after the last."""
        if self._at >= len(self._rows):
            return None
        self._at += 1
        return self._rows[self._at - 1]


def trace_local_jobs(
    trace: pd.DataFrame, owner_processors: list[int], cap: float = math.inf
) -> tuple[list[ReplayedLocalJobs], int, int]:
    """Split an SWF trace's jobs into the owners' replayed local job flows.

    Each job arrives at its submit time (the trace's first submission at model time 0), asks
    for its processors (SWF field 5, else field 8) for its run time (field 4, else the
    requested time, field 9; capped at ``cap``), and belongs to the owner ``user mod owners``
    (field 12: a local user submits to one owner's cluster). Jobs with no known size or
    length, or larger than their owner's processors, are dropped.

    Parameters
    ----------
    trace : pandas.DataFrame
        Rows of :func:`~vosim.market.swf.read_swf`.
    owner_processors : list of int
        Processors of each owner, shape (owners,).
    cap : float
        Longest length, model time units.

    Returns
    -------
    (flows, placed, dropped)
        One :class:`ReplayedLocalJobs` per owner, and the jobs kept and dropped.

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"submit_time": [10, 20, 30], "allocated_processors": [1, 4, 2],
    ...     "requested_processors": [1, 4, 2], "run_time": [5, 6, -1],
    ...     "requested_time": [9, 9, 9], "user_id": [0, 1, 2]})
    >>> flows, placed, dropped = trace_local_jobs(frame, [2, 2])
    >>> placed, dropped, flows[0].next()
    (2, 1, (0.0, 1, 5.0))
    """
    owners = len(owner_processors)
    size = trace["allocated_processors"].where(
        trace["allocated_processors"] > 0, trace["requested_processors"]
    )
    length = trace["run_time"].where(trace["run_time"] > 0, trace["requested_time"])
    submit = trace["submit_time"].to_numpy(dtype=float)
    first = float(submit.min()) if submit.size else 0.0
    owner = trace["user_id"].to_numpy(dtype=np.int64) % owners
    cap_of = np.asarray(owner_processors, dtype=np.int64)[owner]
    size_a, length_a = size.to_numpy(dtype=np.int64), length.to_numpy(dtype=float)
    keep = (size_a > 0) & (length_a > 0) & (size_a <= cap_of)
    flows = []
    for o in range(owners):
        rows = np.flatnonzero(keep & (owner == o))
        rows = rows[np.argsort(submit[rows], kind="stable")]
        flows.append(
            ReplayedLocalJobs(submit[rows] - first, size_a[rows], np.minimum(length_a[rows], cap))
        )
    placed = int(keep.sum())
    return flows, placed, int(keep.size) - placed
