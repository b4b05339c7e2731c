"""A small HTML harness that runs the Builder's front end in a real browser, without Jupyter.

The page loads the widget's ESM module (from the package's static file, through a blob URL,
since a file:// page may not import modules by path) and renders it against a stand-in model
implementing what anywidget gives a widget: get, set, on, off, send and save_changes. Every
message the front end sends is kept in ``window.sent``; ``window.push(state)`` changes traits
and fires their change handlers, as a kernel's reply would.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from modelscape.builder import Builder

__all__ = ["SYNCED", "deliver", "harness_html", "select", "state_of"]

STATIC = Path(__file__).resolve().parents[2] / "modelscape" / "builder" / "static"
SYNCED = ("data", "problems", "preview", "view", "error", "status")

_PAGE = """<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>builder harness</title><style>%(css)s</style></head>
<body>
<div id="widget"></div>
<script type="module">
const state = %(state)s;
const handlers = {};
window.sent = [];
const model = {
  get: (name) => state[name],
  set: (name, value) => { state[name] = value; },
  on: (event, callback) => { (handlers[event] ||= []).push(callback); },
  off: (event, callback) => {
    handlers[event] = (handlers[event] || []).filter((known) => known !== callback);
  },
  send: (message) => { window.sent.push(JSON.parse(JSON.stringify(message))); },
  save_changes: () => {},
};
window.push = (changes) => {
  for (const [name, value] of Object.entries(changes)) {
    state[name] = value;
    for (const callback of handlers["change:" + name] || []) callback();
  }
};
const source = %(module)s;
const url = URL.createObjectURL(new Blob([source], { type: "text/javascript" }));
try {
  const widget = (await import(url)).default;
  widget.render({ model, el: document.getElementById("widget") });
  window.ready = true;
} catch (error) {
  window.failure = String(error && error.stack || error);
}
</script>
</body>
</html>
"""


def state_of(builder: Builder) -> dict[str, Any]:
    """The synced traits of ``builder`` as the front end receives them (through JSON)."""
    state: dict[str, Any] = json.loads(
        json.dumps({name: getattr(builder, name) for name in SYNCED})
    )
    return state


def harness_html(builder: Builder) -> str:
    """A page that renders the widget's front end for ``builder``'s current state."""
    return _PAGE % {
        "css": (STATIC / "builder.css").read_text(encoding="utf-8"),
        "state": _script(state_of(builder)),
        "module": _script((STATIC / "builder.js").read_text(encoding="utf-8")),
    }


def _script(value: Any) -> str:
    # JSON inside a <script> element: "</" would end the element early, so it is escaped
    return json.dumps(value).replace("</", "<\\/")


def select(page: Any, piece: int, start: int, end: int) -> None:
    """Select characters ``start`` to ``end`` of literal piece ``piece``, as a mouse would."""
    page.evaluate(
        """([piece, start, end]) => {
            const node = document.querySelector(`.ms-piece[data-piece="${piece}"]`).firstChild;
            const range = document.createRange();
            range.setStart(node, start);
            range.setEnd(node, end);
            const selection = document.getSelection();
            selection.removeAllRanges();
            selection.addRange(range);
        }""",
        [piece, start, end],
    )
    page.wait_for_function(
        "!document.querySelector('.ms-selection').textContent.startsWith('Select text')"
    )


def deliver(page: Any, builder: Builder) -> list[dict[str, Any]]:
    """Apply every message the page sent through the builder, then push its new state back."""
    sent: list[dict[str, Any]] = page.evaluate("window.sent.splice(0)")
    for message in sent:
        builder._handle_custom_msg(message, [])
    page.evaluate("(state) => window.push(state)", state_of(builder))
    return sent
