"""The records a run leaves in a store, under the name the store and the runner import.

They live in :mod:`modelscape.records.stored`, below the analyses; this module keeps the import
path that execution code, tests and scripts have always used.
"""

from modelscape.records.stored import (
    AxisRecord,
    DifferenceMeasurement,
    ExperimentRecord,
    Observation,
    PointMeasurement,
    Trace,
    difference_id,
    experiment_id,
    observation_id,
    point_id,
)

__all__ = [
    "AxisRecord",
    "DifferenceMeasurement",
    "ExperimentRecord",
    "Observation",
    "PointMeasurement",
    "Trace",
    "difference_id",
    "experiment_id",
    "observation_id",
    "point_id",
]
