"""Themes: the Jinja2 templates and static files a site is drawn with.

A theme is a folder with ``templates/`` (Jinja2) and ``static/`` (copied into the site's
``assets/``). The default theme ships inside the wheel as ``modelscape/_themes/default``; in a
source checkout or an editable install it is the repository's ``themes/default``.

A site's own theme (``theme:`` in ``site.yaml``) is tried first, template by template and file
by file, so it can replace one template, or one block of it::

    {% extends "default/base.html.j2" %}
    {% block footer %}<footer>Our lab</footer>{% endblock %}

Names resolve in this order: the site theme, the default theme, then the page templates of
:mod:`modelscape.pages`. ``default/NAME`` always reaches the default theme and ``pages/NAME``
the shipped page templates, so a template can extend the one it replaces.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from functools import cached_property
from importlib import resources
from pathlib import Path

import jinja2
from jinja2.sandbox import ImmutableSandboxedEnvironment

from modelscape.site.config import SiteError
from modelscape.site.confine import content_files, is_inside

__all__ = ["Theme", "default_theme"]


def default_theme() -> Path:
    """The folder of the default theme: in the installed wheel, else in the source tree."""
    packaged = resources.files("modelscape") / "_themes" / "default"
    if packaged.is_dir():
        return Path(str(packaged))
    source = Path(__file__).resolve().parents[2] / "themes" / "default"
    if source.is_dir():
        return source
    raise SiteError(
        "the default theme is missing: neither modelscape/_themes/default (installed wheel) "
        f"nor {source} (source checkout) exists; reinstall modelscape"
    )


def _files(folder: Path) -> dict[str, Path]:
    """Every file under ``folder`` by its relative POSIX path."""
    if not folder.is_dir():
        return {}
    return {
        path.relative_to(folder).as_posix(): path
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


class _ConfinedLoader(jinja2.FileSystemLoader):
    """A site theme's templates, each refused if a link takes it outside the content folder."""

    def __init__(self, folder: Path, content: Path) -> None:
        super().__init__(folder)
        self.content = content

    def get_source(
        self, environment: jinja2.Environment, template: str
    ) -> tuple[str, str, Callable[[], bool]]:
        """The template's source, if it lies inside the content folder."""
        source, filename, fresh = super().get_source(environment, template)
        if not is_inside(Path(filename), self.content):
            raise SiteError(
                f"{filename}: a theme template that links outside the content folder; "
                "keep the theme's files inside it"
            )
        return source, filename, fresh


class Theme:
    """The default theme, with a site's theme folder (if any) layered on top.

    ``content`` is the content folder the site theme must stay inside (its templates and
    static files included, links resolved). Every template renders in Jinja's sandbox:
    a theme is contributed like any other content, and may not reach Python's internals
    (``cycler.__init__.__globals__``) or call anything unsafe while the site is built.
    """

    def __init__(self, site_theme: Path | None = None, *, content: Path | None = None) -> None:
        self.content = content if content is not None else site_theme
        if site_theme is not None:
            assert self.content is not None
            if not is_inside(site_theme, self.content):
                raise SiteError(
                    f"theme folder {site_theme} leaves the content folder {self.content} "
                    "(theme: in site.yaml); keep the theme inside the content folder"
                )
            if not site_theme.is_dir():
                raise SiteError(f"theme folder {site_theme} does not exist (theme: in site.yaml)")
            problems: list[str] = []
            content_files(site_theme, self.content, problems, hidden=True)
            if problems:
                raise SiteError(f"theme folder {site_theme}: {problems[0]}")
        self.default = default_theme()
        self.site = site_theme
        self.folders = [f for f in (site_theme, self.default) if f is not None]

    @cached_property
    def environment(self) -> jinja2.Environment:
        """The template environment: site theme, default theme, then the page templates."""
        default = jinja2.FileSystemLoader(self.default / "templates")
        pages = jinja2.PackageLoader("modelscape.pages", "templates")
        loaders: list[jinja2.BaseLoader] = []
        if self.site is not None and self.content is not None:
            loaders.append(_ConfinedLoader(self.site / "templates", self.content))
        loaders += [default, jinja2.PrefixLoader({"default": default, "pages": pages}), pages]
        # Imported here: the page code loads the statistics, which a build with nothing to
        # make never needs (it reads only the theme's digest).
        from modelscape.pages.page import environment

        shipped = environment()
        env = ImmutableSandboxedEnvironment(
            loader=jinja2.ChoiceLoader(loaders),
            autoescape=True,
            undefined=jinja2.StrictUndefined,
            trim_blocks=True,
            lstrip_blocks=True,
            auto_reload=False,
        )
        for name in ("json_script", "pretty_json"):
            env.filters[name] = shipped.filters[name]
        return env

    @cached_property
    def static(self) -> dict[str, Path]:
        """The static files by name; a site theme's file replaces the default one of its name."""
        found: dict[str, Path] = {}
        for folder in reversed(self.folders):
            found.update(_files(folder / "static"))
        return found

    @cached_property
    def digest(self) -> str:
        """A hash of every file of every theme layer and of the page templates and assets.

        It is part of every page's input hash, so editing a template re-renders every page.
        """
        digest = hashlib.sha256()
        # The page templates' folder, found without importing the page code (see environment).
        pages = Path(str(resources.files("modelscape"))) / "pages"
        layers = [*(f for f in self.folders), pages]
        for layer in layers:
            for name, path in _files(layer).items():
                if name.endswith(".py") or "__pycache__" in name:
                    continue
                digest.update(f"{layer.name}/{name}\0".encode())
                digest.update(path.read_bytes())
        return digest.hexdigest()[:16]
