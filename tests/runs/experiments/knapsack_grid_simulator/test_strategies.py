import itertools
import math
from bisect import bisect_right

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_simulator import streams

from vosim.allocators.mckp import solve_mckp
from vosim.errors import ParameterError
from vosim.policies import knapsack_rules as rules
from vosim.runs.experiments.knapsack_grid_simulator import GridTask, TaskOption, simulate
from vosim.runs.experiments.knapsack_grid_simulator.strategies import (
    EASY,
    FCFS,
    Gang,
    Knapsack,
    KnapsackBackfill,
)
from vosim.runs.experiments.knapsack_grid_simulator.workload import make_options, poisson_tasks


def one(procs, length, credit=1.0):
    return (TaskOption(procs, length, credit),)


# ------------------------------------------------------------------------------------- FCFS


@settings(max_examples=40, deadline=None)
@given(stream=streams())
def test_fcfs_never_starts_a_later_task_first(stream):
    caps, tasks = stream
    r = simulate(tasks, caps, FCFS())
    starts = r.tasks["first_start"].to_numpy()  # rows are in queue order
    assert (np.diff(starts) >= 0).all()
    assert (r.tasks["n_preemptions"] == 0).all()


def test_fcfs_takes_the_shortest_fitting_option():
    t = GridTask(0, 0.0, (TaskOption((4,), 1.0, 1.0), TaskOption((2,), 2.0, 1.0)))
    blocker = GridTask(1, 0.0, one((2,), 5.0))
    r = simulate([blocker, t], (4,), FCFS())
    seg = r.segments.set_index("task_id")
    assert seg.loc[0, "option"] == 1 and seg.loc[0, "start"] == 0.0  # only 2 free: option 1
    r = simulate([t], (4,), FCFS())
    assert r.segments["option"].tolist() == [0]


# ------------------------------------------------------------------------------------- EASY


def test_easy_does_not_backfill_a_job_that_would_delay_the_head():
    """The case AccaSim 1.1.3 gets wrong (it backfills job 2; the head then starts at 1002)."""
    ts = [
        GridTask(0, 0.0, one((6,), 100.0)),  # holds 6 of 10 processors until t = 100
        GridTask(1, 1.0, one((10,), 2.0)),  # the head needs the whole cluster: reserved at 100
        GridTask(2, 2.0, one((4,), 1000.0)),  # fits the 4 idle processors now, ends at 1002
    ]
    s = EASY()
    r = simulate(ts, (10,), s)
    assert r.tasks["first_start"].tolist() == [0.0, 100.0, 102.0]
    assert (1.0, 1, 100.0) in s.reservations and (2.0, 1, 100.0) in s.reservations


def test_easy_backfills_on_the_processors_the_reservation_leaves_free():
    ts = [
        GridTask(0, 0.0, one((6,), 100.0)),
        GridTask(1, 1.0, one((8,), 2.0)),  # reserved at 100, leaving 2 processors spare
        GridTask(2, 2.0, one((2,), 1000.0)),  # runs past 100 on the 2 spare processors
        GridTask(3, 3.0, one((2,), 1000.0)),  # fits now, but no spare processor is left
        GridTask(4, 4.0, one((2,), 96.0)),  # fits now and ends by 100
    ]
    r = simulate(ts, (10,), EASY())
    assert r.tasks["first_start"].tolist() == [0.0, 100.0, 2.0, 102.0, 4.0]


def test_easy_reservation_uses_the_options():
    # head: whole cluster 0 (length 1) or the whole cluster 1 (length 3)
    head = (TaskOption((4, 0), 1.0, 1.0), TaskOption((0, 3), 3.0, 1.0))
    ts = [
        GridTask(0, 0.0, one((2, 0), 50.0)),
        GridTask(1, 0.0, one((0, 2), 10.0)),
        GridTask(2, 1.0, head),  # earliest fit: option 1 at t = 10
        GridTask(3, 2.0, one((1, 0), 30.0)),  # on cluster 0, which the reservation leaves free
        GridTask(4, 2.0, one((0, 1), 30.0)),  # would delay the head
    ]
    s = EASY()
    r = simulate(ts, (4, 3), s)
    assert r.tasks["first_start"].tolist() == [0.0, 0.0, 10.0, 2.0, 13.0]
    assert {(h, t) for _, h, t in s.reservations} == {(2, 10.0), (4, 13.0)}


@settings(max_examples=60, deadline=None)
@given(stream=streams(max_tasks=15))
def test_easy_never_delays_the_head_reservation(stream):
    caps, tasks = stream
    s = EASY()
    r = simulate(tasks, caps, s)
    start = dict(zip(r.tasks["task_id"], r.tasks["first_start"], strict=True))
    first: dict[int, float] = {}
    for _, head, t in s.reservations:
        first.setdefault(head, t)
        assert t == pytest.approx(first[head])  # a reservation never moves
    for head, t in first.items():
        assert start[head] == pytest.approx(t)  # the head starts at its first reservation
    assert (r.tasks["n_preemptions"] == 0).all()


