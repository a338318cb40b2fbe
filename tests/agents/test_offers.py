"""The owners' offers: a pass prepares every owner before its policy runs, so reading is pure."""

import pytest

from vosim.model import VOModel


def owners_state(model):
    """What a read of the slot list could change: each owner's generated load and busy time."""
    return [
        (
            o.known_until,
            *(column.tobytes() for column in o.intervals()),
            o.local_chains(model.time).version,
        )
        for o in model.owners
    ]


@pytest.mark.parametrize("local_model", ["interval", "online"])
def test_a_policy_reading_the_slot_list_changes_no_owner(local_model):
    """Inside every pass, the owners are the same before and after the policy reads the slots.

    Under the interval model a read used to generate the owners' local load up to the end of
    the scheduling interval (and forget ended rows): a policy's reads were a side effect.
    """
    model = VOModel(
        trace="UniLu-Gaia-2014-2", jobs=60, local_model=local_model, policy="css", rng=3
    )
    scheduler = model.metascheduler.scheduler
    decide, seen = scheduler.decide, []

    def reading(state):
        before = owners_state(model)
        state.slots  # noqa: B018 - the read under test
        seen.append(before == owners_state(model))
        return decide(state)

    scheduler.decide = reading
    model.run()
    assert len(seen) > 10 and all(seen)
