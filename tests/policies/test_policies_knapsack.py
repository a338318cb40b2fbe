"""The knapsack policies (Knapsack Grid slides in the VO): validity, optimality, KS+BF."""

from __future__ import annotations

import dataclasses
import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import linear_sum_assignment

from vosim.core import ResourceRequest, Slot, SlotList
from vosim.errors import ParameterError
from vosim.policies.base import CycleState, Policy, make_policy
from vosim.policies.batch_windows import _EPS, earliest_window
from vosim.policies.knapsack import (
    Clusters,
    Knapsack,
    KnapsackEasy,
    job_options,
    owner_clusters,
)

INF = math.inf


def state_of(nodes, owner, queue, t=0.0, until=1000.0):
    """``nodes``: one (start, end, price, performance) per node, or a list of them."""
    slots = []
    for k, spec in enumerate(nodes):
        for a, b, price, perf in spec if isinstance(spec, list) else [spec]:
            slots.append(Slot(k, a, b, price, perf))
    return CycleState(t, until, SlotList(slots), queue, owner=np.asarray(owner))


def job(index, n, volume, budget=INF, submit=0.0):
    return ResourceRequest(
        index=index, n=n, volume=volume, budget=budget, criterion="", submit_time=submit
    )


def assert_valid(state, decisions):
    """Windows start at t, tasks lie in free slots, no node twice, budgets kept."""
    jobs = {j.index: j for j in state.queue}
    sl = state.slots
    used = set()
    assert not decisions.cancel
    assert len({k for k, _ in decisions.reserve}) == len(decisions.reserve)
    for k, w in decisions.reserve:
        j = jobs[k]
        assert w.start == state.time
        assert len(w.slots) == j.n and len(set(w.nodes)) == j.n
        assert not used & set(w.nodes), "a node is used twice at time t"
        used |= set(w.nodes)
        for s in w.slots:
            assert s.start == state.time
            assert s.end - s.start == pytest.approx(j.volume / s.performance)
            inside = (
                (sl.node == s.node)
                & (sl.start <= s.start)
                & (sl.end - s.start >= (s.end - s.start) * (1 - 1e-9))
                & (sl.price == s.price)
                & (sl.performance == s.performance)
            )
            assert inside.any(), f"span {s} lies in no free slot"
        assert w.cost == pytest.approx(sum(s.price * (s.end - s.start) for s in w.slots))
        assert w.runtime == pytest.approx(max(s.end - s.start for s in w.slots))
        assert w.cost <= j.budget * (1 + 1e-9)


# ------------------------------------------------------------------------ independent oracle


def utility(policy, t, j, n_ref, length, credit):
    """The slides' utility policies 1-5, written out again."""
    sig = lambda x: 2.0 / (math.exp(-0.5 * x) + 1.0) - 1.0  # noqa: E731
    resp = (t - j.submit_time + length) / n_ref
    return {
        1: credit,
        2: credit * resp,
        3: sig(credit * resp),
        4: resp + n_ref / length,
        5: sig(resp + n_ref / length),
    }[policy]


def assignable(state, combo):
    """Can the options in ``combo`` [(job, processors per cluster)] get distinct nodes?"""
    clusters = owner_clusters(state)
    for k, free in enumerate(clusters.free):
        tasks = [j for j, procs in combo for _ in range(procs[k])]  # one row per task
        if not tasks:
            continue
        if len(tasks) > len(free):
            return False
        fits = free.end - state.time >= np.array([[j.volume] for j in tasks]) / free.performance
        cost = (~fits).astype(int)  # assign every task to a distinct node it fits on
        r, c = linear_sum_assignment(cost)
        if cost[r, c].sum():
            return False
    return True


def brute_force(state, policy, p_ref):
    """Best total utility over every combination of offered options, by enumeration."""
    clusters = owner_clusters(state)
    offered = [job_options(j, clusters, j.volume / p_ref) for j in state.queue]
    best = 0.0
    for pick in itertools.product(*[[None, *opts] for opts in offered]):
        combo = [(j, o.processors) for j, o in zip(state.queue, pick, strict=True) if o]
        value = sum(
            utility(policy, state.time, j, j.volume / p_ref, o.length, o.credit)
            for j, o in zip(state.queue, pick, strict=True)
            if o
        )
        if value > best and assignable(state, combo):
            best = value
    return best


# ------------------------------------------------------------------------------ hypothesis


