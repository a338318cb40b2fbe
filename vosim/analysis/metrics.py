"""Per-job records and run metrics: wait, bounded slowdown, utilization, revenue, fairness."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from vosim.agents.ledger import BATSIM_COLUMNS, JOB_STATES

__all__ = [
    "batsim_jobs",
    "bounded_slowdown",
    "jain_index",
    "gini",
    "run_summary",
    "group_waits",
    "vo_evaluation_summary",
]


def batsim_jobs(jobs: pd.DataFrame) -> pd.DataFrame:
    """The Batsim ``_jobs.csv`` view of a job table: its :data:`BATSIM_COLUMNS`, in order.

    ``vosim run --csv`` writes it as ``jobs.csv`` (comma separated, a header, NaN as an empty
    field as Batsim leaves the times of rejected jobs empty), which evalys reads with
    ``JobSet.from_csv``.

    Parameters
    ----------
    jobs : pandas.DataFrame
        The job table (:meth:`vosim.agents.ledger.JobLedger.table`), shape
        (k, len(JOB_COLUMNS)).

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


#: The job table's columns the waits and their groupings read (:func:`_entered_waits`).
_WAIT_COLUMNS = (
    "submission_time", "starting_time", "left_time", "chosen_delay", "state",
    "execution_time", "run_time", "user", "group", "criterion",
)  # fmt: skip


def _entered_waits(
    jobs: pd.DataFrame,
) -> tuple[pd.Series, pd.DataFrame, pd.Series, pd.Series, pd.Series]:
    """The jobs that entered the queue and their waits (:func:`run_summary`'s definitions).

    Returns ``entered`` (bool per row of ``jobs``), ``q`` (those rows, with the columns of
    :data:`_WAIT_COLUMNS` that ``jobs`` has), their ``wait`` (to the start, or to leaving for
    a job that never started, s), the ``chosen`` part of it (s) and their bounded slowdown
    ``bsld``, each indexed like ``q``.
    """
    state = jobs["state"].astype(str)
    entered = (state == "completed") | (
        state.isin(["withdrawn", "unfinished"]) & jobs["left_time"].notna()
    )
    # the columns read, not the whole table: its text columns (resources, metadata) made
    # the copy the peak of a whole trace's output phase
    q = jobs.loc[entered, [c for c in _WAIT_COLUMNS if c in jobs]]
    started = q["starting_time"].notna()
    wait = q["starting_time"].where(started, q["left_time"]) - q["submission_time"]
    chosen = q["chosen_delay"].fillna(0.0) if "chosen_delay" in q else wait * 0.0
    completed = (q["state"] == "completed").to_numpy()
    run = q["execution_time"].where(completed, q["run_time"])
    bsld = pd.Series(bounded_slowdown(wait.to_numpy(), run.to_numpy()), index=q.index)
    return entered, q, wait, chosen, bsld


def group_waits(jobs: pd.DataFrame) -> pd.DataFrame:
    """Jobs and waits per group of users (SWF field 13; LCG-2005-1: the experiment's VO).

    The same definitions as :func:`run_summary` (every job that entered the queue counts,
    a job that never started with its wait until it left), per value of ``jobs["group"]``.

    Parameters
    ----------
    jobs : pandas.DataFrame
        The job table (:meth:`vosim.agents.ledger.JobLedger.table`; columns ``group``,
        ``user``, ``state``, the times).

    Returns
    -------
    pandas.DataFrame
        One row per group, sorted: ``group``, ``users`` (distinct users), ``jobs_read``,
        ``jobs_entered``, ``completed``, ``withdrawn``, ``rejected``, ``mean_wait``,
        ``mean_queue_wait`` (s; NaN where no job entered) and ``mean_bounded_slowdown``.

    Raises
    ------
    KeyError
        ``jobs`` lacks ``group`` or another column named above.

    References
    ----------
    Feitelson et al. (1997), the bounded slowdown; Feitelson et al., the Standard Workload
    Format (field 13, the group).
    """
    entered, q, wait, chosen, bsld = _entered_waits(jobs)
    per = pd.DataFrame(
        {"group": q["group"], "wait": wait, "queue": wait - chosen, "bsld": bsld}
    ).groupby("group")
    state = jobs["state"].astype(str)
    read = jobs.assign(
        entered=entered,
        completed=state == "completed",
        withdrawn=state == "withdrawn",
        rejected=state == "rejected",
    ).groupby("group", sort=True)
    frame = pd.DataFrame(
        {
            "users": read["user"].nunique(),
            "jobs_read": read.size(),
            "jobs_entered": read["entered"].sum(),
            "completed": read["completed"].sum(),
            "withdrawn": read["withdrawn"].sum(),
            "rejected": read["rejected"].sum(),
            "mean_wait": per["wait"].mean(),
            "mean_queue_wait": per["queue"].mean(),
            "mean_bounded_slowdown": per["bsld"].mean(),
        }
    )
    return frame.rename_axis("group").reset_index().astype({"group": np.int64})


