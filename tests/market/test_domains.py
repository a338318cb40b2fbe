"""Tests of the experiment domains of AEP §3.1 and VO Preferences §4 (vosim.market.domains)."""

from __future__ import annotations

import itertools
import math
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vosim.allocators import ResourceRequest, allocate_window
from vosim.errors import ParameterError, VosimError
from vosim.market.domains import (
    AEP_MIN_LOCAL_LENGTH,
    AEP_PRICE_SD,
    BATCH_CRITERIA,
    BatchJob,
    Domain,
    ProportionalPricing,
    aep_domain,
    aep_job,
    vo_preferences_batch,
    vo_preferences_domain,
)
from vosim.market.pricing import ExponentialPricing

SETTINGS = settings(max_examples=40, deadline=None)
seeds = st.integers(0, 2**32 - 1)


def rng(seed: int) -> np.random.Generator:
    return np.random.default_rng(seed)


def same_domain(a: Domain, b: Domain) -> bool:
    cols = ("performance", "price", "busy_node", "busy_start", "busy_end")
    slot_cols = ("node", "start", "end", "price", "performance")
    return (
        all(np.array_equal(getattr(a, c), getattr(b, c)) for c in cols)
        and all(np.array_equal(getattr(a.slots, c), getattr(b.slots, c)) for c in slot_cols)
        and a.interval == b.interval
        and a.performance_range == b.performance_range
        and a.pricing == b.pricing
    )


def load_share(domain: Domain) -> np.ndarray:
    """Busy share of the interval per node, shape (N,)."""
    lengths = domain.busy_end - domain.busy_start
    span = domain.interval[1] - domain.interval[0]
    return np.bincount(domain.busy_node, lengths, minlength=domain.size) / span


def check_layout(domain: Domain) -> None:
    """Busy intervals and slots lie in the interval, are disjoint and tile it on every node."""
    t0, t1 = domain.interval
    assert (domain.busy_start >= t0).all() and (domain.busy_end <= t1).all()
    assert (domain.busy_end > domain.busy_start).all()
    sl = domain.slots
    assert (sl.start >= t0).all() and (sl.end <= t1).all()
    assert np.array_equal(sl.price, domain.price[sl.node])
    assert np.array_equal(sl.performance, domain.performance[sl.node])
    for k in range(domain.size):
        busy = [(a, b, "busy") for a, b in zip(*_of(domain, k), strict=True)]
        free = [(s.start, s.end, "free") for s in sl if s.node == k]
        spans = sorted(busy + free)
        # Consecutive spans touch and alternate kinds (slots are maximal): an exact tiling.
        assert spans[0][0] == t0 and spans[-1][1] == t1
        for (_, b, kind), (a, _, kind2) in itertools.pairwise(spans):
            assert b == a, f"node {k}: gap or overlap at {b} / {a}"
            assert not (kind == kind2 == "free")


def _of(domain: Domain, k: int) -> tuple[np.ndarray, np.ndarray]:
    m = domain.busy_node == k
    return domain.busy_start[m], domain.busy_end[m]


# --------------------------------------------------------------------------------------------
# AEP §3.1


def test_aep_defaults_match_the_paper():
    d = aep_domain(rng(0))
    assert d.size == 100 and d.performance.shape == d.price.shape == (100,)
    assert d.interval == (0.0, 600.0) and d.performance_range == (2, 10)
    assert d.pricing == ProportionalPricing(sd=AEP_PRICE_SD)
    assert AEP_PRICE_SD == pytest.approx(0.6 / 3)  # VO Preferences §4's 60 %, as 3 sd


@SETTINGS
@given(seed=seeds)
def test_aep_same_seed_same_domain(seed):
    assert same_domain(aep_domain(rng(seed)), aep_domain(rng(seed)))


def test_aep_different_seeds_differ():
    assert not same_domain(aep_domain(rng(1)), aep_domain(rng(2)))


@SETTINGS
@given(
    seed=seeds,
    nodes=st.integers(1, 40),
    interval=st.sampled_from([100.0, 600.0, 1000.0]),
    perf=st.tuples(st.integers(1, 10), st.integers(0, 6)).map(lambda t: (t[0], t[0] + t[1])),
    load=st.tuples(st.floats(0.1, 0.5), st.floats(0.0, 0.4)).map(
        lambda t: (t[0], min(t[0] + t[1], 0.9))
    ),
)
def test_aep_ranges_and_layout(seed, nodes, interval, perf, load):
    d = aep_domain(rng(seed), nodes=nodes, interval=interval, performance_range=perf, load=load)
    assert d.size == nodes and d.interval == (0.0, interval)
    assert np.array_equal(d.performance, np.round(d.performance))
    assert ((d.performance >= perf[0]) & (d.performance <= perf[1])).all()
    assert (d.price > 0).all()
    share = load_share(d)
    if load[0] * interval / 6 >= AEP_MIN_LOCAL_LENGTH:  # no job needed merging
        assert ((share >= load[0] - 1e-12) & (share <= load[1] + 1e-12)).all()
    assert (d.busy_end - d.busy_start >= AEP_MIN_LOCAL_LENGTH - 1e-9).all()
    check_layout(d)


