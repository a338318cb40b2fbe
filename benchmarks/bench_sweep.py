"""Side by side: a sweep of 20 runs on the local backend with 1 worker and with 2 workers.

Prints the wall time of each and the ratio (target: 2 workers >= 1.7x faster than 1 on a
machine with 2 free cores), and checks that both give the same table (timings aside).
The runs: the NASA iPSC trace's first ``--jobs`` jobs, VO objective cost or finish, U_a none
or 25 %, 3 alternatives per job, 5 repetitions (paired seeds). 1 worker runs in this process;
2 workers are spawned processes, so their start-up (importing vosim) is included. On a
virtual machine whose host is busy the hypervisor takes CPU time away ("steal", printed for
each side): two workers then get less than two cores and the ratio falls.

    PYTHONPATH=. python benchmarks/bench_sweep.py            # about 2-3 minutes on 2 cores
    PYTHONPATH=. python benchmarks/bench_sweep.py --jobs 60  # a quick look
    PYTHONPATH=. python benchmarks/bench_sweep.py --study vo-policies --repetitions 2

``--study NAME`` times a built-in study's sweep instead (the target: its runs per hour
with 2 workers at least 1.7 times those with 1), with ``--repetitions`` replacing the study's
own count so that the 1-worker side stays short.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vosim import __version__
from vosim.runs.batch import run_sweep
from vosim.runs.config import parse_sweep
from vosim.runs.studies import STUDIES, study_config
from vosim.runs.sweep_results import load_results

SWEEP = """
name = "bench-sweep"
[scenario]
trace = "NASA-iPSC-1993-3.1-cln"
jobs = {jobs}
scheduling_interval = 86400.0
cycle_period = 300.0
max_alternatives = 3
[sweep]
vo_objective = ["cost", "finish"]
ua = ["none", 25.0]
[run]
repetitions = {repetitions}
seed = 1
"""


def _cpu_ticks() -> tuple[int, int] | None:
    """(steal, total) CPU ticks since boot from /proc/stat (Linux), else None."""
    try:
        fields = [int(x) for x in Path("/proc/stat").read_text().split("\n")[0].split()[1:]]
    except (OSError, ValueError):
        return None
    return (fields[7] if len(fields) > 7 else 0), sum(fields)


def _steal(before: tuple[int, int] | None) -> str:
    """Share of CPU time the hypervisor gave to other machines since ``before``."""
    after = _cpu_ticks()
    if before is None or after is None or after[1] == before[1]:
        return "n/a"
    return f"{(after[0] - before[0]) / (after[1] - before[1]):.0%}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=(
            "Time a sweep of 20 runs (2 VO objectives x 2 U_a x 5 repetitions) on the local "
            "backend with 1 and with 2 workers; print seconds and the speed-up ratio."
        ),
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    parser.add_argument("--jobs", type=int, default=200, help="jobs of the trace per run")
    parser.add_argument("--repetitions", type=int, default=5, help="repetitions (4 per rep.)")
    parser.add_argument("--workers", type=int, default=2, help="workers of the parallel side")
    parser.add_argument(
        "--study",
        choices=sorted(STUDIES),
        help="time this built-in study's sweep (with --repetitions) instead of the NASA one",
    )
    args = parser.parse_args(argv)

    if args.study:
        config = dataclasses.replace(study_config(args.study), repetitions=args.repetitions)
        what = f"study {args.study}, {args.repetitions} repetitions"
    else:
        config = parse_sweep(SWEEP.format(jobs=args.jobs, repetitions=args.repetitions))
        what = f"NASA-iPSC first {args.jobs} jobs, max_alternatives 3"
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"],
        capture_output=True,
        text=True,
        cwd=Path(__file__).parent,
        check=False,
    ).stdout.strip()
    print(
        f"# bench_sweep  {now}  vosim {__version__} ({commit or 'no git'})  "
        f"Python {platform.python_version()}"
    )
    print(f"# cpus {os.cpu_count()}  load average {load} (before)")
    print(f"# {config.run_count} runs: {what}")

    seconds = {}
    tables = {}
    for workers in (1, args.workers):
        with tempfile.TemporaryDirectory() as out:
            ticks = _cpu_ticks()
            started = time.perf_counter()
            result = run_sweep(config, out, workers=workers)
            seconds[workers] = time.perf_counter() - started
            stolen = _steal(ticks)
            tables[workers] = load_results(out).drop(columns="seconds")
        run_seconds = seconds[workers] / config.run_count * workers
        print(
            f"local  workers {workers}: {seconds[workers]:7.1f} s  ({result.ran} runs, "
            f"{result.failed} failed; {3600 * result.ran / seconds[workers]:,.0f} runs/hour; "
            f"{run_seconds:.2f} s per run per worker; CPU stolen by the hypervisor {stolen})",
            flush=True,
        )
    ratio = seconds[1] / seconds[args.workers]
    pd.testing.assert_frame_equal(tables[1], tables[args.workers])
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"# load average {load} (after)")
    print(f"runs/hour, {args.workers} workers vs 1: {ratio:.2f}x (target >= 1.7x); same table: yes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
