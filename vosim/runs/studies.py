"""Built-in sweeps ("studies") run by ``vosim study NAME``, each with a quick variant.

A study is a sweep file (:mod:`vosim.runs.config`) kept in this module; ``vosim study NAME
--out DIR`` runs it like ``vosim sweep`` (resumable: the same ``DIR`` skips finished runs) and
then writes the report (:func:`vosim.analysis.report.write_report`).

Examples
--------
>>> sorted(STUDIES)
['vo-policies']
>>> study_config("vo-policies", quick=True).run_count
20
>>> study_config("vo-policies").run_count
480
"""

from __future__ import annotations

from dataclasses import dataclass

from vosim.errors import ParameterError
from vosim.runs.config import SweepConfig, parse_sweep

__all__ = ["Study", "STUDIES", "study_config", "VO_POLICIES", "VO_POLICIES_QUICK"]

#: VO policies on UniLu-Gaia against EASY and FCFS at three offered loads, fixed and demand
#: pricing: VO objective x U_a for the cyclic scheme, the Knapsack Grid's knapsack and the
#: availability policy beside it, users leaving when unsatisfied; 10 repetitions with common
#: random numbers (issue 19). 480 runs of 200 jobs, drained, on the trace's processors.
#: 200 jobs: the study must finish in 10 minutes on 2 cores with what a reviewer asks for
#: (every policy, three loads, both pricings, 10 repetitions), and a run's cost grows faster
#: than its length (the cyclic scheme's cost per cycle grows with the queue). Measured on
#: 2026-11-26 after that day's speed-ups: 300 jobs 715 s, 250 jobs 609 and 630 s.
VO_POLICIES = """\
name = "vo-policies"
description = "The VO's cyclic scheme (VO objective x U_a), knapsack and availability \
against EASY and FCFS on UniLu-Gaia at offered loads 0.3, 0.6 and 0.9, fixed or demand \
pricing; users leave below satisfaction 0.6"

[scenario]
trace = "UniLu-Gaia-2014-2"
jobs = 200
max_alternatives = 3
user_exit_satisfaction = 0.6

[sweep]
offered_load = [0.3, 0.6, 0.9]
pricing_policy = ["fixed", "demand"]
vo_objective = ["cost", "finish"]
ua = [0, 100]

[run]
repetitions = 10
seed = 1
factors = ["offered_load", "pricing_policy"]

[[policy]]
policy = "knapsack"

[[policy]]
policy = "availability"

[[baseline]]
policy = "easy"

[[baseline]]
policy = "fcfs"
"""

#: The quick variant: 100 jobs, two loads, U_a 0 or 100, knapsack, availability, EASY, two
#: repetitions (20 runs).
VO_POLICIES_QUICK = """\
name = "vo-policies-quick"
description = "Quick variant of vo-policies: 100 jobs, loads 0.3 and 0.9, U_a 0 or 100, knapsack, \
availability, against EASY, two repetitions"

[scenario]
trace = "UniLu-Gaia-2014-2"
jobs = 100
max_alternatives = 3
user_exit_satisfaction = 0.6

[sweep]
offered_load = [0.3, 0.9]
ua = [0, 100]

[run]
repetitions = 2
seed = 1
factors = ["offered_load"]

[[policy]]
policy = "knapsack"

[[policy]]
policy = "availability"

[[baseline]]
policy = "easy"
"""


@dataclass(frozen=True)
class Study:
    """A built-in sweep.

    Parameters
    ----------
    description : str
        One line for ``vosim study --list``.
    toml : str
        The sweep file's text.
    quick_toml : str
        A small variant (``--quick``), for trying the study out and for CI.
    """

    description: str
    toml: str
    quick_toml: str


#: Registry of studies by name.
STUDIES: dict[str, Study] = {
    "vo-policies": Study(
        "the VO's scheme (objective x U_a), knapsack, availability vs EASY and FCFS on UniLu-Gaia",
        VO_POLICIES,
        VO_POLICIES_QUICK,
    ),
}


def study_config(name: str, quick: bool = False) -> SweepConfig:
    """The validated sweep of study ``name``.

    Parameters
    ----------
    name : str
        A key of :data:`STUDIES`.
    quick : bool
        The quick variant.

    Returns
    -------
    SweepConfig

    Raises
    ------
    ParameterError
        ``name`` is not a study (the message lists them).
    """
    if name not in STUDIES:
        raise ParameterError(f"unknown study {name!r}; available: {', '.join(STUDIES)}")
    study = STUDIES[name]
    return parse_sweep(study.quick_toml if quick else study.toml, path=None)
