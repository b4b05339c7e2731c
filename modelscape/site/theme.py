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
import types
from collections.abc import Callable
from functools import cached_property
from importlib import resources
from pathlib import Path
from typing import Any

import jinja2
from jinja2.runtime import BlockReference, LoopContext, Macro
from jinja2.sandbox import ImmutableSandboxedEnvironment
from jinja2.utils import Cycler, Joiner, Namespace
from markupsafe import Markup

from modelscape.site import bounded
from modelscape.site.config import SiteError
from modelscape.site.confine import content_files, is_inside
from modelscape.site.warning import BuildWarning

__all__ = ["ASSETS", "Theme", "default_theme"]

#: The folder of the site that holds shared assets and the theme's static files: the pages link
#: it, the plan copies into it and the incremental build lists it, each importing it from here.
ASSETS = "assets"


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
    """Every file under ``folder`` by its relative POSIX path; hidden files and folders
    (``.env``, ``.git/``) are never part of a theme."""
    if not folder.is_dir():
        return {}
    found = {}
    for path in sorted(folder.rglob("*")):
        relative = path.relative_to(folder)
        if path.is_file() and not any(part.startswith(".") for part in relative.parts):
            found[relative.as_posix()] = path
    return found


#: Values whose methods a template may call: text, numbers and containers, which the immutable
#: sandbox already keeps a template from changing, and Markup, which is text.
_PLAIN = frozenset({str, int, float, bool, list, dict, tuple, set, frozenset, type(None), Markup})
#: Jinja's own callables: macros and ``caller()``, ``super()`` and ``self.block()``, ``loop``,
#: and the ``cycler``, ``joiner`` and ``namespace`` globals and what they make.
_JINJA = (Macro, BlockReference, LoopContext, Cycler, Joiner, Namespace)
#: Bound methods, Python's and builtin ones.
_BOUND = (
    types.MethodType,
    types.BuiltinFunctionType,
    types.BuiltinMethodType,
    types.MethodWrapperType,
)


class _Sandbox(ImmutableSandboxedEnvironment):
    """Jinja's immutable sandbox, with two changes: what a template may call, and an answer
    given at once for the numbers of a report page.

    **Calls.** Jinja's sandbox refuses to reach Python's internals, but lets a template call
    any public method of the objects in its context, and those include modelscape's own:
    ``{{ report.save("/anywhere") }}`` in a contributed theme wrote a file wherever the build
    could write. A template here may call only Jinja's own callables (macros, ``super()``,
    ``loop``, the globals Jinja provides) and the methods of plain values (text, numbers,
    lists, dicts); a method of any other object is refused with the sandbox's error, which the
    build reports with the template's file and line.

    **Numbers.** A report page reads the fields of its number cells some three thousand times,
    and the sandbox asks on each read whether the object is code or a mutable container (a
    dozen ``isinstance`` checks, ~1 µs: 3 ms of the page). A :class:`Cell` is neither: for it
    the sandbox's answer is always "any name not starting with an underscore", given here
    directly (a test compares the two). Every other object is asked about as before.
    """

    #: The class of a report page's number cells, set where the page code is imported (a build
    #: with nothing to make never imports it).
    cell: type | None = None
    #: ``*`` and ``**`` go through :meth:`call_binop`: each is one step of C code, which the
    #: time limit of modelscape.site.limits cannot stop part way.
    intercepted_binops = frozenset({"*", "**", "%"})

    def call_binop(self, context: Any, operator: str, left: Any, right: Any) -> Any:
        """``left operator right``, refused when its result would be too large to make at
        once (``"x" * 10**10``, ``10 ** 10 ** 10``: see :mod:`~modelscape.site.bounded`)."""
        bounded.binop(operator, left, right)
        return super().call_binop(context, operator, left, right)

    def call(__self, __context: Any, __obj: Any, *args: Any, **kwargs: Any) -> Any:  # noqa: N805
        """A template's call, refused when one step of it would make too much
        (``"x".center(10**10)``: see :mod:`~modelscape.site.bounded`)."""
        bounded.call(__obj, args, kwargs)
        return super().call(__context, __obj, *args, **kwargs)

    def is_safe_attribute(self, obj: Any, attr: str, value: Any) -> bool:
        if type(obj) is self.cell:
            return not attr.startswith("_")
        return super().is_safe_attribute(obj, attr, value)

    def is_safe_callable(self, obj: Any) -> bool:
        return super().is_safe_callable(obj) and _may_call(obj)


def _may_call(obj: Any) -> bool:
    """Whether a template may call ``obj`` (see :class:`_Sandbox`)."""
    if isinstance(obj, _JINJA):
        return True
    if isinstance(obj, _BOUND):
        # A bound method: allowed on plain values and Jinja's objects (``loop.cycle``); a
        # builtin whose owner is a module (``os.system``) or any other object is not.
        owner = obj.__self__
        return type(owner) in _PLAIN or isinstance(owner, _JINJA)
    if isinstance(obj, types.FunctionType):
        # Jinja's sandboxed ``range``, ``lipsum`` and its safe ``str.format`` (a wrapper that
        # takes the name of ``str.format``: the module it was written in tells).
        return str(obj.__globals__.get("__name__", "")).split(".")[0] == "jinja2"
    # By identity: ``in`` would ask the object's own ``__eq__``, which a template's value may
    # answer with anything (an array answers with an array, whose truth raises).
    return obj is dict or any(obj is kind for kind in _JINJA)


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
            inner = site_theme.resolve().relative_to(self.content.resolve()).parts
            if any(part.startswith(".") for part in inner):
                raise SiteError(
                    f"theme folder {site_theme} lies in a hidden folder ({'/'.join(inner)}), "
                    "which a build never reads; move the theme out of it (theme: in site.yaml)"
                )
            problems: list[BuildWarning] = []
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
        from modelscape.pages.evidence import Cell
        from modelscape.pages.page import environment

        shipped = environment()
        env = _Sandbox(
            loader=jinja2.ChoiceLoader(loaders),
            autoescape=True,
            undefined=jinja2.StrictUndefined,
            trim_blocks=True,
            lstrip_blocks=True,
            auto_reload=False,
        )
        env.cell = Cell
        for name in ("json_script", "pretty_json"):
            env.filters[name] = shipped.filters[name]
        for name in bounded.SIZED_FILTERS & env.filters.keys():
            env.filters[name] = bounded.bounded_filter(name, env.filters[name])
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
