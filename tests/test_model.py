import dataclasses
import itertools

import numpy as np
import pandas as pd
import pytest
from kept_windows import held_windows, keep_windows

from vosim import ParameterError, TraceFormatError, UnknownAllocatorError, VOModel
from vosim.agents.ledger import JOB_COLUMNS
from vosim.market.swf import read_swf

NASA = "NASA-iPSC-1993-3.1-cln"
GAIA = "UniLu-Gaia-2014-2"
#: NASA's 128-node requests starve behind the owners' local jobs and wait out the default
#: 30-day patience: ~8,000 cycles of an unchanged queue, 90 % of a run's time. Runs that test
#: something else end that drain with a short patience (the starving jobs are withdrawn).
SHORT = 2 * 86400.0


#: First fit (one alternative per job), and the cyclic scheme with alternatives and a VO policy.
SCHEMES = {
    "first-fit": {},
    "css": {"max_alternatives": 3, "vo_objective": "cost", "ua": 25.0},
}


@pytest.fixture(scope="module", params=sorted(SCHEMES))
def nasa_run(request):
    # NASA's 128-node requests keep a queue waiting: the CSS run takes fewer jobs to stay quick
    jobs = 300 if request.param == "first-fit" else 160
    model = VOModel(trace=NASA, jobs=jobs, rng=7, patience=SHORT, **SCHEMES[request.param])
    model.kept = keep_windows(model)
    model.run()
    return model


def test_every_job_ends_in_exactly_one_state(nasa_run):
    jobs = nasa_run.job_frame()
    assert len(jobs) == len(nasa_run.jobs) >= 160
    # no horizon: the run drains, so no job is left unfinished
    assert set(jobs["state"].unique()) <= {"completed", "rejected", "withdrawn"}
    assert jobs["state"].notna().all()
    assert jobs["job_id"].is_unique
    # rejected and withdrawn jobs say why
    assert (jobs.loc[jobs["state"] != "completed", "reason"].str.len() > 0).all()
    assert (jobs.loc[jobs["state"] == "completed", "reason"] == "").all()
    assert list(jobs.columns) == list(JOB_COLUMNS)


def test_completed_jobs_respect_budget_and_time(nasa_run):
    jobs = nasa_run.job_frame()
    done = jobs[jobs["state"] == "completed"]
    assert len(done) > 100
    assert (done["cost"] <= done["budget"] * (1 + 1e-9)).all()
    assert (done["starting_time"] >= done["submission_time"]).all()
    assert (done["finish_time"] >= done["starting_time"]).all()
    assert (done["execution_time"] <= done["window_runtime"] + 1e-6).all()
    assert np.allclose(done["waiting_time"], done["starting_time"] - done["submission_time"])


def test_no_node_runs_two_vo_tasks_at_once(nasa_run):
    spans = {}
    for job, window, task_ends in held_windows(nasa_run, nasa_run.kept):
        assert len(set(window.nodes)) == job.n
        for s, end in zip(window.slots, task_ends, strict=True):
            assert s.start <= end <= s.end + 1e-9  # a task never outlives its slot
            spans.setdefault(s.node, []).append((s.start, end))
    for intervals in spans.values():
        intervals.sort()
        for (_, b0), (a1, _) in itertools.pairwise(intervals):
            assert a1 >= b0 - 1e-9


def test_same_seed_same_records_different_seed_differs():
    a = VOModel(trace=NASA, jobs=150, rng=3, patience=SHORT)
    a.run()
    b = VOModel(trace=NASA, jobs=150, rng=3, patience=SHORT)
    b.run()
    pd.testing.assert_frame_equal(a.job_frame(), b.job_frame())
    pd.testing.assert_frame_equal(a.cycle_frame(), b.cycle_frame())
    c = VOModel(trace=NASA, jobs=150, rng=4, patience=SHORT)
    c.run()
    assert not a.job_frame()["cost"].equals(c.job_frame()["cost"])


def test_cycles_table_is_one_row_per_cycle(nasa_run):
    cycles = nasa_run.cycle_frame()
    assert len(cycles) == nasa_run.metascheduler.cycles
    assert cycles["time"].is_monotonic_increasing
    # cycles run at multiples of the period; idle stretches are skipped
    periods = cycles["time"].to_numpy() / nasa_run.cycle_period
    assert (periods == np.round(periods)).all() and (np.diff(periods) >= 1).all()
    assert cycles["utilization"].between(0, 1).all()
    assert cycles["utilization"].max() > 0
    assert cycles["revenue"].is_monotonic_increasing


