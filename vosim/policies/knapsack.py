"""The Knapsack Grid slides in the VO: each pass, the multiple-choice knapsack of job options."""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from vosim.allocators.base import Window
from vosim.allocators.mckp import solve_mckp
from vosim.core import ResourceRequest, SlotList
from vosim.errors import ParameterError
from vosim.policies.base import CycleState, Decisions, Policy, register_policy
from vosim.policies.batch_windows import _EPS, window_at
from vosim.policies.easy import EASY
from vosim.policies.knapsack_rules import (
    SPLIT_PENALTY,
    check_utility_policy,
    option_credit,
    option_layouts,
    option_utilities,
)

__all__ = [
    "Clusters",
    "JobOption",
    "Knapsack",
    "KnapsackEasy",
    "job_options",
    "owner_clusters",
]

#: The credit value ``v_i`` of every job's reference option: the VO's jobs, like SWF traces,
#: carry none (as the Knapsack Grid simulator's ``swf_tasks`` without ``rng``,
#: :mod:`vosim.runs.experiments.knapsack_grid_simulator.workload`).
BASE_CREDIT = 1.0


@dataclass(frozen=True)
class Clusters:
    """The slides' clusters at a pass: one per owner with a node free now.

    Parameters
    ----------
    now : float
        The pass's time ``t``, model time units.
    owners : numpy.ndarray of int, shape (K,)
        Owner id of each cluster, increasing.
    cluster : numpy.ndarray of int, shape (m,)
        Cluster of each row of ``end`` and ``performance`` (every free-now slot).
    end, performance : numpy.ndarray of float, shape (m,)
        End (model time units) and node performance of each free-now slot.
    slots : SlotList
        The pass's slot list.
    rows : numpy.ndarray of int, shape (m,)
        Rows of ``slots`` that contain ``t``.
    """

    now: float
    owners: np.ndarray
    cluster: np.ndarray
    end: np.ndarray
    performance: np.ndarray
    slots: SlotList
    rows: np.ndarray

    @functools.cached_property
    def free(self) -> list[SlotList]:
        """Each cluster's slots that contain ``t`` (one per free node), a list of length K.

        Built when first asked: a pass where no job has an option never needs it.
        """
        columns = _columns(self.slots)
        return [
            SlotList.from_arrays(
                *(col[self.rows[self.cluster == k]] for col in columns), validate=False
            )
            for k in range(self.owners.size)
        ]

    def usable(self, volume):
        """Nodes of each cluster free over a task's whole span, shape (K,) or (V, K).

        A node's free-now slot must contain ``[t, t + volume / performance)`` (the tolerance
        of :func:`~vosim.policies.batch_windows.window_at`). The sets are nested: a node usable for
        a volume is usable for every smaller one.

        Parameters
        ----------
        volume : float or numpy.ndarray of float, shape (V,)
            Work of a task, performance x time units.
        """
        vol = np.asarray(volume, dtype=float)
        order, starts = self._by_cluster
        if not starts.size:
            return np.zeros((*vol.shape, 0), dtype=np.int64)
        end, performance = self.end[order], self.performance[order]
        ok = end - self.now >= vol[..., None] / performance * (1 - _EPS)
        return np.add.reduceat(ok.astype(np.int64), starts, axis=-1)

    @functools.cached_property
    def _by_cluster(self) -> tuple[np.ndarray, np.ndarray]:
        """The free-now slots ordered by cluster, and where each cluster's run starts."""
        order = np.argsort(self.cluster, kind="stable")
        return order, np.searchsorted(self.cluster[order], np.arange(self.owners.size))


def owner_clusters(state: CycleState) -> Clusters:
    """The owners' free processors at ``state.time``: the slides' clusters in the VO.

    Parameters
    ----------
    state : CycleState
        Its ``owner`` gives each node's owner; ``None`` makes the domain one cluster.

    Returns
    -------
    Clusters
        Only owners with a node free at ``t`` (a slot with ``start <= t < end``).

    References
    ----------
    Knapsack Grid, "A Small Example Grid" (clusters of processors) and "Constructing the
    Problem" (one capacity constraint per cluster).
    """
    sl, t = state.slots, state.time
    rows = np.flatnonzero((sl.start <= t) & (sl.end > t))
    node = sl.node[rows]
    owner = np.zeros(node.size, np.int64) if state.owner is None else state.owner[node]
    owners, cluster = np.unique(owner, return_inverse=True)
    return Clusters(t, owners, cluster, sl.end[rows], sl.performance[rows], sl, rows)


