"""The VO tasks that ran, as columns that grow in place: what ``tasks.parquet`` is made of."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence

import numpy as np
import pandas as pd

__all__ = ["COLUMNS", "TaskLog"]

#: The per-window columns (one value per window that ended) and their dtypes.
_WINDOW = (("job_id", np.int64), ("job", np.int64), ("user", np.int64), ("attempt", np.int64),
           ("start", float), ("size", np.int64))  # fmt: skip
#: The per-task columns (one value per slot of a window that ended) and their dtypes.
_TASK = (("resource", np.int64), ("end", float), ("price", float), ("cost", float))


class TaskLog:
    """Every VO task that ran (completed or interrupted), in the order their windows ended.

    A window's tasks are logged together when its job completes or is interrupted: one row
    per window (job id, the job's position in the trace, user, attempt, start, number of
    tasks) and one per task (resource, end, price, cost). Columns are numpy arrays whose
    room doubles when it runs out (``O(n)`` amortised per window of ``n`` tasks), so a run of
    ``r`` tasks holds ``O(r)`` numbers rather than four small arrays per window.

    References
    ----------
    vosim's record of what owners sold (a user pays for what ran: VO Preferences §2, a
    window's cost is the sum of its slots' price times time).
    """

    def __init__(self) -> None:
        self._w = {name: np.empty(64, dtype=dt) for name, dt in _WINDOW}
        self._t = {name: np.empty(256, dtype=dt) for name, dt in _TASK}
        self.windows = 0  #: windows logged
        self._tasks = 0

    def __len__(self) -> int:
        """Tasks logged."""
        return self._tasks

    def add(
        self,
        job_id: int,
        job: int,
        user: int,
        attempt: int,
        start: float,
        resources: np.ndarray,
        ends: np.ndarray,
        prices: np.ndarray,
        costs: np.ndarray,
    ) -> None:
        """Log one window's tasks.

        Parameters
        ----------
        job_id, job, user, attempt : int
            The job's SWF id, its position in the trace, its user and the window's attempt.
        start : float
            When the window's tasks started, model time units.
        resources : numpy.ndarray of int, shape (n,)
            Each task's resource id.
        ends, prices, costs : numpy.ndarray of float, shape (n,)
            Each task's end (model time units), price (cost units per time unit) and cost
            (``price * (end - start)``, cost units).

        Raises
        ------
        RuntimeError
            The log was released (:meth:`frame` with ``release``).
        """
        if self._t is None:
            raise RuntimeError("the task log was released to a task table: nothing more is logged")
        n = resources.size
        w, t = self.windows, self._tasks
        if w == self._w["job"].size:
            self._w = _grown(self._w, w + 1)
        if t + n > self._t["end"].size:
            self._t = _grown(self._t, t + n)
        for name, value in zip(
            ("job_id", "job", "user", "attempt", "start", "size"),
            (job_id, job, user, attempt, start, n),
            strict=True,
        ):
            self._w[name][w] = value
        for name, values in zip(_TASK_NAMES, (resources, ends, prices, costs), strict=True):
            self._t[name][t : t + n] = values
        self.windows, self._tasks = w + 1, t + n

    def extend(self, windows: Mapping[str, np.ndarray], tasks: Mapping[str, np.ndarray]) -> None:
        """Log many windows' tasks at once, in order (what :meth:`add` logs one window of).

        Parameters
        ----------
        windows : mapping of str to numpy.ndarray, shape (w,) each
            ``job_id``, ``job``, ``user``, ``attempt``, ``start`` (model time units) and
            ``size`` (tasks of the window) of each window.
        tasks : mapping of str to numpy.ndarray, shape (sum of sizes,) each
            ``resource``, ``end`` (model time units), ``price`` (cost units per time unit)
            and ``cost`` (cost units) of each task, window after window.

        Raises
        ------
        ValueError
            A column missing, or columns whose lengths disagree (nothing is logged).
        RuntimeError
            The log was released (:meth:`frame` with ``release``).

        References
        ----------
        None: vosim's record of the tasks that ran (what users paid owners for).
        """
        if self._t is None:
            raise RuntimeError("the task log was released to a task table: nothing more is logged")
        w = len(windows["size"])
        n = int(np.sum(windows["size"]))
        for name, values in ((k, windows[k]) for k, _ in _WINDOW):
            if len(values) != w:
                raise ValueError(f"window column {name!r} has {len(values)} values, not {w}")
        for name, values in ((k, tasks[k]) for k in _TASK_NAMES):
            if len(values) != n:
                raise ValueError(f"task column {name!r} has {len(values)} values, not {n}")
        at_w, at_t = self.windows, self._tasks
        if at_w + w > self._w["job"].size:
            self._w = _grown(self._w, at_w + w)
        if at_t + n > self._t["end"].size:
            self._t = _grown(self._t, at_t + n)
        for name, _ in _WINDOW:
            self._w[name][at_w : at_w + w] = windows[name]
        for name in _TASK_NAMES:
            self._t[name][at_t : at_t + n] = tasks[name]
        self.windows, self._tasks = at_w + w, at_t + n

    def frame(
        self,
        resource_node: np.ndarray,
        owner_of_resource: np.ndarray,
        *,
        release: bool = False,
        columns: Sequence[str] | None = None,
    ) -> pd.DataFrame:
        """One row per task, in the order logged.

        Columns (:data:`COLUMNS`) ``job_id``, ``job``, ``user``, ``attempt``, ``resource``,
        ``node`` (its physical node: ``resource_node[resource]``), ``owner``
        (``owner_of_resource[resource]``), ``start``, ``end``, ``price``, ``cost``; the ids
        int64, the rest float64 (model time units; cost units per time unit; cost units).
        Both arguments are int arrays indexed by resource id, shape (N,). ``columns``: only
        these, in the order given (a reader of a few columns need not build the rest).

        With ``release`` the log hands its per-task columns to the frame rather than copying
        them, and is empty afterwards: for a caller done with the run, which writes the table
        and frees the model (the copies are ~17 MB on whole UniLu-Gaia's 517,768 tasks).

        Raises
        ------
        IndexError
            A resource id beyond ``resource_node`` or ``owner_of_resource``.
        ValueError
            A name in ``columns`` that is not a column (it is named).
        RuntimeError
            The log was released by an earlier ``frame`` or :meth:`frames` with ``release``.

        References
        ----------
        None: vosim's record of the tasks that ran.
        """
        names = _checked(COLUMNS if columns is None else tuple(columns))
        windows, tasks, w, t = self._taken(release)
        return _rows(windows, tasks, (0, w), (0, t), resource_node, owner_of_resource, names,
                     copy=not release)  # fmt: skip

    def frames(
        self,
        resource_node: np.ndarray,
        owner_of_resource: np.ndarray,
        rows: int,
        *,
        release: bool = False,
    ) -> Iterator[pd.DataFrame]:
        """:meth:`frame` cut into consecutive frames of whole windows, ~``rows`` rows each.

        Each frame holds the windows that end within ``rows`` tasks of its first (at least
        one window: a window of more tasks is one frame of its own); their concatenation is
        :meth:`frame`, row for row. A log of no task gives one empty frame. For a writer of
        row groups (:func:`vosim.runs.store.write_table`): only one frame's derived columns
        are built at a time, not the whole table's (~30 MB on whole UniLu-Gaia). The log is
        taken (and, with ``release``, emptied) when this is called, not at the first frame.

        Raises
        ------
        ValueError
            ``rows`` < 1.
        RuntimeError
            The log was released before.

        References
        ----------
        Apache Parquet's row groups; no paper.
        """
        if rows < 1:
            raise ValueError(f"rows must be at least 1, got {rows}")
        windows, tasks, w, _ = self._taken(release)
        ends = np.cumsum(windows["size"][:w])  # tasks logged up to each window's end

        def cut() -> Iterator[pd.DataFrame]:
            low_w = low_t = 0
            while True:
                high_w = max(int(np.searchsorted(ends, low_t + rows, side="right")), low_w + 1)
                high_w = min(high_w, w)
                high_t = int(ends[high_w - 1]) if high_w else 0
                yield _rows(windows, tasks, (low_w, high_w), (low_t, high_t), resource_node,
                            owner_of_resource, COLUMNS, copy=not release)  # fmt: skip
                if high_w >= w:
                    return
                low_w, low_t = high_w, high_t

        return cut()

    def _taken(self, release: bool) -> tuple[dict, dict, int, int]:
        """The window and task columns and their lengths; with ``release`` the log lets go."""
        if self._t is None:
            raise RuntimeError("the task log was released to an earlier task table")
        taken = (self._w, self._t, self.windows, self._tasks)
        if release:
            self._w = self._t = None
        return taken


#: The task table's columns, in order (:meth:`TaskLog.frame`).
COLUMNS = ("job_id", "job", "user", "attempt", "resource", "node", "owner", "start", "end",
           "price", "cost")  # fmt: skip


def _checked(names: tuple[str, ...]) -> tuple[str, ...]:
    """``names``, each a column of :data:`COLUMNS`; else ``ValueError`` naming the first not."""
    for name in names:
        if name not in COLUMNS:
            raise ValueError(f"the task table has no column {name!r} (it has {', '.join(COLUMNS)})")
    return names


def _rows(
    windows: dict[str, np.ndarray],
    tasks: dict[str, np.ndarray],
    window_range: tuple[int, int],
    task_range: tuple[int, int],
    resource_node: np.ndarray,
    owner_of_resource: np.ndarray,
    names: tuple[str, ...],
    copy: bool,
) -> pd.DataFrame:
    """The table's ``names`` columns for the windows of ``window_range`` (``[lo, hi)``).

    Their tasks are ``task_range``: per-window values are repeated per task, node and owner
    looked up by resource, the task columns sliced (copied when ``copy``).
    """
    (low_w, high_w), (low_t, high_t) = window_range, task_range
    size = windows["size"][low_w:high_w]
    resource = tasks["resource"][low_t:high_t]

    def column(name: str) -> np.ndarray:
        if name in ("job_id", "job", "user", "attempt", "start"):
            return np.repeat(windows[name][low_w:high_w], size)
        if name == "node":
            return np.asarray(resource_node, dtype=np.int64)[resource]
        if name == "owner":
            return np.asarray(owner_of_resource, dtype=np.int64)[resource]
        values = tasks[name][low_t:high_t]
        return values.copy() if copy else values

    # every column is the frame's own array: taken as it is (copy=False: no second copy
    # into per-dtype blocks)
    return pd.DataFrame({name: column(name) for name in names}, copy=False)


_TASK_NAMES = tuple(name for name, _ in _TASK)


def _grown(columns: dict[str, np.ndarray], need: int) -> dict[str, np.ndarray]:
    """The columns copied into room for at least ``need`` rows (twice the old room or more)."""
    room = max(2 * next(iter(columns.values())).size, need)
    grown = {}
    for name, old in columns.items():
        new = np.empty(room, dtype=old.dtype)
        new[: old.size] = old
        grown[name] = new
    return grown
