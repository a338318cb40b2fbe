"""Experiments that reproduce the papers' figure sets, one module per paper."""

from vosim.runs.experiments.base import (
    Experiment,
    ExperimentConfig,
    experiments,
    register_experiment,
    run_experiment,
)

__all__ = ["Experiment", "ExperimentConfig", "experiments", "register_experiment", "run_experiment"]
