"""Clusters, tasks with several allocation options, and the task streams of the experiment.

Part of the ``knapsack-grid`` experiments' simulator
(:mod:`vosim.runs.experiments.knapsack_grid_simulator`). A grid is a tuple of cluster
capacities (processors per cluster, homogeneous processors), by default the slides' four
clusters of 4, 8, 16 and 32 processors (:data:`DEFAULT_CLUSTERS`). A :class:`GridTask` offers
one or more options (:class:`TaskOption`); option ``j`` of task ``i`` uses ``processors[k]``
processors of cluster ``k`` for ``T_ij`` hours (its computation length) and carries the credit
value ``v_ij`` the user pays for it. Option 0 is the *reference option*: its length is the
task's reference length ``N_i`` and its credit the task's credit.

Options of a task (:func:`make_options`) are the slides' layouts and credit values, shared
with the VO's knapsack policies: :func:`vosim.policies.knapsack_rules.option_layouts` (at most
4: ``p`` on the smallest cluster that has ``p``; ``p/2`` on each of the two smallest clusters
that have ``p/2``, 1.1 times as long; ``p // 2`` processors, the work conserved; ``p`` on each
other cluster) and :func:`vosim.policies.knapsack_rules.option_credit` (``v_im / v_in =
(T_in / T_im) ** 1.1``).

Streams. :func:`poisson_tasks` draws the slides' synthetic stream: Poisson arrivals with mean
inter-arrival time ``lambda`` hours, a bimodal computation demand (a mixture of a short and a
long lognormal), processors a power of two up to the largest cluster, and a uniform base
credit. :func:`swf_tasks` turns a Standard Workload Format trace into tasks.

References
----------
Knapsack Grid slides, "Tasks, Options, and QoS Metrics", "Two Tasks and Their Options",
"Allocation Policy 1: Pure Credit-Value-Driven" and "Grid and Task Model".
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from vosim.errors import ParameterError
from vosim.policies.knapsack_rules import option_credit, option_layouts

__all__ = [
    "DEFAULT_CLUSTERS",
    "TaskOption",
    "GridTask",
    "check_clusters",
    "check_tasks",
    "make_options",
    "poisson_tasks",
    "swf_tasks",
]

#: Processors of the slides' four homogeneous clusters ("Grid and Task Model").
DEFAULT_CLUSTERS: tuple[int, ...] = (4, 8, 16, 32)
#: The synthetic stream's demand: probability of a long task, the medians (hours) of the short
#: and long lognormal modes and their log-standard deviation (:func:`poisson_tasks`).
LONG_FRACTION = 0.25
SHORT_MEDIAN = 1.0
LONG_MEDIAN = 8.0
SIGMA = 0.5
#: Bounds of the uniform base credit of a task (traces carry no credit).
CREDIT_RANGE = (1.0, 10.0)
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
        The options; all name the same number of clusters ``K``. Option 0 is the reference
        option: its length is ``N_i`` and its credit is the task's credit.

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
        No option, options of different cluster counts, or a bad ``submit``.

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
        return self.options[0].length

    @property
    def credit(self) -> float:
        """The credit value of the reference option."""
        return self.options[0].credit


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


def make_options(
    processors: int, length: float, credit: float, clusters: Sequence[int] = DEFAULT_CLUSTERS
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

    Returns
    -------
    tuple of TaskOption
        At most 4, the reference option first.

    Raises
    ------
    ParameterError
        ``p`` larger than every cluster, or as
        :func:`~vosim.policies.knapsack_rules.option_layouts`.

    References
    ----------
    Knapsack Grid slides, "Two Tasks and Their Options" and "Allocation Policy 1", as
    :func:`~vosim.policies.knapsack_rules.option_layouts` and
    :func:`~vosim.policies.knapsack_rules.option_credit` state them.

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
    layouts = option_layouts(processors, caps)
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


def poisson_tasks(
    rng: np.random.Generator,
    clusters: Sequence[int] = DEFAULT_CLUSTERS,
    tasks: int = 2000,
    mean_interarrival: float = 0.64,
) -> list[GridTask]:
    """The slides' synthetic stream: Poisson arrivals, bimodal demand, varied width and credit.

    Task ``i`` (ids ``0 .. tasks-1``) arrives after an exponential gap of mean
    ``mean_interarrival`` hours (the first gap counts from 0). Its reference length ``N_i`` is
    lognormal with median :data:`LONG_MEDIAN` (8 h, probability :data:`LONG_FRACTION`, 0.25)
    or :data:`SHORT_MEDIAN` (1 h), both with log-standard deviation :data:`SIGMA` (0.5); its
    processors ``p`` are ``2**e`` with ``e`` uniform in ``0 .. floor(log2(largest
    cluster))``; its base credit is uniform in :data:`CREDIT_RANGE` (1 to 10). Options follow
    :func:`make_options`. On the default clusters the mean demand is about 3.1 hours on 10.5
    processors, which offers the 60-processor grid a load of about 0.85 at
    ``mean_interarrival = 0.64``.

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

    Returns
    -------
    list of GridTask
        In arrival order.

    Raises
    ------
    ParameterError
        ``rng`` not a Generator, ``mean_interarrival <= 0``, ``tasks < 1``, or bad clusters.

    References
    ----------
    Knapsack Grid slides, "Grid and Task Model": "Task sequences are poisson with mean
    interarrival time lambda; computation demand is bimodal; varied number of processors and
    credit-value; task sequences of length 2000."

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
    n = int(tasks)
    submit = np.cumsum(rng.exponential(lam, n))
    long = rng.random(n) < LONG_FRACTION
    median = np.where(long, LONG_MEDIAN, SHORT_MEDIAN)
    length = median * np.exp(SIGMA * rng.standard_normal(n))
    e_max = math.floor(math.log2(max(caps)))
    procs = 2 ** rng.integers(0, e_max + 1, n)
    credit = rng.uniform(*CREDIT_RANGE, n)
    return [
        GridTask(
            i,
            float(submit[i]),
            make_options(int(procs[i]), float(length[i]), float(credit[i]), caps),
        )
        for i in range(n)
    ]


