"""The kernels' declared signatures: the types every run calls them with, and the declaring.

The declarations are what :mod:`vosim.core.precompile` compiles ahead of a run; a kernel a run
calls with undeclared types compiles at that call instead, serially, so the run test below
runs every policy and option that reaches a kernel, in a fresh process, and records each
Python call of a vosim kernel that numba had to compile or load for new types.
"""

from __future__ import annotations

import json
import subprocess
import sys

import numba
import numpy as np
import pytest
from numba.core import types

from vosim.core.kernel_signatures import B1, F8, I8, b1, entry, f8, i8, tuple_of
from vosim.core.precompile import KERNEL_MODULES, declared

#: A fresh process: runs each scenario, then prints the (kernel, types) of every Python call
#: that compiled or loaded a kernel, and what the kernel modules declare.
_RECORD = """
import json, sys
from numba import typeof
from numba.core.dispatcher import Dispatcher

calls = set()
plain = Dispatcher._compile_for_args  # numba's path for a Python call with new types

def recording(self, *args, **kws):
    if self.py_func.__module__.split(".")[0] == "vosim":
        calls.add((self.py_func.__module__, self.py_func.__name__, str(tuple(map(typeof, args)))))
    return plain(self, *args, **kws)

Dispatcher._compile_for_args = recording

from vosim import VOModel
from vosim.core.precompile import KERNEL_MODULES, declared

for kwargs in json.loads(sys.argv[1]):
    model = VOModel(rng=1, **kwargs)
    model.run()
    model.job_frame(), model.task_frame(), model.cycle_frame()

known = {
    (m, name, str(tuple(sig)))
    for m in KERNEL_MODULES for name, sigs in declared(m).items() for sig in sigs
}
print(json.dumps({"calls": sorted(calls), "declared": sorted(known)}))
"""

GAIA, NASA, LCG = "UniLu-Gaia-2014-2", "NASA-iPSC-1993-3.1-cln", "LCG-2005-1"

#: Every policy, the traced machine's batch rules, the owners' rules for local jobs,
#: windows that can fail, and the three traces (LCG by site).
SCENARIOS = [
    *[{"trace": GAIA, "jobs": 80, "policy": p} for p in ("css", "availability", "knapsack")],
    *[{"trace": GAIA, "jobs": 80, "policy": p} for p in ("conservative", "easy", "knapsack+easy")],
    *[
        {"trace": GAIA, "jobs": 200, "policy": p, "machine": True, "cycle_period": 0.0}
        for p in ("easy", "fcfs", "conservative")
    ],
    {"trace": GAIA, "jobs": 80, "local_load": (0.4, 0.6), "local_priority": "preempt"},
    {"trace": GAIA, "jobs": 80, "availability": True},
    {"trace": NASA, "jobs": 80, "patience": 2 * 86400.0},
    {"trace": LCG, "jobs": 80, "owners": "trace", "policy": "knapsack"},
    {"trace": LCG, "jobs": 80},
]


def test_every_kernel_call_of_every_policy_is_declared():
    done = subprocess.run(
        [sys.executable, "-c", _RECORD, json.dumps(SCENARIOS)],
        capture_output=True,
        text=True,
        check=True,
    )
    report = json.loads(done.stdout.strip().splitlines()[-1])
    calls = {tuple(c) for c in report["calls"]}
    known = {tuple(k) for k in report["declared"]}
    assert calls, "no kernel was called: the scenarios no longer reach the kernels"
    assert calls <= known, f"undeclared kernel calls: {sorted(calls - known)}"
    # the run above reaches most declared entry points (the rest: tests below and their modules)
    assert len({c[:2] for c in calls}) >= 20


def test_every_kernel_module_declares_its_entry_points():
    import importlib

    for module in KERNEL_MODULES:
        importlib.import_module(module)
        assert declared(module), f"{module} declares no entry point"


def test_the_type_aliases_are_what_typeof_gives_numpy_values():
    assert numba.typeof(np.zeros(3, dtype=np.int64)) == I8
    assert numba.typeof(np.zeros(3)) == F8
    assert numba.typeof(np.zeros(3, dtype=bool)) == B1
    assert numba.typeof(3) == i8 and numba.typeof(np.int64(3)) == i8
    assert numba.typeof(3.0) == f8 and numba.typeof(np.float64(3.0)) == f8
    assert numba.typeof(True) == b1 and numba.typeof(np.bool_(True)) == b1
    mixed = (np.zeros(2, dtype=np.int64), np.zeros(2))
    assert numba.typeof(mixed) == tuple_of(I8, F8)  # a Tuple
    same = (np.zeros(2), np.zeros(2))
    assert numba.typeof(same) == tuple_of(F8, F8)  # a UniTuple, as typeof gives
    assert numba.typeof(np.zeros(3)[::2]) != F8  # a strided view is another type


def test_entry_declares_and_returns_the_dispatcher():
    @numba.njit
    def twice(x):  # pragma: no cover - compiled
        return 2 * x

    marked = entry((F8,), (i8,))(twice)
    assert marked is twice
    assert declared(__name__)["twice"] == ((F8,), (i8,))
    assert declared("no.such.module") == {}

    def plain(x):  # what @njit gives under NUMBA_DISABLE_JIT=1: returned, not declared
        return x

    assert entry((i8,))(plain) is plain
    assert "plain" not in declared(__name__)


@pytest.mark.parametrize("bad", [(), ((F8, "int64"),), ([F8],)])
def test_entry_refuses_what_is_not_a_signature(bad):
    with pytest.raises(TypeError, match="entry: "):
        entry(*bad)


def test_tuple_of_refuses_what_is_not_a_numba_type():
    with pytest.raises(TypeError, match="tuple_of: 'int64' is not a numba type"):
        tuple_of(I8, "int64")
    assert isinstance(tuple_of(I8, F8), types.BaseTuple)
