"""The compiled AEP sweeps find the numpy block scan's window, criterion by criterion.

``vosim.allocators.aep_kernels`` is the fast form of the block scans of
``vosim.allocators.aep`` (``VOSIM_REFERENCE=1`` runs the blocks): both must return the same
allocation (window spans in order, start, runtime, cost, reason and stats) on random slot
lists. The lists are drawn with many ties (prices, performances and starts from small sets),
windows of up to 300 slots (numpy's pairwise summation beyond 8 and 128 terms) and budgets
near the cheapest window (the rounding of the sums decides). Hosts of several processors
(``width``) give the runs of alike slots the sweeps read as one row with a count, with
processors of their own between them and equal costs across runs (ties go by node id).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from vosim.allocators import ResourceRequest, aep, allocate_window
from vosim.allocators import aep_kernels as kernels
from vosim.allocators.aep_kernels import pairwise_sum
from vosim.core.code_path import REFERENCE_ENV
from vosim.core.slots import SlotList

CRITERIA = ("amp", "min_cost", "min_runtime", "min_finish")


def slot_list(seed: int, nodes: int, ties: bool, width: int = 1) -> SlotList:
    """Up to four free slots per node in [0, 1000), prices and performances drawn.

    ``width`` > 1: ``nodes`` hosts of ``width`` processors (node ids ``h * width + p``) of
    one price and performance, most with the host's slots, some with slots of their own.
    """
    rng = np.random.default_rng(seed)
    rows = []

    def spans() -> list[tuple[float, float]]:
        out, t = [], 0.0
        for _ in range(rng.integers(1, 5)):
            a = t + (rng.choice([0.0, 10.0, 50.0]) if ties else rng.uniform(0.0, 80.0))
            b = a + (rng.choice([100.0, 200.0, 400.0]) if ties else rng.uniform(20.0, 400.0))
            if a >= 1000.0:
                break
            out.append((a, min(b, 1000.0)))
            t = b
        return out

    for host in range(nodes):
        price = rng.choice([1.0, 1.5, 2.0]) if ties else rng.uniform(0.5, 3.0)
        perf = float(rng.choice([2, 4, 5, 8])) if ties else rng.uniform(2.0, 10.0)
        shared = spans()
        for p in range(width):
            own = shared if p == 0 or rng.random() < 0.7 else spans()
            rows += [(host * width + p, a, b, price, perf) for a, b in own]
    node, start, end, price, perf = (np.array(c) for c in zip(*rows, strict=True))
    return SlotList.from_arrays(node.astype(np.int64), start, end, price, perf)


def both(slots: SlotList, request: ResourceRequest, criterion: str, monkeypatch):
    monkeypatch.setenv(REFERENCE_ENV, "1")
    plain = allocate_window(slots, request, criterion)
    monkeypatch.setenv(REFERENCE_ENV, "0")
    fast = allocate_window(slots, request, criterion)
    return plain, fast


def assert_same(plain, fast) -> None:
    assert (fast.reason, fast.criterion, fast.stats, fast.status) == (
        plain.reason,
        plain.criterion,
        plain.stats,
        plain.status,
    )
    if plain.window is None:
        assert fast.window is None
        return
    w, v = plain.window, fast.window
    assert (v.start, v.runtime, v.cost) == (w.start, w.runtime, w.cost)
    assert v.slots == w.slots


@settings(max_examples=150, deadline=None)
@given(
    seed=st.integers(0, 2**20),
    nodes=st.integers(2, 400),
    ties=st.booleans(),
    width=st.sampled_from([1, 1, 3, 14]),
    share=st.floats(0.0, 1.0),
    volume=st.sampled_from([200.0, 400.0, 800.0, 1500.0]),
    slack=st.sampled_from([0.999, 1.0, 1.0 + 1e-12, 1.05, 2.0, np.inf]),
    criterion=st.sampled_from(CRITERIA),
)
@example(seed=1, nodes=300, ties=True, width=1, share=0.9, volume=400.0, slack=1.0,
         criterion="min_cost")  # fmt: skip
@example(seed=2, nodes=300, ties=True, width=1, share=0.5, volume=800.0, slack=1.0,
         criterion="min_finish")  # fmt: skip
@example(seed=5, nodes=300, ties=True, width=14, share=0.5, volume=400.0, slack=1.0,
         criterion="amp")  # fmt: skip
def test_compiled_sweeps_find_the_block_scans_window(
    seed, nodes, ties, width, share, volume, slack, criterion
):
    """About ``nodes`` processors (hosts of ``width``); the same allocation both ways."""
    slots = slot_list(seed, max(1, nodes // width), ties, width)
    n = max(2, int(share * nodes))
    # a budget at (or near) the cheapest n tasks anywhere: the exact sums decide
    cost = np.sort(slots.price * volume / slots.performance)
    budget = float(cost[:n].sum()) * slack if cost.size >= n else np.inf
    request = ResourceRequest(n=n, volume=volume, budget=budget)
    with pytest.MonkeyPatch.context() as patch:
        plain, fast = both(slots, request, criterion, patch)
    assert_same(plain, fast)


def test_the_sweeps_decide_something():
    """The drawn instances find windows with n well above 128 (pairwise sums of many terms),
    and hosts of processors make runs of many slots the sweeps read as one row."""
    request = ResourceRequest(n=200, volume=400.0, budget=np.inf)
    for slots in (slot_list(7, 400, True), slot_list(7, 30, True, 14)):
        with pytest.MonkeyPatch.context() as patch:
            for criterion in CRITERIA:
                plain, fast = both(slots, request, criterion, patch)
                assert plain.window is not None
                assert_same(plain, fast)
    scan = aep._sweep_scan(slots, request)
    assert scan.count.max() > 1 and scan.count.size < len(slots) / 2


@settings(max_examples=200, deadline=None)
@given(
    seed=st.integers(0, 2**20),
    nodes=st.integers(1, 200),
    ties=st.booleans(),
    amount=st.sampled_from([("volume", 400.0), ("volume", 2500.0), ("time", 90.0)]),
    min_performance=st.sampled_from([0.0, 4.0, 9.0]),
    slack=st.sampled_from([0.999, 1.0, 1.0 + 1e-12, 2.0, np.inf]),
    criterion=st.sampled_from(CRITERIA),
)
@example(seed=3, nodes=50, ties=True, amount=("volume", 400.0), min_performance=0.0,
         slack=1.0, criterion="min_cost")  # fmt: skip
@example(seed=1, nodes=1, ties=True, amount=("volume", 2500.0), min_performance=9.0,
         slack=np.inf, criterion="amp")  # fmt: skip
def test_compiled_single_slot_choice_is_the_numpy_one(
    seed, nodes, ties, amount, min_performance, slack, criterion
):
    """n = 1: the compiled pass's window, reason and stats are the numpy form's, ties included."""
    slots = slot_list(seed, nodes, ties)
    kind, value = amount
    task = value / slots.performance if kind == "volume" else np.full(len(slots), value)
    budget = float((slots.price * task).min()) * slack  # at the cheapest slot: ties decide
    request = ResourceRequest(n=1, budget=budget, min_performance=min_performance, **{kind: value})
    with pytest.MonkeyPatch.context() as patch:
        plain, fast = both(slots, request, criterion, patch)
    assert_same(plain, fast)


def test_single_slot_refusals_name_the_same_reason():
    """No usable slot, and a budget below the cheapest slot: both forms give one reason."""
    slots = slot_list(5, 20, True)
    for request in (
        ResourceRequest(n=1, volume=1e9, budget=np.inf),  # no slot long enough
        ResourceRequest(n=1, volume=400.0, budget=1e-6),  # below the cheapest
    ):
        for criterion in CRITERIA:
            with pytest.MonkeyPatch.context() as patch:
                plain, fast = both(slots, request, criterion, patch)
            assert plain.window is None and plain.reason
            assert_same(plain, fast)


def test_drift_bound_rules_out_only_what_the_exact_sum_would():
    """A tree that held huge costs keeps small ones exact enough: the bound covers the drift."""
    start = np.array([0.0, 0.0, 1.0, 2.0])
    latest = np.array([0.5, 10.0, 10.0, 10.0])
    cost = np.array([1e300, 0.1, 0.2, 0.3])
    one = np.ones(4, dtype=np.int64)
    unsorted = (kernels.NO_ORDER, kernels.NO_ORDER)  # each sweep sorts the scan itself
    t, examined = kernels.first_feasible(start, latest, cost, one, 2, 0.1 + 0.2, *unsorted)
    assert (t, examined) == (1.0, 2)
    t, best = kernels.cheapest_start(start, latest, cost, one, 2, *unsorted)
    assert (t, best) == (1.0, 0.1 + 0.2)
    # rows of several slots: three slots of cost 0.1 at 1.0 make the window of n = 3 there
    many = np.array([1, 1, 3, 1], dtype=np.int64)
    start = np.array([0.0, 0.0, 1.0, 2.0])
    cost = np.array([1e300, 0.2, 0.1, 0.3])
    t, examined = kernels.first_feasible(start, latest, cost, many, 3, 0.1 + 0.1 + 0.1, *unsorted)
    assert (t, examined) == (1.0, 1)  # two slots at 0.0: not a candidate start
    t, best = kernels.cheapest_start(start, latest, cost, many, 3, *unsorted)
    assert (t, best) == (1.0, 0.1 + 0.1 + 0.1)
    # the scan's orders made once and given: the same answers
    given = kernels.orders(cost, latest, *unsorted)
    assert [a.tolist() for a in given] == [[2, 1, 3, 0], [0, 1, 2, 3]]
    assert kernels.first_feasible(start, latest, cost, many, 3, 0.1 + 0.1 + 0.1, *given) == (t, 1)
    assert kernels.cheapest_start(start, latest, cost, many, 3, *given) == (t, best)


@settings(max_examples=200, deadline=None)
@given(
    seed=st.integers(0, 2**20),
    nodes=st.integers(1, 120),
    ties=st.booleans(),
    width=st.sampled_from([1, 4]),
    n=st.integers(1, 60),
    amount=st.sampled_from([("volume", 400.0), ("volume", 2500.0), ("time", 90.0)]),
    min_performance=st.sampled_from([0.0, 4.0, 9.0]),
    budget=st.sampled_from([np.inf, 50.0, 2000.0]),
)
def test_compiled_preparation_is_the_numpy_scan(
    seed, nodes, ties, width, n, amount, min_performance, budget
):
    """The scan of runs, each run repeated as many times as it has slots, is the plain scan:
    the usable slots, candidate starts, task times and refusals."""
    slots = slot_list(seed, nodes, ties, width)
    request = ResourceRequest(n=n, budget=budget, min_performance=min_performance, **dict([amount]))
    plain = aep._prepare(slots, request)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(REFERENCE_ENV, "0")
        fast = aep._sweep_scan(slots, request)
    if isinstance(plain, str):
        assert fast == plain
        return
    assert plain.count is None and (fast.count >= 1).all()
    np.testing.assert_array_equal(fast.positions(), plain.index)
    for field in ("start", "latest", "cost", "duration"):
        got = np.repeat(getattr(fast, field), fast.count)
        np.testing.assert_array_equal(got, getattr(plain, field), err_msg=field)
    for field in ("candidates", "durations"):
        np.testing.assert_array_equal(getattr(fast, field), getattr(plain, field), err_msg=field)
    assert (fast.nodes, fast.limit) == (plain.nodes, plain.limit)
    # a run is a longest stretch: neighbouring runs differ somewhere, or are apart
    key = np.stack([slots.start, slots.end, slots.price, slots.performance], axis=1)
    last = fast.index + fast.count - 1
    after = last[:-1] + 1
    alike = (key[after.clip(max=len(slots) - 1)] == key[last[:-1]]).all(1)
    joined = (after == fast.index[1:]) & alike
    assert not joined.any()


@settings(deadline=None)  # the first call loads the compiled function
@given(
    st.lists(st.floats(-1e12, 1e12, allow_nan=False) | st.floats(0, 1e-6), min_size=0, max_size=700)
)
def test_pairwise_sum_is_numpys_sum_bit_for_bit(values):
    a = np.array(values, dtype=float)
    assert pairwise_sum(a, 0, a.size) == a.sum()
