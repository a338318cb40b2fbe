"""One vosim run at the working tree beside the same run at another revision, in one run.

The target: the whole UniLu-Gaia trace with every user's window search set to AMP runs no
slower at the working tree than at the previous commit (ratio >= 0.95). The script extracts the
revision's vosim/ into a temporary folder (``git archive``, no git state touched:
``_common.extract_vosim``), then runs the same model in a fresh interpreter per side,
alternating sides ``--repeat`` times (the machine's speed drifts; pairs measured back to back
share it, and the side that runs first alternates from pair to pair, ABBA, so that a drift does
not always fall on one side; an untimed short run per side first lets numba compile and cache
vosim's kernels in each tree), and prints per pair the seconds of each (model build, ``run()``
and ``job_frame()``), completed jobs per second, and the ratio previous / working tree (> 1:
the working tree is faster). The two sides' per-job tables must be identical: a refactor that
changes a result is not a speed-up. "values yes, categories differ" means the same values with
a categorical column's categories changed (the ``state`` column gained the live states after
7e8f695).

    PYTHONPATH=. .venv/bin/python benchmarks/bench_previous.py --previous 807ebb8
    PYTHONPATH=. .venv/bin/python benchmarks/bench_previous.py --previous HEAD~3 \\
        --jobs 5000 --policy easy --allocator min_cost --repeat 3
    PYTHONPATH=. .venv/bin/python benchmarks/bench_previous.py --previous HEAD \\
        --jobs 1000 --allocator '' --availability --repeat 1
    PYTHONPATH=. .venv/bin/python benchmarks/bench_previous.py --previous 6dba7ba \\
        --trace LCG-2005-1 --owners trace --jobs 2000 --policy knapsack --repeat 2
    PYTHONPATH=. .venv/bin/python benchmarks/bench_previous.py --previous HEAD --jobs 5000 \\
        --allocator '' --set offered_load=0.6 --set max_alternatives=3 --set vo_objective=cost
    PYTHONPATH=. .venv/bin/python benchmarks/bench_previous.py --previous HEAD~2 --command \\
        --allocator '' --repeat 1

With ``--cold`` (and ``--command``) every run starts on an empty numba cache of its own
(``NUMBA_CACHE_DIR``), as the first run after an install: its time includes compiling the
kernels (the reviewer's target: ``--jobs 5000`` within 60 s).

    PYTHONPATH=. .venv/bin/python benchmarks/bench_previous.py --previous HEAD~1 --command \\
        --cold --jobs 5000 --allocator '' --repeat 2

With ``--command`` each side is the whole ``vosim run`` process instead (``vosim.runs.cli``
of that tree: start, trace, simulation, every output file and the chart), timed from outside
with its peak resident memory (``ru_maxrss`` of the process alone, ``_common.run_child``);
the options become the command's flags (``--set max_alternatives=3`` is
``--max-alternatives 3``), and the two ``jobs.parquet`` it writes are compared.
"""

from __future__ import annotations

import argparse
import inspect
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks._common import ROOT, extract_vosim, run_command
from vosim import VOModel

TARGET = 0.95

#: Runs in the child: the model with the given options, timed; prints one JSON line.
CHILD = r"""
import json, sys, time
sys.path.insert(0, sys.argv[1])
opts = json.loads(sys.argv[2])
import vosim
from vosim import VOModel
t0 = time.perf_counter()
model = VOModel(**opts)
model.run()
frame = model.job_frame()
seconds = time.perf_counter() - t0
frame.to_parquet(sys.argv[3])
completed = int((frame["state"].astype(str) == "completed").sum())
print("RESULT " + json.dumps({"s": seconds, "completed": completed, "vosim": vosim.__file__}))
"""


