"""``modelscape serve``: preview a site on 127.0.0.1, rebuilt on every change, reloaded live.

A small :mod:`http.server` serves the output folder on a loopback address only, and only the
files inside it: a path through a hidden name, or one a link takes out of the folder, is
answered with the 404 page. A folder that is not a build's is not served at all. A watcher
thread polls the content folder and the themes; on a change it rebuilds (incrementally) and
bumps a version number. Every HTML page the server sends gets one extra script that polls that
number and reloads the page when it moves; the files on disk never contain it, so the built
site stays exactly what ``modelscape build`` makes.
"""

from __future__ import annotations

import errno
import http.server
import json
import os
import re
import threading
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from modelscape.site.build import BuildResult, build_site
from modelscape.site.config import SiteError, load_config
from modelscape.site.ownership import claim
from modelscape.site.theme import default_theme

__all__ = ["SiteServer", "serve_site"]

_PREFIX = "/__modelscape__/"
_LOOPBACK = ("127.0.0.1", "localhost", "::1")
# Files a build itself touches in the content folder (SQLite's journal files while a store
# is open) must not trigger another build.
_IGNORED = re.compile(r"(-wal|-shm|-journal|~|\.swp|\.tmp)$")
_POLICY = re.compile(r'(<meta http-equiv="Content-Security-Policy" content=")')
_CONNECTS = re.compile(r'<meta http-equiv="Content-Security-Policy" content="[^"]*connect-src')
_RELOAD = """// modelscape serve: reload the page when the site is rebuilt.
"use strict";
(function () {
  let seen = null;
  const poll = async () => {
    try {
      const response = await fetch("/__modelscape__/version", { cache: "no-store" });
      const { version } = await response.json();
      if (seen !== null && version !== seen) window.location.reload();
      seen = version;
    } catch (error) {
      // the server is restarting or gone: keep polling
    }
    window.setTimeout(poll, 700);
  };
  poll();
})();
"""


def snapshot(folders: list[Path], *, skip: Path | None = None) -> dict[str, tuple[int, int]]:
    """Size and modification time of every watched file under ``folders``, except under
    ``skip`` (the output folder, when it sits inside the content folder)."""
    found: dict[str, tuple[int, int]] = {}
    skipped = os.path.abspath(skip) if skip is not None else None
    for folder in folders:
        for directory, names, files in os.walk(folder):
            names[:] = [
                n
                for n in names
                if not n.startswith(".")
                and n != "__pycache__"
                and os.path.abspath(os.path.join(directory, n)) != skipped
            ]
            for name in files:
                if name.startswith(".") or _IGNORED.search(name):
                    continue
                path = os.path.join(directory, name)
                try:
                    stat = os.stat(path)
                except OSError:  # removed while we looked
                    continue
                found[path] = (stat.st_size, stat.st_mtime_ns)
    return found


