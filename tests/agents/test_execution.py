"""The VO's jobs holding windows: busy nodes kept from task events, the unstarted
reservations kept as they are made and end, and the traced machine's processors counted from
the reservations alone (``Execution.processors``)."""

import numpy as np
import pytest

from vosim.agents.execution import Execution
from vosim.model import VOModel
from vosim.policies.batch_windows import IdenticalSlots
from vosim.policies.easy import EASY


@pytest.mark.parametrize("availability", [False, True])  # True: interrupted windows too
def test_busy_nodes_and_unstarted_equal_scans_over_running_jobs(monkeypatch, availability):
    """Both are kept incrementally; at every pass they equal a scan over the running jobs."""
    record = VOModel.record_cycle
    seen, ahead, remembered, stops = [], [], [], []

    def checked(self):
        run, now = self.metascheduler.execution, self.time
        expected = sum(
            1
            for job in run.running.values()
            if run.model.ledger[job.index].start <= now
            for end in run.model.ledger[job.index].task_ends
            if now < end
        )
        assert run.busy_nodes(now) == expected
        seen.append(expected)
        # a stopped attempt is remembered only while one of its busy events is pending
        assert len(run._stopped) == len(run._lapsing)
        assert all(last > now for last, _, _ in run._lapsing)
        remembered.append(len(run._stopped))
        start = run.model.ledger.start
        later = sorted(i for i in run.running if start[i] > now)
        assert run.unstarted() == later
        ahead.append(len(later))
        record(self)

    stop = Execution._stop

    def counted(self, *args):
        stops.append(args)
        stop(self, *args)

    monkeypatch.setattr(VOModel, "record_cycle", checked)
    monkeypatch.setattr(Execution, "_stop", counted)
    # whole nodes with availability: the availability knapsack is slow on Gaia's processors;
    # its first 300 jobs already have dozens of interruptions and hundreds of moved windows
    nodes = {"resources": "nodes"} if availability else {}
    model = VOModel(jobs=300 if availability else 800, rng=5, availability=availability, **nodes)
    model.run()
    assert max(seen) > 0 and max(ahead) > 0
    assert len(stops) > max(remembered)  # stopped attempts were forgotten as they lapsed
    if availability:
        assert model.job_frame()["failures"].sum() > 0
    # an earlier time is counted over the running jobs
    ms = model.metascheduler
    assert ms.execution.busy_nodes(0.0) == 0


def test_processors_are_the_slot_lists_count_form(monkeypatch):
    """At every pass on the traced machine, ``state.processors`` is the slot list's count form.

    The metascheduler counts the machine's processors from the VO's reservations alone
    (``Execution.processors``); the slot list is built from the owners' schedules. Both must
    describe the same slots, processor for processor, while jobs start, end early and queue.
    """
    checked = []
    decide = EASY.decide

    def compare(self, state):
        counted = state.processors
        assert counted is not None
        from_slots = IdenticalSlots.of(state.slots, state.time)
        if from_slots is None:  # no free slot at all in [t, t + L)
            assert counted[3].size == 0 and counted[4]()[0].size == 0
        else:
            end, price, perf, free, later = counted
            later_start, later_node = later()
            assert (end, price, perf) == (from_slots.end, from_slots.price, from_slots.performance)
            np.testing.assert_array_equal(free, from_slots.groups[0].nodes)
            want_start, want_node = from_slots.later()
            np.testing.assert_array_equal(later_start, want_start)
            np.testing.assert_array_equal(later_node, want_node)
        checked.append(state.time)
        return decide(self, state)

    monkeypatch.setattr(EASY, "decide", compare)
    model = VOModel(
        trace="UniLu-Gaia-2014-2", jobs=800, machine=True, cycle_period=0, policy="easy", rng=3
    )
    model.run(replayed=False)  # the agents' passes, not the machine's compiled replay
    assert len(checked) > 500
    assert model.completed == 800


def test_processors_refuse_a_later_read_after_reservations_changed():
    """``later()`` reads the machine's reserved ends in place (no copy per pass): read after a
    reservation or release changed them, it would describe another pass, so it raises."""
    model = VOModel(
        trace="UniLu-Gaia-2014-2", jobs=60, machine=True, cycle_period=0, policy="easy", rng=3
    )
    execution = model.metascheduler.execution
    model.run_until(model.jobs[0].submit_time + 1.0)  # the first job runs
    now = float(model.time)
    *_, later = execution.processors(now, now + 1e6)
    assert later()[1].size >= 1  # the running job's processors free up later
    model.run_until(now + 1e6)  # jobs end and start: reserved ends change
    with pytest.raises(RuntimeError, match="reservations changed"):
        later()
