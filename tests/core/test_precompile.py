"""Compiling the declared kernels in worker processes: what reaches numba's cache, and failures.

The end-to-end tests run in fresh processes on an empty cache of their own
(``NUMBA_CACHE_DIR``), on the count kernels (the cheapest module to compile).
"""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

import vosim
from vosim.core import precompile

COUNT = "vosim.market.count_kernels"


def _fresh(code: str, cache: Path) -> str:
    """Run ``code`` in a fresh process on the numba cache ``cache``; its stdout."""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache))
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    return done.stdout


def test_kernel_modules_are_every_module_of_kernels():
    package = Path(vosim.__file__).parent
    found = {
        ".".join(("vosim", *path.relative_to(package).with_suffix("").parts))
        for path in package.rglob("*_kernels.py")
    }
    assert set(precompile.KERNEL_MODULES) == found
    assert len(precompile.KERNEL_MODULES) == len(found)  # each once


def test_workers_fill_the_cache_and_a_new_process_loads_without_compiling(tmp_path):
    filled = _fresh(
        f"""
from vosim.core import precompile
print(precompile.missing({COUNT!r}))
print(precompile.start(({COUNT!r},)))
precompile.wait({COUNT!r})
print(precompile.result({COUNT!r}))
print(precompile.missing({COUNT!r}))
""",
        tmp_path,
    )
    assert filled.split("\n")[:4] == ["True", f"({COUNT!r},)", f"ok {COUNT}", "False"]
    # only the entry points' caches were written, not their helpers'
    written = {p.name.split("-")[0].rpartition(".")[2] for p in tmp_path.rglob("*.nbi")}
    assert written == {"count_view_rows", "cut_view_rows"}
    loaded = _fresh(
        f"""
import numpy as np
from numba.core import event
from vosim.core import precompile
from vosim.core.code_path import kernels

compiled = []

class Listener(event.Listener):
    def on_start(self, ev):
        compiled.append(ev.data["dispatcher"].py_func.__name__)
    def on_end(self, ev):
        pass

event.register("numba:compile", Listener())
print(precompile.start(({COUNT!r},)))
i, f = np.zeros(1, dtype=np.int64), np.ones(1)
first, keep = np.array([0, 1]), np.zeros(1, dtype=bool)
kernels({COUNT!r}).count_view_rows(i, i * 0.0, f, f, f, i, keep, first, i)
print(compiled)
""",
        tmp_path,
    )
    assert loaded.split("\n")[:2] == ["()", "[]"]  # a warm cache: no worker, nothing compiled


def test_an_entry_compiled_earlier_as_a_helper_is_still_written(tmp_path):
    out = _fresh(
        f"""
from vosim.core import precompile
from vosim.core.precompile import declared
from vosim.market import count_kernels

print(precompile.missing({COUNT!r}))
precompile._write_only([])  # every cache off, as in a worker compiling another module
(sig,) = declared({COUNT!r})["cut_view_rows"]
count_kernels.cut_view_rows.compile(sig)
precompile._write_only([count_kernels.count_view_rows, count_kernels.cut_view_rows])
print(precompile.missing({COUNT!r}))
precompile.compile_module({COUNT!r})
print(precompile.missing({COUNT!r}))
""",
        tmp_path,
    )
    assert out.split("\n")[:3] == ["True", "True", "False"]


def test_a_worker_reports_each_entry_point_then_the_module(tmp_path):
    out = _fresh(
        f"""
import io
from vosim.core import precompile
out = io.StringIO()
precompile.worker(["\\n", "{COUNT}\\n", "vosim.no_such_kernels\\n"], out)
print(out.getvalue(), end="")
""",
        tmp_path,
    )
    lines = out.splitlines()
    assert lines[:3] == [
        f"compiled {COUNT}.count_view_rows",
        f"compiled {COUNT}.cut_view_rows",
        f"ok {COUNT}",
    ]
    assert lines[3].startswith("failed vosim.no_such_kernels: ModuleNotFoundError")
    assert len(lines) == 4