@st.composite
def states(draw, crowded=False):
    """Small random states; ``crowded``: few owners and nodes, several short slots, many jobs
    of one or two tasks and no budget limit (where the knapsack's per-volume constraints
    bind, and every chosen option must start)."""
    n_nodes = draw(st.integers(2, 4 if crowded else 6))
    n_owners = draw(st.integers(1, 2 if crowded else 3))
    owner = draw(st.lists(st.integers(0, n_owners - 1), min_size=n_nodes, max_size=n_nodes))
    kinds = ["long", "short"] if crowded else ["long", "short", "short", "later", "gap"]
    nodes = []
    for _ in range(n_nodes):
        price = draw(st.sampled_from([1.0, 2.0, 3.0]))
        perf = draw(st.sampled_from([1.0, 2.0, 4.0]))
        end = draw(st.sampled_from([3.0, 6.0, 12.0]))
        spec = {
            "long": [(0.0, 100.0, price, perf)],
            "short": [(0.0, end, price, perf)],  # a local job is due at `end`
            "later": [(end, 100.0, price, perf)],  # busy now
            "gap": [(0.0, end, price, perf), (end + 2.0, 100.0, price, perf)],
        }[draw(st.sampled_from(kinds))]
        nodes.append(spec)
    n_jobs = draw(st.integers(3, 5) if crowded else st.integers(1, 5))
    widths = [1, 1, 2] if crowded else [1, 1, 2, 3, 4]
    queue = [
        job(
            i,
            draw(st.sampled_from(widths)),
            draw(st.sampled_from([2.0, 4.0, 8.0, 20.0])),
            INF if crowded else draw(st.sampled_from([INF, INF, 10.0, 30.0, 80.0])),
            submit=-10.0 * (n_jobs - i) * draw(st.integers(0, 3)),
        )
        for i in range(n_jobs)
    ]
    queue.sort(key=lambda j: (j.submit_time, j.index))
    return state_of(nodes, owner, queue, until=100.0)


any_state = st.one_of(states(), states(crowded=True))


@settings(max_examples=150, deadline=None)
@given(state=any_state, policy=st.integers(1, 5))
def test_knapsack_is_valid_and_optimal(state, policy):
    d = Knapsack(utility_policy=policy, reference_performance=2.0).decide(state)
    assert_valid(state, d)
    assert d.stats["mckp_objective"] == pytest.approx(brute_force(state, policy, 2.0), rel=1e-9)
    assert d.stats["mckp_status"] == "optimal"
    assert d.stats["started"] + d.stats["over_budget"] == d.stats["chosen"]
    if all(j.budget == INF for j in state.queue):  # the counts are exact: all chosen start
        assert d.stats["over_budget"] == 0
    offered = {j.index: job_options(j, owner_clusters(state), j.volume / 2.0) for j in state.queue}
    clusters = owner_clusters(state)
    for k, w in d.reserve:  # each window is one of the job's options
        per = [sum(s.node in set(f.node.tolist()) for s in w.slots) for f in clusters.free]
        assert tuple(per) in {o.processors for o in offered[k]}
    waiting = {j.index for j in state.queue} - {k for k, _ in d.reserve}
    assert waiting == set(d.reasons)


@settings(max_examples=120, deadline=None)
@given(state=any_state, policy=st.integers(1, 5))
def test_knapsack_easy_is_valid_and_protects_the_head(state, policy):
    d = KnapsackEasy(utility_policy=policy).decide(state)
    assert_valid(state, d)
    ks = Knapsack(utility_policy=policy).decide(state)
    assert d.reserve[: len(ks.reserve)] == ks.reserve  # the knapsack's pass comes first
    # EASY over the jobs the knapsack left: B, the first of them that did not start, is
    # protected; the ones ahead of B started before it (heads), the later ones backfill
    windows = dict(d.reserve)
    known = {k for k, _ in ks.reserve}
    rest = [j for j in state.queue if j.index not in known]
    head = next((j for j in rest if j.index not in windows), None)
    if head is None:
        return
    before = state.slots
    for j in [*(j for j in state.queue if j.index in known), *rest[: rest.index(head)]]:
        before = before.cut(windows[j.index])
    shadow = earliest_window(before, head, state.time)
    after = state.slots
    for w in windows.values():
        after = after.cut(w)
    now = earliest_window(after, head, state.time)
    if shadow is not None:  # nothing backfilled delays the protected head
        assert now is not None and now.start <= shadow.start


# ------------------------------------------------------------------------------ hand cases


def test_a_node_free_now_but_busy_soon_counts_only_for_short_tasks():
    # owner 0: node 0 free for long, node 1 only until 5 (a local job is due)
    state = state_of(
        [(0.0, 100.0, 1.0, 1.0), (0.0, 5.0, 1.0, 1.0)],
        [0, 0],
        [job(0, 1, 50.0), job(1, 1, 50.0, submit=1.0), job(2, 1, 2.0, submit=2.0)],
    )
    d = Knapsack().decide(state)
    assert_valid(state, d)
    # counted by free nodes alone, jobs 0 and 1 would both take node 0
    assert d.stats["constraints"] == 2 and d.stats["mckp_objective"] == pytest.approx(2.0)
    assert sorted(k for k, _ in d.reserve) == [0, 2]
    assert dict(d.reserve)[2].nodes == (1,)


