import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vosim.data import trace_path
from vosim.errors import ParameterError
from vosim.market.swf import read_swf
from vosim.policies.knapsack_rules import CREDIT_EXPONENT, MAX_OPTIONS
from vosim.runs.experiments.knapsack_grid_simulator.workload import (
    DEFAULT_CLUSTERS,
    GridTask,
    TaskOption,
    check_clusters,
    check_tasks,
    make_options,
    poisson_tasks,
    swf_tasks,
)


def test_default_clusters_are_the_slides():
    assert DEFAULT_CLUSTERS == (4, 8, 16, 32)


def test_options_of_a_one_processor_task_are_the_four_clusters():
    opts = make_options(1, 2.0, 5.0)
    assert [o.processors for o in opts] == [
        (1, 0, 0, 0),
        (0, 0, 0, 1),
        (0, 0, 1, 0),
        (0, 1, 0, 0),
    ]
    assert all(o.length == 2.0 and o.credit == 5.0 for o in opts)


def test_options_of_a_wide_task():
    opts = make_options(32, 1.0, 10.0)
    assert [o.processors for o in opts] == [(0, 0, 0, 32), (0, 0, 16, 16), (0, 0, 16, 0)]
    assert [o.length for o in opts] == pytest.approx([1.0, 1.1, 2.0])
    assert opts[1].credit == pytest.approx(10.0 * (1 / 1.1) ** 1.1)
    assert opts[2].credit == pytest.approx(10.0 * 0.5**1.1)


def test_odd_task_has_no_split_option():
    opts = make_options(3, 1.0, 1.0, (4, 4))
    assert [o.processors for o in opts] == [(3, 0), (1, 0), (0, 3)]
    assert opts[1].length == pytest.approx(3.0)  # 1 processor: work 3 x 1 conserved


def test_option_larger_than_any_cluster():
    with pytest.raises(ParameterError, match="larger than any cluster"):
        make_options(33, 1.0, 1.0)
    with pytest.raises(ParameterError):
        make_options(0, 1.0, 1.0)


@settings(max_examples=60, deadline=None)
@given(
    caps=st.lists(st.integers(0, 12), min_size=1, max_size=4).filter(lambda c: max(c) > 0),
    data=st.data(),
    length=st.floats(0.01, 100.0),
    credit=st.floats(0.0, 100.0),
)
def test_option_rules(caps, data, length, credit):
    p = data.draw(st.integers(1, max(caps)))
    opts = make_options(p, length, credit, caps)
    assert 1 <= len(opts) <= MAX_OPTIONS
    ref = opts[0]
    assert ref.length == length and ref.credit == credit and ref.total == p
    assert sum(1 for x in ref.processors if x) == 1
    k = ref.processors.index(p)
    assert caps[k] == min(c for c in caps if c >= p)  # the smallest fitting cluster
    seen = set()
    for o in opts:
        assert all(x <= c for x, c in zip(o.processors, caps, strict=True))
        assert o.processors not in seen
        seen.add(o.processors)
        # v_im / v_in = (T_in / T_im) ** 1.1
        assert o.credit == pytest.approx(credit * (length / o.length) ** CREDIT_EXPONENT)
        assert o.length * o.total >= length * p * (1 - 1e-12)  # never less work


def test_task_option_and_task_errors():
    with pytest.raises(ParameterError):
        TaskOption((-1, 2), 1.0, 1.0)
    with pytest.raises(ParameterError):
        TaskOption((0, 0), 1.0, 1.0)
    with pytest.raises(ParameterError):
        TaskOption((1,), 0.0, 1.0)
    with pytest.raises(ParameterError):
        TaskOption((1,), math.inf, 1.0)
    with pytest.raises(ParameterError):
        TaskOption((1,), 1.0, -1.0)
    with pytest.raises(ParameterError):
        TaskOption((1.5,), 1.0, 1.0)
    with pytest.raises(ParameterError):
        GridTask(0, 0.0, ())
    with pytest.raises(ParameterError):
        GridTask(0, 0.0, (TaskOption((1,), 1.0, 1.0), TaskOption((1, 0), 1.0, 1.0)))
    with pytest.raises(ParameterError):
        GridTask(0, -1.0, (TaskOption((1,), 1.0, 1.0),))


def test_task_arrays_are_read_only():
    t = GridTask(0, 0.0, make_options(2, 1.0, 1.0, (2, 2)))
    with pytest.raises(ValueError):
        t.demand[0, 0] = 5


def test_check_clusters_errors():
    assert check_clusters(np.array([4, 0])) == (4, 0)
    with pytest.raises(ParameterError, match=">= 0"):
        check_clusters([4, -1])
    with pytest.raises(ParameterError):
        check_clusters([])
    with pytest.raises(ParameterError):
        check_clusters([0, 0])
    with pytest.raises(ParameterError):
        check_clusters([4.5])
    with pytest.raises(ParameterError):
        check_clusters(4)


