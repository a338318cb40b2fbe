"""The live page's model (vosim.ui.scenarios), without a browser: scenarios, user regrouping,
:class:`LiveModel` stepping and its allocator and policy inputs.

Stepping tests use the synthetic scenarios (1,000 jobs on 100 nodes, a full run in about 2 s);
the bundled traces (2,000-job prefixes) are only built or stepped a few cheap cycles.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("solara")  # vosim.ui.components imports solara and mesa's Solara helpers


from live_cases import _model

from vosim.core import SlotList
from vosim.errors import ParameterError, UnknownAllocatorError
from vosim.policies.base import CycleState
from vosim.policies.cyclic_scheme import one_criterion
from vosim.ui import components as ui
from vosim.ui.scenarios import (
    AEP_SCENARIO,
    BY_USER_CRITERION,
    SCENARIOS,
    TRACE_JOBS,
    TRACE_SCENARIOS,
    VO_PREFERENCES_SCENARIO,
    LiveModel,
    allocator_names,
    build_scenario,
    regroup_users,
    swf_frame,
)


def _frame(users: list[int]) -> pd.DataFrame:
    k = len(users)
    return swf_frame(
        np.arange(k, dtype=float),
        np.ones(k, dtype=int),
        np.full(k, 10.0),
        np.full(k, 10.0),
        np.array(users),
        nodes=4,
        note="test",
    )


# -- scenarios ---------------------------------------------------------------------------------
@pytest.mark.parametrize("name", SCENARIOS)
@pytest.mark.parametrize("users", [1, 3, 50])
def test_every_scenario_builds(name, users):
    built = build_scenario(name, users, np.random.default_rng(0))
    assert built.name == name
    jobs = len(built.trace)
    assert jobs > 0
    if name in TRACE_SCENARIOS:
        assert jobs == TRACE_JOBS
    assert built.trace["user_id"].nunique() <= users
    assert built.trace.attrs["header"]["MaxNodes"]
    assert built.description


def test_synthetic_scenarios_spread_jobs_over_all_users():
    for name in (AEP_SCENARIO, VO_PREFERENCES_SCENARIO):
        trace = build_scenario(name, 7, np.random.default_rng(5)).trace
        assert set(trace["user_id"]) == set(range(1, 8))


def test_synthetic_scenarios_depend_on_rng_only():
    a = build_scenario(AEP_SCENARIO, 4, np.random.default_rng(1)).trace
    b = build_scenario(AEP_SCENARIO, 4, np.random.default_rng(1)).trace
    c = build_scenario(AEP_SCENARIO, 4, np.random.default_rng(2)).trace
    pd.testing.assert_frame_equal(a, b)
    assert not a["submit_time"].equals(c["submit_time"])


def test_unknown_scenario_is_named():
    with pytest.raises(ParameterError, match="no-such-trace"):
        build_scenario("no-such-trace", 3, np.random.default_rng(0))


@pytest.mark.parametrize("users", [0, -2, 1.5, True])
def test_bad_user_count_is_named(users):
    with pytest.raises(ParameterError, match=rf"users.*{users!r}"):
        build_scenario(AEP_SCENARIO, users, np.random.default_rng(0))


def test_allocator_names_lists_choice_then_criteria():
    names = allocator_names()
    assert names[0] == BY_USER_CRITERION
    assert "amp" in names
    assert len(set(names)) == len(names)


# -- regroup_users ---------------------------------------------------------------------------
def test_regroup_users_by_first_submission():
    frame = _frame([7, 3, 7, 9, 5, 3])
    out = regroup_users(frame, 2)
    # ranks by first submission: 7 -> 0, 3 -> 1, 9 -> 2, 5 -> 3; user r % 2 + 1
    assert out["user_id"].tolist() == [1, 2, 1, 1, 2, 2]
    assert out.attrs == frame.attrs
    assert frame["user_id"].tolist() == [7, 3, 7, 9, 5, 3]  # input untouched


@pytest.mark.parametrize("k", [1, 2, 5, 40])
def test_regroup_users_keeps_one_user_per_job(k):
    trace = build_scenario(TRACE_SCENARIOS[0], 10_000, np.random.default_rng(0)).trace
    out = regroup_users(trace, k)
    assert len(out) == len(trace)
    assert out["user_id"].notna().all()
    assert out["user_id"].nunique() <= k
    # A trace user is never split: each original user maps to exactly one new user.
    per_user = out.groupby(trace["user_id"].to_numpy())["user_id"].nunique()
    assert (per_user == 1).all()
    if trace["user_id"].nunique() > k:
        assert set(out["user_id"]) == set(range(1, k + 1))
    # deterministic
    pd.testing.assert_frame_equal(out, regroup_users(trace, k))
    # everything but the user column is kept
    pd.testing.assert_frame_equal(out.drop(columns="user_id"), trace.drop(columns="user_id"))


def test_regroup_users_keeps_ids_when_few_users():
    frame = _frame([7, 3, 7])
    assert regroup_users(frame, 2)["user_id"].tolist() == [7, 3, 7]
    with pytest.raises(ParameterError, match="users"):
        regroup_users(frame, 0)


# -- LiveModel stepping ----------------------------------------------------------------------
def test_live_model_signature_and_scenario_parameters():
    model = _model(pricing_policy="demand", vo_objective="runtime", ua=40.0, max_alternatives=2)
    assert model.scenario_name == VO_PREFERENCES_SCENARIO
    assert model.node_count == 100
    assert model.cycle_period == 150.0
    assert model.scheduling_interval == 600.0
    assert len(model.owners) == 5
    assert len(model.users) <= 4
    assert model.vo_policy.ua == 40.0
    assert model.vo_policy.objective == "runtime"
    assert model.time == 0.0
    assert model.running


def test_local_load_from_a_trace():
    """A trace replayed as the owners' online local jobs: each placed as it arrives."""
    model = LiveModel(workload=TRACE_SCENARIOS[1], users=3, owners=2, load="NASA iPSC trace")
    assert model.local_jobs is not None and model.local_trace_jobs > 0
    assert "NASA" in model.local_trace_name
    model.step()
    model.run_until(40_000.0)  # the first local jobs of owners of 64 processors arrive by then
    local = model.local_jobs.frame()
    assert len(local) > 0
    placed = set()
    for owner in model.owners:
        node, a, _, tag = owner.intervals()
        placed |= set(zip(node[tag < 0].tolist(), a[tag < 0].tolist(), strict=True))
    started = {(r, s) for s, res in zip(local["start"], local["resources"], strict=True)
               for r in res}  # fmt: skip
    assert placed and placed <= started


