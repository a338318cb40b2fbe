"""The slot-list cache gives, cycle by cycle, exactly the slot list built from scratch."""

import numpy as np
import pytest

from vosim import VOModel
from vosim.agents.metascheduler import MetaschedulerAgent
from vosim.market.free_time import count_view
from vosim.market.slots import free_slots

AMP = dict.fromkeys(("finish", "runtime", "cost"), "amp")
#: NASA's 128-node jobs starve behind the owners' local jobs and would wait out the default
#: 30-day patience (~8,000 cycles of an unchanged queue): a short patience ends the drain.
SHORT = {"patience": 2 * 86400.0}


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(trace="UniLu-Gaia-2014-2", jobs=1500, criterion_allocators=AMP),
        dict(trace="NASA-iPSC-1993-3.1-cln", jobs=400, max_alternatives=3, **SHORT),
        # whole nodes: the availability knapsack is slow on Gaia's 2,004 processors
        dict(trace="UniLu-Gaia-2014-2", jobs=600, availability=True, resources="nodes"),
        # prices that move every cycle; owners who leave (their nodes leave the slot list)
        dict(trace="UniLu-Gaia-2014-2", jobs=400, pricing_policy="demand"),
        # owners review their revenue over one scheduling interval (a day here): they leave
        # at different times while jobs still run (about days 2.6 and 5.3)
        dict(
            trace="NASA-iPSC-1993-3.1-cln",
            jobs=400,
            scheduling_interval=86400.0,
            owner_exit_revenue=6000.0,
            **SHORT,
        ),
    ],
)
def test_cached_slot_list_equals_the_one_built_from_scratch(monkeypatch, kwargs):
    cached = MetaschedulerAgent.slot_list
    checked = []

    def both(self, now, nodes=None):
        if nodes is not None:  # the freed nodes' slots: checked below on every full list
            return cached(self, now, nodes)
        slots = cached(self, now)
        model = self.model
        node, a, b, _ = model.busy_time.intervals()
        until = now + self.scheduling_interval
        fresh = free_slots(
            model.node_ids, model.node_price, model.node_performance, node, a, b, now, until
        )
        pooled = self.offers.pooled  # the slot list is then each pool's count, as levels
        if pooled:  # the plain count view: the cache keeps levels of its own
            with monkeypatch.context() as plain:
                plain.setenv("VOSIM_REFERENCE", "1")
                fresh = count_view(fresh, model.free_time.pool)
        for field in ("node", "start", "end", "price", "performance"):
            np.testing.assert_array_equal(getattr(slots, field), getattr(fresh, field))
        # a few nodes' slots (their pools' under counts): the same rows, in the same order
        some = np.unique(fresh.node[:: max(1, len(fresh) // 3)])
        part = cached(self, now, some)
        rows = np.isin(fresh.node, model.free_time.members(some) if pooled else some)
        for field in ("node", "start", "end", "price", "performance"):
            np.testing.assert_array_equal(getattr(part, field), getattr(fresh, field)[rows])
        checked.append(len(slots))
        return slots

    monkeypatch.setattr(MetaschedulerAgent, "slot_list", both)
    model = VOModel(rng=3, **kwargs)
    model.run()
    assert len(checked) > 100 and model.ledger.completed > 0
    if "owner_exit_revenue" in kwargs:  # the case is one where owners do leave
        assert not all(owner.active for owner in model.owners)
