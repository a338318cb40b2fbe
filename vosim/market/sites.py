"""The grid's sites taken from an SWF trace that records partitions (one resource owner a site)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from vosim.errors import ParameterError
from vosim.market.swf import header_int

__all__ = ["RULES", "Sites", "trace_sites"]

#: Capacity rules of :func:`trace_sites`: name -> what a site's share of ``MaxProcs`` follows.
RULES: dict[str, str] = {
    "peak": "peak concurrency, every job started at its submission (processors)",
    "work": "processor time, processors x run time (processor-seconds)",
}


@dataclass(frozen=True, eq=False)
class Sites:
    """The sites of a multi-site trace (SWF partitions) and the processors each one holds.

    One row a site, in order of partition number; position ``i`` (``0..S-1``) is the site's
    index, the resource owner it becomes under ``--owners trace``. Build with
    :func:`trace_sites`. The arrays are stored read-only.

    Parameters
    ----------
    partition : numpy.ndarray of int64, shape (S,)
        SWF partition numbers (field 16), strictly increasing, each >= 1.
    name : tuple of str, length S
        Site names from the header's ``Partition: N name`` lines; ``"partition N"`` for a
        partition the header does not name.
    jobs : numpy.ndarray of int64, shape (S,)
        Trace jobs run at the site (>= 0).
    processor_time : numpy.ndarray of float64, shape (S,)
        Work done at the site: sum of processors x run time over its jobs (processor-seconds,
        >= 0); a job of unknown run time or processor count adds 0.
    peak : numpy.ndarray of int64, shape (S,)
        Peak concurrency at the site (processors, >= 0): every job started at its submission
        and run for its run time, the processors of the jobs running at once summed.
    capacity : numpy.ndarray of int64, shape (S,)
        Processors the site holds in the grid (each >= 1); ``capacity.sum()`` is the grid's
        ``MaxProcs``.

    Raises
    ------
    ParameterError
        Arrays of different lengths, partitions not strictly increasing or below 1, negative
        counts or a capacity below 1.

    References
    ----------
    Feitelson, Tsafrir, Krakov, "Experience with using the Parallel Workloads Archive",
    J. Parallel Distrib. Comput. 74(10), 2014 (SWF field 16, the partition).

    Examples
    --------
    >>> import numpy as np
    >>> sites = Sites(
    ...     partition=np.array([3, 7]), name=("a.org", "b.net"), jobs=np.array([2, 3]),
    ...     processor_time=np.array([60.0, 250.0]), peak=np.array([2, 3]),
    ...     capacity=np.array([4, 6]),
    ... )
    >>> len(sites), sites.max_procs
    (2, 10)
    >>> sites.owner_of(np.array([7, 3, 7])).tolist()
    [1, 0, 1]
    """

    partition: np.ndarray
    name: tuple[str, ...]
    jobs: np.ndarray
    processor_time: np.ndarray
    peak: np.ndarray
    capacity: np.ndarray

    def __post_init__(self) -> None:
        dtypes = {
            "partition": np.int64,
            "jobs": np.int64,
            "processor_time": np.float64,
            "peak": np.int64,
            "capacity": np.int64,
        }
        for field, dtype in dtypes.items():
            array = np.array(getattr(self, field), dtype=dtype)  # a copy, made read-only
            if array.ndim != 1:
                raise ParameterError(f"Sites.{field} must be 1-D, got shape {array.shape}")
            array.flags.writeable = False
            object.__setattr__(self, field, array)
        object.__setattr__(self, "name", tuple(str(n) for n in self.name))
        size = self.partition.size
        lengths = {f: getattr(self, f).size for f in dtypes} | {"name": len(self.name)}
        if any(n != size for n in lengths.values()):
            raise ParameterError(f"Sites arrays must have one length, got {lengths}")
        if size and (self.partition[0] < 1 or np.any(np.diff(self.partition) <= 0)):
            raise ParameterError(
                "Sites.partition must be strictly increasing partition numbers >= 1, got "
                f"{self.partition.tolist()[:10]}"
            )
        for field in ("jobs", "processor_time", "peak"):
            if np.any(getattr(self, field) < 0):
                raise ParameterError(f"Sites.{field} must be >= 0")
        if np.any(self.capacity < 1):
            bad = int(np.argmax(self.capacity < 1))
            raise ParameterError(
                f"Sites.capacity must be >= 1 processor a site, got {self.capacity[bad]} at "
                f"partition {self.partition[bad]}"
            )

    def __len__(self) -> int:
        """The number of sites ``S``."""
        return int(self.partition.size)

    @property
    def max_procs(self) -> int:
        """Processors of the whole grid, ``capacity.sum()``."""
        return int(self.capacity.sum())

    def owner_of(self, partition_ids: np.ndarray) -> np.ndarray:
        """Map SWF partition numbers to site positions (resource owner indices).

        Parameters
        ----------
        partition_ids : numpy.ndarray of int, any shape
            Partition numbers, e.g. ``frame["partition_id"].to_numpy()``.

        Returns
        -------
        numpy.ndarray of int64, same shape
            Position ``0..S-1`` in :attr:`partition` of each partition number.

        Raises
        ------
        ParameterError
            A partition number that is not one of the sites (the message names the first such
            number and how many of ``partition_ids`` are unknown), e.g. ``-1`` for a job of
            unknown partition.

        Examples
        --------
        >>> sites = Sites(np.array([3, 7]), ("a", "b"), np.array([1, 1]),
        ...               np.array([1.0, 1.0]), np.array([1, 1]), np.array([1, 1]))
        >>> sites.owner_of(np.array([[3], [7]])).tolist()
        [[0], [1]]
        >>> sites.owner_of(np.array([3, 5]))
        Traceback (most recent call last):
        ...
        vosim.errors.ParameterError: partition 5 is not a site (1 unknown; sites: 3, 7)
        """
        ids = np.asarray(partition_ids)
        if ids.size and not np.issubdtype(ids.dtype, np.integer):
            ids = ids.astype(np.float64)
            whole = np.isfinite(ids) & (np.rint(ids) == ids)
            if not whole.all():
                bad = ids.flat[int(np.argmin(whole.ravel()))].item()
                raise ParameterError(f"partition {bad!r} is not a site (not an integer)")
        ids = ids.astype(np.int64)
        pos = np.searchsorted(self.partition, ids)
        found = np.zeros(ids.shape, dtype=bool)
        inside = pos < self.partition.size
        found[inside] = self.partition[pos[inside]] == ids[inside]
        if not found.all():
            unknown = ids[~found]
            shown = ", ".join(str(p) for p in self.partition[:10].tolist())
            more = ", ..." if self.partition.size > 10 else ""
            raise ParameterError(
                f"partition {unknown.flat[0]} is not a site ({unknown.size} unknown; "
                f"sites: {shown}{more})"
            )
        return pos.astype(np.int64)


def trace_sites(
    frame: pd.DataFrame,
    max_procs: int | None = None,
    rule: str = "peak",
    *,
    name: str | None = None,
) -> Sites:
    """The grid's sites in an SWF trace that records partitions, each with its processors.

    Every partition number ``>= 1`` that a job records (SWF field 16) or the header names on a
    ``Partition: N name`` line becomes a site; ``--owners trace`` makes each one resource
    owner. Jobs of unknown partition (``<= 0``) belong to no site and are not counted.

    A site's capacity is its share of ``MaxProcs``, estimated from the trace by ``rule``:

    * ``"peak"`` (default): the site's peak concurrency, every job started at its submission
      and run for its run time (SWF fields 2 and 4), the processors of the jobs running at
      once summed (a job ending at the time another starts has freed its processors);
    * ``"work"``: the site's processor time, processors x run time summed over its jobs.

    The shares are scaled to sum to ``MaxProcs`` and rounded by the largest-remainder
    (Hamilton) method with every site at least 1 processor: a site whose exact quota
    ``MaxProcs * w_i / sum(w)`` is below 1 gets 1, the others share what is left in
    proportion to ``w`` (repeated until every remaining quota is >= 1); each remaining site
    gets the integer part of its quota, and the processors still unassigned go one each to
    the largest fractional parts (ties: lower partition number). A site never gets more than
    the ceiling of its exact quota (more than 1 if that is below 1); where no site's quota is
    below 1, each gets the floor or the ceiling of its quota. If every weight is 0 the sites
    share ``MaxProcs`` equally.

    Why peak is the default: a trace such as LCG-2005-1 records no waits (field 3 is ``-1``
    for every job), so it holds no schedule to read site sizes from, only where and when jobs
    were submitted and how long they ran. Peak concurrency with every job started at
    submission is the capacity a site needs to run its own jobs without waiting, which is
    what a trace that records no waits shows. Shares of processor time would give a site
    whose work comes in bursts of short jobs too few processors to run a burst at once (its
    jobs would queue in the simulation although the trace shows none waiting), and a site of
    long, steady jobs more than it ever used.

    Parameters
    ----------
    frame : pandas.DataFrame
        A trace as :func:`vosim.market.swf.read_swf` returns it. Columns used:
        ``partition_id``, ``submit_time`` (s), ``run_time`` (s, ``-1`` unknown) and
        ``allocated_processors`` (else ``requested_processors`` when that column exists and
        the allocated count is unknown); ``frame.attrs["header"]`` for ``MaxProcs`` and the
        ``Partition`` lines, ``frame.attrs["path"]`` to name the trace in messages.
    max_procs : int, optional
        Processors of the grid (>= the number of sites). If given, it is used instead of the
        header's ``MaxProcs`` (to build a grid of another size); if not, the header's
        ``MaxProcs`` is used.
    rule : {"peak", "work"}
        What a site's share follows (see above and :data:`RULES`).
    name : str, optional
        The trace's name in messages; default: the file name of ``frame.attrs["path"]``
        without ``.swf``/``.gz``.

    Returns
    -------
    Sites
        ``S`` sites in order of partition number, capacities summing to ``max_procs``.

    Raises
    ------
    ParameterError
        The trace records no partition (no job has a ``partition_id`` >= 1, or the column is
        missing); no ``max_procs`` and no header ``MaxProcs``; ``max_procs`` below 1 or below
        the number of sites; an unknown ``rule``. Each message is one line naming the trace.

    Notes
    -----
    Peak concurrency is computed for all sites at once: the events ``+p`` at ``submit`` and
    ``-p`` at ``submit + run`` are sorted by (site, time, ends before starts) and summed
    cumulatively; each site's events add up to 0, so one cumulative sum gives every site's
    level and ``np.maximum.reduceat`` its peak, ``O(J log J)`` for ``J`` jobs. A job of unknown
    (negative) run time adds nothing to either weight; one of run time 0 adds nothing to the
    peak.

    References
    ----------
    Balinski, Young, "Fair Representation: Meeting the Ideal of One Man, One Vote", 2nd ed.,
    Brookings Institution Press, 2001 (Hamilton's largest-remainder method).
    Feitelson, Tsafrir, Krakov, "Experience with using the Parallel Workloads Archive",
    J. Parallel Distrib. Comput. 74(10), 2014 (SWF; the LCG-2005-1 log).

    Examples
    --------
    Two sites: partition 3 ran a 2-processor job and one of unknown run time, partition 7
    three serial jobs, two of them at once from time 0 and a third from 10 to 60.

    >>> import pandas as pd
    >>> frame = pd.DataFrame({
    ...     "submit_time": [0, 0, 10, 0, 5],
    ...     "run_time": [100, 100, 50, 30, -1],
    ...     "allocated_processors": [1, 1, 1, 2, 1],
    ...     "partition_id": [7, 7, 7, 3, 3],
    ... })
    >>> frame.attrs["header"] = {"MaxProcs": "10", "Partition": ["3 ce.example.org"]}
    >>> sites = trace_sites(frame)
    >>> sites.name, sites.jobs.tolist(), sites.peak.tolist()
    (('ce.example.org', 'partition 7'), [2, 3], [2, 3])
    >>> sites.processor_time.tolist(), sites.capacity.tolist()
    ([60.0, 250.0], [4, 6])
    >>> trace_sites(frame, rule="work").capacity.tolist()  # quotas 1.94, 8.06
    [2, 8]
    >>> trace_sites(frame, max_procs=100).capacity.tolist()
    [40, 60]
    """
    trace = _trace_name(frame, name)
    if rule not in RULES:
        raise ParameterError(
            f"rule must be one of {', '.join(repr(r) for r in RULES)}, got {rule!r} ({trace})"
        )
    header = frame.attrs.get("header", {}) or {}
    named = _header_partitions(header)
    if "partition_id" in frame.columns:
        part = frame["partition_id"].to_numpy(dtype=np.int64)
    else:
        part = np.full(len(frame), -1, dtype=np.int64)
    known = part >= 1
    if not known.any():
        said = f" (its header names {len(named)} partition(s), but no job records one)"
        raise ParameterError(
            "owners='trace' needs a trace that records partitions (SWF field 16); "
            f"{trace} records none{said if named else ''}"
        )
    partition = np.union1d(part[known], np.fromiter(named, dtype=np.int64, count=len(named)))
    size = partition.size
    if max_procs is None:
        max_procs = header_int(header, "MaxProcs")
        if max_procs is None:
            raise ParameterError(
                f"{trace} has no MaxProcs header line: pass max_procs, the grid's processors "
                f"(>= its {size} sites)"
            )
    elif isinstance(max_procs, bool) or not isinstance(max_procs, int | np.integer):
        raise ParameterError(f"max_procs must be an integer, got {max_procs!r} ({trace})")
    max_procs = int(max_procs)
    if max_procs < size:
        raise ParameterError(
            f"MaxProcs {max_procs} is smaller than the {size} sites of {trace}: every site "
            "needs at least 1 processor"
        )

    site = np.searchsorted(partition, part[known])
    submit = frame["submit_time"].to_numpy(dtype=np.int64)[known]
    run = frame["run_time"].to_numpy(dtype=np.int64)[known]
    procs = _processors(frame)[known]
    jobs = np.bincount(site, minlength=size).astype(np.int64)
    work = np.bincount(
        site, weights=procs.astype(np.float64) * np.maximum(run, 0), minlength=size
    ).astype(np.float64)
    peak = _peak_concurrency(site, submit, run, procs, size)
    weights = peak.astype(np.float64) if rule == "peak" else work
    capacity = _largest_remainder(weights, max_procs)
    return Sites(
        partition=partition,
        name=tuple(named.get(int(p)) or f"partition {p}" for p in partition),
        jobs=jobs,
        processor_time=work,
        peak=peak,
        capacity=capacity,
    )


def _trace_name(frame: pd.DataFrame, name: str | None) -> str:
    """The trace's name for messages: ``name``, else its file name without ``.swf``/``.gz``."""
    if name:
        return name
    path = frame.attrs.get("path")
    if not path:
        return "the trace"
    stem = Path(str(path)).name
    for suffix in (".gz", ".swf"):
        stem = stem.removesuffix(suffix)
    return stem or str(path)


def _header_partitions(header: dict[str, str | list[str]]) -> dict[int, str]:
    """Partition number -> site name from the header's ``Partition: N name`` lines.

    A line whose first word is not an integer >= 1 is ignored (free text); the first line
    naming a number wins; a number with no name maps to ``""``.
    """
    lines = header.get("Partition", [])
    if isinstance(lines, str):
        lines = [lines]
    named: dict[int, str] = {}
    for line in lines:
        number, _, rest = str(line).strip().partition(" ")
        try:
            key = int(number)
        except ValueError:
            continue
        if key >= 1 and key not in named:
            named[key] = rest.strip()
    return named


def _processors(frame: pd.DataFrame) -> np.ndarray:
    """Processors of each job, shape (J,): allocated, else requested, else 0 (unknown)."""
    procs = frame["allocated_processors"].to_numpy(dtype=np.int64)
    if "requested_processors" in frame.columns:
        requested = frame["requested_processors"].to_numpy(dtype=np.int64)
        procs = np.where(procs >= 1, procs, requested)
    return np.maximum(procs, 0)


def _peak_concurrency(
    site: np.ndarray, submit: np.ndarray, run: np.ndarray, procs: np.ndarray, size: int
) -> np.ndarray:
    """Peak processors in use at each of ``size`` sites, every job started at submission.

    ``site``, ``submit`` (s), ``run`` (s), ``procs``: shape (J,). Jobs of run time <= 0 or no
    processors are left out; at equal times ends come before starts. Returns int64, (size,).
    """
    keep = (run > 0) & (procs > 0)
    site, submit, run, procs = site[keep], submit[keep], run[keep], procs[keep]
    peak = np.zeros(size, dtype=np.int64)
    if site.size == 0:
        return peak
    times = np.concatenate([submit, submit + run])
    delta = np.concatenate([procs, -procs])
    where = np.concatenate([site, site])
    order = np.lexsort((delta > 0, times, where))  # last key first: site, time, ends first
    level = np.cumsum(delta[order])  # each site's deltas sum to 0: its level within its block
    where = where[order]
    starts = np.flatnonzero(np.r_[True, where[1:] != where[:-1]])
    peak[where[starts]] = np.maximum.reduceat(level, starts)
    return peak


def _largest_remainder(weights: np.ndarray, total: int) -> np.ndarray:
    """Apportion ``total`` integers over ``weights`` (shape (S,), >= 0), each at least 1.

    Hamilton's method with a floor of 1: sites whose quota is below 1 get 1 and leave the
    apportionment, repeatedly; the rest get the floor of their quota and the remainders go
    to the largest fractional parts (ties: lower index). Needs ``total >= S``.
    """
    size = weights.size
    capacity = np.ones(size, dtype=np.int64)
    if size == 0:
        return capacity
    weights = np.asarray(weights, dtype=np.float64)
    if not weights.sum() > 0:
        weights = np.ones(size)
    free = np.ones(size, dtype=bool)  # sites still in the apportionment
    while True:
        left = total - int((~free).sum())
        quota = np.zeros(size)
        quota[free] = left * weights[free] / weights[free].sum()
        small = free & (quota < 1)
        if not small.any():
            break
        free &= ~small
    base = np.floor(quota[free]).astype(np.int64)
    rest = left - int(base.sum())
    fraction = quota[free] - base
    extra = np.zeros(base.size, dtype=np.int64)
    extra[np.argsort(-fraction, kind="stable")[:rest]] = 1
    capacity[free] = base + extra
    return capacity
