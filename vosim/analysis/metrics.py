"""Per-job records and run metrics: wait, bounded slowdown, utilization, revenue, fairness."""

from __future__ import annotations

import math
from collections.abc import Sequence
from operator import add, attrgetter

import numpy as np
import pandas as pd

from vosim.market.workload import JOB_STATES, LIVE_STATES, Job

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
    "group_waits",
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
    "group": "the user's group (SWF field 13; LCG-2005-1: the experiment's VO), -1 if unknown",
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
    "failures": "attempts interrupted: a node taken (availability runs) or preempted by a "
    "local job",
    "displaced": "reservations cancelled before their start by an owner's local job",
    "paid_for_failures": "what the user paid for interrupted attempts, cost units",
    "predicted_availability": "predicted P_a^w of the last window reserved (NaN if none)",
    "alternatives": "alternatives found in the cycle that scheduled the job (0 if never)",
    "user_evaluation": "user evaluation U of the chosen alternative (rank or %, NaN if none)",
    "chosen_delay": "the part of waiting_time its user chose: starting_time less the earliest "
    "start of any window it could afford when its window was reserved (0 under policies that "
    "take the earliest; a reservation moved earlier since counts 0), s (NaN if never scheduled)",
    "budget": "budget C, cost units",
    "state": "completed, rejected, withdrawn or unfinished (vosim.market.workload.JOB_STATES); "
    "pending, waiting or scheduled in a run still going (LIVE_STATES)",
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
    k = len(jobs)
    get = attrgetter(*_JOB_FIELDS)
    rows = zip(*map(get, jobs), strict=True)  # one tuple per field
    col = dict(zip(_JOB_FIELDS, rows, strict=True)) if k else dict.fromkeys(_JOB_FIELDS, ())
    has_w = np.fromiter((w is not None for w in col["nodes"]), dtype=bool, count=k)
    state = np.array(col["state"], dtype=object)
    completed = state == "completed"
    submit = np.array(col["submit_time"], dtype=float)
    start = np.where(has_w, np.array(col["start"], dtype=float), np.nan)
    finish = np.where(completed, np.array(col["finish"], dtype=float), np.nan)
    run_time = np.array(col["run_time"], dtype=float)
    requested = np.array(col["requested_time"], dtype=float)
    left = np.array(col["left_time"], dtype=float)
    with np.errstate(invalid="ignore"):
        started = has_w & ~(start >= left)  # NaN left: mid-run, started
    final = _final_states(state, run_time, requested, started, ~np.isnan(left))
    nodes = [w for w in col["nodes"] if w is not None]
    sets, owners = _node_strings(nodes, np.flatnonzero(has_w), k, owner_of_node)
    reason = col["reason"]
    metadata = [
        "" if done else f"{s}: {r}".removesuffix(": ")
        for done, s, r in zip(completed.tolist(), col["state"], reason, strict=True)
    ]
    paid = np.array(col["paid"], dtype=float)
    paid_for_failures = np.array(col["paid_for_failures"], dtype=float)
    data = {
        "job_id": np.array(col["job_id"], dtype=np.int64),
        "workload_name": [workload_name] * k,
        "profile": [_profile_name(r) for r in col["run_time"]],
        "submission_time": submit,
        "requested_number_of_resources": np.array(col["n"], dtype=np.int64),
        "requested_time": requested,
        "success": (final == "COMPLETED_SUCCESSFULLY").astype(np.int64),
        "final_state": pd.Categorical(final, categories=list(BATSIM_FINAL_STATES)),
        "starting_time": start,
        "execution_time": finish - start,
        "finish_time": finish,
        "waiting_time": start - submit,
        "turnaround_time": finish - submit,
        "allocated_resources": sets,
        "consumed_energy": np.full(k, np.nan),
        "metadata": metadata,
        "user": np.array(col["user"], dtype=np.int64),
        "group": np.array(col["group"], dtype=np.int64),
        "owners": owners,
        "criterion": list(col["criterion"]),
        "requested_processors": np.array(col["requested_processors"], dtype=np.int64),
        "window_runtime": np.array(col["window_runtime"], dtype=float),
        "run_time": run_time,
        "left_time": left,
        "node_time": np.where(completed, np.array(col["node_time"], dtype=float), np.nan),
        "cost": paid + paid_for_failures,
        "window_cost": np.array(col["window_cost"], dtype=float),
        "failures": np.array(col["failures"], dtype=np.int64),
        "displaced": np.array(col["displaced"], dtype=np.int64),
        "paid_for_failures": paid_for_failures,
        "predicted_availability": np.array(col["predicted_availability"], dtype=float),
        "alternatives": np.array(col["alternatives"], dtype=np.int64),
        "user_evaluation": np.array(col["user_evaluation"], dtype=float),
        "chosen_delay": np.maximum(start - np.array(col["earliest_start"], dtype=float), 0.0),
        "budget": np.array(col["budget"], dtype=float),
        "state": pd.Categorical(state, categories=[*JOB_STATES, *LIVE_STATES]),
        "reason": ["" if done else r for done, r in zip(completed.tolist(), reason, strict=True)],
    }
    with np.errstate(divide="ignore", invalid="ignore"):
        stretch = data["turnaround_time"] / data["execution_time"]
    data["stretch"] = np.where(data["execution_time"] > 0, stretch, np.nan)
    df = pd.DataFrame({c: data[c] for c in JOB_COLUMNS})
    if k == 0:  # empty lists of text would be typed float
        df = df.astype({c: "str" for c, v in data.items() if isinstance(v, list)})
    return df