def swf_tasks(
    frame: pd.DataFrame,
    clusters: Sequence[int] = DEFAULT_CLUSTERS,
    *,
    rng: np.random.Generator | None = None,
) -> list[GridTask]:
    """Tasks from a Standard Workload Format trace (as read by :func:`~vosim.market.swf.read_swf`).

    Each job becomes a task with id ``job_id``, submit time ``(submit_time - t0) / 3600`` hours
    (``t0`` the first kept job's submit time), reference length ``run_time / 3600`` hours (the
    actual run time) and ``p`` = ``requested_processors`` (``allocated_processors`` when the
    request is unknown); its options follow :func:`make_options`. Jobs with no run time
    (``<= 0``), no processor count, or ``p`` larger than the largest cluster (the reference
    option runs on one cluster) are dropped.

    Parameters
    ----------
    frame : pandas.DataFrame
        Columns ``job_id``, ``submit_time``, ``run_time``, ``requested_processors``,
        ``allocated_processors`` (seconds; ``-1`` unknown).
    clusters : sequence of int, shape (K,), default (4, 8, 16, 32)
        Cluster capacities.
    rng : numpy.random.Generator, optional
        Draws each task's base credit uniformly from :data:`CREDIT_RANGE`; without it every
        base credit is 1 (traces carry no credit).

    Returns
    -------
    list of GridTask
        The kept jobs, in trace order.

    Raises
    ------
    ParameterError
        A missing column, bad clusters, or an ``rng`` that is not a Generator.

    Examples
    --------
    >>> from vosim.data import trace_path
    >>> from vosim.market.swf import read_swf
    >>> len(swf_tasks(read_swf(trace_path("NASA-iPSC-1993-3.1-cln"), max_jobs=100)))
    95
    """
    caps = check_clusters(clusters)
    needed = ["job_id", "submit_time", "run_time", "requested_processors", "allocated_processors"]
    missing = [c for c in needed if c not in frame.columns]
    if missing:
        raise ParameterError(f"frame lacks the SWF columns {missing}")
    if rng is not None:
        rng = _check_rng(rng)
    run = frame["run_time"].to_numpy(dtype=float)
    req = frame["requested_processors"].to_numpy(dtype=np.int64)
    alloc = frame["allocated_processors"].to_numpy(dtype=np.int64)
    procs = np.where(req > 0, req, alloc)
    idx = np.flatnonzero((run > 0) & (procs >= 1) & (procs <= max(caps)))
    if idx.size == 0:
        return []
    submit_s = frame["submit_time"].to_numpy(dtype=float)[idx]
    submit_h = (submit_s - submit_s.min()) / _SECONDS_PER_HOUR
    credits = rng.uniform(*CREDIT_RANGE, idx.size) if rng is not None else np.ones(idx.size)
    ids = frame["job_id"].to_numpy()[idx]
    return [
        GridTask(
            int(ids[n]),
            float(submit_h[n]),
            make_options(int(procs[i]), run[i] / _SECONDS_PER_HOUR, float(credits[n]), caps),
        )
        for n, i in enumerate(idx)
    ]
