"""The traced machine's compiled replay of FCFS and EASY gives the agents' run, value for value.

The oracle is the agents' own run of the same model (``run(replayed=False)``: every event,
the count form of the policies); ``tests/core/test_code_path.py`` also compares the replay
with ``VOSIM_REFERENCE=1`` (the node form), and ``tests/policies/test_batch_equivalence.py``
its starts with an independent event loop of the batch rules.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from vosim.agents.replay import refusal, replay
from vosim.core.code_path import REFERENCE_ENV
from vosim.market.swf import swf_frame
from vosim.model import VOModel

GAIA, NASA, LCG = "UniLu-Gaia-2014-2", "NASA-iPSC-1993-3.1-cln", "LCG-2005-1"


def _model(**kwargs) -> VOModel:
    return VOModel(machine=True, cycle_period=0, rng=kwargs.pop("rng", 1), **kwargs)


def _assert_same_run(fast: VOModel, agents: VOModel) -> None:
    """The tables, the summary and what the agents hold at the end are equal, exactly."""
    pd.testing.assert_frame_equal(fast.job_frame(), agents.job_frame(), check_exact=True)
    pd.testing.assert_frame_equal(fast.task_frame(), agents.task_frame(), check_exact=True)
    pd.testing.assert_frame_equal(fast.cycle_frame(), agents.cycle_frame(), check_exact=True)
    a, b = fast.summary(), agents.summary()
    assert a.keys() == b.keys()
    for key in a:
        same = a[key] == b[key] or (a[key] != a[key] and b[key] != b[key])  # NaN: both
        assert same, (key, a[key], b[key])
    assert fast.time == agents.time
    assert fast.owners[0].revenue == agents.owners[0].revenue
    for x, y in zip(fast.users, agents.users, strict=True):
        assert (x.satisfaction, x.choice_part, x.wait_part, x.queue_part) == (
            y.satisfaction, y.choice_part, y.wait_part, y.queue_part,
        )  # fmt: skip
        assert (x.evaluated, x.submitted) == (y.evaluated, y.submitted)
    assert fast.metascheduler.cycles == agents.metascheduler.cycles
    np.testing.assert_array_equal(
        fast.metascheduler.execution.reserved_until, agents.metascheduler.execution.reserved_until
    )
    assert fast.ledger.states() == agents.ledger.states()


def _both(**kwargs) -> tuple[VOModel, VOModel]:
    fast, agents = _model(**kwargs), _model(**kwargs)
    assert refusal(fast) == ""
    fast.run()
    agents.run(replayed=False)
    assert fast.ledger.request[0] is None  # replayed: no request objects were made
    assert agents.ledger.request[0] is not None
    return fast, agents


@pytest.mark.parametrize("policy", ["easy", "fcfs"])
@pytest.mark.parametrize(("trace", "jobs"), [(GAIA, 2500), (NASA, 2500), (LCG, 1500)])
def test_replay_gives_the_agents_run(trace, jobs, policy):
    """Prefixes of the three bundled traces (NASA's rejected jobs, Gaia's jobs of no run
    time, LCG's 24,515 processors) under both policies."""
    fast, agents = _both(trace=trace, jobs=jobs, policy=policy)
    _assert_same_run(fast, agents)
    assert fast.ledger.completed > jobs // 2


def test_the_default_patience_and_no_patience_replay_alike():
    """No job waits 30 days here: the patience changes nothing, with or without it."""
    fast, agents = _both(trace=GAIA, jobs=1000, policy="easy", patience=None)
    _assert_same_run(fast, agents)


def test_a_job_that_would_wait_past_the_patience_leaves_it_to_the_agents():
    """A patience shorter than a wait stops the replay before it changes anything; the run
    is then the agents' (jobs withdrawn)."""
    model = _model(trace=GAIA, jobs=1500, policy="fcfs", patience=600.0)
    assert refusal(model) == ""
    assert not replay(model, 1000.0)
    assert model.ledger.counts["pending"] == len(model.jobs) and model.metascheduler.cycles == 0
    assert len(model.cycle_frame()) == 0 and len(model.task_frame()) == 0
    model.run()
    agents = _model(trace=GAIA, jobs=1500, policy="fcfs", patience=600.0)
    agents.run(replayed=False)
    assert model.ledger.withdrawn > 0
    pd.testing.assert_frame_equal(model.job_frame(), agents.job_frame(), check_exact=True)


def test_progress_reports_the_agents_slices():
    """One call per time slice, the same counts as the agents' run reports."""
    seen: dict[str, list] = {"fast": [], "agents": []}
    fast, agents = (
        _model(trace=NASA, jobs=800, policy="easy"),
        _model(trace=NASA, jobs=800, policy="easy"),
    )
    fast.run(progress=lambda *a: seen["fast"].append(a), chunks=50)
    agents.run(progress=lambda *a: seen["agents"].append(a), chunks=50, replayed=False)
    assert seen["fast"] == seen["agents"]
    assert seen["fast"][-1] == (800, 800) and len(seen["fast"]) >= 50


@st.composite
def machine_traces(draw):
    """Small traces on a machine of 2-8 processors, times on a coarse grid: ties everywhere
    (equal submits, ends, releases and shadow times), jobs of no run time, wide jobs."""
    procs = draw(st.integers(2, 8))
    k = draw(st.integers(1, 25))
    gaps = draw(st.lists(st.sampled_from([0, 0, 1, 5, 10]), min_size=k, max_size=k))
    sizes = draw(st.lists(st.integers(1, procs), min_size=k, max_size=k))
    requested = draw(st.lists(st.sampled_from([1, 5, 10, 20]), min_size=k, max_size=k))
    share = draw(st.lists(st.sampled_from([0.0, 0.5, 1.0]), min_size=k, max_size=k))
    users = draw(st.lists(st.integers(1, 3), min_size=k, max_size=k))
    submit = np.cumsum(np.array(gaps, dtype=float))
    requested = np.array(requested, dtype=float)
    return swf_frame(
        submit,
        np.array(sizes),
        requested,
        np.floor(requested * np.array(share)),
        np.array(users),
        nodes=procs,
        note="test",
    )


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(frame=machine_traces(), policy=st.sampled_from(["easy", "fcfs"]))
def test_replay_equals_the_agents_on_random_small_machines(frame, policy):
    """Whatever the ties, the replay gives the agents' run, or leaves it to them unchanged."""
    fast, agents = _model(trace=frame, policy=policy), _model(trace=frame, policy=policy)
    step = max(fast.run_span / 200, 1.0)
    if not replay(fast, step):  # a tie the count form hands to the node form: the agents
        assert fast.ledger.counts["pending"] == len(fast.jobs)
        fast.run()
    else:
        fast.finish()
    agents.run(replayed=False)
    _assert_same_run(fast, agents)


def test_some_small_machines_are_replayed():
    """The property above is not all fallbacks: a plain small trace replays."""
    frame = swf_frame(
        np.array([0.0, 0.0, 1.0, 2.0]),
        np.array([2, 2, 4, 2]),
        np.array([100.0, 100.0, 100.0, 10.0]),
        np.array([100.0, 30.0, 100.0, 10.0]),
        np.array([1, 2, 1, 2]),
        nodes=4,
        note="test",
    )
    model = _model(trace=frame, policy="easy")
    assert replay(model, 1.0)
    model.finish()
    jobs = model.job_frame()
    # EASY: the 4-processor head waits for both; the 2-processor job of 10 s backfills
    # on the second job's processors when it ends at 30, before the head's shadow time 100
    assert jobs["starting_time"].tolist() == [0.0, 0.0, 100.0, 30.0]
    assert jobs["allocated_resources"].tolist() == ["0-1", "2-3", "0-3", "2-3"]


@pytest.mark.parametrize(
    ("change", "why"),
    [
        ({"policy": "conservative"}, "policy 'conservative'"),
        ({"cycle_period": 300.0}, "periodic cycles"),
        ({"horizon": 86400.0}, "a horizon"),
        ({"machine": False}, "not the traced machine"),
        ({"user_exit_satisfaction": 0.5}, "users who leave"),
    ],
)
def test_what_is_not_replayed_says_why(change, why):
    kwargs = {"trace": GAIA, "jobs": 50, "policy": "easy", "cycle_period": 0, "machine": True}
    model = VOModel(**{**kwargs, **change}, rng=1)
    assert refusal(model) == why
    assert not replay(model, 100.0)


def test_the_reference_switch_and_a_run_begun_are_not_replayed(monkeypatch):
    model = _model(trace=GAIA, jobs=50, policy="easy")
    monkeypatch.setenv(REFERENCE_ENV, "1")
    assert refusal(model) == "VOSIM_REFERENCE=1 runs the agents"
    monkeypatch.setenv(REFERENCE_ENV, "0")
    model.run_until(model.jobs[0].submit_time + 1.0)
    assert refusal(model) == "a run already begun"


def test_a_step_that_is_not_a_time_is_refused():
    model = _model(trace=GAIA, jobs=10, policy="easy")
    for bad in (0.0, -1.0, math.inf, math.nan):
        with pytest.raises(ValueError, match="step must be a positive finite time"):
            replay(model, bad)


def test_a_job_of_no_run_time_frees_its_processors_for_another_pass_at_once():
    """It ends at its start: the processors are free again in a second pass at that time."""
    frame = swf_frame(
        np.array([0.0, 0.0]),
        np.array([2, 2]),
        np.array([10.0, 10.0]),
        np.array([0.0, 10.0]),
        np.array([1, 2]),
        nodes=2,
        note="test",
    )
    fast, agents = _both(trace=frame, policy="easy")
    _assert_same_run(fast, agents)
    assert fast.job_frame()["starting_time"].tolist() == [0.0, 0.0]
    assert fast.cycle_frame()["time"].tolist() == [0.0, 0.0]


def test_ctrl_c_while_the_records_are_written_waits_for_them(monkeypatch):
    """SIGINT between two writers is held until all are written, then raised: jobs
    completed always have their tasks and passes."""
    import signal

    import vosim.agents.replay as module

    log_tasks = module._log_tasks
    handlers = []  # the SIGINT handler each call of the writer found

    def interrupted(*args):
        # as Ctrl-C after the ledger, before the tasks; raise_signal delivers it to this
        # thread before it returns (os.kill may deliver it to another thread of the
        # process, e.g. a progress bar's monitor, after it returns)
        handlers.append(signal.getsignal(signal.SIGINT))
        signal.raise_signal(signal.SIGINT)
        log_tasks(*args)

    monkeypatch.setattr(module, "_log_tasks", interrupted)
    model = _model(trace=GAIA, jobs=300, policy="easy")
    assert refusal(model) == ""
    # Python's own Ctrl-C handler, whatever an earlier test of this process left installed
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        replayed = replay(model, 1000.0)
    except KeyboardInterrupt:
        pass
    else:
        pytest.fail(f"no KeyboardInterrupt: replayed {replayed}, writer saw {handlers}")
    finally:
        after = signal.signal(signal.SIGINT, before)
    assert after is signal.default_int_handler  # the hold put back the handler it found
    assert len(handlers) == 1 and handlers[0] is not signal.default_int_handler  # held
    assert model.ledger.completed == 300
    assert len(model.task_frame()) == int(model.job_frame()["requested_number_of_resources"].sum())
    assert len(model.cycle_frame()) == model.metascheduler.cycles > 0
