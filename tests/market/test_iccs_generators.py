"""Tests of the papers' generators: the ICCS 2021 §4.1 environment, ICCS 2023 §3 instances."""

from __future__ import annotations

import math

import numpy as np
import pytest

from vosim.allocators.availability_problem import AvailabilityProblem
from vosim.errors import ParameterError
from vosim.market.iccs_generators import generate_environment, random_groups
from vosim.market.utilization_schedule import UtilizationSchedule

# --------------------------------------------------------------------------------------------
# The ICCS 2021 §4.1 environment generator


def job_table(env: UtilizationSchedule):
    """Expected (start, end, node) of every local job."""
    return env.alloc_time, env.release_time, env.resource_of


def test_generator_is_reproducible():
    def make(seed):
        return generate_environment(
            16, 800.0, global_load=0.05, job_load=0.5, rng=np.random.default_rng(seed)
        )

    a, b, c = make(7), make(7), make(8)
    for name in ("global_p", "start", "end", "alloc_time", "release_sd", "resource_of"):
        assert np.array_equal(getattr(a, name), getattr(b, name), equal_nan=True)
    assert not np.array_equal(a.global_p, c.global_p)
    starts = np.arange(0.0, 601.0)
    assert np.array_equal(a.p_avail(200, starts), b.p_avail(200, starts))


@pytest.mark.parametrize("job_load", [0.05, 0.3, 0.5, 0.9, 1.0])
def test_generator_job_load_total_and_placement(job_load):
    L = 800.0
    env = generate_environment(
        50, L, global_load=0.05, job_load=job_load, rng=np.random.default_rng(1)
    )
    s, f, node = job_table(env)
    totals = np.bincount(node, weights=f - s, minlength=50)
    np.testing.assert_allclose(totals, job_load * L, rtol=1e-9)
    for i in range(50):
        si, fi = s[node == i], f[node == i]
        order = np.argsort(si)
        si, fi = si[order], fi[order]
        assert si[0] >= 0 and fi[-1] <= L * (1 + 1e-12)
        assert np.all(si[1:] >= fi[:-1] - 1e-9)  # no overlap
    length = f - s
    np.testing.assert_allclose(env.alloc_sd, 0.05 * length)
    np.testing.assert_allclose(env.release_sd, 0.1 * length)
    np.testing.assert_allclose(env.start, s + 3 * env.alloc_sd)
    np.testing.assert_allclose(env.end, f - 3 * env.release_sd)
    # P_o is one half at the expected allocation and release of every job
    first = env.chain(0)
    assert first.p_occupied([first.alloc_time, first.release_time]).tolist() == [0.5, 0.5]


@pytest.mark.parametrize("job_load", [0.3, 0.5])
def test_generator_margin_lays_jobs_out_beyond_both_ends(job_load):
    L, margin = 800.0, 1000.0
    env = generate_environment(
        40, L, global_load=0.05, job_load=job_load, margin=margin, rng=np.random.default_rng(4)
    )
    s, f, node = job_table(env)
    totals = np.bincount(node, weights=f - s, minlength=40)
    np.testing.assert_allclose(totals, job_load * (L + 2 * margin), rtol=1e-9)
    assert s.min() >= -margin and f.max() <= (L + margin) * (1 + 1e-12)
    # local jobs before 0 and after L on most nodes, so both ends see load like the inside
    assert np.mean([(s[node == i] < 0).any() for i in range(40)]) > 0.8
    assert np.mean([(f[node == i] > L).any() for i in range(40)]) > 0.8
    busy = np.zeros(40)
    for lo, hi, i in zip(np.clip(s, 0, L), np.clip(f, 0, L), node, strict=True):
        busy[i] += max(0.0, hi - lo)
    assert busy.mean() / L == pytest.approx(job_load, abs=0.08)


def test_generator_without_job_load_has_only_global_events():
    env = generate_environment(20, 800.0, global_load=0.05, rng=np.random.default_rng(2))
    assert env.n_chains == 0
    p = env.p_avail(200, np.arange(0.0, 601.0, 50))
    assert np.array_equal(p, np.repeat((1 - env.global_p)[:, None], p.shape[1], axis=1))


def test_generator_global_load_is_a_folded_normal():
    env = generate_environment(20000, 800.0, global_load=0.05, rng=np.random.default_rng(3))
    assert np.all((env.global_p >= 0) & (env.global_p <= 1))
    assert 0.66 < np.mean(env.global_p < 0.05) < 0.70  # "about 68 %" (ICCS 2021 §4.1)
    big = generate_environment(100, 800.0, global_load=5.0, rng=np.random.default_rng(3))
    assert big.global_p.max() == 1.0


def test_generator_full_job_load_leaves_no_window():
    env = generate_environment(
        64, 800.0, global_load=0.05, job_load=1.0, rng=np.random.default_rng(4)
    )
    p = env.p_avail(200, np.arange(0.0, 601.0))
    assert np.all(p == 0.0)


