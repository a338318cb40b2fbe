"""Compile the kernels' declared signatures before a run needs them, in parallel worker processes.

numba compiles a kernel at its first call unless its cache (``__pycache__`` beside the module,
or ``NUMBA_CACHE_DIR``) holds it, so the first run after an install or a change of the
kernels spends ~70 s of one core compiling ~200 functions. At the first use of a kernel
module (:func:`vosim.core.code_path.kernels`), :func:`start` looks each declared signature
(:mod:`vosim.core.kernel_signatures`) up in numba's cache index. If some are missing, it
starts one worker process per core (:func:`worker`). The workers compile
whole modules, in :data:`KERNEL_MODULES`' order, and write numba's cache; the modules of
:data:`AT_FIRST_USE` are left to the run that first calls them.

:func:`wait` holds a run's first use of a module until its worker is done; the run then loads
the module's kernels from the cache, as a warm run does. A module whose worker failed or died
is compiled by the run itself at its first call, as without this module. A warm cache starts
no worker. Workers still compiling modules the run never used are killed when it exits. A
process forked from the run does not wait for the run's workers: it loads or compiles its
kernels itself.

A worker writes the cache of its module's entry points only: a helper shared by two modules'
kernels is compiled by both workers, so two processes never write one function's cache index
at once (numba names a new data file from the index it read; two writers of one function
could give one signature's file another's code). A cached entry point holds its helpers'
code, so a run never needs a helper's own cache. Runs started together (a sweep's
processes) do not compile side by side: the first to start workers holds a lock file
(:func:`lock_path`) until they are done, and the others wait for it, then find the kernels
cached.
"""

from __future__ import annotations

import atexit
import collections
import importlib
import os
import subprocess
import sys
import threading
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import IO, ClassVar, TextIO

from vosim.core import registry

__all__ = [
    "AHEAD",
    "AT_FIRST_USE",
    "KERNEL_MODULES",
    "compile_module",
    "declare",
    "declared",
    "lock_path",
    "missing",
    "pending",
    "result",
    "start",
    "wait",
    "worker",
]

#: Every module of compiled kernels, longest to compile first (measured on a 2-core machine:
#: compression ~45 s, the first fit ~28 s, AEP ~20 s, slot cache ~10 s, the others 1-6 s
#: each). Workers take the modules in this order, so the longest starts first.
KERNEL_MODULES = (
    "vosim.policies.compression_kernels",
    "vosim.policies.first_fit_kernels",
    "vosim.allocators.aep_kernels",
    "vosim.market.slot_cache_kernels",
    "vosim.core.slot_kernels",
    "vosim.market.count_kernels",
    "vosim.allocators.screen_kernels",
    "vosim.policies.sleep_kernels",
    "vosim.market.window_availability_kernels",
    "vosim.allocators.availability_kernels",
    "vosim.market.local_placement_kernels",
    "vosim.market.schedule_kernels",
    "vosim.market.binding_kernels",
    "vosim.agents.replay_kernels",
)

#: Kernel modules compiled at their first use instead of ahead of a run: one kind of run
#: alone calls them (the traced machine's FCFS and EASY, replayed), and workers compiling
#: them beside every other run's first start slowed it by 5-9 % on 2 cores. Each declares
#: one signature per entry point, so runs compiling one side by side write the same code.
AT_FIRST_USE = ("vosim.agents.replay_kernels",)

#: What :func:`start` compiles by default: :data:`KERNEL_MODULES` less :data:`AT_FIRST_USE`.
AHEAD = tuple(module for module in KERNEL_MODULES if module not in AT_FIRST_USE)


#: The registry's kind holding each kernel module's declared entry points.
_KIND = "kernel signatures"


def declare(module: str, name: str, signatures: tuple[tuple[object, ...], ...]) -> None:
    """Record that ``module``'s entry point ``name`` is called with ``signatures``.

    ``signatures``: tuples of numba types, one per signature (checked by
    :func:`vosim.core.kernel_signatures.entry`, which calls this). Kept in vosim's registry,
    one entry per module, in declaration order (the order its worker compiles them). A
    second declaration of a name replaces the first. Raises nothing. Source: none.
    """
    try:
        entries = registry.entry(_KIND, module)
    except KeyError:
        entries = {}
        registry.register(_KIND, module, entries)
    entries[name] = signatures