def test_aep_default_load_share_and_local_job_length():
    for seed in range(20):
        d = aep_domain(rng(seed))
        share = load_share(d)
        assert ((share >= 0.10 - 1e-12) & (share <= 0.50 + 1e-12)).all()
        assert (d.busy_end - d.busy_start >= 10).all()
        counts = np.bincount(d.busy_node, minlength=100)
        assert ((counts >= 2) & (counts <= 6)).all()


@SETTINGS
@given(seed=seeds, high=st.floats(0.0, 0.05), interval=st.sampled_from([5.0, 100.0, 600.0]))
def test_aep_short_local_jobs_are_merged_or_lengthened(seed, high, interval):
    d = aep_domain(rng(seed), nodes=30, interval=interval, load=(0.0, high))
    assert (d.busy_end - d.busy_start >= min(AEP_MIN_LOCAL_LENGTH, interval) - 1e-9).all()
    # A node keeps its load share whenever that share is itself at least 10 long.
    share = load_share(d)
    assert (share <= max(high, AEP_MIN_LOCAL_LENGTH / interval) + 1e-12).all()
    check_layout(d)


def test_aep_price_is_performance_times_a_deviation():
    d = aep_domain(rng(3), nodes=2000)
    factor = d.price / d.performance - 1.0
    assert abs(factor.mean()) < 0.02 and abs(factor.std() - AEP_PRICE_SD) < 0.01
    flat = aep_domain(rng(3), nodes=50, price_sd=0.0)
    assert np.array_equal(flat.price, flat.performance)
    wild = aep_domain(rng(3), nodes=500, price_sd=5.0)
    assert (wild.price > 0).all()
    assert np.isclose((wild.price / wild.performance).min(), 0.01)  # clipped at the floor


def test_aep_job_is_five_slots_of_150_on_the_slowest_node():
    job = aep_job()
    assert job == ResourceRequest(n=5, volume=300.0, budget=1500.0)
    assert job.durations(np.array([2.0, 10.0])).tolist() == [150.0, 30.0]
    assert aep_job(n=3, time=100.0, reference_performance=4.0, budget=7.0) == ResourceRequest(
        n=3, volume=400.0, budget=7.0
    )


def test_aep_min_cost_with_the_text_derived_deviation():
    """Mean minCost window of the paper's job over 40 domains at the documented 0.2.

    aep_domain's Notes report 924.2 over 200 domains (paper 1027.3, not matched: price_sd is
    chosen from the text, not calibrated). 40 domains give a mean within about +-10 of it.
    """
    job = aep_job()
    costs = []
    for seed in range(40):
        window = allocate_window(aep_domain(rng(seed)).slots, job, "min_cost").window
        assert window is not None and window.cost <= job.budget
        costs.append(window.cost)
    assert 905 < np.mean(costs) < 945
    # Markups rule nodes out: a window of undiscounted nodes costs exactly the budget.
    assert aep_domain(rng(0), price_sd=0.0).pricing.dearest_cost_per_work((2, 10)) == 1.0


# --------------------------------------------------------------------------------------------
# VO Preferences §4


@SETTINGS
@given(seed=seeds)
def test_vo_same_seed_same_domain_and_batch(seed):
    a, b = rng(seed), rng(seed)
    da, db = vo_preferences_domain(a), vo_preferences_domain(b)
    assert same_domain(da, db)
    assert vo_preferences_batch(a, da, mix="random") == vo_preferences_batch(b, db, mix="random")


@SETTINGS
@given(seed=seeds, nodes=st.integers(1, 60))
def test_vo_domain_ranges_and_layout(seed, nodes):
    d = vo_preferences_domain(rng(seed), nodes=nodes)
    assert d.size == nodes and d.interval == (0.0, 600.0)
    assert np.array_equal(d.performance, np.round(d.performance))
    assert ((d.performance >= 2) & (d.performance <= 10)).all()
    base = ExponentialPricing().base_price(d.performance)
    ratio = d.price / base
    assert ((ratio >= 0.4 - 1e-12) & (ratio <= 1.6 + 1e-12)).all() and (d.price > 0).all()
    share = load_share(d)
    assert ((share >= 0.05 - 1e-12) & (share <= 0.10 + 1e-12)).all()
    check_layout(d)


