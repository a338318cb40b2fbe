"""Simulation speed of vosim beside AccaSim 1.1.3, the peer HPC simulator, in one run.

One command does everything, so both simulators are measured on the same machine at the same
time (machines drift; compare within a run, not across runs):

1. prepares AccaSim: a Python 3.9 venv in ``benchmarks/_work/accasim-venv`` (git-ignored)
   made with pyenv's ``python3.9`` (``PYENV_VERSION=3.9.18``) and ``pip install accasim==1.1.3``,
   unless it already imports there (AccaSim only imports on Python <= 3.9);
2. prepares the traces under ``benchmarks/_work/traces``: the bundled UniLu-Gaia-2014-2 with its
   memory fields (SWF fields 7 and 10) blanked to -1, because AccaSim derives the resource types
   from the first job and Gaia's later jobs lack memory data; NASA-iPSC-1993-3.1-cln as is;
   then a prefix file with the header and the first N jobs of each (instead of AccaSim's
   ``max_lines``, which counts header lines too);
3. runs AccaSim's FIFO dispatcher with first-fit allocation on that prefix in a subprocess
   (``/work/shared/tools/accasim/run_accasim.py`` and its ``*.config``) and reads the
   ``SUMMARY`` line; the time taken is its ``sim_s`` (the simulation loop, which also reads
   the trace and, by default, writes its per-job schedule file; imports excluded);
4. runs vosim's ``VOModel(trace=..., jobs=N, rng=seed)`` in a subprocess of this interpreter
   and times building the model, ``run()`` and ``job_frame()`` (imports excluded);
5. prints a table: simulator, trace, jobs, seconds, jobs/s, and the ratio of vosim's to
   AccaSim's jobs per second.

If AccaSim cannot be installed or run, the reason is printed and vosim's figures are still
reported. ``--repeat k`` keeps the best of k runs of each simulator.

The two simulators do different work, so the ratio compares throughput, not like for like:

* AccaSim replays the trace on the traced machine (processors as resources) with FIFO and first
  fit: one dispatch decision per job, on a dedicated system;
* vosim co-allocates, every 300 s scheduling cycle, a window of ``n`` concurrent slots on
  heterogeneous, priced nodes that also run the owners' local load (10-50 %), with the AEP
  criteria (AMP or minCost, by the user's criterion) and a budget per job; a job that finds no
  window waits and is searched again in every later cycle, so vosim's time grows with the
  number of waiting jobs and the number of cycles, not only with N.

Jobs per second is N (jobs in the prefix) over the measured seconds for both, whatever becomes
of the jobs (the table's last column says how many finished, or were rejected or left
unfinished at vosim's horizon).

Examples::

    PYTHONPATH=. python benchmarks/accasim_side_by_side.py             # Gaia 10000 + all NASA
    PYTHONPATH=. python benchmarks/accasim_side_by_side.py --trace nasa --jobs 2000 5000
    PYTHONPATH=. python benchmarks/accasim_side_by_side.py --jobs 2000 --repeat 3
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import platform
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
WORK = HERE / "_work"
ACCASIM_VERSION = "1.1.3"
PYENV_PYTHON = "3.9.18"
DEFAULT_TOOLS = Path(os.environ.get("VOSIM_ACCASIM_TOOLS", "/work/shared/tools/accasim"))

sys.path.insert(0, str(ROOT))

from benchmarks._common import run_child  # noqa: E402
from vosim.data import trace_path  # noqa: E402


@dataclass(frozen=True)
class TraceSpec:
    name: str  # bundled vosim trace
    config: str  # AccaSim system config beside run_accasim.py
    default_jobs: int | None  # None: the whole trace
    blank_memory: bool  # blank SWF fields 7 and 10 for AccaSim


TRACES = {
    "gaia": TraceSpec("UniLu-Gaia-2014-2", "unilu_gaia.config", 10_000, True),
    "nasa": TraceSpec("NASA-iPSC-1993-3.1-cln", "nasa.config", None, False),
}


@dataclass
class Result:
    simulator: str
    trace: str
    jobs: int
    seconds: float | None = None
    note: str = ""
    runs: list[float] = field(default_factory=list)
    internal: list[float] = field(default_factory=list)  # AccaSim's own simulation timer
    timed_out: bool = False  # seconds is then a lower bound (the timeout), rate an upper one

    @property
    def rate(self) -> float | None:
        return self.jobs / self.seconds if self.seconds else None

    @property
    def internal_rate(self) -> float | None:
        return self.jobs / min(self.internal) if self.internal else None


class RunTimeout(RuntimeError):
    """A run exceeded ``--timeout``."""


# -- AccaSim venv -----------------------------------------------------------------------------
def _tail(text: str, lines: int = 6) -> str:
    return " | ".join(line.strip() for line in text.strip().splitlines()[-lines:])


def _imports_accasim(python: Path) -> bool:
    if not python.exists():
        return False
    probe = subprocess.run(
        [str(python), "-c", "import accasim.base.simulator_class"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    return probe.returncode == 0


def ensure_accasim(venv: Path) -> tuple[Path | None, str]:
    """Return (python of a venv where AccaSim imports, "") or (None, why not)."""
    python = venv / "bin" / "python"
    try:
        if _imports_accasim(python):
            return python, ""
        base = shutil.which("python3.9")
        if base is None:
            return None, "no python3.9 on PATH (AccaSim needs Python 3.9; install it with pyenv)"
        env = dict(os.environ, PYENV_VERSION=PYENV_PYTHON)
        if venv.exists():
            shutil.rmtree(venv)
        venv.parent.mkdir(parents=True, exist_ok=True)
        print(f"[setup] creating {venv} with python3.9 (PYENV_VERSION={PYENV_PYTHON})", flush=True)
        made = subprocess.run(
            [base, "-m", "venv", str(venv)], env=env, capture_output=True, text=True, timeout=600
        )
        if made.returncode != 0:
            return None, f"python3.9 -m venv failed: {_tail(made.stderr or made.stdout)}"
        print(f"[setup] pip install accasim=={ACCASIM_VERSION} (takes a minute or two)", flush=True)
        pip = subprocess.run(
            [str(python), "-m", "pip", "install", "-q", f"accasim=={ACCASIM_VERSION}"],
            capture_output=True,
            text=True,
            timeout=1800,
        )
        if pip.returncode != 0:
            return None, f"pip install accasim failed: {_tail(pip.stderr or pip.stdout)}"
        if not _imports_accasim(python):
            return None, f"accasim installed in {venv} but does not import"
        return python, ""
    except (OSError, subprocess.SubprocessError) as exc:
        return None, f"AccaSim setup failed: {exc}"


# -- traces -----------------------------------------------------------------------------------
def _blank_memory(line: str) -> str:
    """The README's awk: fields 7 and 10 set to -1, fields joined by one space."""
    fields = line.split()
    if len(fields) >= 10:
        fields[6] = "-1"
        fields[9] = "-1"
    return " ".join(fields)