def run_summary(
    jobs: pd.DataFrame,
    node_count: int,
    revenue: Sequence[float],
    *,
    local_busy: float = 0.0,
    end: float | None = None,
    criteria: Sequence[str] = (),
) -> dict:
    """Summarise a run over every job that entered the queue, with completed-only beside.

    Headline figures cover **all** jobs that entered the queue (completed; withdrawn or
    unfinished after waiting, i.e. with a ``left_time``; not rejected jobs nor those never
    submitted, withdrawn with their departed user or cut by the horizon): a job
    that never started counts its wait until it left (``left_time``), a lower bound of the
    wait it would have had, flagged by ``mean_wait_lower_bound``; its bounded slowdown uses
    that wait and its run time. The same figures over completed jobs only carry the suffix
    ``_completed``. So a policy that strands jobs cannot look better for it.

    Utilization is over the resources' time from the first submission to ``end``:
    ``utilization`` the VO's tasks (column ``node_time``, tasks on faster nodes end earlier),
    ``utilization_local`` the owners' local jobs (``local_busy``), ``utilization_total``
    both, each in [0, 1].

    Parameters
    ----------
    jobs : pandas.DataFrame
        The job table (:meth:`vosim.agents.ledger.JobLedger.table`).
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
    criteria : sequence of str, optional
        The users' criteria of the run (``"finish"``, ``"runtime"``, ``"cost"``,
        ``"availability"``): the waits are also given per criterion, over the jobs whose user
        prefers it (column ``criterion``), as ``mean_wait_<c>``, ``mean_chosen_delay_<c>``,
        ``mean_queue_wait_<c>`` and ``jobs_entered_<c>`` (NaN waits where none entered).

    Fairness: ``users_jain_slowdown`` is Jain's index over users of their mean bounded
    slowdown (1: every user waits alike, relative to job length); ``owners_revenue_gini`` the
    Gini coefficient of the owners' revenue; ``mean_user_evaluation`` the mean U of the chosen
    alternatives (VO Preferences §3; NaN without alternatives).

    Waits: ``mean_wait`` = ``mean_chosen_delay`` (the part users chose: a later window that is
    cheaper or faster, column ``chosen_delay``; 0 for a job that never started) +
    ``mean_queue_wait`` (the rest: no affordable window earlier), over the same jobs.

    Returns
    -------
    dict
        JSON-serialisable numbers (NaN where no job qualifies).

    References
    ----------
    Feitelson et al. (1997) for the bounded slowdown (tau = 10 s); Jain et al. (1984); vosim's
    rule of counting every job that entered the queue.
    """
    counts = {s: int((jobs["state"] == s).sum()) for s in JOB_STATES}
    state = jobs["state"].astype(str)
    entered, q, wait, chosen, bsld = _entered_waits(jobs)
    started = q["starting_time"].notna()
    completed = (q["state"] == "completed").to_numpy()
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

    by_criterion: dict[str, float | int] = {}
    for c in criteria:
        mine = (q["criterion"] == c).to_numpy() if "criterion" in q else np.zeros(len(q), bool)
        by_criterion[f"jobs_entered_{c}"] = int(mine.sum())
        by_criterion[f"mean_wait_{c}"] = mean(wait[mine])
        by_criterion[f"mean_chosen_delay_{c}"] = mean(chosen[mine])
        by_criterion[f"mean_queue_wait_{c}"] = mean((wait - chosen)[mine])
    finished = jobs["finish_time"][(state == "completed").to_numpy()]
    return {
        "jobs_read": len(jobs),
        **counts,
        "jobs_entered": int(entered.sum()),
        "mean_wait": mean(wait),
        "mean_wait_lower_bound": bool((~started).any()),
        "mean_wait_completed": mean(wait[completed]),
        "mean_chosen_delay": mean(chosen),
        "mean_queue_wait": mean(wait - chosen),
        **by_criterion,
        "mean_bounded_slowdown": mean(bsld),
        "mean_bounded_slowdown_completed": mean(bsld[completed]),
        "utilization": share(vo_busy),
        "utilization_local": share(local_busy),
        "utilization_total": share(vo_busy + local_busy),
        "makespan": float(finished.max() - first) if len(finished) else math.nan,
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
    VO Preferences §3 (``A``); vosim's rule of averaging ``A`` over the cycles with a choice
    only (zeros for no choice would pull the mean down).
    """
    a = cycles["vo_evaluation"]
    compared = int(cycles["user_evaluation"].notna().sum())
    return {
        "mean_vo_evaluation": float(a.mean()) if a.notna().any() else math.nan,
        "vo_choice_share": float(a.notna().sum() / compared) if compared else math.nan,
    }
