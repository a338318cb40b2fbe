"""Scenarios of the live UI: bundled traces and the papers' synthetic job streams.

The page's "scenario" menu offers :data:`SCENARIOS`; each builds a :class:`Workload`: a job
trace in :func:`~vosim.market.swf.read_swf` format (a DataFrame with the 18 SWF columns and
``attrs["header"]``) plus the :class:`~vosim.model.VOModel` parameters that go with it. The
papers' scenarios take their parameters from the presets of :mod:`vosim.scenario` (``aep``,
``vo-preferences``) and their job streams from its generators (:func:`aep_trace`,
:func:`vo_preferences_trace`, re-exported here). :class:`LiveModel` is the VOModel the page
steps: its constructor takes the page's inputs, those that are model parameters named as in
:class:`vosim.scenario.Scenario` and with its defaults.
"""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from vosim.allocators.base import criteria
from vosim.analysis.metrics import bounded_slowdown, jain_index
from vosim.data import trace_path
from vosim.errors import ParameterError
from vosim.market.swf import read_swf, swf_frame
from vosim.market.synthetic import aep_trace, vo_preferences_trace
from vosim.market.workload import Job
from vosim.model import VOModel
from vosim.policies.cyclic_scheme import one_criterion
from vosim.scenario import PARAMETERS, PRESETS

__all__ = [
    "AEP_SCENARIO",
    "BY_USER_CRITERION",
    "DEFAULT_SCENARIO",
    "LOADS",
    "SCENARIOS",
    "TRACE_JOBS",
    "TRACE_SCENARIOS",
    "VO_PREFERENCES_SCENARIO",
    "ChosenWindow",
    "LiveModel",
    "Workload",
    "aep_trace",
    "allocator_names",
    "build_scenario",
    "regroup_users",
    "swf_frame",
    "vo_preferences_trace",
]

#: Name of the AEP synthetic scenario (AEP §3.1).
AEP_SCENARIO = "AEP §3.1 (synthetic)"
#: Name of the VO Preferences synthetic scenario (VO Preferences §4).
VO_PREFERENCES_SCENARIO = "VO Preferences §4 (synthetic)"
#: Bundled parallel-job traces the page offers. LCG-2005-1 is left out: its header's 24,515
#: processors would make a 24,515-node domain of serial jobs, too big to watch live.
TRACE_SCENARIOS: tuple[str, ...] = ("UniLu-Gaia-2014-2", "NASA-iPSC-1993-3.1-cln")
#: Scenario names in the order the page lists them: the bundled traces, then the papers'.
SCENARIOS: tuple[str, ...] = (*TRACE_SCENARIOS, AEP_SCENARIO, VO_PREFERENCES_SCENARIO)
#: The page's default: a 2,000-job prefix of UniLu-Gaia (a full run takes about a minute).
DEFAULT_SCENARIO = "UniLu-Gaia-2014-2"
#: Jobs read from a bundled trace (its first ``TRACE_JOBS`` jobs).
TRACE_JOBS = 2000
#: Allocator choice that keeps VOModel's per-criterion mapping (minFinish, minRuntime, minCost).
BY_USER_CRITERION = "by user criterion"
#: Owners' local load choices: name -> (low, high) share (of each owner's processor time for
#: the online local-load model, the default on traces; of each scheduling interval for the
#: papers' interval model), a bundled trace replayed as the local job flow
#: (``VOModel(local_trace=...)``), or ``None`` (dedicated nodes). "scenario" keeps the
#: scenario's own load.
LOADS: dict[str, tuple[float, float] | str | None] = {
    "scenario": (math.nan, math.nan),
    "none": None,
    "5-10 % (VO Preferences §4)": (0.05, 0.10),
    "10-50 % (AEP §3.1)": (0.10, 0.50),
    "30-70 %": (0.30, 0.70),
    "NASA iPSC trace": "NASA-iPSC-1993-3.1-cln",
    "UniLu-Gaia trace": "UniLu-Gaia-2014-2",
}


