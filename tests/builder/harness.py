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

__all__ = ["SYNCED", "harness_html", "state_of"]

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
