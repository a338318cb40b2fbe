"""Built-in sweeps ("studies") run by ``vosim study NAME``, each in three sizes.

A study is a sweep file (:mod:`vosim.runs.config`) kept in this module; ``vosim study NAME
--out DIR`` runs it like ``vosim sweep`` (resumable: the same ``DIR`` skips finished runs) and
then writes the report (:func:`vosim.analysis.report.write_report`). Each study has three
variants (:data:`VARIANTS`): ``quick`` (a few minutes on 2 cores, for trying it out; CI runs
vo-policies' and one 200-job window of lcg-grid's), ``main`` (the README's main command: what
answers the headline question in 20-27 minutes on 2 cores) and ``full`` (the whole grid, for a
cluster: ``--backend ray``).

Examples
--------
>>> sorted(STUDIES)
['lcg-grid', 'vo-policies']
>>> [study_config("vo-policies", v).run_count for v in VARIANTS]
[36, 95, 2400]
>>> [study_config("lcg-grid", v).run_count for v in VARIANTS]
[32, 48, 168]
"""

from __future__ import annotations

from dataclasses import dataclass

from vosim.errors import ParameterError
from vosim.runs.config import SweepConfig, parse_sweep

__all__ = ["Study", "STUDIES", "VARIANTS", "study_config", "VO_POLICIES", "LCG_GRID"]


def _tables(policies: list[str], baselines: list[str]) -> str:
    """The ``[[policy]]`` and ``[[baseline]]`` tables of a sweep file, one policy each."""
    named = [f'\n[[policy]]\npolicy = "{p}"\n' for p in policies]
    return "".join(named + [f'\n[[baseline]]\npolicy = "{b}"\n' for b in baselines])


#: The sizes of a study: a few minutes, the README's main command, the whole grid.
VARIANTS = ("quick", "main", "full")

#: The VO-policy study on UniLu-Gaia. Each run is 5,000 consecutive jobs (about three weeks
#: of the trace) and each repetition another window of it (``segments``), every policy on
#: the same windows with the same seeds (common random numbers). The cyclic scheme runs
#: with each VO objective at five limits ``U_a`` that bracket VO Preferences §4's compromise
#: (A = U_a near 37 %); ``knapsack`` and ``conservative`` beside it; EASY and FCFS are the
#: baselines. ``main`` keeps one environment (offered load 0.6, fixed prices, users who
#: stay) and five windows: the README's main command (about 13 minutes on 2 cores); ``full``
#: adds loads 0.3 and 0.9, demand pricing, users who leave below satisfaction 0.6 (all as
#: factors), the ``availability`` policy and ten windows (50,000 of the trace's 51,987
#: jobs). ``quick`` is 300-job windows, two objectives and three limits, both churn levels.
VO_POLICIES = {
    "main": """\
name = "vo-policies"
description = "The VO's cyclic scheme (VO objective x U_a), knapsack and conservative \
backfilling against EASY and FCFS on five 5,000-job windows of UniLu-Gaia at offered load 0.6"

[scenario]
trace = "UniLu-Gaia-2014-2"
jobs = 5000
offered_load = 0.6
max_alternatives = 3

[sweep]
vo_objective = ["cost", "finish", "runtime"]
ua = [0, 10, 25, 50, 100]

[run]
repetitions = 5
seed = 1
segments = true
"""
    + _tables(["knapsack", "conservative"], ["easy", "fcfs"]),
    "full": """\
name = "vo-policies-full"
description = "The whole grid of vo-policies: ten 5,000-job windows of UniLu-Gaia, offered \
loads 0.3, 0.6 and 0.9, fixed and demand pricing, with and without users leaving"

[scenario]
trace = "UniLu-Gaia-2014-2"
jobs = 5000
max_alternatives = 3

[sweep]
offered_load = [0.3, 0.6, 0.9]
pricing_policy = ["fixed", "demand"]
user_exit_satisfaction = ["none", 0.6]
vo_objective = ["cost", "finish", "runtime"]
ua = [0, 10, 25, 50, 100]

[run]
repetitions = 10
seed = 1
segments = true
factors = ["offered_load", "pricing_policy", "user_exit_satisfaction"]
"""
    + _tables(["knapsack", "availability", "conservative"], ["easy", "fcfs"]),
    "quick": """\
name = "vo-policies-quick"
description = "Quick variant of vo-policies: two 300-job windows, the cost and finish \
objectives at U_a 0, 50 and 100, knapsack and conservative against EASY, users staying or \
leaving below satisfaction 0.6"

[scenario]
trace = "UniLu-Gaia-2014-2"
jobs = 300
offered_load = 0.6
max_alternatives = 3

[sweep]
user_exit_satisfaction = ["none", 0.6]
vo_objective = ["cost", "finish"]
ua = [0, 50, 100]

[run]
repetitions = 2
seed = 1
segments = true
factors = ["user_exit_satisfaction"]
"""
    + _tables(["knapsack", "conservative"], ["easy"]),
}


