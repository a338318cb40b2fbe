"""``VOSIM_REFERENCE=1``: every speed-up's plain path gives the run the fast path gives.

The plain paths: re-planning (``replan``), the AEP criteria's scans and one-slot minima, the
sleeping classes' bound and the classes themselves (the per-job cycle), EASY's and FCFS's
count form (their node form) and the traced machine's compiled replay of them (the agents),
the slot-list cache (the list built from every owner's busy intervals), the cyclic scheme's
compiled first fit (its plain loop of searches and cuts), the screen of
necessary conditions, the cut of a window and the earliest-window loop of the batch rules
(their numpy forms). The switch itself: ``0`` or ``1``, anything else
refused before a run.
"""

import pandas as pd
import pytest

from vosim import VOModel
from vosim.core.code_path import REFERENCE_ENV, code_path, reference
from vosim.errors import ParameterError
from vosim.runs.cli import main

GAIA, NASA, LCG = "UniLu-Gaia-2014-2", "NASA-iPSC-1993-3.1-cln", "LCG-2005-1"

#: NASA-iPSC's whole-machine jobs wait long: a short patience ends a prefix's run sooner.
DAYS_2 = 2 * 86400.0

#: Every user criterion's search, the cost users' a fallback chain (counted per search).
CHAIN = {"finish": "min_finish", "runtime": "min_runtime", "cost": "min_cost>amp"}

CASES = [
    *[(GAIA, 300, {"policy": p}) for p in ("availability", "conservative", "easy", "fcfs")],
    *[(GAIA, 300, {"policy": p}) for p in ("knapsack", "knapsack+easy")],
    *[(GAIA, 1500, {"policy": p, "machine": True}) for p in ("easy", "fcfs", "conservative")],
    *[(GAIA, 400, {"local_priority": p}) for p in ("queue", "preempt")],
    (LCG, 600, {}),
    # the other traces under every policy and local priority (LCG's availability knapsack
    # searches 24,515 nodes a cycle, so a shorter prefix)
    *[(NASA, 200, {"policy": p, "patience": DAYS_2}) for p in ("availability", "conservative")],
    *[(NASA, 200, {"policy": p, "patience": DAYS_2}) for p in ("easy", "fcfs", "knapsack")],
    (NASA, 200, {"policy": "knapsack+easy", "patience": DAYS_2}),
    *[(LCG, 300, {"policy": p}) for p in ("conservative", "easy", "fcfs")],
    *[(LCG, 300, {"policy": p}) for p in ("knapsack", "knapsack+easy")],
    (LCG, 60, {"policy": "availability"}),
    *[(NASA, 200, {"local_priority": p, "patience": DAYS_2}) for p in ("queue", "preempt")],
    *[(LCG, 200, {"local_priority": p}) for p in ("queue", "preempt")],
    # the VO-policy study's scheme: three alternatives, so every waiting job each cycle (a
    # burst of identical jobs in the first 600: half the searches are a repeated failure)
    (GAIA, 600, {"max_alternatives": 3, "offered_load": 0.6, "vo_objective": "runtime"}),
    (GAIA, 300, {"max_alternatives": 3, "budget_period": 86400.0, "criterion_allocators": CHAIN}),
    (NASA, 300, {"patience": DAYS_2}),
    # windows that can fail: the request classes sleep only after failures P_a cannot undo
    (GAIA, 300, {"availability": True}),
    (NASA, 300, {"availability": True, "patience": DAYS_2}),
]


def _run(monkeypatch, value: str, trace: str, jobs: int, options: dict) -> VOModel:
    monkeypatch.setenv(REFERENCE_ENV, value)
    model = VOModel(trace=trace, jobs=jobs, rng=3, **options)
    model.run()
    return model


