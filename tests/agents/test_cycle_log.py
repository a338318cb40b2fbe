"""CycleLog: typed columns equal to the frame of the same rows as tuples."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from vosim.agents.cycle_log import CycleLog

NAMES = ("time", "batch", "value")
TYPES = "dqd"

rows = st.lists(
    st.tuples(
        st.floats(0, 1e9),
        st.integers(0, 10**6),
        st.one_of(st.floats(-1e6, 1e6), st.just(math.nan)),
    ),
    min_size=1,
    max_size=40,
)


@given(rows)
def test_the_frame_is_that_of_the_rows_as_records(logged):
    log = CycleLog(NAMES, TYPES)
    for row in logged:
        log.append(row)
    assert len(log) == len(logged)
    pd.testing.assert_frame_equal(log.frame(), pd.DataFrame.from_records(logged, columns=NAMES))


def test_a_float_in_an_integer_column_is_refused_and_the_row_not_logged():
    log = CycleLog(NAMES, TYPES)
    log.append((1.0, 2, 3.5))
    with pytest.raises(TypeError):
        log.append((2.0, 2.5, 1.0))
    assert len(log) == 1
    assert log.frame().to_dict("list") == {"time": [1.0], "batch": [2], "value": [3.5]}


def test_bad_shapes_are_named():
    with pytest.raises(ValueError, match="'d' or 'q'"):
        CycleLog(NAMES, "dq")
    with pytest.raises(ValueError, match="'d' or 'q'"):
        CycleLog(NAMES, "dxd")
    with pytest.raises(ValueError, match="3 values, got 2"):
        CycleLog(NAMES, TYPES).append((1.0, 2))


def test_no_cycle_gives_typed_empty_columns():
    frame = CycleLog(NAMES, TYPES).frame()
    assert list(frame.columns) == list(NAMES) and len(frame) == 0
    assert list(frame.dtypes) == [np.float64, np.int64, np.float64]


@given(rows)
def test_extend_logs_what_append_logs_row_by_row(logged):
    one, many = CycleLog(NAMES, TYPES), CycleLog(NAMES, TYPES)
    one.append(logged[0])
    many.append(logged[0])
    for row in logged[1:]:
        one.append(row)
    columns = list(zip(*logged[1:], strict=True)) or [(), (), ()]
    many.extend([np.array(columns[0], dtype=float), np.array(columns[1], dtype=np.int64),
                 np.array(columns[2], dtype=float)])  # fmt: skip
    pd.testing.assert_frame_equal(many.frame(), one.frame())


def test_extend_refuses_what_append_refuses():
    log = CycleLog(NAMES, TYPES)
    with pytest.raises(ValueError, match="3 columns, got 2"):
        log.extend([np.zeros(1), np.zeros(1, dtype=np.int64)])
    with pytest.raises(ValueError, match="lengths"):
        log.extend([np.zeros(1), np.zeros(2, dtype=np.int64), np.zeros(1)])
    with pytest.raises(TypeError, match="'batch' is integer"):
        log.extend([np.zeros(1), np.zeros(1), np.zeros(1)])
    assert len(log) == 0
