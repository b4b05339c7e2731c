"""Scenarios: a task space with a fixed protocol, so every target is mapped the same way."""

from __future__ import annotations

import difflib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

from modelscape._identity import Identity, JsonValue
from modelscape.answers import Answer
from modelscape.errors import ModelscapeError, TaskSpaceError
from modelscape.records.settings import ScenarioSettings
from modelscape.stats.settings import BoundaryCriterion, Inference
from modelscape.task.coordinate import Coordinate
from modelscape.task.design import Grid, Sweep, axis_roles
from modelscape.task.space import TaskSpace, Variant

if TYPE_CHECKING:
    from pandas import DataFrame

    from modelscape.execution.config import ExecutionConfig
    from modelscape.execution.experiment import Experiment
    from modelscape.report.report import Report
    from modelscape.results.results import Results
    from modelscape.targets.protocol import Target

__all__ = ["Scenario"]


@dataclass(frozen=True, eq=False)
class Scenario:
    """A task space with a fixed protocol, so every target is mapped the same way.

    ``answer`` reads the answer from an output (None when it cannot); compared with each task's
    ``reference()`` it scores every target. ``groups`` name subsets of cases that get their own
    scorecards. Bump ``version`` whenever results could change.
    """

    name: str
    version: str
    description: str
    task_space: TaskSpace[Any]
    answer: Answer
    repetitions: int = 5
    measures: Sequence[Any] = ()
    design: Sweep | Grid = field(default_factory=Sweep)
    groups: Mapping[str, Sequence[str]] = field(default_factory=dict)
    criterion: BoundaryCriterion = field(default_factory=BoundaryCriterion)
    seed: int = 0

    def __post_init__(self) -> None:
        where = f"scenario {self.name!r}"
        if not self.name:
            raise ModelscapeError("a scenario needs a name")
        if self.repetitions < 1:
            raise ModelscapeError(
                f"{where}: repetitions must be at least 1, not {self.repetitions}"
            )
        for group, cases in self.groups.items():
            if group == "all":
                raise ModelscapeError(f"{where}: 'all' names every case; choose another group name")
            for case in cases:
                if case not in self.task_space.cases:
                    hint = difflib.get_close_matches(case, list(self.task_space.cases), n=1)
                    extra = f" (did you mean {hint[0]!r}?)" if hint else ""
                    raise ModelscapeError(
                        f"{where}: group {group!r} names unknown case {case!r}{extra}"
                    )
        object.__setattr__(self, "groups", {g: tuple(c) for g, c in self.groups.items()})

    # -- identity ------------------------------------------------------------------------------
    @cached_property
    def settings(self) -> ScenarioSettings:
        """The scenario's protocol as its runs store it."""
        return ScenarioSettings(
            repetitions=self.repetitions,
            seed=self.seed,
            answer=self.answer.identity,
            design=self.design.model_dump(mode="json"),
            groups={group: tuple(cases) for group, cases in self.groups.items()},
            criterion=self.criterion,
            description=self.description,
        )

    @cached_property
    def identity(self) -> Identity:
        """The scenario's name, version and protocol settings, as stored with every run."""
        return Identity(
            kind="scenario",
            name=self.name,
            version=self.version,
            parameters=self.settings.parameters(),
        )

    # -- what it asks ------------------------------------------------------------------------
    def coordinates(self) -> tuple[Coordinate, ...]:
        """The coordinates the design evaluates, the baseline first."""
        return self.design.coordinates(self.task_space)

    def variants(self) -> Iterator[Variant]:
        """Every variant the scenario asks each target, case by case."""
        coordinates = self.coordinates()
        for case in self.task_space.cases:
            for coordinate in coordinates:
                yield self.task_space.variant(case, coordinate)

    def roles(self) -> dict[str, str]:
        """Each axis's role: causal when moving it alone changes some case's correct answer."""
        space = self.task_space
        return dict(
            axis_roles(
                [axis.name for axis in space.axes],
                space.cases,
                self.coordinates(),
                lambda case, coordinate: space.variant(case, coordinate).reference,
            )
        )

    def calls_per_target(self) -> int:
        """How many calls a full run makes to each target."""
        return len(self.task_space.cases) * len(self.coordinates()) * self.repetitions

    def experiment(
        self, targets: Sequence[Target], execution: ExecutionConfig | None = None
    ) -> Experiment:
        """The experiment that maps ``targets`` with this scenario's protocol.

        Its measures are the answer reader's ``correct`` and ``answered`` metrics, the
        ``answer_change`` difference, then the scenario's own difference measures.
        """
        from modelscape.answers import shape_of
        from modelscape.execution.config import ExecutionConfig
        from modelscape.execution.experiment import Experiment
        from modelscape.measures import answer_change, answer_metrics

        return Experiment(
            task_space=self.task_space,
            targets=targets,
            repetitions=self.repetitions,
            point_metrics=answer_metrics(self.answer),
            difference_measures=(answer_change(self.answer), *self.measures),
            design=self.design,
            execution=execution if execution is not None else ExecutionConfig(),
            seed=self.seed,
            scenario=self.identity,
            answer_shape=shape_of(self.answer),
        )

    def report(self, results: Results, *, inference: Inference | None = None) -> Report:
        """Scorecards, divergences, profiles and provenance of a run of this scenario.

        Scorecards come per target and per group (``all`` and the scenario's groups);
        divergences compare every other target with the first.
        """
        from modelscape.report.report import build_report

        return build_report(
            results,
            answer=self.answer,
            groups=self.groups,
            criterion=self.criterion,
            inference=inference or Inference(seed=self.seed),
            name=self.name,
            version=self.version,
            description=self.description,
        )

    # -- review --------------------------------------------------------------------------------
    def describe(self) -> str:
        """The scenario's cases, axes and variants, checked, and the calls it makes per target."""
        variants = list(self.variants())  # generating every variant checks every step
        roles = self.roles()
        space = self.task_space
        lines = [f"{self.name} (version {self.version})"]
        if self.description:
            lines.extend(f"  {line}" for line in self.description.strip().splitlines())
        lines.append("")
        width = max([len(a.name) for a in space.axes] + [4])
        lines.append(f"cases      {len(space.cases)}")
        lines.append(f"axes       {len(space.axes)}")
        for axis in space.axes:
            values = ", ".join(_show(v) for v in axis.values)
            lines.append(
                f"  {axis.name:<{width}}  {axis.scale:<8} {roles[axis.name]:<9} "
                f"baseline {_show(axis.baseline)}; values {values}"
            )
        design = (
            "sweep (one axis at a time)"
            if isinstance(self.design, Sweep)
            else (f"grid over {', '.join(self.design.axes)}")
        )
        lines.append(f"design     {design}: {len(self.coordinates())} coordinates")
        lines.append(f"variants   {len(variants)} (every one generated and checked)")
        unknown = sum(1 for v in variants if v.reference is None)
        if unknown:
            lines.append(f"           {unknown} without a correct answer")
        lines.append(f"answer     {self.answer!r}")
        lines.append(f"repeats    {self.repetitions} per variant")
        lines.append(f"calls      {self.calls_per_target()} per target")
        if self.groups:
            groups = "; ".join(f"{g} ({len(c)} cases)" for g, c in self.groups.items())
            lines.append(f"groups     {groups}")
        lines.append(f"seed       {self.seed}")
        lines.extend(self._power_lines(width))
        return "\n".join(lines)

    def _power_lines(self, width: int) -> list[str]:
        """What each axis's tests could find, before any call: the smallest excess found with
        80% power at these cases and repetitions (shifts, departures and boundaries alike:
        one test per step of the axis, under Holm), and the R that would find 0.3."""
        from modelscape.report.power import WANTED
        from modelscape.stats.power import MOST_REPETITIONS, design_power

        axes = [axis for axis in self.task_space.axes if len(axis.values) > 1]
        if not axes:
            return []
        criterion = self.criterion
        lines = [
            f"power      smallest excess found with 80% power (a yes/no answer moved in every "
            f"case; alpha {criterion.alpha:g}, Holm over each axis's steps)"
        ]
        for axis in axes:
            family = len(axis.values) - 1
            found = design_power(
                "shifts",
                cases=len(self.task_space.cases),
                repetitions=self.repetitions,
                family=family,
                alpha=criterion.alpha,
                min_excess=criterion.min_excess,
                wanted=WANTED,
            )
            tests = "1 test" if family == 1 else f"{family} tests"
            shown = (
                f"n/a ({found.reason})"
                if found.detectable is None
                else f"{found.detectable:.2f} ({tests})"
            )
            needed = (
                f"excess {WANTED:g} needs R >= {found.needed} (this spec: {self.repetitions})"
                if found.needed is not None
                else f"excess {WANTED:g} is not found within R <= {MOST_REPETITIONS}"
            )
            lines.append(f"  {axis.name:<{width}}  {shown}; {needed}")
        return lines

    def example(self) -> str:
        """Every variant of the first case: what it changes, its correct answer, its prompt."""
        space = self.task_space
        case = next(iter(space.cases))
        baseline = space.baseline
        variants = [space.variant(case, c) for c in self.coordinates()]
        systems = {v.prompt.system for v in variants}
        shared = len(systems) == 1
        blocks = [f"{self.name}: every variant of case {case!r}"]
        if shared and variants[0].prompt.system:
            blocks.append(
                "system prompt (the same for every variant)\n" + _indent(variants[0].prompt.system)
            )
        for variant in variants:
            changed = variant.changed(baseline)
            what = (
                "baseline"
                if not changed
                else ", ".join(f"{a}={_show(variant.coordinate[a])}" for a in changed)
            )
            header = f"── {what} · correct answer: {_show(variant.reference)}"
            if shared:
                body = "\n\n".join(
                    m.content if len(variant.prompt.messages) == 1 else f"[{m.role}] {m.content}"
                    for m in variant.prompt.messages
                )
            else:
                body = variant.prompt.text
            blocks.append(f"{header}\n{_indent(body)}")
        return "\n\n".join(blocks)

    def prompts(self) -> DataFrame:
        """Every variant as one row: case, coordinate, changed axes, prompt and correct answer.

        Requires the pandas extra: ``pip install "modelscape-map[pandas]"``.
        """
        try:
            import pandas
        except ImportError:
            raise ModelscapeError(
                'Scenario.prompts() needs pandas: pip install "modelscape-map[pandas]"'
            ) from None
        return pandas.DataFrame(self.prompt_rows())

    def prompt_rows(self) -> list[dict[str, JsonValue]]:
        """The rows of :meth:`prompts` as plain dicts, without pandas."""
        baseline = self.task_space.baseline
        rows: list[dict[str, JsonValue]] = []
        for variant in self.variants():
            row: dict[str, JsonValue] = {"variant": variant.id, "case": variant.case}
            row.update({f"axis:{k}": v for k, v in variant.coordinate.items()})
            row["changed"] = ",".join(variant.changed(baseline))
            row["system"] = variant.prompt.system
            row["prompt"] = "\n\n".join(m.content for m in variant.prompt.messages)
            row["answer"] = variant.reference
            rows.append(row)
        return rows

    def group_of(self, group: str) -> tuple[str, ...]:
        """The case ids of a group; ``all`` is every case."""
        if group != "all" and group not in self.groups:
            known = ["all", *self.groups]
            raise TaskSpaceError(f"scenario {self.name!r} has no group {group!r}; groups: {known}")
        return self.settings.cases(group, tuple(self.task_space.cases))


def _indent(text: str) -> str:
    return "\n".join(f"   {line}" if line else "" for line in text.splitlines())


def _show(value: object) -> str:
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return repr(value) if (value == "" or value != value.strip()) else value
    return str(value)
