"""Experiments that reproduce the papers' figure sets, one module per paper."""

from vosim.runs.experiments import aep as aep
from vosim.runs.experiments import iccs2021 as iccs2021
from vosim.runs.experiments import iccs2023 as iccs2023
from vosim.runs.experiments import knapsack_grid as knapsack_grid
from vosim.runs.experiments import validation as validation
from vosim.runs.experiments import vo_preferences as vo_preferences
from vosim.runs.experiments.base import (
    Experiment,
    ExperimentConfig,
    experiments,
    register_experiment,
    run_experiment,
)

__all__ = ["Experiment", "ExperimentConfig", "experiments", "register_experiment", "run_experiment"]
