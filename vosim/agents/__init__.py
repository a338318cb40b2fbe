"""Mesa agents of the VO: users, resource owners and the metascheduler (thin; they delegate).

The agents load on first use (``vosim.agents.UserAgent``), so the job ledger
(:mod:`vosim.agents.ledger`) and the other helpers import without Mesa.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from vosim.agents.metascheduler import MetaschedulerAgent
    from vosim.agents.owner import ResourceOwnerAgent
    from vosim.agents.user import UserAgent

__all__ = ["MetaschedulerAgent", "ResourceOwnerAgent", "UserAgent"]

_HOME = {
    "MetaschedulerAgent": "vosim.agents.metascheduler",
    "ResourceOwnerAgent": "vosim.agents.owner",
    "UserAgent": "vosim.agents.user",
}


def __getattr__(name: str) -> Any:
    """The agent class ``name``, imported from its module on first use."""
    if name not in _HOME:
        raise AttributeError(f"module 'vosim.agents' has no attribute {name!r}")
    return getattr(importlib.import_module(_HOME[name]), name)