#: The real grid: LCG-2005-1's 170 sites as the owners (``owners = "trace"``: each site's
#: capacity estimated from the trace, which records no waits), its 216 users with their
#: groups (the LHC experiments' VOs) in every per-group table, at the trace's own arrival
#: times. The cyclic scheme with each VO objective at ``U_a`` 0 and 50 (``full``: 0, 25, 50
#: and 100), ``knapsack`` and EASY, each with fixed and demand pricing (a factor). ``main``:
#: three 2,000-job windows (about three hours of the grid each) with users who stay: what
#: fits in 10 minutes on 2 cores. ``full`` adds users who leave below satisfaction 0.6 (a
#: factor) and runs the whole trace (188,041 jobs, eleven days) three times (seeds 1-3), for
#: a cluster; ``quick``: two 500-job windows of the cost objective, both churn levels.
LCG_GRID = {
    "main": """\
name = "lcg-grid"
description = "The real grid: the VO's cyclic scheme (VO objective x U_a) and knapsack against \
EASY on LCG-2005-1's 170 sites and its VOs, three 2,000-job windows, fixed and demand pricing"

[scenario]
trace = "LCG-2005-1"
owners = "trace"
jobs = 2000
max_alternatives = 3

[sweep]
pricing_policy = ["fixed", "demand"]
vo_objective = ["cost", "finish", "runtime"]
ua = [0, 50]

[run]
repetitions = 3
seed = 1
segments = true
factors = ["pricing_policy"]
"""
    + _tables(["knapsack"], ["easy"]),
    "full": """\
name = "lcg-grid-full"
description = "The whole grid of lcg-grid: the whole of LCG-2005-1 (188,041 jobs) three \
times, the three VO objectives at U_a 0, 25, 50 and 100, knapsack and EASY, fixed and demand \
pricing, users staying or leaving"

[scenario]
trace = "LCG-2005-1"
owners = "trace"
jobs = "none"
max_alternatives = 3

[sweep]
pricing_policy = ["fixed", "demand"]
user_exit_satisfaction = ["none", 0.6]
vo_objective = ["cost", "finish", "runtime"]
ua = [0, 25, 50, 100]

[run]
repetitions = 3
seed = 1
factors = ["pricing_policy", "user_exit_satisfaction"]
"""
    + _tables(["knapsack"], ["easy"]),
    "quick": """\
name = "lcg-grid-quick"
description = "Quick variant of lcg-grid: two 500-job windows of LCG-2005-1, the cost \
objective at U_a 0 and 50, knapsack and EASY, fixed and demand pricing, users staying or \
leaving"

[scenario]
trace = "LCG-2005-1"
owners = "trace"
jobs = 500
max_alternatives = 3
vo_objective = "cost"

[sweep]
pricing_policy = ["fixed", "demand"]
user_exit_satisfaction = ["none", 0.6]
ua = [0, 50]

[run]
repetitions = 2
seed = 1
segments = true
factors = ["pricing_policy", "user_exit_satisfaction"]
"""
    + _tables(["knapsack"], ["easy"]),
}


@dataclass(frozen=True)
class Study:
    """A built-in sweep in its three sizes.

    Parameters
    ----------
    description : str
        One line for ``vosim study --help``.
    variants : dict of str to str
        The sweep file's text of each of :data:`VARIANTS`.
    """

    description: str
    variants: dict[str, str]


#: Registry of studies by name.
STUDIES: dict[str, Study] = {
    "vo-policies": Study(
        "the VO's scheme (objective x U_a), knapsack and conservative vs EASY and FCFS on "
        "5,000-job windows of UniLu-Gaia",
        VO_POLICIES,
    ),
    "lcg-grid": Study(
        "the real grid: the VO's scheme (objective x U_a) and knapsack vs EASY on LCG-2005-1's "
        "170 sites and its VOs, fixed and demand pricing, users staying or leaving",
        LCG_GRID,
    ),
}


def study_config(name: str, variant: str = "main") -> SweepConfig:
    """The validated sweep of study ``name`` in one of its sizes.

    Parameters
    ----------
    name : str
        A key of :data:`STUDIES`.
    variant : str
        One of :data:`VARIANTS` (default ``"main"``).

    Returns
    -------
    SweepConfig

    Raises
    ------
    ParameterError
        ``name`` is not a study or ``variant`` not a size (the message lists them).
    """
    if name not in STUDIES:
        raise ParameterError(f"unknown study {name!r}; available: {', '.join(STUDIES)}")
    if variant not in VARIANTS:
        raise ParameterError(f"unknown variant {variant!r}; available: {', '.join(VARIANTS)}")
    return parse_sweep(STUDIES[name].variants[variant], path=None)
