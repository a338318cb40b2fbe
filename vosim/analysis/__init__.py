"""Metrics, charts and reports computed from a run's job and cycle tables."""
