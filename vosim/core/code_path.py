"""Which code path runs: the fast one (compiled, incremental) or the plain reference one.

Every speed-up in vosim sits behind one seam that names the plain function it replaces; with
the environment variable ``VOSIM_REFERENCE=1`` the plain function runs instead. The plain
path is the oracle of the fast one's tests, and a run records which path made it
(``summary.json``'s ``code_path``).
"""

from __future__ import annotations

import functools
import importlib
import os
from collections.abc import Callable
from types import ModuleType

from vosim.core import precompile
from vosim.errors import ParameterError

__all__ = ["REFERENCE_ENV", "code_path", "kernels", "on_compile", "reference"]

#: The environment variable that selects the plain paths (``"1"``).
REFERENCE_ENV = "VOSIM_REFERENCE"


def reference() -> bool:
    """Whether the plain reference paths run (``VOSIM_REFERENCE=1``), read at each call.

    Returns
    -------
    bool
        ``True`` when ``VOSIM_REFERENCE`` is ``"1"``.

    Raises
    ------
    ParameterError
        ``VOSIM_REFERENCE`` is set to anything but ``""``, ``"0"`` or ``"1"``.
    """
    value = os.environ.get(REFERENCE_ENV, "")
    if value not in ("", "0", "1"):
        raise ParameterError(f"environment variable {REFERENCE_ENV}={value!r}: expected 0 or 1")
    return value == "1"


def code_path() -> str:
    """``"reference"`` under ``VOSIM_REFERENCE=1``, else ``"fast"``: what a run records."""
    return "reference" if reference() else "fast"


@functools.cache
def kernels(name: str) -> ModuleType:
    """The module of compiled kernels ``name`` (e.g. ``"vosim.core.slot_kernels"``).

    Imported at its first use, so that importing vosim does not import numba (~0.5 s,
    ~100 MB). The first call of the process starts the compile notices (:func:`on_compile`)
    and, when numba's cache lacks declared kernels, their compilation in worker processes
    (:func:`vosim.core.precompile.start`). A module still compiling there comes wrapped:
    each entry point's first read waits for the worker, with the notice on. Raises
    ``ModuleNotFoundError`` for an unknown ``name``. Source: none (vosim's rule: every
    compiled speed-up sits in its own module beside the plain function).
    """
    _listen()
    precompile.start(waiting=_notify)
    module = importlib.import_module(name)
    return _Compiling(module) if precompile.pending(name) else module


class _Compiling(ModuleType):
    """A kernel module a worker process is compiling: each entry point waits for its own.

    An attribute's first read waits (with the notice on, :func:`on_compile`) until the worker
    has written that entry point to numba's cache; the value is then kept, so later reads
    are plain. Names that are not entry points read through at once.
    """

    def __init__(self, module: ModuleType) -> None:
        super().__init__(module.__name__, module.__doc__)
        self._module = module

    def __getattr__(self, attr: str) -> object:
        name = self.__name__
        if precompile.pending(name, attr):
            _notify(True)
            precompile.wait(name, attr)
            _notify(False)
        value = getattr(self._module, attr)
        setattr(self, attr, value)
        return value


class _Notices:
    """The callback of :func:`on_compile` and how deep the compilations of kernels are."""

    callback: Callable[[bool], None] | None = None
    depth = 0


def on_compile(callback: Callable[[bool], None] | None) -> None:
    """Call ``callback(True)`` as numba starts compiling vosim's kernels, ``callback(False)`` after.

    Once per outermost compilation (a kernel compiles the helpers it calls inside its own),
    and only for functions of vosim's modules; also while the run waits for a worker process
    compiling a kernel module (:mod:`vosim.core.precompile`). A kernel compiles at its first
    call with new argument types unless numba's cache holds it, so this happens on the first
    run after an install or a change of the kernels: a command tells its user why its
    progress stalls (~1 min). ``None`` stops the calls. Process-wide: the last callback set
    wins. Raises nothing. Source: none (numba's ``numba:compile`` events).
    """
    _Notices.callback = callback


@functools.cache
def _listen() -> None:
    """Register the listener of numba's compile events, once per process."""
    from numba.core import event

    class _Listener(event.Listener):
        def on_start(self, ev: event.Event) -> None:
            if _ours(ev):
                _notify(True)

        def on_end(self, ev: event.Event) -> None:
            if _ours(ev):
                _notify(False)

    event.register("numba:compile", _Listener())


def _notify(compiling: bool) -> None:
    """A compilation (or a wait for one) starts (``True``) or ends: tell the callback at depth 0."""
    _Notices.depth += 1 if compiling else -1
    at_top = _Notices.depth == (1 if compiling else 0)
    if at_top and _Notices.callback is not None:
        _Notices.callback(compiling)


def _ours(ev: object) -> bool:
    """Whether a ``numba:compile`` event compiles a function of a vosim module."""
    dispatcher = getattr(ev, "data", {}).get("dispatcher")
    module = getattr(getattr(dispatcher, "py_func", None), "__module__", "") or ""
    return module.split(".")[0] == "vosim"
