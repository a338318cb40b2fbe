"""The batch-scheduling oracle itself: hand-computed schedules and invariants on heavy loads."""

from __future__ import annotations

import numpy as np
import pytest
from batch_oracle import POLICIES, heavy_workload, simulate, simulate_schedule


def run(jobs, machine_procs, policy):
    """Start times of ``jobs``, rows of (submit, procs, estimate, runtime)."""
    submit, procs, estimate, runtime = (np.array(c) for c in zip(*jobs, strict=True))
    return simulate(submit, procs.astype(int), estimate, runtime, machine_procs, policy).tolist()


def schedule(jobs, machine_procs, policy):
    submit, procs, estimate, runtime = (np.array(c) for c in zip(*jobs, strict=True))
    return simulate_schedule(submit, procs.astype(int), estimate, runtime, machine_procs, policy)


# --- hand-computed cases (machine of 10 processors) ---------------------------------------------


def test_easy_backfills_short_job_fcfs_does_not():
    # A holds 6 of 10 until 10; head B (8) waits for it; C (4 procs, ends at 7 <= shadow 10)
    # fits in the 4 free processors now.
    jobs = [(0, 6, 10, 10), (1, 8, 10, 10), (2, 4, 5, 5)]
    assert run(jobs, 10, "fcfs") == [0, 10, 20]
    assert run(jobs, 10, "easy") == [0, 10, 2]
    assert run(jobs, 10, "conservative") == [0, 10, 2]


def test_easy_shadow_counts_jobs_started_in_the_same_pass():
    # At 0, A starts, B blocks; the shadow is A's estimated end 5, so C (ends at 3) backfills.
    jobs = [(0, 6, 5, 5), (0, 8, 10, 10), (0, 4, 3, 3)]
    assert run(jobs, 10, "fcfs") == [0, 5, 15]
    assert run(jobs, 10, "easy") == [0, 5, 0]


@pytest.mark.parametrize(("head_procs", "expected"), [(5, [0, 10, 2]), (7, [0, 10, 20])])
def test_easy_long_backfill_only_within_extra(head_procs, expected):
    # C ends after the shadow (10); free at the shadow is 10, so extra = 10 - head_procs:
    # 5 admits C (4 procs), 3 refuses it; refused, C waits for the head B to end at 20.
    jobs = [(0, 6, 10, 10), (1, head_procs, 10, 10), (2, 4, 100, 100)]
    assert run(jobs, 10, "easy") == expected


def test_easy_extra_decreases_with_each_long_backfill():
    # Head B (7) blocked behind A (4, to 10): shadow 10, extra 3. C (2, long) uses 2 of the
    # extra, leaving 1, so D (2, long) is refused although 4 processors are free; E (2 procs,
    # ending exactly at the shadow) still backfills. B starts at 10 and D when B ends at 20.
    jobs = [
        (0, 4, 10, 10),  # A
        (1, 7, 10, 10),  # B
        (2, 2, 100, 100),  # C
        (2, 2, 100, 100),  # D
        (2, 2, 8, 8),  # E
    ]
    assert run(jobs, 10, "easy") == [0, 10, 2, 20, 2]


def test_easy_equal_estimated_ends_release_together():
    # A and B (3 each) both end at 10, C (3) at 20; head H needs 4 with 1 free. Released
    # together at the shadow 10 they leave 7 free, extra 3, so J (1 proc, long) backfills;
    # counting A alone would make extra 0 and refuse it.
    jobs = [(0, 3, 10, 10), (0, 3, 10, 10), (0, 3, 20, 20), (1, 4, 10, 10), (2, 1, 100, 100)]
    assert run(jobs, 10, "easy") == [0, 0, 0, 10, 2]


@pytest.mark.parametrize("policy", POLICIES)
def test_submit_ties_keep_trace_order_and_queue_is_by_submit(policy):
    # Job 1 is submitted first though listed second; jobs 0 and 2 tie at 5 and go in trace
    # order. Each needs 6 of 10, so they run one at a time.
    jobs = [(5, 6, 10, 10), (0, 6, 10, 10), (5, 6, 10, 10)]
    assert run(jobs, 10, policy) == [10, 0, 20]
    swapped = [jobs[2], jobs[1], jobs[0]]
    assert run(swapped, 10, policy) == [10, 0, 20]


