"""Availability with a local trace: the working tree beside a previous revision.

``vosim run --availability --local-trace NASA-iPSC-1993-3.1-cln`` was 30-70 times slower than
either option alone: every scheduling cycle rebuilt (and revalidated) the utilization schedule
from every local job the owners had placed, and a local trace is placed whole from time 0 (tens
of thousands of chains, most in the future). vosim keeps each owner's local jobs as event
chains derived once and reuses the schedule while no local job is added or forgotten; the
results must not change.

In one run, each in a fresh interpreter (so no side warms another's caches), for the working
tree and for ``--previous REV`` (default ``HEAD``; extracted with ``git archive REV vosim``
into a temporary folder, touching no git state) or ``--previous-dir DIR`` (a folder that
already holds another ``vosim/``)::

    VOModel(trace="UniLu-Gaia-2014-2", jobs=N, availability=True,
            local_trace="NASA-iPSC-1993-3.1-cln", rng=SEED).run()

and, for reference, the same with each option alone. Printed per run: wall seconds (model
build, ``run()`` and ``job_frame()``), CPU seconds of the process (``_common.run_child``: a
wall time well above the CPU time means the machine was busy, not the code slow), completed
jobs and completed jobs per second; then the ratio previous / working tree of the combined
run (> 1: the working tree is faster), the combined run's time over the slower option alone,
and whether each pair of per-job tables is identical (``DataFrame.equals``; a change of
result is not a speed-up, and the run exits with status 1).

Run::

    PYTHONPATH=. .venv/bin/python benchmarks/bench_local_availability.py            # vs HEAD
    PYTHONPATH=. .venv/bin/python benchmarks/bench_local_availability.py --jobs 300 \\
        --previous 807ebb8 --timeout 1800
    git archive HEAD vosim | tar -x -C /tmp/head
    PYTHONPATH=. .venv/bin/python benchmarks/bench_local_availability.py --previous-dir /tmp/head

The default N = 100 keeps the previous revision's combined run to a few minutes (about 200 s
on a busy shared machine before item 11).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._common import ROOT, commit, extract_vosim, run_child
from benchmarks.bench_previous import CHILD  # the timed child run, one JSON line

LOCAL = "NASA-iPSC-1993-3.1-cln"
#: The runs: name -> options added to the common ones.
VARIANTS = {
    "availability + local trace": {"availability": True, "local_trace": LOCAL},
    "availability alone": {"availability": True},
    "local trace alone": {"local_trace": LOCAL},
}


def run_side(tree: Path, options: dict, parquet: Path, timeout: float | None) -> dict:
    """Run the model with ``options`` in a fresh interpreter importing vosim from ``tree``.

    Returns ``{"s": wall seconds, "cpu": CPU seconds, "completed": jobs}``, or
    ``{"error": message}`` when the child fails, times out or imports vosim from elsewhere.
    """
    cmd = [sys.executable, "-c", CHILD, str(tree), json.dumps(options), str(parquet)]
    try:  # cwd: `python -c` puts the cwd first on sys.path, ahead of the tree
        proc, usage = run_child(cmd, cwd=tempfile.gettempdir(), timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {timeout:g} s"}
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")]
    if proc.returncode or not lines:
        return {"error": f"failed: {proc.stderr.strip()[-800:]}"}
    result = json.loads(lines[-1][len("RESULT ") :])
    if not Path(result["vosim"]).resolve().is_relative_to(tree.resolve()):
        return {"error": f"imported {result['vosim']}, not the vosim in {tree}"}
    return {**result, "cpu": usage.cpu_s}


def describe(r: dict) -> str:
    """One result as a table row's measured columns."""
    if "error" in r:
        return f"| {r['error']} | | | |"
    rate = r["completed"] / r["s"] if r["s"] else float("nan")
    return f"| {r['s']:.2f} | {r['cpu']:.2f} | {r['completed']} | {rate:.2f} |"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=(
            "Gaia with availability and the NASA local trace at the working tree beside a "
            "previous revision (and each option alone); prints seconds, completed jobs/s, the "
            "ratio previous / working tree and whether the per-job tables are identical."
        )
    )
    parser.add_argument("--jobs", type=int, default=100, help="first N Gaia jobs (default 100)")
    parser.add_argument("--seed", type=int, default=1, help="model seed (default 1)")
    parser.add_argument(
        "--previous", default="HEAD", help="git revision to compare against (default HEAD)"
    )
    parser.add_argument(
        "--previous-dir",
        type=Path,
        help="compare against the vosim package in DIR/vosim instead of --previous",
    )
    parser.add_argument(
        "--no-alone", action="store_true", help="skip the runs with each option alone"
    )
    parser.add_argument(
        "--timeout", type=float, default=None, help="seconds allowed per run (default: none)"
    )
    args = parser.parse_args(argv)
    if args.previous_dir is not None and not (args.previous_dir / "vosim").is_dir():
        parser.error(f"--previous-dir {args.previous_dir}: no vosim/ folder in it")
    common = {"trace": "UniLu-Gaia-2014-2", "jobs": args.jobs, "rng": args.seed}
    variants = dict(list(VARIANTS.items())[:1]) if args.no_alone else VARIANTS
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        if args.previous_dir is not None:
            old, old_label = args.previous_dir.resolve(), f"{args.previous_dir} (--previous-dir)"
        else:
            old = work / "previous"
            try:
                sha = extract_vosim(args.previous, old)
            except ValueError as exc:
                parser.error(f"--previous {args.previous}: {exc}")
            old_label = f"{sha} (--previous {args.previous})"
        sides = {f"working tree {commit('vosim')}": ROOT, old_label: old}
        print(f"Gaia, first {args.jobs} jobs, seed {args.seed}; local trace {LOCAL}\n")
        print("| run | vosim | seconds | CPU s | completed | completed/s |")
        print("|---|---|---:|---:|---:|---:|")
        results: dict[tuple[str, str], dict] = {}
        for name, extra in variants.items():
            for k, (label, tree) in enumerate(sides.items()):
                parquet = work / f"{name.replace(' ', '_')}-{k}.parquet"
                r = run_side(tree, {**common, **extra}, parquet, args.timeout)
                results[name, label] = {**r, "parquet": parquet}
                print(f"| {name} | {label} {describe(r)}", flush=True)
        print()
        new, prev = list(sides)
        differ = False
        for name in variants:
            a, b = results[name, new], results[name, prev]
            if "error" in a or "error" in b:
                print(f"{name}: not compared (a run failed)")
                continue
            same = pd.read_parquet(a["parquet"]).equals(pd.read_parquet(b["parquet"]))
            differ |= not same
            print(
                f"{name}: previous / working tree {b['s'] / a['s']:.2f}x; "
                f"per-job tables identical: {'yes' if same else 'NO'}"
            )
        combined = next(iter(variants))
        alone = [results[n, new] for n in list(variants)[1:]]
        both = results[combined, new]
        if alone and "error" not in both and all("error" not in r for r in alone):
            slowest = max(r["s"] for r in alone)
            print(
                f"working tree: combined / slower option alone {both['s'] / slowest:.2f}x "
                f"({both['s']:.2f} s against {slowest:.2f} s)"
            )
    return 1 if differ else 0


if __name__ == "__main__":
    raise SystemExit(main())