def prepare_trace(spec: TraceSpec, jobs: int | None, work: Path) -> tuple[Path, int, int]:
    """Write AccaSim's input: header + first ``jobs`` job lines. Returns (path, jobs, total)."""
    folder = work / "traces"
    folder.mkdir(parents=True, exist_ok=True)
    full = folder / (spec.name + (".nomem" if spec.blank_memory else "") + ".swf")
    if not full.exists():
        tmp = full.with_suffix(".tmp")
        with gzip.open(trace_path(spec.name), "rt") as src, tmp.open("w") as dst:
            for raw in src:
                line = raw.rstrip("\n")
                if line.startswith(";") or not line.strip() or not spec.blank_memory:
                    dst.write(line + "\n")
                else:
                    dst.write(_blank_memory(line) + "\n")
        tmp.replace(full)
    header, body = [], []
    with full.open() as fh:
        for line in fh:
            if line.startswith(";"):
                if not body:  # the header; later comment lines are dropped
                    header.append(line)
            elif line.strip():
                body.append(line)
    total = len(body)
    n = total if jobs is None else min(jobs, total)
    if n == total:
        return full, n, total
    prefix = folder / f"{full.stem}.first{n}.swf"
    if not prefix.exists():
        prefix.write_text("".join(header + body[:n]))
    return prefix, n, total


