"""The site's own settings, as a user writes them in ``content/site.yaml``.

``site.yaml`` is small: a title and description, the public URL the site will live at (only
``sitemap.xml`` and the 404 page need it), an optional theme folder, and the navigation bar.
Unknown keys are errors, as everywhere in modelscape, so a typo never silently does nothing::

    title: modelscape leaderboard
    description: Where models change their answers, one controlled change at a time.
    base_url: https://example.github.io/project/
    theme: theme            # a folder inside the content folder; optional
    max_file_mb: 50         # warn about any file of the site larger than this
    navigation:
      - {title: Leaderboard, url: index.html}
      - {title: About, url: about.html}

:class:`SiteError` is the error of everything the site builder is asked to do with its content.
"""

from __future__ import annotations

import difflib
from pathlib import Path, PurePosixPath
from urllib.parse import urlsplit

import yaml
from pydantic import Field, ValidationError, field_validator

from modelscape._model import FrozenModel
from modelscape._yaml import describe, read_yaml
from modelscape.errors import SiteError
from modelscape.site.confine import hidden_inside, lone_surrogate

__all__ = ["CONFIG_FILE", "LINK_SCHEMES", "NavItem", "SiteConfig", "SiteError", "load_config"]

#: The settings file at the root of a content folder.
CONFIG_FILE = "site.yaml"


#: The schemes a navigation link may use to leave the site; ``javascript:`` and ``data:``
#: would run code with the site's address, and other schemes have no place in a site's bar.
LINK_SCHEMES = ("http", "https", "mailto")


class NavItem(FrozenModel):
    """One link of the navigation bar: a page of the site (relative to its root) or a URL."""

    title: str
    url: str

    @field_validator("url")
    @classmethod
    def _safe(cls, value: str) -> str:
        # Browsers drop tabs and newlines inside a URL and spaces around it ("java\nscript:"),
        # so a URL holding any of them is refused rather than judged by what is left.
        if not value or any(ord(c) <= 0x20 or ord(c) == 0x7F for c in value):
            raise ValueError(
                f"a link may not be empty or hold spaces or control characters: {value!r}"
            )
        parts = urlsplit(value)
        if parts.scheme and parts.scheme.lower() not in LINK_SCHEMES:
            raise ValueError(
                f"{value!r}: a {parts.scheme}: link is not allowed; use a page of the site "
                f"(about.html) or a {', '.join(s + ':' for s in LINK_SCHEMES)} address"
            )
        if not parts.scheme and (parts.netloc or value.startswith("/")):
            raise ValueError(
                f"{value!r}: write a page of the site relative to its root (about.html) or a "
                "full address (https://...)"
            )
        return value

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
    max_file_mb: float = Field(default=50.0, gt=0)

    @field_validator("theme")
    @classmethod
    def _relative(cls, value: str | None) -> str | None:
        if value is None:
            return None
        path = PurePosixPath(value.replace("\\", "/"))
        if not value.strip() or path.is_absolute() or ".." in path.parts or ":" in value:
            raise ValueError(
                f"theme must be a folder inside the content folder, such as theme, not {value!r}"
            )
        return value

    @field_validator("base_url")
    @classmethod
    def _absolute(cls, value: str | None) -> str | None:
        if value is None:
            return None
        parts = urlsplit(value)
        unsafe = any(ord(c) <= 0x20 or c in "\"'<>\\\x7f" for c in value)
        if parts.scheme not in ("http", "https") or not parts.netloc or unsafe:
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
    if file.exists() or file.is_symlink():
        real, base = file.resolve(), content.resolve()
        hidden = hidden_inside(str(real), str(base)) if real.is_relative_to(base) else None
        if not real.is_relative_to(base) or not file.is_file() or hidden is not None:
            raise SiteError(
                f"{file}: a link that leaves the content folder or leads into a hidden file "
                "(or not a file); write the settings into the content folder itself"
            )
        if file.stat().st_nlink > 1:  # a hard link: its other name may be any file
            raise SiteError(
                f"{file}: a hard link (the file has {file.stat().st_nlink} names); write the "
                "settings into a file of their own"
            )
        try:
            loaded = read_yaml(file) or {}
        except OSError as error:
            raise SiteError(f"{file}: cannot read it: {error.strerror}") from None
        except yaml.YAMLError as error:  # invalid, not UTF-8, or over a limit
            raise SiteError(f"{file}: {describe(error)}") from None
        if not isinstance(loaded, dict):
            raise SiteError(f"{file}: expected a mapping of settings (title, navigation, ...)")
        damage = lone_surrogate(loaded)
        if damage is not None:
            raise SiteError(
                f"{file}: {damage}, which UTF-8 cannot hold and so no page can show; write the "
                "character itself, or remove the escape that made it"
            )
        data = loaded
    if base_url is not None:
        data = {**data, "base_url": base_url}
    try:
        return SiteConfig.model_validate(data)
    except ValidationError as error:
        problems = "; ".join(_problem(e["loc"], e["type"], e["msg"]) for e in error.errors())
        raise SiteError(
            f"{file}: {problems} (keys: title, description, base_url, theme, navigation, "
            "max_file_mb)"
        ) from None


def _problem(location: tuple[int | str, ...], kind: str, message: str) -> str:
    """One problem of ``site.yaml`` as a line: where, what, and for an unknown key the known
    key nearest to it (a setting misspelt would otherwise only be named, not corrected)."""
    where = ".".join(str(p) for p in location) or "site"
    if kind != "extra_forbidden" or not location:
        return f"{where}: {message}"
    # An unknown key at the top level or inside a navigation link: compare with that level.
    fields = SiteConfig.model_fields if len(location) == 1 else NavItem.model_fields
    near = difflib.get_close_matches(str(location[-1]), list(fields), n=1)
    hint = f" (did you mean {near[0]!r}?)" if near else ""
    return f"{where}: {message}{hint}"
