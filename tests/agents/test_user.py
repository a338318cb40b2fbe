"""Users' per-period accounts: budgets replenished every ``budget_period``.

VO Preferences §4 gives each job a budget ``C`` from its user's budget rule; the per-period
account (a balance reset to an allowance every period, charged for every reserved window) is
vosim's extension.
"""

import math
import re

import numpy as np
import pandas as pd
import pytest
from conftest import last_submission_plus_l

from vosim import VOModel
from vosim.agents.user import UserAgent
from vosim.errors import ParameterError
from vosim.model import CYCLE_COLUMNS
from vosim.runs.cli import main
from vosim.runs.config import parse_sweep

NASA = "NASA-iPSC-1993-3.1-cln"
GAIA = "UniLu-Gaia-2014-2"
DAY = 86400.0
#: NASA's 128-node jobs starve behind the owners' local jobs and wait out the default 30-day
#: patience (~8,000 cycles of an unchanged queue): NASA runs that test something else end that
#: drain with a short patience.
SHORT = 2 * DAY


def _run(**kwargs) -> VOModel:
    model = VOModel(**kwargs)
    model.run()
    return model


def _until_last_submission(trace: str, jobs: int) -> float:
    """The horizon these tests were written for: the last submission plus L (no drain)."""
    return last_submission_plus_l(trace=trace, jobs=jobs, rng=1)


def _reserve_times(model: VOModel) -> dict[int, float]:
    """Spy on the metascheduler's reservations: job id -> model time of the decision."""
    ms = model.metascheduler
    times: dict[int, float] = {}
    reserve = ms.execution.reserve

    def spy(job, window, uncertain=None):
        times[job.job_id] = float(model.time)
        reserve(job, window, uncertain)

    ms.execution.reserve = spy
    return times


# Job frames of the code before the per-period accounts existed (same seeds), re-recorded
# once when each owner's interval local load got its own random stream (the draws changed,
# the counts did not).
_BEFORE = {
    NASA: (200, 196, 4, 32182693.883624118, 13708090.73194463),
    GAIA: (300, 283, 17, 163571844.14802292, 421347090.6383114),
}


@pytest.mark.parametrize("trace", [NASA, GAIA])
def test_no_period_is_bit_identical(trace):
    jobs, completed, unfinished, starts, cost = _BEFORE[trace]
    # the snapshot predates re-planning: reservations stay where they were made;
    # and the new defaults (processors, 5-10 % local load): the snapshot's are passed
    fixed = dict(
        trace=trace,
        jobs=jobs,
        rng=1,
        replan="never",
        resources="nodes",
        local_load=(0.1, 0.5),
        local_model="interval",  # the snapshot's local load, drawn per interval
        look_ahead=math.inf,  # the snapshot's scheme: one interval L for every job
    )
    fixed["horizon"] = _until_last_submission(trace, jobs)
    default = _run(**fixed)
    explicit = _run(**fixed, budget_period=None, budget_allowance=3.0)
    pd.testing.assert_frame_equal(explicit.job_frame(), default.job_frame())
    pd.testing.assert_frame_equal(explicit.cycle_frame(), default.cycle_frame())
    df = default.job_frame()
    counts = df["state"].value_counts()
    assert (counts["completed"], counts["unfinished"]) == (completed, unfinished)
    assert df["starting_time"].sum() == pytest.approx(starts, rel=1e-12)
    assert df["window_cost"].sum() == pytest.approx(cost, rel=1e-12)  # reserved windows
    cycles = default.cycle_frame()
    assert list(cycles.columns) == list(CYCLE_COLUMNS) and "mean_balance" in CYCLE_COLUMNS
    assert cycles["mean_balance"].isna().all()
    assert all(math.isnan(u.balance) and math.isnan(u.allowance) for u in default.users)


def test_ample_allowance_changes_nothing():
    # Balances that never bind: same schedule as without accounts, though every window is
    # charged and every period wakes the metascheduler. Without re-planning: a hold taken in
    # an earlier period does not move (its cost is not returned, a new window would be
    # charged again), so with re-planning periods do change the schedule.
    base = _run(trace=GAIA, jobs=300, rng=1, replan="never")
    model = _run(
        trace=GAIA, jobs=300, rng=1, budget_period=DAY, budget_allowance=1e6, replan="never"
    )
    pd.testing.assert_frame_equal(model.job_frame(), base.job_frame())
    spent = model.job_frame().groupby("user")["cost"].sum()
    assert spent.sum() > 0
    assert np.all(model.user_balance > 0)


