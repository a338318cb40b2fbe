"""Built-in sweeps ("studies") run by ``vosim study NAME``, each with a quick variant.

A study is a sweep file (:mod:`vosim.runs.config`) kept in this module; ``vosim study NAME
--out DIR`` runs it like ``vosim sweep`` (resumable: the same ``DIR`` skips finished runs) and
then writes the report (:func:`vosim.analysis.report.write_report`).

Examples
--------
>>> sorted(STUDIES)
['vo-policies']
>>> study_config("vo-policies", quick=True).run_count
8
"""

from __future__ import annotations

from dataclasses import dataclass

from vosim.errors import ParameterError
from vosim.runs.config import SweepConfig, parse_sweep

__all__ = ["Study", "STUDIES", "study_config", "VO_POLICIES", "VO_POLICIES_QUICK"]

#: VO policies on UniLu-Gaia: VO criterion x U_a x pricing, users leaving when unsatisfied.
#: 48 runs of 1,000 jobs, drained, on the trace's processors (311 s with 2 workers on a 2-core
#: machine, 2026-11-25; 679 s before re-planning was decided over slot groups).
VO_POLICIES = """\
name = "vo-policies"
description = "VO criterion (cost or finish time) vs the limit U_a on users' evaluations, \
with fixed or demand pricing, on UniLu-Gaia; users leave below satisfaction 0.6"

[scenario]
trace = "UniLu-Gaia-2014-2"
jobs = 1000
max_alternatives = 3
user_exit_satisfaction = 0.6

[sweep]
vo_objective = ["cost", "finish"]
ua = [0, 25, 50, 100]
pricing_policy = ["fixed", "demand"]

[run]
repetitions = 3
seed = 1
"""

#: The quick variant: 100 jobs, 2 x 2 x 2 policies, one repetition (8 runs of about 2 s).
VO_POLICIES_QUICK = """\
name = "vo-policies-quick"
description = "Quick variant of vo-policies: 100 jobs, U_a 0 or 100, one repetition"

[scenario]
trace = "UniLu-Gaia-2014-2"
jobs = 100
max_alternatives = 3
user_exit_satisfaction = 0.6

[sweep]
vo_objective = ["cost", "finish"]
ua = [0, 100]
pricing_policy = ["fixed", "demand"]

[run]
repetitions = 1
seed = 1
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
        "VO criterion x U_a x pricing on UniLu-Gaia, with users' churn",
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
