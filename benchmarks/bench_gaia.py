"""The whole UniLu-Gaia trace through vosim's VO scenario (AMP, or the default), beside AccaSim.

The target: all 51,987 jobs of UniLu-Gaia-2014-2 through the default VO scenario with
every user's window search set to AMP, per-job output written, at >= 2,700 jobs/s (AccaSim
1.1.3's speed with FIFO + first fit on this machine), peak memory reported, and a per-cycle
cost that does not grow with the number of finished jobs.

In one run the script

1. runs vosim in a fresh interpreter: ``VOModel(trace=UniLu-Gaia-2014-2, jobs=None,
   criterion_allocators=AMP for every criterion, rng=SEED)``, ``run()``, then writes
   ``jobs.parquet`` and ``cycles.parquet`` (the per-job and per-cycle output of ``vosim run``);
   it times every scheduling cycle (``MetaschedulerAgent.cycle``) and reports the child's
   peak resident memory (``ru_maxrss``, the warm-up run below included: its 2,000 jobs stay
   well under the whole run's peak);
   every 200 cycles it also times a fixed calibration workload (outside the cycles' timing
   and taken out of the run time), so the per-cycle cost can be put at one machine speed;
   before the timed run it runs the trace's first ``--warm-up`` jobs (default 2,000) in the
   same interpreter, untimed, so that loading the kernels from numba's cache and the lazy
   imports (~0.5-1 s, paid at a few of the first cycles) are not counted as the first
   tenth's cost per cycle; the seconds any cycle still spends in numba's
   ``Dispatcher.compile`` are recorded and printed (0 after the warm-up);
2. runs AccaSim 1.1.3 (FIFO, first fit, per-job output on) on the same trace through
   ``accasim_side_by_side.py``'s set-up, unless ``--skip-accasim``: first, or with
   ``--together`` at the same time as vosim;
3. runs the stationary control (unless ``--control 0``): the same jobs in a random order
   (from SEED), arrivals drawn uniform over ``--control`` (default 2) times the trace's
   span. On the trace as recorded the market's state changes over the run (a backlog of
   28,000 jobs, 7 then 125 distinct requests waiting, 640 then 3,100 busy intervals held by
   the owners), and a cycle's cost follows that state; the control keeps the job mix and
   holds the state near steady while 49,000 jobs finish (about 750 busy intervals, 60-75
   distinct requests waiting from the third tenth on), so a slope there is the cost's growth
   with the run's history alone. At 1.5x the VO is still saturated (the failed searches
   per cycle nearly treble over the run); from 2x on they settle;
4. prints jobs/s of both simulators, the ratios vosim / AccaSim and vosim / 2,700, and for
   each vosim run the per-cycle cost by tenths of the run ordered by finished jobs (mean and
   median ms, also at the median machine speed; the queue length, the jobs scheduled, the
   request classes that failed and those waiting, and the busy intervals per cycle), and
   least-squares slopes of the cost of cycles with jobs waiting against the number of
   finished jobs, as measured and at the median machine speed (:func:`flatness`; flat: near
   0 % of the mean over the whole run); it writes the per-cycle timings (CSV) and a chart
   of both runs (HTML, PNG with vl-convert) to ``--out``.

   With ``--repeat N`` the trace as recorded is timed N times (each in a fresh interpreter),
   and each run's last-tenth-over-first ratio is printed with their median.

    PYTHONPATH=. python benchmarks/bench_gaia.py                  # ~3 minutes + AccaSim
    PYTHONPATH=. python benchmarks/bench_gaia.py --jobs 10000 --skip-accasim --control 0
    PYTHONPATH=. python benchmarks/bench_gaia.py --allocator '' --control 0 --skip-accasim \\
        --repeat 5                                                # the per-cycle row, ~3 min
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._common import commit

HERE = Path(__file__).resolve().parent
#: The parts of a cycle ``--phases`` times (seconds inside each, per cycle): the re-planning
#: of unstarted reservations (compression, its slot list read included), the scheme's window
#: searches (``CyclicScheme.decide``), the decisions applied (binding, reservations, users'
#: evaluations: ``MetaschedulerAgent._apply``) and the slot list read (inside the first two).
PHASES = ["replanning", "searches", "applying", "slot_list"]
#: One row per cycle: jobs finished and waiting before it, its seconds, jobs it scheduled,
#: request classes whose screen or window search failed in it (each such class costs a
#: screen and maybe a search), request classes with jobs waiting before it, and the seconds
#: the latest calibration took (a fixed workload timed every 200 cycles: the machine's speed),
#: and the busy intervals (local jobs and VO reservations) all owners held before it.
COLUMNS = [
    "completed",
    "queue",
    "seconds",
    "scheduled",
    "failed",
    "classes",
    "calibration",
    "busy",
    "kernels",
    "loading",
    *PHASES,
]
TARGET = 2700.0  # jobs/s: AccaSim 1.1.3's speed with FIFO + first fit on this machine

_WORKER = r"""
import importlib, json, resource, sys, time
from pathlib import Path

