"""busy_nodes, kept from task events, equals a count over the running jobs at every cycle."""

import pytest

from vosim.model import VOModel


@pytest.mark.parametrize("availability", [False, True])  # True: interrupted windows too
def test_busy_nodes_equals_a_count_over_running_tasks(monkeypatch, availability):
    record = VOModel.record_cycle
    seen = []

    def checked(self):
        run, now = self.metascheduler.execution, self.time
        expected = sum(
            1 for job in run.running if job.start <= now for end in job.task_ends if now < end
        )
        assert run.busy_nodes(now) == expected
        seen.append(expected)
        record(self)

    monkeypatch.setattr(VOModel, "record_cycle", checked)
    # whole nodes with availability: the availability knapsack is slow on Gaia's processors;
    # its first 300 jobs already have dozens of interruptions and hundreds of moved windows
    nodes = {"resources": "nodes"} if availability else {}
    model = VOModel(jobs=300 if availability else 800, rng=5, availability=availability, **nodes)
    model.run()
    assert max(seen) > 0
    if availability:
        assert model.job_frame()["failures"].sum() > 0
    # an earlier time is counted over the running jobs
    ms = model.metascheduler
    assert ms.execution.busy_nodes(0.0) == 0
