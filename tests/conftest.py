"""Shared test helpers."""

from __future__ import annotations

import pytest


def last_submission_plus_l(**kwargs) -> float:
    """The horizon a run had before issue 18 made runs drain: last submission plus ``L``.

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
