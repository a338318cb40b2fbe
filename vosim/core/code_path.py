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
from types import ModuleType

from vosim.errors import ParameterError

__all__ = ["REFERENCE_ENV", "code_path", "kernels", "reference"]

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
    ~100 MB). Raises ``ModuleNotFoundError`` for an unknown ``name``. Source: none (vosim's
    rule: every compiled speed-up sits in its own module beside the plain function).
    """
    return importlib.import_module(name)
