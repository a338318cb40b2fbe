"""EASY backfilling on the whole UniLu-Gaia trace: vosim beside AccaSim 1.1.3, in one run.

What is measured, side by side in one command (machines drift: compare within a run):

1. AccaSim 1.1.3's EASY dispatcher (``EASYBackfilling`` with first fit) through the shared
   ``/work/shared/tools/accasim/run_accasim.py TRACE unilu_gaia.config easy OUTDIR``, with
   its per-job schedule file written (AccaSim's default), on the trace prepared by
   ``accasim_side_by_side.py`` (memory fields blanked, a prefix file for ``--jobs``; its
   Python 3.9 venv under ``benchmarks/_work/`` is set up when missing). Its time is ``sim_s``,
   the whole ``start_simulation()`` call (it reads the trace as it goes and writes the output;
   interpreter start and imports not counted); its rate is jobs *finished* per second;
2. vosim's EASY (or, with ``--policy conservative``, its conservative backfilling) on the
   traced machine, event driven, in a fresh interpreter:
   ``VOModel(trace="UniLu-Gaia-2014-2", jobs=N, machine=True, cycle_period=0,
   policy=POLICY, rng=SEED)``, ``model.run()`` and ``model.job_frame().to_parquet(path)``,
   timed together (imports not counted); its rate is jobs *completed* per second (the jobs
   whose state is ``completed`` in the parquet file, not the jobs read);
3. with ``--previous REV``, the same vosim measurement at another git revision: a
   ``git worktree add --detach`` of REV in a temporary folder (removed afterwards), run with
   ``PYTHONPATH`` set to it alone (the worker reports which ``vosim`` it imported, and the
   script checks it). The job records of both vosim runs are compared (identical or not).
   ``--previous-dir DIR`` does the same with a folder that already holds another ``vosim/``
   (e.g. ``git archive HEAD vosim | tar -x -C DIR``), touching no git state;
4. the peak resident memory of every run: the measured process's own ``ru_maxrss``, from
   ``os.wait4`` in a small launcher (``_common.run_child``): a process started straight from
   this one would report at least this one's size (Linux keeps the high-water mark across
   ``exec``), and ``getrusage(RUSAGE_CHILDREN)`` gives the largest of all children so far;
5. the Mesa floor (not part of the timed run): the number of Mesa events the vosim run
   scheduled, and the time a bare ``mesa.Model`` takes to run as many no-op events (each
   scheduling the next, so the event list stays short as in the run). With vosim's build and
   parquet times it bounds the ratio any vosim work inside those events can reach;
6. a table (seconds, jobs completed, completed/s, peak memory), the ratio vosim jobs/s /
   AccaSim jobs/s (target >= 4) and, for credibility, a sanity line: vosim's completed share,
   its mean wait and the trace's own recorded mean wait (SWF field 3) over the same jobs,
   with AccaSim's mean wait (start - submit in its schedule file) beside them.

``--repeat k`` runs each side k times, interleaved (AccaSim, vosim, previous vosim, then
again), and keeps each side's fastest run; peak memory is the largest over the runs.

``--command`` also times each vosim side's whole ``vosim run --policy POLICY --machine
--cycle-period 0`` process (interpreter start, imports, the trace, the simulation, every output
file and the chart; ``_common.run_command``) and compares it with AccaSim's whole process
(its subprocess's wall time): what a user waits for, the measure the speed targets name. The
model-only ratio above stays as the comparison with earlier figures. It then times the same
command on one job (the process floor: start, imports, the build, every output file and the
chart, with almost no simulation) and prints the ratio a simulation of no cost would reach and
the time per job the target leaves for the simulation.

``--profile`` adds, after the timed runs, one more vosim run under ``cProfile`` (not timed)
and prints where its time went: the functions of most own time, and vosim's phases (the
scheduling pass, its slot list and policy, reservations, completions, arrivals, per-pass
records), as seconds and calls.

Why the two do comparable work: both replay the same jobs (the same prefix) in submission
order on the machine the trace was recorded on, with EASY backfilling on the requested
times, run every job to its recorded run time, and write one output row per job. The
differences: AccaSim's machine is the shared tool's ``unilu_gaia.config`` (151 nodes x 14
cores = 2,114 cores, allocated first fit by cores within nodes), vosim's is the trace header's
``MaxProcs`` (2,004 identical processors, a job needs ``p`` of them). And, per the AccaSim
tool's README, AccaSim's EASY does not protect the head job's reservation (a backfilled job
may delay the first job in the queue), so its schedule and waits are not a reference for
EASY: only its speed is used here. vosim's EASY is a strict EASY (the head job's reservation
is kept). Each writes its own per-job format (AccaSim a text line with the allocation per
core, vosim a Parquet table of 26 columns).

Examples::

    PYTHONPATH=. .venv/bin/python benchmarks/bench_easy.py                  # whole trace
    PYTHONPATH=. .venv/bin/python benchmarks/bench_easy.py --jobs 5000 --repeat 3
    PYTHONPATH=. .venv/bin/python benchmarks/bench_easy.py --command  # whole processes too
    PYTHONPATH=. .venv/bin/python benchmarks/bench_easy.py --previous HEAD  # working tree vs HEAD
    git archive HEAD vosim | tar -x -C /tmp/head                     # the same, no worktree
    PYTHONPATH=. .venv/bin/python benchmarks/bench_easy.py --previous-dir /tmp/head --profile
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import pandas as pd

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

import benchmarks.accasim_side_by_side as side  # noqa: E402
from benchmarks._common import commit, run_child, run_command  # noqa: E402
from vosim.data import trace_path  # noqa: E402
from vosim.market.swf import read_swf  # noqa: E402

TRACE = "UniLu-Gaia-2014-2"
SPEC = side.TRACES["gaia"]
#: vosim jobs/s over AccaSim EASY's jobs/s, per vosim policy (``--policy``): EASY at least 4x,
#: conservative backfilling (a promise for every waiting job) at least AccaSim's EASY rate.
TARGETS = {"easy": 4.0, "conservative": 1.0}

_WORKER = r"""
import inspect, json, sys, time
import vosim
from vosim.model import VOModel