def test_revenue_equals_what_users_paid(nasa_run):
    jobs = nasa_run.job_frame()
    total = jobs["cost"].sum()  # 0 for never-scheduled jobs
    assert sum(o.revenue for o in nasa_run.owners) == pytest.approx(total, rel=1e-9)
    assert nasa_run.task_frame()["cost"].sum() == pytest.approx(total, rel=1e-9)


def test_unusable_jobs_are_rejected_with_reason(tmp_path):
    lines = [
        "; MaxNodes: 4",
        "; MaxProcs: 4",
        "1 0 -1 100 2 -1 -1 2 200 -1 1 1 1 -1 -1 -1 -1 -1",  # fine
        "2 5 -1 100 -1 -1 -1 -1 200 -1 1 1 1 -1 -1 -1 -1 -1",  # no processor count
        "3 6 -1 -1 1 -1 -1 1 -1 -1 1 1 1 -1 -1 -1 -1 -1",  # no runtime at all
        "4 7 -1 100 8 -1 -1 8 200 -1 1 2 1 -1 -1 -1 -1 -1",  # more nodes than the domain
        "5 8 -1 100 1 -1 -1 1 99999999 -1 1 2 1 -1 -1 -1 -1 -1",  # longer than L
    ]
    path = tmp_path / "t.swf"
    path.write_text("\n".join(lines) + "\n")
    model = VOModel(trace=str(path), jobs=None, owners=2, local_load=None, rng=1)
    model.run()
    jobs = model.job_frame().set_index("job_id")
    assert jobs.loc[1, "state"] == "completed"
    assert "processor" in jobs.loc[2, "reason"]
    assert "runtime" in jobs.loc[3, "reason"]
    assert "more than the domain" in jobs.loc[4, "reason"]
    assert "scheduling interval" in jobs.loc[5, "reason"]
    assert (jobs.loc[[2, 3, 4, 5], "state"] == "rejected").all()


def test_budget_below_any_window_is_rejected():
    frame = read_swf_frame([(1, 0, 100, 2, 200)])
    model = VOModel(
        trace=frame, jobs=None, owners=1, local_load=None, budget_range=(1e-6, 1e-6), rng=1
    )
    model.run()
    row = model.job_frame().iloc[0]
    assert row["state"] == "rejected"
    assert "budget" in row["reason"]


def read_swf_frame(rows):
    """A tiny SWF frame: (job, submit, run, procs, requested time)."""
    import tempfile
    from pathlib import Path

    text = "; MaxNodes: 4\n; MaxProcs: 4\n" + "".join(
        f"{j} {s} -1 {r} {p} -1 -1 {p} {t} -1 1 1 1 -1 -1 -1 -1 -1\n" for j, s, r, p, t in rows
    )
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "x.swf"
        path.write_text(text)
        return read_swf(path)


def test_run_time_capped_at_reservation_and_faster_nodes_finish_sooner():
    frame = read_swf_frame([(1, 0, 500, 1, 100)])  # ran longer than requested
    model = VOModel(trace=frame, jobs=None, owners=1, local_load=None, rng=2)
    model.run()
    job = model.jobs[0]
    assert model.ledger[job.index].state == "completed"
    perf = model.node_performance[model.ledger[job.index].nodes[0]]
    assert model.ledger[job.index].finish - model.ledger[job.index].start == pytest.approx(
        100 * 6.0 / perf
    )


def test_bad_parameters_name_the_value():
    with pytest.raises(ParameterError, match="jobs"):
        VOModel(trace=NASA, jobs=0)
    with pytest.raises(ParameterError, match="owners"):
        VOModel(trace=NASA, jobs=10, owners=1000)
    with pytest.raises(ParameterError, match="cycle_period"):
        VOModel(trace=NASA, jobs=10, cycle_period=-1)
    with pytest.raises(ParameterError, match="cycle_period 0"):
        VOModel(trace=NASA, jobs=10, cycle_period=0, pricing_policy="demand")
    with pytest.raises(UnknownAllocatorError, match=r"unknown policy .nope.*easy"):
        VOModel(trace=NASA, jobs=10, policy="nope")
    with pytest.raises(ParameterError, match=r"machine.*local_trace"):
        VOModel(trace=NASA, jobs=10, machine=True, local_trace=NASA)
    with pytest.raises(UnknownAllocatorError, match="nope"):
        VOModel(trace=NASA, jobs=10, criterion_allocators={"cost": "nope"})
    with pytest.raises(TraceFormatError, match="no such file"):
        VOModel(trace="/no/such/trace.swf")


