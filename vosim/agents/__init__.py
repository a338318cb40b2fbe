"""Mesa agents of the VO: users, resource owners and the metascheduler (thin; they delegate)."""

from vosim.agents.metascheduler import MetaschedulerAgent
from vosim.agents.owner import ResourceOwnerAgent
from vosim.agents.user import UserAgent

__all__ = ["MetaschedulerAgent", "ResourceOwnerAgent", "UserAgent"]