def test_generator_load_lowers_availability():
    starts = np.arange(0.0, 601.0, 10)
    means = [
        generate_environment(64, 800.0, job_load=jl, rng=np.random.default_rng(5))
        .p_avail(200, starts)
        .mean()
        for jl in (0.0, 0.2, 0.5)
    ]
    assert means[0] > means[1] > means[2]


def test_generator_zero_uncertainty_gives_bare_executions():
    env = generate_environment(
        4,
        100.0,
        job_load=0.5,
        alloc_uncertainty=0.0,
        release_uncertainty=0.0,
        rng=np.random.default_rng(6),
    )
    assert np.all(np.isnan(env.alloc_time)) and np.all(np.isnan(env.release_time))
    totals = np.bincount(env.resource_of, weights=env.end - env.start, minlength=4)
    np.testing.assert_allclose(totals, 50.0)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        (dict(m=0), "m must be"),
        (dict(length=0.0), "length L"),
        (dict(global_load=-0.1), "global_load"),
        (dict(job_load=1.5), "job_load"),
        (dict(job_load=-0.1), "job_load"),
        (dict(length_median=0.0), "length_median"),
        (dict(length_sigma=-1.0), "length_sigma"),
        (dict(alloc_uncertainty=-0.1), "alloc_uncertainty"),
        (dict(alloc_uncertainty=0.2, release_uncertainty=0.2), "must be < 1"),
        (dict(margin=-1.0), "margin"),
        (dict(margin=math.inf), "margin"),
    ],
)
def test_generator_rejects_bad_parameters(kwargs, match):
    args = dict(m=4, length=100.0, rng=np.random.default_rng(0)) | kwargs
    with pytest.raises(ParameterError, match=match):
        generate_environment(**args)


def test_generator_needs_a_generator():
    with pytest.raises(TypeError, match="Generator"):
        generate_environment(4, 100.0, rng=np.random.RandomState(0))


# --------------------------------------------------------------------------------------------
# ICCS 2023 §3 random instances


@pytest.mark.parametrize(("N", "G"), [(21, 8), (200, 40), (5, 5), (3, 1)])
def test_random_groups_shapes_and_ranges(N, G):
    cost, group, group_p = random_groups(N, G, np.random.default_rng(N + G))
    assert cost.shape == group.shape == (N,) and group_p.shape == (G,)
    assert cost.dtype.kind == "i" and cost.min() >= 2 and cost.max() <= 10
    assert sorted(set(group.tolist())) == list(range(G))
    assert np.all((group_p >= 0.47) & (group_p <= 0.94))
    AvailabilityProblem(cost=cost, group=group, group_p=group_p, n=min(N, 8), budget=60)


def test_random_groups_prices_the_most_available_resources_dearest():
    # ICCS 2023 §3.3 (N = 200, n = 20): the n most available resources (MaxP) fit only near
    # C = 200, the n cheapest not below C = 40; with N = 21, n = 8 (§3.2) MaxP is dearer than
    # n resources at the mean cost
    rng = np.random.default_rng(7)
    for N, G, n in [(21, 8, 8), (200, 40, 20)]:
        maxp, cheapest, mean = [], [], []
        for _ in range(50):
            cost, group, group_p = random_groups(N, G, rng)
            p = group_p[group]
            assert np.corrcoef(p, cost)[0, 1] > 0.8
            maxp.append(cost[np.argsort(-p, kind="stable")[:n]].sum())
            cheapest.append(np.sort(cost)[:n].sum())
            mean.append(n * cost.mean())
        assert np.mean(maxp) > 1.2 * np.mean(mean)
        if N == 200:
            assert 160 <= np.mean(maxp) <= 210 and np.mean(cheapest) >= 40
    # without noise the cost is a step function of the group's availability
    cost, group, group_p = random_groups(50, 10, rng, cost_noise=0.0)
    order = np.argsort(group_p[group])
    assert np.all(np.diff(cost[order]) >= 0)


def test_random_groups_is_reproducible_and_configurable():
    a = random_groups(21, 8, np.random.default_rng(1))
    b = random_groups(21, 8, np.random.default_rng(1))
    assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))
    cost, _, group_p = random_groups(
        30, 4, np.random.default_rng(2), cost_range=(5, 5), p_range=(0.5, 0.5)
    )
    assert set(cost.tolist()) == {5} and set(group_p.tolist()) == {0.5}


@pytest.mark.parametrize(
    ("args", "kwargs", "match"),
    [
        ((0, 1), {}, "N must be"),
        ((5, 6), {}, "G must be"),
        ((5, 0), {}, "G must be"),
        ((5, 2), dict(cost_range=(3, 2)), "cost_range"),
        ((5, 2), dict(cost_range=(1.5, 2)), "cost_range"),
        ((5, 2), dict(p_range=(0.5, 1.2)), "p_range"),
        ((5, 2), dict(cost_noise=-1.0), "cost_noise"),
    ],
)
def test_random_groups_rejects_bad_parameters(args, kwargs, match):
    with pytest.raises(ParameterError, match=match):
        random_groups(*args, np.random.default_rng(0), **kwargs)
