"""The cyclic scheduling scheme keeps its job records: same seed, same ``jobs.parquet``.

The oracle files were written by ``make_css_oracle.py`` before the scheduling cycle became a
pluggable policy (issue 17), so any change of CSS's decisions shows here.
"""

from __future__ import annotations

import pandas as pd
import pytest
from make_css_oracle import CASES, HERE, records


@pytest.mark.parametrize("name", sorted(CASES))
def test_css_records_unchanged(name):
    expected = pd.read_parquet(HERE / f"{name}.parquet")
    got = records(CASES[name])
    pd.testing.assert_frame_equal(got[expected.columns], expected, check_exact=True)
