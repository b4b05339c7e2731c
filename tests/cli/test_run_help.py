"""`run --help` names every target kind an installed distribution registers."""

from __future__ import annotations

from click.testing import CliRunner

from modelscape.cli import main
from modelscape.targets.registry import provider_kinds


def test_run_help_lists_every_registered_target_kind() -> None:
    # Click wraps the help at hyphens ("llama-" at a line's end, "cpp:PATH" on the next).
    shown = " ".join(CliRunner().invoke(main, ["run", "--help"]).output.split())
    shown = shown.replace("- ", "-")
    assert [kind for kind in provider_kinds() if kind not in shown] == []
    for form in ("gemini:MODEL", "bedrock:MODEL", "azure-openai:DEPLOYMENT@ENDPOINT"):
        assert form in shown
