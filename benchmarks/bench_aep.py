"""Working time of vosim's AEP criteria and CSA beside the paper's Tables 1-2.

AEP §3.2 (``/work/shared/papers/aep-slot-selection.md``) times AMP, minRuntime, minFinish,
minProcTime, minCost and CSA against the number of CPU nodes {50, 100, 200, 300, 400} at
interval 600 (Table 1) and against the interval length {600, 1200, ..., 3600} at 100 nodes
(Table 2), Java 1.6 on a 2.93 GHz Core i3, 1000 domains per point. This script times every
registered AEP criterion of vosim (the exact ``amp``, ``min_runtime``, ``min_finish``,
``min_cost``, the heuristic ``min_proc_time`` and the paper's own substitution procedures
``min_runtime_substitution`` and ``min_finish_substitution``) and ``csa`` on the very same
domains, point by point, and prints:

1. per series, the mean ms per call of vosim, the paper's figure and the ratio vosim / paper,
   with the mean number of slots and of CSA alternatives (and the paper's);
2. along the interval series, a linear fit of working time against the number of slots
   (``numpy.polyfit`` degree 1 on the per-point means: slope, intercept, R^2) and the log-log
   slope (near 1 for linear growth), for vosim and for the paper's Table 2;
3. the CSA / minRuntime working-time ratio at 400 nodes, beside the paper's 2980.9 / 169.2.

Domains are those of the ``aep-table1-2`` experiment
(:func:`vosim.runs.experiments.aep.aep_table_domain`: :func:`vosim.market.domains.aep_domain`
with 2k-6k local jobs per node on an interval of 600k, so the slot count grows linearly with
the interval), the job is the paper's (5 slots, volume 300, budget 1500). Each algorithm is
called ``--repeat`` times on each domain with the garbage collector off (as ``timeit`` does)
and the fastest call is kept; the table reports the mean of these over ``--instances``
domains. Building the domain and its slot list is not timed.

Run: ``PYTHONPATH=. python benchmarks/bench_aep.py [--instances 10] [--repeat 3] [--seed 1]``.
"""

from __future__ import annotations

import argparse
import gc
import os
import platform
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vosim.allocators import allocate_window
from vosim.allocators.csa import csa
from vosim.market.domains import aep_job
from vosim.runs.experiments.aep import (
    LABELS,
    PAPER_PROCEDURES,
    PAPER_TABLE1,
    PAPER_TABLE2,
    TABLE1_NODES,
    TABLE2_INTERVALS,
    aep_table_domain,
)

#: Timed algorithms: the registered criteria, then CSA.
ALGORITHMS = (
    "amp",
    "min_runtime",
    "min_finish",
    "min_proc_time",
    "min_cost",
    "min_runtime_substitution",
    "min_finish_substitution",
    "csa",
)
#: Table rows: the algorithms and CSA's time per alternative.
ROWS = (*ALGORITHMS, "csa_per_alternative")


def _commit() -> str:
    root = Path(__file__).resolve().parents[1]
    try:
        head = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head + ("+changes" if dirty else "")


def _call(algorithm, slots, job):
    if algorithm == "csa":
        return len(csa(slots, job).windows)
    allocate_window(slots, job, algorithm)
    return None


def time_point(nodes, interval, instances, repeat, seed, algorithms):
    """Mean over ``instances`` domains of the best-of-``repeat`` ms per call of each algorithm."""
    job = aep_job()
    best = {a: [] for a in algorithms}
    slots_count, alternatives = [], []
    for k in range(instances):
        slots = aep_table_domain(
            np.random.default_rng([seed, nodes, int(interval), k]), nodes=nodes, interval=interval
        ).slots
        slots_count.append(len(slots))
        for algorithm in algorithms:
            times = []
            for _ in range(repeat):
                gc.collect()
                gc.disable()
                try:
                    started = time.perf_counter()
                    found = _call(algorithm, slots, job)
                    times.append(time.perf_counter() - started)
                finally:
                    gc.enable()
            best[algorithm].append(min(times) * 1e3)
            if algorithm == "csa":
                alternatives.append(found)
    ms = {a: float(np.mean(v)) for a, v in best.items()}
    if "csa" in ms:
        ms["csa_per_alternative"] = ms["csa"] / float(np.mean(alternatives))
    return {
        "ms": ms,
        "slots": float(np.mean(slots_count)),
        "alternatives": float(np.mean(alternatives)) if alternatives else np.nan,
    }