kernel = {"kernels": 0.0}  # seconds in the compiled kernels since the cycle began
phase = dict.fromkeys(sys.argv[9].split(","), 0.0)  # PHASES, in the table's column order


def timer(f, spent, name):  # f, its seconds added to spent[name]
    def timed(*args, **kwargs):
        t = time.perf_counter()
        try:
            return f(*args, **kwargs)
        finally:
            spent[name] += time.perf_counter() - t
    return timed


if sys.argv[6] == "1":  # --kernels, before vosim's modules read any entry point
    from vosim.core import precompile

    for name in precompile.KERNEL_MODULES:
        module = importlib.import_module(name)
        for entry in precompile.declared(name):
            setattr(module, entry, timer(getattr(module, entry), kernel, "kernels"))

from numba.core.dispatcher import Dispatcher

from vosim.agents.metascheduler import MetaschedulerAgent
from vosim.model import VOModel

if sys.argv[8] == "1":  # --phases: each part of a cycle timed (seconds since it began)
    import vosim.policies.replan as replan_module
    from vosim.market.slot_cache import SlotListCache
    from vosim.policies.cyclic_scheme import CyclicScheme

    replan_module.compress = timer(replan_module.compress, phase, "replanning")
    CyclicScheme.decide = timer(CyclicScheme.decide, phase, "searches")
    MetaschedulerAgent._apply = timer(MetaschedulerAgent._apply, phase, "applying")
    SlotListCache.slots = timer(SlotListCache.slots, phase, "slot_list")

import numpy as np

loading = [0.0, 0]  # seconds numba spent loading or compiling since the cycle began; depth
compile_kernel = Dispatcher.compile


def timed_compile(self, sig):  # a kernel's first call with these types: cache load or compile
    loading[1] += 1
    t = time.perf_counter()
    try:
        return compile_kernel(self, sig)
    finally:
        loading[1] -= 1
        if loading[1] == 0:  # the outermost only: a kernel compiles its callees inside
            loading[0] += time.perf_counter() - t


Dispatcher.compile = timed_compile

jobs = None if sys.argv[1] == "all" else int(sys.argv[1])
seed, out, stretch = int(sys.argv[2]), Path(sys.argv[3]), float(sys.argv[4])
allocator = sys.argv[5]  # "": each criterion's own search (the default scenario)
warm = int(sys.argv[7])  # jobs of the untimed warm-up run (0: none)
gaia = "UniLu-Gaia-2014-2"  # the trace; the warm-up runs its first jobs
trace = gaia
if stretch:  # the stationary control: the trace's jobs shuffled, arrivals spread evenly
    from vosim.data import trace_path
    from vosim.market.swf import read_swf

    frame = read_swf(trace_path(trace), jobs)
    rng = np.random.default_rng(seed)
    frame = frame.iloc[rng.permutation(len(frame))].reset_index(drop=True)
    span = stretch * (frame["submit_time"].max() - frame["submit_time"].min())
    frame["submit_time"] = np.sort(rng.uniform(0.0, span, len(frame))).round()
    frame["job_id"] = np.arange(1, len(frame) + 1)
    frame.attrs["path"] = f"{trace}, shuffled, arrivals uniform over {stretch:g}x its span"
    trace, jobs = frame, None
rows = []
cycle = MetaschedulerAgent.cycle
EVERY = 200  # cycles between two calibrations
speed = [0.0]  # seconds of the latest calibration
spent = [0.0]  # seconds spent calibrating (taken out of the run time)
values = np.arange(600, dtype=float)[::-1].copy()
nodes = np.arange(600) % 151


