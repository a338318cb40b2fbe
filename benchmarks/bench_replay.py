"""One compiled kernel's calls from a run, replayed at the working tree and at another revision.

A whole ``vosim run`` on this 2-core VM drifts 5-20 % between two runs of the same code, more
than a change to one kernel moves it (a kernel that is 7 % of a run and becomes 1.5x faster
moves the run 2 %). Here one run at the working tree records the arguments of every
``--every``-th call of one entry point (``--kernel module:function``), and each tree replays
exactly those calls in a fresh interpreter, alternately, ``--repeat`` times (each replay runs
the calls twice and times the second pass, after the kernel is loaded): the same inputs,
so the ratio of the two kernels' times is the kernel's speed-up, and their outputs (every
array returned, element for element) must be identical. Seconds are per call, over all the
calls and over the last tenth of them (the trace's end; on Gaia its final burst). The
arguments are copied before each call (kernels write into some of them).

    PYTHONPATH=. .venv/bin/python benchmarks/bench_replay.py --previous 9dca01d \\
        --kernel vosim.policies.first_fit_kernels:first_fit
    PYTHONPATH=. .venv/bin/python benchmarks/bench_replay.py --previous HEAD~1 \\
        --kernel vosim.policies.compression_kernels:next_move --jobs 20000 --every 50

The run is ``VOModel(trace=..., jobs=..., rng=--seed)`` with the model's defaults. The
recorded calls stay in a temporary folder (``--every`` bounds their size: the first fit's
every 7th call over whole Gaia is ~1,250 calls, ~110 MB).
"""

from __future__ import annotations

import argparse
import pickle
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks._common import ROOT, extract_vosim

_RECORD = r"""
import importlib, pickle, sys
import numpy as np
module_name, name = sys.argv[1].split(":")
every, out, trace, jobs, seed = int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5], sys.argv[6]
from vosim.core.code_path import kernels
module = kernels(module_name)
real = getattr(module, name)
calls, seen = [], [0]
def copied(value):  # arrays copied, in tuples too (kernels write into some of them)
    if isinstance(value, tuple):
        return tuple(copied(v) for v in value)
    return value.copy() if isinstance(value, np.ndarray) else value
def recorded(*args):
    seen[0] += 1
    if seen[0] % every == 0:
        calls.append(copied(args))
    return real(*args)
setattr(module, name, recorded)
from vosim import VOModel
VOModel(trace=trace, jobs=None if jobs == "all" else int(jobs), rng=int(seed)).run()
with open(out, "wb") as fh:
    pickle.dump(calls, fh)
print(len(calls), seen[0])
"""

_REPLAY = r"""
import importlib, pickle, sys, time
import numpy as np
tree, kernel, calls_file, out = sys.argv[1:5]
sys.path.insert(0, tree)
import vosim
if not vosim.__file__.startswith(tree):
    raise SystemExit(f"imported {vosim.__file__}, not the vosim in {tree}")
module_name, name = kernel.split(":")
function = getattr(importlib.import_module(module_name), name)
with open(calls_file, "rb") as fh:
    calls = pickle.load(fh)
def copied(value):  # arrays copied, in tuples too (kernels write into some of them)
    if isinstance(value, tuple):
        return tuple(copied(v) for v in value)
    return value.copy() if isinstance(value, np.ndarray) else value
def flat(value):  # a kernel's result as plain lists, to compare two trees'
    if isinstance(value, tuple):
        return [flat(v) for v in value]
    return value.tolist() if isinstance(value, np.ndarray) else value
for passed in range(2):  # the first pass loads the kernel and warms the memory, untimed
    seconds, results = [], []
    for args in calls:
        args = copied(args)
        t = time.perf_counter()
        result = function(*args)
        seconds.append(time.perf_counter() - t)
        results.append(flat(result) if passed else None)
with open(out, "wb") as fh:
    pickle.dump((seconds, results), fh)
"""