def paper_ms(paper, algorithm, k):
    values = paper.get(PAPER_PROCEDURES.get(algorithm, algorithm))
    return values[k] if values is not None and k is not None else np.nan


def print_series(title, axis_name, axis, results, paper, grid):
    ks = [grid.index(x) if x in grid else None for x in axis]
    width = 31
    head = f"{axis_name:<{width}}" + "".join(f"{x:>10}" for x in axis)
    for block in ("vosim ms", "paper ms", "ratio vosim/paper"):
        print(f"\n{title} -- {block}")
        print(head)
        print("-" * len(head))
        for algorithm in ROWS:
            if algorithm not in results[0]["ms"]:
                continue
            cells = []
            for res, k in zip(results, ks, strict=True):
                ours, theirs = res["ms"][algorithm], paper_ms(paper, algorithm, k)
                value = {"vosim ms": ours, "paper ms": theirs}.get(block, ours / theirs)
                cells.append(f"{value:>10.4g}" if np.isfinite(value) else f"{'-':>10}")
            print(f"{LABELS[algorithm]:<{width}}" + "".join(cells))
        if block == "ratio vosim/paper":
            continue
        for key in ("slots", "alternatives"):
            if block == "vosim ms":
                values = [res[key] for res in results]
            else:
                ref = paper.get(key)
                values = [ref[k] if ref is not None and k is not None else np.nan for k in ks]
            name = "slots" if key == "slots" else "CSA alternatives"
            cells = "".join(f"{v:>10.1f}" if np.isfinite(v) else f"{'-':>10}" for v in values)
            print(f"{'(' + name + ')':<{width}}" + cells)