def calibrate():
    # a fixed mix of small numpy calls and Python, like a cycle's: its median time of 3
    t0 = time.perf_counter()
    times = []
    for _ in range(3):
        t = time.perf_counter()
        for k in range(40):
            order = np.argsort(values, kind="stable")
            np.searchsorted(values[order], 300.0 + k)
            np.flatnonzero(nodes == k)
            sorted(range(40), key=lambda x: -x)
        times.append(time.perf_counter() - t)
    speed[0] = sorted(times)[1]
    spent[0] += time.perf_counter() - t0


def timed(self):
    if self.cycles % EVERY == 0:
        calibrate()
    done, queue = self.model.ledger.completed, self.queue_length
    classes = getattr(self.scheduler, "classes", None)  # the cyclic scheme's request classes
    waiting = 0 if classes is None else int((classes.count > 0).sum())
    loading[0] = 0.0
    for spent in (kernel, phase):
        for name in spent:
            spent[name] = 0.0
    t = time.perf_counter()
    cycle(self)
    dt = time.perf_counter() - t
    failed = 0 if classes is None else int((classes.stamp == self.cycles).sum())
    busy = self.model.busy_time.rows
    rows.append(
        (done, queue, dt, self.last_scheduled, failed, waiting, speed[0], busy, kernel["kernels"],
         loading[0], *phase.values())
    )


searches = dict.fromkeys(("finish", "runtime", "cost"), allocator) if allocator else {}
if warm:  # loads the kernels and modules the run uses, so that no cycle below pays for it
    VOModel(trace=gaia, jobs=warm, rng=seed, **(
        {"criterion_allocators": searches} if searches else {})).run()
MetaschedulerAgent.cycle = timed
calibrate()  # warm up: the recorded calibrations are taken every EVERY cycles of the run
spent[0] = 0.0
t0 = time.perf_counter()
model = VOModel(trace=trace, jobs=jobs, rng=seed, **(
    {"criterion_allocators": searches} if searches else {}))
t1 = time.perf_counter()
model.run()
t2 = time.perf_counter()
model.job_frame().to_parquet(out / "jobs.parquet")
model.cycle_frame().to_parquet(out / "cycles.parquet")
t3 = time.perf_counter()
with (out / "cycle_times.json").open("w") as fh:
    json.dump(rows, fh)
states = model.job_frame()["state"].value_counts()
print("VOSIM " + json.dumps(dict(
    jobs=len(model.jobs), build_s=t1 - t0, run_s=t2 - t1 - spent[0], output_s=t3 - t2,
    total_s=t3 - t0 - spent[0], calibration_s=spent[0],
    cycles=model.metascheduler.cycles,
    peak_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    states={str(k): int(v) for k, v in states.items()})), flush=True)