def test_check_tasks_errors():
    t = GridTask(0, 0.0, (TaskOption((8, 0), 1.0, 1.0),))
    assert check_tasks([t], (8, 1)) == (8, 1)
    with pytest.raises(ParameterError, match="cluster 0"):
        check_tasks([t], (4, 4))
    with pytest.raises(ParameterError, match="clusters"):
        check_tasks([t], (8,))
    with pytest.raises(ParameterError, match="twice"):
        check_tasks([t, t], (8, 0))


def test_poisson_stream_shape():
    ts = poisson_tasks(np.random.default_rng(3), tasks=2000, mean_interarrival=0.64)
    assert len(ts) == 2000
    assert [t.id for t in ts] == list(range(2000))
    submit = np.array([t.submit for t in ts])
    assert (np.diff(submit) >= 0).all()
    assert np.diff(submit, prepend=0.0).mean() == pytest.approx(0.64, rel=0.08)
    procs = np.array([t.options[0].total for t in ts])
    assert set(procs.tolist()) == {1, 2, 4, 8, 16, 32}
    n = np.array([t.reference_length for t in ts])
    assert ((n > 3.0).mean()) == pytest.approx(0.25, abs=0.05)  # the long mode
    near = {m: (np.abs(np.log(n) - np.log(m)) < 0.3).mean() for m in (1.0, 2.8, 8.0)}
    assert near[2.8] < near[8.0] / 1.5 < near[1.0]  # two modes, a valley between them
    credit = np.array([t.credit for t in ts])
    assert credit.min() >= 1.0 and credit.max() <= 10.0 and credit.std() > 2
    check_tasks(ts, DEFAULT_CLUSTERS)


def test_poisson_stream_is_reproducible():
    a = poisson_tasks(np.random.default_rng(5), tasks=20)
    b = poisson_tasks(np.random.default_rng(5), tasks=20)
    assert a == b


@pytest.mark.parametrize("lam", [0.0, -1.0, math.nan, math.inf])
def test_poisson_bad_lambda(lam):
    with pytest.raises(ParameterError, match="lambda"):
        poisson_tasks(np.random.default_rng(0), mean_interarrival=lam)


def test_poisson_errors():
    rng = np.random.default_rng(0)
    with pytest.raises(ParameterError, match="tasks"):
        poisson_tasks(rng, tasks=0)
    with pytest.raises(ParameterError, match=">= 0"):
        poisson_tasks(rng, clusters=(4, -8))
    with pytest.raises(ParameterError, match="rng"):
        poisson_tasks(0)


def test_swf_tasks_from_trace():
    frame = read_swf(trace_path("NASA-iPSC-1993-3.1-cln"), max_jobs=200)
    tasks = swf_tasks(frame)
    wide = frame["requested_processors"].where(
        frame["requested_processors"] > 0, frame["allocated_processors"]
    )
    assert (wide > 32).any() and (frame["run_time"] > 0).all()
    kept = frame[wide <= 32]
    t0 = kept["submit_time"].min()
    assert [t.id for t in tasks] == kept["job_id"].tolist()
    assert [t.submit for t in tasks] == pytest.approx(((kept["submit_time"] - t0) / 3600).tolist())
    assert [t.reference_length for t in tasks] == pytest.approx((kept["run_time"] / 3600).tolist())
    assert all(t.credit == 1.0 for t in tasks)
    check_tasks(tasks, DEFAULT_CLUSTERS)


def test_swf_tasks_drops_and_credits():
    frame = pd.DataFrame(
        {
            "job_id": [1, 2, 3, 4, 5],
            "submit_time": [100, 200, 300, 400, 7300],
            "run_time": [3600, -1, 0, 1800, 7200],
            "requested_processors": [4, 4, 2, 64, -1],
            "allocated_processors": [4, 4, 2, 64, 8],
        }
    )
    tasks = swf_tasks(frame, rng=np.random.default_rng(0))  # no run time: 2, 3; too wide: 4
    assert [t.id for t in tasks] == [1, 5]
    assert [t.submit for t in tasks] == [0.0, 2.0]
    assert [t.reference_length for t in tasks] == [1.0, 2.0]
    assert tasks[1].options[0].total == 8  # allocated when the request is unknown
    assert all(1.0 <= t.credit <= 10.0 for t in tasks) and tasks[0].credit != tasks[1].credit
    assert [t.credit for t in swf_tasks(frame)] == [1.0, 1.0]  # no rng: traces carry none
    frame.loc[0, "allocated_processors"] = -1
    frame.loc[0, "requested_processors"] = -1
    assert [t.id for t in swf_tasks(frame)] == [5]  # no processor count
    assert swf_tasks(frame.iloc[1:4]) == []
    with pytest.raises(ParameterError, match="lacks"):
        swf_tasks(frame.drop(columns="run_time"))