def test_unknown_load_is_named():
    with pytest.raises(ParameterError, match="heavy"):
        _model(load="heavy")


def test_first_step_runs_cycle_zero_then_one_cycle_per_step():
    model = _model()
    c = model.cycle_period
    assert model.cycle_frame().empty
    # Mesa cannot run an event at the current time: the first step runs the cycles at 0 and c.
    model.step()
    assert model.time == c
    assert model.metascheduler.cycles == 2
    assert model.cycle_frame()["time"].tolist() == [0.0, c]
    for k in range(2, 6):
        before = model.time
        model.step()
        assert model.time == pytest.approx(before + c)
        assert model.time == k * c
        assert model.metascheduler.cycles == k + 1
        assert model.cycle_frame()["time"].iloc[-1] == k * c
    assert model.running


def test_step_is_step_cycle():
    a, b = _model(), _model()
    a.step()
    b.step_cycle()
    assert a.time == b.time
    pd.testing.assert_frame_equal(a.cycle_frame(), b.cycle_frame())


def test_advance_drains_and_finishes():
    model = _model(workload=AEP_SCENARIO, users=3)
    assert math.isinf(model.horizon)  # no horizon: the run drains
    span = model.run_span
    assert span == max(j.submit_time for j in model.jobs)
    assert model.next_cycle_time() == model.cycle_period
    model.advance(span / 2)
    assert model.time == pytest.approx(span / 2)
    assert model.running
    with pytest.raises(ParameterError, match="drains"):
        model.advance(math.inf)
    for _ in range(10_000):  # slices of the span until the drain ends
        if not model.running:
            break
        model.advance(model.chunk_end())
    assert not model.running and model.ended
    states = {model.ledger[j.index].state for j in model.jobs}
    assert states <= {"completed", "rejected", "withdrawn"}
    # Further steps and advances do nothing.
    rows = len(model.cycle_frame())
    t = model.time
    model.step()
    model.advance(t * 20)
    assert model.time == t
    assert len(model.cycle_frame()) == rows
    assert not model.running


def test_steps_are_increasing_cycle_times_until_the_drain_ends():
    model = _model(workload=AEP_SCENARIO, users=3)
    model.advance(model.run_span - 1.5 * model.cycle_period)
    assert model.running
    last = None
    for _ in range(100_000):
        if not model.running:
            break
        model.step()
        assert last is None or model.time > last
        last = model.time
    assert not model.running and model.done


def test_advance_ignores_past_times():
    model = _model()
    model.advance(450.0)
    rows = len(model.cycle_frame())
    model.advance(300.0)
    assert model.time == 450.0
    assert len(model.cycle_frame()) == rows


def test_chunk_end_is_at_least_one_cycle_and_capped():
    model = _model()
    assert model.chunk_end(10**6) == model.cycle_period
    assert model.chunk_end(1) == model.run_span
    assert model.time < model.chunk_end() <= model.run_span