def declared(module: str) -> dict[str, tuple[tuple[object, ...], ...]]:
    """The entry points the imported module ``module`` declares: name -> signatures, in order.

    Empty for a module not imported or declaring none. Raises nothing. Source: none.
    """
    try:
        return dict(registry.entry(_KIND, module))
    except KeyError:
        return {}


def missing(module: str) -> bool:
    """Whether numba's cache lacks a declared signature of the kernel module ``module``.

    Imports ``module`` (and numba). ``False`` for a module that declares nothing or whose
    kernels numba does not cache (``NUMBA_DISABLE_JIT``). Reads numba's cache index without
    loading or compiling anything. Raises ``ModuleNotFoundError`` for an unknown module.
    Source: none (numba's cache: an index per function keyed by signature, target and
    bytecode).
    """
    loaded = importlib.import_module(module)
    return any(
        not _cached(getattr(loaded, name), sig)
        for name, sigs in declared(module).items()
        for sig in sigs
    )


def _cached(dispatcher: object, sig: tuple) -> bool:
    """Whether ``dispatcher``'s cache index holds ``sig`` for this machine's target."""
    from numba.core.caching import NullCache

    cache = getattr(dispatcher, "_cache", None)
    if cache is None or isinstance(cache, NullCache):
        return True  # not cached by numba: nothing to compile ahead
    try:  # numba's cache internals; should they change, nothing is compiled ahead
        key = cache._index_key(sig, dispatcher.targetctx.codegen())  # type: ignore[attr-defined]
        return key in cache._cache_file._load_index()
    except (AttributeError, TypeError):
        return True


#: A worker process's program (``-c``: under ``-m`` this module would run as a second copy,
#: ``__main__``, whose registry of declarations the kernel modules do not fill).
_WORKER = "import sys; from vosim.core.precompile import worker; sys.exit(worker())"


class _Workers:
    """Worker processes compiling modules from a shared queue; an event per module and entry.

    ``entries``: each module's declared entry points, whose events a worker sets one by one
    as it compiles them (a run waits for the entry it calls, not its whole module).
    """

    def __init__(
        self, entries: dict[str, list[str]], processes: int, held: IO[str] | None = None
    ) -> None:
        self.held = held  # the lock file of the machine's compiling, released when all end
        self.queue = collections.deque(entries)
        self.entries = entries
        self.done = {
            key: threading.Event()
            for module, names in entries.items()
            for key in [(module, None), *((module, name) for name in names)]
        }
        self.results: dict[str, str] = {}
        self.lock = threading.Lock()
        self.running = processes
        self.procs: list[subprocess.Popen] = []
        self.pid = os.getpid()
        for _ in range(processes):
            threading.Thread(target=self._feed, daemon=True, name="vosim-precompile").start()

    def _spawn(self) -> subprocess.Popen | None:
        """A worker process importing this vosim (its source directory first on the path)."""
        env = dict(os.environ)
        root = str(Path(__file__).resolve().parents[2])
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [root, env.get("PYTHONPATH")]))
        try:
            proc = subprocess.Popen(
                [sys.executable, "-c", _WORKER],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                env=env,
                text=True,
            )
        except OSError:
            return None
        with self.lock:
            self.procs.append(proc)
        return proc

    def _finish(self, module: str, report: str) -> None:
        """Record ``report`` on ``module`` and end every wait on it."""
        self.results[module] = report
        for name in [None, *self.entries[module]]:
            self.done[module, name].set()

    def _compile(self, proc: subprocess.Popen, module: str) -> bool:
        """Have ``proc`` compile ``module``, setting each entry's event as it reports it."""
        try:
            proc.stdin.write(module + "\n")  # type: ignore[union-attr]
            proc.stdin.flush()  # type: ignore[union-attr]
            for line in proc.stdout:  # type: ignore[union-attr]
                word, _, rest = line.strip().partition(" ")
                if word == "compiled":
                    self.done[module, rest.rpartition(".")[2]].set()
                elif word in ("ok", "failed"):
                    self._finish(module, line.strip())
                    return True
        except (OSError, ValueError):
            pass
        self._finish(module, "failed: the worker exited")
        return False

    def _feed(self) -> None:
        """Hand one worker modules until none is left or it dies; the last one out frees all."""
        proc = self._spawn()
        while proc is not None:
            with self.lock:
                if not self.queue:
                    break
                module = self.queue.popleft()
            if not self._compile(proc, module):
                break
        if proc is not None:
            try:
                proc.stdin.close()  # type: ignore[union-attr]
            except OSError:
                pass
        with self.lock:
            self.running -= 1
            if self.running == 0:  # no worker left: the run compiles what is left itself
                while self.queue:
                    self._finish(self.queue.popleft(), "failed: no worker left")
                _release(self.held)
                self.held = None

    def stop(self) -> None:
        """Kill the workers still running (at exit: what they left is compiled at its use).

        Only in the process that started them: a forked child inherits this exit handler.
        """
        if os.getpid() != self.pid:
            return
        with self.lock:
            self.queue.clear()
            for proc in self.procs:
                if proc.poll() is None:
                    proc.kill()
            _release(self.held)
            self.held = None