def fit(x, y):
    """Linear fit y = a x + b (slope a, intercept b, R^2) and the log-log slope."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    slope, intercept = np.polyfit(x, y, 1)
    residual = y - (slope * x + intercept)
    total = ((y - y.mean()) ** 2).sum()
    r2 = 1 - (residual**2).sum() / total if total > 0 else np.nan
    loglog = np.polyfit(np.log(x), np.log(y), 1)[0]
    return slope, intercept, r2, loglog


def print_fits(intervals, results):
    print("\nWorking time vs number of slots along the interval series (100 nodes):")
    print("linear fit ms = slope * slots + intercept on the per-point means; log-log slope")
    head = (
        f"{'algorithm':<31}{'slope ms/1000 slots':>20}{'intercept ms':>14}{'R^2':>8}"
        f"{'log-log':>9}   {'paper: slope':>12}{'R^2':>8}{'log-log':>9}"
    )
    print(head)
    print("-" * len(head))
    slots = [res["slots"] for res in results]
    ks = [TABLE2_INTERVALS.index(x) if x in TABLE2_INTERVALS else None for x in intervals]
    for algorithm in ROWS:
        if algorithm not in results[0]["ms"]:
            continue
        s, b, r2, ll = fit(slots, [res["ms"][algorithm] for res in results])
        line = f"{LABELS[algorithm]:<31}{s * 1e3:>20.4g}{b:>14.3g}{r2:>8.4f}{ll:>9.2f}"
        ref = [paper_ms(PAPER_TABLE2, algorithm, k) for k in ks]
        pslots = [PAPER_TABLE2["slots"][k] for k in ks if k is not None]
        if not np.isfinite(ref).all() or len(pslots) < 2:
            line += f"   {'-':>12}{'-':>8}{'-':>9}"
        else:
            ps, _, pr2, pll = fit(pslots, ref)
            line += f"   {ps * 1e3:>12.4g}{pr2:>8.4f}{pll:>9.2f}"
        print(line)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=(
            "Time vosim's AEP criteria (amp, min_runtime, min_finish, min_proc_time, min_cost, "
            "the paper's substitution procedures) and CSA on the same AEP domains against the "
            "number of CPU nodes (interval 600) and the interval length (100 nodes), beside "
            "the paper's Tables 1-2; fit working time vs slots; CSA / minRuntime at 400 nodes."
        ),
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    parser.add_argument("--instances", type=int, default=10, help="domains per point")
    parser.add_argument(
        "--repeat", type=int, default=3, help="calls per domain and algorithm; the fastest is kept"
    )
    parser.add_argument("--seed", type=int, default=1, help="seed of the domains")
    parser.add_argument(
        "--nodes", type=int, nargs="+", default=list(TABLE1_NODES), help="Table 1 node counts"
    )
    parser.add_argument(
        "--intervals",
        type=int,
        nargs="+",
        default=list(TABLE2_INTERVALS),
        help="Table 2 interval lengths",
    )
    parser.add_argument(
        "--skip-procedures",
        action="store_true",
        help="leave out the paper's (slow, pure-Python) substitution procedures",
    )
    args = parser.parse_args(argv)
    if args.instances < 1 or args.repeat < 1:
        parser.error("--instances and --repeat must be >= 1")
    algorithms = tuple(
        a for a in ALGORITHMS if not (args.skip_procedures and a in PAPER_PROCEDURES)
    )

    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(
        f"# bench_aep.py {datetime.now(UTC):%Y-%m-%d %H:%M} UTC, load average {load}, "
        f"vosim {_commit()}, Python {platform.python_version()}, numpy {np.__version__}, "
        f"{platform.machine()}, {os.cpu_count()} CPUs"
    )
    print(
        f"# job n=5, V=300, C=1500; {args.instances} domains per point, best of {args.repeat} "
        f"calls each; seed {args.seed}; paper: Java 1.6, Core i3 2.93 GHz, 1000 domains"
    )
    started = time.perf_counter()
    table1 = [
        time_point(n, 600.0, args.instances, args.repeat, args.seed, algorithms) for n in args.nodes
    ]
    print_series(
        "Table 1: ms per call vs CPU nodes (interval 600)",
        "CPU nodes",
        args.nodes,
        table1,
        PAPER_TABLE1,
        TABLE1_NODES,
    )
    table2 = [
        time_point(100, float(L), args.instances, args.repeat, args.seed, algorithms)
        for L in args.intervals
    ]
    print_series(
        "Table 2: ms per call vs interval length (100 nodes)",
        "interval length",
        args.intervals,
        table2,
        PAPER_TABLE2,
        TABLE2_INTERVALS,
    )
    if len(args.intervals) >= 2:
        print_fits(args.intervals, table2)

    if 400 in args.nodes:
        ms = table1[args.nodes.index(400)]["ms"]
        k = TABLE1_NODES.index(400)
        print("\nCSA vs minRuntime at 400 nodes (interval 600):")
        print(
            f"  vosim: CSA {ms['csa']:.1f} ms / min_runtime {ms['min_runtime']:.2f} ms = "
            f"{ms['csa'] / ms['min_runtime']:.1f}x (target >= 10x)"
        )
        if "min_runtime_substitution" in ms:
            print(
                f"  vosim: CSA {ms['csa']:.1f} ms / min_runtime_substitution "
                f"{ms['min_runtime_substitution']:.1f} ms = "
                f"{ms['csa'] / ms['min_runtime_substitution']:.1f}x (the paper's procedure)"
            )
        p_csa, p_rt = PAPER_TABLE1["csa"][k], PAPER_TABLE1["min_runtime"][k]
        print(f"  paper: CSA {p_csa} ms / MinRuntime {p_rt} ms = {p_csa / p_rt:.1f}x")
    print(f"\n# {time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