def test_spending_per_period_within_allowance(monkeypatch):
    model = VOModel(
        trace=GAIA,
        jobs=300,
        rng=1,
        budget_period=DAY,
        budget_allowance=0.5,
        horizon=_until_last_submission(GAIA, 300),
    )
    decided = _reserve_times(model)
    lowest: dict[int, float] = {}  # user -> lowest balance after a charge, share of allowance
    charge = UserAgent.charge

    def spy(self, cost):
        charge(self, cost)
        share = self.balance / self.allowance
        lowest[self.user_id] = min(lowest.get(self.user_id, 1.0), share)

    monkeypatch.setattr(UserAgent, "charge", spy)
    model.run()
    df = model.job_frame()

    # Hand-check one allowance: 0.5 * sum(C of the user's jobs) * period / submit span.
    user = df["user"].value_counts().index[0]
    mine = df[df["user"] == user]
    span = df["submission_time"].max() - df["submission_time"].min()
    assert span > DAY
    agent = model.user_agent[user]
    assert agent.allowance == pytest.approx(0.5 * mine["budget"].sum() * DAY / span, rel=1e-12)
    assert agent.balance == model.user_balance[model.users.index(agent)]

    # what each window held on the balance when it was reserved
    assert set(df.loc[df["window_cost"].notna(), "job_id"]) <= set(decided)
    # A window's cost is held on the balance when it is reserved and what did not run comes
    # back at its end: the balance is never overdrawn, and the accounts do bind (some user's
    # balance fell below a tenth of the allowance).
    assert min(lowest.values()) >= -1e-9
    assert min(lowest.values()) < 0.1
    # The job's output budget stays its rule budget C.
    rule = {j.job_id: model.user_agent[j.user].budget_for(j) for j in model.jobs}
    assert np.allclose(df["budget"], df["job_id"].map(rule), rtol=1e-12)


def test_small_allowance_leaves_more_unfinished_and_balances_reset():
    common = dict(trace=GAIA, jobs=300, rng=1, budget_period=DAY)
    common["horizon"] = _until_last_submission(GAIA, 300)  # jobs the balance holds stay
    small = _run(**common, budget_allowance=0.05)
    large = _run(**common, budget_allowance=2.0)
    unfinished = [int((m.job_frame()["state"] == "unfinished").sum()) for m in (small, large)]
    assert unfinished[0] > unfinished[1] + 100
    assert "balance" in small.job_frame().query("state == 'unfinished'")["reason"].str.cat()

    for model in (small, large):
        cycles = model.cycle_frame()
        mean_allowance = np.mean([u.allowance for u in model.users])
        balance = cycles["mean_balance"].to_numpy()
        boundary = (cycles["time"] % DAY == 0).to_numpy()
        # Reset, no carry-over: never above the allowance, even when little is spent.
        assert (balance <= mean_allowance * (1 + 1e-12)).all()
        assert np.all(model.user_balance <= [u.allowance * (1 + 1e-12) for u in model.users])
        # At a boundary balances are reset (rise); between boundaries they rise only by
        # what windows held and did not use, returned when their jobs end.
        step = np.diff(balance)
        # (a boundary's row is after that cycle's reservations: the reset shows as a rise
        # only where the balance had fallen by more than those)
        rises = step[boundary[1:]] > 0
        assert rises.sum() >= 1
    # The small allowance is spent down; the large one is not.
    assert small.cycle_frame()["mean_balance"].min() < large.cycle_frame()["mean_balance"].min()


@pytest.mark.parametrize(
    ("kwargs", "shown"),
    [
        ({"budget_period": 0.0}, "0.0"),
        ({"budget_period": -5}, "-5"),
        ({"budget_period": math.inf}, "inf"),
        ({"budget_period": math.nan}, "nan"),
        ({"budget_period": True}, "True"),
        ({"budget_period": DAY, "budget_allowance": 0}, "budget_allowance must be"),
        ({"budget_period": DAY, "budget_allowance": -0.5}, "-0.5"),
        ({"budget_allowance": math.nan}, "nan"),
    ],
)
def test_bad_values_raise(kwargs, shown):
    with pytest.raises(ParameterError, match="budget_") as err:
        VOModel(trace=NASA, jobs=10, rng=1, **kwargs)
    assert shown in str(err.value)


def test_cli_bad_period_exits_2_one_line(tmp_path, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["run", "--budget-period", "-5", "--out", str(tmp_path / "x")])
    assert exc.value.code == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1, lines
    # argparse names the subcommand: "vosim run: error: argument --budget-period: ..."
    assert re.match(r"vosim( run)?: error: ", lines[0]) and "--budget-period" in lines[0]
    assert "-5" in lines[0]


