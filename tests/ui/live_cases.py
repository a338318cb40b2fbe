"""The small live model shared by the UI's scenario and component tests."""

from __future__ import annotations

from vosim.ui.scenarios import (
    VO_PREFERENCES_SCENARIO,
    LiveModel,
)


def _model(**kwargs) -> LiveModel:
    """A small LiveModel: the VO Preferences batches (100 nodes, cycle 150, L = 600)."""
    args = {"workload": VO_PREFERENCES_SCENARIO, "users": 4, "owners": 5, "rng": 3}
    args.update(kwargs)
    return LiveModel(**args)