def _columns(sl: SlotList) -> tuple[np.ndarray, ...]:
    return sl.node, sl.start, sl.end, sl.price, sl.performance


@dataclass(frozen=True)
class JobOption:
    """One way to start a waiting job now (an option ``j`` of task ``i`` on the slides).

    Parameters
    ----------
    processors : tuple of int, shape (K,)
        Nodes used on each cluster: the option's weights in the knapsack.
    kind : str
        The slides' rule that made it: ``"reference"``, ``"split"`` or ``"other"``
        (:func:`~vosim.policies.knapsack_rules.option_layouts`).
    window : Window
        The option's cheapest concrete window when no other job takes nodes first.
    length : float
        ``T_ij``, model time units: the window's run time (its slowest task), times the
        split penalty for a split option.
    credit : float
        ``v_ij = v_i (N_i / T_ij) ** 1.1``.
    """

    processors: tuple[int, ...]
    kind: str
    window: Window
    length: float
    credit: float


def _place(
    job: ResourceRequest, free: Sequence[SlotList], now: float, processors: Sequence[int]
) -> tuple[Window | None, dict[int, Window]]:
    """Put ``processors[k]`` of ``job``'s tasks on cluster ``k``'s cheapest usable nodes.

    Returns the window starting at ``now`` (``None``: too few usable nodes, or over the
    job's budget) and its part on each cluster used (by
    :func:`~vosim.policies.batch_windows.window_at`).
    """
    parts = {}
    for k, p in enumerate(processors):
        if p:
            w = window_at(free[k], now, dataclasses.replace(job, n=p, budget=math.inf))
            if w is None:
                return None, parts
            parts[k] = w
    window = Window(
        slots=tuple(s for w in parts.values() for s in w.slots),
        start=now,
        runtime=max(w.runtime for w in parts.values()),
        cost=sum(w.cost for w in parts.values()),
    )
    return (None if window.cost > job.budget * (1 + _EPS) else window), parts


def job_options(
    job: ResourceRequest,
    clusters: Clusters,
    reference_length: float,
    *,
    credit: float = BASE_CREDIT,
    split_penalty: float = SPLIT_PENALTY,
    usable: np.ndarray | None = None,
) -> list[JobOption]:
    """The options of a waiting job at the pass: the slides' layouts on the owners' free nodes.

    Parameters
    ----------
    job : ResourceRequest
        ``n`` tasks of ``volume`` each, within ``budget``.
    clusters : Clusters
        The owners' free nodes now (:func:`owner_clusters`).
    reference_length : float
        ``N_i``, the job's run time on a reference node, model time units (``> 0``).
    credit : float, default 1.0
        ``v_i``, the credit of an option of length ``N_i``.
    split_penalty : float, default 1.1
        Length factor of the split option.
    usable : numpy.ndarray of int, shape (K,), optional
        ``clusters.usable(job.volume)``, if known.

    Returns
    -------
    list of JobOption
        The layouts of :func:`~vosim.policies.knapsack_rules.option_layouts` on the nodes of
        each owner free over the task's span (all owners, no half option), each placed on
        the owner's cheapest such nodes; a layout whose window exceeds the budget is left out.

    References
    ----------
    Knapsack Grid, "Two Tasks and Their Options" and "Allocation Policy 1: Pure
    Credit-Value-Driven" (``v_im / v_in = (T_in / T_im) ** 1.1``).
    """
    if usable is None:
        usable = clusters.usable(job.volume)
    layouts = option_layouts(
        job.n, usable.tolist(), max_options=None, split_penalty=split_penalty, half=False
    )
    out = []
    for layout in layouts:
        window, _ = _place(job, clusters.free, clusters.now, layout.processors)
        if window is not None:
            length = window.runtime * layout.factor
            out.append(
                JobOption(
                    layout.processors,
                    layout.kind,
                    window,
                    length,
                    option_credit(credit, reference_length, length),
                )
            )
    return out