def test_option_values_follow_the_slides_credit_rule():
    # owners: 0 has a node of performance 2, 1 one of performance 8 (reference 4)
    state = state_of([(0.0, 100.0, 1.0, 2.0), (0.0, 100.0, 1.0, 8.0)], [0, 1], [job(0, 1, 8.0)])
    opts = job_options(state.queue[0], owner_clusters(state), 8.0 / 4.0)
    by_owner = {o.processors.index(1): o for o in opts}
    assert by_owner[0].length == 4.0 and by_owner[1].length == 1.0
    assert by_owner[0].credit == pytest.approx((2.0 / 4.0) ** 1.1)
    assert by_owner[1].credit == pytest.approx((2.0 / 1.0) ** 1.1)
    d = Knapsack(reference_performance=4.0).decide(state)
    assert dict(d.reserve)[0].nodes == (1,)  # the faster owner: the shorter, dearer option


def test_the_split_option_takes_halves_on_two_owners_with_the_penalty():
    state = state_of([(0.0, 100.0, 1.0, 1.0)] * 4, [0, 0, 1, 1], [job(0, 4, 10.0)])
    (opt,) = job_options(state.queue[0], owner_clusters(state), 10.0)
    assert opt.kind == "split" and opt.processors == (2, 2)
    assert opt.length == pytest.approx(11.0) and opt.window.runtime == 10.0
    assert opt.credit == pytest.approx(1.1**-1.1)
    d = Knapsack().decide(state)
    assert dict(d.reserve)[0].nodes == (0, 1, 2, 3)


def test_an_option_over_the_budget_is_not_offered():
    # owner 0's node costs 10 per time unit, owner 1's costs 1
    state = state_of(
        [(0.0, 100.0, 10.0, 1.0), (0.0, 100.0, 1.0, 1.0)],
        [0, 1],
        [job(0, 1, 10.0, budget=50.0), job(1, 1, 10.0, budget=5.0)],
    )
    opts = job_options(state.queue[0], owner_clusters(state), 10.0)
    assert [o.processors for o in opts] == [(0, 1)]
    assert job_options(state.queue[1], owner_clusters(state), 10.0) == []
    d = Knapsack().decide(state)
    assert [(k, w.nodes) for k, w in d.reserve] == [(0, (1,))]
    assert "budget" in d.reasons[1]


@pytest.mark.parametrize(("policy", "winner"), [(1, 1), (2, 0), (3, 0), (4, 0), (5, 0)])
def test_utility_policies_prefer_long_response_times_over_credit(policy, winner):
    """Policy 1 is credit only; 2-5 weigh the estimated response time (slides, policies 2-5).

    Job 0 waited 1000 times its length but can only run split over both nodes (slow node:
    credit 0.42); job 1 just arrived and runs on the fast node alone (credit 2.14).
    """
    state = state_of(
        [(0.0, 1000.0, 1.0, 12.0), (0.0, 1000.0, 1.0, 3.0)],
        [0, 1],
        [job(0, 2, 60.0, submit=-10000.0), job(1, 1, 6.0, submit=0.0)],
    )
    d = Knapsack(utility_policy=policy, reference_performance=6.0).decide(state)
    assert [k for k, _ in d.reserve] == [winner]


def test_the_mckp_method_is_passed_on():
    state = state_of([(0.0, 100.0, 1.0, 1.0)] * 4, [0, 0, 1, 1], [job(0, 2, 1.0), job(1, 2, 1.0)])
    dp = Knapsack(method="dp").decide(state)
    milp = Knapsack(method="milp").decide(state)
    assert dp.stats["mckp_method"] == "dp" and milp.stats["mckp_method"] == "milp"
    assert dp.stats["mckp_objective"] == milp.stats["mckp_objective"] == pytest.approx(2.0)


def test_without_owners_the_domain_is_one_cluster():
    state = state_of([(0.0, 100.0, 1.0, 1.0)] * 3, [0, 1, 2], [job(0, 3, 10.0)])
    assert Knapsack().decide(state).reserve == []
    d = Knapsack().decide(dataclasses.replace(state, owner=None))
    assert d.stats["clusters"] == 1 and [k for k, _ in d.reserve] == [0]