def command_flags(options: dict, out: Path) -> list[str]:
    """The ``vosim run`` flags of the model ``options`` (``bench_previous``'s), writing to ``out``.

    ``jobs=None`` is ``--all-jobs``, ``rng`` is ``--seed``, one allocator for every
    criterion is ``--allocator``, ``True`` is a bare flag, a list or tuple is comma-separated,
    any other name ``x_y`` is ``--x-y VALUE``.
    """
    flags = ["run", "--out", str(out), "--quiet", "--seed", str(options["rng"])]
    for name, value in options.items():
        if name == "rng":
            continue
        if name == "jobs":
            flags += ["--all-jobs"] if value is None else ["--jobs", str(value)]
        elif name == "criterion_allocators":
            flags += ["--allocator", next(iter(value.values()))]
        elif value is True:
            flags.append(f"--{name.replace('_', '-')}")
        else:
            text = ",".join(map(str, value)) if isinstance(value, list | tuple) else str(value)
            flags += [f"--{name.replace('_', '-')}", text]
    return flags


def run_side(tree: Path, options: dict, parquet: Path) -> dict:
    """Run the model with ``options`` in a fresh interpreter importing vosim from ``tree``.

    Returns ``{"s": seconds, "completed": jobs}``. Raises ``RuntimeError`` when the child
    fails or imported vosim from elsewhere.
    """
    proc = subprocess.run(
        [sys.executable, "-c", CHILD, str(tree), json.dumps(options), str(parquet)],
        capture_output=True,
        text=True,
        cwd=tempfile.gettempdir(),
    )
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")]
    if proc.returncode or not lines:
        err = proc.stderr.strip().splitlines() or ["no error output"]
        raise RuntimeError(f"run in {tree} failed: {err[-1]}")  # the child's error line
    result = json.loads(lines[-1][len("RESULT ") :])
    if not Path(result["vosim"]).resolve().is_relative_to(tree.resolve()):
        raise RuntimeError(f"imported {result['vosim']}, not the vosim in {tree}")
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=(
            "One VOModel run at the working tree beside the same run at --previous REV, "
            "alternating, each in a fresh interpreter; prints seconds, completed jobs/s, the "
            f"ratio previous/working tree per pair (target >= {TARGET:g}) and whether the "
            "per-job tables are identical."
        )
    )
    parser.add_argument("--previous", required=True, help="git revision to compare against")
    parser.add_argument("--trace", default="UniLu-Gaia-2014-2", help="trace (default Gaia)")
    parser.add_argument("--jobs", default="all", help="first N jobs, or 'all' (default)")
    parser.add_argument("--policy", default="css", help="scheduling policy (default css)")
    parser.add_argument(
        "--allocator",
        default="amp",
        help="window search of every user (default amp; '' keeps each criterion's own)",
    )
    parser.add_argument(
        "--resources",
        choices=("nodes", "processors"),
        help="what the slots are on (default: the model's default)",
    )
    parser.add_argument(
        "--owners",
        help="resource owners: a number, or 'trace' for a multi-site trace's own sites "
        "(default: the model's default)",
    )
    parser.add_argument(
        "--availability",
        action="store_true",
        help="windows that can fail, realised (the model's availability=True)",
    )
    parser.add_argument(
        "--warmup",
        type=int,
        default=300,
        help=(
            "jobs of an untimed first run per side (default 300; 0: none): numba compiles "
            "vosim's kernels at their first call in a tree and caches them there, so without "
            "it the freshly extracted previous tree's time would include compiling"
        ),
    )
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="any other VOModel argument, VALUE read as JSON (else as a string), e.g. "
        "--set offered_load=0.6 --set max_alternatives=3; repeatable",
    )
    parser.add_argument(
        "--command",
        action="store_true",
        help="time the whole `vosim run` process of each tree (every output and the chart) "
        "and report its peak resident memory, instead of the model in a child",
    )
    parser.add_argument(
        "--cold",
        action="store_true",
        help="with --command: every run on an empty numba cache of its own (the first run "
        "after an install, compiling the kernels); no warm-up run",
    )
    parser.add_argument("--seed", type=int, default=1, help="model seed (default 1)")
    parser.add_argument("--repeat", type=int, default=2, help="pairs of runs (default 2)")
    args = parser.parse_args(argv)
    if args.cold and not args.command:
        parser.error("--cold times the whole command: add --command")
    options = {
        "trace": args.trace,
        "jobs": None if args.jobs == "all" else int(args.jobs),
        "policy": args.policy,
        "rng": args.seed,
    }
    if args.resources:
        options["resources"] = args.resources
    if args.owners:
        options["owners"] = args.owners if args.owners == "trace" else int(args.owners)
    if args.availability:
        options["availability"] = True
    known = inspect.signature(VOModel).parameters
    for item in args.set:
        name, sep, value = item.partition("=")
        if not sep or not name:
            parser.error(f"--set {item!r}: expected NAME=VALUE")
        if name not in known:
            parser.error(f"--set {item!r}: VOModel has no argument {name!r}")
        try:
            options[name] = json.loads(value)
        except json.JSONDecodeError:
            options[name] = value
    if args.policy in ("css", "availability") and args.allocator:
        options["criterion_allocators"] = dict.fromkeys(
            ("finish", "runtime", "cost"), args.allocator
        )
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        old = work / "previous"
        try:
            extract_vosim(args.previous, old)
        except ValueError as exc:
            parser.error(f"--previous {args.previous}: {exc}")
        if args.warmup > 0 and not args.cold:
            warm = {**options, "jobs": min(args.warmup, options["jobs"] or args.warmup)}
            for tree in (old, ROOT):
                run_side(tree, warm, work / "warmup.parquet")
        ratios = []
        for k in range(args.repeat):
            pair = {}
            sides = (("previous", old), ("working tree", ROOT))
            # ABBA: the side that runs first alternates, so that a drift (or the first run's
            # cold disk) slows each side alike rather than always the same one
            for name, tree in sides if k % 2 == 0 else sides[::-1]:
                side = name.split()[0]
                if args.command:
                    cache = work / f"numba-{side}-{k}" if args.cold else None
                    flags = command_flags(options, work / side)
                    pair[name] = run_command(tree, flags, work / side, numba_cache=cache)
                    (work / side / "jobs.parquet").replace(work / f"{side}.parquet")
                else:
                    pair[name] = run_side(tree, options, work / f"{side}.parquet")
                r = pair[name]
                peak = f", peak {r['peak_mb']:,.0f} MiB" if "peak_mb" in r else ""
                print(
                    f"pair {k + 1} {name:>12}: {r['s']:7.2f} s, {r['completed']:,} "
                    f"completed, {r['completed'] / r['s']:,.0f} completed jobs/s{peak}",
                    flush=True,
                )
            ratios.append(pair["previous"]["s"] / pair["working tree"]["s"])
            print(f"pair {k + 1} ratio previous/working tree: {ratios[-1]:.3f}", flush=True)
        before = pd.read_parquet(work / "previous.parquet")
        after = pd.read_parquet(work / "working.parquet")
        same = before.equals(after)
        # a categorical column whose categories grew holds the same values: say so apart
        values = same or _as_text(before).equals(_as_text(after))
        verdict = "yes" if same else "values yes, categories differ" if values else "NO"
        print(
            f"median ratio {statistics.median(ratios):.3f} (target >= {TARGET:g}); "
            f"per-job tables identical: {verdict}"
        )
    return 0


def _as_text(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with its categorical columns as plain text (their values, not categories)."""
    cats = [c for c in frame.columns if isinstance(frame[c].dtype, pd.CategoricalDtype)]
    return frame.astype(dict.fromkeys(cats, str))


if __name__ == "__main__":
    try:
        raise SystemExit(main())
    except RuntimeError as exc:  # a side's run failed: its error, without this script's trace
        print(f"bench_previous.py: error: {exc}", file=sys.stderr)
        raise SystemExit(1) from None
