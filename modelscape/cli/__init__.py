"""The ``modelscape`` command line: thin commands over the library.

Each command parses its options, calls one library function and prints the result. Errors that
modelscape raises on purpose print their message (every problem of a spec, say) and exit with
status 1, without a traceback.
"""

from __future__ import annotations

import warnings
from importlib import import_module
from typing import Any

import click

from modelscape._version import __version__
from modelscape.errors import ModelscapeError

__all__ = ["Group", "main"]


class Group(click.Group):
    """A command group that turns modelscape's own errors into clean messages.

    It is the one place the command line catches them: commands let every ModelscapeError
    through, and the group prints it as ``error: ...`` and exits with status 1. Any other
    exception is a bug and keeps its traceback.
    """

    def invoke(self, ctx: click.Context) -> Any:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                return super().invoke(ctx)
            except ModelscapeError as error:
                click.echo(f"error: {error}", err=True)
                ctx.exit(1)
            finally:
                # Caveats (too few permutations, degenerate intervals) are printed once each,
                # as plain lines, after the command's own output.
                for message in dict.fromkeys(str(w.message) for w in caught):
                    click.echo(f"warning: {message}", err=True)


#: Each command's module. A module is imported when one of its commands is asked for, not
#: when the command line starts. The modules themselves import only click and light modules
#: at their top, and the library inside each command's body: the statistics, numpy, scipy and
#: pydantic take a second or more, which ``--help``, ``--version`` and every command's help
#: never need (tests/cli/test_startup.py checks it in a fresh process).
COMMANDS = {
    "build": "site",
    "check": "report",
    "describe": "review",
    "example": "review",
    "init": "site",
    "lexicons": "review",
    "merge": "merge",
    "page": "page",
    "prompts": "review",
    "report": "report",
    "run": "execution",
    "runs": "execution",
    "serve": "site",
    "specs": "review",
}


class _Commands(Group):
    """The top-level group: its commands registered by their module on first use."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        module = COMMANDS.get(cmd_name)
        if module is not None and cmd_name not in self.commands:
            import_module(f"modelscape.cli.{module}").register(self)
        return super().get_command(ctx, cmd_name)


@click.group(cls=_Commands, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="modelscape")
def main() -> None:
    """Map where language models change their behaviour, one controlled change at a time."""