class _State:
    """The process's workers, once :func:`start` made them, and its answer."""

    workers: _Workers | None = None
    started: tuple[str, ...] | None = None
    starting = threading.Lock()


def _forget() -> None:
    """In a forked child: the parent's workers are not its own (nothing would end its waits).

    Its copy of the lock file closes (the lock stays the parent's, released when it is done),
    and it may start workers of its own.
    """
    if _State.workers is not None and _State.workers.held is not None:
        _State.workers.held.close()
    _State.workers = None
    _State.started = None
    _State.starting = threading.Lock()


os.register_at_fork(after_in_child=_forget)


def _cores() -> int:
    """Cores this process may use."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def start(
    modules: tuple[str, ...] = AHEAD,
    processes: int | None = None,
    waiting: Callable[[bool], None] | None = None,
) -> tuple[str, ...]:
    """Start compiling, in worker processes, the modules of ``modules`` numba's cache lacks.

    ``modules``: kernel module names, longest to compile first; ``processes``: at most this
    many workers (default: one per core this process may use). Returns the modules handed
    to workers (empty on a warm cache). Once per process: later calls return the first
    call's answer. :func:`wait` then holds each entry point's first use. While another
    process's workers compile (a lock file, :func:`lock_path`, held until they are done),
    this waits for them first, calling ``waiting(True)`` before and ``waiting(False)`` after.
    Raises ``ModuleNotFoundError`` for an unknown module. Source: none (numba compiles one
    function at a time; processes compile in parallel).
    """
    with _State.starting:
        if _State.started is None:
            _State.started = _start(modules, processes, waiting)
        return _State.started


def _start(
    modules: tuple[str, ...], processes: int | None, waiting: Callable[[bool], None] | None
) -> tuple[str, ...]:
    """:func:`start`'s work, once."""
    if not any(missing(module) for module in modules):
        return ()
    held = _hold(lock_path(modules[0]), waiting)  # waits while another run's workers compile
    todo = {module: list(declared(module)) for module in modules if missing(module)}
    if not todo:  # they compiled it all
        _release(held)
        return ()
    workers = _Workers(todo, max(1, min(len(todo), processes or _cores())), held)
    _State.workers = workers
    atexit.register(workers.stop)
    return tuple(todo)


def pending(module: str, entry: str | None = None) -> bool:
    """Whether a worker is yet to finish ``module``'s entry point ``entry`` (or all of it).

    ``False`` for a name no worker compiles. Raises nothing. Source: none.
    """
    workers = _State.workers
    event = None if workers is None else workers.done.get((module, entry))
    return event is not None and not event.is_set()


def wait(module: str, entry: str | None = None) -> None:
    """Block until the worker compiling ``module``'s entry point ``entry`` (or all of it) is done.

    Returns at once for a name no worker compiles (a warm cache, or :func:`start` not
    called). A worker that failed or died also ends the wait: the run then compiles the
    kernel at its first call. Raises nothing. Source: none.
    """
    workers = _State.workers
    event = None if workers is None else workers.done.get((module, entry))
    if event is not None:
        event.wait()


def result(module: str) -> str | None:
    """The worker's report on ``module`` (``"ok ..."`` or ``"failed ..."``); ``None`` if none.

    Raises nothing. Source: none.
    """
    workers = _State.workers
    return None if workers is None else workers.results.get(module)


class _Caches:
    """In a worker: the caches of every kernel seen, so that only one module's entries write."""

    original: ClassVar[dict[int, object]] = {}