def test_vo_domain_takes_a_pricing_policy():
    pricing = ExponentialPricing(scale=2.0, rate=0.1, max_deviation=0.0)
    d = vo_preferences_domain(rng(0), nodes=10, pricing=pricing)
    assert d.pricing is pricing
    assert np.allclose(d.price, 2.0 * np.exp(0.1 * d.performance))


def test_domain_arrays_are_read_only():
    d = vo_preferences_domain(rng(0), nodes=5)
    with pytest.raises(ValueError):
        d.price[0] = 0.0
    with pytest.raises(AttributeError):
        d.price = np.zeros(5)  # type: ignore[misc]


def test_domain_checks_its_arrays():
    ok = dict(
        performance=[2.0, 3.0],
        price=[1.0, 1.0],
        busy_node=[0],
        busy_start=[1.0],
        busy_end=[2.0],
        interval=(0.0, 10.0),
        performance_range=(2, 3),
        pricing=ExponentialPricing(),
    )
    d = Domain(**ok)
    assert [(s.node, s.start, s.end) for s in d.slots] == [
        (0, 0.0, 1.0),
        (1, 0.0, 10.0),
        (0, 2.0, 10.0),
    ]
    for bad in [
        {"price": [1.0]},
        {"busy_end": [2.0, 3.0]},
        {"performance": [[2.0, 3.0]]},
        {"interval": (5.0, 5.0)},
    ]:
        with pytest.raises(ParameterError):
            Domain(**(ok | bad))


# --------------------------------------------------------------------------------------------
# Batches


def budget_factor(job: BatchJob, domain: Domain) -> float:
    c_max = domain.pricing.dearest_cost_per_work(domain.performance_range)
    return job.request.budget / (job.request.n * job.request.volume * c_max)


@SETTINGS
@given(
    seed=seeds,
    jobs=st.integers(1, 60),
    n=st.tuples(st.integers(1, 5), st.integers(0, 4)).map(lambda t: (t[0], t[0] + t[1])),
    t=st.tuples(st.integers(1, 300), st.integers(0, 300)).map(lambda t: (t[0], t[0] + t[1])),
    f=st.tuples(st.floats(0.1, 1.0), st.floats(0.0, 1.0)).map(lambda t: (t[0], t[0] + t[1])),
    mix=st.sampled_from(["conflicting", "mixed", "random"]),
    aep=st.booleans(),
)
def test_batch_ranges(seed, jobs, n, t, f, mix, aep):
    g = rng(seed)
    domain = aep_domain(g, nodes=12) if aep else vo_preferences_domain(g, nodes=12)
    batch = vo_preferences_batch(
        g, domain, jobs=jobs, node_range=n, time_range=t, mix=mix, budget_factor=f
    )
    assert [job.index for job in batch] == list(range(jobs))
    p0 = domain.performance_range[0]
    for job in batch:
        assert isinstance(job.request, ResourceRequest) and job.request.volume is not None
        assert n[0] <= job.request.n <= n[1]
        reservation = job.request.volume / p0  # T: the task time on the slowest node
        assert reservation == round(reservation) and t[0] <= reservation <= t[1]
        assert job.request.durations(domain.performance).max() <= reservation
        assert f[0] * (1 - 1e-9) <= budget_factor(job, domain) <= f[1] * (1 + 1e-9)
        assert job.criterion in BATCH_CRITERIA
    counts = Counter(job.criterion for job in batch)
    if mix == "conflicting":
        assert counts == {"cost": jobs}
    elif mix == "mixed":
        assert counts["cost"] == jobs // 2


def test_batch_defaults_match_the_paper():
    g = rng(11)
    domain = vo_preferences_domain(g)
    batch = vo_preferences_batch(g, domain)
    assert len(batch) == 40
    ns = [job.request.n for job in batch]
    times = [job.request.volume / 2 for job in batch]
    assert min(ns) >= 2 and max(ns) <= 6 and min(times) >= 100 and max(times) <= 500
    factors = [budget_factor(job, domain) for job in batch]
    assert 0.7 <= min(factors) and max(factors) <= 1.6
    # Some jobs can afford the dearest nodes with the full markup, others cannot.
    assert max(factors) > 1.4 and min(factors) < 0.9
    assert Counter(job.criterion for job in batch)["cost"] == 20
    assert {job.criterion for job in batch} == set(BATCH_CRITERIA)


