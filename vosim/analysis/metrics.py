"""Per-job records and run metrics: wait, bounded slowdown, utilization, revenue, fairness."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from vosim.market.workload import JOB_STATES, Job

__all__ = ["JOB_COLUMNS", "job_table", "bounded_slowdown", "jain_index", "gini", "run_summary"]

#: Columns of ``jobs.parquet``: Batsim's ``_jobs.csv`` names first, then vosim's own.
JOB_COLUMNS: dict[str, str] = {
    "job_id": "job number from the trace",
    "submission_time": "submit time, model time units (s)",
    "requested_number_of_resources": "node count n of the resource request",
    "requested_time": "reservation time T on a reference-performance node, s",
    "starting_time": "window start, s (NaN if never scheduled)",
    "execution_time": "finish_time - starting_time, s",
    "finish_time": "completion time, s (NaN unless completed)",
    "waiting_time": "starting_time - submission_time, s",
    "turnaround_time": "finish_time - submission_time, s",
    "stretch": "turnaround_time / execution_time",
    "allocated_resources": "node ids, Batsim interval-set string such as '0-3 7'",
    "user": "user id (SWF field 12)",
    "owners": "ids of the owners whose nodes ran the job, space separated",
    "criterion": "user criterion (finish, runtime, cost)",
    "requested_processors": "processors asked for in the trace",
    "window_runtime": "reserved window runtime max_i T_i, s",
    "node_time": "node-seconds the job's tasks used (sum over its nodes; NaN unless completed)",
    "cost": "what the user paid, all attempts: sum over tasks of price x time run, cost units",
    "window_cost": "reserved window's cost sum_i price_i T_i (what was held), cost units",
    "failures": "attempts interrupted by a node being taken (availability runs)",
    "paid_for_failures": "what the user paid for interrupted attempts, cost units",
    "predicted_availability": "predicted P_a^w of the last window reserved (NaN if none)",
    "alternatives": "alternatives found in the cycle that scheduled the job (0 if never)",
    "user_evaluation": "user evaluation U of the chosen alternative (rank or %, NaN if none)",
    "budget": "budget C, cost units",
    "state": "completed, rejected or unfinished",
    "reason": "why a job was rejected or is unfinished; empty if completed",
}


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


def job_table(jobs: Sequence[Job], owner_of_node: Sequence) -> pd.DataFrame:
    """Build the per-job table (columns :data:`JOB_COLUMNS`), one row per job read.

    Parameters
    ----------
    jobs : sequence of Job
        All jobs of a finished run.
    owner_of_node : sequence
        ``owner_of_node[node_id].owner_id`` gives a node's owner.

    Returns
    -------
    pandas.DataFrame
        Times in model time units; NaN where a job never got that far.
    """
    rows = []
    for job in jobs:
        w = job.window
        completed = job.state == "completed"
        start = job.start if w is not None else np.nan
        finish = job.finish if completed else np.nan
        nodes = list(w.nodes) if w is not None else []
        rows.append(
            (
                job.job_id,
                job.submit_time,
                job.n,
                job.requested_time,
                start,
                finish - start,
                finish,
                start - job.submit_time,
                finish - job.submit_time,
                _interval_set(nodes),
                job.user,
                " ".join(str(o) for o in sorted({owner_of_node[k].owner_id for k in nodes})),
                job.criterion,
                job.requested_processors,
                w.runtime if w is not None else np.nan,
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
    return df


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


def run_summary(jobs: pd.DataFrame, node_count: int, revenue: Sequence[float]) -> dict:
    """Summarise a run: job counts by state, mean wait, bounded slowdown, utilization, revenue.

    Utilization is the node time used by completed jobs' tasks (column ``node_time``; tasks on
    faster nodes end earlier) over ``node_count`` times the span from the first submission to
    the last completion, in [0, 1].

    Parameters
    ----------
    jobs : pandas.DataFrame
        :func:`job_table` output.
    node_count : int
        Nodes of the domain.
    revenue : sequence of float
        Revenue of each owner, cost units.

    Fairness: ``users_jain_slowdown`` is Jain's index over users of their mean bounded
    slowdown (1: every user waits alike, relative to job length); ``owners_revenue_gini`` the
    Gini coefficient of the owners' revenue; ``mean_user_evaluation`` the mean U of the chosen
    alternatives (VO Preferences §3; NaN without alternatives).

    Returns
    -------
    dict
        JSON-serialisable numbers.
    """
    done = jobs[jobs["state"] == "completed"]
    counts = {s: int((jobs["state"] == s).sum()) for s in JOB_STATES}
    if len(done):
        span = float(done["finish_time"].max() - jobs["submission_time"].min())
        work = float(done["node_time"].sum())
        util = work / (node_count * span) if span > 0 else 0.0
        wait = float(done["waiting_time"].mean())
        bsld = float(bounded_slowdown(done["waiting_time"], done["execution_time"]).mean())
        makespan = span
        fairness = float("nan")
        if "user" in done:
            per_user = (
                done.assign(bsld=bounded_slowdown(done["waiting_time"], done["execution_time"]))
                .groupby("user")["bsld"]
                .mean()
            )
            fairness = jain_index(per_user.to_numpy())
    else:
        util = wait = bsld = makespan = fairness = float("nan")
    return {
        "jobs_read": len(jobs),
        **counts,
        "mean_wait": wait,
        "mean_bounded_slowdown": bsld,
        "utilization": util,
        "makespan": makespan,
        "owners_revenue": float(sum(revenue)),
        "owners_revenue_by_owner": [float(r) for r in revenue],
        "owners_revenue_gini": gini([max(0.0, float(r)) for r in revenue]),
        "users_jain_slowdown": fairness,
        "mean_user_evaluation": float(jobs["user_evaluation"].mean())
        if "user_evaluation" in jobs
        else float("nan"),
    }
