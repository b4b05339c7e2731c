"""Rows of prompts without pandas: what ``Builder.prompts`` gives where pandas is missing.

The widget extra installs anywidget only, so a notebook with the builder may have no pandas.
Its prompts are then a plain list of dicts, one per variant, with the columns of
``Scenario.prompts`` and an HTML table for a notebook to show (every text escaped: prompts
and labels come from whoever wrote the spec).
"""

from __future__ import annotations

import html

from modelscape._identity import JsonValue

__all__ = ["PromptRows"]


class PromptRows(list[dict[str, JsonValue]]):
    """Every variant of a spec as one row (a dict), in the columns of ``Scenario.prompts``."""

    @property
    def columns(self) -> list[str]:
        """The column names, in the order of the first row that has each."""
        names: list[str] = []
        for row in self:
            names += [name for name in row if name not in names]
        return names

    def column(self, name: str) -> list[JsonValue]:
        """Every row's value in column ``name`` (None where a row lacks it)."""
        return [row.get(name) for row in self]

    def _repr_html_(self) -> str:
        columns = self.columns
        head = "".join(f"<th>{html.escape(name)}</th>" for name in columns)
        body = "".join(
            "<tr>"
            + "".join(f"<td>{html.escape(_shown(row.get(name)))}</td>" for name in columns)
            + "</tr>"
            for row in self
        )
        return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _shown(value: JsonValue) -> str:
    return "" if value is None else str(value)
