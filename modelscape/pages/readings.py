"""Charts in words: what each chart plots, against what, and what each of its marks means.

A chart is read by its marks (a line, a dashed rule, a diamond), whose meaning a reader would
otherwise have to guess or look up; a screen reader gets none of them. Each chart on a page
therefore carries its reading beside it, made from the same records the figure is drawn from,
so the words cannot drift from the marks: the axis and its baseline, whether the values are
ordered (and so joined by a line) or not, how many targets, each candidate boundary and where
its dashed line stands, and what a gap or the grey expected marks mean.
"""

from __future__ import annotations

from collections.abc import Sequence

from modelscape.analysis.aggregates import AxisSensitivity, BehaviorProfile
from modelscape.pages.charts import measure_words
from modelscape.pages.scenario import show_value

__all__ = ["profile_reading", "sensitivity_reading"]

#: How each scale's values are placed across the chart, and what joins them.
_ACROSS = {
    "nominal": (
        "{axis}'s values, which have no order (a nominal axis): each target's point stands "
        "on its own beside the others', with no line between values"
    ),
    "ordinal": "{axis}'s values in their order (an ordinal axis), each target's points joined",
    "numeric": "{axis} on a number scale (a numeric axis), each target's points joined",
}


def _count(number: int, one: str, many: str) -> str:
    return f"{number} {one if number == 1 else many}"


def profile_reading(axis: str, profiles: Sequence[BehaviorProfile], *, expected: bool) -> str:
    """The reading of one axis's profile chart, for the targets it draws (``profiles``).

    ``expected`` says whether the chart draws the change the correct answers make.
    """
    first = profiles[0]
    baseline = show_value(first.baseline[0].before) if first.baseline else "its baseline"
    sentences = [
        f"Up: the excess change of {measure_words(first.measure)} when {axis} moves from its "
        f"baseline, {baseline}, to the value below: how much more the answers change than they "
        "do between repetitions of one prompt (0: no more than that), with its interval as an "
        "error bar.",
        f"Across: {_ACROSS.get(first.scale, _ACROSS['ordinal']).format(axis=axis)}.",
        f"{_count(len(profiles), 'target', 'targets')}, each in its own colour and symbol.",
    ]
    found = [(p.target, c) for p in profiles for c in p.candidate_boundaries]
    if not found:
        sentences.append("No candidate boundary was found, so no dashed line is drawn.")
    else:
        where = (
            "at the value compared with the baseline"
            if first.scale == "nominal"
            else "between the two values of its step"
        )
        places = "; ".join(
            f"{target} at {show_value(c.before)} → {show_value(c.after)}" for target, c in found
        )
        sentences.append(
            f"A diamond and a dashed vertical line {where} mark each of the "
            f"{_count(len(found), 'candidate boundary', 'candidate boundaries')} ({places}): "
            "a place to look, not proof of a threshold."
        )
    if expected:
        marks = "grey marks" if first.scale == "nominal" else "the dotted grey line"
        sentences.append(
            f"{marks[0].upper()}{marks[1:]} show the change the correct answers themselves "
            "make along the axis: what a target that always answered correctly, and the same "
            "way every time, would show."
        )
    if any(t.excess is None for p in profiles for t in p.baseline):
        sentences.append(
            "A missing point is a comparison that could not be computed; the table gives why."
        )
    return " ".join(sentences)


def sensitivity_reading(rows: Sequence[AxisSensitivity]) -> str:
    """The reading of the sensitivity chart drawn from ``rows``."""
    targets = list(dict.fromkeys(r.target for r in rows))
    axes = list(dict.fromkeys(r.axis for r in rows))
    measures = {r.measure for r in rows}
    what = measure_words(next(iter(measures))) if len(measures) == 1 else "the measure"
    return (
        f"Up: the largest excess change of {what} a target shows anywhere along an axis "
        "(the step where it is largest is in each bar's label). Across: "
        f"{_count(len(axes), 'axis', 'axes')}, one bar per target in its own colour "
        f"({_count(len(targets), 'target', 'targets')}); a target with no bar on an axis has no "
        "computed comparison there. The tallest bars are the axes that move the answers most."
    )