def test_default_step_schedule_is_off():
    model = VOModel(trace=NASA, jobs=20, rng=1)
    model.run_until(10_000)
    assert model.steps == 0  # time moved by events only


@pytest.fixture(scope="module")
def uncertain_run():
    model = VOModel(trace=NASA, jobs=120, rng=5, availability=True, patience=SHORT)
    model.run()
    return model


def test_availability_run_records_predictions_and_failures(uncertain_run):
    jobs = uncertain_run.job_frame()
    attempts = uncertain_run.attempt_frame()
    assert len(jobs) == 120
    assert len(attempts) >= (jobs["state"] == "completed").sum()
    assert attempts["predicted_availability"].between(0, 1).all()
    # every interruption lies inside its window's run, and failures are counted per job
    failed = attempts[~attempts["succeeded"] & ~attempts["moved"]]
    # moved windows (conservative's compression, re-planning) neither ran through nor failed
    assert attempts.loc[attempts["moved"], "interrupted_at"].isna().all()
    assert (failed["interrupted_at"] >= failed["start"]).all()
    happened = failed["interrupted_at"] <= uncertain_run.horizon  # drawn, and come by the end
    assert jobs["failures"].sum() == happened.sum() > 0
    # completed jobs ran through their last window
    done = jobs[jobs["state"] == "completed"]
    assert done["predicted_availability"].notna().all()


def test_users_pay_only_for_what_ran(uncertain_run):
    jobs = uncertain_run.job_frame()
    assert (jobs["cost"] >= jobs["paid_for_failures"]).all()
    paid = jobs["cost"].sum()
    assert sum(o.revenue for o in uncertain_run.owners) == pytest.approx(paid, rel=1e-9)


def test_availability_criterion_picks_more_available_windows(uncertain_run):
    jobs = uncertain_run.job_frame()
    by = jobs.groupby("criterion")["predicted_availability"].mean()
    assert by["availability"] > by[["finish", "runtime", "cost"]].max()


def test_availability_off_means_no_failures(nasa_run):
    assert nasa_run.job_frame()["failures"].sum() == 0
    assert len(nasa_run.attempt_frame()) == 0


def test_vo_criterion_availability_applies_to_every_job():
    model = VOModel(
        trace=NASA, jobs=40, rng=5, availability=True, vo_criterion="availability", patience=SHORT
    )
    model.run()
    attempts = model.attempt_frame()
    assert len(attempts) > 0
    assert set(model.metascheduler.scheduler.criterion_allocators.values()) == {"max_availability"}
    with pytest.raises(ParameterError, match="vo_criterion"):
        VOModel(trace=NASA, jobs=5, vo_criterion="cost")


# -- the cyclic scheduling scheme with a VO policy (VO Preferences) ------------------------------


@pytest.fixture(scope="module")
def css_runs():
    runs = {}
    for name, kwargs in {
        "users": {"user_evaluation": "ordinal", "ua": 0.0},
        "vo": {"ua": None},
        "half": {"ua": 50.0},
    }.items():
        model = VOModel(trace=NASA, jobs=100, rng=5, max_alternatives=4, patience=SHORT, **kwargs)
        model.run()
        runs[name] = model
    return runs


def test_css_records_alternatives_and_evaluations(css_runs):
    for model in css_runs.values():
        jobs = model.job_frame()
        scheduled = jobs[jobs["starting_time"].notna()]
        assert (scheduled["alternatives"].between(1, 4)).all()
        assert scheduled["user_evaluation"].notna().all()
        cycles = model.cycle_frame()
        assert cycles["alternatives"].sum() >= len(scheduled)
        a = cycles["vo_evaluation"].dropna()
        assert len(a) > 0 and a.between(-1e-9, 100 + 1e-9).all()


def test_ua_zero_gives_every_user_its_best_alternative(css_runs):
    jobs = css_runs["users"].job_frame()
    assert (jobs["user_evaluation"].dropna() == 0).all()


def test_unconstrained_policy_is_the_vo_optimum(css_runs):
    a = css_runs["vo"].cycle_frame()["vo_evaluation"].dropna()
    assert (a.abs() < 1e-9).all()
    # the VO maximises revenue: chosen alternatives cost at least what the users' choice costs
    users = css_runs["users"].job_frame()["user_evaluation"].dropna()
    vo = css_runs["vo"].job_frame()["user_evaluation"].dropna()
    assert vo.mean() >= users.mean()