def test_cli_records_period_in_summary(tmp_path):
    import json

    from vosim.runs.cli import main

    out = tmp_path / "out"
    args = ["run", "--trace", NASA, "--jobs", "40", "--patience", str(SHORT)]
    args += ["--out", str(out), "--quiet"]
    assert main([*args, "--budget-period", "86400", "--budget-allowance", "0.5"]) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["budget_period"] == DAY and summary["budget_allowance"] == 0.5
    cycles = pd.read_parquet(out / "cycles.parquet")
    assert cycles["mean_balance"].notna().all()


def test_sweep_can_vary_the_period():
    config = parse_sweep(
        'name = "accounts"\n[scenario]\ntrace = "NASA-iPSC-1993-3.1-cln"\njobs = 20\n'
        '[sweep]\nbudget_period = ["none", 86400, 604800.0]\nbudget_allowance = [0.5, 2]\n'
    )
    assert config.sweep["budget_period"] == (None, 86400, 604800.0)
    assert config.sweep["budget_allowance"] == (0.5, 2)


def test_replenishment_wakes_the_metascheduler():
    # Cycles are skipped on a static market until something changes; budgets growing is such a
    # change, or budget-bound jobs would wait for an unrelated event.
    model = VOModel(trace=NASA, jobs=20, rng=1, budget_period=DAY, budget_allowance=0.5)
    model.run_until(DAY / 2)
    css = model.metascheduler.scheduler
    css._changed = False
    spent = model.users[0]
    before = spent.balance
    spent.charge(spent.allowance / 4)
    assert spent.balance == pytest.approx(before - spent.allowance / 4)
    assert spent.balance == model.user_balance[0]
    model.replenish_budgets()
    assert spent.balance == spent.allowance
    searched = []  # the cycle over every waiting job, not the sleeping request classes
    real = css._cycle_jobs
    css._cycle_jobs = lambda state, decisions: (
        searched.append(state.refreshed) or real(state, decisions)
    )
    assert css.classes.total or model.metascheduler.queue_length
    model.metascheduler.cycle()
    assert searched == [True]


def test_interrupted_windows_credit_the_unused_part_back(monkeypatch):
    """With availability, what a failed window did not use goes back to the user.

    Every window's cost is held on the balance at reservation; at its end (completed or
    interrupted) the user is charged what its tasks ran and gets the rest back, within the
    budget period of the hold (after a reset the unused part expires with its period). With
    one period longer than the run, what the users were charged in all equals what the jobs
    paid plus what running jobs still hold.
    """
    from vosim.agents.user import UserAgent

    charges, credits = [], []
    charge = UserAgent.charge

    def spy_charge(self, cost):
        (charges if cost > 0 else credits).append(abs(cost))
        charge(self, cost)

    monkeypatch.setattr(UserAgent, "charge", spy_charge)
    model = VOModel(
        trace=NASA,
        jobs=60,
        availability=True,
        global_load=0.05,
        budget_period=1e9,
        budget_allowance=1e6,
        rng=2,
        patience=SHORT,
    )
    model.run()
    assert model.budget_periods == 1
    jobs = model.job_frame()
    assert (jobs["failures"] > 0).any()  # the case is exercised
    assert (jobs["paid_for_failures"] > 0).any()
    held = sum(model.ledger[i].window.cost for i in model.metascheduler.execution.running)
    net = math.fsum(charges) - math.fsum(credits)
    assert net == pytest.approx(jobs["cost"].sum() + held, rel=1e-9)
    assert sum(credits) > 0


def test_replayed_takes_the_end_of_a_run():
    """What a replayed run hands each user: all jobs submitted, the scores, a change noted."""
    model = VOModel(trace="UniLu-Gaia-2014-2", jobs=30, machine=True, cycle_period=0, rng=1)
    user = model.users[0]
    model.users_changed = False
    user.replayed(2, 0.5, 0.6, 0.7, 0.8)
    assert (user.submitted, user.evaluated) == (len(user.jobs), 2)
    assert (user.satisfaction, user.choice_part, user.wait_part, user.queue_part) == (
        0.5, 0.6, 0.7, 0.8,
    )  # fmt: skip
    assert model.user_satisfaction[user.position] == 0.5 and model.users_changed
    user.submit_due()  # its pending submission event: nothing left to submit
    assert model.ledger.counts["pending"] == len(model.jobs)