# -- runs -------------------------------------------------------------------------------------
def run_accasim(
    python: Path, tools: Path, swf: Path, spec: TraceSpec, out: Path, args, dispatcher="fifo"
) -> dict:
    """One AccaSim run (``dispatcher`` "fifo" or "easy", first fit) writing into ``out``.

    Returns its SUMMARY dict plus the subprocess's wall time (``wall_s``), CPU time
    (``cpu_s``) and peak resident memory (``peak_mb``).
    """
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    if args.accasim_no_output:
        env["ACCASIM_NO_OUTPUT"] = "1"
    cmd = [str(python), str(tools / "run_accasim.py"), str(swf), str(tools / spec.config)]
    cmd += [dispatcher, str(out)]
    t0 = time.perf_counter()
    proc, usage = run_child(cmd, env=env, cwd=str(out), timeout=args.timeout)
    wall = time.perf_counter() - t0
    for line in proc.stdout.splitlines():
        if line.startswith("SUMMARY "):
            summary = json.loads(line[len("SUMMARY ") :])
            summary["wall_s"] = wall
            summary["cpu_s"] = usage.cpu_s
            summary["peak_mb"] = usage.peak_mb
            return summary
    raise RuntimeError(
        f"no SUMMARY line (exit {proc.returncode}): {_tail(proc.stderr or proc.stdout)}"
    )


_VOSIM_WORKER = r"""
import json, sys, time
from vosim.model import VOModel
name, jobs, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
t0, c0 = time.perf_counter(), time.process_time()
def progress(done, total):
    print("PROGRESS " + json.dumps([time.perf_counter() - t0, done, total]), flush=True)
model = VOModel(trace=name, jobs=jobs, rng=seed)
t1 = time.perf_counter()
model.run(progress=progress)
t2 = time.perf_counter()
frame = model.job_frame()
t3, c3 = time.perf_counter(), time.process_time()
print("VOSIM " + json.dumps(dict(
    jobs=len(model.jobs), build_s=t1 - t0, run_s=t2 - t1, frame_s=t3 - t2, total_s=t3 - t0,
    cpu_s=c3 - c0,
    cycles=model.metascheduler.cycles,
    states={str(k): int(v) for k, v in frame["state"].value_counts().items()})), flush=True)
"""


def run_vosim(spec: TraceSpec, jobs: int, args) -> dict:
    """One vosim run in a fresh interpreter; returns the worker's VOSIM dict."""
    env = dict(
        os.environ,
        PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
    )
    cmd = [sys.executable, "-c", _VOSIM_WORKER, spec.name, str(jobs), str(args.seed)]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=args.timeout)
    except subprocess.TimeoutExpired as exc:
        out = exc.stdout.decode() if isinstance(exc.stdout, bytes) else (exc.stdout or "")
        last = [ln for ln in out.splitlines() if ln.startswith("PROGRESS ")]
        where = ""
        if last:
            elapsed, done, total = json.loads(last[-1][len("PROGRESS ") :])
            where = f"; {done}/{total} jobs done at its last progress report ({elapsed:.0f} s)"
        raise RunTimeout(f"timed out after {args.timeout:g} s{where}") from None
    for line in proc.stdout.splitlines():
        if line.startswith("VOSIM "):
            return json.loads(line[len("VOSIM ") :])
    raise RuntimeError(f"vosim failed (exit {proc.returncode}): {_tail(proc.stderr)}")


# -- main -------------------------------------------------------------------------------------
def _git_state() -> str:
    """Commit of the vosim tree measured, with "+dirty" if vosim/ has uncommitted changes."""
    try:
        head = subprocess.run(
            ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            timeout=30,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(ROOT), "status", "--porcelain", "--", "vosim"],
            capture_output=True,
            text=True,
            timeout=30,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "(git unknown)"
    return (head or "(no commit)") + ("+dirty" if dirty else "")


def jobs_arg(text: str) -> int | None:
    if text.lower() in ("all", "full"):
        return None
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("jobs must be >= 1 or 'all'")
    return value


