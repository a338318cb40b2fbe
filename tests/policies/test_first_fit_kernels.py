"""The compiled first fit over request classes gives the plain loop's run, job for job.

``first_fit_kernels.first_fit`` runs :meth:`CyclicScheme._cycle_classes`' loop (search by the
criterion, AMP's earliest start, the cut) in one call; the plain loop is the oracle. The
oracle is the same model with the scheme's ``reference`` made true once it is built: the
classes stay, and their plain loop (and the per-job cycle's plain searches) run, every other
speed-up left as it is. One job passed per class makes every class that found a window ask
for its next; the cost users' fallback chain hands the rest of a pass to the plain loop.
"""

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from vosim import VOModel
from vosim.allocators.aep import (
    BELOW_FLOOR,
    FOUND,
    NO_WINDOW,
    ONLY_USABLE,
    min_cost,
    min_finish,
    refusal_reason,
)
from vosim.core import ResourceRequest, Slot, SlotList
from vosim.core.code_path import REFERENCE_ENV
from vosim.policies import cyclic_scheme

GAIA, NASA, LCG = "UniLu-Gaia-2014-2", "NASA-iPSC-1993-3.1-cln", "LCG-2005-1"


def _run(
    plain: bool, fit_jobs: int, per_job: bool = False, **kwargs
) -> tuple[list[pd.DataFrame], int]:
    """The run's jobs, tasks and cycles tables, and the windows the compiled first fit found.

    ``per_job``: every cycle searches every waiting job (the classes off), so every search
    goes through the one-job call of the compiled first fit.
    """
    found = [0]
    real = cyclic_scheme.CyclicScheme._fit

    def counted(self, *args):
        result = real(self, *args)
        found[0] += int(np.count_nonzero(result[2][2] == FOUND))
        return result

    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(REFERENCE_ENV, "0")
        patch.setattr(cyclic_scheme.CyclicScheme, "_fit", counted)
        patch.setattr(cyclic_scheme, "_FIT_JOBS", fit_jobs)
        model = VOModel(**kwargs)
        assert model.metascheduler.scheduler.fast  # the classes, on either side
        model.metascheduler.scheduler.fast = not per_job
        if plain:  # after the build: the classes stay
            patch.setattr(cyclic_scheme, "reference", lambda: True)
        model.run()
    tables = [model.job_frame(), model.task_frame(), model.cycle_frame()]
    return tables, found[0]


def _same(left: list[pd.DataFrame], right: list[pd.DataFrame]) -> None:
    for a, b in zip(left, right, strict=True):
        pd.testing.assert_frame_equal(a, b)


ALL = {
    "amp": dict.fromkeys(("finish", "runtime", "cost"), "amp"),
    "min_cost": dict.fromkeys(("finish", "runtime", "cost"), "min_cost"),
    "min_runtime": dict.fromkeys(("finish", "runtime", "cost"), "min_runtime"),
    # a chain is the plain loop's: a pass hands over to it at a cost user's job
    "chain": {"finish": "min_finish", "runtime": "min_runtime", "cost": "min_cost>amp"},
}


@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    trace=st.sampled_from([GAIA, NASA]),
    jobs=st.integers(150, 400),
    seed=st.integers(0, 2**16),
    allocators=st.sampled_from([None, *ALL]),
    fit_jobs=st.sampled_from([1, 32]),
)
@example(trace=GAIA, jobs=400, seed=1, allocators=None, fit_jobs=32)
@example(trace=GAIA, jobs=300, seed=2, allocators=None, fit_jobs=1)
@example(trace=GAIA, jobs=400, seed=3, allocators="chain", fit_jobs=32)
def test_compiled_first_fit_gives_the_plain_loops_run(trace, jobs, seed, allocators, fit_jobs):
    kwargs = dict(
        trace=trace,
        jobs=jobs,
        rng=seed,
        criterion_allocators=ALL.get(allocators),
        patience=2 * 86400.0,  # NASA's whole-machine jobs would wait for days
    )
    plain, none = _run(True, fit_jobs, **kwargs)
    fast, found = _run(False, fit_jobs, **kwargs)
    assert none == 0
    assert found > 0  # the compiled loop took part
    _same(fast, plain)


@pytest.mark.parametrize("trace", [GAIA, NASA])
def test_compiled_search_of_one_job_gives_the_plain_per_job_cycle(trace):
    """The per-job cycle (every waiting job searched, as at a run's first cycle)."""
    kwargs = dict(trace=trace, jobs=250, rng=5, patience=2 * 86400.0, per_job=True)
    plain, _ = _run(True, 32, **kwargs)
    fast, found = _run(False, 32, **kwargs)
    assert found > 0
    _same(fast, plain)


def test_compiled_first_fit_on_one_processor_nodes():
    """LCG-2005-1: 24,515 one-processor pools, so every cut is a plain cut of its rows."""
    kwargs = dict(trace=LCG, jobs=400, rng=3)
    plain, _ = _run(True, 32, **kwargs)
    fast, found = _run(False, 32, **kwargs)
    assert found > 0
    _same(fast, plain)


def test_compiled_first_fit_stays_out_of_per_period_accounts():
    """Budgets paid per period are checked job by job in the plain loop: no compiled pass."""
    kwargs = dict(trace=GAIA, jobs=150, rng=0, budget_period=3 * 86400.0, budget_allowance=0.3)
    _, found = _run(False, 32, **kwargs)
    assert found == 0


def _slots(*rows):
    return SlotList([Slot(*row) for row in rows])


#: One node long enough for two tasks of 10.
ONE_LONG = _slots((0, 0.0, 100.0, 1.0, 1.0), (1, 0.0, 5.0, 1.0, 1.0))
#: Two nodes long enough, never free at once.
APART = _slots((0, 0.0, 20.0, 1.0, 1.0), (1, 50.0, 90.0, 1.0, 1.0))
#: Two nodes at once, the two tasks costing 20.
TWO = _slots((0, 0.0, 90.0, 1.0, 1.0), (1, 0.0, 90.0, 1.0, 1.0))


@pytest.mark.parametrize(
    ("slots", "request_", "kind", "usable", "floor"),
    [
        (ONE_LONG, (2, 10.0, 1e9), ONLY_USABLE, 1, 0),
        (APART, (2, 10.0, 1e9), NO_WINDOW, 0, 0),
        (TWO, (2, 10.0, 15.0), BELOW_FLOOR, 0, 20.0),
        (TWO, (1, 10.0, 5.0), BELOW_FLOOR, 0, 10.0),
        (_slots((0, 0.0, 5.0, 1.0, 1.0)), (1, 10.0, 5.0), ONLY_USABLE, 0, 0),
    ],
)
def test_refusal_reason_is_the_searchs_own(slots, request_, kind, usable, floor):
    n, volume, budget = request_
    request = ResourceRequest(n=n, volume=volume, budget=budget)
    for search in (min_finish, min_cost):
        result = search(slots, request)
        assert result.window is None
        assert refusal_reason(kind, n, budget, usable, floor) == result.reason


@pytest.mark.parametrize("kind", [FOUND, 0, 5])
def test_refusal_reason_refuses_what_is_not_a_refusal(kind):
    with pytest.raises(ValueError, match=str(kind)):
        refusal_reason(kind, 1, 1.0, 0, math.nan)
