"""Knapsack Grid cycles side by side: the lattice DP vs HiGHS's MILP on the same instances.

One scheduling cycle of Knapsack Grid (``/work/shared/papers/knapsack-grid-slides.md``, 'Grid
and Task Model') gives the waiting tasks the free processors of four clusters of 4, 8, 16 and
32 processors by solving the multiple-choice knapsack of their options
(:func:`vosim.allocators.mckp.solve_mckp`). Each instance here is a cycle of ``--tasks`` (200)
waiting tasks with 4 options each, on empty clusters (the largest lattice, 25,245 states):

* an option uses 1-32 processors (uniform), either all on one cluster (probability 1/2,
  cluster uniform) or split across two distinct clusters (uniform split, at least one
  processor on each); options asking a cluster for more than it has cannot be taken;
* its value is a positive real: the processors times a price uniform in [1, 10) (credits the
  user offers, as in the slides' Policy 1, U = identity).

Side by side, per instance: ``solve_mckp(..., method="dp")`` and ``method="milp"`` (HiGHS,
``mip_rel_gap = 0``), each the best of ``--repeat`` wall-clock runs (``time.perf_counter``,
input checks included, garbage collector off). Prints ms per solve for both, the ratio
milp / dp, what ``"auto"`` picks, and checks that the two values agree (relative 1e-9; HiGHS
stops at an absolute gap of 1e-6 of its scaled objective) and that both choices are feasible;
a run with a mismatch exits with status 1. Target: one DP cycle well under 100 ms.

Run: ``PYTHONPATH=. python benchmarks/bench_mckp.py [--instances 10] [--repeat 3] [--seed 0]
[--tasks 200]``.
"""

from __future__ import annotations

import argparse
import gc
import math
import os
import platform
import sys
import time
from datetime import UTC, datetime
from functools import partial
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from _common import commit as git_commit  # noqa: E402

from vosim.allocators.mckp import quiet_stdout, solve_mckp  # noqa: E402

CLUSTERS = np.array([4, 8, 16, 32])
OPTIONS = 4
TARGET_MS = 100.0


def commit() -> str:
    """Short commit, ``+changes`` when the module measured differs from it."""
    return git_commit("vosim/allocators/mckp.py")


def cycle(rng: np.random.Generator, tasks: int) -> tuple[list, list]:
    """One cycle's waiting tasks: (values, demands) as :func:`solve_mckp` takes them."""
    K = CLUSTERS.size
    values, demands = [], []
    for _ in range(tasks):
        procs = rng.integers(1, 33, OPTIONS)
        d = np.zeros((OPTIONS, K), dtype=np.int64)
        for j, p in enumerate(procs.tolist()):
            if p == 1 or rng.random() < 0.5:
                d[j, rng.integers(K)] = p
            else:
                a, b = rng.choice(K, 2, replace=False)
                first = int(rng.integers(1, p))
                d[j, a], d[j, b] = first, p - first
        values.append(procs * rng.uniform(1.0, 10.0, OPTIONS))
        demands.append(d)
    return values, demands


def timed(fn, repeat: int):
    """(result, best wall seconds) over ``repeat`` runs, the garbage collector off."""
    best, out = math.inf, None
    gc.disable()
    try:
        for _ in range(repeat):
            t0 = time.perf_counter()
            out = fn()
            best = min(best, time.perf_counter() - t0)
    finally:
        gc.enable()
    return out, best


def feasible(r, values, demands) -> bool:
    used = np.zeros(CLUSTERS.size, dtype=np.int64)
    total = 0.0
    for i, j in enumerate(r.choice.tolist()):
        if j >= 0:
            used += demands[i][j]
            total += float(values[i][j])
    return bool((used <= CLUSTERS).all() and np.array_equal(used, r.used) and total == r.value)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--instances", type=int, default=10, help="cycles to time (default 10)")
    ap.add_argument("--repeat", type=int, default=3, help="best of this many runs (default 3)")
    ap.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    ap.add_argument("--tasks", type=int, default=200, help="waiting tasks per cycle (200)")
    args = ap.parse_args(argv)

    import scipy

    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"# bench_mckp  {datetime.now(UTC):%Y-%m-%d %H:%M} UTC  load average {load}")
    print(
        f"# vosim {commit()}, Python {platform.python_version()}, NumPy {np.__version__}, "
        f"SciPy {scipy.__version__}, {os.cpu_count()} cores, {platform.machine()}"
    )
    states = math.prod(int(c) + 1 for c in CLUSTERS)
    print(
        f"# {args.instances} cycles x {args.tasks} tasks x {OPTIONS} options, clusters "
        f"{CLUSTERS.tolist()} ({states:,} states), best of {args.repeat}, seed {args.seed}"
    )
    print()
    print(
        f"{'cycle':>5} {'takeable':>8} {'chosen':>6} {'value':>10} {'dp ms':>8} "
        f"{'milp ms':>8} {'milp/dp':>8} {'auto':>5}  agree"
    )
    rng = np.random.default_rng(args.seed)
    dp_ms, milp_ms, bad = [], [], 0
    for k in range(args.instances):
        values, demands = cycle(rng, args.tasks)
        takeable = sum(int((d <= CLUSTERS).all(axis=1).sum()) for d in demands)
        r_dp, t_dp = timed(partial(solve_mckp, values, demands, CLUSTERS, "dp"), args.repeat)
        with quiet_stdout():  # HiGHS prints debugging lines on the C level now and then
            r_mi, t_mi = timed(partial(solve_mckp, values, demands, CLUSTERS, "milp"), args.repeat)
        auto = solve_mckp(values, demands, CLUSTERS).method
        ok = (
            math.isclose(r_dp.value, r_mi.value, rel_tol=1e-9)
            and feasible(r_dp, values, demands)
            and feasible(r_mi, values, demands)
        )
        bad += not ok
        dp_ms.append(t_dp * 1e3)
        milp_ms.append(t_mi * 1e3)
        print(
            f"{k:>5} {takeable:>8} {int((r_dp.choice >= 0).sum()):>6} {r_dp.value:>10.2f} "
            f"{t_dp * 1e3:>8.2f} {t_mi * 1e3:>8.2f} {t_mi / t_dp:>7.1f}x {auto:>5}  "
            f"{'yes' if ok else 'NO'}"
        )
    dp, mi = np.array(dp_ms), np.array(milp_ms)
    print()
    print(f"dp:   median {np.median(dp):.2f} ms per cycle (min {dp.min():.2f}, max {dp.max():.2f})")
    print(f"milp: median {np.median(mi):.2f} ms per cycle (min {mi.min():.2f}, max {mi.max():.2f})")
    print(f"milp / dp: {np.median(mi) / np.median(dp):.1f}x (ratio of medians)")
    verdict = "met" if dp.max() < TARGET_MS else "NOT met"
    print(
        f"target (one DP cycle well under {TARGET_MS:.0f} ms): {verdict}, slowest {dp.max():.2f} ms"
    )
    print(f"values agree: {args.instances - bad}/{args.instances}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
