"""The replay's compiled loop: its heap, a worked EASY case, and each way it stops.

Whole runs against the agents are in ``test_replay.py``; here the kernel is called directly.
"""

from __future__ import annotations

import heapq
import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from vosim.agents import replay_kernels as rk


@settings(max_examples=100, deadline=None)
@given(
    ops=st.lists(
        st.one_of(st.tuples(st.integers(0, 5), st.integers(0, 9)), st.just(None)), max_size=60
    )
)
def test_the_heap_pops_in_time_then_job_order(ops):
    """Against heapq on ``(time, job)`` pairs, ties on both included."""
    heap_t, heap_i, size, plain = np.empty(64), np.empty(64, dtype=np.int64), 0, []
    for op in ops:
        if op is None:
            if plain:
                want = heapq.heappop(plain)
                assert (heap_t[0], heap_i[0]) == want
                size = rk._pop(heap_t, heap_i, size)
        else:
            heapq.heappush(plain, (float(op[0]), op[1]))
            size = rk._push(heap_t, heap_i, size, float(op[0]), op[1])
        assert size == len(plain)


def _example(patience=math.inf):
    """4 processors. J0 (2, estimate 100, runs 100) and J1 (2, 100, runs 30) at 0, J2 (4,
    100, runs 100) at 1, J3 (2, 10, runs 10) at 2; one user."""
    submit = np.array([0.0, 0.0, 1.0, 2.0])
    n = np.array([2, 2, 4, 2])
    d = np.array([100.0, 100.0, 100.0, 10.0])
    dur = np.array([100.0, 30.0, 100.0, 10.0])
    first = np.concatenate([[0], np.cumsum(n)])
    parts = [np.ones(1) for _ in range(4)]
    out = rk.replay(
        submit, n, d, dur, d, np.ones(4, dtype=bool), np.zeros(4, dtype=np.int64),
        np.arange(4), first, 4, 1000.0, 2.0, True, patience, 1e-9, *parts,
    )  # fmt: skip
    return out, parts


def test_easy_backfills_on_the_heads_processors_before_its_shadow_time():
    """At 30 J1 ends: the head J2 (4 processors) holds 2-3 until its shadow time 100 (J0's
    end); J3 ends by then, so it backfills there (Mu'alem & Feitelson 2001, §2)."""
    (code, start, split, end1, _end2, procs, paid, node_time, order, c_time, c_int, c_rev,
     e_user, e_sat, until), parts = _example()  # fmt: skip
    assert code == rk.DONE
    np.testing.assert_array_equal(start, [0.0, 0.0, 100.0, 30.0])
    np.testing.assert_array_equal(procs, [0, 1, 2, 3, 0, 1, 2, 3, 2, 3])
    assert split[3] == 2 and end1[3] == 40.0  # on the head's group, its span to 40
    np.testing.assert_array_equal(order, [1, 3, 0, 2])  # by end time
    np.testing.assert_array_equal(paid, [400.0, 120.0, 800.0, 40.0])  # n x price x time
    np.testing.assert_array_equal(node_time, [200.0, 60.0, 400.0, 20.0])
    # passes at 0, 1, 2 (nothing starts), 30 (J3 backfills), 40, 100
    np.testing.assert_array_equal(c_time, [0.0, 1.0, 2.0, 30.0, 40.0, 100.0])
    np.testing.assert_array_equal(c_int[:, 1], [2, 0, 0, 1, 0, 1])  # started
    np.testing.assert_array_equal(c_int[:, 4], [4, 4, 4, 4, 2, 4])  # busy processors
    np.testing.assert_array_equal(c_rev, [0.0, 0.0, 0.0, 120.0, 160.0, 560.0])
    np.testing.assert_array_equal(until, [200.0, 200.0, 200.0, 200.0])
    assert e_user.tolist() == [0, 0, 0] and c_int[-1, 6] == 3  # one entry per pass that started
    s = 1.0  # the user's satisfaction as UserAgent.evaluate updates it, job by job
    for wait, requested in ((0.0, 100.0), (0.0, 100.0), (28.0, 10.0), (99.0, 100.0)):
        s = 0.8 * s + 0.2 * 1.0 * (requested / (requested + wait))
    assert parts[0][0] == s == e_sat[-1]