def allocator_names() -> list[str]:
    """Allocator choices of the page: :data:`BY_USER_CRITERION`, then every registered criterion.

    Returns
    -------
    list of str
        ``[BY_USER_CRITERION, *vosim.allocators.base.criteria()]``.
    """
    return [BY_USER_CRITERION, *criteria()]


@dataclass(frozen=True)
class Workload:
    """A job trace and the model parameters it is meant to run with (one UI scenario).

    Not :class:`vosim.scenario.Scenario`, the declaration of every model parameter: this is
    what the page's "scenario" menu builds, a trace plus some of those parameters.

    Parameters
    ----------
    name : str
        One of :data:`SCENARIOS`.
    trace : pandas.DataFrame
        Jobs in :func:`~vosim.market.swf.read_swf` format (``attrs["header"]`` holds
        ``MaxNodes``/``MaxProcs``).
    model_kwargs : dict
        Keyword arguments of :class:`~vosim.model.VOModel` (a preset's values but ``trace``
        and ``jobs``: ``nodes``, ``cycle_period``, ``scheduling_interval``,
        ``reference_performance``, ``local_load``, ...).
    description : str
        One line for the page's summary.
    """

    name: str
    trace: pd.DataFrame
    model_kwargs: dict = field(default_factory=dict)
    description: str = ""


def regroup_users(frame: pd.DataFrame, users: int) -> pd.DataFrame:
    """Regroup a trace's users into at most ``users`` users.

    Trace users are ranked by their first submission; the user of rank ``r`` (0-based)
    becomes user ``r % users + 1``. A trace with ``users`` users or fewer keeps its own ids.
    Each VO user has one budget factor and one criterion (:class:`~vosim.agents.user.UserAgent`),
    so fewer users means coarser, more uniform preferences.

    Parameters
    ----------
    frame : pandas.DataFrame
        A trace in :func:`~vosim.market.swf.read_swf` format.
    users : int
        Number of users to keep (>= 1).

    Returns
    -------
    pandas.DataFrame
        A copy with ``user_id`` replaced (``attrs`` kept).

    Examples
    --------
    >>> f = swf_frame(np.zeros(4), np.ones(4, int), np.ones(4), np.ones(4),
    ...               np.array([7, 3, 7, 9]), nodes=4, note="t")
    >>> regroup_users(f, 2)["user_id"].tolist()
    [1, 2, 1, 1]
    """
    _check_positive_int("users", users)
    ids = frame["user_id"].to_numpy()
    first = pd.unique(ids)  # in order of first submission
    out = frame.copy()
    out.attrs = dict(frame.attrs)
    if first.size <= users:
        return out
    rank = {u: r for r, u in enumerate(first.tolist())}
    out["user_id"] = np.array([rank[u] % users + 1 for u in ids.tolist()], dtype=np.int64)
    return out


