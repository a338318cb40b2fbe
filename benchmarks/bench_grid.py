"""Wall time of each Knapsack Grid strategy on the slides' 2000-task stream, side by side.

The target: the full 2000-task experiment for one strategy finishes in under a
minute, and one knapsack cycle with 200 waiting tasks x 4 options solves in well under 100 ms
(that part: ``bench_mckp.py``). Each strategy simulates the same stream (Poisson arrivals,
``lambda = 0.64 h``, clusters 4/8/16/32); the script prints its wall time, the share of it
spent in the knapsack solver, the knapsack's mean and max solve time per cycle, and the
ratio of the wall time to the 60 s target.

Run: ``PYTHONPATH=. python benchmarks/bench_grid.py [--tasks 2000] [--seed 0]``.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vosim.runs.experiments.knapsack_grid import strategies
from vosim.runs.experiments.knapsack_grid_simulator import DEFAULT_CLUSTERS, poisson_tasks, simulate

TARGET_SECONDS = 60.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tasks", type=int, default=2000, help="tasks in the stream")
    parser.add_argument("--seed", type=int, default=0, help="seed of the stream")
    args = parser.parse_args()
    print(f"# {datetime.now(UTC):%Y-%m-%d %H:%M} UTC, load {os.getloadavg()[0]:.2f}")
    tasks = poisson_tasks(np.random.default_rng(args.seed), DEFAULT_CLUSTERS, tasks=args.tasks)
    print(
        f"{'strategy':34} {'wall s':>8} {'solver %':>9} {'mean ms':>8} {'max ms':>8} {'/60 s':>6}"
    )
    for strategy in strategies(quick=False):
        started = time.perf_counter()
        result = simulate(tasks, DEFAULT_CLUSTERS, strategy)
        wall = time.perf_counter() - started
        ticks = result.cycles[result.cycles["tick"]]
        solve = ticks["solve_seconds"].to_numpy(dtype=float)
        solve = solve[np.isfinite(solve) & (solve > 0)]  # only knapsack cycles solve
        share = 100 * solve.sum() / wall
        mean = 1000 * solve.mean() if solve.size else float("nan")
        top = 1000 * solve.max() if solve.size else float("nan")
        print(
            f"{strategy.name:34} {wall:8.2f} {share:8.1f}% {mean:8.2f} {top:8.2f} "
            f"{wall / TARGET_SECONDS:6.3f}"
        )


if __name__ == "__main__":
    main()
