"""The argument types each compiled kernel entry point is called with, declared beside it.

A kernel module marks each function that Python code calls (an *entry point*; helpers called
only from compiled code are not marked) with :func:`entry` and the argument types of every
call vosim makes (kept by :func:`vosim.core.precompile.declare`). :mod:`vosim.core.precompile`
compiles exactly these signatures ahead of a
run, in parallel worker processes, when numba's cache lacks them; a test runs every policy
and checks that no kernel is called with undeclared types. A call with other types still
works: numba compiles it at that call, as it would without a declaration.

The types are numba's: ``I8``, ``F8``, ``B1`` are C-contiguous one-dimensional arrays of
int64, float64 and bool (what ``numpy.empty(n, dtype)`` gives), ``i8``, ``f8``, ``b1`` the
scalars (Python ``int``, ``float``, ``bool`` and numpy's), and :func:`tuple_of` a tuple of
them (the compression kernels' ``rows``, ``jobs`` and ``out``).

Importing this module imports numba: only kernel modules import it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from numba.core import types
from numba.core.dispatcher import Dispatcher

from vosim.core.precompile import declare

__all__ = ["B1", "F8", "I8", "b1", "entry", "f8", "i8", "tuple_of"]

#: C-contiguous 1-D int64 array.
I8 = types.Array(types.int64, 1, "C")
#: C-contiguous 1-D float64 array.
F8 = types.Array(types.float64, 1, "C")
#: C-contiguous 1-D bool array.
B1 = types.Array(types.boolean, 1, "C")
#: int64 scalar.
i8 = types.int64
#: float64 scalar.
f8 = types.float64
#: bool scalar.
b1 = types.boolean

_D = TypeVar("_D")


def tuple_of(*members: types.Type) -> types.BaseTuple:
    """The numba type of a tuple whose members have the types ``members``, in order.

    Raises ``TypeError`` if a member is not a numba type. Source: none (numba's
    ``types.Tuple``; a tuple of one type is numba's ``UniTuple``, as ``typeof`` gives).
    """
    for member in members:
        if not isinstance(member, types.Type):
            raise TypeError(f"tuple_of: {member!r} is not a numba type")
    return types.BaseTuple.from_types(members)


def entry(*signatures: tuple[types.Type, ...]) -> Callable[[_D], _D]:
    """Decorator: declare a kernel entry point's argument types, one tuple per signature.

    Put it above ``@numba.njit(cache=True, ...)``; it returns the dispatcher unchanged (and
    declares nothing when ``NUMBA_DISABLE_JIT=1`` made it a plain function). Raises
    ``TypeError`` if there is no signature or a signature is not a tuple of numba types.
    Source: none (vosim's parallel compilation, :mod:`vosim.core.precompile`).
    """
    if not signatures:
        raise TypeError("entry: declare at least one signature")
    for sig in signatures:
        if not isinstance(sig, tuple) or not all(isinstance(t, types.Type) for t in sig):
            raise TypeError(f"entry: signature {sig!r} is not a tuple of numba types")

    def mark(dispatcher: _D) -> _D:
        if not isinstance(dispatcher, Dispatcher):
            return dispatcher
        func = dispatcher.py_func
        declare(func.__module__, func.__name__, signatures)
        return dispatcher

    return mark