def build_scenario(name: str, users: int, rng: np.random.Generator) -> Workload:
    """Build the scenario ``name`` with ``users`` users.

    Parameters
    ----------
    name : str
        One of :data:`SCENARIOS`: a bundled trace of :data:`TRACE_SCENARIOS` (its first
        :data:`TRACE_JOBS` jobs, users regrouped by :func:`regroup_users`, VOModel's
        defaults: cycle 300 s, ``L`` = 7 days),
        :data:`AEP_SCENARIO` (:func:`aep_trace` with the ``aep`` preset of
        :data:`vosim.scenario.PRESETS`: 100 nodes, ``L`` = 600, cycle 50, reference
        performance 2, load 10–50 %) or :data:`VO_PREFERENCES_SCENARIO`
        (:func:`vo_preferences_trace` with the ``vo-preferences`` preset: 100 nodes, ``L`` =
        600, cycle 150, reference performance 2, load 5–10 %).
    users : int
        Number of users (>= 1).
    rng : numpy.random.Generator
        Randomness of the synthetic job streams.

    Returns
    -------
    Workload

    Raises
    ------
    ParameterError
        An unknown scenario name or ``users < 1``.

    References
    ----------
    AEP §3.1; VO Preferences §4.
    """
    _check_positive_int("users", users)
    if name in TRACE_SCENARIOS:
        trace = regroup_users(read_swf(trace_path(name), TRACE_JOBS), users)
        return Workload(name, trace, {}, f"{name}, first {TRACE_JOBS:,} jobs")
    if name == AEP_SCENARIO:
        kwargs = _preset_kwargs("aep")
        return Workload(
            name,
            aep_trace(rng, jobs=PRESETS["aep"].values["jobs"], users=users),
            kwargs,
            "AEP §3.1: 1,000 jobs of 5 slots x 150 on 100 nodes, load 10-50 %",
        )
    if name == VO_PREFERENCES_SCENARIO:
        batches = PRESETS["vo-preferences"].values["jobs"] // 40
        return Workload(
            name,
            vo_preferences_trace(rng, batches=batches, users=users),
            _preset_kwargs("vo-preferences"),
            "VO Preferences §4: 25 batches of 40 jobs on 100 nodes, load 5-10 %",
        )
    raise ParameterError(f"unknown scenario {name!r}; expected one of {', '.join(SCENARIOS)}")


def _preset_kwargs(preset: str) -> dict:
    """A preset's model parameters but its job stream (``trace``, ``jobs``): the page's own."""
    return {k: v for k, v in PRESETS[preset].values.items() if k not in ("trace", "jobs")}


def _check_positive_int(name: str, value: object) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ParameterError(f"{name} must be an integer >= 1, got {value!r}")


@dataclass(frozen=True, slots=True)
class ChosenWindow:
    """A window reserved in the last cycle: the chosen alternative of one job.

    Parameters
    ----------
    job_id, user : int
        Trace job number and user id.
    alternatives : int
        Alternatives found for the job in that cycle.
    user_evaluation : float
        ``U`` of the chosen alternative (rank or %, VO Preferences §3).
    start : float
        Window start, model time units.
    cost : float
        Window cost, cost units.
    """

    job_id: int
    user: int
    alternatives: int
    user_evaluation: float
    start: float
    cost: float


