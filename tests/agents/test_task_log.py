"""The task log: columns that grow in place give the rows logged, in order, with their dtypes."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from vosim.agents.task_log import TaskLog

COLUMNS = ["job_id", "job", "user", "attempt", "resource", "node", "owner", "start", "end",
           "price", "cost"]  # fmt: skip


def test_an_empty_log_has_the_columns_and_dtypes():
    frame = TaskLog().frame(np.arange(4), np.zeros(4, dtype=np.int64))
    assert list(frame.columns) == COLUMNS
    assert len(frame) == 0
    ints = {"job_id", "job", "user", "attempt", "resource", "node", "owner"}
    assert all(frame[c].dtype == (np.int64 if c in ints else float) for c in COLUMNS)


windows = st.lists(
    st.tuples(
        st.integers(0, 10**6),
        st.integers(0, 1000),
        st.integers(0, 50),
        st.integers(1, 5),
        st.floats(0, 1e6),
        st.lists(st.integers(0, 39), min_size=1, max_size=70),
    ),
    max_size=80,
)


@given(windows)
def test_the_frame_is_the_rows_logged_in_order(logged):
    """Each window's tasks, one row each, across any number of regrowths of the columns."""
    node = np.arange(40) // 4  # four resources per physical node
    owner = np.arange(40) % 3
    log, rows = TaskLog(), []
    for job_id, job, user, attempt, start, resources in logged:
        res = np.array(resources, dtype=np.int64)
        ends = start + 1.0 + np.arange(res.size)
        price = 0.5 + res / 10
        cost = price * (ends - start)
        log.add(job_id, job, user, attempt, start, res, ends, price, cost)
        rows += [
            (job_id, job, user, attempt, r, node[r], owner[r], start, e, p, c)
            for r, e, p, c in zip(res.tolist(), ends, price, cost, strict=True)
        ]
    want = pd.DataFrame(rows, columns=COLUMNS).astype({c: np.int64 for c in COLUMNS[:7]})
    got = log.frame(node, owner)
    assert len(log) == len(rows) and log.windows == len(logged)
    pd.testing.assert_frame_equal(got, want.astype(got.dtypes.to_dict()), check_exact=True)
    # handed over rather than copied: the same table, and the log is spent
    pd.testing.assert_frame_equal(log.frame(node, owner, release=True), got, check_exact=True)
    with pytest.raises(RuntimeError, match="released"):
        log.frame(node, owner)


def test_the_frame_does_not_change_when_more_is_logged():
    log = TaskLog()
    log.add(1, 0, 0, 1, 0.0, np.array([2]), np.array([5.0]), np.array([1.0]), np.array([5.0]))
    first = log.frame(np.arange(3), np.zeros(3, dtype=np.int64))
    log.add(2, 1, 0, 1, 1.0, np.array([1]), np.array([9.0]), np.array([1.0]), np.array([8.0]))
    assert first["end"].tolist() == [5.0] and first["resource"].tolist() == [2]


def test_a_released_log_takes_no_more_tasks():
    log = TaskLog()
    log.add(1, 0, 0, 1, 0.0, np.array([2]), np.array([5.0]), np.array([1.0]), np.array([5.0]))
    table = log.frame(np.arange(3), np.zeros(3, dtype=np.int64), release=True)
    with pytest.raises(RuntimeError, match="released"):
        log.add(2, 1, 0, 1, 1.0, np.array([1]), np.array([9.0]), np.array([1.0]), np.array([8.0]))
    assert table["cost"].tolist() == [5.0]