def main(argv: list[str] | None = None) -> int:
    """Record, replay alternately, print per-call times, their ratio and whether outputs match.

    Returns 0; the parser exits 2 on a bad argument (``--every`` or ``--repeat`` below 1,
    ``--jobs`` neither a positive number nor ``all``, a kernel not written
    ``module:function``, a revision git does not know).
    """
    parser = argparse.ArgumentParser(
        description="One compiled kernel's recorded calls replayed at the working tree and "
        "at --previous REV, alternately: per-call seconds, the ratio previous / working tree "
        "(> 1: the working tree is faster) and whether every output is identical."
    )
    parser.add_argument("--previous", required=True, help="git revision to compare against")
    parser.add_argument(
        "--kernel", required=True, help="entry point as module:function "
        "(e.g. vosim.policies.first_fit_kernels:first_fit)"
    )  # fmt: skip
    parser.add_argument("--trace", default="UniLu-Gaia-2014-2", help="trace (default Gaia)")
    parser.add_argument("--jobs", default="all", help="first N jobs, or 'all' (default)")
    parser.add_argument("--seed", type=int, default=1, help="the run's seed (default 1)")
    parser.add_argument(
        "--every", type=int, default=7, help="record every N-th call (default 7)"
    )  # fmt: skip
    parser.add_argument("--repeat", type=int, default=3, help="replays per tree (default 3)")
    args = parser.parse_args(argv)
    if args.every < 1:
        parser.error(f"--every {args.every}: must be at least 1")
    if args.repeat < 1:
        parser.error(f"--repeat {args.repeat}: must be at least 1")
    if args.jobs != "all" and not (args.jobs.isdigit() and int(args.jobs) > 0):
        parser.error(f"--jobs {args.jobs!r}: expected a positive number or 'all'")
    if args.kernel.count(":") != 1:
        parser.error(f"--kernel {args.kernel!r}: expected module:function")
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        old = work / "previous"
        try:
            sha = extract_vosim(args.previous, old)
        except ValueError as exc:
            parser.error(f"--previous {args.previous}: {exc}")
        calls = work / "calls.pkl"
        done = subprocess.run(
            [sys.executable, "-c", _RECORD, args.kernel, str(args.every), str(calls),
             args.trace, args.jobs, str(args.seed)],
            cwd=ROOT, capture_output=True, text=True,
        )  # fmt: skip
        if done.returncode:  # an unknown module or function, a bad trace: the run's own error
            last = (done.stderr.strip().splitlines() or ["no error output"])[-1]
            parser.error(f"--kernel {args.kernel} on {args.trace}: the recording failed: {last}")
        kept, made = done.stdout.split()[-2:]
        print(f"recorded {kept} of {made} calls of {args.kernel} ({args.trace}, jobs {args.jobs})")
        times: dict[str, list[float]] = {"previous": [], "working tree": []}
        outputs: dict[str, list] = {}
        for k in range(args.repeat):
            sides = (("previous", old), ("working tree", ROOT))
            for name, tree in sides if k % 2 == 0 else sides[::-1]:  # ABBA
                out = work / f"{name.split()[0]}.pkl"
                subprocess.run(
                    [sys.executable, "-c", _REPLAY, str(tree), args.kernel, str(calls), str(out)],
                    cwd=tempfile.gettempdir(), check=True,
                )  # fmt: skip
                with open(out, "rb") as fh:
                    seconds, results = pickle.load(fh)
                outputs[name] = results
                tenth = len(seconds) - len(seconds) // 10
                total, last = sum(seconds), sum(seconds[tenth:])
                times[name].append(total)
                print(
                    f"replay {k + 1} {name:>12}: {total:7.3f} s, {total / len(seconds) * 1e6:7.1f} "
                    f"us a call; last tenth {last / max(len(seconds) - tenth, 1) * 1e6:7.1f} us"
                )
        best = {name: min(seconds) for name, seconds in times.items()}
        same = "yes" if outputs["previous"] == outputs["working tree"] else "NO"
        print(
            f"fastest replay: previous ({sha}) {best['previous']:.3f} s, working tree "
            f"{best['working tree']:.3f} s, ratio previous/working tree "
            f"{best['previous'] / best['working tree']:.2f}; outputs identical: {same}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