class LiveModel(VOModel):
    """The VOModel the page steps: built from the page's inputs, one cycle per ``step()``.

    Parameters
    ----------
    workload : str
        One of :data:`SCENARIOS` (default :data:`DEFAULT_SCENARIO`).
    policy : str
        The scheduling policy (:func:`~vosim.policies.base.policy_names`): the cyclic scheme
        ``"css"`` (default) or a batch baseline such as ``"easy"``; ``ua``, ``allocator``
        and ``alternatives`` act only on the CSS.
    owners : int
        Resource owners (>= 1).
    users : int
        Users (>= 1): synthetic jobs are spread over them, trace users regrouped
        (:func:`regroup_users`).
    pricing_policy : str
        ``"fixed"`` or ``"demand"``.
    vo_objective : str
        VO criterion of step 2: ``"cost"``, ``"runtime"`` or ``"finish"``.
    ua : float
        ``U_a``, the mean relative user evaluation allowed per job, % (>= 0; 100 is no limit).
    allocator : str
        :data:`BY_USER_CRITERION` or a registered window criterion applied to every user
        (``criterion_allocators={"finish": a, "runtime": a, "cost": a}``).
    max_alternatives : int
        Alternatives per job and cycle (>= 1; 1 is first fit, step 2 has no choice).
    load : str
        A key of :data:`LOADS` (owners' local load).
    availability : bool
        Utilization uncertainty (ICCS 2021/2023): predicted ``P_a^w`` and failing windows.
    rng : int
        Seed.

    Notes
    -----
    ``policy``, ``owners``, ``pricing_policy``, ``vo_objective``, ``ua``,
    ``max_alternatives`` and ``availability`` are the model's parameters
    (:data:`vosim.scenario.UI_PARAMETERS`), their defaults the declaration's UI values; they
    override the scenario's own values. ``workload``, ``users``, ``allocator`` and ``load`` are
    the page's own.

    Cycles run at ``0, c, 2c, ...`` (``c = cycle_period``). ``step()`` advances to the next
    cycle time after now and runs everything due by then; Mesa cannot run events at the
    current time, so the first step also runs the cycle at time 0. ``running`` turns
    ``False`` at the horizon or, draining, once every job is done. A lock serialises stepping,
    so the page's Play thread and its run-to-end task never advance the model at once.

    References
    ----------
    VO Preferences §2–4 (cyclic scheme, ``U_a``, ``A``); AEP §3.1.
    """

    def __init__(
        self,
        workload: str = DEFAULT_SCENARIO,
        policy: str = PARAMETERS["policy"].ui_value,
        owners: int = PARAMETERS["owners"].ui_value,
        users: int = 20,
        pricing_policy: str = PARAMETERS["pricing_policy"].ui_value,
        vo_objective: str = PARAMETERS["vo_objective"].ui_value,
        ua: float = PARAMETERS["ua"].ui_value,
        allocator: str = BY_USER_CRITERION,
        max_alternatives: int = PARAMETERS["max_alternatives"].ui_value,
        load: str = "scenario",
        availability: bool = PARAMETERS["availability"].ui_value,
        rng: int = 1,
    ) -> None:
        seed = int(rng)
        built = build_scenario(workload, users, np.random.default_rng(seed))
        kwargs = dict(built.model_kwargs)
        if load not in LOADS:
            raise ParameterError(f"unknown load {load!r}; expected one of {', '.join(LOADS)}")
        if isinstance(LOADS[load], str):
            kwargs["local_trace"] = LOADS[load]
        elif load != "scenario":
            kwargs["local_load"] = LOADS[load]
        if allocator != BY_USER_CRITERION:
            kwargs["criterion_allocators"] = one_criterion(allocator)
            kwargs["user_criteria"] = ("finish", "runtime", "cost")
        kwargs.update(
            owners=int(owners),
            policy=policy,
            pricing_policy=pricing_policy,
            vo_objective=vo_objective,
            ua=float(ua),
            max_alternatives=int(max_alternatives),
            availability=bool(availability),
        )
        super().__init__(trace=built.trace, jobs=None, rng=seed, **kwargs)
        self.scenario_name = workload
        self.scenario_description = built.description
        self.allocator = allocator
        self.allocators = dict(
            self.metascheduler.scheduler.criterion_allocators or {}
            if allocator == BY_USER_CRITERION
            else kwargs["criterion_allocators"]
        )
        self.load = load
        self.seed = seed
        #: Serialises stepping and reading (Play thread, run-to-end task, redraws).
        self.lock = threading.RLock()
        self._finished = False
        #: Windows reserved in the last cycle (the chosen combination).
        self.last_chosen: list[ChosenWindow] = []
        # Per cycle: (time, mean U of the jobs scheduled so far, Jain's index over users' mean
        # bounded slowdown of their completed jobs), updated incrementally from the running set.
        self._fair_rows: list[tuple[float, float, float]] = []
        self._open: list[Job] = []
        self._u_sum = 0.0
        self._u_count = 0
        position = {u.user_id: k for k, u in enumerate(self.users)}
        self._job_user = {j.job_id: position[j.user] for j in self.jobs}
        self._bsld_sum = np.zeros(len(self.users))
        self._bsld_count = np.zeros(len(self.users), dtype=np.int64)
        self.step = self.step_cycle  # Mesa's Step button calls model.step()

    # -- stepping ----------------------------------------------------------------------------
    def next_cycle_time(self) -> float:
        """The first cycle time after now, capped at the horizon (model time units)."""
        c = self.cycle_period
        return min(self.horizon, (math.floor(self.time / c + 1e-9) + 1) * c)

    def advance(self, until: float) -> None:
        """Run every event due by ``until`` (capped at the horizon); finish the run at its end.

        The run ends at the horizon, or (draining, the default) once every job is done or
        nothing more can change (:attr:`VOModel.ended`).

        Parameters
        ----------
        until : float
            Model time to advance to; ignored if not after now. Finite when draining.

        Raises
        ------
        ParameterError
            ``until`` is infinite and the run drains (no horizon to stop at).
        """
        with self.lock:
            until = min(float(until), self.horizon)
            if math.isinf(until):
                raise ParameterError("advance: the run drains; give a finite time")
            if until > self.time and not self.ended:
                self.run_until(until)
            if self.ended and not self._finished:
                self.finish()
                self._finished = True
            self.running = not self._finished

    def step_cycle(self) -> None:
        """Advance the model by one scheduling cycle (the page's Step button)."""
        self.advance(self.next_cycle_time())

    def chunk_end(self, chunks: int = 40) -> float:
        """End time of the next slice when the rest of the run is cut into ``chunks`` slices.

        Parameters
        ----------
        chunks : int
            Slices of the run's span (>= 1; the horizon, or draining the last submission:
            :attr:`VOModel.run_span`); a slice is at least one cycle.
        """
        step = max(self.run_span / max(chunks, 1), self.cycle_period)
        return min(self.horizon, self.time + step)

    # -- per-cycle records -------------------------------------------------------------------
    def record_cycle(self) -> None:
        """Record the cycle (see :meth:`VOModel.record_cycle`), the chosen windows and fairness.

        Jobs that left the running set completed since the last cycle add their bounded
        slowdown (``tau`` = 10) to their user's sum; jobs new in it are this cycle's choices.
        """
        super().record_cycle()
        ms = self.metascheduler
        changed, ledger = False, self.ledger
        for job in self._open:
            i = job.index
            if ledger.state[i] == "completed":
                run = max(ledger.finish[i] - ledger.start[i], 0.0)
                bsld = float(bounded_slowdown(ledger.start[i] - job.submit_time, run, tau=10.0))
                k = self._job_user[job.job_id]
                self._bsld_sum[k] += bsld
                self._bsld_count[k] += 1
                changed = True
        known = {id(j) for j in self._open}
        chosen = []
        for job in ms.execution.running.values():
            if id(job) not in known:
                i, u = job.index, ledger.user_evaluation[job.index]
                chosen.append(
                    ChosenWindow(
                        job.job_id,
                        job.user,
                        ledger.alternatives[i],
                        u,
                        ledger.start[i],
                        ledger.window_cost[i],
                    )
                )
                if not math.isnan(u):
                    self._u_sum += u
                    self._u_count += 1
        self.last_chosen = chosen
        self._open = list(ms.execution.running.values())
        if changed or chosen or not self._fair_rows:
            self._fair_rows.append((float(self.time), self.mean_user_evaluation, self.jain))

    @property
    def mean_user_evaluation(self) -> float:
        """Mean user evaluation ``U`` (%) of every job scheduled so far (NaN before any)."""
        return self._u_sum / self._u_count if self._u_count else math.nan

    @property
    def jain(self) -> float:
        """Jain's index over users' mean bounded slowdown (``tau`` = 10) of completed jobs."""
        done = self._bsld_count > 0
        if not done.any():
            return math.nan
        return jain_index(self._bsld_sum[done] / self._bsld_count[done])

    def fairness_frame(self) -> pd.DataFrame:
        """Columns ``time``, ``mean_user_evaluation`` (%) and ``jain`` (in (0, 1]).

        One row per cycle in which a job was scheduled or completed.
        """
        return pd.DataFrame.from_records(
            self._fair_rows, columns=["time", "mean_user_evaluation", "jain"]
        )