@given(windows)
def test_extend_logs_what_add_logs_window_by_window(logged):
    """Many windows at once (the replay's way) give the frame of one add per window."""
    node, owner = np.arange(40) // 4, np.arange(40) % 3
    one, many = TaskLog(), TaskLog()
    for job_id, job, user, attempt, start, resources in logged:
        r = np.array(resources)
        ends = start + np.arange(r.size, dtype=float)
        one.add(job_id, job, user, attempt, start, r, ends, np.full(r.size, 2.0), ends - start)
    sizes = np.array([len(w[5]) for w in logged], dtype=np.int64)
    resources = np.concatenate([np.array(w[5]) for w in logged] or [np.empty(0, np.int64)])
    starts = np.array([w[4] for w in logged], dtype=float)
    ends = np.repeat(starts, sizes) + np.concatenate(
        [np.arange(s, dtype=float) for s in sizes] or [np.empty(0)]
    )
    many.extend(
        {
            **{k: np.array([w[i] for w in logged], dtype=np.int64)
               for i, k in enumerate(("job_id", "job", "user", "attempt"))},
            "start": starts,
            "size": sizes,
        },
        {"resource": resources.astype(np.int64), "end": ends,
         "price": np.full(ends.size, 2.0), "cost": ends - np.repeat(starts, sizes)},
    )  # fmt: skip
    pd.testing.assert_frame_equal(many.frame(node, owner), one.frame(node, owner))


def test_extend_refuses_columns_that_disagree():
    log = TaskLog()
    window = {k: np.zeros(1, dtype=np.int64) for k in ("job_id", "job", "user", "attempt")}
    window |= {"start": np.zeros(1), "size": np.array([2])}
    tasks = {"resource": np.zeros(1, dtype=np.int64), "end": np.zeros(1), "price": np.zeros(1),
             "cost": np.zeros(1)}  # fmt: skip
    with pytest.raises(ValueError, match="task column 'resource' has 1 values, not 2"):
        log.extend(window, tasks)
    assert len(log) == 0 and log.windows == 0
    log.frame(np.arange(4), np.zeros(4, dtype=np.int64), release=True)
    with pytest.raises(RuntimeError, match="released"):
        log.extend(window, {k: np.zeros(2) for k in tasks})


def _logged(logged) -> TaskLog:
    """A log of ``logged`` windows (the strategy's tuples), tasks ending one apart."""
    log = TaskLog()
    for job_id, job, user, attempt, start, resources in logged:
        res = np.array(resources, dtype=np.int64)
        ends = start + 1.0 + np.arange(res.size)
        log.add(job_id, job, user, attempt, start, res, ends, np.full(res.size, 2.0), ends - start)
    return log


@given(windows, st.integers(1, 200), st.booleans())
def test_frames_cut_the_frame_at_window_boundaries(logged, rows, release):
    """Their concatenation is the frame; each holds whole windows, ``rows`` at most unless
    it is one window of more tasks."""
    node, owner = np.arange(40) // 4, np.arange(40) % 3
    log = _logged(logged)
    whole = log.frame(node, owner)
    parts = list(log.frames(node, owner, rows, release=release))
    assert len(parts) >= 1
    pd.testing.assert_frame_equal(pd.concat(parts, ignore_index=True), whole, check_exact=True)
    sizes = [len(w[5]) for w in logged]
    bounds, first = set(np.cumsum([0, *sizes]).tolist()), 0
    for part in parts:
        assert first in bounds and first + len(part) in bounds
        assert len(part) <= rows or len(part) in sizes
        first += len(part)
    if release:
        with pytest.raises(RuntimeError, match="released"):
            log.frames(node, owner, rows)  # taken when called, not at the first frame
    else:
        parts[0]["end"] = -1.0  # a frame is its own: writing to it leaves the log as it was
        pd.testing.assert_frame_equal(log.frame(node, owner), whole, check_exact=True)


def test_frames_need_a_positive_row_count():
    with pytest.raises(ValueError, match="rows must be at least 1, got 0"):
        TaskLog().frames(np.arange(4), np.zeros(4, dtype=np.int64), 0)


def test_a_frame_of_some_columns_is_those_of_the_whole_frame():
    log = _logged([(7, 0, 1, 1, 0.0, [0, 5, 9]), (8, 1, 2, 1, 3.0, [2])])
    node, owner = np.arange(10) // 2, np.arange(10) % 3
    some = log.frame(node, owner, columns=["owner", "end", "job"])
    pd.testing.assert_frame_equal(some, log.frame(node, owner)[["owner", "end", "job"]])
    with pytest.raises(ValueError, match="no column 'group'"):
        log.frame(node, owner, columns=["group"])
