import itertools
import math
from collections import defaultdict

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vosim.errors import ParameterError
from vosim.runs.experiments.knapsack_grid_simulator import (
    EASY,
    FCFS,
    Gang,
    GridResult,
    GridTask,
    Knapsack,
    KnapsackBackfill,
    Strategy,
    TaskOption,
    simulate,
)
from vosim.runs.experiments.knapsack_grid_simulator.workload import make_options, poisson_tasks

STRATEGIES = {
    "FCFS": FCFS,
    "EASY": EASY,
    "Gang 0.5": lambda: Gang(0.5),
    "Gang 2": lambda: Gang(2.0),
    **{f"KS{p}": (lambda p=p: Knapsack(p, 1.0)) for p in (1, 2, 3, 4, 5)},
    "KS1 tau 0.75": lambda: Knapsack(1, 0.75),
    **{f"KS+BF{p}": (lambda p=p: KnapsackBackfill(p, 0.5)) for p in (1, 2, 4)},
}


@st.composite
def streams(draw, max_tasks=12, max_cap=8):
    """Small random grids and streams; quarter-hour times make events coincide."""
    caps = tuple(draw(st.lists(st.integers(1, max_cap), min_size=1, max_size=3)))
    n = draw(st.integers(1, max_tasks))
    tasks = []
    for i in range(n):
        submit = draw(st.integers(0, 40)) / 4
        p = draw(st.integers(1, max(caps)))
        length = draw(st.integers(1, 16)) / 4
        credit = draw(st.integers(1, 10))
        tasks.append(GridTask(i, submit, make_options(p, length, credit, caps)))
    return caps, tasks


def check_run(result: GridResult, tasks, caps, preemptive=True):
    """Independent checks of a run from its segments: capacity, work, times."""
    by_id = {t.id: t for t in tasks}
    df = result.tasks
    assert sorted(df["task_id"]) == sorted(by_id)
    assert df["finish"].notna().all() and df["first_start"].notna().all()
    segs = result.segments
    assert (segs["end"] > segs["start"]).all()
    # capacity, swept over segment boundaries (a segment holds [start, end))
    events = []
    for s in segs.itertuples():
        d = by_id[s.task_id].demand[s.option]
        events.append((s.start, 1, d))
        events.append((s.end, 0, -d))
    events.sort(key=lambda e: (e[0], e[1]))
    used = np.zeros(len(caps), dtype=np.int64)
    for _, _, d in events:
        used += d
        assert (used <= np.asarray(caps)).all(), used
    assert (used == 0).all()
    cyc = result.cycles
    for k, c in enumerate(caps):
        assert (cyc[f"used_{k}"] <= c).all()
    # each task: disjoint segments whose fractions add to 1, within its first start and finish
    per_task = defaultdict(list)
    for s in segs.itertuples():
        per_task[s.task_id].append(s)
    for row in df.itertuples():
        t = by_id[row.task_id]
        ss = sorted(per_task[row.task_id], key=lambda s: s.start)
        assert ss, row
        assert math.isclose(sum(s.fraction for s in ss), 1.0, abs_tol=1e-9)
        for s in ss:
            assert math.isclose(
                s.fraction, (s.end - s.start) / t.lengths[s.option], rel_tol=1e-9, abs_tol=1e-9
            )
        for a, b in itertools.pairwise(ss):
            assert a.end <= b.start
        assert row.first_start == ss[0].start >= row.submit
        assert row.finish == ss[-1].end
        assert row.finish >= row.submit + t.lengths.min() - 1e-9
        assert row.n_preemptions == len(ss) - 1
        assert row.turnaround == pytest.approx(row.finish - row.submit)
        if not preemptive:
            assert len(ss) == 1
    assert result.overall_completion_time == df["finish"].max()


@pytest.mark.parametrize("name", list(STRATEGIES))
@settings(max_examples=25, deadline=None)
@given(stream=streams())
def test_capacity_and_completion_for_every_strategy(name, stream):
    caps, tasks = stream
    strategy = STRATEGIES[name]()
    result = simulate(tasks, caps, strategy)
    check_run(result, tasks, caps, preemptive=strategy.preemptive)


@pytest.mark.parametrize("name", ["FCFS", "EASY", "Gang 2", "KS2", "KS+BF1"])
def test_full_checks_on_a_synthetic_stream(name):
    tasks = poisson_tasks(np.random.default_rng(11), tasks=150, mean_interarrival=0.5)
    result = simulate(tasks, (4, 8, 16, 32), STRATEGIES[name]())
    check_run(result, tasks, (4, 8, 16, 32), preemptive=name not in ("FCFS", "EASY"))


class Switcher(Strategy):
    """Runs task 0 on option 0 in the first cycle, then moves it to option 1."""

    name = "switcher"
    period = 1.0
    preemptive = True

    def decide(self, state):
        if not state.tick:
            return dict(state.running)
        self.seen = [*getattr(self, "seen", []), (state.now, state.remaining(0))]
        return {0: 0 if state.now < 1 else 1}


