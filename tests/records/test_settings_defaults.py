"""Settings a stored run did not record read as their documented defaults.

Runs of earlier releases stored fewer settings; reading one must give the protocol it was run
with, and the seed most of all: a run with no stored seed was drawn with seed 0, and a report
that reads it as another seed would redo its resampling with other random streams.
"""

from __future__ import annotations

from modelscape.records.settings import ScenarioSettings


def test_a_run_that_stored_no_settings_reads_the_defaults() -> None:
    settings = ScenarioSettings.model_validate({})
    assert settings.seed == 0
    assert settings.repetitions is None
    assert settings.answer is None
    assert settings.design is None
    assert dict(settings.groups) == {}
    assert settings.description == ""


def test_a_stored_seed_is_kept() -> None:
    assert ScenarioSettings.model_validate({"seed": 7}).seed == 7
