"""Per-job records and run metrics: wait, bounded slowdown, utilization, revenue, fairness."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from vosim.market.workload import JOB_STATES, Job

__all__ = [
    "JOB_COLUMNS",
    "BATSIM_COLUMNS",
    "BATSIM_FINAL_STATES",
    "batsim_final_state",
    "batsim_jobs",
    "job_table",
    "bounded_slowdown",
    "jain_index",
    "gini",
    "run_summary",
    "vo_evaluation_summary",
]

#: Columns of ``jobs.parquet``: Batsim's ``_jobs.csv`` columns first, in Batsim's order
#: (:data:`BATSIM_COLUMNS`, what ``vosim run --csv`` writes to ``jobs.csv``), then vosim's own.
JOB_COLUMNS: dict[str, str] = {
    "job_id": "job number from the trace",
    "workload_name": "the trace's name: VOModel's trace argument, a bundled name or a path",
    "profile": "Batsim profile name 'delay_<run_time>': the job as a delay of run_time s on a "
    "reference-performance node (tasks on other nodes take run_time x reference/performance)",
    "submission_time": "submit time, model time units (s)",
    "requested_number_of_resources": "node count n of the resource request",
    "requested_time": "reservation time T on a reference-performance node (the walltime), s",
    "success": "1 if final_state is COMPLETED_SUCCESSFULLY, else 0 (Batsim's definition)",
    "final_state": "Batsim job state (batsim_final_state): COMPLETED_SUCCESSFULLY, "
    "COMPLETED_WALLTIME_REACHED (completed, run_time >= requested_time), REJECTED (rejected "
    "or withdrawn: never ran); unfinished: RUNNING (started), SUBMITTED (waiting) or "
    "NOT_SUBMITTED (never submitted)",
    "starting_time": "window start, s (NaN if never scheduled)",
    "execution_time": "finish_time - starting_time, s",
    "finish_time": "completion time, s (NaN unless completed)",
    "waiting_time": "starting_time - submission_time, s",
    "turnaround_time": "finish_time - submission_time, s",
    "stretch": "turnaround_time / execution_time",
    "allocated_resources": "ids of the window's nodes, Batsim interval-set string such as "
    "'0-3 7' (empty if never scheduled)",
    "consumed_energy": "NaN: vosim models no energy (Batsim: joules, -1 without its energy plugin)",
    "metadata": "empty for a completed job (Batsim's default), else 'state: reason' (vosim's "
    "state and reason; Batsim: a string the decision process sets)",
    "user": "user id (SWF field 12)",
    "owners": "ids of the owners whose nodes ran the job, space separated",
    "criterion": "user criterion (finish, runtime, cost)",
    "requested_processors": "processors asked for in the trace",
    "window_runtime": "reserved window runtime max_i T_i, s",
    "run_time": "run time on a reference-performance node (the trace's, cut at requested_time), s",
    "left_time": "when a job that never completed left: withdrawn at submit + patience, or the "
    "run's end for an unfinished one, s (NaN otherwise)",
    "node_time": "node-seconds the job's tasks used (sum over its nodes; NaN unless completed)",
    "cost": "what the user paid, all attempts: sum over tasks of price x time run, cost units",
    "window_cost": "reserved window's cost sum_i price_i T_i (what was held), cost units",
    "failures": "attempts interrupted by a node being taken (availability runs)",
    "paid_for_failures": "what the user paid for interrupted attempts, cost units",
    "predicted_availability": "predicted P_a^w of the last window reserved (NaN if none)",
    "alternatives": "alternatives found in the cycle that scheduled the job (0 if never)",
    "user_evaluation": "user evaluation U of the chosen alternative (rank or %, NaN if none)",
    "budget": "budget C, cost units",
    "state": "completed, rejected, withdrawn or unfinished (vosim.market.workload.JOB_STATES)",
    "reason": "why a job was rejected, withdrawn or is unfinished; empty if completed",
}

#: Batsim's ``_jobs.csv`` columns in Batsim's order (Batsim docs, "Jobs" output file): the
#: first columns of :data:`JOB_COLUMNS` and all of ``jobs.csv`` (:func:`batsim_jobs`).
BATSIM_COLUMNS: tuple[str, ...] = (
    "job_id",
    "workload_name",
    "profile",
    "submission_time",
    "requested_number_of_resources",
    "requested_time",
    "success",
    "final_state",
    "starting_time",
    "execution_time",
    "finish_time",
    "waiting_time",
    "turnaround_time",
    "stretch",
    "allocated_resources",
    "consumed_energy",
    "metadata",
)

#: Batsim's job states, in the order of its ``JobState`` enum (the categories of column
#: ``final_state``). vosim writes ``COMPLETED_SUCCESSFULLY``, ``COMPLETED_WALLTIME_REACHED``,
#: ``REJECTED`` and, for a run cut short, ``SUBMITTED``/``RUNNING`` (and ``NOT_SUBMITTED``
#: mid-run); never ``COMPLETED_FAILED`` (no exit codes) nor ``COMPLETED_KILLED`` (vosim's
#: metascheduler kills no job; an interrupted attempt is requeued, see column ``failures``).
BATSIM_FINAL_STATES: tuple[str, ...] = (
    "NOT_SUBMITTED",
    "SUBMITTED",
    "RUNNING",
    "COMPLETED_SUCCESSFULLY",
    "COMPLETED_FAILED",
    "COMPLETED_WALLTIME_REACHED",
    "COMPLETED_KILLED",
    "REJECTED",
)


def batsim_final_state(
    state: str,
    run_time: float,
    requested_time: float,
    *,
    started: bool = False,
    submitted: bool = True,
) -> str:
    """Batsim's ``final_state`` of a vosim job: its outcome named as a Batsim job state.

    ============  =====================================================================
    vosim state   Batsim state
    ============  =====================================================================
    completed     ``COMPLETED_SUCCESSFULLY`` if ``run_time < requested_time``, else
                  ``COMPLETED_WALLTIME_REACHED`` (killed at its walltime)
    rejected      ``REJECTED`` (never ran)
    withdrawn     ``REJECTED`` (never ran: its user left, or it waited past the patience;
                  Batsim has no withdrawal)
    unfinished    ``RUNNING`` if ``started``, else ``SUBMITTED``, or ``NOT_SUBMITTED`` if
                  not ``submitted`` (the run ended first)
    pending       ``NOT_SUBMITTED`` (a run still under way)
    waiting       ``SUBMITTED`` (a run still under way)
    scheduled     ``RUNNING`` if ``started`` else ``SUBMITTED`` (a run still under way)
    ============  =====================================================================

    A job's run time is ``min(trace run time, requested_time)`` (it is killed at the end of
    its reservation), so ``run_time >= requested_time`` means it ran its whole walltime. As in
    Batsim, a delay equal to the walltime reaches it: a trace without requested times (NASA
    iPSC), whose ``requested_time`` is the run time, gives ``COMPLETED_WALLTIME_REACHED``.

    Parameters
    ----------
    state : str
        vosim job state (:data:`~vosim.market.workload.JOB_STATES`, or a state of a job in a
        run still under way: ``pending``, ``waiting``, ``scheduled``).
    run_time, requested_time : float
        The job's run time and requested time ``T`` on a reference-performance node, s.
    started : bool
        For ``unfinished`` and ``scheduled``: whether its window had started.
    submitted : bool
        For ``unfinished``: whether it had been submitted (entered the queue) by the end.

    Returns
    -------
    str
        One of :data:`BATSIM_FINAL_STATES`; ``success`` is 1 exactly for
        ``COMPLETED_SUCCESSFULLY``.

    Raises
    ------
    ValueError
        An unknown ``state``.

    References
    ----------
    Batsim documentation, "Jobs" output file (``final_state``, ``success``: completed before
    its walltime) and its ``JobState`` enum; a delay profile reaches the walltime unless the
    delay is strictly shorter (Batsim's delay-task execution).

    Examples
    --------
    >>> batsim_final_state("completed", 50.0, 100.0)
    'COMPLETED_SUCCESSFULLY'
    >>> batsim_final_state("completed", 100.0, 100.0)
    'COMPLETED_WALLTIME_REACHED'
    >>> batsim_final_state("withdrawn", 50.0, 100.0), batsim_final_state("unfinished", 5, 9)
    ('REJECTED', 'SUBMITTED')
    >>> batsim_final_state("unfinished", 5, 9, submitted=False)
    'NOT_SUBMITTED'
    """
    if state == "completed":
        return (
            "COMPLETED_SUCCESSFULLY" if run_time < requested_time else "COMPLETED_WALLTIME_REACHED"
        )
    if state in ("rejected", "withdrawn"):
        return "REJECTED"
    if state == "unfinished" and not submitted:
        return "NOT_SUBMITTED"
    if state in ("unfinished", "scheduled"):
        return "RUNNING" if started else "SUBMITTED"
    if state == "waiting":
        return "SUBMITTED"
    if state == "pending":
        return "NOT_SUBMITTED"
    raise ValueError(f"unknown job state {state!r}; known: {', '.join(JOB_STATES)}")


def _profile_name(run_time: float) -> str:
    """Batsim profile name of a job run as a delay: ``3600.0 -> 'delay_3600'``."""
    return f"delay_{run_time:.15g}"


def _interval_set(ids: Sequence[int]) -> str:
    """Batsim interval-set string of sorted node ids: ``[0, 1, 2, 3, 7] -> '0-3 7'``."""
    out: list[str] = []
    ids = sorted(ids)
    i = 0
    while i < len(ids):
        j = i
        while j + 1 < len(ids) and ids[j + 1] == ids[j] + 1:
            j += 1
        out.append(str(ids[i]) if i == j else f"{ids[i]}-{ids[j]}")
        i = j + 1
    return " ".join(out)


def job_table(
    jobs: Sequence[Job], owner_of_node: Sequence, *, workload_name: str = ""
) -> pd.DataFrame:
    """Build the per-job table (columns :data:`JOB_COLUMNS`), one row per job read.

    Its first columns are Batsim's ``_jobs.csv`` (:data:`BATSIM_COLUMNS`, in Batsim's order
    and meaning): ``final_state`` from :func:`batsim_final_state` (an ``unfinished`` job was
    submitted if it has a ``left_time``, the run's end, and started if its window starts
    before it),
    ``success`` 1 exactly for ``COMPLETED_SUCCESSFULLY``, ``profile`` ``'delay_<run_time>'``,
    ``consumed_energy`` NaN, ``metadata`` empty for completed jobs and ``'state: reason'``
    otherwise.

    Parameters
    ----------
    jobs : sequence of Job
        All jobs of a finished run, shape (k,).
    owner_of_node : sequence
        ``owner_of_node[node_id].owner_id`` gives a node's owner.
    workload_name : str
        Column ``workload_name``: the trace's name (``VOModel.trace_name``; default empty).

    Returns
    -------
    pandas.DataFrame
        Shape (k, len(JOB_COLUMNS)). Times in model time units (s); NaN where a job never
        got that far; ``state`` and ``final_state`` categorical.

    Raises
    ------
    ValueError
        A job in an unknown state (:func:`batsim_final_state`).

    References
    ----------
    Batsim documentation, "Jobs" output file, for the Batsim columns.
    """
    rows = []
    for job in jobs:
        w = job.window
        completed = job.state == "completed"
        start = job.start if w is not None else np.nan
        finish = job.finish if completed else np.nan
        nodes = list(w.nodes) if w is not None else []
        final = batsim_final_state(
            job.state,
            job.run_time,
            job.requested_time,
            started=w is not None and not job.start >= job.left_time,  # NaN: mid-run
            submitted=not math.isnan(job.left_time),  # unfinished: left the queue at the end
        )
        rows.append(
            (
                job.job_id,
                workload_name,
                _profile_name(job.run_time),
                job.submit_time,
                job.n,
                job.requested_time,
                int(final == "COMPLETED_SUCCESSFULLY"),
                final,
                start,
                finish - start,
                finish,
                start - job.submit_time,
                finish - job.submit_time,
                _interval_set(nodes),
                np.nan,
                "" if completed else f"{job.state}: {job.reason}".removesuffix(": "),
                job.user,
                " ".join(str(o) for o in sorted({owner_of_node[k].owner_id for k in nodes})),
                job.criterion,
                job.requested_processors,
                w.runtime if w is not None else np.nan,
                job.run_time,
                job.left_time,
                sum(e - start for e in job.task_ends) if completed else np.nan,
                job.paid + job.paid_for_failures,
                w.cost if w is not None else np.nan,
                job.failures,
                job.paid_for_failures,
                job.predicted_availability,
                job.alternatives,
                job.user_evaluation,
                job.budget,
                job.state,
                "" if completed else job.reason,
            )
        )
    cols = [c for c in JOB_COLUMNS if c != "stretch"]
    df = pd.DataFrame.from_records(rows, columns=cols)
    with np.errstate(divide="ignore", invalid="ignore"):
        stretch = df["turnaround_time"] / df["execution_time"]
    df.insert(cols.index("turnaround_time") + 1, "stretch", stretch.where(df["execution_time"] > 0))
    df["state"] = pd.Categorical(df["state"], categories=list(JOB_STATES))
    df["success"] = df["success"].astype("int64")
    df["final_state"] = pd.Categorical(df["final_state"], categories=list(BATSIM_FINAL_STATES))
    df["consumed_energy"] = df["consumed_energy"].astype("float64")
    return df


def batsim_jobs(jobs: pd.DataFrame) -> pd.DataFrame:
    """The Batsim ``_jobs.csv`` view of a job table: its :data:`BATSIM_COLUMNS`, in order.

    ``vosim run --csv`` writes it as ``jobs.csv`` (comma separated, a header, NaN as an empty
    field as Batsim leaves the times of rejected jobs empty), which evalys reads with
    ``JobSet.from_csv``.

    Parameters
    ----------
    jobs : pandas.DataFrame
        :func:`job_table` output, shape (k, len(JOB_COLUMNS)).

    Returns
    -------
    pandas.DataFrame
        Shape (k, 17): a copy of those columns (times in s).

    Raises
    ------
    KeyError
        ``jobs`` lacks a Batsim column.

    References
    ----------
    Batsim documentation, "Jobs" output file (columns and their order).
    """
    return jobs.loc[:, list(BATSIM_COLUMNS)].copy()


def bounded_slowdown(wait: np.ndarray, run: np.ndarray, tau: float = 10.0) -> np.ndarray:
    """Bounded slowdown ``max(1, (wait + run) / max(run, tau))``, elementwise.

    Parameters
    ----------
    wait, run : array_like, shape (k,)
        Wait and execution times, model time units.
    tau : float
        Threshold that keeps very short jobs from dominating (default 10 s).

    References
    ----------
    Feitelson, Rudolph, Schwiegelshohn, Sevcik, Wong, "Theory and practice in parallel job
    scheduling", JSSPP 1997 (bounded slowdown).

    Examples
    --------
    >>> bounded_slowdown([90.0, 0.0], [10.0, 1.0]).tolist()
    [10.0, 1.0]
    """
    wait = np.asarray(wait, dtype=float)
    run = np.asarray(run, dtype=float)
    return np.maximum(1.0, (wait + run) / np.maximum(run, tau))


def jain_index(x: Sequence[float]) -> float:
    """Jain's fairness index ``(sum x)^2 / (k * sum x^2)`` of ``k`` non-negative shares.

    1 when every share is equal, ``1/k`` when one holder has everything; NaN for no shares or
    all zero.

    Parameters
    ----------
    x : array_like, shape (k,)
        Non-negative allocations (e.g. per-user mean bounded slowdown or revenue).

    Raises
    ------
    ValueError
        A negative or non-finite share.

    References
    ----------
    Jain, Chiu, Hawe, "A Quantitative Measure of Fairness and Discrimination for Resource
    Allocation in Shared Computer Systems", DEC-TR-301, 1984.

    Examples
    --------
    >>> jain_index([3.0, 3.0, 3.0]), jain_index([1.0, 0.0, 0.0, 0.0])
    (1.0, 0.25)
    """
    x = np.asarray(x, dtype=float)
    if not np.isfinite(x).all() or (x < 0).any():
        raise ValueError(f"shares must be finite and >= 0, got {x.tolist()}")
    total = float((x**2).sum())
    if x.size == 0 or total == 0:
        return float("nan")
    return float(x.sum() ** 2 / (x.size * total))


def gini(x: Sequence[float]) -> float:
    """Gini coefficient of ``k`` non-negative shares, in [0, 1 - 1/k] (0: all equal).

    Parameters
    ----------
    x : array_like, shape (k,)
        Non-negative amounts (e.g. owners' revenue, cost units).

    Raises
    ------
    ValueError
        A negative or non-finite amount.

    References
    ----------
    The mean absolute difference over twice the mean: ``sum_ij |x_i - x_j| / (2 k^2 mean)``.

    Examples
    --------
    >>> gini([5.0, 5.0]), gini([0.0, 0.0, 0.0, 12.0])
    (0.0, 0.75)
    """
    x = np.asarray(x, dtype=float)
    if not np.isfinite(x).all() or (x < 0).any():
        raise ValueError(f"amounts must be finite and >= 0, got {x.tolist()}")
    if x.size == 0 or x.sum() == 0:
        return float("nan")
    x = np.sort(x)
    k = x.size
    # sum_ij |x_i - x_j| = 2 sum_i (2i - k - 1) x_(i), i = 1..k over the sorted amounts
    return float((2 * np.arange(1, k + 1) - k - 1) @ x / (k * x.sum()))


def run_summary(
    jobs: pd.DataFrame,
    node_count: int,
    revenue: Sequence[float],
    *,
    local_busy: float = 0.0,
    end: float | None = None,
) -> dict:
    """Summarise a run over every job that entered the queue, with completed-only beside.

    Headline figures cover **all** jobs that entered the queue (completed; withdrawn or
    unfinished after waiting, i.e. with a ``left_time``; not rejected jobs nor those never
    submitted, withdrawn with their departed user or cut by the horizon): a job
    that never started counts its wait until it left (``left_time``), a lower bound of the
    wait it would have had, flagged by ``mean_wait_lower_bound``; its bounded slowdown uses
    that wait and its run time. The same figures over completed jobs only carry the suffix
    ``_completed``. So a policy that strands jobs cannot look better for it (issue 18).

    Utilization is over the resources' time from the first submission to ``end``:
    ``utilization`` the VO's tasks (column ``node_time``, tasks on faster nodes end earlier),
    ``utilization_local`` the owners' local jobs (``local_busy``), ``utilization_total``
    both, each in [0, 1].

    Parameters
    ----------
    jobs : pandas.DataFrame
        :func:`job_table` output.
    node_count : int
        Resources (nodes) of the domain.
    revenue : sequence of float
        Revenue of each owner, cost units (the sum of what users paid for tasks that ran).
    local_busy : float
        Resource time the owners' local jobs occupied between the first submission and
        ``end``, resource x time units (default 0: dedicated resources).
    end : float, optional
        End of the period measured, model time units; default the last completion or
        departure in ``jobs``.

    Fairness: ``users_jain_slowdown`` is Jain's index over users of their mean bounded
    slowdown (1: every user waits alike, relative to job length); ``owners_revenue_gini`` the
    Gini coefficient of the owners' revenue; ``mean_user_evaluation`` the mean U of the chosen
    alternatives (VO Preferences §3; NaN without alternatives).

    Returns
    -------
    dict
        JSON-serialisable numbers (NaN where no job qualifies).

    References
    ----------
    Feitelson et al. (1997) for the bounded slowdown (tau = 10 s); Jain et al. (1984); issue
    18 of vosim for counting every job that entered the queue.
    """
    counts = {s: int((jobs["state"] == s).sum()) for s in JOB_STATES}
    state = jobs["state"].astype(str)
    entered = (state == "completed") | (
        state.isin(["withdrawn", "unfinished"]) & jobs["left_time"].notna()
    )
    q = jobs[entered]
    started = q["starting_time"].notna()
    wait = q["starting_time"].where(started, q["left_time"]) - q["submission_time"]
    completed = (q["state"] == "completed").to_numpy()
    run = q["execution_time"].where(completed, q["run_time"])
    bsld = pd.Series(bounded_slowdown(wait.to_numpy(), run.to_numpy()), index=q.index)
    first = float(jobs["submission_time"].min()) if len(jobs) else math.nan
    if end is None:
        end = float(np.nanmax([jobs["finish_time"].max(), jobs["left_time"].max(), first]))
    span = end - first
    vo_busy = float(jobs["node_time"].sum())  # NaN for jobs not completed is skipped

    def share(busy: float) -> float:
        return busy / (node_count * span) if span > 0 else math.nan

    def per_user(mask: np.ndarray) -> float:
        if not mask.any() or "user" not in q:
            return math.nan
        return jain_index(bsld[mask].groupby(q["user"][mask]).mean().to_numpy())

    def mean(x: pd.Series) -> float:
        return float(x.mean()) if len(x) else math.nan

    done = jobs[state == "completed"]
    return {
        "jobs_read": len(jobs),
        **counts,
        "jobs_entered": int(entered.sum()),
        "mean_wait": mean(wait),
        "mean_wait_lower_bound": bool((~started).any()),
        "mean_wait_completed": mean(wait[completed]),
        "mean_bounded_slowdown": mean(bsld),
        "mean_bounded_slowdown_completed": mean(bsld[completed]),
        "utilization": share(vo_busy),
        "utilization_local": share(local_busy),
        "utilization_total": share(vo_busy + local_busy),
        "makespan": float(done["finish_time"].max() - first) if len(done) else math.nan,
        "owners_revenue": float(sum(revenue)),
        "owners_revenue_by_owner": [float(r) for r in revenue],
        "owners_revenue_gini": gini([max(0.0, float(r)) for r in revenue]),
        "users_jain_slowdown": per_user(np.ones(len(q), dtype=bool)),
        "users_jain_slowdown_completed": per_user(completed),
        "mean_user_evaluation": float(jobs["user_evaluation"].mean())
        if "user_evaluation" in jobs
        else float("nan"),
    }


def vo_evaluation_summary(cycles: pd.DataFrame) -> dict:
    """The VO evaluation ``A`` over the cycles with a choice, and the share of such cycles.

    ``A`` is NaN in a cycle whose VO optimum equals the users' choice (no choice to make) and
    in cycles with no alternatives; its mean is taken over the cycles where it is defined,
    ``vo_choice_share`` is their share of the cycles that compared alternatives (``ua``
    defined).

    Parameters
    ----------
    cycles : pandas.DataFrame
        ``VOModel.cycle_frame()`` (columns ``vo_evaluation``, ``user_evaluation``).

    Returns
    -------
    dict
        ``mean_vo_evaluation`` (%, NaN if no cycle had a choice) and ``vo_choice_share``
        (in [0, 1], NaN if no cycle compared alternatives).

    References
    ----------
    VO Preferences §3 (``A``); issue 18 of vosim (A was averaged with zeros for no choice).
    """
    a = cycles["vo_evaluation"]
    compared = int(cycles["user_evaluation"].notna().sum())
    return {
        "mean_vo_evaluation": float(a.mean()) if a.notna().any() else math.nan,
        "vo_choice_share": float(a.notna().sum() / compared) if compared else math.nan,
    }