def test_easy_beats_fcfs_on_a_synthetic_stream():
    ts = poisson_tasks(np.random.default_rng(8), tasks=300)
    fcfs = simulate(ts, (4, 8, 16, 32), FCFS())
    easy = simulate(ts, (4, 8, 16, 32), EASY())
    assert easy.tasks["turnaround"].mean() < fcfs.tasks["turnaround"].mean()


# ------------------------------------------------------------------------------------- Gang


def test_gang_packing_rule():
    ts = [
        GridTask(0, 0.0, one((2,), 3.0)),
        GridTask(1, 0.0, one((3,), 1.0)),
        GridTask(2, 0.0, one((2,), 1.0)),
    ]
    g = Gang(1.0)
    r = simulate(ts, (4,), g)
    assert g.row_of == {0: 0, 1: 1, 2: 0}  # first fit over rows in creation order
    # row 0 (tasks 0, 2) in [0, 1); row 1 (task 1) in [1, 2); then row 0 alone
    assert r.tasks["finish"].tolist() == [4.0, 2.0, 1.0]
    assert g.history[0] == (0.0, 0)


def test_gang_switches_early_when_the_active_row_empties():
    ts = [GridTask(0, 0.0, one((4,), 0.25)), GridTask(1, 0.0, one((4,), 1.0))]
    r = simulate(ts, (4,), Gang(1.0))
    assert r.tasks["first_start"].tolist() == [0.0, 0.25]
    assert r.tasks["finish"].tolist() == [0.25, 1.25]


@settings(max_examples=40, deadline=None)
@given(stream=streams(), slice_length=st.sampled_from([0.25, 1.0, 2.5]))
def test_gang_runs_each_task_only_in_its_rows_slices(stream, slice_length):
    caps, tasks = stream
    g = Gang(slice_length)
    r = simulate(tasks, caps, g)
    times = [h[0] for h in g.history]
    for s in r.segments.itertuples():
        row = g.row_of[s.task_id]
        k = bisect_right(times, s.start) - 1
        assert times[k] == s.start and g.history[k][1] == row
        while k + 1 < len(times) and times[k + 1] < s.end:
            k += 1
            assert g.history[k][1] == row  # its row stays active throughout the segment


# ---------------------------------------------------------------------------------- Knapsack


def exhaustive(values, demands, capacity):
    """Best total and all optimal choices, by enumeration (-1 = wait)."""
    cap = np.asarray(capacity)
    best, choices = -math.inf, []
    for combo in itertools.product(*(range(-1, len(v)) for v in values)):
        used = sum((demands[i][j] for i, j in enumerate(combo) if j >= 0), np.zeros_like(cap))
        if (used > cap).any():
            continue
        val = sum(values[i][j] for i, j in enumerate(combo) if j >= 0)
        scale = 1e-12 * max(1.0, abs(val), abs(best) if choices else 0.0)
        if not choices or val > best + scale:
            best, choices = val, [combo]
        elif val >= best - scale:
            choices.append(combo)
    return best, choices


class Recorder:
    """Wraps solve_mckp and keeps each cycle's problem and answer."""

    def __init__(self):
        self.calls = []

    def __call__(self, values, demands, capacity):
        r = solve_mckp(values, demands, capacity)
        self.calls.append(([v.copy() for v in values], [d.copy() for d in demands], capacity, r))
        return r


@settings(max_examples=30, deadline=None)
@given(stream=streams(max_tasks=5, max_cap=4), policy=st.sampled_from([1, 2, 3, 4, 5]))
def test_knapsack_choice_equals_exhaustive_search(stream, policy):
    caps, tasks = stream
    rec = Recorder()
    r = simulate(tasks, caps, Knapsack(policy, 1.0, solver=rec))
    assert rec.calls
    ticks = r.cycles[r.cycles["tick"]]
    assert len(ticks) == len(rec.calls)
    for (values, demands, capacity, res), running in zip(rec.calls, ticks["running"], strict=True):
        best, optimal = exhaustive(values, demands, capacity)
        choice = tuple(int(c) for c in res.choice)
        value = sum(values[i][j] for i, j in enumerate(choice) if j >= 0)
        assert value == pytest.approx(best, rel=1e-12)
        if len(optimal) == 1:
            assert choice == optimal[0]  # the chosen set is the unique optimum
        assert choice in optimal
        assert running == sum(c >= 0 for c in choice)  # and it is what runs


def test_knapsack_prefers_credit_and_preempts():
    ts = [
        GridTask(0, 0.0, one((4,), 10.0, credit=1.0)),
        GridTask(1, 0.5, one((4,), 1.0, credit=5.0)),
    ]
    r = simulate(ts, (4,), Knapsack(1, 1.0))
    # task 1 waits for the cycle at 1, displaces task 0 until 2; task 0 then needs 9 h more
    assert r.tasks["first_start"].tolist() == [0.0, 1.0]
    assert r.tasks["finish"].tolist() == [pytest.approx(11.0), 2.0]
    assert r.tasks["n_preemptions"].tolist() == [1, 0]


