"""The papers' synthetic job streams as traces: any ``trace`` argument accepts their names.

``synthetic:aep`` (AEP §3.1) and ``synthetic:vo-preferences`` (VO Preferences §4), drawn as
frames in :func:`~vosim.market.swf.read_swf` format; :func:`load_trace` turns any ``trace``
argument (a frame, a stream's name, a bundled trace or an SWF path) into jobs. The streams'
names are declared with the bundled traces' (:data:`vosim.data.SYNTHETIC_TRACES`), so the
parameter declaration (:mod:`vosim.scenario`) names them without loading pandas.
"""

from __future__ import annotations

import math
import numbers
from pathlib import Path

import numpy as np
import pandas as pd

from vosim.data import SYNTHETIC_TRACES, trace_path
from vosim.errors import ParameterError
from vosim.market.fitted import fitted_trace
from vosim.market.swf import read_swf, swf_frame

__all__ = [
    "aep_trace",
    "load_trace",
    "synthetic_trace",
    "vo_preferences_trace",
]


def synthetic_trace(name: str, jobs: int | None, rng: np.random.Generator) -> pd.DataFrame:
    """The synthetic job stream ``name`` (a key of :data:`SYNTHETIC_TRACES`), ``jobs`` long.

    Parameters
    ----------
    name : str
        ``"synthetic:aep"`` (:func:`aep_trace`), ``"synthetic:vo-preferences"``
        (:func:`vo_preferences_trace`, whole batches of 40 cut to ``jobs``) or
        ``"fitted:<bundled trace>"`` (:func:`vosim.market.fitted.fitted_trace`).
    jobs : int or None
        Number of jobs (>= 1); ``None``: 1,000 (a fitted flow: as many as its trace).
    rng : numpy.random.Generator
        The only source of randomness.

    Returns
    -------
    pandas.DataFrame
        The trace in :func:`~vosim.market.swf.read_swf` format (a synthetic stream: 10 users,
        100 nodes; a fitted flow: its trace's machine and users).

    Raises
    ------
    ParameterError
        An unknown name.

    Examples
    --------
    >>> import numpy as np
    >>> len(synthetic_trace("synthetic:vo-preferences", 50, np.random.default_rng(1)))
    50
    """
    if name.startswith("fitted:") and name in SYNTHETIC_TRACES:
        return fitted_trace(name, jobs, rng)
    k = 1000 if jobs is None else int(jobs)
    if name == "synthetic:aep":
        return aep_trace(rng, jobs=k)
    if name == "synthetic:vo-preferences":
        frame = vo_preferences_trace(rng, batches=max(1, math.ceil(k / 40)))
        out = frame.iloc[:k].copy()
        out.attrs = dict(frame.attrs)
        return out
    raise ParameterError(f"unknown synthetic trace {name!r}; known: {', '.join(SYNTHETIC_TRACES)}")


def load_trace(
    trace: str | Path | pd.DataFrame, jobs: int | None, rng: np.random.Generator
) -> pd.DataFrame:
    """The jobs of a ``trace`` argument: a frame as is, a synthetic stream, or a read SWF file.

    Parameters
    ----------
    trace : str, Path or pandas.DataFrame
        A :func:`~vosim.market.swf.read_swf` frame, a name of :data:`SYNTHETIC_TRACES`, a
        bundled trace name or an SWF path.
    jobs : int or None
        Read (or generate) at most this many jobs; ``None``: all (1,000 for a stream).
    rng : numpy.random.Generator
        The model's generator: a synthetic stream is drawn from ``rng.spawn(1)[0]``, which
        leaves ``rng``'s own draws (node prices, local load) as with any other trace.

    Returns
    -------
    pandas.DataFrame

    Raises
    ------
    TraceFormatError
        Not a bundled trace nor an existing file, or the file is not SWF.
    """
    if isinstance(trace, pd.DataFrame):
        return trace
    name = str(trace)
    if name in SYNTHETIC_TRACES:
        return synthetic_trace(name, jobs, rng.spawn(1)[0])
    return read_swf(trace_path(name), jobs)


def _check_positive_int(name: str, value: object) -> None:
    """Raise ``ParameterError`` unless ``value`` is an integer (not a bool) >= 1."""
    if not isinstance(value, numbers.Integral) or isinstance(value, bool) or value < 1:
        raise ParameterError(f"{name} must be an integer >= 1, got {value!r}")


