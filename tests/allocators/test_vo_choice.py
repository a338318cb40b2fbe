"""Step 2 of the cyclic scheme: VO policies over a batch's alternatives (VO Preferences §2-3)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vosim.allocators.combination import choose_combination
from vosim.allocators.vo_choice import (
    USER_SENSE,
    VOPolicy,
    batch_rows,
    choose_alternatives,
    window_value,
)
from vosim.core import Slot, Window
from vosim.errors import ParameterError


def window(start: float, runtime: float, cost: float, node: int = 0) -> Window:
    return Window((Slot(node, start, start + runtime, 1.0, 1.0),), start, runtime, cost)


@st.composite
def batches(draw):
    jobs = draw(st.integers(1, 5))
    windows, criteria = [], []
    for _ in range(jobs):
        k = draw(st.integers(0, 4))
        windows.append(
            [
                window(
                    float(draw(st.integers(0, 50))),
                    float(draw(st.integers(1, 40))),
                    float(draw(st.integers(1, 60))),
                )
                for _ in range(k)
            ]
        )
        criteria.append(draw(st.sampled_from(["finish", "runtime", "cost"])))
    policy = VOPolicy(
        objective=draw(st.sampled_from(["cost", "runtime", "finish"])),
        limit=draw(st.sampled_from(["user", "cost", "time"])),
        evaluation=draw(st.sampled_from(["ordinal", "relative"])),
        ua=draw(st.one_of(st.none(), st.floats(0, 100))),
        max_alternatives=4,
    )
    return windows, criteria, policy


def exhaustive(windows, criteria, policy, limit):
    """Best VO total over every combination within the limit (the oracle)."""
    jobs = [i for i, w in enumerate(windows) if w]
    result = choose_alternatives(windows, criteria, policy)
    best = None
    for combo in itertools.product(*(range(len(windows[i])) for i in jobs)):
        chosen = [windows[i][k] for i, k in zip(jobs, combo, strict=True)]
        if policy.limit == "user":
            bound = sum(result.user_evals[i][k] for i, k in zip(jobs, combo, strict=True))
        elif policy.limit == "cost":
            bound = sum(w.cost for w in chosen)
        else:
            bound = sum(w.runtime for w in chosen)
        if bound > limit * (1 + 1e-9) + 1e-9:
            continue
        total = sum(window_value(w, policy.objective) for w in chosen)
        if best is None or (total > best if policy.sense == "max" else total < best):
            best = total
    return best


@settings(max_examples=300, deadline=None)
@given(batches())
def test_choice_is_the_exhaustive_optimum(case):
    windows, criteria, policy = case
    r = choose_alternatives(windows, criteria, policy)
    for i, ws in enumerate(windows):
        assert (r.choice[i] < 0) == (not ws)
        assert len(r.user_evals[i]) == len(ws)
    if not any(windows):
        assert math.isnan(r.vo_total)
        return
    best = exhaustive(windows, criteria, policy, r.limit)
    assert r.vo_total == pytest.approx(best, abs=1e-9)
    chosen = [windows[i][k] for i, k in enumerate(r.choice) if k >= 0]
    assert r.vo_total == pytest.approx(sum(window_value(w, policy.objective) for w in chosen))
    # A is undefined (NaN) when the VO's optimum is the users' choice (no choice)
    assert math.isnan(r.vo_evaluation) or 0 - 1e-9 <= r.vo_evaluation <= 100 + 1e-9
    if policy.ua is None and not math.isnan(r.vo_evaluation):
        assert r.vo_evaluation == pytest.approx(0.0, abs=1e-9)
        # the shortcut for no limit makes the DP's choice, ties included
        rows = batch_rows(windows, criteria, policy)
        dp = choose_combination(rows.vo, rows.bound, math.inf, policy.sense)
        assert r.choice[rows.jobs].tolist() == dp.choice.tolist()


def test_vo_preferences_table1_and_the_two_extremes():
    # one job, user minimises cost; alternatives cost 5, 7, 11, 15 (VO Preferences Table 1)
    ws = [window(0.0, 10.0, c) for c in (5.0, 7.0, 11.0, 15.0)]
    ordinal = choose_alternatives([ws], ["cost"], VOPolicy("cost", "user", "ordinal", ua=0.0))
    assert ordinal.user_evals[0].tolist() == [0.0, 1.0, 2.0, 3.0]
    assert int(ordinal.choice[0]) == 0 and ordinal.vo_evaluation == 100.0  # the users' choice
    relative = choose_alternatives([ws], ["cost"], VOPolicy("cost", "user", "relative", ua=60.0))
    assert relative.user_evals[0].tolist() == [0.0, 20.0, 60.0, 100.0]
    assert int(relative.choice[0]) == 2  # C -> max with U <= 60 %
    assert relative.vo_evaluation == pytest.approx(40.0)  # (11 - 15) / (5 - 15)
    free = choose_alternatives([ws], ["cost"], VOPolicy("cost", "user", "ordinal", ua=None))
    assert int(free.choice[0]) == 3 and free.vo_evaluation == 0.0  # the VO optimum


def test_classical_limits():
    # T -> min, lim C: faster alternatives cost more
    a = [window(0.0, 10.0, 50.0), window(0.0, 30.0, 10.0)]
    b = [window(0.0, 20.0, 40.0), window(0.0, 40.0, 20.0)]
    cheapest = choose_alternatives([a, b], ["cost"] * 2, VOPolicy("runtime", "cost", ua=0.0))
    assert cheapest.choice.tolist() == [1, 1] and cheapest.limit == 30.0
    loose = choose_alternatives([a, b], ["cost"] * 2, VOPolicy("runtime", "cost", ua=100.0))
    assert loose.choice.tolist() == [0, 0] and loose.vo_total == 30.0
    # C -> max, lim T at the halfway point: total time <= 30 + (70 - 30) / 2 = 50
    mid = choose_alternatives([a, b], ["cost"] * 2, VOPolicy("cost", "time", ua=50.0))
    assert mid.limit == 50.0 and mid.vo_total == 90.0 and mid.choice.tolist() == [0, 0]


def test_availability_users_need_probabilities():
    ws = [window(0.0, 10.0, 5.0), window(5.0, 10.0, 5.0)]
    with pytest.raises(ParameterError, match="availability"):
        choose_alternatives([ws], ["availability"], VOPolicy(ua=0.0))
    r = choose_alternatives(
        [ws], ["availability"], VOPolicy("finish", "user", "ordinal", ua=0.0), [[0.5, 0.9]]
    )
    assert r.user_evals[0].tolist() == [1.0, 0.0] and int(r.choice[0]) == 1
    assert USER_SENSE["availability"] == "max"


@pytest.mark.parametrize(
    "kwargs, words",
    [
        ({"objective": "profit"}, "objective"),
        ({"limit": "energy"}, "limit"),
        ({"evaluation": "cardinal"}, "evaluation"),
        ({"ua": -1.0}, "U_a"),
        ({"ua": math.nan}, "U_a"),
        ({"max_alternatives": 0}, "max_alternatives"),
        ({"max_alternatives": 2.5}, "max_alternatives"),
    ],
)
def test_policy_errors(kwargs, words):
    with pytest.raises(ParameterError, match=words):
        VOPolicy(**kwargs)


def test_batch_errors():
    with pytest.raises(ParameterError, match="criteria"):
        choose_alternatives([[window(0, 1, 1)]], [], VOPolicy())
    with pytest.raises(ParameterError, match="unknown user criterion"):
        choose_alternatives([[window(0, 1, 1)]], ["speed"], VOPolicy())
    with pytest.raises(ParameterError, match="no window value"):
        window_value(window(0, 1, 1), "energy")
    empty = choose_alternatives([[], []], ["cost", "cost"], VOPolicy())
    assert empty.choice.tolist() == [-1, -1] and math.isnan(empty.vo_evaluation)
    assert np.isinf(empty.limit)