def test_a_worker_that_dies_or_never_starts_ends_the_waits(monkeypatch):
    monkeypatch.setattr(
        precompile._Workers,
        "_spawn",
        lambda self: subprocess.Popen(
            [sys.executable, "-c", "pass"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        ),
    )
    workers = precompile._Workers({"a.one": ["f", "g"], "a.two": [], "a.three": ["h"]}, 2)
    for key in [("a.one", None), ("a.one", "f"), ("a.one", "g"), ("a.two", None), ("a.three", "h")]:
        assert workers.done[key].wait(timeout=60)
    assert set(workers.results.values()) <= {
        "failed: the worker exited",
        "failed: no worker left",
    }
    monkeypatch.setattr(precompile._Workers, "_spawn", lambda self: None)
    workers = precompile._Workers({"b.one": ["f"]}, 1)
    assert workers.done["b.one", "f"].wait(timeout=60)
    assert workers.results["b.one"] == "failed: no worker left"


def test_waiting_for_a_module_no_worker_has_returns_at_once(monkeypatch):
    monkeypatch.setattr(precompile._State, "workers", None)
    assert not precompile.pending(COUNT) and not precompile.pending(COUNT, "cut_view_rows")
    precompile.wait(COUNT)
    precompile.wait(COUNT, "cut_view_rows")
    assert precompile.result(COUNT) is None


@pytest.mark.parametrize("module", ["vosim.no_such_kernels"])
def test_an_unknown_module_is_refused(module):
    with pytest.raises(ModuleNotFoundError):
        precompile.missing(module)


def test_a_forked_child_does_not_wait_for_its_parents_workers(tmp_path):
    # in a fresh process: a fork from a process with threads (pytest's) is unsafe
    out = _fresh(
        f"""
import os, threading
from vosim.core import precompile

class Never(precompile._Workers):  # workers that never finish, and no thread
    def __init__(self, entries):
        self.held, self.entries, self.pid, self.procs = None, entries, os.getpid(), []
        self.lock = threading.Lock()
        keys = [({COUNT!r}, None), ({COUNT!r}, "cut_view_rows")]
        self.done = {{key: threading.Event() for key in keys}}

precompile._State.workers = workers = Never({{{COUNT!r}: ["cut_view_rows"]}})
print(precompile.pending({COUNT!r}, "cut_view_rows"))
read, write = os.pipe()
pid = os.fork()
if pid == 0:  # the child: no worker of its own, so nothing pending and no wait
    free = not precompile.pending({COUNT!r}, "cut_view_rows")
    precompile.wait({COUNT!r}, "cut_view_rows")
    workers.stop()  # the inherited exit handler: not the child's workers to stop
    os.write(write, b"free" if free else b"held")
    os._exit(0)
os.close(write)
print(os.read(read, 4).decode(), os.waitpid(pid, 0)[1])
print(precompile.pending({COUNT!r}, "cut_view_rows"))  # the parent still waits for its own
""",
        tmp_path,
    )
    assert out.splitlines() == ["True", "free 0", "True"]


def test_a_run_waits_while_another_runs_workers_compile_then_starts_its_own(tmp_path):
    import fcntl
    import threading

    where = f"from vosim.core import precompile as p; print(p.lock_path({COUNT!r}))"
    lock = _fresh(where, tmp_path)
    lock = Path(lock.strip())
    assert lock.parent.is_relative_to(tmp_path) and lock.name == "vosim-precompile.lock"
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path))
    code = f"""
from vosim.core import precompile as p
print("missing", p.missing({COUNT!r}), flush=True)
said = lambda on: print("waiting", on, flush=True)
print("started", p.start(({COUNT!r},), waiting=said), flush=True)
p.wait({COUNT!r})
print(p.result({COUNT!r}), flush=True)
"""
    lines: list[str] = []
    with lock.open("a") as held:
        fcntl.flock(held, fcntl.LOCK_EX)  # as another run whose workers compile
        run = subprocess.Popen(
            [sys.executable, "-c", code], stdout=subprocess.PIPE, env=env, text=True
        )
        reader = threading.Thread(target=lambda: lines.extend(run.stdout))
        reader.start()
        reader.join(timeout=10)
        assert lines == ["missing True\n", "waiting True\n"]  # held at start
        fcntl.flock(held, fcntl.LOCK_UN)
    reader.join(timeout=300)
    assert run.wait(timeout=60) == 0
    assert [line.strip() for line in lines[2:]] == [
        "waiting False",
        f"started ({COUNT!r},)",  # still cold here: its own workers compile it
        f"ok {COUNT}",
    ]


def test_a_lock_file_that_cannot_be_opened_lets_the_run_go_on(tmp_path):
    # a read-only or missing cache folder: no lock (runs compile side by side), no error
    told: list[bool] = []
    assert precompile._hold(tmp_path / "no-such-folder" / "x.lock", told.append) is None
    assert told == []
    held = precompile._hold(tmp_path / "x.lock", told.append)
    assert held is not None and not held.closed
    precompile._release(held)
    assert held.closed


def test_modules_compiled_at_first_use_are_not_compiled_ahead():
    """The replay's kernels compile where a run first calls them; every other module ahead."""
    assert set(precompile.AT_FIRST_USE) <= set(precompile.KERNEL_MODULES)
    assert set(precompile.AHEAD) == set(precompile.KERNEL_MODULES) - set(precompile.AT_FIRST_USE)
    assert "vosim.agents.replay_kernels" not in precompile.AHEAD
    assert [m for m in precompile.KERNEL_MODULES if m in precompile.AHEAD] == list(
        precompile.AHEAD
    )  # the longest first, as declared
    for module in precompile.AT_FIRST_USE:  # one signature per entry point
        importlib.import_module(module)
        assert precompile.declared(module)
        assert all(len(sigs) == 1 for sigs in precompile.declared(module).values())
