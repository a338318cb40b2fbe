"""The owners' free processors as the VO metascheduler sees them each cycle: the slot list."""

from __future__ import annotations

import mesa
import numpy as np

from vosim.core.code_path import reference
from vosim.core.slots import SlotList
from vosim.market.free_time import count_view
from vosim.market.slot_cache import SlotListCache
from vosim.market.slots import free_slots

__all__ = ["Offers"]


class Offers:
    """The free slots all owners offer the VO over a scheduling interval.

    Owners publish the free time of their nodes (their local job flows and the VO's
    reservations taken out); the metascheduler reads it as one slot list per cycle. The free
    spans are kept between cycles and only nodes whose busy time changed are rebuilt
    (:class:`~vosim.market.slot_cache.SlotListCache`, tested equal to a list built from
    scratch on fixed and demand pricing and with owners leaving); each cycle's prices are
    read as they are then.

    Parameters
    ----------
    model : VOModel
        The model (``owners``, ``node_price``, ``node_performance``, ``pricing_policy``,
        ``owner_exit_revenue``, ``local_flow``, ``availability``).

    Attributes
    ----------
    pooled : bool
        The slot list is each pool's free count (set below).
    counted : bool
        Every node is identical (one price, one performance), prices are fixed, owners never
        leave and nodes hold no busy time but the VO's tasks (the traced machine): the slot
        list has a count form built from the reservations alone
        (:attr:`~vosim.policies.base.CycleState.processors`).

    References
    ----------
    VO Preferences §2 (the slot list of the scheduling interval from the owners' schedules);
    AEP §2.1 (slots: a node's free span with its price and performance).
    """

    def __init__(self, model: mesa.Model) -> None:
        self.model = model
        static = model.pricing_policy == "fixed" and model.owner_exit_revenue is None
        price, perf = model.node_price, model.node_performance
        self.counted = (
            static
            and model.local_flow is None
            and not model.local_online
            and not model.availability
            and bool((price == price[0]).all() and (perf == perf[0]).all())
        )
        #: Some pool holds several resources and the slot list has no count form of its own:
        #: the slot list is the count view (:func:`~vosim.market.free_time.count_view`) and
        #: reservations are bound to processors when made.
        self.pooled = model.free_time.counted and not self.counted
        pool = model.free_time.pool if self.pooled else None
        self.cache = SlotListCache(model.node_performance, pool)

    def prepare(self, now: float, until: float) -> None:
        """Bring the domain's busy time up to ``[now, until)`` before a pass decides.

        The domain's busy time forgets what ended (in batches,
        :meth:`~vosim.market.busy_time.BusyTime.forget_ended`) and each owner generates
        its local load up to ``until``
        (:meth:`ResourceOwnerAgent.prepare <vosim.agents.owner.ResourceOwnerAgent.prepare>`;
        every owner's, whoever has left the VO, so the draws are the same). Called once per
        pass before the policy runs, so that reading the slot list changes nothing. ``now``
        and ``until``: model time units, ``now <= until``; raises nothing of its own.

        References
        ----------
        VO Preferences §2: owners' local jobs have priority and are placed before the VO's.
        """
        model = self.model
        model.busy_time.forget_ended(now, (until - now) / 16)  # bookkeeping: slots unchanged
        for owner in model.owners:
            owner.prepare(until)

    def slot_list(self, now: float, until: float, nodes: np.ndarray | None = None) -> SlotList:
        """Free slots of the VO's owners' nodes over ``[now, until)``, model time units.

        Reads the domain's busy time as :meth:`prepare` left it at this pass (no side
        effect on the model). ``nodes`` (node ids, shape (r,)): only those nodes' slots.
        """
        model = self.model
        active = [owner for owner in model.owners if owner.active]
        pools = model.free_time
        if self.pooled and nodes is not None:  # a pool's processors are read together
            nodes = pools.members(nodes)
        if reference():  # the plain build the cache speeds up
            slots = self._built(active, now, until, nodes)
            return count_view(slots, pools.pool) if self.pooled else slots
        return self.cache.slots(active, model.busy_time, now, until, model.node_price, nodes)

    def _built(self, owners: list, now: float, until: float, nodes: np.ndarray | None) -> SlotList:
        """The slot list of :meth:`slot_list` from the domain's busy intervals at once.

        :func:`~vosim.market.slots.free_slots` over the owners' nodes (``nodes`` among them,
        if given): the plain function :class:`~vosim.market.slot_cache.SlotListCache`
        speeds up, run under ``VOSIM_REFERENCE=1``.
        """
        model = self.model
        if not owners:
            empty = np.empty(0)
            return SlotList.trusted(np.empty(0, dtype=np.int64), empty, empty, empty, empty)
        ids = np.concatenate([owner.node_ids for owner in owners])
        if nodes is not None:
            ids = ids[np.isin(ids, nodes)]
        node, a, b, _ = model.busy_time.intervals()
        model.busy_time.clear_changes()  # the cache's marks: nothing reads them here
        price, performance = model.node_price, model.node_performance
        return free_slots(ids, price, performance, node, a, b, now, until)