@pytest.mark.parametrize("policy", POLICIES)
def test_end_is_processed_before_arrival_at_the_same_time(policy):
    # A fills the machine until 5 (killed at its estimate 5 though it would run 8); B arrives
    # at 5 and starts at once. B's estimate 10 overestimates its run time 3: it ends at 8, when
    # C arrives and starts.
    jobs = [(0, 10, 5, 8), (5, 10, 10, 3), (8, 10, 4, 4)]
    s = schedule(jobs, 10, policy)
    assert s.start.tolist() == [0, 5, 8]
    assert s.end.tolist() == [5, 8, 12]


@pytest.mark.parametrize("policy", ["easy", "conservative"])
def test_end_and_arrival_at_one_time_share_one_pass(policy):
    # B (4) runs long; H (6) waits behind A (4), which is estimated to 20 but ends at 5, when X
    # (2 procs, 3 s) arrives. One pass at 5 sees A gone: H starts and X waits until H ends at
    # 15. (Had X's arrival been scheduled before A's end, X would backfill and delay H to 8.)
    jobs = [(0, 4, 20, 5), (0, 4, 100, 100), (1, 6, 10, 10), (5, 2, 3, 3)]
    assert run(jobs, 10, policy) == [0, 0, 5, 15]


def test_conservative_protects_every_reservation_easy_only_the_head():
    # A (6) to 10; B (8) reserved at 10; C (9) reserved at 20. D (2 procs, 25 s) fits EASY's
    # extra (10 - 8 = 2) and backfills at 2, delaying C to D's end 27. Conservative sees that
    # D would overlap C's reservation [20, 30) with 1 free and reserves it at 30.
    jobs = [(0, 6, 10, 10), (1, 8, 10, 10), (1, 9, 10, 10), (2, 2, 25, 25)]
    assert run(jobs, 10, "easy") == [0, 10, 27, 2]
    s = schedule(jobs, 10, "conservative")
    assert s.start.tolist() == [0, 10, 20, 30]
    assert s.first_reservation.tolist() == [0, 10, 20, 30]


def test_conservative_early_end_moves_reservations_earlier():
    # As above, but A ends at 4 instead of its estimated 10: at 4 B starts, C moves from 20 to
    # B's estimated end 14, and D from 30 to 24 (C leaves only 1 free over [14, 24)).
    jobs = [(0, 6, 10, 4), (1, 8, 10, 10), (1, 9, 10, 10), (2, 2, 25, 25)]
    s = schedule(jobs, 10, "conservative")
    assert s.start.tolist() == [0, 4, 14, 24]
    assert s.first_reservation.tolist() == [0, 10, 20, 30]


@pytest.mark.parametrize("policy", POLICIES)
def test_jobs_that_cannot_run_never_start_and_block_nobody(policy):
    jobs = [(0, 11, 5, 5), (0, 0, 5, 5), (1, 10, 5, 5), (2, -1, 5, 5)]
    start = run(jobs, 10, policy)
    assert np.isnan(start[0]) and np.isnan(start[1]) and np.isnan(start[3])
    assert start[2] == 1


@pytest.mark.parametrize(("policy", "z_start"), [("fcfs", 10), ("easy", 2), ("conservative", 2)])
def test_zero_estimate_job_needs_no_processors(policy, z_start):
    # Z asks for all 10 processors for 0 s: it needs none, so EASY and conservative start it
    # on submission although only 4 are free; FCFS keeps it behind the blocked head H, and
    # starts it with H at 10 although H leaves only 2 free.
    jobs = [(0, 6, 10, 10), (1, 8, 10, 10), (2, 10, 0, 5)]
    s = schedule(jobs, 10, policy)
    assert s.start.tolist() == [0, 10, z_start]
    assert s.end.tolist() == [10, 20, z_start]