class _Handler(http.server.SimpleHTTPRequestHandler):
    """Serves the site folder; adds the reload script to pages; answers the version poll."""

    server_state: SiteServer

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the preview prints builds, not requests."""

    def _send(self, status: int, body: bytes, kind: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _page(self, path: Path, status: int) -> None:
        text = path.read_text(encoding="utf-8")
        if not _CONNECTS.search(text):  # the search page's policy allows it already
            text = _POLICY.sub(r"\1connect-src 'self'; ", text, count=1)
        text = text.replace("</body>", f'<script src="{_PREFIX}reload.js"></script>\n</body>', 1)
        self._send(status, text.encode("utf-8"), "text/html; charset=utf-8")

    def do_GET(self) -> None:
        """A page (with the reload script), a file, the version, or the 404 page."""
        if self.headers.get("Host", "").lower() not in self.server_state.hosts:
            # A page elsewhere can make the browser ask for http://its-own-name:8000/ and
            # point that name at 127.0.0.1 (DNS rebinding); only our own names are served.
            self._send(421, b"this preview answers to its own address only", "text/plain")
            return
        path = unquote(urlsplit(self.path).path)
        if path == f"{_PREFIX}version":
            body = json.dumps({"version": self.server_state.version}).encode()
            self._send(200, body, "application/json")
            return
        if path == f"{_PREFIX}reload.js":
            self._send(200, _RELOAD.encode(), "text/javascript; charset=utf-8")
            return
        local = self._confined(path)
        if local is None or not local.is_file():
            missing = self._confined("/404.html")
            if missing is not None and missing.is_file():
                self._page(missing, 404)
            else:
                self._send(404, b"not found", "text/plain")
        elif local.suffix == ".html":
            self._page(local, 200)
        elif self.command == "HEAD":
            super().do_HEAD()
        else:
            super().do_GET()

    def _confined(self, path: str) -> Path | None:
        """The file of the site a request's path names, or None if it names none: a path
        through a hidden part (``/.git/config``, the manifest), or one that a link (a page
        replaced by ``-> /etc/passwd``, a folder by ``-> /etc``) takes out of the folder."""
        if any(part.startswith(".") for part in path.split("/")):
            return None
        local = Path(self.translate_path(path))
        if local.is_dir():
            local = local / "index.html"
        site = os.path.realpath(self.directory)
        real = os.path.realpath(local)
        if real != site and not real.startswith(site.rstrip(os.sep) + os.sep):
            return None
        return local

    def do_HEAD(self) -> None:
        """As GET, without the body."""
        self.do_GET()


class SiteServer:
    """A preview server: build, serve on loopback, rebuild on change. ``start``/``stop``."""

    def __init__(
        self,
        content: str | Path,
        output: str | Path = "site",
        *,
        host: str = "127.0.0.1",
        port: int = 8000,
        interval: float = 0.5,
        on_build: Callable[[BuildResult | Exception], None] | None = None,
    ) -> None:
        if host not in _LOOPBACK:
            raise SiteError(f"serve listens on a loopback address only (127.0.0.1), not {host!r}")
        self.content, self.output = Path(content), Path(output)
        # A folder that is not a site's is neither built into nor served (-o ~ by mistake).
        claim(self.output, force=False)
        self.interval = interval
        self.on_build = on_build or (lambda outcome: None)
        self.version = 0
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        # One handler class per server, so two previews in one process keep their versions.
        bound = type("Handler", (_Handler,), {"server_state": self})
        handler = partial(bound, directory=str(self.output))
        try:
            self._server = http.server.ThreadingHTTPServer((host, port), handler)
        except OSError as error:
            in_use = error.errno == errno.EADDRINUSE
            raise SiteError(
                f"cannot serve on {host}:{port}: "
                + ("the port is in use; choose another with --port" if in_use else str(error))
            ) from None
        self._server.daemon_threads = True
        bound_port = self._server.server_address[1]
        #: The Host headers the preview answers to: its loopback names, with its port.
        self.hosts = frozenset(
            f"{name}:{bound_port}" for name in ("127.0.0.1", "localhost", "[::1]")
        )

    @property
    def url(self) -> str:
        """The address the site is served at."""
        host, port = self._server.server_address[:2]
        name = host.decode() if isinstance(host, bytes) else host
        return f"http://{name}:{port}/"

    def _watched(self) -> list[Path]:
        folders = [self.content, default_theme()]
        try:
            theme = load_config(self.content).theme
        except SiteError:
            theme = None  # the build reports the broken site.yaml
        if theme:
            folders.append(self.content / theme)
        return [f for f in folders if f.is_dir()]

    def rebuild(self) -> None:
        """Build now; report the result (or the error) and bump the version on success."""
        try:
            result = build_site(self.content, self.output)
        except Exception as error:  # a bad edit must not stop the preview
            self.on_build(error)
            return
        self.version += 1
        self.on_build(result)

    def _watch(self, seen: dict[str, tuple[int, int]]) -> None:
        while not self._stop.wait(self.interval):
            now = snapshot(self._watched(), skip=self.output)
            if now != seen:
                self.rebuild()
                seen = snapshot(self._watched(), skip=self.output)

    def start(self) -> str:
        """Build once, then serve and watch in background threads; return the URL."""
        self.rebuild()
        # The first snapshot is taken here, not in the watcher thread: a change made right
        # after start() returns must be seen as a change, however late the thread starts.
        seen = snapshot(self._watched(), skip=self.output)
        watcher = threading.Thread(target=self._watch, args=(seen,), daemon=True)
        for thread in (threading.Thread(target=self._server.serve_forever, daemon=True), watcher):
            thread.start()
            self._threads.append(thread)
        return self.url

    def stop(self) -> None:
        """Stop watching and serving."""
        self._stop.set()
        self._server.shutdown()
        self._server.server_close()
        for thread in self._threads:
            thread.join(timeout=5)


def serve_site(
    content: str | Path,
    output: str | Path = "site",
    *,
    host: str = "127.0.0.1",
    port: int = 8000,
    on_build: Callable[[BuildResult | Exception], None] | None = None,
    on_start: Callable[[str], None] | None = None,
) -> None:
    """Serve a site for preview until interrupted (Ctrl-C), rebuilding it on every change.

    ``on_start`` receives the address once the server listens.
    """
    server = SiteServer(content, output, host=host, port=port, on_build=on_build)
    url = server.start()
    if on_start is not None:
        on_start(url)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