def test_first_fit_is_css_with_one_alternative():
    common = dict(trace=NASA, jobs=120, rng=2, patience=SHORT)
    a = VOModel(**common)
    b = VOModel(**common, max_alternatives=1, ua=10.0, vo_objective="finish")
    a.run()
    b.run()
    pd.testing.assert_frame_equal(a.job_frame(), b.job_frame())
    assert (a.job_frame()["user_evaluation"].dropna() == 0).all()


def test_bad_policy_parameters_name_the_value():
    for kwargs, words in [
        ({"max_alternatives": 0}, "max_alternatives"),
        ({"vo_objective": "profit"}, "profit"),
        ({"vo_limit": "energy"}, "energy"),
        ({"user_evaluation": "cardinal"}, "cardinal"),
        ({"ua": -3.0}, "-3"),
    ]:
        with pytest.raises(ParameterError, match=words):
            VOModel(trace=NASA, jobs=5, **kwargs)


# -- owners' pricing policies ---------------------------------------------------------------------


def test_demand_pricing_moves_prices_within_the_band():
    fixed = VOModel(trace=NASA, jobs=80, rng=4, patience=SHORT)
    demand = VOModel(trace=NASA, jobs=80, rng=4, patience=SHORT, pricing_policy="demand")
    start = demand.node_price.copy()
    fixed.run()
    demand.run()
    f, d = fixed.cycle_frame()["price_factor"], demand.cycle_frame()["price_factor"]
    assert f.nunique() == 1  # fixed prices never move
    assert d.nunique() > 1
    # at most 5 % per cycle, and within +-60 % of the market base price at the end
    assert (d.pct_change().dropna().abs() <= 0.05 + 1e-9).all()
    ratio = demand.node_price / demand.node_base_price
    assert ((ratio >= 0.4 - 1e-9) & (ratio <= 1.6 + 1e-9)).all()
    assert not np.array_equal(start, demand.node_price)
    # reserved windows were charged at the prices of their cycle: cost within budget
    done = demand.job_frame().query("state == 'completed'")
    assert (done["cost"] <= done["budget"] * (1 + 1e-9)).all()


def test_unknown_pricing_policy_names_the_value():
    with pytest.raises(ParameterError, match="auction"):
        VOModel(trace=NASA, jobs=5, pricing_policy="auction")


# -- churn: owners and users leaving the VO ------------------------------------------------------


def test_owners_below_the_revenue_threshold_leave_with_their_nodes():
    model = VOModel(
        trace=NASA, jobs=150, rng=2, scheduling_interval=86400.0, owner_exit_revenue=1e12
    )
    model.run()
    cycles = model.cycle_frame()
    assert cycles["owners_active"].iloc[0] == len(model.owners)
    assert cycles["owners_active"].iloc[-1] == 0  # nobody earns 1e12 per node and day
    left = {o.owner_id: o.left_at for o in model.owners}
    assert all(t >= model.scheduling_interval for t in left.values())
    # once every owner has left, no cycle reserves a window (reservations made before are
    # honoured, so some jobs still start later)
    after = cycles[cycles["time"] > max(left.values())]
    assert len(after) > 0 and (after["jobs_scheduled"] == 0).all()
    assert len(model.node_ids) == 0


def test_unhappy_users_leave_and_withdraw_their_future_jobs():
    model = VOModel(trace=NASA, jobs=200, rng=3, user_exit_satisfaction=0.99, patience=SHORT)
    model.run()
    jobs = model.job_frame()
    gone = [u for u in model.users if not u.active]
    assert gone  # a satisfaction of 0.99 cannot be kept with any waiting
    withdrawn = jobs[jobs["reason"].str.contains("user left the VO", regex=False)]
    assert len(withdrawn) > 0 and (withdrawn["state"] == "withdrawn").all()
    assert set(withdrawn["user"]) <= {u.user_id for u in gone}
    for user in gone:
        assert user.evaluated >= 3 and user.satisfaction < 0.99
        late = [j for j in user.jobs if j.submit_time > user.left_at]
        assert all(model.ledger[j.index].state == "withdrawn" for j in late)
    cycles = model.cycle_frame()
    assert cycles["users_active"].iloc[-1] == len(model.users) - len(gone)
    assert cycles["users_active"].is_monotonic_decreasing
    assert int(jobs["state"].value_counts().sum()) == 200