jobs = None if sys.argv[1] == "all" else int(sys.argv[1])
seed, path, policy = int(sys.argv[2]), sys.argv[3], sys.argv[4]
t0, c0 = time.perf_counter(), time.process_time()


def progress(done, total):
    print("PROGRESS " + json.dumps([time.perf_counter() - t0, done, total]), flush=True)


try:  # Mesa's event ids count every event scheduled (an older Mesa may lack them)
    from mesa.time.events import Event
    ids = Event._ids
except (ImportError, AttributeError):
    ids = None
e0 = next(ids) if ids else 0
model = VOModel(
    trace="UniLu-Gaia-2014-2", jobs=jobs, machine=True, cycle_period=0, policy=policy, rng=seed
)
t1 = time.perf_counter()
if "progress" in inspect.signature(model.run).parameters:
    model.run(progress=progress)
else:
    model.run()
t2 = time.perf_counter()
events = next(ids) - e0 - 1 if ids else 0
model.job_frame().to_parquet(path)
t3, c3 = time.perf_counter(), time.process_time()

# The Mesa floor (not timed above): as many no-op events, each scheduling the next, on a
# bare Mesa model; what the run's events cost with no vosim work in them.
import mesa


class Floor(mesa.Model):
    def __init__(self, n):
        super().__init__()
        self.left = n

    def tick(self):
        self.left -= 1
        if self.left > 0:
            self.schedule_event(self.tick, after=1.0)


floor_s = float("nan")
if events > 0:
    bare = Floor(events)
    t4 = time.perf_counter()
    bare.schedule_event(bare.tick, at=1.0)
    bare.run_until(events + 1.0)
    floor_s = time.perf_counter() - t4
