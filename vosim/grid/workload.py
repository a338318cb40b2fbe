"""Clusters, tasks with several allocation options, and task streams of the Knapsack Grid slides.

A grid is a tuple of cluster capacities (processors per cluster, homogeneous processors), by
default the slides' four clusters of 4, 8, 16 and 32 processors (:data:`DEFAULT_CLUSTERS`).
A :class:`GridTask` offers one or more options (:class:`TaskOption`); option ``j`` of task
``i`` uses ``processors[k]`` processors of cluster ``k`` for ``T_ij`` hours (its computation
length) and carries the credit value ``v_ij`` the user pays for it.

Options of a task (:func:`make_options`). A task needing ``p`` processors for ``N`` hours with
base credit ``v`` gets at most ``max_options`` (4) options, laid out by the slides' rules in
:func:`vosim.policies.knapsack_rules.option_layouts` on the clusters' capacities: the reference
option (``p`` on the smallest cluster that has ``p``, length ``N``, credit ``v``), the split
option (``p/2`` on each of the two smallest clusters that have ``p/2``, length ``1.1 N``), the
half option (``p // 2`` processors, the work conserved) and ``p`` on each other cluster. Credit
values vary with length as on the slides' policy-1 page (:func:`option_credit`),
``v_im / v_in = (T_in / T_im) ** 1.1``, so option ``j`` has credit ``v * (N / T_ij) ** 1.1``.

Streams. :func:`poisson_tasks` draws the slides' synthetic stream: Poisson arrivals with mean
inter-arrival time ``lambda`` hours, a bimodal computation demand (a mixture of a short and a
long lognormal), processors a power of two up to the largest cluster, and a uniform base
credit. :func:`swf_tasks` turns a Standard Workload Format trace into tasks.

References
----------
Knapsack Grid, slides "Tasks, Options, and QoS Metrics", "Two Tasks and Their Options",
"Allocation Policy 1: Pure Credit-Value-Driven" and "Grid and Task Model".
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np
import pandas as pd

from vosim.errors import ParameterError
from vosim.policies.knapsack_rules import (
    CREDIT_EXPONENT,
    HALF_FACTOR,
    MAX_OPTIONS,
    SPLIT_PENALTY,
    option_credit,
    option_layouts,
)

__all__ = [
    "DEFAULT_CLUSTERS",
    "CREDIT_EXPONENT",
    "SPLIT_PENALTY",
    "HALF_FACTOR",
    "MAX_OPTIONS",
    "TaskOption",
    "GridTask",
    "TraceTasks",
    "check_clusters",
    "check_tasks",
    "clusters_from_owners",
    "option_credit",
    "make_options",
    "poisson_tasks",
    "swf_tasks",
]

#: Processors of the slides' four homogeneous clusters ("Grid and Task Model").
DEFAULT_CLUSTERS: tuple[int, ...] = (4, 8, 16, 32)
_SECONDS_PER_HOUR = 3600.0


@dataclass(frozen=True, slots=True)
class TaskOption:
    """One allocation option ``j`` of a task: processors per cluster, length and credit.

    Parameters
    ----------
    processors : tuple of int, shape (K,)
        Processors used on each cluster ``k`` (``>= 0``, at least one in total).
    length : float
        Computation length ``T_ij``, hours, when the whole task runs on this option.
    credit : float
        Credit value ``v_ij`` (``>= 0``) the user assigns to this option.

    Raises
    ------
    ParameterError
        Negative processors, no processor at all, a length that is not finite and ``> 0``, or
        a negative or non-finite credit.

    Examples
    --------
    >>> TaskOption((8, 0), 2.0, 10.0).total
    8
    """

    processors: tuple[int, ...]
    length: float
    credit: float

    def __post_init__(self) -> None:
        procs = tuple(int(p) for p in self.processors)
        if any(p != q for p, q in zip(procs, self.processors, strict=True)):
            raise ParameterError(f"processors must be whole numbers, got {self.processors!r}")
        if any(p < 0 for p in procs) or sum(procs) < 1:
            raise ParameterError(
                f"processors must be >= 0 per cluster and >= 1 in total, got {procs!r}"
            )
        object.__setattr__(self, "processors", procs)
        length = float(self.length)
        if not (math.isfinite(length) and length > 0):
            raise ParameterError(f"option length must be finite and > 0 hours, got {length!r}")
        object.__setattr__(self, "length", length)
        credit = float(self.credit)
        if not (math.isfinite(credit) and credit >= 0):
            raise ParameterError(f"option credit must be finite and >= 0, got {credit!r}")
        object.__setattr__(self, "credit", credit)

    @property
    def total(self) -> int:
        """Processors used over all clusters."""
        return sum(self.processors)


@dataclass(frozen=True, slots=True)
class GridTask:
    """A task submitted to the grid with its allocation options.

    Parameters
    ----------
    id : int
        Task identifier (unique in a stream).
    submit : float
        Submission time ``s_i``, hours (finite, ``>= 0``).
    options : tuple of TaskOption
        The options; all name the same number of clusters ``K``.
    reference : int, default 0
        Index of the reference option; its length is ``N_i`` and its credit is the task's
        credit.

    Attributes
    ----------
    demand : numpy.ndarray of int64, shape (n_options, K)
        ``demand[j, k]`` processors of cluster ``k`` used by option ``j`` (read-only).
    lengths : numpy.ndarray of float, shape (n_options,)
        ``T_ij``, hours (read-only).
    credits : numpy.ndarray of float, shape (n_options,)
        ``v_ij`` (read-only).

    Raises
    ------
    ParameterError
        No option, options of different cluster counts, a bad ``submit`` or ``reference``.

    Examples
    --------
    Task 1 of the slides' small example (8 processors of cluster 1 for $10, 2 of cluster 1 for
    $2, 4 and 4 of clusters 1 and 2 for $9), with made-up lengths:

    >>> t = GridTask(1, 0.0, (TaskOption((8, 0), 1.0, 10), TaskOption((2, 0), 4.0, 2),
    ...                       TaskOption((4, 4), 1.1, 9)))
    >>> t.demand.tolist(), t.reference_length, t.credit
    ([[8, 0], [2, 0], [4, 4]], 1.0, 10.0)
    """

    id: int
    submit: float
    options: tuple[TaskOption, ...]
    reference: int = 0
    demand: np.ndarray = field(init=False, repr=False, compare=False)
    lengths: np.ndarray = field(init=False, repr=False, compare=False)
    credits: np.ndarray = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        options = tuple(self.options)
        if not options:
            raise ParameterError(f"task {self.id!r} has no option")
        if not all(isinstance(o, TaskOption) for o in options):
            raise ParameterError(f"task {self.id!r}: options must be TaskOption objects")
        n_clusters = {len(o.processors) for o in options}
        if len(n_clusters) != 1:
            raise ParameterError(
                f"task {self.id!r}: options name different numbers of clusters {n_clusters}"
            )
        submit = float(self.submit)
        if not (math.isfinite(submit) and submit >= 0):
            raise ParameterError(f"task {self.id!r}: submit must be finite and >= 0, got {submit}")
        if not 0 <= self.reference < len(options):
            raise ParameterError(
                f"task {self.id!r}: reference {self.reference} is not an option index "
                f"(0..{len(options) - 1})"
            )
        demand = np.array([o.processors for o in options], dtype=np.int64)
        lengths = np.array([o.length for o in options], dtype=float)
        credits = np.array([o.credit for o in options], dtype=float)
        for a in (demand, lengths, credits):
            a.flags.writeable = False
        object.__setattr__(self, "options", options)
        object.__setattr__(self, "submit", submit)
        object.__setattr__(self, "demand", demand)
        object.__setattr__(self, "lengths", lengths)
        object.__setattr__(self, "credits", credits)

    @property
    def reference_length(self) -> float:
        """``N_i``: the length of the reference option, hours."""
        return self.options[self.reference].length

    @property
    def credit(self) -> float:
        """The credit value of the reference option."""
        return self.options[self.reference].credit

    @property
    def shortest_length(self) -> float:
        """The shortest option length, hours (a lower bound of the task's run time)."""
        return float(self.lengths.min())


class TraceTasks(NamedTuple):
    """Tasks made from a trace by :func:`swf_tasks`, and how many jobs were dropped.

    Attributes
    ----------
    tasks : list of GridTask
        The tasks, in trace order.
    dropped : dict of str to int
        Jobs dropped by reason: ``"no_run_time"`` (run time unknown or ``<= 0``),
        ``"no_processors"`` (neither requested nor allocated processors known) and
        ``"too_wide"`` (more processors than the largest cluster).
    """

    tasks: list[GridTask]
    dropped: dict[str, int]


def check_clusters(clusters: Iterable[int]) -> tuple[int, ...]:
    """Validate cluster capacities and return them as a tuple of ints.

    Parameters
    ----------
    clusters : iterable of int, shape (K,)
        Processors of each cluster.

    Returns
    -------
    tuple of int

    Raises
    ------
    ParameterError
        No cluster, a capacity that is negative or not a whole number, or no processor at all.

    Examples
    --------
    >>> check_clusters([4, 8])
    (4, 8)
    """
    try:
        caps = tuple(clusters)
    except TypeError:
        raise ParameterError(f"clusters must be capacities, got {clusters!r}") from None
    if not caps:
        raise ParameterError("clusters must name at least one cluster")
    out = []
    for k, c in enumerate(caps):
        if isinstance(c, bool) or not isinstance(c, int | np.integer):
            raise ParameterError(f"capacity of cluster {k} must be an integer, got {c!r}")
        if c < 0:
            raise ParameterError(f"capacity of cluster {k} must be >= 0, got {c}")
        out.append(int(c))
    if sum(out) < 1:
        raise ParameterError(f"the grid must have at least one processor, got {tuple(out)}")
    return tuple(out)


def check_tasks(tasks: Sequence[GridTask], clusters: Iterable[int]) -> tuple[int, ...]:
    """Check that every option of every task fits its grid; return the validated clusters.

    Parameters
    ----------
    tasks : sequence of GridTask
        The stream.
    clusters : iterable of int, shape (K,)
        Processors per cluster.

    Returns
    -------
    tuple of int
        The cluster capacities.

    Raises
    ------
    ParameterError
        Duplicate task ids, an option naming another number of clusters, or an option larger
        than its cluster's capacity.
    """
    caps = check_clusters(clusters)
    cap = np.asarray(caps, dtype=np.int64)
    seen: set[int] = set()
    for t in tasks:
        if not isinstance(t, GridTask):
            raise ParameterError(f"tasks must be GridTask objects, got {type(t).__name__}")
        if t.id in seen:
            raise ParameterError(f"task id {t.id!r} appears twice")
        seen.add(t.id)
        if t.demand.shape[1] != len(caps):
            raise ParameterError(
                f"task {t.id!r}: options name {t.demand.shape[1]} clusters, the grid has "
                f"{len(caps)}"
            )
        over = t.demand > cap
        if over.any():
            j, k = (int(x) for x in np.argwhere(over)[0])
            raise ParameterError(
                f"task {t.id!r}: option {j} needs {t.demand[j, k]} processors on cluster {k}, "
                f"which has {caps[k]}"
            )
    return caps


def clusters_from_owners(node_counts: Iterable) -> tuple[int, ...]:
    """One cluster per resource owner, its capacity the owner's node count.

    Parameters
    ----------
    node_counts : iterable of int or of owners
        Node counts, or objects with a ``nodes`` sequence (such as
        :class:`~vosim.agents.owner.ResourceOwnerAgent`, e.g. ``VOModel(...).owners``).

    Returns
    -------
    tuple of int, shape (K,)

    Raises
    ------
    ParameterError
        As :func:`check_clusters`.

    Examples
    --------
    >>> clusters_from_owners([4, 8, 16, 32])
    (4, 8, 16, 32)
    """
    counts = [len(o.nodes) if hasattr(o, "nodes") else o for o in node_counts]
    return check_clusters(counts)


def make_options(
    processors: int,
    length: float,
    credit: float,
    clusters: Sequence[int] = DEFAULT_CLUSTERS,
    *,
    max_options: int = MAX_OPTIONS,
    split_penalty: float = SPLIT_PENALTY,
    half_factor: float = HALF_FACTOR,
) -> tuple[TaskOption, ...]:
    """Options of a task needing ``processors`` for ``length`` hours (rules in the module doc).

    Parameters
    ----------
    processors : int
        ``p``, processors of the reference option (``1 <= p <=`` largest cluster).
    length : float
        ``N``, hours on the reference option (``> 0``).
    credit : float
        Base credit ``v`` of the reference option (``>= 0``).
    clusters : sequence of int, shape (K,)
        Cluster capacities.
    max_options : int, default 4
        At most this many options (``>= 1``).
    split_penalty : float, default 1.1
        Length factor of the option split over two clusters (``>= 1``).
    half_factor : float, default 2.0
        Length factor of running on half the processors (``> 0``).

    Returns
    -------
    tuple of TaskOption
        The reference option first.

    Raises
    ------
    ParameterError
        ``p`` larger than every cluster, or as
        :func:`~vosim.policies.knapsack_rules.option_layouts`.

    References
    ----------
    The slides' rules, :func:`~vosim.policies.knapsack_rules.option_layouts` and
    :func:`~vosim.policies.knapsack_rules.option_credit`.

    Examples
    --------
    >>> for o in make_options(8, 1.0, 10.0):
    ...     print(o.processors, round(o.length, 2), round(o.credit, 2))
    (0, 8, 0, 0) 1.0 10.0
    (4, 4, 0, 0) 1.1 9.0
    (4, 0, 0, 0) 2.0 4.67
    (0, 0, 0, 8) 1.0 10.0
    """
    caps = check_clusters(clusters)
    layouts = option_layouts(
        processors,
        caps,
        max_options=max_options,
        split_penalty=split_penalty,
        half_factor=half_factor,
    )
    if not layouts or layouts[0].kind != "reference":
        raise ParameterError(
            f"a task needing {int(processors)} processors is larger than any cluster "
            f"(largest {max(caps)})"
        )
    options = []
    for layout in layouts:
        t = float(length) * layout.factor
        options.append(TaskOption(layout.processors, t, option_credit(credit, length, t)))
    return tuple(options)


def _check_rng(rng) -> np.random.Generator:
    if not isinstance(rng, np.random.Generator):
        raise ParameterError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
    return rng


def _check_credit_range(credit_range) -> tuple[float, float]:
    lo, hi = (float(x) for x in credit_range)
    if not (math.isfinite(lo) and math.isfinite(hi) and 0 <= lo <= hi):
        raise ParameterError(f"credit_range must be 0 <= low <= high, got {credit_range!r}")
    return lo, hi


def poisson_tasks(
    rng: np.random.Generator,
    clusters: Sequence[int] = DEFAULT_CLUSTERS,
    tasks: int = 2000,
    mean_interarrival: float = 0.64,
    *,
    long_fraction: float = 0.25,
    short_median: float = 1.0,
    long_median: float = 8.0,
    sigma: float = 0.5,
    max_processors: int | None = None,
    credit_range: tuple[float, float] = (1.0, 10.0),
    max_options: int = MAX_OPTIONS,
    split_penalty: float = SPLIT_PENALTY,
    half_factor: float = HALF_FACTOR,
) -> list[GridTask]:
    """The slides' synthetic stream: Poisson arrivals, bimodal demand, varied width and credit.

    Task ``i`` (ids ``0 .. tasks-1``) arrives after an exponential gap of mean
    ``mean_interarrival`` hours (the first gap counts from 0). Its reference length ``N_i`` is
    lognormal with median ``long_median`` (probability ``long_fraction``) or ``short_median``
    hours, both with log-standard deviation ``sigma``; its processors ``p`` are ``2**e`` with
    ``e`` uniform in ``0 .. floor(log2(max_processors))``; its base credit is uniform in
    ``credit_range``. Options follow :func:`make_options`. With the defaults the mean demand
    is about 3.1 hours on 10.5 processors, which offers the 60-processor grid a load of about
    0.85 at ``mean_interarrival = 0.64``.

    Parameters
    ----------
    rng : numpy.random.Generator
        Source of randomness (the draws are vectorised in a fixed order).
    clusters : sequence of int, shape (K,), default (4, 8, 16, 32)
        Cluster capacities.
    tasks : int, default 2000
        Number of tasks (``>= 1``).
    mean_interarrival : float, default 0.64
        ``lambda``, mean time between arrivals, hours (``> 0``).
    long_fraction : float, default 0.25
        Probability of a long task, in ``[0, 1]``.
    short_median, long_median : float, default 1.0 and 8.0
        Medians of the two lognormal modes, hours (``> 0``).
    sigma : float, default 0.5
        Log-standard deviation of both modes (``>= 0``).
    max_processors : int, optional
        Widest task; defaults to the largest cluster (it may not exceed it).
    credit_range : (float, float), default (1.0, 10.0)
        Bounds of the uniform base credit.
    max_options, split_penalty, half_factor
        Passed to :func:`make_options`.

    Returns
    -------
    list of GridTask
        In arrival order.

    Raises
    ------
    ParameterError
        ``mean_interarrival <= 0``, ``tasks < 1``, a negative capacity, ``max_processors``
        larger than any cluster, or another parameter out of range.

    References
    ----------
    Knapsack Grid, "Grid and Task Model": "Task sequences are poisson with mean interarrival
    time lambda; computation demand is bimodal; varied number of processors and credit-value;
    task sequences of length 2000."

    Examples
    --------
    >>> for t in poisson_tasks(np.random.default_rng(1), tasks=3):
    ...     print(t.id, round(t.submit, 2), t.options[0].total, round(t.reference_length, 2),
    ...           round(t.credit, 2), len(t.options))
    0 0.69 32 1.34 3.97 3
    1 0.88 16 1.2 8.1 4
    2 4.32 32 1.16 3.73 3
    """
    rng = _check_rng(rng)
    caps = check_clusters(clusters)
    if isinstance(tasks, bool) or not isinstance(tasks, int | np.integer) or tasks < 1:
        raise ParameterError(f"tasks must be an integer >= 1, got {tasks!r}")
    lam = float(mean_interarrival)
    if not (math.isfinite(lam) and lam > 0):
        raise ParameterError(f"mean_interarrival (lambda) must be > 0 hours, got {lam!r}")
    if not 0 <= long_fraction <= 1:
        raise ParameterError(f"long_fraction must be in [0, 1], got {long_fraction!r}")
    for name, value in (("short_median", short_median), ("long_median", long_median)):
        if not (math.isfinite(value) and value > 0):
            raise ParameterError(f"{name} must be > 0 hours, got {value!r}")
    if not (math.isfinite(sigma) and sigma >= 0):
        raise ParameterError(f"sigma must be >= 0, got {sigma!r}")
    widest = max(caps)
    if max_processors is None:
        max_processors = widest
    if int(max_processors) != max_processors or max_processors < 1:
        raise ParameterError(f"max_processors must be an integer >= 1, got {max_processors!r}")
    if max_processors > widest:
        raise ParameterError(
            f"max_processors={max_processors} is larger than any cluster (largest {widest})"
        )
    lo, hi = _check_credit_range(credit_range)
    n = int(tasks)
    submit = np.cumsum(rng.exponential(lam, n))
    long = rng.random(n) < long_fraction
    median = np.where(long, long_median, short_median)
    length = median * np.exp(sigma * rng.standard_normal(n))
    e_max = math.floor(math.log2(max_processors))
    procs = 2 ** rng.integers(0, e_max + 1, n)
    credit = rng.uniform(lo, hi, n)
    return [
        GridTask(
            i,
            float(submit[i]),
            make_options(
                int(procs[i]),
                float(length[i]),
                float(credit[i]),
                caps,
                max_options=max_options,
                split_penalty=split_penalty,
                half_factor=half_factor,
            ),
        )
        for i in range(n)
    ]


def swf_tasks(
    frame: pd.DataFrame,
    clusters: Sequence[int] = DEFAULT_CLUSTERS,
    *,
    rng: np.random.Generator | None = None,
    credit_range: tuple[float, float] = (1.0, 10.0),
    max_options: int = MAX_OPTIONS,
    split_penalty: float = SPLIT_PENALTY,
    half_factor: float = HALF_FACTOR,
) -> TraceTasks:
    """Tasks from a Standard Workload Format trace (as read by :func:`~vosim.market.swf.read_swf`).

    Each job becomes a task with id ``job_id``, submit time ``(submit_time - t0) / 3600`` hours
    (``t0`` the first kept job's submit time), reference length ``run_time / 3600`` hours (the
    actual run time) and ``p`` = ``requested_processors`` (``allocated_processors`` when the
    request is unknown); its options follow :func:`make_options`. Jobs with no run time
    (``<= 0``), no processor count, or ``p`` larger than the largest cluster (the reference
    option runs on one cluster) are dropped and counted.

    Parameters
    ----------
    frame : pandas.DataFrame
        Columns ``job_id``, ``submit_time``, ``run_time``, ``requested_processors``,
        ``allocated_processors`` (seconds; ``-1`` unknown).
    clusters : sequence of int, shape (K,), default (4, 8, 16, 32)
        Cluster capacities.
    rng : numpy.random.Generator, optional
        Draws each task's base credit uniformly from ``credit_range``; without it every base
        credit is 1 (traces carry no credit).
    credit_range : (float, float), default (1.0, 10.0)
        Bounds of the uniform base credit (with ``rng``).
    max_options, split_penalty, half_factor
        Passed to :func:`make_options`.

    Returns
    -------
    TraceTasks
        ``(tasks, dropped)``.

    Raises
    ------
    ParameterError
        A missing column, or bad clusters or parameters.

    Examples
    --------
    >>> from vosim.data import trace_path
    >>> from vosim.market.swf import read_swf
    >>> tasks, dropped = swf_tasks(read_swf(trace_path("NASA-iPSC-1993-3.1-cln"), max_jobs=100))
    >>> len(tasks), dropped
    (95, {'no_run_time': 0, 'no_processors': 0, 'too_wide': 5})
    """
    caps = check_clusters(clusters)
    needed = ["job_id", "submit_time", "run_time", "requested_processors", "allocated_processors"]
    missing = [c for c in needed if c not in frame.columns]
    if missing:
        raise ParameterError(f"frame lacks the SWF columns {missing}")
    if rng is not None:
        rng = _check_rng(rng)
    lo, hi = _check_credit_range(credit_range)
    run = frame["run_time"].to_numpy(dtype=float)
    req = frame["requested_processors"].to_numpy(dtype=np.int64)
    alloc = frame["allocated_processors"].to_numpy(dtype=np.int64)
    procs = np.where(req > 0, req, alloc)
    no_run = ~(run > 0)
    no_procs = ~no_run & (procs < 1)
    too_wide = ~no_run & ~no_procs & (procs > max(caps))
    keep = ~(no_run | no_procs | too_wide)
    dropped = {
        "no_run_time": int(no_run.sum()),
        "no_processors": int(no_procs.sum()),
        "too_wide": int(too_wide.sum()),
    }
    idx = np.flatnonzero(keep)
    if idx.size == 0:
        return TraceTasks([], dropped)
    submit_s = frame["submit_time"].to_numpy(dtype=float)[idx]
    submit_h = (submit_s - submit_s.min()) / _SECONDS_PER_HOUR
    credits = rng.uniform(lo, hi, idx.size) if rng is not None else np.ones(idx.size)
    ids = frame["job_id"].to_numpy()[idx]
    tasks = [
        GridTask(
            int(ids[n]),
            float(submit_h[n]),
            make_options(
                int(procs[i]),
                run[i] / _SECONDS_PER_HOUR,
                float(credits[n]),
                caps,
                max_options=max_options,
                split_penalty=split_penalty,
                half_factor=half_factor,
            ),
        )
        for n, i in enumerate(idx)
    ]
    return TraceTasks(tasks, dropped)
