"""Reports: scorecards per target and group, divergences, profiles and provenance, as JSON."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from os import PathLike
from pathlib import Path

from pydantic import ValidationError

from modelscape._model import FrozenModel
from modelscape._surrogates import first_surrogate
from modelscape.analysis.aggregates import AxisSensitivity, BehaviorProfile, Divergence, Scorecard
from modelscape.analysis.common import varied_axes
from modelscape.analysis.readable import answered_shortfall
from modelscape.answers import Answer, answer_of
from modelscape.errors import ReportError
from modelscape.report.provenance import Provenance
from modelscape.report.summary import summarize
from modelscape.report.upgrade import mark_departures, upgrade_format_1
from modelscape.results.results import Results, run_of
from modelscape.stats import BoundaryCriterion, Inference

__all__ = ["FORMAT", "Report", "build_report"]

#: The version of the report file layout; raised whenever a release changes it. Format 2
#: added the reasons of undefined quantities, baseline accuracy, the spurious-change interval,
#: insufficient transitions and each target's first error; format 1 files still load.
FORMAT = 2

METRIC = "correct"
ANSWERED = "answered"
MEASURE = "answer_change"


class Report(FrozenModel):
    """Scorecards per target and group, divergences from the first target, and provenance.

    ``format`` is the version of the report file layout, raised when a release changes it.
    ``profiles`` and ``sensitivity`` hold the behaviour along every axis that the pages plot.
    """

    format: int = FORMAT
    scenario: str
    version: str
    description: str = ""
    experiment: str
    targets: tuple[str, ...]
    groups: tuple[str, ...]
    cases: int
    repetitions: int
    metric: str = METRIC
    measure: str = MEASURE
    criterion: BoundaryCriterion
    inference: Inference
    scorecards: tuple[Scorecard, ...]
    divergences: tuple[Divergence, ...] = ()
    profiles: tuple[BehaviorProfile, ...] = ()
    sensitivity: tuple[AxisSensitivity, ...] = ()
    provenance: Provenance

    def scorecard(self, target: str, group: str = "all") -> Scorecard:
        """The scorecard of one target on one group."""
        for card in self.scorecards:
            if card.target == target and card.group == group:
                return card
        raise ReportError(
            f"no scorecard for target {target!r} and group {group!r}; targets: "
            f"{list(self.targets)}, groups: {list(self.groups)}"
        )

    def save(self, path: str | PathLike[str]) -> None:
        """Write the report as JSON, in the current file layout."""
        current = self.model_copy(update={"format": FORMAT})
        Path(path).write_text(current.model_dump_json(indent=1), encoding="utf-8")

    @classmethod
    def load(cls, path: str | PathLike[str]) -> Report:
        """Read a report file written by this or an earlier release."""
        file = Path(path)
        try:
            data = json.loads(file.read_text(encoding="utf-8"))
        except OSError as error:
            raise ReportError(f"cannot read report {file}: {error.strerror}") from None
        except (ValueError, RecursionError) as error:  # RecursionError: nested too deeply
            raise ReportError(f"{file} is not a report file (invalid JSON: {error})") from None
        damage = first_surrogate(data)
        if damage is not None:  # no page, summary or copy of the report could be written
            raise ReportError(
                f"{file}: {damage}, which UTF-8 cannot hold; remove the escape (such as "
                "\\ud800) that made it"
            )
        if not isinstance(data, dict) or "format" not in data:
            raise ReportError(f"{file} is not a modelscape report (it has no format number)")
        if not isinstance(data["format"], int) or data["format"] > FORMAT:
            raise ReportError(
                f"{file} was written in report format {data['format']}, newer than this "
                f"modelscape reads ({FORMAT}); upgrade modelscape to read it"
            )
        if data["format"] == 1:
            data = upgrade_format_1(data)
        data = mark_departures(data)
        try:
            return _readable(cls.model_validate(data))
        except ValidationError as error:
            first = error.errors()[0]
            where = ".".join(str(part) for part in first["loc"])
            raise ReportError(f"{file}: invalid report at {where}: {first['msg']}") from None

    def summary(self) -> str:
        """The report as the command line prints it."""
        return summarize(self)


def _readable(report: Report) -> Report:
    """The report with answer changes n/a for every target that answered too little.

    The scorecards' rule (a change of answers says nothing when most outputs hold no answer)
    applied to the rest: such a target's profiles keep their point metrics but estimate no
    comparison, it has no sensitivity rows (its profiles say why), and every divergence it
    takes part in is n/a. Applied when a report is made and when one is read, so a file
    written before the rule reached these parts reads as a report made today.
    """
    short = {
        card.target: reason
        for card in report.scorecards
        if card.group == "all" and (reason := answered_shortfall(card.answered)) is not None
    }
    if not short:
        return report
    profiles = tuple(
        p.unestimated(short[p.target]) if p.target in short and p.undefined is None else p
        for p in report.profiles
    )
    divergences = []
    for divergence in report.divergences:
        target = next((t for t in (divergence.first, divergence.second) if t in short), None)
        if target is not None and divergence.undefined is None:
            divergence = divergence.unestimated(f"{target}: {short[target]}")
        divergences.append(divergence)
    sensitivity = tuple(s for s in report.sensitivity if s.target not in short)
    return report.model_copy(
        update={
            "profiles": profiles,
            "divergences": tuple(divergences),
            "sensitivity": sensitivity,
        }
    )


def build_report(
    results: Results,
    *,
    answer: Answer | None = None,
    groups: Mapping[str, Sequence[str]] | None = None,
    criterion: BoundaryCriterion | None = None,
    inference: Inference | None = None,
    name: str | None = None,
    version: str | None = None,
    description: str | None = None,
) -> Report:
    """The report of a run: what ``Scenario.report`` and ``modelscape report`` produce.

    Settings left out come from the scenario settings stored with the run. The garbage
    collector is left as the caller set it: a process that is the report's own (the
    ``modelscape report`` command, the site's workers) paces it (:mod:`modelscape._collector`).
    """
    run = run_of(results)
    scenario = run.experiment.scenario
    stored = run.settings
    if answer is None:
        if stored.answer is None:
            raise ReportError("this run has no stored answer reader: report it from its scenario")
        answer = answer_of(stored.answer)
    if groups is None:
        groups = stored.groups
    if criterion is None:
        criterion = stored.criterion
    inference = inference or Inference(seed=stored.seed)
    metric_names = {m.name for m in run.experiment.point_metrics}
    if METRIC not in metric_names or MEASURE not in {
        m.name for m in run.experiment.difference_measures
    }:
        raise ReportError(
            "a report needs the scenario's built-in measures (correct, answered, answer_change); "
            "run the experiment from Scenario.experiment"
        )
    group_names = ("all", *groups)
    cards = []
    for target in run.targets:
        for group in group_names:
            cards.append(
                results.scorecard(
                    METRIC,
                    MEASURE,
                    target=target,
                    group=group,
                    answered=ANSWERED if ANSWERED in metric_names else None,
                    answer=answer,
                    cases=None if group == "all" else tuple(groups[group]),
                    criterion=criterion,
                    inference=inference,
                ).model_copy(update={"group": group})
            )
    first = run.targets[0]
    divergences = tuple(
        results.divergence(MEASURE, first, other, criterion=criterion, inference=inference)
        for other in run.targets[1:]
    )
    profiles = tuple(
        p
        for axis in varied_axes(run)
        for p in results.profiles(axis.name, MEASURE, criterion=criterion, inference=inference)
    )
    sensitivity = tuple(
        s
        for target in run.targets
        for s in results.sensitivity(
            MEASURE, target=target, criterion=criterion, inference=inference
        )
    )
    report = Report(
        scenario=name or (scenario.name if scenario else "experiment"),
        version=version or (scenario.version if scenario else "1"),
        description=description if description is not None else stored.description,
        experiment=run.experiment.id,
        targets=run.targets,
        groups=group_names,
        cases=len(run.cases),
        repetitions=run.experiment.repetitions,
        criterion=criterion,
        inference=inference,
        scorecards=tuple(cards),
        divergences=divergences,
        profiles=profiles,
        sensitivity=sensitivity,
        provenance=Provenance.of(results),
    )
    return _readable(report)
