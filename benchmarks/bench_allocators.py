"""vosim's vectorised AEP criteria (``amp``, ``min_cost``) against a pure-Python AEP scan.

The reference implementation below follows the AEP scheme of AEP §2.1 literally (the
pseudocode in ``/work/shared/papers/aep-slot-selection.md``): sweep the slot list in order of
non-decreasing start time, add each slot that is long enough for its task to the *extended
window*, drop the slots of the extended window that no longer hold their task from the new
window start, and, once at least ``n`` slots remain, take the ``n`` cheapest of them. AMP stops
at the first such window whose cost fits the budget (AEP §2.2, start-time minimisation);
minCost keeps the cheapest one over the whole interval (ties: the earliest start).

Two details make the reference comparable slot for slot with vosim:

* slots with the same start are added together before the window at that start is evaluated
  (with ties in start time the extended window at ``t`` is only complete after the last slot
  starting at ``t``; evaluating it earlier could make AMP return a dearer window at the same
  start);
* the budget test carries the same relative tolerance as vosim (``BUDGET_RTOL``), and the
  ``n`` cheapest slots are ordered by (cost, node id), vosim's tie-break.

Instances are drawn like the paper's experiments (AEP §3.1): nodes with integer performance
uniform in [2, 10], prices from vosim's exponential pricing policy (scale 0.5 so the paper's
budget of 1500 binds: it excludes the dearest nodes but not the cheap ones), local load from
vosim's hypergeometric local load (10-50 % of each 600-unit period, 1-3 local jobs per node and
period), and a job of n = 5 slots, volume 750 (150 time units on a performance-5 node) and
budget 1500. Two sizes: ``paper`` (100 nodes, interval [0, 600], about 300 slots) and ``large``
(151 nodes, interval [0, 1000], about 630 slots: UniLu-Gaia's node count). ``--budget`` changes
C (a tighter budget makes AMP scan past the interval start).

Both implementations get a ready slot list (vosim: a ``SlotList``; reference: a list of tuples
in start order), so building it is not timed. Every instance is first checked: both must agree
on whether a window exists, on its start, its node set and its cost (the cost is summed in the
same order, so it is compared exactly). Then each implementation is timed over all instances,
best of ``--repeat`` passes, and reported in microseconds per call.

Run: ``PYTHONPATH=. python benchmarks/bench_allocators.py [--instances 200] [--repeat 5]``.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vosim.allocators import ResourceRequest, allocate_window
from vosim.allocators.aep import BUDGET_RTOL
from vosim.core import SlotList
from vosim.market.nodes import generate_nodes
from vosim.market.pricing import ExponentialPricing
from vosim.market.slots import free_slots
from vosim.market.workload import HypergeometricLocalLoad

#: (nodes, interval length) of each instance set; the load period is 600 as in AEP §3.1.
SIZES = {"paper": (100, 600.0), "large": (151, 1000.0)}
LOAD_PERIOD = 600.0
PRICE_SCALE = 0.5
CRITERIA = ("amp", "min_cost")


# -- the reference: the AEP scan of AEP §2.1, in plain Python ---------------------------------
@dataclass(frozen=True, slots=True)
class RefWindow:
    start: float
    cost: float
    nodes: tuple[int, ...]


def aep_scan(slots, n, volume, budget, criterion, min_performance=0.0):
    """AEP §2.1 over ``slots`` = [(node, start, end, price, performance)] sorted by start.

    ``criterion`` is ``"amp"`` (first window within budget) or ``"min_cost"`` (cheapest window
    within budget, the earliest on ties). Returns a :class:`RefWindow` or ``None``.
    """
    limit = budget * (1 + BUDGET_RTOL)
    window = []  # the extended window: (cost, node, end, task length) of usable slots
    best = None
    m = len(slots)
    i = 0
    while i < m:
        window_start = slots[i][1]
        # Add every slot starting at window_start that meets the request.
        while i < m and slots[i][1] == window_start:
            node, _, end, price, perf = slots[i]
            i += 1
            if perf < min_performance:
                continue  # not properHardwareAndSoftware
            length = volume / perf
            if end - window_start < length:
                continue  # too short to ever hold the task
            window.append((price * length, node, end, length))
        # Drop the slots that no longer hold their task from the new window start.
        window = [w for w in window if w[2] - window_start >= w[3]]
        if len(window) < n:
            continue
        picked = sorted(window)[:n]  # the n cheapest, ties by node id
        cost = 0.0
        for w in picked:
            cost += w[0]
        if cost > limit:
            continue
        if criterion == "amp":
            return RefWindow(window_start, cost, tuple(sorted(w[1] for w in picked)))
        if best is None or cost < best.cost:
            best = RefWindow(window_start, cost, tuple(sorted(w[1] for w in picked)))
    return best


# -- instances --------------------------------------------------------------------------------
def make_slots(nodes: int, interval: float, rng: np.random.Generator) -> SlotList:
    """A paper-like slot list: heterogeneous nodes with local load over ``[0, interval)``."""
    pricing = ExponentialPricing(scale=PRICE_SCALE)
    domain = generate_nodes(nodes, 1, rng, performance_range=(2, 10), pricing=pricing)
    load = HypergeometricLocalLoad(0.10, 0.50, period=LOAD_PERIOD)
    busy = [
        (nd.id, a, b)
        for nd in domain
        for period in np.arange(0.0, interval, LOAD_PERIOD)
        for a, b in load.generate(float(period), rng)
    ]
    bn, ba, bb = (np.array(c) for c in zip(*busy, strict=True))
    return free_slots(
        np.arange(nodes),
        np.array([nd.price for nd in domain]),
        np.array([nd.performance for nd in domain]),
        bn,
        ba,
        bb,
        0.0,
        interval,
    )


def as_tuples(sl: SlotList) -> list[tuple[int, float, float, float, float]]:
    return list(
        zip(
            sl.node.tolist(),
            sl.start.tolist(),
            sl.end.tolist(),
            sl.price.tolist(),
            sl.performance.tolist(),
            strict=True,
        )
    )


# -- checking and timing ----------------------------------------------------------------------
def check(instances, request: ResourceRequest, criterion: str) -> tuple[int, float]:
    """Assert identical results on every instance; return (windows found, mean start)."""
    found, starts = 0, []
    for k, (sl, tuples) in enumerate(instances):
        got = allocate_window(sl, request, criterion).window
        ref = aep_scan(tuples, request.n, request.volume, request.budget, criterion)
        if got is None or ref is None:
            assert got is None and ref is None, f"{criterion} instance {k}: {got} vs {ref}"
            continue
        assert got.start == ref.start, f"{criterion} #{k}: start {got.start} vs {ref.start}"
        assert got.nodes == ref.nodes, f"{criterion} #{k}: nodes {got.nodes} vs {ref.nodes}"
        assert got.cost == ref.cost, f"{criterion} #{k}: cost {got.cost!r} vs {ref.cost!r}"
        found += 1
        starts.append(got.start)
    return found, float(np.mean(starts)) if starts else float("nan")


def time_per_call(fn, instances, repeat: int) -> float:
    """Best of ``repeat`` passes over all instances, microseconds per call."""
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        for inst in instances:
            fn(inst)
        best = min(best, time.perf_counter() - t0)
    return best / len(instances) * 1e6


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=(
            "Time vosim's vectorised AEP criteria (amp, min_cost, via allocate_window) against "
            "a pure-Python AEP scan written from the paper's pseudocode (AEP §2.1), on random "
            "slot lists like the paper's (n=5, V=750, C=1500) at two sizes. Asserts that both "
            "give the same window (start, nodes, cost) on every instance first."
        ),
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    parser.add_argument("--instances", type=int, default=200, help="slot lists per size")
    parser.add_argument("--repeat", type=int, default=5, help="timed passes; the best is kept")
    parser.add_argument("--budget", type=float, default=1500.0, help="budget C of the job")
    parser.add_argument("--seed", type=int, default=2013, help="seed of the instances")
    parser.add_argument(
        "--sizes", nargs="+", choices=sorted(SIZES), default=list(SIZES), help="instance sets"
    )
    args = parser.parse_args(argv)
    if args.instances < 1 or args.repeat < 1:
        parser.error("--instances and --repeat must be >= 1")
    request = ResourceRequest(n=5, volume=750.0, budget=args.budget)

    print(
        f"# {datetime.now(UTC):%Y-%m-%d %H:%M} UTC, load {os.getloadavg()[0]:.2f}, "
        f"Python {platform.python_version()}, "
        f"numpy {np.__version__}, {platform.machine()}; request n={request.n}, "
        f"V={request.volume:g}, C={request.budget:g}; best of {args.repeat} passes"
    )
    header = (
        f"{'size':<6} {'nodes':>5} {'slots':>6} {'criterion':<9} {'found':>7} {'mean start':>10} "
        f"{'vosim us':>9} {'python us':>10} {'speedup':>8}"
    )
    print(header)
    print("-" * len(header))
    for size in args.sizes:
        nodes, interval = SIZES[size]
        rng = np.random.default_rng([args.seed, nodes])
        lists = [make_slots(nodes, interval, rng) for _ in range(args.instances)]
        instances = [(sl, as_tuples(sl)) for sl in lists]
        mean_slots = np.mean([len(sl) for sl in lists])
        for criterion in CRITERIA:
            found, mean_start = check(instances, request, criterion)
            us_vosim = time_per_call(
                lambda inst, c=criterion: allocate_window(inst[0], request, c),
                instances,
                args.repeat,
            )
            us_ref = time_per_call(
                lambda inst, c=criterion: aep_scan(
                    inst[1], request.n, request.volume, request.budget, c
                ),
                instances,
                args.repeat,
            )
            print(
                f"{size:<6} {nodes:>5} {mean_slots:>6.0f} {criterion:<9} "
                f"{found:>3}/{len(instances):<3} {mean_start:>10.1f} {us_vosim:>9.1f} "
                f"{us_ref:>10.1f} {us_ref / us_vosim:>7.2f}x"
            )
    print("identical windows (start, nodes, cost) on every instance: yes")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
