"""Every error modelscape raises on purpose.

The tree is small on purpose, so that callers can catch exactly what they mean::

    ModelscapeError                 anything modelscape raises about your input or its state
    ├── SpecError                   a YAML spec (or the data it was read from) is invalid
    ├── TaskSpaceError              a task space is malformed: axes, cases, coordinates
    │   └── PerturbationError       a perturbation step broke its contract
    ├── TemplateError               a template, lexicon or entry is inconsistent
    ├── ExecutionError              a run could not proceed (targets, runner)
    ├── StoreError                  a store file is unreadable, newer, or inconsistent
    ├── AnalysisError               an analysis was asked of data that cannot support it
    ├── ReportError                 a report file or requirement is invalid
    ├── SiteError                   a content folder, theme or output folder cannot be built
    ├── CommandError                a command cannot do what it was asked (its options, its files)
    └── MissingExtraError           an optional library is not installed (also an ImportError)

Every message names the thing at fault (file, field, case, axis, value) and, where it can,
what to do about it. Each layer raises its own subclass, never the base class, so that a
caller can catch one layer's errors and let another's through. The command line catches
``ModelscapeError`` in one place (``modelscape.cli``), prints it as ``error: ...`` and exits
with status 1; anything else that escapes a command is a bug and keeps its traceback.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = [
    "AnalysisError",
    "CommandError",
    "ExecutionError",
    "MissingExtraError",
    "ModelscapeError",
    "PerturbationError",
    "ReportError",
    "SiteError",
    "SpecError",
    "StoreError",
    "TaskSpaceError",
    "TemplateError",
]


class ModelscapeError(Exception):
    """Base class of every error modelscape raises deliberately."""


class SpecError(ModelscapeError):
    """A spec is invalid; ``problems`` lists every problem found, each with its path."""

    def __init__(self, problems: Sequence[str] | str, *, source: str | None = None) -> None:
        self.problems: tuple[str, ...] = (
            (problems,) if isinstance(problems, str) else tuple(problems)
        )
        self.source = source
        where = f"{source}: " if source else ""
        if len(self.problems) == 1:
            message = f"{where}{self.problems[0]}"
        else:
            lines = "\n".join(f"  - {problem}" for problem in self.problems)
            message = f"{where}{len(self.problems)} problems:\n{lines}"
        super().__init__(message)


class TaskSpaceError(ModelscapeError):
    """A task space, axis, coordinate or case is malformed."""


class PerturbationError(TaskSpaceError):
    """A perturbation step failed its check: it moved an attribute it must keep."""


class TemplateError(ModelscapeError):
    """A template, lexicon or lexicon entry is inconsistent."""


class ExecutionError(ModelscapeError):
    """An experiment could not be run as asked."""


class StoreError(ModelscapeError):
    """A store cannot be read or written as asked."""


class SiteError(ModelscapeError):
    """A content folder, theme or output folder the site builder cannot work with."""


class AnalysisError(ModelscapeError):
    """An analysis was asked of data that cannot support it."""


class ReportError(ModelscapeError):
    """A report file or a requirement is invalid."""


class CommandError(ModelscapeError):
    """A command cannot do what it was asked: an option that goes with another, or an output
    file that cannot be written."""


class MissingExtraError(ModelscapeError, ImportError):
    """An optional library a call needs is not installed; the message names the extra that
    installs it. An ``ImportError`` too, so code that already catches that one still does."""