def _write_only(entries: list[object]) -> None:
    """Turn numba's cache off for every vosim kernel loaded but ``entries`` (on for those)."""
    from numba.core.caching import NullCache
    from numba.core.dispatcher import Dispatcher

    keep = {id(entry) for entry in entries}
    for name, loaded in list(sys.modules.items()):
        if name.split(".")[0] != "vosim":
            continue
        for value in list(vars(loaded).values()):
            if isinstance(value, Dispatcher):
                cache = _Caches.original.setdefault(id(value), value._cache)
                value._cache = cache if id(value) in keep else NullCache()


def compile_module(module: str, report: Callable[[str], None] | None = None) -> None:
    """Compile (or load from numba's cache) every declared signature of ``module``, here.

    Entry points in their declaration order; ``report(name)`` after each one. Writes numba's
    cache for the module's entry points only (module docstring). Raises
    ``ModuleNotFoundError`` for an unknown module and numba's errors for a kernel that does
    not compile with its declared types. Source: none.
    """
    loaded = importlib.import_module(module)
    entries = {name: getattr(loaded, name) for name in declared(module)}
    _write_only(list(entries.values()))
    for name, sigs in declared(module).items():
        dispatcher = entries[name]
        for sig in sigs:
            compiled = dispatcher.overloads.get(tuple(sig))
            if compiled is None:
                dispatcher.compile(tuple(sig))  # loads it if another process wrote it
            else:  # compiled earlier here as another module's helper, with its cache off
                dispatcher._cache.save_overload(tuple(sig), compiled)
        if report is not None:
            report(name)


def lock_path(module: str = KERNEL_MODULES[0]) -> Path | None:
    """The lock file of a machine's compiling of vosim's kernels, in ``module``'s cache folder.

    Runs started together (a sweep's processes, a test suite's workers) would each start a
    worker per core: the first holds this file's lock (``fcntl.flock``) from its start until
    its workers are done; the others wait for it, then find the kernels cached. ``None``
    when the module's kernels are not cached (nothing to share). Imports ``module``; raises
    ``ModuleNotFoundError`` for an unknown one. Source: none.
    """
    from numba.core.caching import NullCache

    loaded = importlib.import_module(module)
    for name in declared(module):
        cache = _Caches.original.get(id(getattr(loaded, name)), getattr(loaded, name)._cache)
        if isinstance(cache, NullCache):
            return None
        try:  # numba's cache internals (see _cached)
            cache._impl.locator.ensure_cache_path()
            return Path(cache._cache_path) / "vosim-precompile.lock"
        except (AttributeError, OSError):
            return None
    return None


def _hold(path: Path | None, waiting: Callable[[bool], None] | None) -> IO[str] | None:
    """Lock the file ``path``, waiting while another process holds it (``waiting`` told).

    Returns the open file (closing it releases the lock), or ``None`` for no ``path``, a
    file that cannot be opened (a read-only cache folder) or where ``fcntl`` is missing (not
    POSIX): runs started together then compile side by side, as without the lock.
    """
    try:
        import fcntl
    except ImportError:
        return None
    if path is None:
        return None
    try:
        handle = path.open("a")
    except OSError:
        return None
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        if waiting is not None:
            waiting(True)
        try:
            fcntl.flock(handle, fcntl.LOCK_EX)
        finally:
            if waiting is not None:
                waiting(False)
    return handle


def _release(held: IO[str] | None) -> None:
    """Release a lock :func:`_hold` took (``None``: nothing)."""
    if held is not None:
        held.close()


def worker(lines: Iterable[str] = sys.stdin, out: TextIO = sys.stdout) -> int:
    """A worker's loop: compile each module named on a line of ``lines``, report on ``out``.

    Reports, flushed, ``compiled <module>.<entry>`` after each entry point, then
    ``ok <module>`` or ``failed <module>: <error>``. Returns 0 at the end of ``lines``.
    Raises nothing. Source: none.
    """

    def say(text: str) -> None:
        out.write(text.replace("\n", " ") + "\n")
        out.flush()

    for line in lines:
        module = line.strip()
        if not module:
            continue
        try:
            compile_module(module, lambda name, m=module: say(f"compiled {m}.{name}"))
            say(f"ok {module}")
        except Exception as error:  # reported: the run compiles the module at its use
            say(f"failed {module}: {type(error).__name__}: {error}")
    return 0