def test_same_inputs_give_identical_cycles():
    a, b = _model(max_alternatives=2), _model(max_alternatives=2)
    for _ in range(6):
        a.step()
        b.step()
    pd.testing.assert_frame_equal(a.cycle_frame(), b.cycle_frame())
    pd.testing.assert_frame_equal(a.fairness_frame(), b.fairness_frame())
    assert ui.summary_lines(a) == ui.summary_lines(b)


def test_different_seeds_differ():
    a, c = _model(workload=AEP_SCENARIO, rng=1), _model(workload=AEP_SCENARIO, rng=2)
    for _ in range(6):
        a.step()
        c.step()
    assert a.time == c.time
    assert not a.cycle_frame().equals(c.cycle_frame())


def test_trace_scenario_steps():
    model = LiveModel(workload=TRACE_SCENARIOS[1], users=5, owners=4, rng=1)
    assert len(model.jobs) == TRACE_JOBS
    assert len({j.user for j in model.jobs}) <= 5
    model.step()
    model.step()
    c = model.cycle_period
    assert model.time == 2 * c
    # cycles at 0, c, 2c, but those that cannot act are skipped to the next event:
    # here the one at 2c (nothing waits; the next submission is at 1460 s)
    times = model.cycle_frame()["time"].tolist()
    assert times[0] == 0.0 and set(times) <= {0.0, c, 2 * c}
    assert len(times) == model.periodic.ran and len(times) + model.periodic.skipped >= 3


# -- allocator input -------------------------------------------------------------------------
def test_amp_allocator_applies_to_every_user():
    model = _model(allocator="amp")
    ms = model.metascheduler
    # the same alias as ``vosim run --allocator amp``
    assert ms.scheduler.criterion_allocators == one_criterion("amp")
    assert {ms.scheduler.criterion_allocators[c] for c in ("finish", "runtime", "cost")} == {"amp"}
    assert model.allocators == ms.scheduler.criterion_allocators
    assert model.allocator == "amp"
    for _ in range(3):
        model.step()
    scheduled = [j for j in model.jobs if model.ledger[j.index].nodes is not None]
    assert scheduled
    for user in model.users:
        assert ms.scheduler.criterion_allocators[user.criterion] == "amp"
    # criterion set at submission, so every scheduled job searched AMP (a pass whose interval
    # ends at once: no job's own interval is shorter, so the search is the criterion's name)
    state = CycleState(model.time, model.time, SlotList(), ())
    for job in scheduled:
        assert ms.scheduler._search(job.index, None, state) == "amp"


def test_by_user_criterion_keeps_default_mapping():
    model = _model()
    ms = model.metascheduler
    assert model.allocator == BY_USER_CRITERION
    assert model.allocators == ms.scheduler.criterion_allocators
    assert ms.scheduler.criterion_allocators["cost"] == "min_cost"
    assert ms.scheduler.criterion_allocators["finish"] == "min_finish"


def test_allocator_changes_the_schedule():
    a, b = _model(allocator="amp"), _model(allocator="min_cost")
    for _ in range(3):
        a.step()
        b.step()
    starts_a = [
        (j.job_id, a.ledger[j.index].start, a.ledger[j.index].window_cost)
        for j in a.jobs
        if a.ledger[j.index].nodes is not None
    ]
    starts_b = [
        (j.job_id, b.ledger[j.index].start, b.ledger[j.index].window_cost)
        for j in b.jobs
        if b.ledger[j.index].nodes is not None
    ]
    assert starts_a and starts_b
    assert starts_a != starts_b


def test_unknown_allocator_raises_clear_error():
    with pytest.raises(UnknownAllocatorError, match="no_such_allocator") as info:
        _model(allocator="no_such_allocator")
    assert "amp" in str(info.value)  # lists the registered names
    assert isinstance(info.value, ValueError)


def test_live_model_rejects_fractional_users():
    with pytest.raises(ParameterError, match=r"2\.5"):
        LiveModel(workload=VO_PREFERENCES_SCENARIO, users=2.5)


def test_policy_input_offers_every_policy_and_changes_the_schedule():
    from vosim.policies.base import policy_names
    from vosim.ui.app import MODEL_PARAMS

    assert MODEL_PARAMS["policy"]["values"] == policy_names()
    starts = {}
    for policy in ("css", "easy"):
        model = _model(policy=policy)
        for _ in range(8):
            model.step()
        assert model.policy_name == policy
        starts[policy] = [
            (job.index, model.ledger[job.index].start)
            for job in model.jobs
            if model.ledger[job.index].start >= 0
        ]
        assert starts[policy]
    assert starts["css"] != starts["easy"]
