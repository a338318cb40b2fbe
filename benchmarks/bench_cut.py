"""The cuts of a run replayed at the working tree beside another revision, in one run.

Every window the cyclic scheme reserves is cut out of the pass's slot list
(:meth:`vosim.core.slots.SlotList.cut`, compiled as ``slot_kernels.cut_distinct``): a new slot
list with the window's spans taken out, ``O(m)`` for ``m`` slots. On LCG-2005-1 (24,515
one-processor nodes, serial jobs) that is one cut of a ~24,500-row list per job, ~13 % of a
whole run in a py-spy profile. This script records the arguments of every ``cut_distinct``
call in a run of the working tree (``--jobs`` of ``--trace``, the default scenario, every
``--every``-th cut kept), then replays them in a fresh interpreter per tree (the working tree
and ``--previous``, extracted with ``git archive``: ``_common.extract_vosim``), alternating
``--repeat`` times, and prints per pair the mean microseconds a cut, the ratio previous /
working tree (> 1: the working tree is faster) and whether both trees give the same rows for
every cut (a speed-up that changes a row is not one).

    PYTHONPATH=. .venv/bin/python benchmarks/bench_cut.py --previous HEAD~1
    PYTHONPATH=. .venv/bin/python benchmarks/bench_cut.py --previous HEAD~1 \\
        --trace UniLu-Gaia-2014-2 --jobs 3000 --policy knapsack

Gaia's default runs cut their count views with ``count_kernels.cut_view_rows`` instead; its
knapsack policy cuts with ``cut_distinct``.
"""

from __future__ import annotations

import argparse
import json
import pickle
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks._common import ROOT, extract_vosim

#: Runs in the child: the recorded cuts by the tree's kernel; one JSON line.
CHILD = r"""
import hashlib, json, pickle, sys, time
sys.path.insert(0, sys.argv[1])
import vosim
from vosim.core.code_path import kernels
cut = kernels("vosim.core.slot_kernels").cut_distinct
calls = pickle.load(open(sys.argv[2], "rb"))
digest = hashlib.sha1()
for args in calls:  # compiles or loads the kernel, and checks every cut's rows
    bad, *cols = cut(*args)
    digest.update(str(int(bad)).encode())
    for c in cols:
        digest.update(c.tobytes())
best = float("inf")
for _ in range(int(sys.argv[3])):
    t0 = time.perf_counter()
    for args in calls:
        cut(*args)
    best = min(best, time.perf_counter() - t0)
print("RESULT " + json.dumps({"us": 1e6 * best / len(calls), "rows": digest.hexdigest(),
                              "vosim": vosim.__file__}))
"""


def record(trace: str, jobs: int, policy: str, every: int, path: Path) -> tuple[int, float]:
    """Record the cuts of one run of the working tree's model.

    ``VOModel(trace=trace, jobs=jobs, policy=policy, rng=1)`` runs with
    ``slot_kernels.cut_distinct`` wrapped; every ``every``-th call's eight argument arrays
    (the slot list's five columns, shape (m,), and the window's nodes, starts and ends, shape
    (n,), model time units) are copied and pickled to ``path``. Returns (cuts kept, mean rows
    of their slot lists). Raises ``SystemExit`` when the run makes no such call (a policy or
    trace whose cuts take another kernel). Source: none (vosim's benchmark tooling).
    """
    from vosim import VOModel
    from vosim.core.code_path import kernels

    module = kernels("vosim.core.slot_kernels")
    plain, calls, seen = module.cut_distinct, [], [0]

    def recording(*args):
        seen[0] += 1
        if seen[0] % every == 0:
            calls.append(tuple(a.copy() for a in args))
        return plain(*args)

    module.cut_distinct = recording
    try:
        VOModel(trace=trace, jobs=jobs, policy=policy, rng=1).run()
    finally:
        module.cut_distinct = plain
    if not calls:
        raise SystemExit(f"no cut_distinct call in {jobs} jobs of {trace} under {policy}")
    path.write_bytes(pickle.dumps(calls))
    return len(calls), statistics.fmean(len(c[0]) for c in calls)


def replay(tree: Path, calls: Path, rounds: int) -> dict:
    """Replay the cuts pickled at ``calls`` with the vosim in ``tree``, in a fresh interpreter.

    Returns ``{"us": mean microseconds a cut (best of ``rounds`` replays), "rows": a SHA-1 of
    every cut's result, "vosim": the package file imported}``. Raises ``SystemExit`` when the
    child fails or imports another vosim than ``tree``'s. Source: none (benchmark tooling).
    """
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(tree), str(calls), str(rounds)],
        capture_output=True,
        text=True,
        cwd=tempfile.gettempdir(),
    )
    lines = [x for x in done.stdout.splitlines() if x.startswith("RESULT ")]
    if done.returncode or not lines:
        raise SystemExit(f"replay in {tree} failed: {done.stderr.strip()[-800:]}")
    result = json.loads(lines[-1][len("RESULT ") :])
    if not result["vosim"].startswith(str(tree)):
        raise SystemExit(f"imported {result['vosim']}, not the vosim in {tree}")
    return result


def main(argv: list[str] | None = None) -> int:
    """Parse the options, record the cuts, replay them per tree; prints the pairs."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--previous", required=True, help="git revision to compare against")
    parser.add_argument("--trace", default="LCG-2005-1", help="trace (default LCG-2005-1)")
    parser.add_argument("--jobs", type=int, default=3000, help="first N jobs (default 3000)")
    parser.add_argument("--policy", default="css", help="scheduling policy (default css)")
    parser.add_argument("--every", type=int, default=5, help="keep every k-th cut (default 5)")
    parser.add_argument("--rounds", type=int, default=5, help="replays per side, best kept")
    parser.add_argument("--repeat", type=int, default=2, help="pairs, alternating (default 2)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        calls = Path(tmp) / "cuts.pkl"
        kept, rows = record(args.trace, args.jobs, args.policy, args.every, calls)
        sha = extract_vosim(args.previous, Path(tmp) / "previous")
        print(
            f"{kept} cuts of {args.trace}'s first {args.jobs} jobs ({args.policy}), "
            f"{rows:,.0f} slots a list; previous = {sha}"
        )
        ratios, same = [], True
        for k in range(1, args.repeat + 1):
            old = replay(Path(tmp) / "previous", calls, args.rounds)
            new = replay(ROOT, calls, args.rounds)
            same &= old["rows"] == new["rows"]
            ratios.append(old["us"] / new["us"])
            print(
                f"pair {k}: previous {old['us']:.1f} us a cut, working tree {new['us']:.1f} us,"
                f" ratio {ratios[-1]:.2f}"
            )
        print(
            f"median ratio {statistics.median(ratios):.2f}; the same rows for every cut: "
            f"{'yes' if same else 'NO'}"
        )
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
