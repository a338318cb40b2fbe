"""The cyclic scheduling scheme keeps its job records: same seed, same ``jobs.parquet``.

The oracle files were written by ``make_css_oracle.py`` before the scheduling cycle became a
pluggable policy, so any change of CSS's decisions shows here. They were re-recorded once,
under the settings below, when each owner's interval local load got its own random stream
(common random numbers across policies): the draws changed, the scheme did not.

Since the oracle was written, what a job costs has changed: the user pays for what ran (column
``cost``), and the reserved window's cost the oracle holds under ``cost`` is now
``window_cost``. The decisions (every other column) must not change: paying later moves no
window. An interrupted task that had ended before the interruption (on a faster node) now pays
to its own end, not to the interruption, so ``paid_for_failures`` may only fall. The oracle's
runs had no patience (no withdrawals): the cases run with ``patience=None``. Every pass now
re-plans unstarted reservations (``replan="always"``, the default), which moves windows
earlier; the oracle's scheme is the single-cycle one, so the cases run with ``replan="never"``
(re-planning has its own tests, ``test_replan.py``). Runs now drain by default; the oracle's
runs ended at the last submission plus ``L``, which the cases pass as ``horizon``. Processors
are now the default resources and 5-10 % the default local load; the oracle's runs had whole
nodes and 10-50 %, which the cases pass. The online local-load model is now the default; the
oracle's load was drawn per interval ahead (``local_model="interval"``), which the cases pass.
Each job now searches its own interval (``look_ahead``, 6 requested times by default); the
oracle's runs searched one ``L`` for all, which the cases pass (``look_ahead=inf``).
"""

from __future__ import annotations

import pandas as pd
import pytest
from make_css_oracle import BEFORE, CASES, HERE, records

from vosim.core.code_path import reference


@pytest.mark.parametrize("name", sorted(CASES))
def test_css_records_unchanged(name, until_last_submission):
    expected = pd.read_parquet(HERE / f"{name}.parquet").rename(columns={"cost": "window_cost"})
    before = dict(BEFORE)  # the oracle's settings, not today's defaults
    before["horizon"] = until_last_submission(**CASES[name])
    got = records({**CASES[name], **before})
    failures = expected.pop("paid_for_failures")
    # the state column's categories now include "withdrawn"; the values must not change
    expected["state"] = expected["state"].cat.set_categories(got["state"].cat.categories)
    columns = list(expected.columns)
    if reference():  # the per-job cycle: a waiting job's reason names its latest search
        columns.remove("reason")
    pd.testing.assert_frame_equal(got[columns], expected[columns], check_exact=True)
    assert (got["paid_for_failures"] <= failures * (1 + 1e-12)).all()
    ran = got["window_cost"].notna()
    # a task run to its slot's end pays the slot: equal but for float rounding of end - start
    last = got["cost"] - got["paid_for_failures"]  # the attempt that holds the window
    assert (last[ran] <= got["window_cost"][ran] * (1 + 1e-9)).all()
    assert (got["cost"][~ran] == 0).all()