def test_users_who_left_carry_the_parts_of_their_satisfaction_when_they_left():
    """Each part is a moving average of one factor of a job's score (so the satisfaction is
    at most each); queueing alone (the wait less the delay chosen) never scores below the
    whole wait; the summary's means are over the leavers' parts at leaving, frozen then."""
    model = VOModel(trace=GAIA, jobs=400, rng=2, user_exit_satisfaction=0.8, max_alternatives=3)
    model.run()
    gone = [u for u in model.users if not u.active]
    assert gone and all(u.parts_at_leaving is not None for u in gone)
    assert all(u.parts_at_leaving is None for u in model.users if u.active)
    for user in model.users:
        for part in (user.choice_part, user.wait_part, user.queue_part):
            assert 0.0 < part <= 1.0
        assert user.queue_part >= user.wait_part - 1e-12
        # the average of products of factors <= 1 is at most the average of each factor
        assert user.satisfaction <= min(user.choice_part, user.wait_part) + 1e-12
    summary = model.summary()
    assert summary["users_left"] == len(gone)
    parts = np.array([u.parts_at_leaving for u in gone])
    np.testing.assert_allclose(
        [summary[f"users_left_{k}_part"] for k in ("choice", "wait", "queue")], parts.mean(axis=0)
    )


def test_a_job_score_split_into_its_parts_by_hand():
    """T 100, waited 300 of which 200 chosen, u 0.25: choice 0.75, wait 100/400, queueing
    100/200; each part moves a fifth of the way from 1."""
    model = VOModel(trace=NASA, jobs=5, rng=1)
    user = model.users[0]
    job = dataclasses.replace(user.jobs[0], requested_time=100.0, submit_time=0.0)
    model.ledger.start[job.index], model.ledger.earliest_start[job.index] = 300.0, 100.0
    user.evaluate(job, 0.25, 300.0)
    assert user.choice_part == pytest.approx(0.8 + 0.2 * 0.75)
    assert user.wait_part == pytest.approx(0.8 + 0.2 * 0.25)
    assert user.queue_part == pytest.approx(0.8 + 0.2 * 0.5)
    assert user.satisfaction == pytest.approx(0.8 + 0.2 * 0.75 * 0.25)


def test_churn_parameters_are_checked():
    with pytest.raises(ParameterError, match="owner_exit_revenue"):
        VOModel(trace=NASA, jobs=5, owner_exit_revenue=-1.0)
    with pytest.raises(ParameterError, match="user_exit_satisfaction"):
        VOModel(trace=NASA, jobs=5, user_exit_satisfaction=1.5)


def test_availability_policy_is_named_and_equals_the_css_with_the_vo_criterion():
    """``policy="availability"`` is recorded as such and schedules as the CSS whose VO criterion
    is availability (every job searched for its maximum-``P_a^w`` window)."""
    common = dict(trace="NASA-iPSC-1993-3.1-cln", jobs=60, availability=True, rng=4, patience=SHORT)
    named = VOModel(policy="availability", **common)
    plain = VOModel(policy="css", vo_criterion="availability", **common)
    assert named.policy_name == "availability"
    assert set(named.metascheduler.scheduler.criterion_allocators.values()) == {"max_availability"}
    named.run()
    plain.run()
    pd.testing.assert_frame_equal(named.job_frame(), plain.job_frame())


def test_a_moved_window_is_neither_a_success_nor_a_failure():
    """Conservative backfilling moves reservations earlier; under availability each moved
    window is an attempt row with ``moved`` set, and failures count interruptions only."""
    model = VOModel(
        trace=NASA, jobs=80, availability=True, policy="conservative", rng=5, patience=SHORT
    )
    model.run()
    attempts, jobs = model.attempt_frame(), model.job_frame()
    moved = attempts[attempts["moved"]]
    assert len(moved) > 0 and not moved["succeeded"].any()
    assert moved["interrupted_at"].isna().all()
    failed = (
        ~attempts["succeeded"] & ~attempts["moved"] & (attempts["interrupted_at"] <= model.horizon)
    )
    assert jobs["failures"].sum() == failed.sum() > 0


@pytest.mark.parametrize("seed", [-1, 2.5, True, "7"])
def test_a_seed_that_numpy_would_reject_is_a_parameter_error(seed):
    with pytest.raises(ParameterError, match="seed"):
        VOModel(trace="NASA-iPSC-1993-3.1-cln", jobs=5, rng=seed)