print("VOSIM " + json.dumps(dict(
    build_s=t1 - t0, run_s=t2 - t1, output_s=t3 - t2, total_s=t3 - t0, cpu_s=c3 - c0,
    passes=getattr(model.metascheduler, "cycles", None), events=events, floor_s=floor_s,
    vosim=vosim.__file__)), flush=True)
"""


_PROFILE_WORKER = r"""
import cProfile, io, pstats, sys
from vosim.model import VOModel

jobs = None if sys.argv[1] == "all" else int(sys.argv[1])
model = VOModel(
    trace="UniLu-Gaia-2014-2", jobs=jobs, machine=True, cycle_period=0, policy=sys.argv[5],
    rng=int(sys.argv[2]),
)
profile = cProfile.Profile()
profile.enable()
model.run()
model.job_frame().to_parquet(sys.argv[3])
profile.disable()
stats = pstats.Stats(profile)
print("PHASES")
for name in sys.argv[4].split(","):
    rows = [(k, v) for k, v in stats.stats.items() if k[2] == name.split(".")[-1]
            and name.split(".")[0] in k[0]]
    calls = sum(v[1] for _, v in rows)
    cum = sum(v[3] for _, v in rows)
    if rows:
        per = cum / max(calls, 1) * 1e6
        print(f"  {name:<36} {cum:9.2f} s {calls:9d} calls {per:9.1f} us/call")