def aep_trace(
    rng: np.random.Generator,
    *,
    jobs: int = 1000,
    users: int = 10,
    nodes: int = 100,
    n: int = 5,
    time: float = 150.0,
    mean_interarrival: float = 8.0,
) -> pd.DataFrame:
    """A stream of the AEP base job: ``n = 5`` slots for ``T = 150`` on the slowest node.

    AEP §3.1 schedules a single job (5 parallel slots for 150 time units at the slowest
    node's performance 2, budget from the user's rule) in a 100-node domain with local load
    10–50 % over an interval of 600. A live VO needs a stream, so jobs of that shape arrive
    as a Poisson process (exponential inter-arrival times of mean ``mean_interarrival``),
    users drawn uniformly. With performance uniform in [2, 10] a task takes on average
    ``150 * 2 * mean(1/p) ≈ 64`` time units, so a job needs about 320 node-time units and the
    default 8 offers about 40 node-time units per time unit, some 60 % of the ~70 nodes the
    local load leaves free.

    Parameters
    ----------
    rng : numpy.random.Generator
        The only source of randomness.
    jobs : int
        Number of jobs (>= 1).
    users : int
        Number of users (>= 1); job ``j``'s user is uniform in ``1..users``.
    nodes : int
        Domain size ``N`` (AEP §3.1: 100).
    n : int
        Slots per job (AEP §3.1: 5).
    time : float
        Task time on a node of performance 2, model time units (AEP §3.1: 150).
    mean_interarrival : float
        Mean time between submissions, model time units (> 0).

    Returns
    -------
    pandas.DataFrame
        The trace (:func:`~vosim.market.swf.swf_frame`); run time equals the requested time.

    Raises
    ------
    ParameterError
        ``jobs`` or ``users`` not an integer >= 1, or ``mean_interarrival <= 0``.

    References
    ----------
    AEP §3.1 (domain, job of 5 slots for 150 time units, interval [0; 600], load 10–50 %).

    Examples
    --------
    >>> import numpy as np
    >>> f = aep_trace(np.random.default_rng(1), jobs=3)
    >>> f["requested_processors"].tolist(), f["requested_time"].tolist()
    ([5, 5, 5], [150, 150, 150])
    """
    _check_positive_int("jobs", jobs)
    _check_positive_int("users", users)
    if not mean_interarrival > 0:
        raise ParameterError(f"mean_interarrival must be > 0, got {mean_interarrival}")
    submit = np.cumsum(rng.exponential(mean_interarrival, size=jobs)) - 0.0
    submit -= submit[0]
    user = rng.integers(1, users + 1, size=jobs)
    t = np.full(jobs, float(time))

    return swf_frame(submit, np.full(jobs, n), t, t, user, nodes=nodes, note="AEP §3.1")


def vo_preferences_trace(
    rng: np.random.Generator,
    *,
    batches: int = 25,
    batch_size: int = 40,
    users: int = 10,
    nodes: int = 100,
    node_range: tuple[int, int] = (2, 6),
    time_range: tuple[int, int] = (100, 500),
    batch_period: float = 600.0,
) -> pd.DataFrame:
    """Batches of VO Preferences §4 jobs arriving every scheduling interval.

    Each batch holds ``batch_size`` jobs submitted together at ``k * batch_period``; per job
    the node count is uniform in ``node_range`` and the reservation time ``T`` uniform in
    ``time_range`` on the slowest node (performance 2, shorter on faster nodes), as
    :func:`vosim.market.domains.vo_preferences_batch` draws them. Budgets (factor uniform in
    [0.7, 1.6]) and the users' criteria (finish, runtime, cost) come from
    :class:`~vosim.model.VOModel`'s user rule.

    Parameters
    ----------
    rng : numpy.random.Generator
        The only source of randomness.
    batches : int
        Number of batches (>= 1).
    batch_size : int
        Jobs per batch (VO Preferences §4: 40).
    users : int
        Number of users (>= 1); each job's user is uniform in ``1..users``.
    nodes : int
        Domain size ``N`` (§4: 100).
    node_range : (int, int)
        Inclusive bounds of ``n`` (§4: [2, 6]).
    time_range : (int, int)
        Inclusive bounds of ``T`` on the slowest node, model time units (§4: [100, 500]).
    batch_period : float
        Time between batches, model time units (> 0; §4's interval is 600).

    Returns
    -------
    pandas.DataFrame
        The trace (:func:`~vosim.market.swf.swf_frame`).

    Raises
    ------
    ParameterError
        ``batches``, ``batch_size`` or ``users`` not an integer >= 1, or
        ``batch_period <= 0``.

    References
    ----------
    VO Preferences §4 (a batch of 40 jobs, n in [2, 6], T in [100, 500], 100 nodes,
    interval 600, local load 5–10 %).

    Examples
    --------
    >>> import numpy as np
    >>> f = vo_preferences_trace(np.random.default_rng(2), batches=2, batch_size=3)
    >>> f["submit_time"].tolist()
    [0, 0, 0, 600, 600, 600]
    """
    _check_positive_int("batches", batches)
    _check_positive_int("batch_size", batch_size)
    _check_positive_int("users", users)
    if not batch_period > 0:
        raise ParameterError(f"batch_period must be > 0, got {batch_period}")
    k = batches * batch_size
    submit = np.repeat(np.arange(batches) * float(batch_period), batch_size)
    n = rng.integers(node_range[0], node_range[1], size=k, endpoint=True)
    t = rng.integers(time_range[0], time_range[1], size=k, endpoint=True).astype(float)
    user = rng.integers(1, users + 1, size=k)

    return swf_frame(submit, n, t, t, user, nodes=nodes, note="VO Preferences §4")
