"""Jobs of the VO: trace jobs mapped to resource requests, and owners' local job flows."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np
import pandas as pd

from vosim.errors import ParameterError
from vosim.market.nodes import RESOURCE_KINDS
from vosim.market.swf import FIELD_LIMIT

__all__ = [
    "Job",
    "jobs_from_trace",
    "node_counts",
    "offered_load",
    "scale_to_load",
    "LocalJobFlow",
    "HypergeometricLocalLoad",
]


@dataclass(frozen=True, slots=True, eq=False)
class Job:
    """A VO job as the trace gives it: a parallel resource request of one user. Immutable.

    What becomes of it (its state, windows, payments) is kept by the run's job ledger
    (:class:`vosim.agents.ledger.JobLedger`, by ``index``); the request a policy sees, with its
    user's budget ``C`` and criterion, is a :class:`~vosim.core.ResourceRequest` made when it
    is submitted.

    Parameters
    ----------
    job_id : int
        Job number from the trace (SWF field 1).
    user : int
        User id (SWF field 12).
    submit_time : float
        Submission time, model time units (seconds for traces).
    n : int
        Resources of the request, one slot each (0 if the trace gives no processor count):
        processors, or nodes when resources are whole nodes (:func:`node_counts`).
    requested_time : float
        Reservation time ``T`` on a node of the reference performance, model time units.
    run_time : float
        Actual run time on a node of the reference performance, ``<= requested_time`` (the
        truth the execution realises; no policy reads it).
    volume : float
        Computation volume ``V = requested_time * reference_performance``.
    requested_processors : int
        Processors the trace job asked for (field 8, else field 5).
    reason : str
        Why the job cannot run at all (found when it was mapped), else empty.
    index : int
        Position of the job in the model's job list (trace order).
    group : int
        The user's group (SWF field 13; in LCG-2005-1 the experiment's VO), -1 if unknown.
    """

    job_id: int
    user: int
    submit_time: float
    n: int
    requested_time: float
    run_time: float
    volume: float
    requested_processors: int
    reason: str = ""
    index: int = -1
    group: int = -1


def jobs_from_trace(
    trace: pd.DataFrame,
    *,
    domain_nodes: int,
    max_procs: int,
    reference_performance: float,
    max_performance: float,
    scheduling_interval: float,
    resources: str = "nodes",
) -> list[Job]:
    """Map SWF job rows to VO jobs (resource requests), documenting every unusable job.

    The mapping, per row:

    * processors ``p`` = requested processors (field 8), else allocated (field 5);
    * resources ``n`` (slots of the window, :func:`node_counts`): ``n = p`` processors when
      ``resources="processors"``; ``n = ceil(p * domain_nodes / max_procs)`` whole nodes when
      ``resources="nodes"`` (the traced machine's processors spread evenly over the simulated
      domain's nodes);
    * reservation time ``T`` = requested time (field 9), else the run time (field 4); it is the
      time on a node of ``reference_performance``, so ``V = T * reference_performance`` and node
      ``i`` needs ``T_i = V / performance_i``;
    * actual run time = ``min(run time, T)`` (a job is killed at the end of its reservation, as
      a batch system kills it at its walltime); unknown (-1) run time counts as ``T``.

    A job is marked with a ``reason`` (later *rejected*) when ``p`` is unknown, ``T`` is
    unknown or zero, ``n`` exceeds the domain's resources, or ``T_i`` exceeds the scheduling
    interval even on the fastest node.

    Parameters
    ----------
    trace : pandas.DataFrame
        Rows as returned by :func:`vosim.market.swf.read_swf`.
    domain_nodes : int
        Resources of the simulated domain (>= 1): its nodes ``N`` with ``resources="nodes"``,
        its processors with ``resources="processors"``.
    max_procs : int
        Processors of the traced machine (header ``MaxProcs``, >= 1; used with
        ``resources="nodes"``).
    reference_performance : float
        Performance at which the trace's times hold (> 0).
    max_performance : float
        Performance of the fastest node in the domain (> 0).
    scheduling_interval : float
        Length ``L`` of the metascheduler's scheduling interval, model time units (> 0).
    resources : str
        What a slot is on, one of :data:`~vosim.market.nodes.RESOURCE_KINDS` (default
        ``"nodes"``; :class:`~vosim.model.VOModel` passes its own, default processors).

    Returns
    -------
    list of Job
        One per row, in trace order (``index`` its position); ``Job.n`` counts resources.

    Raises
    ------
    ParameterError
        A non-positive size or performance, or an unknown ``resources``.
    """
    for name, value in [
        ("domain_nodes", domain_nodes),
        ("max_procs", max_procs),
        ("reference_performance", reference_performance),
        ("max_performance", max_performance),
        ("scheduling_interval", scheduling_interval),
    ]:
        if not value > 0:
            raise ParameterError(f"{name} must be > 0, got {value}")
    procs, nodes = node_counts(trace, domain_nodes, max_procs, resources)
    unit = "processors" if resources == "processors" else "nodes"
    req_t = trace["requested_time"].to_numpy(dtype=float)
    run_t = trace["run_time"].to_numpy(dtype=float)
    t_res = np.where(req_t > 0, req_t, run_t)
    actual = np.where(run_t >= 0, np.minimum(run_t, t_res), t_res)
    longest = t_res * reference_performance / max_performance
    jobs = []
    cols = zip(  # Python scalars: numpy scalars are slow to compare and convert one by one
        trace["job_id"].to_numpy(dtype=np.int64).tolist(),
        trace["user_id"].to_numpy(dtype=np.int64).tolist(),
        trace["group_id"].to_numpy(dtype=np.int64).tolist()
        if "group_id" in trace
        else [-1] * len(trace),
        np.maximum(trace["submit_time"].to_numpy(dtype=float), 0.0).tolist(),
        np.asarray(procs, dtype=np.int64).tolist(),
        np.asarray(nodes, dtype=np.int64).tolist(),
        t_res.tolist(),
        actual.tolist(),
        longest.tolist(),
        strict=True,
    )
    for index, (job_id, user, group, submit, p, n, t, a, tmin) in enumerate(cols):
        if p <= 0:
            reason = "unusable request: the trace gives no processor count"
        elif t <= 0:
            reason = "unusable runtime: neither requested nor actual runtime is known and > 0"
        elif n > domain_nodes:
            reason = f"needs {n} {unit}, more than the domain's {domain_nodes}"
        elif tmin > scheduling_interval:
            reason = (
                f"reservation time {tmin:g} on the fastest node exceeds the scheduling "
                f"interval L={scheduling_interval:g}"
            )
        else:
            reason = ""
        jobs.append(
            Job(
                job_id=job_id,
                user=user,
                submit_time=submit,
                n=n,
                requested_time=t,
                run_time=a,
                volume=t * reference_performance,
                requested_processors=p,
                reason=reason,
                index=index,
                group=group,
            )
        )
    return jobs


def node_counts(
    trace: pd.DataFrame, domain_nodes: int, max_procs: int, resources: str = "nodes"
) -> tuple[np.ndarray, np.ndarray]:
    """Processors ``p`` and resource counts ``n`` of SWF job rows.

    ``p`` = requested processors (field 8), else allocated (field 5). With
    ``resources="nodes"``, ``n = ceil(p * domain_nodes / max_procs)`` whole nodes: the traced
    machine's ``max_procs`` processors spread evenly over the domain's ``domain_nodes`` nodes
    (a 1-processor job of UniLu-Gaia takes a whole 13- or 14-processor node). With
    ``resources="processors"``, ``n = p``: one slot per processor (``domain_nodes`` and
    ``max_procs`` unused). Both arrays have shape ``(len(trace),)``; an unknown ``p`` (-1)
    gives ``n = 0``. Sizes are checked by the callers.

    Raises
    ------
    ParameterError
        ``resources`` not one of :data:`~vosim.market.nodes.RESOURCE_KINDS`.

    References
    ----------
    vosim's mapping of SWF fields 5 and 8 (the SWF definition of the Parallel Workloads
    Archive) onto the VO Preferences §4 domain; used by :func:`jobs_from_trace` and
    :class:`~vosim.market.local_trace.TraceLocalFlow` (which places local jobs on whole
    nodes). Processors as the resources: vosim's rule.

    Examples
    --------
    >>> import pandas as pd
    >>> rows = pd.DataFrame({"requested_processors": [1, 14, -1], "allocated_processors": 2})
    >>> [n.tolist() for n in node_counts(rows, 151, 2004)]
    [[1, 14, 2], [1, 2, 1]]
    >>> node_counts(rows, 151, 2004, "processors")[1].tolist()
    [1, 14, 2]
    """
    if resources not in RESOURCE_KINDS:
        raise ParameterError(
            f"resources must be one of {', '.join(RESOURCE_KINDS)}, got {resources!r}"
        )
    req_p = trace["requested_processors"].to_numpy()
    procs = np.where(req_p > 0, req_p, trace["allocated_processors"].to_numpy())
    if resources == "processors":
        return procs, np.maximum(procs, 0).astype(np.int64)
    # in floats: p * N overflows int64 for p near SWF's field limit (2^53); n is capped there
    share = np.maximum(procs, 0).astype(float) * domain_nodes / max_procs
    nodes = np.minimum(np.ceil(share), FIELD_LIMIT).astype(np.int64)
    return procs, nodes


def _work(trace: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """Per job, processors ``p`` and run time ``r`` as the model runs it (NaN if unknown)."""
    procs, _ = node_counts(trace, 1, 1, "processors")
    req_t = trace["requested_time"].to_numpy(dtype=float)
    run_t = trace["run_time"].to_numpy(dtype=float)
    t_res = np.where(req_t > 0, req_t, run_t)
    run = np.where(run_t >= 0, np.minimum(run_t, t_res), t_res)
    known = (procs > 0) & (run > 0)
    return np.where(known, procs, np.nan).astype(float), np.where(known, run, np.nan)


def offered_load(trace: pd.DataFrame, processors: int) -> float:
    """The offered load of SWF job rows on ``processors`` processors: work over capacity.

    ``rho = sum_j p_j r_j / (P (s_max - s_min))`` over the jobs whose processors ``p_j``
    (field 8, else 5) and run time ``r_j`` (field 4, cut at the requested time, field 9, as
    the model kills a job at its estimate; field 9 when field 4 is unknown) are known; ``s``
    are the submit times (field 2) of all rows, ``P = processors``. 1 means the jobs ask for
    every processor-second of the span between the first and last submission.

    Parameters
    ----------
    trace : pandas.DataFrame
        Rows as :func:`vosim.market.swf.read_swf` returns them, shape (k, ...), k >= 2.
    processors : int
        Processors ``P`` of the machine the load is offered to (>= 1).

    Returns
    -------
    float
        ``rho`` (dimensionless, > 0).

    Raises
    ------
    ParameterError
        ``processors < 1``; all submit times equal (no span); no job with a known size and
        run time.

    References
    ----------
    Feitelson, *Workload Modeling for Computer Systems Performance Evaluation* (2015),
    §9.6.5 ("offered load": the work submitted per unit of capacity and time) and §10.6.4
    (changing the load by scaling inter-arrival times).

    Examples
    --------
    >>> rows = pd.DataFrame({"submit_time": [0.0, 100.0], "run_time": [50.0, 50.0],
    ...                      "requested_time": [60.0, 60.0], "requested_processors": [2, 2],
    ...                      "allocated_processors": [2, 2]})
    >>> offered_load(rows, 4)
    0.5
    """
    if not processors >= 1:
        raise ParameterError(f"processors must be >= 1, got {processors!r}")
    submit = trace["submit_time"].to_numpy(dtype=float)
    span = float(submit.max() - submit.min()) if submit.size else 0.0
    if not span > 0:
        raise ParameterError(
            f"offered load needs jobs submitted at two different times; these {submit.size} "
            "jobs have no span between first and last submission"
        )
    procs, run = _work(trace)
    if np.isnan(procs).all():
        raise ParameterError("offered load needs a job whose processors and run time are known")
    return float(np.nansum(procs * run) / (processors * span))


def scale_to_load(trace: pd.DataFrame, processors: int, target: float) -> pd.DataFrame:
    """The rows with inter-arrival times scaled so that their offered load is ``target``.

    Submit times become ``s_0 + (s_j - s_0) * rho / target`` (``s_0`` the first submission,
    ``rho`` = :func:`offered_load` of the rows): every gap between submissions shrinks (a
    higher load) or stretches (a lower one) by one factor, so the order of jobs, their sizes
    and run times, and the shape of the arrival process (its daily cycle compressed with it)
    stay the trace's. Where this function and a paper differ, none prescribes a load knob;
    this is the standard one of workload studies (Feitelson 2015, §10.6.4).

    Parameters
    ----------
    trace : pandas.DataFrame
        Rows as :func:`vosim.market.swf.read_swf` returns them, shape (k, ...).
    processors : int
        Processors ``P`` of the machine the load is offered to (>= 1).
    target : float
        Offered load wanted (> 0; above 1 the machine cannot keep up).

    Returns
    -------
    pandas.DataFrame
        A copy with ``submit_time`` scaled and ``attrs["arrival_scale"]`` = ``rho / target``,
        ``attrs["offered_load_traced"]`` = ``rho`` (the other attributes, such as the
        header, kept).

    Raises
    ------
    ParameterError
        ``target`` not a finite number > 0, or as :func:`offered_load`.

    Examples
    --------
    >>> rows = pd.DataFrame({"submit_time": [10.0, 110.0], "run_time": [50.0, 50.0],
    ...                      "requested_time": [60.0, 60.0], "requested_processors": [2, 2],
    ...                      "allocated_processors": [2, 2]})
    >>> scaled = scale_to_load(rows, 4, 1.0)
    >>> scaled["submit_time"].tolist(), offered_load(scaled, 4)
    ([10.0, 60.0], 1.0)
    """
    if not (isinstance(target, (int, float)) and math.isfinite(target) and target > 0):
        raise ParameterError(f"offered_load must be a finite number > 0, got {target!r}")
    rho = offered_load(trace, processors)
    factor = rho / target
    out = trace.copy()
    first = float(out["submit_time"].min())
    out["submit_time"] = first + (out["submit_time"].to_numpy(dtype=float) - first) * factor
    out.attrs = {**trace.attrs, "arrival_scale": factor, "offered_load_traced": rho}
    return out


class LocalJobFlow(Protocol):
    """An owner's local job flow, generated one period at a time.

    Owners (:class:`~vosim.agents.owner.ResourceOwnerAgent`) call :meth:`occupy` for
    ``[start, start + period)``, ``start`` = 0, ``period``, ``2 * period``, ... in turn, and
    place the returned local jobs in their node schedules before any VO reservation there.
    Implemented by :class:`HypergeometricLocalLoad` (AEP §3.1) and
    :class:`~vosim.market.local_trace.TraceLocalFlow` (an SWF trace replayed).
    """

    @property
    def period(self) -> float:
        """Length of one generation period, model time units (> 0)."""
        ...

    def occupy(
        self, nodes: Sequence[int], start: float, rng: np.random.Generator
    ) -> list[tuple[int, float, float]]:
        """Local jobs ``(node, a, b)`` of ``nodes`` (node ids) starting in the period."""
        ...


@dataclass(frozen=True, slots=True)
class HypergeometricLocalLoad:
    """Owners' local job flow: per node and period, a hypergeometric share of busy time.

    In each period of length ``period`` every node gets a load fraction
    ``lo + (hi - lo) * X / draws`` with ``X ~ Hypergeometric(good, bad, draws)`` (so the
    fraction lies in ``[lo, hi]``, centred between them), occupied by 1–3 local jobs of equal
    length placed at random, non-overlapping positions.

    Parameters
    ----------
    low, high : float
        Load fraction bounds in [0, 1), ``low <= high``. Default 0.10 and 0.50 (AEP §3.1).
    period : float
        Length of the period the fraction applies to, model time units (> 0).
    good, bad, draws : int
        Hypergeometric parameters (defaults 20, 20, 20).
    jobs : (int, int)
        Inclusive bounds of the number of local jobs per node and period (default (1, 3)).

    Raises
    ------
    ParameterError
        Bounds outside [0, 1) or out of order, or a non-positive period.

    References
    ----------
    AEP §3.1: "the level of the resource initial load with the local and high priority tasks at
    the scheduling interval [0; 600] was generated by the hyper-geometric distribution in the
    range from 10% to 50%"; VO Preferences §4 uses 5–10 %. The paper gives no hypergeometric
    parameters or job count; those above are vosim's.

    Examples
    --------
    >>> load = HypergeometricLocalLoad(0.1, 0.5, period=600.0)
    >>> jobs = load.generate(0.0, np.random.default_rng(3))
    >>> share = sum(b - a for a, b in jobs) / 600.0
    >>> 0.1 <= share <= 0.5
    True
    """

    low: float = 0.10
    high: float = 0.50
    period: float = 600.0
    good: int = 20
    bad: int = 20
    draws: int = 20
    jobs: tuple[int, int] = (1, 3)

    def __post_init__(self) -> None:
        if not (0 <= self.low <= self.high < 1):
            raise ParameterError(
                f"local load must satisfy 0 <= low <= high < 1, got ({self.low}, {self.high})"
            )
        if not self.period > 0:
            raise ParameterError(f"local load period must be > 0, got {self.period}")
        if not 1 <= self.jobs[0] <= self.jobs[1]:
            raise ParameterError(
                f"local jobs per period must satisfy 1 <= low <= high, got {self.jobs}"
            )

    def occupy(
        self, nodes: Sequence[int], start: float, rng: np.random.Generator
    ) -> list[tuple[int, float, float]]:
        """Local jobs ``(node, a, b)`` of ``nodes`` in ``[start, start + period)``.

        :meth:`generate` for each node in turn (the :class:`LocalJobFlow` interface owners
        call once a period).
        """
        return [(k, a, b) for k in nodes for a, b in self.generate(start, rng)]

    def generate(self, start: float, rng: np.random.Generator) -> list[tuple[float, float]]:
        """Local jobs ``(a, b)`` of one node in the period ``[start, start + period)``, sorted."""
        x = rng.hypergeometric(self.good, self.bad, self.draws)
        busy = (self.low + (self.high - self.low) * x / self.draws) * self.period
        count = int(rng.integers(self.jobs[0], self.jobs[1] + 1))
        if busy <= 0:
            return []
        gaps = rng.dirichlet(np.ones(count + 1)) * (self.period - busy)
        length = busy / count
        out, t = [], start
        for k in range(count):
            t += gaps[k]
            out.append((float(t), float(t + length)))
            t += length
        return out