out = io.StringIO()
pstats.Stats(profile, stream=out).sort_stats("tottime").print_stats(25)
print("TOP")
print(out.getvalue())
"""

#: (file stem, function) pairs whose cumulative time ``--profile`` reports, in this order.
PHASES = (
    "metascheduler.cycle",
    "metascheduler.slot_list",
    "slot_cache.slots",
    "easy.decide",
    "easy.decide_by_counts",
    "conservative.decide_by_counts",
    "windows.take_now",
    "windows.hold_head",
    "metascheduler._queue",
    "metascheduler._apply",
    "execution.reserve",
    "execution.complete_due",
    "execution._release",
    "schedule.shorten",
    "user.submit_due",
    "model.record_cycle",
    "model.schedule_event",
)


def profile_vosim(tree: Path, jobs: int | None, seed: int, out: Path, policy: str) -> str:
    """One vosim run of ``policy`` with the vosim in ``tree`` under cProfile; its report.

    The phases of :data:`PHASES` (cumulative seconds, calls, microseconds per call) and the
    25 functions of most own time. Profiling slows the run: its times are shares, not speed.
    """
    out.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, PYTHONPATH=str(tree))
    cmd = [sys.executable, "-c", _PROFILE_WORKER, "all" if jobs is None else str(jobs)]
    cmd += [str(seed), str(out / "jobs.parquet"), ",".join(PHASES), policy]
    proc = subprocess.run(cmd, env=env, cwd=str(out), capture_output=True, text=True)
    if proc.returncode != 0:
        return f"profile failed (exit {proc.returncode}): {proc.stderr[-1500:]}"
    return proc.stdout


@dataclass
class Side:
    """The runs of one simulator (or one vosim revision)."""

    label: str
    runs: list[dict] = field(default_factory=list)  # seconds, completed, peak_mb, note, ...
    error: str = ""

    @property
    def best(self) -> dict | None:
        return min(self.runs, key=lambda r: r["seconds"]) if self.runs else None

    @property
    def rate(self) -> float | None:
        best = self.best
        return best["completed"] / best["seconds"] if best and best["seconds"] > 0 else None

    @property
    def peak_mb(self) -> float | None:
        return max(r["peak_mb"] for r in self.runs) if self.runs else None


# -- AccaSim ----------------------------------------------------------------------------------
def accasim_waits(out: Path) -> tuple[int, float]:
    """Jobs and mean wait (s) in AccaSim's schedule files in ``out``: start_time - queue_time.

    A line is ``job_id;user;queue_time__assignations__start_time;end_time;...``, times as
    ``YYYY-MM-DD HH:MM:SS`` (AccaSim's SCHEDULE_OUTPUT format).
    """
    count, total = 0, 0.0
    for path in out.glob("sched-*"):
        with path.open() as fh:
            for line in fh:
                parts = line.split("__")
                if len(parts) < 3:
                    continue
                queued = datetime.fromisoformat(parts[0].split(";")[2])
                started = datetime.fromisoformat(parts[-1].split(";")[0])
                total += (started - queued).total_seconds()
                count += 1
    return count, (total / count if count else float("nan"))


def run_accasim(python: Path, tools: Path, swf: Path, out: Path, timeout: float | None) -> dict:
    """One AccaSim EASY run with per-job output into ``out`` (emptied first)."""
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    args = argparse.Namespace(accasim_no_output=False, timeout=timeout)
    s = side.run_accasim(python, tools, swf, SPEC, out, args, dispatcher="easy")
    written, mean_wait = accasim_waits(out)
    return dict(
        seconds=s["sim_s"],
        completed=s["finished"],
        jobs=s["loaded"],
        peak_mb=s["peak_mb"],
        mean_wait=mean_wait,
        process_s=s["wall_s"],
        note=(
            f"loaded {s['loaded']}, finished {s['finished']}, rejected {s['rejected']}, "
            f"{written} rows written; its loop timer {s['internal_sim_s']:.2f} s; process "
            f"{s['wall_s']:.1f} s, CPU {s['cpu_s']:.1f} s"
        ),
    )


# -- vosim ------------------------------------------------------------------------------------
def run_vosim(
    tree: Path, jobs: int | None, seed: int, out: Path, timeout: float | None, policy: str
) -> dict:
    """One vosim run of ``policy`` with the vosim in ``tree``, in a fresh interpreter.

    Writes ``out/jobs.parquet`` and reads back the completed jobs and their mean wait.
    """
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    parquet = out / "jobs.parquet"
    env = dict(os.environ, PYTHONPATH=str(tree))
    cmd = [sys.executable, "-c", _WORKER, "all" if jobs is None else str(jobs), str(seed)]
    cmd += [str(parquet), policy]
    try:  # cwd=out: `python -c` puts the cwd first on sys.path, ahead of PYTHONPATH
        proc, usage = run_child(cmd, env=env, cwd=str(out), timeout=timeout)
    except subprocess.TimeoutExpired as exc:
        last = [ln for ln in (exc.output or "").splitlines() if ln.startswith("PROGRESS ")]
        where = ""
        if last:
            elapsed, done, total = json.loads(last[-1][len("PROGRESS ") :])
            where = f"; {done}/{total} jobs done at its last progress report ({elapsed:.0f} s)"
        raise side.RunTimeout(f"timed out after {timeout:g} s{where}") from None
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("VOSIM ")]
    if not lines:
        raise RuntimeError(f"vosim failed (exit {proc.returncode}): {proc.stderr[-1500:]}")
    v = json.loads(lines[-1][len("VOSIM ") :])
    if not Path(v["vosim"]).resolve().is_relative_to(tree.resolve()):
        raise RuntimeError(f"imported {v['vosim']}, not the vosim in {tree}")
    frame = pd.read_parquet(parquet, columns=["job_id", "state", "waiting_time"])
    done = frame["state"].astype(str) == "completed"
    states = frame["state"].astype(str).value_counts()
    return dict(
        seconds=v["total_s"],
        completed=int(done.sum()),
        jobs=len(frame),
        peak_mb=usage.peak_mb,
        mean_wait=float(frame.loc[done, "waiting_time"].mean()),
        completed_ids=frame.loc[done, "job_id"].to_numpy(),
        parquet=parquet,
        build_s=v["build_s"],
        output_s=v["output_s"],
        events=v.get("events", 0),
        floor_s=v.get("floor_s", float("nan")),
        note=(
            f"build {v['build_s']:.2f} + run {v['run_s']:.2f} + parquet {v['output_s']:.2f} s; "
            f"{', '.join(f'{c} {s}' for s, c in states.items() if c)}; {v['passes']} passes; "
            f"CPU {v['cpu_s']:.1f} s"
        ),
    )


def run_vosim_command(
    tree: Path, jobs: int | None, seed: int, out: Path, timeout: float | None, policy: str
) -> dict:
    """The whole ``vosim run`` process of the vosim in ``tree``: EASY (``policy``) on the
    traced machine, event driven, every output file and the chart written to ``out``.

    What a user waits for (the issue's measure): start, imports, trace, simulation, outputs.
    Returns a :class:`Side` run (``seconds``, ``completed``, ``peak_mb``, ``note``).
    """
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    flags = ["run", "--trace", TRACE, "--policy", policy, "--machine", "--cycle-period", "0"]
    flags += ["--all-jobs"] if jobs is None else ["--jobs", str(jobs)]
    flags += ["--seed", str(seed), "--out", str(out), "--quiet"]
    r = run_command(tree, flags, out, timeout)
    return dict(
        seconds=r["s"],
        completed=r["completed"],
        peak_mb=r["peak_mb"],
        note=f"vosim {' '.join(flags[:-3])} ...; CPU {r['cpu_s']:.1f} s",
    )


def print_process_floor(acc: Side, args: argparse.Namespace, outputs: Path, n: int) -> None:
    """The whole command on one job beside AccaSim's whole process: what the target leaves.

    The one-job process pays everything but the simulation (interpreter start, imports, the
    build, every output file and the chart); AccaSim's whole process over it bounds the
    ratio of any simulation, and ``AccaSim / target - floor`` over ``n`` jobs is the time per
    job a simulation may take to meet the target.
    """
    try:
        r = run_vosim_command(
            ROOT, 1, args.seed, outputs / "vosim-floor", args.timeout, args.policy
        )  # fmt: skip
    except (RuntimeError, OSError, subprocess.SubprocessError) as exc:
        print(f"process floor: the one-job command failed: {exc}")
        return
    whole = acc.best["process_s"]
    target = TARGETS[args.policy]
    left = whole / target - r["seconds"]
    print(
        f"process floor: the whole command on 1 job takes {r['seconds']:.2f} s (start, imports, "
        f"build, outputs, chart); with a simulation of no cost the ratio would be "
        f"{whole / r['seconds']:.2f}. The target ({target:g}x AccaSim's {whole:.2f} s) leaves "
        f"{left:.2f} s for simulating {n:,} jobs ({left / n * 1e6:.0f} us a job)"
    )


def print_table(sides: list[Side], n: int) -> None:
    """One row per side: jobs, completed, seconds (its best run), completed/s, peak MiB."""
    w = max(len(s.label) for s in sides)
    head = (
        f"{'simulator':<{w}} {'jobs':>6} {'completed':>9} {'seconds':>9} {'completed/s':>11} "
        f"{'peak MiB':>8}  notes"
    )
    print(head)
    print("-" * len(head))
    for s in sides:
        b = s.best
        note = "; ".join(filter(None, [b["note"] if b else "", s.error]))
        print(
            f"{s.label:<{w}} {n:>6} {b['completed'] if b else '-':>9} "
            f"{side.fmt(b['seconds'] if b else None, 9, 2)} {side.fmt(s.rate, 11, 1)} "
            f"{side.fmt(s.peak_mb, 8, 1)}  {note}"
        )
    print()


def print_ratios(sides: list[Side], acc: Side, target: float) -> None:
    """Each vosim side's completed/s over AccaSim's, against ``target``."""
    for s in sides:
        if s.rate and acc.rate:
            ratio = s.rate / acc.rate
            verdict = "met" if ratio >= target else "not met"
            print(
                f"{s.label} / {acc.label}, jobs completed per second: {ratio:.2f} "
                f"(target >= {target:g}: {verdict})"
            )


def _git(*args: str, cwd: Path = ROOT) -> str:
    proc = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, timeout=300)
    if proc.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)}: {proc.stderr.strip()}")
    return proc.stdout.strip()


def same_records(a: Path, b: Path) -> str:
    """Whether two runs' ``jobs.parquet`` are identical (columns, values, order)."""
    try:
        x, y = pd.read_parquet(a), pd.read_parquet(b)
    except (OSError, ValueError) as exc:
        return f"not compared ({exc})"
    if list(x.columns) != list(y.columns):
        return "no (different columns)"
    if x.equals(y):
        return "yes"
    diff = [c for c in x.columns if not x[c].equals(y[c])]
    return f"no (columns that differ: {', '.join(diff)})"


# -- main -------------------------------------------------------------------------------------
def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=(
            "EASY backfilling on UniLu-Gaia-2014-2 (the whole trace, 51,987 jobs, by default), "
            "side by side in one run: AccaSim 1.1.3's EASY (per-job output on) and vosim's EASY "
            "on the traced machine, event driven (VOModel(machine=True, cycle_period=0, "
            "policy='easy'), run(), job_frame().to_parquet()), each in its own subprocess. "
            "Prints seconds, jobs completed per second and peak memory of each, the ratio "
            f"vosim / AccaSim (targets {TARGETS}) and a sanity line (completed share, mean "
            "wait beside the trace's recorded mean wait). Sets up AccaSim's Python 3.9 venv and "
            "its input trace under benchmarks/_work/ when missing."
        ),
        epilog="Run nothing else on the machine meanwhile: a second busy process slows both.",
    )
    parser.add_argument(
        "--jobs",
        type=side.jobs_arg,
        default=None,
        metavar="N",
        help="the first N jobs of the trace for both simulators, or 'all' (default: all, "
        "51,987 jobs)",
    )
    parser.add_argument(
        "--repeat",
        type=int,
        default=1,
        metavar="K",
        help="run each side K times, interleaved, and keep its fastest run (peak memory: the "
        "largest over the runs); default 1",
    )
    parser.add_argument(
        "--previous",
        metavar="REV",
        help="also measure vosim at git revision REV (any commit-ish: HEAD, HEAD~3, a hash) "
        "from a temporary git worktree, to compare before/after a change in the same run; "
        "'HEAD' compares the working tree's uncommitted vosim/ with the last commit",
    )
    parser.add_argument(
        "--previous-dir",
        metavar="DIR",
        type=Path,
        help="also measure the vosim package in DIR/vosim (e.g. made with 'git archive HEAD "
        "vosim | tar -x -C DIR'), like --previous but with no git worktree",
    )
    parser.add_argument(
        "--policy",
        choices=sorted(TARGETS),
        default="easy",
        help="vosim's policy on the traced machine (AccaSim runs EASY either way): easy "
        "(target >= 4x AccaSim's jobs/s) or conservative (target >= 1x); default easy",
    )
    parser.add_argument(
        "--command",
        action="store_true",
        help="also time each vosim side's whole 'vosim run --policy POLICY --machine "
        "--cycle-period 0' process (start, trace, simulation, every output file and the "
        "chart) against AccaSim's whole process: what a user waits for",
    )
    parser.add_argument(
        "--profile",
        action="store_true",
        help="after the timed runs, run vosim once more under cProfile (not timed) and print "
        "its phases and the functions of most own time",
    )
    side.add_shared_options(parser)
    args = parser.parse_args(argv)
    if args.previous and args.previous_dir:
        parser.error("give --previous or --previous-dir, not both")
    if args.previous_dir is not None and not (args.previous_dir / "vosim").is_dir():
        parser.error(f"--previous-dir {args.previous_dir}: no vosim/ folder in it")
    if args.repeat < 1:
        parser.error("--repeat must be >= 1")
    if args.timeout is not None and not args.timeout > 0:
        parser.error("--timeout must be > 0")
    work = args.work.resolve()
    outputs = work / "easy"

    previous = None
    if args.previous:
        try:
            sha = _git("rev-parse", "--verify", f"{args.previous}^{{commit}}")
        except (OSError, RuntimeError, subprocess.SubprocessError) as exc:
            parser.error(f"--previous {args.previous}: {exc}")
        named = "" if sha.startswith(args.previous.lower()) else f" {args.previous}"
        previous = Side(f"vosim {args.policy} {sha[:7]} (--previous{named})")
    elif args.previous_dir is not None:
        previous = Side(f"vosim {args.policy} in {args.previous_dir} (--previous-dir)")

    print(
        f"# {datetime.now(UTC):%Y-%m-%d %H:%M} UTC; {platform.node()}, {os.cpu_count()} CPUs, "
        f"load {os.getloadavg()[0]:.2f}; vosim {commit('vosim')}; Python "
        f"{platform.python_version()}; {TRACE}; best of {args.repeat}",
        flush=True,
    )
    swf, n, total = side.prepare_trace(SPEC, args.jobs, work)
    jobs = None if n == total else n
    print(f"# {n} of {total} jobs; AccaSim reads {swf}", flush=True)

    acc = Side("AccaSim 1.1.3 EASY")
    python = None
    if args.skip_accasim:
        acc.error = "skipped (--skip-accasim)"
    elif not (args.accasim_tools / "run_accasim.py").exists():
        acc.error = f"no run_accasim.py in {args.accasim_tools}"
    else:
        python, why = side.ensure_accasim(work / "accasim-venv")
        acc.error = why
    if acc.error:
        print(f"[accasim] not run: {acc.error}", flush=True)
    current = Side(f"vosim {args.policy} {commit('vosim')}")
    # with --command: each vosim side's whole `vosim run` process, beside AccaSim's
    commands = {id(current): Side(f"{current.label}, whole vosim run")}
    if previous is not None:
        commands[id(previous)] = Side(f"{previous.label}, whole vosim run")

    tmp = Path(tempfile.mkdtemp(prefix="bench-easy-"))
    tree = tmp / "previous" if args.previous_dir is None else args.previous_dir.resolve()
    try:
        if previous is not None and args.previous:
            try:
                _git("worktree", "add", "--detach", "--quiet", str(tree), sha)
            except (OSError, RuntimeError, subprocess.SubprocessError) as exc:
                previous.error = f"no worktree: {exc}"
                print(f"[vosim]   {previous.label}: {previous.error}", flush=True)
        for k in range(1, args.repeat + 1):
            if python is not None and not acc.error:
                print(f"[accasim] run {k}: EASY on {n} jobs ...", flush=True)
                try:
                    r = run_accasim(
                        python, args.accasim_tools, swf, outputs / "accasim", args.timeout
                    )
                    acc.runs.append(r)
                    print(f"[accasim] run {k}: {r['seconds']:.2f} s; {r['note']}", flush=True)
                except (RuntimeError, OSError, subprocess.SubprocessError) as exc:
                    acc.error = f"failed: {exc}"
                    print(f"[accasim] run {k}: {acc.error}", flush=True)
            for who, where, folder in [
                (current, ROOT, "vosim-current"),
                (previous, tree, "vosim-previous"),
            ]:
                if who is None or who.error:
                    continue
                print(f"[vosim]   run {k}: {who.label} on {n} jobs ...", flush=True)
                try:
                    r = run_vosim(
                        where, jobs, args.seed, outputs / folder, args.timeout, args.policy
                    )
                    who.runs.append(r)
                    print(f"[vosim]   run {k}: {r['seconds']:.2f} s; {r['note']}", flush=True)
                except (RuntimeError, OSError, subprocess.SubprocessError) as exc:
                    who.error = str(exc) if isinstance(exc, side.RunTimeout) else f"failed: {exc}"
                    print(f"[vosim]   run {k}: {who.label}: {who.error}", flush=True)
                whole = commands[id(who)]
                if not args.command or whole.error:
                    continue
                print(f"[vosim]   run {k}: {whole.label} ...", flush=True)
                try:
                    r = run_vosim_command(
                        where, jobs, args.seed, outputs / f"{folder}-command", args.timeout,
                        args.policy,
                    )  # fmt: skip
                    whole.runs.append(r)
                    print(f"[vosim]   run {k}: {r['seconds']:.2f} s", flush=True)
                except (RuntimeError, OSError, subprocess.SubprocessError) as exc:
                    whole.error = f"failed: {exc}"
                    print(f"[vosim]   run {k}: {whole.label}: {whole.error}", flush=True)
        if args.profile:
            print(f"[vosim]   profiling {current.label} on {n} jobs (not timed) ...", flush=True)
            report = profile_vosim(ROOT, jobs, args.seed, outputs / "vosim-profile", args.policy)
    finally:
        if previous is not None and args.previous and tree.exists():
            try:
                _git("worktree", "remove", "--force", str(tree))
            except (OSError, RuntimeError, subprocess.SubprocessError) as exc:
                print(f"[note] could not remove the worktree {tree}: {exc}", flush=True)
        shutil.rmtree(tmp, ignore_errors=True)

    sides = [s for s in (acc, current, previous) if s is not None]
    print()
    print_table(sides, n)
    print_ratios(sides[1:], acc, TARGETS[args.policy])
    if args.command:
        # the measure: whole processes (AccaSim's wall time of its whole process)
        process = Side(f"{acc.label}, whole process", error=acc.error)
        process.runs = [dict(r, seconds=r["process_s"]) for r in acc.runs]
        wholes = [commands[id(s)] for s in sides[1:]]
        print()
        print_table([process, *wholes], n)
        print_ratios(wholes, process, TARGETS[args.policy])
    if args.command and acc.best is not None and current.runs:
        print_process_floor(acc, args, outputs, n)
    b = current.best
    if b is not None and b["events"] > 0 and acc.best is not None:
        # What Mesa alone costs: the ratio no vosim work can beat with these events.
        least = b["floor_s"] + b["build_s"] + b["output_s"]
        print(
            f"Mesa floor: the run scheduled {b['events']:,} Mesa events; a bare Mesa model "
            f"runs as many no-op events in {b['floor_s']:.2f} s "
            f"({b['floor_s'] / b['events'] * 1e6:.1f} us each). With vosim's build "
            f"({b['build_s']:.2f} s) and parquet output ({b['output_s']:.2f} s), the best "
            f"ratio reachable with these events is {acc.best['seconds'] / least:.2f} "
            f"(AccaSim {acc.best['seconds']:.2f} s / {least:.2f} s)"
        )
    if previous is not None and current.rate and previous.rate:
        print(
            f"{current.label} / {previous.label}: {current.rate / previous.rate:.2f}x; same job "
            f"records: {same_records(current.best['parquet'], previous.best['parquet'])}"
        )
    for s in sides:
        if s.runs:
            print(f"peak memory, {s.label}: {s.peak_mb:.1f} MiB")

    # Sanity (not a target): vosim's waits beside the trace's recorded ones, same jobs.
    recorded = read_swf(trace_path(TRACE), jobs).set_index("job_id")["wait_time"]
    print()
    for s in sides[1:]:
        b = s.best
        if b is None:
            continue
        waits = recorded.reindex(b["completed_ids"])
        waits = waits[waits >= 0]
        print(
            f"sanity, {s.label}: completed {b['completed']} of {b['jobs']} "
            f"({b['completed'] / b['jobs']:.2%}); mean wait {b['mean_wait']:,.0f} s, the "
            f"trace's recorded mean wait over the same jobs {waits.mean():,.0f} s "
            f"({len(waits)} jobs with field 3 known)"
        )
    if acc.best is not None:
        print(
            f"sanity, {acc.label}: finished {acc.best['completed']} of {acc.best['jobs']}; mean "
            f"wait {acc.best['mean_wait']:,.0f} s (its EASY does not protect the head job's "
            "reservation: not a reference)"
        )
    print(f"per-job output of each side's latest run: {outputs}")
    if args.profile:
        print()
        print(f"profile of {current.label} (cProfile, one untimed run):")
        print(report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
