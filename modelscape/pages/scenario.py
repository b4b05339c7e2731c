"""ScenarioPage: a scenario as one page, to review every prompt before anything runs.

Each variant's prompt is shown against its case's baseline prompt with the changed words marked
(a word-level diff), so a reviewer sees at a glance what every perturbation does to the text,
and with the attributes its steps moved besides their own (declared free by the perturbation).
"""

from __future__ import annotations

import difflib
import re
from typing import Any, Literal

from modelscape._identity import AxisValue
from modelscape.pages.page import Page
from modelscape.scenario import Scenario
from modelscape.task.design import Sweep
from modelscape.task.prompt import Prompt
from modelscape.task.space import Variant

__all__ = ["ScenarioPage", "Segment", "show_value", "word_diff"]

#: One run of a diff: text both prompts share, text only the variant has, or text it dropped.
Segment = tuple[Literal["same", "ins", "del"], str]

# Words, runs of whitespace, and single punctuation marks: small enough that a changed word is
# marked alone, and whitespace kept so the prompt reads exactly as it is sent.
_TOKEN = re.compile(r"\s+|\w+|[^\w\s]")


def show_value(value: AxisValue | None) -> str:
    """An axis value or answer as a reader sees it: ``true``, ``3``, ``doubt``, or a dash."""
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str) and (value == "" or value != value.strip()):
        return repr(value)
    return str(value)


def word_diff(before: str, after: str) -> list[Segment]:
    """``after`` against ``before``, word by word: shared, inserted and deleted runs in order.

    Whitespace alone between two changes joins them, and adjacent runs of one kind are merged,
    so a changed phrase ("Xiuying Wang" to "Mariam Hassan") is one mark rather than many.
    """
    old, new = _TOKEN.findall(before), _TOKEN.findall(after)
    opcodes = difflib.SequenceMatcher(a=old, b=new, autojunk=False).get_opcodes()
    chunks: list[tuple[bool, list[str], list[str]]] = []  # (changed, old tokens, new tokens)
    for position, (tag, i1, i2, j1, j2) in enumerate(opcodes):
        changed = tag != "equal"
        between = 0 < position < len(opcodes) - 1
        if not changed and between and all(t.isspace() for t in new[j1:j2]):
            changed = True
        if chunks and changed and chunks[-1][0]:
            chunks[-1][1].extend(old[i1:i2])
            chunks[-1][2].extend(new[j1:j2])
        else:
            chunks.append((changed, list(old[i1:i2]), list(new[j1:j2])))
    segments: list[Segment] = []
    for changed, removed, added in chunks:
        if not changed:
            segments.append(("same", "".join(added)))
            continue
        if removed:
            segments.append(("del", "".join(removed)))
        if added:
            segments.append(("ins", "".join(added)))
    return [(kind, text) for kind, text in segments if text]


def _parts(prompt: Prompt, baseline: Prompt, *, system: bool) -> list[dict[str, Any]]:
    """The prompt's system text (unless shared) and messages, each diffed against the baseline."""
    parts = []
    if system and (prompt.system or baseline.system):
        parts.append(
            {"role": "system", "segments": word_diff(baseline.system or "", prompt.system or "")}
        )
    for index, message in enumerate(prompt.messages):
        before = baseline.messages[index].content if index < len(baseline.messages) else ""
        parts.append({"role": message.role, "segments": word_diff(before, message.content)})
    return parts


class ScenarioPage(Page):
    """A scenario as one HTML page, to review before anything runs.

    It lists every axis with its scale, values, baseline and role, and every variant of every
    case with its correct answer and the words it changes in the prompt, marked against the
    case's baseline prompt; plus the calls a run makes to each target. Cases are collapsed and
    a filter box narrows them, so scenarios with hundreds of variants stay readable.
    """

    template = "scenario.html.j2"

    def __init__(self, scenario: Scenario) -> None:
        self.scenario = scenario

    @property
    def title(self) -> str:
        """``scenario NAME (version V)``."""
        return f"Scenario {self.scenario.name} (version {self.scenario.version})"

    def context(self) -> dict[str, Any]:
        """Axes, facts and every case's variants with their prompt diffs."""
        scenario = self.scenario
        space = scenario.task_space
        coordinates = scenario.coordinates()
        roles = scenario.roles()
        baseline = space.baseline
        by_case = {
            case: [space.variant(case, coordinate) for coordinate in coordinates]
            for case in space.cases
        }
        systems = {v.prompt.system for variants in by_case.values() for v in variants}
        shared_system = next(iter(systems)) if len(systems) == 1 else None
        membership: dict[str, list[str]] = {case: [] for case in space.cases}
        for group, cases in scenario.groups.items():
            for case in cases:
                membership[case].append(group)
        design = (
            "sweep: one axis at a time"
            if isinstance(scenario.design, Sweep)
            else f"grid over {', '.join(scenario.design.axes)}"
        )
        variants_total = sum(len(v) for v in by_case.values())
        facts = [
            ("Cases", str(len(space.cases))),
            ("Axes", str(len(space.axes))),
            ("Design", f"{design} ({len(coordinates)} coordinates)"),
            ("Variants", str(variants_total)),
            # The spec's number; a run may be made with another (``modelscape run --repetitions``).
            ("Repetitions", f"{scenario.repetitions} per variant (the spec's; a run may differ)"),
            ("Calls per target", str(scenario.calls_per_target())),
            ("Answer", repr(scenario.answer)),
            ("Seed", str(scenario.seed)),
        ]
        if scenario.groups:
            facts.append(
                (
                    "Groups",
                    "; ".join(f"{g} ({len(c)} cases)" for g, c in scenario.groups.items()),
                )
            )
        return {
            "scenario": scenario,
            "facts": facts,
            "axes": [
                {
                    "name": axis.name,
                    "scale": axis.scale,
                    "role": roles[axis.name],
                    "baseline": show_value(axis.baseline),
                    "values": [show_value(v) for v in axis.values],
                }
                for axis in space.axes
            ],
            "shared_system": shared_system,
            "cases": [
                {
                    "id": case,
                    "groups": membership[case],
                    "variants": [
                        self._variant(variant, variants[0], baseline, shared_system is None)
                        for variant in variants
                    ],
                }
                for case, variants in by_case.items()
            ],
            "calls": scenario.calls_per_target(),
        }

    def _variant(
        self, variant: Variant, first: Variant, baseline: Any, system: bool
    ) -> dict[str, Any]:
        changed = variant.changed(baseline)
        label = (
            ", ".join(f"{a} = {show_value(variant.coordinate[a])}" for a in changed)
            if changed
            else "baseline"
        )
        return {
            "id": variant.id,
            "label": label,
            "also": [
                f"{change.attribute}: {show_value(change.before)} → {show_value(change.after)}"
                for step in variant.steps
                for change in step.also
            ],
            "baseline": not changed,
            "reference": show_value(variant.reference),
            "parts": _parts(variant.prompt, first.prompt, system=system),
            "calls": self.scenario.repetitions,
        }
