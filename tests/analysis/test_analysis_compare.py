"""Two studies' paired tests side by side: which findings hold in both."""

from __future__ import annotations

import pandas as pd
import pytest

from vosim.analysis.compare import VERDICTS, _verdict, compare_studies, write_comparison
from vosim.errors import ConfigError
from vosim.runs.batch import run_sweep
from vosim.runs.cli import main
from vosim.runs.config import parse_sweep

BASE = """
name = "{name}"
[scenario]
trace = "NASA-iPSC-1993-3.1-cln"
jobs = 30
scheduling_interval = 86400.0
cycle_period = 3600.0
max_alternatives = 3
patience = 172800.0
{scenario}
[sweep]
ua = [0, 50]
{sweep}
[run]
repetitions = 3
seed = 3
{run}
[[baseline]]
policy = "easy"
"""


@pytest.fixture(scope="module")
def studies(tmp_path_factory):
    root = tmp_path_factory.mktemp("compare")
    plain = BASE.format(name="plain", scenario="", sweep="", run="")
    priced = BASE.format(
        name="priced",
        scenario="",
        sweep='pricing_policy = ["fixed", "demand"]',
        run='factors = ["pricing_policy"]',
    )
    dirs = {}
    for name, text in (("plain", plain), ("priced", priced)):
        dirs[name] = root / name
        run_sweep(parse_sweep(text), dirs[name], workers=2)
    return dirs


def test_a_study_against_itself_holds_or_not_in_both(studies):
    table = compare_studies(studies["plain"], studies["plain"])
    assert len(table) and set(table["verdict"]) <= {"holds in both", "in neither"}
    pd.testing.assert_series_equal(
        table["difference_first"], table["difference_second"], check_names=False
    )
    assert table.attrs["environment"] == []
    assert set(table["direction"]) <= {"same", "none in one"}


def test_studies_meet_at_the_fixed_value_of_the_other(studies):
    table = compare_studies(studies["plain"], studies["priced"])
    # the plain study keeps the default fixed prices: it meets the priced one there only
    assert table.attrs["environment"] == ["pricing_policy"]
    assert set(table["pricing_policy"]) == {"fixed"}
    assert set(table["policy"]) == {"ua=0", "ua=50"} and set(table["baseline"]) == {"policy=easy"}
    # the fixed level's runs are the plain study's runs (same seeds, same parameters)
    pd.testing.assert_series_equal(
        table["policy_mean_first"], table["policy_mean_second"], check_names=False
    )


def test_verdicts_by_hand():
    def row(significant, difference):
        return pd.Series({"significant": significant, "difference": difference})

    assert _verdict(row(True, 2.0), row(True, 1.0)) == "holds in both"
    assert _verdict(row(True, 2.0), row(True, -1.0)) == "differs"
    assert _verdict(row(True, 2.0), row(False, 1.0)) == "only in the first"
    assert _verdict(row(False, 2.0), row(True, 1.0)) == "only in the second"
    assert _verdict(row(False, 2.0), row(False, -1.0)) == "in neither"
    assert len(VERDICTS) == 5


def test_the_page_and_the_cli(studies, tmp_path, capsys):
    page, csv = write_comparison(studies["plain"], studies["priced"], tmp_path / "c.html")
    text = page.read_text()
    assert "Which findings hold in both studies: plain and priced" in text
    assert len(pd.read_csv(csv)) == len(compare_studies(studies["plain"], studies["priced"]))
    out = tmp_path / "cli.html"
    args = ["compare", str(studies["plain"]), str(studies["priced"]), "--out", str(out)]
    assert main(args) == 0
    assert f"wrote {out}" in capsys.readouterr().out


def test_a_study_without_baseline_is_named(studies, tmp_path, capsys):
    bare = tmp_path / "bare"
    text = BASE.format(name="bare", scenario="", sweep="", run="").split("[[baseline]]")[0]
    run_sweep(parse_sweep(text), bare, workers=1)
    with pytest.raises(ConfigError, match="no baseline"):
        compare_studies(studies["plain"], bare)
    assert main(["compare", str(studies["plain"]), str(bare)]) == 2
    assert "bare" in capsys.readouterr().err
