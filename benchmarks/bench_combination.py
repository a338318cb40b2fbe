"""VO Preferences §3 step 2 side by side: one Pareto-front DP curve, 100 single calls, MILP.

Every instance is a batch of 40 jobs x 10 alternatives (the paper's batch of 40 jobs, §4),
the VO value of each alternative uniform in [10, 100] (e.g. its cost, ``C -> max, lim U``).
Each job's user criterion ``Z`` gives its evaluations ``U`` by :func:`user_evaluations`:

* ``independent``: ``Z`` uniform in [10, 100] independently of the VO value;
* ``conflicting``: ``Z`` is the VO value itself (users minimise the cost the VO maximises, the
  paper's "strictly conflicting" preferences): the hardest case for the DP, its front of
  non-dominated (summed U, summed cost) states grows to tens of thousands.

and for each both kinds of ``U``: ``relative`` (reals in [0, 100] %) and ``ordinal`` (ranks 0..9).
The limits are a grid of 100 ``U_a`` values (``linspace(0, 100, 100)`` % for relative,
``linspace(0, 9, 100)`` for ordinal), limit ``= U_a * 40``. Side by side, in one run:

* ``curve``: one :func:`combination_curve` call for the whole grid (target: under 1 s), best
  of ``--repeat`` runs;
* ``calls``: 100 separate :func:`choose_combination` calls, one pass (each its own DP, its
  front pruned by the bounds of its single limit once it exceeds 512 states);
* ``milp``: :func:`scipy.optimize.milp` (HiGHS, ``mip_rel_gap = 0``) per limit, one pass:
  400 binaries, one "one alternative per job" row per job and the limit row.

Times are CPU seconds of the process (``time.process_time``: the machine is shared); the
summary gives wall-clock ratios as well. Checks: the curve equals the single calls exactly
(choices and totals) and HiGHS's optimum equals the DP's within ``1e-6`` (HiGHS's absolute gap
and feasibility tolerances); a run with mismatches exits with status 1.

Run: ``PYTHONPATH=. python benchmarks/bench_combination.py [--repeat 3] [--seed 0]``.
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from _common import commit as git_commit  # noqa: E402

from vosim.allocators.combination import (  # noqa: E402
    LIMIT_RTOL,
    _pareto_dp,
    choose_combination,
    combination_curve,
    user_evaluations,
)
from vosim.allocators.mckp import quiet_stdout  # noqa: E402

N_JOBS, N_ALTS, GRID = 40, 10, 100
TARGET_S = 1.0
CASES = ("independent", "conflicting")
KINDS = ("relative", "ordinal")


def commit() -> str:
    """Short commit, ``+changes`` when the module measured differs from it."""
    return git_commit("vosim/allocators/combination.py")


def instance(rng: np.random.Generator, case: str, kind: str):
    v = rng.uniform(10, 100, (N_JOBS, N_ALTS))
    z = v if case == "conflicting" else rng.uniform(10, 100, (N_JOBS, N_ALTS))
    u = np.array([user_evaluations(row, kind) for row in z])
    ua = np.linspace(0, 100 if kind == "relative" else N_ALTS - 1, GRID)
    return v, u, ua * N_JOBS


def milp_total(v: np.ndarray, u: np.ndarray, limit: float) -> float:
    """Optimal summed VO value by HiGHS (``C -> max``), ``nan`` when infeasible."""
    from scipy.optimize import Bounds, LinearConstraint, milp
    from scipy.sparse import csr_array

    n, m = v.shape
    rows = np.repeat(np.arange(n), m)
    one_each = csr_array((np.ones(n * m), (rows, np.arange(n * m))), shape=(n, n * m))
    res = milp(
        -v.ravel(),
        constraints=[
            LinearConstraint(one_each, 1, 1),
            LinearConstraint(u.ravel()[None, :], -np.inf, limit),
        ],
        integrality=np.ones(n * m),
        bounds=Bounds(0, 1),
        options={"mip_rel_gap": 0},
    )
    if res.status == 2:
        return math.nan
    if res.x is None:
        raise RuntimeError(f"HiGHS: {res.message}")
    return -float(res.fun)


def timed(fn, repeat: int = 1):
    """(result, best CPU seconds, wall seconds of that run) over ``repeat`` runs."""
    best = (None, math.inf, math.inf)
    for _ in range(repeat):
        c0, w0 = time.process_time(), time.perf_counter()
        out = fn()
        cpu, wall = time.process_time() - c0, time.perf_counter() - w0
        if cpu < best[1]:
            best = (out, cpu, wall)
    return best


def same(a, b) -> bool:
    return (
        a.feasible == b.feasible
        and np.array_equal(a.choice, b.choice)
        and (a.vo_total == b.vo_total or (math.isnan(a.vo_total) and math.isnan(b.vo_total)))
        and (
            a.user_total == b.user_total or (math.isnan(a.user_total) and math.isnan(b.user_total))
        )
    )


def run_one(v, u, limits, repeat: int, with_milp: bool) -> dict:
    curve, t_curve, w_curve = timed(lambda: combination_curve(v, u, limits), repeat)
    calls, t_calls, w_calls = timed(lambda: [choose_combination(v, u, x) for x in limits])
    row = {
        "curve": t_curve,
        "curve_wall": w_curve,
        "calls": t_calls,
        "calls_wall": w_calls,
        "calls_bad": sum(not same(a, b) for a, b in zip(curve, calls, strict=True)),
        # states on the DP's final front (the private helper, outside the timings)
        "front": _pareto_dp(list(v), list(u), float(max(limits)) * (1 + LIMIT_RTOL)).u.size,
    }
    if with_milp:
        with quiet_stdout():  # HiGHS prints debugging lines from C now and then
            totals, t_milp, w_milp = timed(lambda: [milp_total(v, u, x) for x in limits])
        row["milp"], row["milp_wall"] = t_milp, w_milp
        row["milp_bad"] = sum(
            not (
                (math.isnan(t) and not r.feasible)
                or (r.feasible and abs(t - r.vo_total) <= 1e-6 * max(1.0, abs(t)))
            )
            for t, r in zip(totals, curve, strict=True)
        )
    return row


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3, help="timed runs of the curve (best)")
    ap.add_argument("--seed", type=int, default=0, help="seed of numpy's default_rng")
    ap.add_argument("--batches", type=int, default=2, help="random batches per (case, kind)")
    ap.add_argument(
        "--cases", default=",".join(CASES), help=f"comma-separated subset of {', '.join(CASES)}"
    )
    ap.add_argument("--no-milp", action="store_true", help="skip scipy's milp")
    args = ap.parse_args(argv)
    cases = [c.strip() for c in args.cases.split(",") if c.strip()]
    unknown = sorted(set(cases) - set(CASES))
    if unknown:
        ap.error(f"unknown case(s) {', '.join(unknown)}; choose from {', '.join(CASES)}")
    import scipy

    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(
        f"# {datetime.now(UTC):%Y-%m-%d %H:%M} UTC, load average {load}, "
        f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}, numpy {np.__version__}, scipy {scipy.__version__}"
    )
    print(
        f"# vosim {commit()}; {N_JOBS} jobs x {N_ALTS} alternatives, {GRID} U_a limits, "
        f"{args.batches} batches per row, seed {args.seed}; CPU s: curve best of {args.repeat}, "
        "calls and milp one pass"
    )
    rng = np.random.default_rng(args.seed)
    header = (
        f"{'case':<12} {'U':<9} {'batch':>5} {'front':>6} {'curve s':>8} {'100 calls s':>11} "
        f"{'milp s':>8} {'calls/curve':>11} {'milp/curve':>10} {'agree':>6}"
    )
    print(header)
    print("-" * len(header))
    rows = []
    for case in cases:
        for kind in KINDS:
            for b in range(args.batches):
                v, u, limits = instance(rng, case, kind)
                r = run_one(v, u, limits, args.repeat, not args.no_milp)
                r.update(case=case, kind=kind)
                rows.append(r)
                milp = f"{r['milp']:8.3f}" if "milp" in r else f"{'-':>8}"
                ratio = f"{r['milp'] / r['curve']:9.0f}x" if "milp" in r else f"{'-':>10}"
                bad = r["calls_bad"] + r.get("milp_bad", 0)
                print(
                    f"{case:<12} {kind:<9} {b:>5} {r['front']:>6} {r['curve']:8.3f} "
                    f"{r['calls']:11.3f} {milp} {r['calls'] / r['curve']:10.0f}x {ratio} "
                    f"{'yes' if bad == 0 else f'{bad} no':>6}",
                    flush=True,
                )
    print()
    for case in cases:
        for kind in KINDS:
            sub = [r for r in rows if r["case"] == case and r["kind"] == kind]
            worst = max(r["curve"] for r in sub)
            line = (
                f"{case} {kind}: curve worst {worst:.3f} s (target < {TARGET_S:g} s: "
                f"{'met' if worst < TARGET_S else 'NOT met'}); 100 calls / curve "
                f"{sum(r['calls'] for r in sub) / sum(r['curve'] for r in sub):.0f}x CPU, "
                f"{sum(r['calls_wall'] for r in sub) / sum(r['curve_wall'] for r in sub):.0f}x wall"
            )
            if "milp" in sub[0]:
                cpu = sum(r["milp"] for r in sub) / sum(r["curve"] for r in sub)
                wall = sum(r["milp_wall"] for r in sub) / sum(r["curve_wall"] for r in sub)
                line += f"; milp / curve {cpu:.0f}x CPU, {wall:.0f}x wall"
            print(line)
    calls_bad = sum(r["calls_bad"] for r in rows)
    milp_bad = sum(r.get("milp_bad", 0) for r in rows)
    total = len(rows) * GRID
    print(
        f"curve == single calls: {calls_bad} mismatches in {total} limits; "
        + (
            f"milp == DP (1e-6): {milp_bad} mismatches in {total} limits"
            if not args.no_milp
            else "milp skipped"
        )
    )
    return 1 if calls_bad or milp_bad else 0


if __name__ == "__main__":
    sys.exit(main())
