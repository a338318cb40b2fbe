"""Owners' local job flow replayed from an SWF trace."""

from __future__ import annotations

import heapq
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from vosim.errors import ParameterError
from vosim.market.swf import header_int
from vosim.market.workload import node_counts

__all__ = ["TraceLocalFlow"]


@dataclass(frozen=True, eq=False)
class TraceLocalFlow:
    """The owners' local job flow taken from a real workload trace (SWF) instead of a generator.

    The trace's jobs become local jobs of the domain's (physical) nodes, the high-priority
    work owners run outside the VO. :meth:`from_swf` places them once, before the run:

    * node count ``n = ceil(p * N / MaxProcs)``, whole nodes
      (:func:`~vosim.market.workload.node_counts` with ``resources="nodes"``: the traced
      machine's processors spread evenly over the ``N`` nodes of the domain). When
      processors are the resources (``VOModel(resources="processors")``, the default) the
      owners put each local job on every processor of its nodes
      (:meth:`~vosim.agents.owner.ResourceOwnerAgent.prepare`): a node's processors share its
      local load;
    * duration: the recorded run time (SWF field 4), else the requested time (field 9); a
      local job occupies its nodes for that long whatever their performance (it runs on the
      owner's own terms, not as a VO request of volume ``V``);
    * release: the recorded start (submit + wait, fields 2-3; an unknown wait counts as 0),
      shifted so the trace's first submission is model time ``offset``;
    * placement, in order of release: the ``n`` nodes free earliest (ties: lower node id),
      from the later of the release and the time the last of them frees. A local batch system
      on the domain's nodes thus replays the trace; where the domain holds fewer processors
      than the traced machine, jobs wait for free nodes as they would there.

    Jobs the domain cannot run (``n > N``, unknown processor count, no known positive run
    time) are counted in :attr:`dropped`, not placed. After the trace's last job the nodes
    carry no local load.

    Parameters
    ----------
    node, start, end : numpy.ndarray, shape (k,)
        The placed local jobs, one row per (job, node): node id, start and end (model time
        units), sorted by start. Build with :meth:`from_swf`.
    period : float
        Length of the generation period owners ask for (> 0, model time units); usually the
        scheduling interval ``L``.
    jobs : int
        Trace jobs placed.
    dropped : int
        Trace jobs not placed (see above).
    name : str
        The trace, for records.

    Raises
    ------
    ParameterError
        A non-positive period, or arrays of different shapes.

    Notes
    -----
    vosim's own design: the papers generate local load (AEP §3.1 hypergeometric shares; VO
    Preferences §4 5-10 %); vosim takes local job flows from the generators or from an
    SWF trace. The placement is a greedy list schedule, ``O(J n log N)`` for ``J`` jobs.

    Examples
    --------
    >>> from vosim.data import trace_path
    >>> from vosim.market.swf import read_swf
    >>> frame = read_swf(trace_path("NASA-iPSC-1993-3.1-cln"), max_jobs=50)
    >>> flow = TraceLocalFlow.from_swf(frame, domain_nodes=128, period=86400.0)
    >>> flow.jobs, flow.dropped
    (50, 0)
    >>> jobs = flow.occupy(range(128), 0.0, None)
    >>> all(0.0 <= a < 86400.0 and a < b for _, a, b in jobs)
    True
    """

    node: np.ndarray
    start: np.ndarray
    end: np.ndarray
    period: float
    jobs: int = 0
    dropped: int = 0
    name: str = ""

    def __post_init__(self) -> None:
        if not self.period > 0:
            raise ParameterError(f"local trace period must be > 0, got {self.period}")
        if not self.node.shape == self.start.shape == self.end.shape:
            raise ParameterError(
                f"local trace arrays differ in shape: node {self.node.shape}, start "
                f"{self.start.shape}, end {self.end.shape}"
            )

    @classmethod
    def from_swf(
        cls,
        trace: pd.DataFrame,
        domain_nodes: int,
        period: float,
        offset: float = 0.0,
    ) -> TraceLocalFlow:
        """Place an SWF trace's jobs on the (physical) nodes ``0 .. domain_nodes - 1``.

        Parameters
        ----------
        trace : pandas.DataFrame
            Rows as returned by :func:`vosim.market.swf.read_swf` (times in seconds = model
            time units); its header's ``MaxProcs`` (else the largest processor count, at
            least ``domain_nodes``) sizes the traced machine.
        domain_nodes : int
            Physical nodes ``N`` of the domain (>= 1), whatever the model's resources.
        period : float
            See the class (> 0).
        offset : float
            Model time of the trace's first submission (>= 0, default 0).

        Raises
        ------
        ParameterError
            ``domain_nodes < 1``, a non-positive period, or an offset that is not a finite
            number >= 0 (local jobs start no earlier than the run).
        """
        if domain_nodes < 1:
            raise ParameterError(f"domain_nodes must be >= 1, got {domain_nodes}")
        if not (np.isfinite(offset) and offset >= 0):
            raise ParameterError(f"local trace offset must be a finite number >= 0, got {offset}")
        max_procs = header_int(trace.attrs.get("header", {}), "MaxProcs")
        if max_procs is None:
            procs = trace[["requested_processors", "allocated_processors"]].max(axis=1)
            max_procs = max(int(procs.max()), domain_nodes)
        procs, n = node_counts(trace, domain_nodes, max_procs, "nodes")
        run = trace["run_time"].to_numpy(dtype=float)
        run = np.where(run > 0, run, trace["requested_time"].to_numpy(dtype=float))
        submit = trace["submit_time"].to_numpy(dtype=float)
        wait = np.maximum(trace["wait_time"].to_numpy(dtype=float), 0.0)
        release = submit + wait - submit.min() + offset
        ok = (procs > 0) & (n <= domain_nodes) & (run > 0)
        order = np.flatnonzero(ok)[np.argsort(release[ok], kind="stable")]
        free = [(float(offset), k) for k in range(domain_nodes)]  # a heap: (free from, node)
        node, start, end = [], [], []
        for j in order.tolist():
            take = [heapq.heappop(free) for _ in range(int(n[j]))]
            a = max(float(release[j]), take[-1][0])
            b = a + float(run[j])
            for _, k in take:
                heapq.heappush(free, (b, k))
                node.append(k)
                start.append(a)
                end.append(b)
        by_start = np.argsort(np.asarray(start), kind="stable")
        return cls(
            node=np.asarray(node, dtype=np.int64)[by_start],
            start=np.asarray(start, dtype=float)[by_start],
            end=np.asarray(end, dtype=float)[by_start],
            period=float(period),
            jobs=int(order.size),
            dropped=int(len(trace) - order.size),
            name=str(trace.attrs.get("path", "")),
        )

    def occupy(
        self, nodes: Sequence[int], start: float, rng: np.random.Generator | None
    ) -> list[tuple[int, float, float]]:
        """Local jobs ``(node, a, b)`` of ``nodes`` that start in ``[start, start + period)``.

        The :class:`~vosim.market.workload.LocalJobFlow` interface; ``rng`` is not used (the
        trace decides). A job may end after the period. Sorted by start, then node order of
        the placement.
        """
        lo, hi = np.searchsorted(self.start, [start, start + self.period], side="left")
        mine = np.isin(self.node[lo:hi], np.asarray(nodes, dtype=np.int64))
        rows = zip(
            self.node[lo:hi][mine].tolist(),
            self.start[lo:hi][mine].tolist(),
            self.end[lo:hi][mine].tolist(),
            strict=True,
        )
        return list(rows)