def test_preempted_task_resumes_on_another_option_with_its_remaining_work():
    t = GridTask(0, 0.0, (TaskOption((2,), 4.0, 1.0), TaskOption((1,), 8.0, 1.0)))
    s = Switcher()
    r = simulate([t], (2,), s)
    # 1 h on option 0 does 1/4 of the work; 3/4 x 8 h remain on option 1
    assert r.tasks["finish"].tolist() == [pytest.approx(7.0)]
    assert r.tasks["n_preemptions"].tolist() == [1]
    assert r.segments[["option", "start", "end"]].to_numpy().tolist() == [
        [0, 0.0, 1.0],
        [1, 1.0, pytest.approx(7.0)],
    ]
    assert r.segments["fraction"].tolist() == pytest.approx([0.25, 0.75])
    assert s.seen[:3] == [(0.0, 1.0), (1.0, 0.75), (2.0, pytest.approx(0.75 - 1 / 8))]


def test_ticks_are_skipped_while_the_grid_is_empty():
    ts = [
        GridTask(0, 0.2, (TaskOption((1,), 1.5, 1.0),)),
        GridTask(1, 100.3, (TaskOption((1,), 0.5, 1.0),)),
    ]
    r = simulate(ts, (1,), Knapsack(1, 1.0))
    assert r.cycles["time"].tolist() == [0.2, 1.0, 2.0, 100.3, 101.0]
    assert r.cycles["tick"].tolist() == [False, True, True, False, True]
    assert r.tasks["first_start"].tolist() == [1.0, 101.0]
    assert r.tasks["finish"].tolist() == [2.5, 101.5]
    assert r.cycles["solve_seconds"].notna().tolist() == [False, True, True, False, True]


def test_event_driven_decisions():
    ts = poisson_tasks(np.random.default_rng(2), tasks=300)
    r = simulate(ts, (4, 8, 16, 32), FCFS())
    assert len(r.cycles) <= 2 * len(ts)
    assert not r.cycles["tick"].any() and r.cycles["solve_seconds"].isna().all()
    times = r.cycles["time"].to_numpy()
    assert (np.diff(times) > 0).all()


def test_tasks_dataframe_columns_and_speedup():
    ts = poisson_tasks(np.random.default_rng(4), tasks=60)
    fcfs = simulate(ts, (4, 8, 16, 32), FCFS())
    assert list(fcfs.tasks.columns) == [
        "task_id",
        "submit",
        "first_start",
        "finish",
        "turnaround",
        "n_preemptions",
        "credit",
        "reference_length",
        "processors",
    ]
    assert fcfs.tasks["credit"].tolist() == [t.credit for t in ts]
    assert fcfs.tasks["reference_length"].tolist() == [t.reference_length for t in ts]
    assert fcfs.strategy == "FCFS"
    assert (fcfs.speedup(fcfs) == 1.0).all()
    easy = simulate(ts, (4, 8, 16, 32), EASY())
    sp = easy.speedup(fcfs)
    assert sp.index.tolist() == [t.id for t in ts]
    with pytest.raises(ParameterError):
        easy.speedup(simulate(ts[:10], (4, 8, 16, 32), FCFS()))


def test_queue_order_is_submit_then_input_order():
    ts = [
        GridTask(7, 1.0, (TaskOption((2,), 1.0, 1.0),)),
        GridTask(3, 0.0, (TaskOption((2,), 1.0, 1.0),)),
        GridTask(5, 1.0, (TaskOption((2,), 1.0, 1.0),)),
    ]
    r = simulate(ts, (2,), FCFS())
    assert r.tasks["task_id"].tolist() == [3, 7, 5]
    assert r.tasks["first_start"].tolist() == [0.0, 1.0, 2.0]


def test_simulate_errors():
    t = GridTask(0, 0.0, (TaskOption((8,), 1.0, 1.0),))
    with pytest.raises(ParameterError, match="at least one task"):
        simulate([], (4,), FCFS())
    with pytest.raises(ParameterError, match="has 4"):
        simulate([t], (4,), FCFS())  # an option larger than its cluster
    with pytest.raises(ParameterError, match=">= 0"):
        simulate([t], (8, -1), FCFS())

    class BadPeriod(FCFS):
        period = 0.0

    with pytest.raises(ParameterError, match="period"):
        simulate([t], (8,), BadPeriod())


class Greedy(Strategy):
    """Starts every waiting task on option 0, ignoring capacity."""

    name = "greedy"

    def decide(self, state):
        return dict(state.running) | {i: 0 for i in state.waiting}


class Stopper(Strategy):
    """A non-preemptive strategy that stops what runs."""

    name = "stopper"

    def decide(self, state):
        return {} if state.running else {state.waiting[0]: 0}


class Idle(Strategy):
    name = "idle"

    def decide(self, state):
        return {}


def test_broken_strategies_are_caught():
    ts = [GridTask(i, 0.0, (TaskOption((3,), 1.0, 1.0),)) for i in range(2)]
    with pytest.raises(AssertionError, match="exceed the capacity"):
        simulate(ts, (4,), Greedy())
    ts2 = [GridTask(0, 0.0, (TaskOption((1,), 2.0, 1.0),)), GridTask(1, 1.0, ts[0].options)]
    with pytest.raises(AssertionError, match="non-preemptive"):
        simulate(ts2, (4,), Stopper())
    with pytest.raises(RuntimeError, match="idle grid"):
        simulate(ts, (4,), Idle())

    class IdleTicks(Idle):
        period = 1.0
        preemptive = True

    with pytest.raises(RuntimeError, match="idle grid"):
        simulate(ts, (4,), IdleTicks())

    class Phantom(Strategy):
        name = "phantom"

        def decide(self, state):
            return {5: 0}

    with pytest.raises(AssertionError, match="not waiting or running"):
        simulate(ts, (4,), Phantom())