def test_batch_dearest_budget_buys_the_dearest_nodes():
    pricing = ExponentialPricing()
    domain = vo_preferences_domain(rng(0), nodes=10)
    job = vo_preferences_batch(rng(1), domain, jobs=1, budget_factor=(1.6, 1.6))[0]
    volume, n = job.request.volume, job.request.n
    dearest_task = pricing.base_price(10.0) * 1.6 * volume / 10.0  # +60 % on performance 10
    assert math.isclose(job.request.budget, n * dearest_task)


def test_batch_random_mix_uses_all_three_criteria_evenly():
    g = rng(4)
    batch = vo_preferences_batch(g, vo_preferences_domain(g, nodes=10), jobs=3000, mix="random")
    counts = Counter(job.criterion for job in batch)
    assert set(counts) == set(BATCH_CRITERIA)
    assert all(900 < c < 1100 for c in counts.values())
    mixed = vo_preferences_batch(g, vo_preferences_domain(g, nodes=10), jobs=3000, mix="mixed")
    counts = Counter(job.criterion for job in mixed)
    assert counts["cost"] == 1500 and 650 < counts["finish"] < 850


# --------------------------------------------------------------------------------------------
# Errors


@pytest.mark.parametrize(
    ("kwargs", "shown"),
    [
        ({"nodes": 0}, "0"),
        ({"nodes": -3}, "-3"),
        ({"nodes": 2.5}, "2.5"),
        ({"nodes": True}, "True"),
        ({"interval": 0.0}, "0.0"),
        ({"interval": -600.0}, "-600.0"),
        ({"interval": math.inf}, "inf"),
        ({"performance_range": (10, 2)}, "(10, 2)"),
        ({"performance_range": (0, 10)}, "(0, 10)"),
        ({"performance_range": (-2, 10)}, "(-2, 10)"),
        ({"performance_range": (2.5, 10)}, "(2.5, 10)"),
        ({"performance_range": 5}, "5"),
        ({"load": (0.5, 0.1)}, "0.5"),
        ({"load": (-0.1, 0.2)}, "-0.1"),
        ({"load": (0.1, 1.0)}, "1.0"),
        ({"load": 0.3}, "0.3"),
    ],
)
@pytest.mark.parametrize("make", [aep_domain, vo_preferences_domain])
def test_domain_errors_name_the_value(make, kwargs, shown):
    with pytest.raises(ParameterError) as info:
        make(rng(0), **kwargs)
    assert shown in str(info.value)
    assert isinstance(info.value, (VosimError, ValueError))


@pytest.mark.parametrize("sd", [-0.1, math.nan, math.inf])
def test_aep_price_sd_errors(sd):
    with pytest.raises(ParameterError, match="price_sd"):
        aep_domain(rng(0), price_sd=sd)


def test_aep_job_errors():
    with pytest.raises(ParameterError, match="time"):
        aep_job(time=0.0)
    with pytest.raises(ParameterError, match="reference_performance"):
        aep_job(reference_performance=-2.0)
    with pytest.raises(VosimError):
        aep_job(n=0)


@pytest.mark.parametrize(
    ("kwargs", "shown"),
    [
        ({"jobs": 0}, "0"),
        ({"jobs": -1}, "-1"),
        ({"node_range": (3, 2)}, "(3, 2)"),
        ({"node_range": (0, 3)}, "(0, 3)"),
        ({"node_range": (2, 11)}, "11"),  # more nodes than the domain's 10
        ({"time_range": (500, 100)}, "(500, 100)"),
        ({"time_range": (0, 100)}, "(0, 100)"),
        ({"time_range": (100.5, 200)}, "100.5"),
        ({"budget_factor": (0.0, 1.0)}, "(0.0, 1.0)"),
        ({"budget_factor": (1.6, 0.7)}, "(1.6, 0.7)"),
        ({"mix": "cooperative"}, "'cooperative'"),
    ],
)
def test_batch_errors_name_the_value(kwargs, shown):
    domain = vo_preferences_domain(rng(0), nodes=10)
    with pytest.raises(ParameterError) as info:
        vo_preferences_batch(rng(0), domain, **kwargs)
    assert shown in str(info.value)


def test_batch_needs_a_domain():
    with pytest.raises(TypeError, match="Domain"):
        vo_preferences_batch(rng(0), "domain")  # type: ignore[arg-type]