@pytest.mark.parametrize("policy", POLICIES)
def test_zero_runtime_job_holds_processors_until_its_end_event(policy):
    # A (6 procs, estimate 10) runs 0 s: in the pass at 0 it holds 6 processors so B (6)
    # waits, but A's end at 0 is an event and the next pass at 0 starts B.
    jobs = [(0, 6, 10, 0), (0, 6, 10, 10)]
    s = schedule(jobs, 10, policy)
    assert s.start.tolist() == [0, 0]
    assert s.end.tolist() == [0, 10]
    if policy == "conservative":
        assert s.first_reservation.tolist() == [0, 10]


@pytest.mark.parametrize("policy", POLICIES)
def test_many_zero_length_jobs_at_one_time_terminate(policy):
    jobs = [(0, 10, 0, 0)] * 50 + [(0, 7, 10, 0)] * 50 + [(0, 10, 3, 3)]
    s = schedule(jobs, 10, policy)
    assert (s.start[:100] == 0).all()
    assert s.start[100] == 0 and s.end[100] == 3


def test_unknown_policy_is_refused():
    with pytest.raises(ValueError, match="policy"):
        simulate([0], [1], [1], [1], 1, "sjf")


# --- invariants on heavy synthetic workloads -----------------------------------------------------

MACHINE = 64


@pytest.fixture(scope="module", params=[0, 1])
def workload(request):
    return heavy_workload(np.random.default_rng(request.param), 700, MACHINE)


@pytest.fixture(scope="module")
def schedules(workload):
    return {policy: simulate_schedule(*workload, MACHINE, policy) for policy in POLICIES}


def test_heavy_workload_is_heavy(workload):
    submit, procs, estimate, runtime = workload
    assert procs.min() >= 1 and procs.max() <= MACHINE
    assert np.all(np.diff(submit) >= 0)
    assert len(np.unique(submit)) < len(submit)  # ties
    assert np.any(runtime == estimate) and np.any(runtime < estimate)
    assert np.any(runtime > estimate)  # killed jobs
    assert set(procs.tolist()) & {1, 2, 4, 8, 16, 32, 64}
    assert any(p % 2 == 1 and p > 1 for p in procs.tolist())
    work = np.sum(procs * np.minimum(runtime, estimate))
    assert work / (MACHINE * (submit[-1] - submit[0])) == pytest.approx(1.0, rel=0.01)


@pytest.mark.parametrize("policy", POLICIES)
def test_every_job_starts_after_submit_and_ends_as_killed(workload, schedules, policy):
    submit, _, estimate, runtime = workload
    s = schedules[policy]
    assert not np.isnan(s.start).any()
    assert np.all(s.start >= submit)
    np.testing.assert_array_equal(s.end, s.start + np.minimum(runtime, estimate))


@pytest.mark.parametrize("policy", POLICIES)
def test_processors_never_overcommitted(workload, schedules, policy):
    procs = workload[1]
    s = schedules[policy]
    # At equal times ends (-p) come before starts (+p); zero-length jobs hold nothing.
    events = sorted(
        [(e, -p) for e, p, b in zip(s.end, procs, s.start, strict=True) if e > b]
        + [(b, p) for e, p, b in zip(s.end, procs, s.start, strict=True) if e > b]
    )
    in_use = np.cumsum([d for _, d in events])
    assert in_use.max() <= MACHINE
    assert in_use[-1] == 0


def test_fcfs_starts_in_queue_order(workload, schedules):
    submit = workload[0]
    order = np.lexsort((np.arange(len(submit)), submit))
    assert np.all(np.diff(schedules["fcfs"].start[order]) >= 0)


def test_conservative_never_starts_later_than_first_reservation(workload, schedules):
    s = schedules["conservative"]
    assert np.all(s.first_reservation >= workload[0])
    assert np.all(s.start <= s.first_reservation)
    assert np.any(s.start < s.first_reservation)  # early ends do pull jobs forward


def test_backfilling_beats_fcfs_on_heavy_load(workload, schedules):
    submit = workload[0]
    fcfs = np.mean(schedules["fcfs"].start - submit)
    assert np.mean(schedules["easy"].start - submit) < fcfs
    assert np.mean(schedules["conservative"].start - submit) < fcfs
