"""A notebook widget that writes a scenario spec: mark what varies, set the answer, save YAML.

``Builder`` keeps a spec as data and changes it one checked edit at a time; every edit is a
method, so a notebook user can click through the widget and a script can call the same
methods. ``Draft`` is the spec so far with what is still missing or wrong.

Requires the widget extra: ``pip install "modelscape-map[widget]"``.
"""

from __future__ import annotations

from modelscape.errors import ModelscapeError

try:
    import anywidget  # noqa: F401 - checked here so the message can say how to install it
except ImportError as error:  # pragma: no cover - the test environment has the extra
    raise ModelscapeError(
        'modelscape.builder needs the widget extra: pip install "modelscape-map[widget]"'
    ) from error

from modelscape.builder.draft import Draft
from modelscape.builder.pieces import Piece
from modelscape.builder.widget import Builder

__all__ = ["Builder", "Draft", "Piece"]
