"""The named studies (vosim.runs.studies): sweeps of the stated sizes, run by ``vosim study``."""

import importlib.util

import pandas as pd
import pytest

from vosim.errors import VosimError
from vosim.runs.cli import main
from vosim.runs.studies import STUDIES, VARIANTS, study_config
from vosim.runs.sweep_results import load_cycles, load_results, load_table

HAS_VLC = importlib.util.find_spec("vl_convert") is not None


def test_studies_are_valid_sweeps():
    for name in STUDIES:
        sizes = [study_config(name, v) for v in VARIANTS]
        assert [c.run_count for c in sizes] == sorted(c.run_count for c in sizes)
        assert all(c.scenario["trace"] == sizes[0].scenario["trace"] for c in sizes)
    main = study_config("vo-policies")
    # the study's floor: month-scale windows, five U_a per objective, five repetitions
    assert main.scenario["jobs"] >= 5000 and main.repetitions >= 5 and main.run_count == 95
    assert set(main.sweep["vo_objective"]) == {"cost", "finish", "runtime"}
    assert len(main.sweep["ua"]) >= 5 and min(main.sweep["ua"]) < 37 < max(main.sweep["ua"])
    assert {b["policy"] for b in main.baselines} == {"easy", "fcfs"}
    assert {b["policy"] for b in main.policies} == {"knapsack", "conservative"}
    full = study_config("vo-policies", "full")
    assert full.repetitions >= 10 and len(full.sweep["offered_load"]) == 3
    assert set(full.factors) == {"offered_load", "pricing_policy", "user_exit_satisfaction"}
    assert {b["policy"] for b in full.policies} == {"knapsack", "availability", "conservative"}
    # ten windows of 5,000 jobs: the whole trace but its last 1,987 jobs
    assert full.repetitions * full.scenario["jobs"] <= 51_987
    lcg = {v: study_config("lcg-grid", v) for v in VARIANTS}
    for config in lcg.values():  # the real grid: its sites, fixed and demand pricing
        assert config.scenario["owners"] == "trace" and "offered_load" not in config.scenario
        assert list(config.sweep["pricing_policy"]) == ["fixed", "demand"]
        assert {b["policy"] for b in config.baselines} == {"easy"}
        assert {b["policy"] for b in config.policies} == {"knapsack"}
    for variant in ("quick", "full"):  # with and without users' churn
        assert list(lcg[variant].sweep["user_exit_satisfaction"]) == [None, 0.6]
    assert set(lcg["main"].sweep["vo_objective"]) == {"cost", "finish", "runtime"}
    assert lcg["main"].segments and lcg["main"].repetitions >= 3
    # --full: the whole trace, three times
    assert lcg["full"].scenario["jobs"] is None and lcg["full"].repetitions >= 3
    with pytest.raises(VosimError, match="unknown study"):
        study_config("nope")
    with pytest.raises(VosimError, match="unknown variant 'huge'"):
        study_config("vo-policies", "huge")


def test_cli_study_quick_runs_reports_and_resumes(tmp_path, capsys):
    """The quick variant: 36 runs of 300 jobs, with and without churn.

    Without churn every run completes at least 90 % of its jobs; with churn the report says
    how many users left and why (their satisfaction's parts)."""
    out = tmp_path / "study"
    args = ["study", "vo-policies", "--quick", "--out", str(out), "--workers", "2", "--quiet"]
    assert main(args) == 0
    printed = capsys.readouterr().out
    assert "36 run now, 0 already done, 0 failed" in printed
    assert (out / "report.html").is_file() and (out / "report-tests.csv").is_file()
    table = load_results(out)
    assert len(table) == 36 and (table["status"] == "ok").all()
    assert table["baseline"].notna().sum() == 4 and table["named_policy"].notna().sum() == 8
    assert set(pd.unique(load_cycles(out)["run_id"])) == set(table["run_id"])
    staying = table[table["user_exit_satisfaction"].isna()]
    assert len(staying) == 18 and (staying["completed"] >= 0.9 * staying["jobs_read"]).all()
    assert (staying["users_left"] == 0).all()
    leaving = table[table["user_exit_satisfaction"].notna()]
    assert leaving["users_left"].sum() > 0
    summary = pd.read_csv(out / "report-summary.csv")
    assert {"users_left", "users_left_wait_part", "users_left_queue_part"} <= set(summary)
    assert main(args) == 0  # again: every run is skipped, the report rewritten
    assert "0 run now, 36 already done" in capsys.readouterr().out


def test_lcg_grid_quick_sweep_reports_the_vos(tmp_path, capsys):
    """The real grid's quick variant, one 200-job window of it: 16 runs on the 170 sites.

    The quick variant's file as ``vosim study lcg-grid --quick`` runs it (its factors, policies
    and baselines), shrunk to one repetition of 200 jobs so that the suite stays within its
    time; ``vosim sweep`` then ``vosim report`` are the two halves of ``vosim study`` (whose
    own path the vo-policies test above runs). Every run's VO tables add up to the run; the
    report has the VO section, its CSV and, with vl-convert, its PNGs."""
    text = STUDIES["lcg-grid"].variants["quick"]
    for full, small in (("jobs = 500", "jobs = 200"), ("repetitions = 2", "repetitions = 1")):
        assert full in text
        text = text.replace(full, small)
    (tmp_path / "lcg.toml").write_text(text)
    out = tmp_path / "lcg"
    args = ["sweep", str(tmp_path / "lcg.toml"), "--out", str(out), "--workers", "2", "--quiet"]
    assert main(args) == 0
    assert "16 run now, 0 already done, 0 failed" in capsys.readouterr().out
    assert main(["report", str(out)]) == 0
    table = load_results(out)
    assert len(table) == 16 and (table["status"] == "ok").all()
    assert (table["node_count"] == 24515).all()
    groups, pairs = load_table(out, "groups"), load_table(out, "group_sites")
    per_run = groups.groupby("run_id")[["jobs_read", "completed", "jobs_entered"]].sum()
    runs = table.set_index("run_id")
    for column in ("jobs_read", "completed", "jobs_entered"):
        assert (per_run[column] == runs.loc[per_run.index, column]).all()
    assert groups["recorded_site_hhi"].between(0, 1).all()
    assert set(pairs["placement"]) == {"run", "trace"}
    staying = table[table["user_exit_satisfaction"].isna()]
    assert (staying["completed"] >= 0.9 * staying["jobs_read"]).all()
    vos = pd.read_csv(out / "report-vos.csv")
    assert set(vos["policy"]) == {"ua=0", "ua=50", "policy=knapsack", "policy=easy"}
    assert vos["site_hhi"].dropna().between(0, 1).all()
    page = (out / "report.html").read_text()
    assert "The VOs: how concentrated their work is" in page and "as the grid ran them" in page
    if HAS_VLC:
        assert (out / "report-vo-hhi.png").is_file() and (out / "report-vo-sites.png").is_file()