#: The :class:`~vosim.market.workload.Job` attributes :func:`job_table` reads.
_JOB_FIELDS = (
    "job_id", "user", "group", "submit_time", "n", "requested_time", "run_time",
    "requested_processors", "reason", "budget", "criterion", "state", "nodes", "start",
    "finish", "window_runtime", "window_cost", "node_time",
    "failures", "displaced", "paid", "paid_for_failures", "left_time", "predicted_availability",
    "alternatives", "user_evaluation", "earliest_start",
)  # fmt: skip


def _final_states(
    state: np.ndarray,
    run_time: np.ndarray,
    requested: np.ndarray,
    started: np.ndarray,
    submitted: np.ndarray,
) -> np.ndarray:
    """:func:`batsim_final_state` of every job (arrays of shape (k,)), one call per case.

    The jobs fall in a handful of cases (state, walltime reached, started, submitted); the
    rule is asked once per case, so it stays the one definition of the mapping.
    """
    if state.size == 0:
        return np.empty(0, dtype=object)
    names, code = np.unique(state.astype(str), return_inverse=True)
    reached = ~(run_time < requested)
    case = ((code * 2 + reached) * 2 + started) * 2 + submitted
    cases, at = np.unique(case, return_inverse=True)
    answers = np.empty(cases.size, dtype=object)
    for i, c in enumerate(cases.tolist()):
        s = names[c >> 3]  # reached: run_time >= requested_time (or NaN: not before it)
        answers[i] = batsim_final_state(
            s, 1.0 if c & 4 else 0.0, 1.0, started=bool(c & 2), submitted=bool(c & 1)
        )
    return answers[at]


def _node_strings(
    nodes: list[np.ndarray], rows: np.ndarray, k: int, owner_of_node: Sequence
) -> tuple[list[str], list[str]]:
    """Per job, the interval set of its window's nodes and its owners' ids (space separated).

    ``nodes[i]`` (node ids, int array) is the window of job ``rows[i]`` (of ``k``); jobs
    without a window get empty strings. ``owner_of_node[node].owner_id`` is an int >= 0.
    Runs of consecutive ids are found with numpy over all windows at once; only the strings
    are made per run.
    """
    sets, owners = [""] * k, [""] * k
    if not nodes:
        return sets, owners
    sizes = np.fromiter((a.size for a in nodes), dtype=np.int64, count=len(nodes))
    job = np.repeat(rows, sizes)
    ids = np.concatenate(nodes)
    order = np.lexsort((ids, job))
    ids, job = ids[order], job[order]
    first = np.ones(ids.size, dtype=bool)
    first[1:] = (np.diff(ids) != 1) | (job[1:] != job[:-1])
    lo = np.flatnonzero(first)
    hi = np.append(lo[1:], ids.size) - 1
    runs = [
        str(a) if a == b else f"{a}-{b}"
        for a, b in zip(ids[lo].tolist(), ids[hi].tolist(), strict=True)
    ]
    keys, texts = _joined(job[lo], runs)
    sets = _placed(k, keys, texts)
    owner_ids = np.array([owner_of_node[n].owner_id for n in range(len(owner_of_node))])
    span = int(owner_ids.max()) + 1
    pair = np.unique(job * span + owner_ids[ids])  # sorted by job, then owner id
    keys, texts = _joined(pair // span, [str(o) for o in (pair % span).tolist()])
    return sets, _placed(k, keys, texts)


def _placed(k: int, keys: np.ndarray, texts: list[str]) -> list[str]:
    """``k`` strings, ``texts[i]`` at position ``keys[i]`` (shape (r,)) and ``""`` elsewhere."""
    out = np.full(k, "", dtype=object)
    out[keys] = texts
    return out.tolist()


def _joined(keys: np.ndarray, items: list[str]) -> tuple[np.ndarray, list[str]]:
    """Join ``items`` by runs of equal sorted ``keys`` (shape (r,)): each run's key and text.

    Returns the runs' keys (shape (u,)) and texts (``u`` strings): the items of one run
    joined with spaces; the runs are cut from one string.
    """
    new = np.ones(len(items), dtype=bool)
    new[1:] = keys[1:] != keys[:-1]
    text = "".join(map(add, np.where(new, "\n", " ").tolist(), items))
    return keys[new], text[1:].split("\n")


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


def _entered_waits(
    jobs: pd.DataFrame,
) -> tuple[pd.Series, pd.DataFrame, pd.Series, pd.Series, pd.Series]:
    """The jobs that entered the queue and their waits (:func:`run_summary`'s definitions).

    Returns ``entered`` (bool per row of ``jobs``), ``q`` (those rows), their ``wait`` (to
    the start, or to leaving for a job that never started, s), the ``chosen`` part of it
    (s) and their bounded slowdown ``bsld``, each indexed like ``q``.
    """
    state = jobs["state"].astype(str)
    entered = (state == "completed") | (
        state.isin(["withdrawn", "unfinished"]) & jobs["left_time"].notna()
    )
    q = jobs[entered]
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
        :func:`job_table` output (columns ``group``, ``user``, ``state``, the times).

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
    done = jobs[state == "completed"]
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
    VO Preferences §3 (``A``); vosim's rule of averaging ``A`` over the cycles with a choice
    only (zeros for no choice would pull the mean down).
    """
    a = cycles["vo_evaluation"]
    compared = int(cycles["user_evaluation"].notna().sum())
    return {
        "mean_vo_evaluation": float(a.mean()) if a.notna().any() else math.nan,
        "vo_choice_share": float(a.notna().sum() / compared) if compared else math.nan,
    }
