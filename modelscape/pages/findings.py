"""The findings of a report as its page shows them: each number a button onto its outputs.

:func:`modelscape.report.findings.findings` says what a run found in sentences of text and
number parts; the command line prints their text. This module turns the same sentences into
what the report page's template draws at its top, before any table: every number part
becomes a :class:`~modelscape.pages.evidence.Cell` registered with the page's evidence, from
the measurement ids the number carries (or, for a count of failed calls, from that target's
failed observations, as the scorecard table counts them), so clicking it opens the same
outputs dialog as the tables' numbers. Text parts stay text; the template escapes them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from modelscape.pages.evidence import Cell, Evidence
from modelscape.pages.profiles import Steps, step_of
from modelscape.report.findings import Finding, Number
from modelscape.results.results import Results, run_of

__all__ = ["finding_rows"]


def _cell(number: Number, evidence: Evidence, steps: Steps, results: Results | None) -> Cell:
    if number.failed_of is not None:
        held = [] if results is None else run_of(results).failed
        failed = [o for o in held if o.target == number.failed_of]
        return evidence.outputs(number.text, failed, number.label)
    step = None if number.compares is None else step_of(steps, number.compares)
    return evidence.cell(number.text, number.measurement_ids, number.label, step=step)


def finding_rows(
    found: Sequence[Finding], evidence: Evidence, steps: Steps, results: Results | None
) -> list[dict[str, Any]]:
    """Each finding as its kind and its parts, a part being ``{"text": ...}`` or
    ``{"cell": Cell}``, for the report template's findings section."""
    return [
        {
            "kind": finding.kind,
            "parts": [
                {"text": part}
                if isinstance(part, str)
                else {"cell": _cell(part, evidence, steps, results)}
                for part in finding.parts
            ],
        }
        for finding in found
    ]
