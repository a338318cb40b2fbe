"""Shared test helpers."""

from __future__ import annotations

import os

import pytest
from hypothesis import settings

#: ``VOSIM_HYPOTHESIS_PROFILE=ci`` (set by ``.ci/run``) draws the same examples on every run,
#: so CI's verdict on a commit is reproducible; elsewhere each run explores new examples.
settings.register_profile("ci", derandomize=True)
settings.load_profile(os.environ.get("VOSIM_HYPOTHESIS_PROFILE", "default"))


def last_submission_plus_l(**kwargs) -> float:
    """The horizon of a run that does not drain: last submission plus ``L``.

    ``kwargs`` are ``VOModel`` arguments; snapshot tests written before the drain pass this
    as ``horizon`` so that their runs end where the snapshots' did.
    """
    from vosim.model import VOModel

    model = VOModel(**kwargs)
    return max(j.submit_time for j in model.jobs) + model.scheduling_interval


@pytest.fixture
def until_last_submission():
    """:func:`last_submission_plus_l` as a fixture."""
    return last_submission_plus_l