def test_an_empty_queue_or_no_free_node_decides_nothing():
    assert Knapsack().decide(state_of([(0.0, 9.0, 1.0, 1.0)], [0], [])).outcome.name == "IDLE"
    state = state_of([(5.0, 9.0, 1.0, 1.0)], [0], [job(0, 1, 1.0)])
    d = Knapsack().decide(state)
    assert d.reserve == [] and d.outcome.name == "BLOCKED" and d.stats["clusters"] == 0


def test_knapsack_easy_backfills_a_job_that_ends_before_the_head_can_start():
    # nodes 0-2 (three owners) free now; node 3 busy until 100
    nodes = [(0.0, 1000.0, 1.0, 1.0)] * 3 + [(100.0, 1000.0, 1.0, 1.0)]
    queue = [job(0, 4, 10.0), job(1, 3, 500.0, submit=1.0), job(2, 3, 50.0, submit=2.0)]
    state = state_of(nodes, [0, 1, 2, 3], queue)
    assert Knapsack().decide(state).reserve == []  # no owner has 3 nodes; 3 is odd
    d = KnapsackEasy().decide(state)
    assert_valid(state, d)
    assert [k for k, _ in d.reserve] == [2]  # job 1 would delay the head past 100
    assert d.stats["shadow_time"] == 100.0 and d.stats["easy_started"] == 1
    after = state.slots.cut(d.reserve[0][1])
    assert earliest_window(after, queue[0], 0.0).start == 100.0


def test_constructor_errors_name_the_bad_value():
    for bad in (0, 6, True, "1", 2.5):
        with pytest.raises(ParameterError, match=rf"utility_policy .*{bad!r}"):
            Knapsack(utility_policy=bad)
    with pytest.raises(ParameterError, match="bogus"):
        Knapsack(method="bogus")
    with pytest.raises(ParameterError, match="reference_performance"):
        KnapsackEasy(reference_performance=-1.0)
    with pytest.raises(ParameterError, match="reference_performance"):
        Knapsack(reference_performance=True)
    assert make_policy("knapsack", utility_policy=3).utility_policy == 3
    assert make_policy("knapsack+easy").name == "knapsack+easy"


# ---------------------------------------------------------------------------------- model


class _WithOwners(Policy):
    """The policy, given the model's node owners (until the metascheduler passes them)."""

    def __init__(self, inner, owner):
        self.inner, self.owner, self.name = inner, owner, inner.name

    def decide(self, state):
        d = self.inner.decide(dataclasses.replace(state, owner=self.owner))
        assert_valid(dataclasses.replace(state, owner=self.owner), d)
        return d


@pytest.mark.parametrize("policy", ["knapsack", "knapsack+easy"])
def test_model_runs_a_trace_prefix(policy):
    from vosim.model import VOModel

    # patience 2 days: NASA's 128-node jobs starve behind the owners' local jobs and would
    # wait out the default 30 days (~8,000 cycles of one unchanged queue)
    m = VOModel(trace="NASA-iPSC-1993-3.1-cln", jobs=60, policy=policy, rng=1, patience=2 * 86400.0)
    owner = np.array([o.owner_id for o in m.owner_of_node])
    m.metascheduler.scheduler = _WithOwners(m.metascheduler.scheduler, owner)
    m.run()
    done = [j for j in m.jobs if m.ledger[j.index].state == "completed"]
    assert len(done) > 30
    for j in done:
        assert m.ledger[j.index].window_cost <= m.ledger[j.index].budget * (1 + 1e-9)


@settings(max_examples=60, deadline=None)
@given(
    clusters=st.lists(st.integers(1, 5), min_size=0, max_size=6),
    volumes=st.lists(st.floats(0.0, 50.0), min_size=1, max_size=4),
    seed=st.integers(0, 2**16),
)
def test_usable_counts_equal_a_plain_count_per_cluster(clusters, volumes, seed):
    """``Clusters.usable`` against counting, per cluster, the nodes free over each volume."""
    rng = np.random.default_rng(seed)
    cluster = rng.permutation(np.repeat(np.arange(len(clusters)), clusters))
    m = cluster.size
    view = Clusters(
        now=3.0,
        owners=np.arange(len(clusters)) * 2,
        cluster=cluster,
        end=3.0 + rng.uniform(0.0, 20.0, m),
        performance=rng.choice([1.0, 2.0, 4.0], m),
        slots=SlotList.from_arrays(*(np.zeros(0),) * 5, validate=False),
        rows=np.arange(m),
    )
    vol = np.array(volumes)
    got = view.usable(vol)
    assert got.shape == (len(vol), len(clusters))
    for v, row in zip(vol, got, strict=True):
        free = view.end - view.now >= v / view.performance * (1 - _EPS)
        plain = [int(free[cluster == k].sum()) for k in range(len(clusters))]
        assert row.tolist() == plain
    assert view.usable(vol[0]).tolist() == got[0].tolist()
