"""Regenerate README's table of every policy on UniLu-Gaia's first 1,000 jobs.

Usage: ``python docs/policy_table.py [--jobs 1000] [--seed 1]``; prints the Markdown table
README.md shows under "Policies". Each row is one ``VOModel`` run with the defaults but
``policy`` (and ``machine=True, cycle_period=0`` for the traced machine's rows), summarised by
``VOModel.summary`` as ``vosim run`` writes ``summary.json``: the mean wait and bounded
slowdown cover every job that entered the queue (a job that never started counts its wait
until it left: a lower bound), "of which chosen" is the part of the mean wait users chose
(``mean_chosen_delay``), utilization is the VO's jobs over the resources' time.

``availability`` runs on whole nodes (``resources="nodes"``, its domain column says so): its
exact knapsack time scan (ICCS 2021 eq. 3) is a DP over slots x tasks x budget units per
start, and on Gaia's 2,004 processors a 160-processor job's scan takes about 100 s (the first
100 jobs: 277 s, measured 2026-11-25), so 1,000 jobs do not run in a README regeneration.
"""

from __future__ import annotations

import argparse
import time

from vosim import VOModel

VO_POLICIES = ("css", "availability", "fcfs", "easy", "conservative", "knapsack", "knapsack+easy")
MACHINE_POLICIES = ("css", "fcfs", "easy", "conservative")
WHOLE_NODES = ("availability",)  # see the module docstring


def row(policy: str, machine: bool, jobs: int, seed: int) -> str:
    """One table row: run ``policy`` on the VO or the traced machine and summarise it."""
    options = dict(machine=True, cycle_period=0.0) if machine else {}
    if not machine and policy in WHOLE_NODES:
        options["resources"] = "nodes"
    model = VOModel(trace="UniLu-Gaia-2014-2", jobs=jobs, policy=policy, rng=seed, **options)
    began = time.perf_counter()
    model.run()
    wall = time.perf_counter() - began
    s = model.summary(model.job_frame(), model.cycle_frame())
    domain = "machine" if machine else ("VO, whole nodes" if "resources" in options else "VO")
    left = s["withdrawn"] + s["unfinished"] + s["rejected"]
    return (
        f"| `{policy}` | {domain} | {s['completed']:,} | {left:,} "
        f"| {s['mean_wait']:,.0f} | {s['mean_chosen_delay']:,.0f} "
        f"| {s['mean_bounded_slowdown']:,.1f} "
        f"| {s['utilization']:.1%} | {s['owners_revenue']:.3g} | {wall:.1f} |"
    )


def main() -> None:
    """Print the Markdown table (header and one row per policy and domain)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print(
        "| policy | domain | completed | not completed | mean wait (s) | of which chosen (s) "
        "| mean BSLD | utilization | owners' revenue | run (s) |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for machine, policies in ((False, VO_POLICIES), (True, MACHINE_POLICIES)):
        for policy in policies:
            print(row(policy, machine, args.jobs, args.seed), flush=True)


if __name__ == "__main__":
    main()