def fmt(value: float | None, width: int, digits: int, prefix: str = "") -> str:
    """``value`` with ``digits`` decimals after ``prefix``, right-aligned; "-" for None."""
    if value is None:
        return "-".rjust(width)
    return f"{prefix}{value:.{digits}f}".rjust(width)


def add_shared_options(parser: argparse.ArgumentParser) -> None:
    """Options every side-by-side benchmark with AccaSim takes: --seed, --timeout,
    --skip-accasim, --accasim-tools and --work (the AccaSim venv and traces are shared)."""
    parser.add_argument("--seed", type=int, default=1, help="vosim's rng seed; default 1")
    parser.add_argument(
        "--timeout",
        type=float,
        default=None,
        metavar="SECONDS",
        help="give up a single run after this long (vosim reports how far it got); "
        "default no limit",
    )
    parser.add_argument(
        "--skip-accasim", action="store_true", help="measure vosim only (no AccaSim set-up)"
    )
    parser.add_argument(
        "--accasim-tools",
        type=Path,
        metavar="DIR",
        default=DEFAULT_TOOLS,
        help=f"folder with run_accasim.py and the *.config files; default {DEFAULT_TOOLS}",
    )
    parser.add_argument(
        "--work",
        type=Path,
        metavar="DIR",
        default=WORK,
        help=f"work folder: AccaSim's venv, traces and output; default {WORK}",
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=(
            "Measure vosim's simulation speed beside AccaSim 1.1.3 (FIFO, first fit) on the "
            "first N jobs of the bundled SWF traces, in one run. Sets up AccaSim's Python 3.9 "
            "venv and AccaSim-ready traces under benchmarks/_work/ when missing; if AccaSim "
            "cannot be set up, says why and still reports vosim. Prints seconds and jobs/s of "
            "each and the ratio vosim/AccaSim. The two do different work (AccaSim: FIFO first "
            "fit on processors; vosim: economic co-allocation of windows with the AEP criteria "
            "on nodes with local load), so the ratio compares throughput, not like for like."
        ),
        epilog=(
            "Defaults: the first 10000 jobs of UniLu-Gaia-2014-2 and the whole "
            "NASA-iPSC-1993-3.1-cln (18239 jobs). With --jobs, every selected trace runs "
            "with every N given."
        ),
    )
    parser.add_argument(
        "--trace",
        nargs="+",
        choices=sorted(TRACES),
        default=list(TRACES),
        help="traces to run: gaia (UniLu-Gaia-2014-2), nasa (NASA-iPSC-1993-3.1-cln); default both",
    )
    parser.add_argument(
        "--jobs",
        nargs="+",
        type=jobs_arg,
        metavar="N",
        help="first N jobs of each trace ('all' for the whole trace); several values run "
        "several sizes; default 10000 for gaia and all for nasa",
    )
    parser.add_argument(
        "--repeat",
        type=int,
        default=1,
        metavar="K",
        help="run each simulator K times per case and keep the best (fastest); default 1",
    )
    add_shared_options(parser)
    parser.add_argument(
        "--skip-vosim", action="store_true", help="measure AccaSim only (for a quick check)"
    )
    parser.add_argument(
        "--accasim-no-output",
        action="store_true",
        help="switch off AccaSim's per-job schedule file (it is on by default, as in the "
        "README's reference figures)",
    )
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error("--repeat must be >= 1")

    cases = []
    for key in args.trace:
        spec = TRACES[key]
        for jobs in args.jobs if args.jobs else [spec.default_jobs]:
            cases.append((spec, jobs))

    print(
        f"# {datetime.now(UTC):%Y-%m-%d %H:%M} UTC; {platform.node()}, {os.cpu_count()} CPUs, "
        f"load {os.getloadavg()[0]:.2f}; vosim {_git_state()} on Python "
        f"{platform.python_version()}; best of {args.repeat}",
        flush=True,
    )
    work = args.work.resolve()
    python, why = None, "skipped (--skip-accasim)"
    if not args.skip_accasim:
        if not (args.accasim_tools / "run_accasim.py").exists():
            why = f"no run_accasim.py in {args.accasim_tools}"
        else:
            python, why = ensure_accasim(work / "accasim-venv")
        if python is None:
            print(f"[accasim] not available: {why}", flush=True)
        else:
            print(f"[accasim] {python}", flush=True)

    rows: list[tuple[Result, Result]] = []
    for spec, want in cases:
        swf, n, total = prepare_trace(spec, want, work)
        acc = Result("AccaSim 1.1.3 FIFO", spec.name, n)
        vos = Result("vosim VOModel", spec.name, n)
        if python is None:
            acc.note = why
        else:
            out = work / "accasim-out" / f"{spec.name}-{n}"
            out.mkdir(parents=True, exist_ok=True)
            for k in range(args.repeat):
                try:
                    s = run_accasim(python, args.accasim_tools, swf, spec, out, args)
                except (RuntimeError, OSError, subprocess.SubprocessError) as exc:
                    acc.note = f"failed: {exc}"
                    break
                acc.runs.append(s["sim_s"])
                acc.internal.append(s["internal_sim_s"])
                acc.note = (
                    f"loaded {s['loaded']}, finished {s['finished']}, rejected {s['rejected']}; "
                    f"internal {s['internal_sim_s']:.2f} s; process {s['wall_s']:.1f} s, "
                    f"CPU {s['cpu_s']:.1f} s"
                )
                print(f"[accasim] {spec.name} N={n} run {k + 1}: {s['sim_s']:.2f} s", flush=True)
            acc.seconds = min(acc.runs) if acc.runs else None
        if args.skip_vosim:
            vos.note = "skipped (--skip-vosim)"
        else:
            for k in range(args.repeat):
                try:
                    v = run_vosim(spec, n, args)
                except RunTimeout as exc:
                    vos.note = str(exc)
                    vos.timed_out = not vos.runs
                    break
                except (RuntimeError, OSError, subprocess.SubprocessError) as exc:
                    vos.note = f"failed: {exc}"
                    break
                vos.runs.append(v["total_s"])
                states = ", ".join(f"{c} {s}" for s, c in sorted(v["states"].items()))
                vos.note = f"{states}; {v['cycles']} cycles; CPU {v['cpu_s']:.1f} s"
                print(f"[vosim]   {spec.name} N={n} run {k + 1}: {v['total_s']:.2f} s", flush=True)
            vos.seconds = min(vos.runs) if vos.runs else None
            if vos.timed_out:
                vos.seconds = args.timeout
        rows.append((acc, vos))
        if want is not None and want > total:
            print(f"[note] {spec.name} has only {total} jobs", flush=True)

    head = f"{'simulator':<19} {'trace':<23} {'jobs':>6} {'seconds':>9} {'jobs/s':>9}  notes"
    print()
    print(head)
    print("-" * len(head))
    for acc, vos in rows:
        for r in (acc, vos):
            more, less = (">", "<") if r.timed_out else ("", "")
            print(
                f"{r.simulator:<19} {r.trace:<23} {r.jobs:>6} {fmt(r.seconds, 9, 2, more)} "
                f"{fmt(r.rate, 9, 1, less)}  {r.note}"
            )
    print()
    print("Jobs per second and their ratio vosim / AccaSim. AccaSim is timed by its")
    print("start_simulation() call (sim_s) and by its internal timer (internal_sim_s: the event")
    print("loop only, without draining its output writers afterwards; the tool README's figures).")
    head = (
        f"{'trace':<23} {'jobs':>6} {'vosim':>8} {'AccaSim':>8} {'ratio':>7}  "
        f"{'AccaSim internal':>16} {'ratio':>7}"
    )
    print(head)
    print("-" * len(head))
    for acc, vos in rows:
        less = "<" if vos.timed_out else ""
        ratio = vos.rate / acc.rate if vos.rate and acc.rate else None
        ratio_int = vos.rate / acc.internal_rate if vos.rate and acc.internal_rate else None
        print(
            f"{vos.trace:<23} {vos.jobs:>6} {fmt(vos.rate, 8, 1, less)} "
            f"{fmt(acc.rate, 8, 0)} {fmt(ratio, 7, 4, less)}  "
            f"{fmt(acc.internal_rate, 16, 0)} {fmt(ratio_int, 7, 4, less)}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