@pytest.mark.parametrize(("trace", "jobs", "options"), CASES, ids=lambda c: str(c))
def test_reference_paths_give_the_fast_paths_tables(monkeypatch, trace, jobs, options):
    ref = _run(monkeypatch, "1", trace, jobs, options)
    fast = _run(monkeypatch, "0", trace, jobs, options)
    assert (ref.job_frame()["state"] == "completed").sum() > jobs // 3
    # a waiting job's reason names its last search: the per-job cycle searches every cycle,
    # a sleeping class does not, so the reasons of jobs still waiting may name other cycles
    drop = ["reason", "metadata"]
    pd.testing.assert_frame_equal(
        ref.job_frame().drop(columns=drop), fast.job_frame().drop(columns=drop)
    )
    pd.testing.assert_frame_equal(ref.task_frame(), fast.task_frame())
    pd.testing.assert_frame_equal(ref.cycle_frame(), fast.cycle_frame())
    assert ref.attempts == fast.attempts  # windows that can fail: each one's draw and fate


def test_the_reference_switch(monkeypatch):
    monkeypatch.setenv(REFERENCE_ENV, "1")
    assert reference() and code_path() == "reference"
    monkeypatch.setenv(REFERENCE_ENV, "0")
    assert not reference() and code_path() == "fast"
    monkeypatch.setenv(REFERENCE_ENV, "yes")
    with pytest.raises(ParameterError, match="VOSIM_REFERENCE='yes'"):
        reference()


def test_a_bad_reference_switch_is_refused_before_the_run(monkeypatch, tmp_path, capsys):
    monkeypatch.setenv(REFERENCE_ENV, "yes")
    out = tmp_path / "out"
    assert main(["run", "--jobs", "20", "--quiet", "--out", str(out)]) == 2
    assert "vosim: error: environment variable VOSIM_REFERENCE='yes'" in capsys.readouterr().err
    assert not out.exists()  # refused before any work


def test_compile_notices_bracket_each_outermost_compilation_of_a_kernel():
    from types import SimpleNamespace

    from numba.core import event

    from vosim.core.code_path import kernels, on_compile

    kernels("vosim.market.count_kernels")  # the listener starts with the first kernels

    def compile_event(module: str) -> dict:
        return {"dispatcher": SimpleNamespace(py_func=SimpleNamespace(__module__=module))}

    calls = []
    on_compile(calls.append)
    try:
        outer, inner = compile_event("vosim.policies.x"), compile_event("vosim.market.y")
        event.start_event("numba:compile", data=outer)
        event.start_event("numba:compile", data=inner)  # a helper inside: no second notice
        assert calls == [True]
        event.end_event("numba:compile", data=inner)
        assert calls == [True]
        event.end_event("numba:compile", data=outer)
        assert calls == [True, False]
        other = compile_event("numpy.linalg")  # not vosim's: no notice
        event.start_event("numba:compile", data=other)
        event.end_event("numba:compile", data=other)
        assert calls == [True, False]
        on_compile(None)
        event.start_event("numba:compile", data=outer)
        event.end_event("numba:compile", data=outer)
        assert calls == [True, False]
    finally:
        on_compile(None)


def test_an_entry_point_still_compiling_is_waited_for_with_the_notice_on(monkeypatch):
    from vosim.core import code_path, precompile

    count = "vosim.market.count_kernels"
    calls, waited = [], []
    monkeypatch.setattr(precompile, "start", lambda **kwargs: ())
    still = {(count, None), (count, "cut_view_rows")}  # the module and one entry point compiling
    monkeypatch.setattr(precompile, "pending", lambda m, e=None: (m, e) in still)
    monkeypatch.setattr(precompile, "wait", lambda m, e=None: waited.append((m, e, list(calls))))
    code_path.on_compile(calls.append)
    try:
        module = code_path.kernels.__wrapped__(count)  # past the cache of modules
        assert module.__name__ == count and waited == []  # nothing read yet
        from vosim.market import count_kernels

        assert module.cut_view_rows is count_kernels.cut_view_rows
        assert waited == [(count, "cut_view_rows", [True])] and calls == [True, False]
        assert module.cut_view_rows is count_kernels.cut_view_rows  # kept: no second wait
        assert module.count_rows is count_kernels.count_rows  # not compiling: no wait
        assert len(waited) == 1 and calls == [True, False]
        plain = code_path.kernels.__wrapped__("vosim.core.slot_kernels")  # nothing to wait for
        from vosim.core import slot_kernels

        assert plain is slot_kernels
    finally:
        code_path.on_compile(None)