def _dimensions(
    volumes: Sequence[float], options: Sequence[list[JobOption]], usable: dict[float, np.ndarray]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The knapsack's capacity constraints: cluster, volume level and capacity of each.

    Cluster ``k``'s jobs of volume ``>= v`` can together use at most the nodes of ``k``
    usable for volume ``v`` (``usable[v][k]``). The usable sets are nested, so these
    constraints at every job's volume are exactly the ones that make the chosen options
    assignable to distinct nodes (Hall's theorem). Kept: each cluster's lowest level, and a
    higher level only where it binds (fewer usable nodes than the next level below and than
    its jobs could ask for). Returns three arrays of shape ``(D,)``.
    """
    n_clusters = next(iter(usable.values())).size if usable else 0
    asks = np.zeros((len(volumes), n_clusters), dtype=np.int64)  # the most each job asks
    for i, opts in enumerate(options):
        if opts:
            asks[i] = np.max([o.processors for o in opts], axis=0)
    vol = np.asarray(volumes, dtype=float)
    cluster, level, capacity = [], [], []
    for k in range(n_clusters):
        on = asks[:, k] > 0
        levels, inverse = np.unique(vol[on], return_inverse=True)
        most = np.bincount(inverse, weights=asks[on, k], minlength=levels.size)
        asked = np.cumsum(most[::-1])[::-1]  # by the jobs of volume >= each level
        cap = np.array([usable[v][k] for v in levels.tolist()], dtype=np.int64)
        keep = np.zeros(levels.size, dtype=bool)
        keep[:1] = True
        keep[1:] = (cap[1:] < asked[1:]) & (cap[1:] < cap[:-1])
        cluster += [k] * int(keep.sum())
        level += levels[keep].tolist()
        capacity += cap[keep].tolist()
    return (
        np.asarray(cluster, dtype=np.int64),
        np.asarray(level, dtype=float),
        np.asarray(capacity, dtype=np.int64),
    )


@register_policy("knapsack", options=("utility_policy", "reference_performance"))
class Knapsack(Policy):
    """The Knapsack Grid strategy in the VO: each pass starts the options of most utility.

    One pass at time ``t``:

    * **Clusters** are the resource owners; an owner's capacity is its nodes free at ``t``
      (a free slot contains ``t``) ("A Small Example Grid"; "Constructing the Problem":
      one constraint per cluster). A node free now but busy before a task could end (a local
      job is due) serves only shorter tasks; the knapsack counts it only for those (see
      Notes), so every chosen set of options can be placed on distinct nodes.
    * **Options** of a waiting job ("Tasks, Options, and QoS Metrics"; "Two Tasks and Their
      Options") are the slides' layouts (:func:`~vosim.policies.knapsack_rules.option_layouts`)
      over the nodes of each owner free for the job's task span: all ``n`` tasks on one
      owner, the smallest that can hold them first, then every other owner; and, for even
      ``n``, ``n/2`` on each of the two smallest owners that can hold half (the split
      option). The half option is not offered: a VO job asks for exactly ``n`` nodes. Each
      option is placed on the owner's cheapest usable nodes
      (:func:`~vosim.policies.batch_windows.window_at`: cost ``price x volume / performance``);
      an option whose window exceeds the job's budget is not offered.
    * **Values** follow the slides' credit values and utility policy 1-5
      (:mod:`vosim.policies.knapsack_rules`; "Allocation Policy 1" to "Allocation Policy
      4,5"): the job's reference length ``N_i = volume / reference_performance`` (its run
      time on a reference node), an option of length ``T_ij`` is worth the credit
      ``v_ij = v_i (N_i / T_ij) ** 1.1`` with ``v_i = 1`` (the VO's jobs carry no credit),
      and utility ``u_ij`` of the policy with ``s_i`` the job's submission time and
      ``r_ij = T_ij`` (a waiting job has done no work).
    * **Knapsack**: the multiple-choice knapsack (at most one option per job, nodes per owner
      within capacity, total utility maximal; "The 0,1 Knapsack Problem") is solved once by
      :func:`~vosim.allocators.mckp.solve_mckp`. Jobs are listed in queue order, so the DP's
      tie rule favours earlier jobs.
    * **Windows**: the chosen options become windows starting at ``t``, placed on each
      owner's cheapest usable nodes left, jobs of larger volume first (they have the fewest
      usable nodes; in this order every chosen option finds its nodes). Its tasks hold their
      nodes for ``volume / performance``.

    Heterogeneous nodes. The slides' clusters are homogeneous, so an option's length is a
    property of the task and the cluster. VO nodes differ in performance: a task on node
    ``i`` is estimated to take ``volume / performance_i``, and the job ends with its slowest
    task, so an option's length is its window's run time, the longest ``volume /
    performance_i`` over the option's nodes (the owner's cheapest usable ones), times the
    split penalty 1.1 for a split option. The penalty (the slides' cost of crossing
    clusters) enters only the option's value: the VO does not slow split jobs down, so
    their reservations are the tasks' estimates. Faster nodes thus give shorter options of
    higher credit.

    Parameters
    ----------
    utility_policy : int, default 1
        The slides' utility policy, 1 to 5.
    method : str, default "auto"
        The MCKP method or fallback chain of :func:`~vosim.allocators.mckp.solve_mckp`.
    reference_performance : float, optional
        Performance of the reference node of ``N_i = volume / reference_performance``
        (``> 0``); default: the mean performance of the nodes in the pass's slot list (on
        identical processors, theirs: ``N_i`` is then the requested time).

    Raises
    ------
    ParameterError
        ``utility_policy`` not in 1..5, an unknown ``method``, or a ``reference_performance``
        that is not a finite number ``> 0``.

    Notes
    -----
    What differs from the slides' grid. The VO does not preempt: running jobs keep their
    nodes, and each pass's knapsack is over the waiting jobs and the free nodes (the slides'
    cycle ``tau`` is the VO's cycle). An option whose utility is ``<= 0`` is never taken. A job
    that neither one owner nor, by halves, two owners can hold has no option and waits (the
    slides' grid drops such tasks); ``knapsack+easy`` can start it across more owners.

    Capacities. A free node serves a task of ``volume`` if its slot lasts ``volume /
    performance``; the nodes of an owner usable for a volume are nested (usable for a volume,
    usable for any smaller). So besides the owner's capacity (its nodes usable for the
    smallest candidate volume), the knapsack has a constraint per owner and larger volume
    ``v`` where fewer nodes are usable: the jobs of volume ``>= v`` may use at most those.
    By Hall's theorem for nested sets these make the counts exact, and placing jobs of larger
    volume first always finds the nodes. The knapsack counts nodes, not their prices: a job
    whose cheapest nodes went to a larger job takes the owner's next cheapest usable ones,
    and if these exceed its budget it waits (counted in ``stats["over_budget"]``).

    ``Decisions.stats``: ``mckp_objective`` (the knapsack's total utility),
    ``mckp_status`` (``"optimal"``, ``"feasible"`` or ``"limit"``:
    :class:`~vosim.core.results.Status`), ``mckp_method``, ``mckp_seconds``, ``clusters``,
    ``constraints``, ``options`` (offered), ``chosen``, ``over_budget`` and ``started``.

    A pass costs one window search per job and option (``O(q K m)`` for ``q`` jobs, ``K``
    owners and ``m`` free slots; jobs of one request share it) and one MCKP solve.

    References
    ----------
    Knapsack Grid (Parra-Hernandez, Vanderster, Dimopoulos, GRID 2004 slides), "Tasks,
    Options, and QoS Metrics", "Two Tasks and Their Options", "Constructing the Problem",
    "The 0,1 Knapsack Problem" and "Allocation Policy 1" to "Allocation Policy 4,5".

    Examples
    --------
    Two owners with two free nodes each (identical, reference performance); job 0 needs 4
    nodes (only split 2 + 2: worth ``1.1 ** -1.1 = 0.90``), jobs 1 and 2 need 2 (worth 1 on
    either owner). The knapsack starts jobs 1 and 2 (worth 2):

    >>> import numpy as np
    >>> from vosim.core import Slot
    >>> sl = SlotList([Slot(k, 0.0, 100.0, 1.0, 1.0) for k in range(4)])
    >>> queue = [ResourceRequest(index=j, n=n, volume=10.0, budget=1e9)
    ...          for j, n in enumerate((4, 2, 2))]
    >>> state = CycleState(0.0, 100.0, sl, queue, owner=np.array([0, 0, 1, 1]))
    >>> d = Knapsack().decide(state)
    >>> [(k, w.nodes) for k, w in d.reserve], d.stats["mckp_objective"]
    ([(1, (2, 3)), (2, (0, 1))], 2.0)
    """

    name = "knapsack"

    def __init__(
        self,
        utility_policy: int = 1,
        method: str = "auto",
        reference_performance: float | None = None,
    ) -> None:
        self.utility_policy = check_utility_policy(utility_policy, "utility_policy")
        try:
            solve_mckp([[1.0]], [[[1]]], [1], method=method)
        except (ValueError, TypeError) as exc:
            raise ParameterError(f"method: {exc}") from None
        self.method = method
        if reference_performance is not None and not (
            isinstance(reference_performance, int | float)
            and not isinstance(reference_performance, bool)
            and math.isfinite(reference_performance)
            and reference_performance > 0
        ):
            raise ParameterError(
                f"reference_performance must be a finite number > 0 or None, "
                f"got {reference_performance!r}"
            )
        self.reference_performance = reference_performance

    def _reference(self, slots: SlotList) -> float:
        if self.reference_performance is not None:
            return float(self.reference_performance)
        _, first = np.unique(slots.node, return_index=True)
        return float(slots.performance[first].mean()) if first.size else 1.0

    def decide(self, state: CycleState) -> Decisions:
        """Solve the pass's knapsack and start the chosen options at ``state.time``."""
        decisions, _ = self._knapsack(state)
        return decisions.settle("no waiting job has an option on the owners' free nodes now")

    def _knapsack(self, state: CycleState) -> tuple[Decisions, SlotList]:
        """The knapsack's decisions and the slot list with their windows cut out."""
        decisions = Decisions()
        queue = list(state.queue)
        clusters = owner_clusters(state)
        p_ref = self._reference(state.slots)
        volumes, which = np.unique([job.volume for job in queue], return_inverse=True)
        counts = clusters.usable(volumes).reshape(volumes.size, clusters.owners.size)
        total = counts.sum(axis=1).tolist()
        cache: dict[tuple[int, float, float], list[JobOption]] = {}
        options: list[list[JobOption]] = []
        for job, v in zip(queue, which.tolist(), strict=True):
            key = (job.n, job.volume, job.budget)
            if total[v] < job.n:  # every layout puts all n tasks on usable nodes
                cache[key] = []
            elif key not in cache:
                cache[key] = job_options(job, clusters, job.volume / p_ref, usable=counts[v])
            options.append(cache[key])
        # the knapsack's tasks: the jobs with an option, in queue order
        cand = [i for i, opts in enumerate(options) if opts]
        usable = dict(zip(volumes.tolist(), counts, strict=True))
        dim_cluster, dim_level, capacity = (
            _dimensions([queue[i].volume for i in cand], [options[i] for i in cand], usable)
            if cand
            else (np.zeros(0, np.int64), np.zeros(0), np.zeros(1, np.int64))
        )
        values, demands = [], []
        for i in cand:
            job, opts = queue[i], options[i]
            values.append(
                option_utilities(
                    self.utility_policy,
                    state.time,
                    job.submit_time,
                    job.volume / p_ref,
                    [o.length for o in opts],
                    [o.credit for o in opts],
                )
            )
            procs = np.array([o.processors for o in opts], dtype=np.int64)
            # an option uses its nodes of cluster k in k's constraints up to its volume
            demands.append(procs[:, dim_cluster] * (job.volume >= dim_level))
        result = solve_mckp(values, demands, capacity, method=self.method)
        choice = np.full(len(queue), -1, dtype=np.int64)
        choice[cand] = result.choice
        started, over_budget = self._start(state, clusters, options, choice, decisions)
        slots = state.slots
        for _, window in decisions.reserve:
            slots = slots.cut(window)
        decisions.stats.update(
            mckp_objective=float(result.value),
            mckp_status=str(result.status),
            mckp_method=result.method,
            mckp_seconds=float(result.seconds),
            clusters=int(clusters.owners.size),
            constraints=int(dim_cluster.size),
            options=sum(len(o) for o in options),
            chosen=int((choice >= 0).sum()),
            over_budget=over_budget,
            started=started,
        )
        return decisions, slots

    def _start(
        self,
        state: CycleState,
        clusters: Clusters,
        options: list[list[JobOption]],
        choice: np.ndarray,
        decisions: Decisions,
    ) -> tuple[int, int]:
        """Windows for the chosen options, larger volumes first; returns (started, over budget).

        ``choice[i]``: the option chosen for queue position ``i`` (``-1``: waits).
        """
        queue = state.queue
        chosen = choice.tolist()
        order = sorted(
            (i for i, j in enumerate(chosen) if j >= 0), key=lambda i: (-queue[i].volume, i)
        )
        free = list(clusters.free) if order else []
        placed: dict[int, Window] = {}
        over_budget = 0
        for i in order:
            job, option = queue[i], options[i][chosen[i]]
            window, parts = _place(job, free, state.time, option.processors)
            if window is None:
                decisions.reasons[job.index] = (
                    "knapsack: chosen, but its owners' usable nodes left exceed the budget"
                )
                over_budget += 1
                continue
            for k, part in parts.items():
                free[k] = free[k].cut(part)
            placed[i] = window
        for i, job in enumerate(queue):
            if i in placed:
                decisions.reserve.append((job.index, placed[i]))
            elif not options[i]:
                decisions.reasons[job.index] = (
                    f"knapsack: no owner (nor two by halves) has {job.n} nodes free now for "
                    "its run time within its budget"
                )
            elif chosen[i] < 0:
                decisions.reasons[job.index] = "knapsack: not in the pass's best choice"
        return len(placed), over_budget


@register_policy("knapsack+easy", options=("utility_policy", "reference_performance"))
class KnapsackEasy(Knapsack):
    """KS+BF in the VO: the knapsack's pass, then EASY backfilling of the jobs left.

    The slides' KS+BF runs the knapsack each cycle and, at every decision, starts waiting
    tasks in queue order wherever they fit the idle processors, with no reservation: the
    next cycle reconsiders (and may preempt) everything. The VO does not preempt, so the
    backfill here protects the first waiting job as EASY does: after the knapsack's windows
    are cut out of the slot list, :class:`~vosim.policies.easy.EASY` decides over the jobs the
    knapsack did not start, in queue order (heads start while they fit, on any nodes of any
    owners; the blocked head's earliest window is set aside; later jobs start now only if
    they leave it free). A job no knapsack option holds (wider than an owner and not split
    in halves) can start here.

    Parameters and errors as :class:`Knapsack`. ``Decisions.stats`` adds EASY's
    (``shadow_time``, ``backfilled``) and ``easy_started``.

    References
    ----------
    Knapsack Grid, "Allocation Strategies Used" ("Also tested Knapsack + Backfilling") and
    "KS+BF is Best and Provides QoS"; Mu'alem & Feitelson (2001), IEEE TPDS 12(6), §2
    (EASY).

    Examples
    --------
    Three owners with one free node each: a 3-node job has no knapsack option (no owner has
    3 nodes; 3 is odd) but EASY starts it across the owners:

    >>> import numpy as np
    >>> from vosim.core import Slot
    >>> sl = SlotList([Slot(k, 0.0, 100.0, 1.0, 1.0) for k in range(3)])
    >>> state = CycleState(0.0, 100.0, sl, [ResourceRequest(index=0, n=3, volume=10.0, budget=1e9)],
    ...                    owner=np.array([0, 1, 2]))
    >>> Knapsack().decide(state).reserve
    []
    >>> [w.nodes for _, w in KnapsackEasy().decide(state).reserve]
    [(0, 1, 2)]
    """

    name = "knapsack+easy"

    def decide(self, state: CycleState) -> Decisions:
        """The knapsack's pass, then EASY over the rest on the slots left."""
        decisions, slots = self._knapsack(state)
        started = {k for k, _ in decisions.reserve}
        rest = [job for job in state.queue if job.index not in started]
        easy = EASY().decide(dataclasses.replace(state, slots=slots, queue=rest))
        decisions.reserve.extend(easy.reserve)
        decisions.reasons.update(easy.reasons)
        for k, _ in easy.reserve:
            decisions.reasons.pop(k, None)
        decisions.stats.update(easy.stats, easy_started=len(easy.reserve))
        return decisions.settle("no waiting job fits the free nodes now")