"""


def run_vosim(
    jobs: str,
    seed: int,
    out: Path,
    stretch: float = 0.0,
    allocator: str = "amp",
    kernels: bool = False,
    warm: int = 0,
    phases: bool = False,
) -> dict:
    """One vosim run in a fresh interpreter (imports not timed); returns its VOSIM dict.

    ``allocator``: every user's window search (``""``: each criterion's own, the default
    scenario). ``kernels``: every declared entry point of every kernel module
    (``vosim.core.precompile.KERNEL_MODULES``) wrapped with a timer, each cycle's seconds
    inside them recorded (the ``kernels`` column; 0 without it). ``warm``: jobs of an untimed
    run of the trace's first jobs, same scenario and seed, in the same interpreter before the
    timed one, so that the timed cycles do not pay the kernels' loading from numba's cache and
    the lazy imports (0: none). Every cycle's seconds inside numba's ``Dispatcher.compile``
    (a load or a compilation) are recorded either way (the ``loading`` column). ``phases``:
    each cycle's seconds in each of :data:`PHASES` (0 without it).

    ``stretch`` > 0: the stationary control instead of the trace as recorded (its jobs in a
    random order drawn from ``seed``, arrivals uniform over ``stretch`` times its span).
    """
    env = dict(os.environ, PYTHONPATH=str(HERE.parent))
    flags = ("1" if kernels else "0", str(warm), "1" if phases else "0", ",".join(PHASES))
    argv = (jobs, str(seed), str(out), str(stretch), allocator, *flags)
    proc = subprocess.run(
        [sys.executable, "-c", _WORKER, *argv],
        capture_output=True,
        text=True,
        env=env,
    )
    for line in proc.stdout.splitlines():
        if line.startswith("VOSIM "):
            return json.loads(line[len("VOSIM ") :])
    raise RuntimeError(f"vosim failed (exit {proc.returncode}): {proc.stderr[-2000:]}")


def run_accasim_gaia(jobs: str, work: Path) -> dict | str:
    """AccaSim FIFO on the same jobs: its SUMMARY dict, or why it could not run."""
    import benchmarks.accasim_side_by_side as side

    tools = side.DEFAULT_TOOLS
    if not (tools / "run_accasim.py").exists():
        return f"no run_accasim.py in {tools}"
    python, why = side.ensure_accasim(work / "accasim-venv")
    if python is None:
        return why
    spec = side.TRACES["gaia"]
    swf, n, _ = side.prepare_trace(spec, None if jobs == "all" else int(jobs), work)
    args = argparse.Namespace(accasim_no_output=False, timeout=None)
    with tempfile.TemporaryDirectory() as tmp:
        summary = side.run_accasim(python, tools, swf, spec, Path(tmp), args)
    summary["jobs"] = n
    return summary


def cycle_table(rows: list, parts: int = 10) -> pd.DataFrame:
    """Per-cycle cost by tenths of the run ordered by finished jobs (cycles kept in order).

    With the kernels timed (``--kernels``) two more columns: ``kernel_ms``, the mean ms a
    cycle spent inside the compiled kernels, and ``rest_ms``, the rest of ``mean_ms``. With
    the phases timed (``--phases``) one more per phase of :data:`PHASES`, ``<phase>_ms``.
    """
    df = pd.DataFrame(rows, columns=COLUMNS)
    df["calibrated"] = calibrated(df)
    df["part"] = part_of(len(df), parts)
    kernels = {}
    if df["kernels"].any():
        df["rest"] = df["seconds"] - df["kernels"]
        kernels = {
            "kernel_ms": ("kernels", lambda s: 1000 * s.mean()),
            "rest_ms": ("rest", lambda s: 1000 * s.mean()),
        }
    for name in PHASES:
        if df[name].any():
            kernels[f"{name}_ms"] = (name, lambda s: 1000 * s.mean())
    return df.groupby("part").agg(
        completed_from=("completed", "min"),
        completed_to=("completed", "max"),
        queue=("queue", "mean"),
        scheduled=("scheduled", "mean"),
        failed=("failed", "mean"),
        classes=("classes", "mean"),
        mean_ms=("seconds", lambda s: 1000 * s.mean()),
        median_ms=("seconds", lambda s: 1000 * s.median()),
        calibrated_ms=("calibrated", lambda s: 1000 * s.mean()),
        busy=("busy", "mean"),
        **kernels,
    )


def part_of(count: int, parts: int = 10) -> np.ndarray:
    """The part (of ``parts`` equal ones, in order) each of a run's ``count`` cycles is in.

    Returns int64, shape (count,). Raises nothing.
    """
    return np.minimum(np.arange(count) * parts // max(count, 1), parts - 1)


def calibrated(df: pd.DataFrame) -> pd.Series:
    """Each cycle's seconds at the run's median machine speed (shape like ``df``).

    A shared machine's speed drifts during a run (up to 1.7x within an hour here): a cycle's
    seconds are scaled by the median calibration time over the latest calibration's.
    """
    return df["seconds"] * df["calibration"].median() / df["calibration"]


def flatness(df: pd.DataFrame, seconds: pd.Series) -> list[str]:
    """How the cost of a cycle with jobs waiting moves with the number of finished jobs.

    ``seconds``: each cycle's cost (raw or :func:`calibrated`). Three least-squares slopes
    (ms per 10,000 finished jobs, and as a share of the mean over the whole run): plain; over
    the cycles that scheduled nothing (the cost of waiting jobs alone); and at equal work per
    cycle, with the jobs it scheduled, the request classes that failed in it and the jobs
    completed since the previous cycle (each frees time to re-check) as regressors. The last
    answers whether a cycle gets dearer as the run goes on for the same work. On the trace as
    recorded the market's state also changes over the run (the queue, the request classes
    waiting, the busy intervals a cycle reads): the stationary control of :func:`main` holds
    it steady, so its plain slope is the cost's dependence on the run's history alone.
    """
    df = df.assign(released=df["completed"].diff().fillna(df["completed"].iloc[0]))
    waiting = df["queue"] > 0  # cycles with jobs waiting (an empty queue costs ~nothing)
    df, ms = df[waiting], 1000 * seconds[waiting]
    done = df["completed"]
    span = done.max() / 10_000

    def line(label: str, slope: float, mean: float, count: int) -> str:
        return (
            f"  {label}: {count} cycles, mean {mean:.2f} ms; slope {slope * 10_000:+.3f} ms "
            f"per 10,000 finished jobs ({slope * 10_000 * span / mean:+.0%} of the mean over "
            "the run)"
        )

    plain = np.polyfit(done, ms, 1)[0]
    idle = df["scheduled"] == 0
    idle_slope = np.polyfit(done[idle], ms[idle], 1)[0] if idle.sum() > 1 else np.nan
    design = np.column_stack(
        [np.ones(len(df)), df["scheduled"], df["failed"], df["released"], done]
    )
    *costs, at_equal_work = np.linalg.lstsq(design, ms, rcond=None)[0][1:]
    per = ", ".join(
        f"{c:.2f} ms per {w}"
        for w, c in zip(("job scheduled", "class failed", "job completed"), costs, strict=True)
    )
    return [
        line("plain", plain, ms.mean(), len(df)),
        line("cycles that scheduled nothing", idle_slope, ms[idle].mean(), int(idle.sum())),
        line(f"at equal work per cycle ({per})", at_equal_work, ms.mean(), len(df)),
    ]


def chart(runs: dict[str, list], out: Path) -> list[str]:
    """Per-cycle cost (rolling mean over 500 cycles) vs finished jobs; returns files written.

    ``runs``: per-cycle rows (:data:`COLUMNS`) by run label; one line per run and speed.
    """
    import altair as alt

    series = ["as measured", "at the median machine speed"]
    frames = []
    for label, rows in runs.items():
        df = pd.DataFrame(rows, columns=COLUMNS).assign(run=label)
        df[series[0]] = 1000 * df["seconds"].rolling(500, min_periods=100).mean()
        df[series[1]] = 1000 * calibrated(df).rolling(500, min_periods=100).mean()
        frames.append(df.iloc[:: max(1, len(df) // 1000)])  # < 2,000 rows per run
    base = alt.Chart(pd.concat(frames)).encode(
        x=alt.X("completed:Q", title="jobs finished"), color=alt.Color("run:N", title="run")
    )
    cost = (
        base.transform_fold(series, as_=["series", "ms"])
        .mark_line()
        .encode(
            y=alt.Y("ms:Q", title="ms per cycle (mean of 500)"),
            strokeDash=alt.StrokeDash("series:N", title="speed"),
        )
    )
    queue = base.mark_line().encode(y=alt.Y("queue:Q", title="jobs waiting"))
    figure = alt.vconcat(
        cost.properties(width=600, height=180, title="per-cycle cost over the run"),
        queue.properties(width=600, height=120),
    )
    written = [out / "gaia_cycle_cost.html"]
    figure.save(written[0])
    try:
        import vl_convert as vlc

        png = out / "gaia_cycle_cost.png"
        png.write_bytes(vlc.vegalite_to_png(figure.to_json(), scale=2))
        written.append(png)
    except ImportError:
        pass
    return [str(p) for p in written]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs", default="all", help="first N jobs, or 'all' (default)")
    parser.add_argument("--seed", type=int, default=1, help="vosim's seed (default 1)")
    parser.add_argument("--skip-accasim", action="store_true", help="measure vosim only")
    parser.add_argument(
        "--allocator",
        default="amp",
        help="every user's window search (default amp, the target's scenario); '' keeps each "
        "criterion's own: the default scenario",
    )
    parser.add_argument(
        "--together",
        action="store_true",
        help="run AccaSim and vosim at the same time, one core each (default: AccaSim, then "
        "vosim; on this 2-CPU VM running both at once slows each down ~1.5x)",
    )
    parser.add_argument(
        "--control",
        type=float,
        default=2.0,
        metavar="STRETCH",
        help="after the trace, run the stationary control: the same jobs in a random order, "
        "arrivals uniform over STRETCH times the trace's span (default 2; 0: skip)",
    )
    parser.add_argument(
        "--kernels",
        action="store_true",
        help="also time the compiled kernels inside each cycle (every declared entry point "
        "wrapped with a timer, ~1 us a call): the per-cycle table gains the kernels' ms and "
        "the rest's, so the cost a cycle with no Python between its kernels would have",
    )
    parser.add_argument(
        "--phases",
        action="store_true",
        help="also time the parts of each cycle (re-planning, the scheme's searches, the "
        "decisions applied, the slot list read; one timer each): the per-cycle table gains "
        "their ms, to see which part grows from the first tenth to the last",
    )
    parser.add_argument(
        "--warm-up",
        type=int,
        default=2000,
        metavar="JOBS",
        help="before each timed run, an untimed run of the trace's first JOBS jobs in the same "
        "interpreter (default 2000; 0: none), so that loading the kernels from numba's cache "
        "(~1 s at the first cycles) is not counted as the first tenth's cycle cost",
    )
    parser.add_argument(
        "--repeat",
        type=int,
        default=1,
        metavar="N",
        help="time the trace as recorded N times, each in a fresh interpreter (default 1): "
        "the first run's tables as before, then each run's last-tenth-over-first ratio and "
        "their median (one run's ratio moves by ~0.7x from run to run on this VM)",
    )
    parser.add_argument(
        "--out", type=Path, default=HERE / "_work" / "gaia", help="folder for outputs"
    )
    args = parser.parse_args(argv)
    if args.jobs != "all" and not args.jobs.isdigit():
        parser.error(f"--jobs must be a positive integer or 'all', got {args.jobs!r}")
    if args.warm_up < 0:
        parser.error(f"--warm-up must be 0 (none) or a number of jobs, got {args.warm_up}")
    if args.repeat < 1:
        parser.error(f"--repeat must be a number of runs >= 1, got {args.repeat}")
    if not args.control >= 0:
        parser.error(f"--control must be 0 (skip) or a stretch > 0, got {args.control!r}")
    args.out.mkdir(parents=True, exist_ok=True)
    print(
        f"# {datetime.now(UTC):%Y-%m-%d %H:%M} UTC; {platform.node()}, {os.cpu_count()} CPUs, "
        f"load {os.getloadavg()[0]:.2f}; vosim {commit('vosim')}; Python "
        f"{platform.python_version()}",
        flush=True,
    )
    with tempfile.TemporaryDirectory() as tmp, ThreadPoolExecutor(2) as pool:
        # --together: both simulators at once (one core each), so both see the same state
        work = HERE / "_work"
        peer = None if args.skip_accasim else pool.submit(run_accasim_gaia, args.jobs, work)
        if not args.together and peer is not None:
            peer.result()
        repeats, summaries = [], []
        for _ in range(args.repeat):
            summaries.append(run_vosim(
                args.jobs, args.seed, Path(tmp), allocator=args.allocator,
                kernels=args.kernels, warm=args.warm_up, phases=args.phases,
            ))  # fmt: skip
            repeats.append(json.loads((Path(tmp) / "cycle_times.json").read_text()))
        v, rows = summaries[0], repeats[0]
        a = None if peer is None else peer.result()
        if args.control:
            c = run_vosim(
                args.jobs, args.seed, Path(tmp), args.control, args.allocator, args.kernels,
                args.warm_up, args.phases,
            )  # fmt: skip
            control = json.loads((Path(tmp) / "cycle_times.json").read_text())
    rate = v["jobs"] / v["total_s"]
    print(
        f"vosim  : {v['jobs']} jobs in {v['total_s']:.1f} s (build {v['build_s']:.1f}, run "
        f"{v['run_s']:.1f}, per-job + per-cycle output {v['output_s']:.1f}) = {rate:,.0f} "
        f"jobs/s; {v['cycles']} cycles; peak memory {v['peak_mb']:.0f} MiB; {v['states']}"
    )
    if args.warm_up:
        print(f"         (after an untimed warm-up run of the first {args.warm_up} jobs)")
    print(f"target : {TARGET:,.0f} jobs/s -> vosim / target = {rate / TARGET:.2f}")
    if a is not None:
        if isinstance(a, str):
            print(f"accasim: not run ({a})")
        else:
            a_rate = a["jobs"] / a["sim_s"]
            print(
                f"accasim: {a['jobs']} jobs in {a['sim_s']:.1f} s (its own loop timer "
                f"{a['internal_sim_s']:.1f} s) = {a_rate:,.0f} jobs/s -> vosim / AccaSim = "
                f"{rate / a_rate:.2f} ({rate * a['internal_sim_s'] / a['jobs']:.2f} against "
                "its loop timer)"
            )
    runs = {"UniLu-Gaia as recorded": rows}
    print_cost(rows)
    if args.repeat > 1:
        print_repeats(repeats)
    if args.control:
        runs[f"stationary control ({args.control:g}x span)"] = control
        print(
            f"\nstationary control: the same {c['jobs']} jobs in a random order, arrivals "
            f"uniform over {args.control:g}x the trace's span: {c['cycles']} cycles in "
            f"{c['run_s']:.1f} s; {c['states']}"
        )
        print_cost(control)
    written = []
    for label, part in runs.items():
        name = "gaia_cycle_times.csv" if label == next(iter(runs)) else "control_cycle_times.csv"
        pd.DataFrame(part, columns=COLUMNS).to_csv(args.out / name, index=False)
        written.append(str(args.out / name))
    print("wrote", ", ".join([*written, *chart(runs, args.out)]))
    return 0


def tenth_ratios(rows: list) -> tuple[float, float, float, float]:
    """One run's first and last tenth's mean ms a cycle, their ratio, and the calibrated one.

    ``rows``: the run's per-cycle rows (:data:`COLUMNS`, seconds). Returns ``(first, last,
    ratio, calibrated_ratio)``: ms a cycle, ms a cycle, and the two ratios (last tenth over
    first; the calibrated one at the run's median machine speed, :func:`calibrated`).
    Raises ``IndexError`` for a run with no cycle.
    """
    table = cycle_table(rows)
    first, last = table["mean_ms"].iloc[0], table["mean_ms"].iloc[-1]
    calibrated_ratio = table["calibrated_ms"].iloc[-1] / table["calibrated_ms"].iloc[0]
    return first, last, last / first, calibrated_ratio


def print_repeats(repeats: list[list]) -> None:
    """Print each run's last-tenth-over-first ratio (the per-cycle row) and their median."""
    print(f"\nthe per-cycle row over {len(repeats)} runs of the trace as recorded:")
    ratios = [tenth_ratios(rows) for rows in repeats]
    for k, (first, last, ratio, calibrated_ratio) in enumerate(ratios, start=1):
        print(
            f"  run {k}: {first:.2f} -> {last:.2f} ms, {ratio:.2f}x ({calibrated_ratio:.2f}x at "
            "the run's median machine speed)"
        )
    median = np.median([r[2] for r in ratios])
    median_calibrated = np.median([r[3] for r in ratios])
    print(f"  median: {median:.2f}x ({median_calibrated:.2f}x at the runs' median machine speed)")


def print_cost(rows: list) -> None:
    """Print the per-cycle cost of one run by tenths and its :func:`flatness` slopes."""
    print("\nper-cycle cost by tenths of the run (cycles in time order):")
    table = cycle_table(rows)
    print(table.to_string(float_format=lambda x: f"{x:,.2f}"))
    ratios = [
        f"{label} {table[column].iloc[-1] / table[column].iloc[0]:.2f}x"
        for label, column in (
            ("mean", "mean_ms"),
            ("at the median machine speed", "calibrated_ms"),
            ("the kernels", "kernel_ms"),
            ("the rest", "rest_ms"),
            *((name.replace("_", " "), f"{name}_ms") for name in PHASES),
        )
        if column in table
    ]
    print("last tenth over the first: " + ", ".join(ratios))
    df = pd.DataFrame(rows, columns=COLUMNS)
    first = part_of(len(df)) == 0  # cycle_table's first tenth
    print(
        f"numba loading or compiling inside the cycles: {df['loading'].sum():.2f} s, of which "
        f"{df['loading'][first].sum():.2f} s in the first tenth; its slowest cycles "
        + ", ".join(f"{1000 * x:.1f}" for x in df["seconds"][first].nlargest(3))
        + " ms"
    )
    print("cycles with jobs waiting, cost against jobs finished:")
    print("\n".join(flatness(df, df["seconds"])))
    drift = df["calibration"].max() / df["calibration"].min()
    print(f"the same at the run's median machine speed (calibration spread {drift:.2f}x):")
    print("\n".join(flatness(df, calibrated(df))))


if __name__ == "__main__":
    raise SystemExit(main())