@settings(max_examples=25, deadline=None)
@given(stream=streams(), tau=st.sampled_from([0.5, 1.0, 1.5]))
def test_knapsack_starts_tasks_only_at_cycle_boundaries(stream, tau):
    caps, tasks = stream
    r = simulate(tasks, caps, Knapsack(2, tau))
    k = r.segments["start"].to_numpy() / tau
    assert np.allclose(k, np.round(k))


def test_ks_bf_starts_arrivals_at_once_on_idle_processors():
    ts = [GridTask(0, 0.0, one((2,), 5.0)), GridTask(1, 0.3, one((2,), 1.0))]
    ks = simulate(ts, (4,), Knapsack(1, 1.0))
    bf = simulate(ts, (4,), KnapsackBackfill(1, 1.0))
    assert ks.tasks["first_start"].tolist() == [0.0, 1.0]
    assert bf.tasks["first_start"].tolist() == [0.0, 0.3]
    assert bf.strategy == "KS+BF(policy=1, tau=1h)"


def test_knapsack_keeps_tied_tasks_where_they_run():
    # task 0 starts on cluster 1 (cluster 0 is busy); once cluster 0 frees, both of its
    # options are worth the same, and it stays where it runs
    ts = [
        GridTask(1, 0.0, one((2, 0), 1.0)),
        GridTask(0, 0.0, make_options(1, 5.0, 1.0, (2, 2))),
    ]
    r = simulate(ts, (2, 2), Knapsack(1, 1.0))
    assert r.segments.set_index("task_id").loc[0, "option"] == 1
    assert r.tasks["n_preemptions"].tolist() == [0, 0]


# ------------------------------------------------------------------ the rules shared with the VO


@pytest.mark.parametrize("policy", [1, 2, 3, 4, 5])
def test_knapsack_values_are_the_shared_utilities_of_the_remaining_work(policy):
    # task 0 runs [0, 1) on the option the first cycle chose; task 1 arrives at 0.5 h; at the
    # cycle at 1 h both are valued, task 0 by the work it has left
    ts = [
        GridTask(0, 0.0, make_options(4, 2.0, 10.0, (4, 4))),
        GridTask(1, 0.5, make_options(2, 1.0, 3.0, (4, 4))),
    ]
    rec = Recorder()
    simulate(ts, (4, 4), Knapsack(policy, 1.0, solver=rec))
    cur = int(rec.calls[0][3].choice[0])
    left = 1.0 - 1.0 / ts[0].lengths[cur]
    # the running task's current option is listed first (and worth 1 + 1e-9 times more)
    perm = [cur, *(j for j in range(len(ts[0].options)) if j != cur)]
    for task, remaining, order, got in zip(
        ts, (left, 1.0), (perm, slice(None)), rec.calls[1][0], strict=True
    ):
        u = rules.option_utilities(
            policy, 1.0, task.submit, task.reference_length, task.lengths, task.credits, remaining
        )
        np.testing.assert_allclose(got, u[order], rtol=1e-8)


def test_utility_policies_on_a_preempted_task():
    task = GridTask(0, 2.0, make_options(4, 2.0, 10.0, (4, 4)))
    lengths = task.lengths  # 2.0, 2.2 (split), 4.0 (half), 2.0
    now, rem = 5.0, 0.5
    r = rem * lengths
    x = (now - 2.0 + r) / 2.0

    def u(policy, remaining=rem):
        return rules.option_utilities(
            policy, now, task.submit, task.reference_length, lengths, task.credits, remaining
        )

    np.testing.assert_allclose(u(1), task.credits)
    np.testing.assert_allclose(u(2), task.credits * x)
    np.testing.assert_allclose(u(3), rules.sigmoid(task.credits * x))
    np.testing.assert_allclose(u(4), x + 2.0 / r)
    np.testing.assert_allclose(u(5), rules.sigmoid(x + 2.0 / r))
    # policy 4 rewards closeness to completion
    assert u(4, 0.1)[0] > u(4, 0.9)[0]


def test_the_fixture_shares_the_rules_and_the_solver():
    task = GridTask(0, 1.0, make_options(8, 2.0, 10.0, (8, 8)))
    layouts = rules.option_layouts(8, (8, 8))
    assert [o.processors for o in task.options] == [lay.processors for lay in layouts]
    assert task.lengths.tolist() == [2.0 * lay.factor for lay in layouts]
    assert task.credits.tolist() == [rules.option_credit(10.0, 2.0, t) for t in task.lengths]
    assert Knapsack().solver is solve_mckp


@pytest.mark.parametrize("policy", [0, 6, 1.5, True, "1"])
def test_bad_policy(policy):
    with pytest.raises(ParameterError, match="policy"):
        Knapsack(policy, 1.0)


def test_bad_parameters():
    for tau in (0.0, -1.0, math.nan, math.inf):
        with pytest.raises(ParameterError, match="tau"):
            Knapsack(1, tau)
        with pytest.raises(ParameterError, match="tau"):
            KnapsackBackfill(1, tau)
        with pytest.raises(ParameterError, match="slice_length"):
            Gang(tau)
