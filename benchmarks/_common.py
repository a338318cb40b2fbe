"""Helpers shared by the benchmarks (not a benchmark itself)."""

from __future__ import annotations

import compileall
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

#: The repository root.
ROOT = Path(__file__).resolve().parents[1]


def commit(*paths: str) -> str:
    """Short HEAD commit, with ``+changes`` when any of ``paths`` differs from it."""
    try:
        head = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", *paths], cwd=ROOT, capture_output=True, text=True
        ).stdout.strip()
    except OSError:
        return "unknown"
    return f"{head or 'unknown'}{' +changes' if dirty else ''}"


def extract_vosim(revision: str, into: Path) -> str:
    """Put the ``vosim/`` package of git ``revision`` into folder ``into``; its short sha.

    ``git archive REVISION vosim | tar -x -C INTO``: no worktree, no git state touched, so a
    run can import that revision with ``PYTHONPATH=INTO``. ``into`` is created if missing.

    Raises
    ------
    ValueError
        ``revision`` is not a commit of this repository, or holds no ``vosim/`` (git's own
        message in the text).

    References
    ----------
    git-archive(1); vosim's benchmark tooling, no paper.
    """
    archive = subprocess.run(["git", "archive", revision, "vosim"], cwd=ROOT, capture_output=True)
    if archive.returncode:
        raise ValueError(archive.stderr.decode().strip())
    into.mkdir(parents=True, exist_ok=True)
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive.stdout, check=True)
    return subprocess.run(
        ["git", "rev-parse", "--short", f"{revision}^{{commit}}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()


#: Runs ``argv[2:]`` as its child and writes the child's own peak resident memory (KiB) and
#: CPU seconds to ``argv[1]`` as JSON. A process started from a big one (this benchmark, with
#: pandas loaded) inherits its parent's size as its ``ru_maxrss`` (Linux keeps the high-water
#: mark across ``exec``), so the measured process is started from this small launcher instead.
_LAUNCHER = """
import json, os, sys
pid = os.fork()
if pid == 0:
    try:
        os.execvp(sys.argv[2], sys.argv[2:])
    except OSError as exc:
        print(exc, file=sys.stderr)
    os._exit(127)
_, status, use = os.wait4(pid, 0)
with open(sys.argv[1], "w") as fh:
    json.dump([use.ru_maxrss, use.ru_utime + use.ru_stime], fh)
code = os.waitstatus_to_exitcode(status)
sys.exit(code if code >= 0 else 128 - code)
"""


@dataclass(frozen=True)
class ChildUsage:
    """What :func:`run_child` measured of its child process."""

    peak_mb: float  # peak resident memory (ru_maxrss), MiB
    cpu_s: float  # user + system CPU seconds


def run_child(
    cmd: list[str], *, timeout: float | None = None, **popen
) -> tuple[subprocess.CompletedProcess, ChildUsage]:
    """Run ``cmd`` to its end, like ``subprocess.run(cmd, capture_output=True, text=True)``.

    Also returns the process's own peak resident memory and CPU time (``os.wait4`` of it, in
    a small launcher: see :data:`_LAUNCHER`), where ``getrusage(RUSAGE_CHILDREN)`` would give
    the largest peak of all children so far, and any child's would include this process's
    size. Output goes through temporary files, so a run stopped at ``timeout`` (the launcher's
    process group is killed) still leaves what it printed: the
    :class:`subprocess.TimeoutExpired` raised then carries it (``.output``).
    """
    with tempfile.TemporaryDirectory() as tmp:
        usage_file = Path(tmp) / "usage.json"
        out_file, err_file = Path(tmp) / "stdout", Path(tmp) / "stderr"
        with out_file.open("wb") as out, err_file.open("wb") as err:
            proc = subprocess.Popen(
                [sys.executable, "-I", "-S", "-c", _LAUNCHER, str(usage_file), *cmd],
                stdout=out,
                stderr=err,
                start_new_session=True,  # its own process group, to stop it with its child
                **popen,
            )
            try:
                proc.wait(timeout)
                timed_out = False
            except subprocess.TimeoutExpired:
                timed_out = True
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        stdout = out_file.read_text(errors="replace")
        stderr = err_file.read_text(errors="replace")
        if timed_out:
            raise subprocess.TimeoutExpired(cmd, timeout, output=stdout, stderr=stderr)
        if not usage_file.exists():
            raise OSError(f"could not start {cmd[0]}: {stderr.strip()[-500:]}")
        maxrss, cpu = json.loads(usage_file.read_text())
    return subprocess.CompletedProcess(cmd, proc.returncode, stdout, stderr), ChildUsage(
        maxrss / 1024, cpu
    )


#: Runs in a child: the ``vosim run`` of the tree in ``sys.argv[1]`` with the flags after it.
_COMMAND = r"""
import sys
sys.path.insert(0, sys.argv[1])
import vosim
from vosim.runs.cli import main
if not vosim.__file__.startswith(sys.argv[1]):
    raise SystemExit(f"imported {vosim.__file__}, not the vosim in {sys.argv[1]}")
raise SystemExit(main(sys.argv[2:]))
"""


def run_command(
    tree: Path,
    flags: list[str],
    out: Path,
    timeout: float | None = None,
    numba_cache: Path | None = None,
) -> dict[str, float]:
    """The whole ``vosim run`` process of the vosim in ``tree``: wall seconds and peak MiB.

    ``flags``: the command's arguments after ``vosim`` (``["run", "--out", str(out), ...]``);
    ``out`` is the folder they write to; ``numba_cache``: numba's cache folder for the run
    (``NUMBA_CACHE_DIR``; an empty one times the first run after an install). Returns
    ``{"s", "completed", "peak_mb", "cpu_s"}`` (``completed``: the jobs whose state is
    ``completed`` in ``out/jobs.parquet``). Raises ``RuntimeError`` when the command fails,
    ``subprocess.TimeoutExpired`` past ``timeout``.

    The tree's bytecode is compiled first (untimed), as ``pip install`` compiles an installed
    package's and an import writes it on a first run: with ``PYTHONDONTWRITEBYTECODE=1``
    (set on some machines) every process would otherwise compile vosim's sources again,
    ~0.15 s a process here (2.70 against 2.55 s for one job), which a user's installed vosim,
    and the peer simulators' installs, never pay: ~4 % of whole Gaia's EASY command.
    """
    import pandas as pd  # the benchmarks' own dependency, loaded only by those that count

    compileall.compile_dir(tree / "vosim", quiet=1)
    started = time.perf_counter()
    env = None if numba_cache is None else {**os.environ, "NUMBA_CACHE_DIR": str(numba_cache)}
    proc, usage = run_child(
        [sys.executable, "-c", _COMMAND, str(tree), *flags],
        cwd=tempfile.gettempdir(),
        timeout=timeout,
        env=env,
    )
    seconds = time.perf_counter() - started
    if proc.returncode:
        err = proc.stderr.strip().splitlines() or ["no error output"]
        raise RuntimeError(f"vosim run in {tree} failed: {err[-1]}")
    frame = pd.read_parquet(out / "jobs.parquet", columns=["state"])
    completed = int((frame["state"].astype(str) == "completed").sum())
    return {"s": seconds, "completed": completed, "peak_mb": usage.peak_mb, "cpu_s": usage.cpu_s}