def test_a_job_that_waits_past_the_patience_stops_the_replay():
    """J2 would start 99 s after its submission: past a patience of 50 s."""
    (code, *_), _ = _example(patience=50.0)
    assert code == rk.WITHDRAWN


def _state(f, has_t, t_end, free_now):
    """A pass's groups over ``f`` ids free now: the head's group (``has_t``) first."""
    st_ = np.zeros(7, dtype=np.int64)
    st_[4] = free_now
    if has_t:
        st_[1], st_[2], st_[0], st_[6] = 0, 1, 1, 1
    ends = np.zeros(8)
    ends[0] = t_end
    return st_, ends


def _take(j, n, d, st_, ends, f=2, big_e=100.0):
    jobs = n.size
    groups = (np.arange(f), st_, ends, np.zeros(8, dtype=np.int64), np.empty(8))
    win = (np.full(jobs, np.nan), np.zeros(jobs, dtype=np.int64), np.full(jobs, np.nan),
           np.full(jobs, np.nan), np.empty(8, dtype=np.int64), np.arange(jobs + 1) * 2)  # fmt: skip
    return rk._take_now(j, 0.0, big_e, n, d, 1e-9, f, groups, win)


def test_equal_end_slacks_are_left_to_the_node_form():
    """Both groups usable with one end slack in floats: the count form does not break it."""
    st_, ends = _state(2, True, 100.0, 2)  # the head's group ends where the other does
    assert _take(0, np.array([2]), np.array([10.0]), st_, ends) == -rk.SLACK_TIE
    st_, ends = _state(2, True, 50.0, 2)
    assert _take(0, np.array([2]), np.array([10.0]), st_, ends) == 1


def test_a_task_the_count_form_does_not_cover_stops_it():
    st_, ends = _state(2, False, 0.0, 2)
    assert _take(0, np.array([1]), np.array([math.inf]), st_, ends) == -rk.TASK_OUTSIDE
    assert _take(0, np.array([1]), np.array([0.0]), st_, ends) == -rk.TASK_OUTSIDE


def test_a_release_as_idle_as_the_free_processors_is_left_to_the_node_form():
    """A slot freed 1e-300 s after the pass has, at a shadow time of 1e6, the idle time of
    the processors free now in floats: the node form's tie rule decides, not the counts."""
    until = np.array([-np.inf, -np.inf, 1e-300, 1e6])
    st_ = np.zeros(7, dtype=np.int64)
    st_[4] = 2
    groups = (np.arange(2), st_, np.zeros(5), np.zeros(4, dtype=np.int64), np.empty(8))
    args = (0.0, 1e9, np.array([4]), np.array([100.0]), 1e-9, 2, until, groups)
    assert rk._hold_head(0, *args) == -rk.IDLE_TIE
    until[2] = 5.0  # an ordinary release: the head holds both processors free now till 1e6
    st_[:] = 0
    st_[4] = 2
    assert rk._hold_head(0, *args) == 0 and st_[6] == 1 and st_[2] - st_[1] == 2


def test_tasks_ending_at_two_times_stop_the_payment():
    """A job whose two groups' spans end before its run time, at different times: its
    payment would not be ``n`` equal terms."""
    start, dur = np.array([0.0]), np.array([50.0])
    n, split = np.array([2]), np.array([1])
    win = (start, split, np.array([30.0]), np.array([40.0]), np.array([0, 1]), np.array([0, 2]))
    args = (win, dur, n, 1.0, np.zeros(2), np.zeros(1), np.zeros(1))
    assert rk._end(0, *args)[2] == rk.PARTS_DIFFER
    win[3][0] = 30.0
    assert rk._end(0, *args) == (60.0, True, rk.DONE)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from([0.0, 1.0, 2.0, 5.0, 1e6, -3.0]), min_size=1, max_size=30),
       st.data())  # fmt: skip
def test_kth_least_is_numpys_partition(values, data):
    k = data.draw(st.integers(1, len(values)))
    a = np.array([*values, 99.0, 99.0])  # room beyond the size, never read
    assert rk._kth_least(a, len(values), k) == np.partition(np.array(values), k - 1)[k - 1]
