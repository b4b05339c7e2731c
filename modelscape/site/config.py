"""The site's own settings, as a user writes them in ``content/site.yaml``.

``site.yaml`` is small: a title and description, the public URL the site will live at (only
``sitemap.xml`` and the 404 page need it), an optional theme folder, and the navigation bar.
Unknown keys are errors, as everywhere in modelscape, so a typo never silently does nothing::

    title: modelscape leaderboard
    description: Where models change their answers, one controlled change at a time.
    base_url: https://example.github.io/project/
    theme: theme            # a folder beside site.yaml; optional
    navigation:
      - {title: Leaderboard, url: index.html}
      - {title: About, url: about.html}

:class:`SiteError` is the error of everything the site builder is asked to do with its content.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

from pydantic import ValidationError, field_validator

from modelscape._model import FrozenModel
from modelscape._yaml import load_yaml
from modelscape.errors import ModelscapeError

__all__ = ["CONFIG_FILE", "NavItem", "SiteConfig", "SiteError", "load_config"]

#: The settings file at the root of a content folder.
CONFIG_FILE = "site.yaml"


class SiteError(ModelscapeError):
    """A content folder, theme or output folder the site builder cannot work with."""


class NavItem(FrozenModel):
    """One link of the navigation bar: a page of the site (relative to its root) or a URL."""

    title: str
    url: str

    @property
    def external(self) -> bool:
        """Whether the link leaves the site (it has a scheme such as ``https:``)."""
        return bool(urlsplit(self.url).scheme)


def _default_navigation() -> tuple[NavItem, ...]:
    return (
        NavItem(title="Leaderboard", url="index.html"),
        NavItem(title="Search", url="search.html"),
    )


class SiteConfig(FrozenModel):
    """What ``site.yaml`` says: title, description, public URL, theme folder and navigation.

    ``base_url`` is where the site is published (``https://USER.github.io/PROJECT/``); pages
    link to each other relatively and do without it, but ``sitemap.xml`` needs absolute
    addresses and the 404 page (served at any depth) links from the site's root path.
    ``theme`` is a folder, relative to the content folder, whose templates and static files
    are tried before the default theme's.
    """

    title: str = "modelscape"
    description: str = ""
    base_url: str | None = None
    theme: str | None = None
    navigation: tuple[NavItem, ...] = _default_navigation()

    @field_validator("base_url")
    @classmethod
    def _absolute(cls, value: str | None) -> str | None:
        if value is None:
            return None
        parts = urlsplit(value)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ValueError(f"base_url must be an absolute http(s) URL, not {value!r}")
        return value if value.endswith("/") else value + "/"

    @property
    def base_path(self) -> str:
        """The path part of ``base_url`` (``/project/``), or ``/`` without one."""
        return urlsplit(self.base_url).path or "/" if self.base_url else "/"


def load_config(content: Path, *, base_url: str | None = None) -> SiteConfig:
    """The settings of a content folder; ``base_url`` (from the command line) wins over the file.

    A folder without ``site.yaml`` gets the defaults, so any folder of runs builds.
    """
    file = content / CONFIG_FILE
    data: dict[str, object] = {}
    if file.exists():
        try:
            loaded = load_yaml(file.read_text(encoding="utf-8")) or {}
        except Exception as error:  # yaml reports the line and column in its message
            raise SiteError(f"{file}: not valid YAML: {error}") from None
        if not isinstance(loaded, dict):
            raise SiteError(f"{file}: expected a mapping of settings (title, navigation, ...)")
        data = loaded
    if base_url is not None:
        data = {**data, "base_url": base_url}
    try:
        return SiteConfig.model_validate(data)
    except ValidationError as error:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or 'site'}: {e['msg']}" for e in error.errors()
        )
        raise SiteError(
            f"{file}: {problems} (keys: title, description, base_url, theme, navigation)"
        ) from None
