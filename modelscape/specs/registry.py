"""Finding a scenario from what a person types: a file, a shipped name, or a registered one.

Three kinds of scenario have names:

- **shipped**: the YAML specs inside ``modelscape/specs/shipped`` (``pressure``, ...);
- **registered**: what installed distributions list in the ``modelscape.scenarios`` entry
  point group. The entry's name is the scenario's name, and the object it names is a
  ``Scenario``, a ``Spec``, a function called without arguments that returns either, or the
  path of a YAML spec file shipped inside the package (a ``pathlib.Path``, or
  ``importlib.resources.files(...) / "name.yaml"``). The scenario it gives must carry the
  entry's name, so that what a person types is what the runs store;
- **local**: spec files (``*.yaml``, ``*.yml``) in the current folder and in ``content/specs``
  beneath it, which :func:`listed` shows but which are named by their path.

:func:`find_scenario` reads a reference in this order: ``python:module:NAME`` and Python files
(``path/to/file.py`` or ``path/to/file.py:NAME``), then spec files (a ``.yaml`` or ``.yml``
suffix, or any existing file), then ``NAME@SOURCE`` (a shipped spec with SOURCE
``modelscape``, or the entry of the distribution SOURCE), then a bare name among the shipped
and registered ones. A bare name that two of them share is refused with both qualified
forms; an unknown one is refused with the nearest known names.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterator
from importlib.metadata import EntryPoint, entry_points
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any, Literal

import yaml

from modelscape._model import FrozenModel
from modelscape._plugins import SCENARIO_GROUP
from modelscape._version import DISTRIBUTION
from modelscape._yaml import load_yaml, read_yaml_text
from modelscape.errors import ModelscapeError, SpecError
from modelscape.scenario import Scenario
from modelscape.specs.spec import Spec

__all__ = [
    "SHIPPED",
    "Listed",
    "find_scenario",
    "listed",
    "local_files",
    "registered_scenario",
    "scenario_in",
]

#: The source that names the shipped specs in ``NAME@SOURCE``.
SHIPPED = "modelscape"
#: Where local spec files are looked for, relative to the current folder.
LOCAL_FOLDERS = (Path("."), Path("content") / "specs")


class Listed(FrozenModel):
    """One scenario ``modelscape specs`` shows: its name, version and where it comes from.

    ``origin`` says where: ``modelscape`` for a shipped spec, the distribution and its version
    for a registered one, the file for a local one. ``problem`` is why it could not be read
    (then ``version`` is None); a broken entry is shown, never allowed to hide the others.
    """

    name: str
    version: str | None
    source: Literal["shipped", "registered", "local"]
    origin: str
    summary: str = ""
    problem: str | None = None


def _summary(description: str) -> str:
    """The first sentence of a description, on one line."""
    text = " ".join(description.split())
    for mark in ("? ", ". ", "! "):
        if mark in text:
            text = text.split(mark)[0] + mark.strip()
    return text


# -- registered scenarios ---------------------------------------------------------------------
def _entries(name: str | None = None) -> list[EntryPoint]:
    found = (
        entry_points(group=SCENARIO_GROUP)
        if name is None
        else entry_points(group=SCENARIO_GROUP, name=name)
    )
    return sorted(found, key=lambda entry: (entry.name, _distribution(entry)))


def _distribution(entry: EntryPoint) -> str:
    return entry.dist.name if entry.dist is not None else "an unnamed distribution"


def _own(entry: EntryPoint) -> bool:
    """Whether modelscape itself registers the entry: a scenario written in Python and
    shipped with it (modelscape/scenarios), listed and named as shipped."""
    return _distribution(entry) == DISTRIBUTION


def _origin(entry: EntryPoint) -> str:
    if _own(entry):
        return SHIPPED
    version = f" {entry.dist.version}" if entry.dist is not None else ""
    return f"{_distribution(entry)}{version} ({entry.value})"


def _spec_file(found: Path | Traversable, where: str) -> Spec:
    """The spec in a file a package ships, read with the limits of every YAML reader."""
    if isinstance(found, Path):
        return Spec.load(found)
    try:
        text = found.read_text(encoding="utf-8")
        return Spec.of(load_yaml(text))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as error:
        raise SpecError(f"{where}: cannot read the spec file {found}: {error}") from None


def scenario_in(found: Any, where: str) -> Scenario:
    """The scenario an object stands for: itself, its spec's, its function's, its file's.

    ``where`` names the object in messages (an entry point, ``module:NAME``).
    """
    if isinstance(found, Path | Traversable) and not isinstance(found, Scenario | Spec):
        found = _spec_file(found, where)
    elif callable(found) and not isinstance(found, Scenario | Spec):
        try:
            found = found()
        except ModelscapeError:
            raise
        except Exception as error:
            raise SpecError(f"{where}: calling it to make the scenario raised {error!r}") from error
    if isinstance(found, Spec):
        found = found.scenario()
    if not isinstance(found, Scenario):
        raise SpecError(
            f"{where} names a {type(found).__name__}, not a spec or scenario (name a Scenario, "
            "a Spec, a function that returns one, or the path of a spec file)"
        )
    return found


def _registered(entry: EntryPoint) -> Scenario:
    source = f"{_distribution(entry)} ({entry.value})"
    where = f"the {SCENARIO_GROUP} entry point {entry.name!r} of {source}"
    try:
        found = entry.load()
    except Exception as error:  # a plugin's import may fail in any way; say whose it is
        raise SpecError(f"{where} cannot be imported: {error!r}") from None
    scenario = scenario_in(found, where)
    if scenario.name != entry.name:
        raise SpecError(
            f"{where} gives the scenario {scenario.name!r}; a registered scenario is named "
            "as its entry point is, so rename one of them"
        )
    return scenario


def registered_scenario(name: str) -> Scenario | None:
    """The scenario registered under exactly ``name`` (by modelscape or another installed
    package), or None when no entry has that name or the one that does cannot be loaded.

    For a site, which shows a run's scenario when it can and lists the run either way.
    """
    entries = _entries(name)
    if len(entries) != 1:
        return None
    try:
        return _registered(entries[0])
    except SpecError:
        return None


# -- local spec files ---------------------------------------------------------------------------
def local_files(folder: Path | None = None) -> list[Path]:
    """The YAML files a ``specs`` listing looks at: in ``folder`` and its ``content/specs``."""
    base = Path.cwd() if folder is None else folder
    files: list[Path] = []
    for under in LOCAL_FOLDERS:
        place = base / under
        if place.is_dir():
            files.extend(
                sorted(p for p in place.iterdir() if p.suffix in (".yaml", ".yml") and p.is_file())
            )
    return files


def _local(file: Path, shown: Path) -> Listed | None:
    """A local spec file as listed, or None when the file is plainly not a spec.

    A YAML file without both ``prompt`` and ``answer`` (a ``site.yaml``, a ``targets.yaml``)
    is left out; one that has them but is invalid is shown with its first problem.
    """
    try:
        data = load_yaml(read_yaml_text(file))
    except (OSError, yaml.YAMLError):
        return None
    if not isinstance(data, dict) or "prompt" not in data or "answer" not in data:
        return None
    name = data.get("name")
    label = name if isinstance(name, str) and name.strip() else file.stem
    try:
        spec = Spec.of(data)
    except SpecError as error:
        return Listed(
            name=label, version=None, source="local", origin=str(shown), problem=error.problems[0]
        )
    return Listed(
        name=spec.name,
        version=spec.version,
        source="local",
        origin=str(shown),
        summary=_summary(spec.description),
    )


# -- the listing --------------------------------------------------------------------------------
def listed(folder: Path | None = None) -> tuple[Listed, ...]:
    """Every scenario ``modelscape specs`` shows: shipped, registered, then local ones.

    Registered entries are loaded to read their versions; one that cannot be loaded is listed
    with its problem. Local files are looked for in ``folder`` (the current one by default).
    """
    from modelscape.specs import available, load_spec

    found: list[Listed] = []
    for name in available():
        spec = load_spec(name)
        found.append(
            Listed(
                name=name,
                version=spec.version,
                source="shipped",
                origin=SHIPPED,
                summary=_summary(spec.description),
            )
        )
    for entry in _entries():
        try:
            scenario = _registered(entry)
        except ModelscapeError as error:
            found.append(
                Listed(
                    name=entry.name,
                    version=None,
                    source="registered",
                    origin=_origin(entry),
                    problem=str(error),
                )
            )
            continue
        found.append(
            Listed(
                name=entry.name,
                version=scenario.version,
                source="shipped" if _own(entry) else "registered",
                origin=_origin(entry),
                summary=_summary(scenario.description),
            )
        )
    base = Path.cwd() if folder is None else folder
    for file in local_files(base):
        item = _local(file, file.relative_to(base) if file.is_relative_to(base) else file)
        if item is not None:
            found.append(item)
    return tuple(found)


# -- resolving a reference ----------------------------------------------------------------------
def _python(reference: str) -> Scenario:
    """A scenario named in Python: ``module:NAME``, ``file.py:NAME`` or just ``file.py``."""
    from modelscape.targets._resolve import load_object

    if reference.endswith(".py"):
        return _onlyscenario_in(Path(reference))
    return scenario_in(load_object(reference), reference)


def _onlyscenario_in(path: Path) -> Scenario:
    """The one Scenario or Spec a Python file defines at its top level."""
    import importlib.util

    if not _is_file(path):
        raise SpecError(f"{path}: no such Python file")
    spec = importlib.util.spec_from_file_location(path.stem, path)
    if spec is None or spec.loader is None:
        raise SpecError(f"{path}: not a Python file that can be imported")
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except Exception as error:  # the file is the user's code: any failure is theirs to see
        raise SpecError(f"{path}: importing it raised {error!r}") from error
    defined = {
        name: value
        for name, value in vars(module).items()
        if isinstance(value, Scenario | Spec) and not name.startswith("_")
    }
    if len(defined) == 1:
        ((name, value),) = defined.items()
        return scenario_in(value, f"{path}:{name}")
    if not defined:
        raise SpecError(
            f"{path} defines no Scenario or Spec at its top level; name the object or the "
            f"function that makes one as {path}:NAME"
        )
    names = ", ".join(f"{path}:{name}" for name in defined)
    raise SpecError(f"{path} defines {len(defined)} scenarios; name one: {names}")


def _known_names() -> list[str]:
    from modelscape.specs import available

    return sorted({*available(), *(entry.name for entry in _entries())})


def _qualified(name: str, source: str) -> Scenario:
    from modelscape.specs import available, shipped_path

    if source == SHIPPED:
        own = [entry for entry in _entries(name) if _own(entry)]
        if own and name not in available():
            return _registered(own[0])
        return Spec.load(shipped_path(name)).scenario()
    entries = [entry for entry in _entries(name) if _distribution(entry) == source]
    if entries:
        return _registered(entries[0])
    holders = sorted({_distribution(entry) for entry in _entries(name)})
    if name in available():
        holders.insert(0, SHIPPED)
    if holders:
        raise SpecError(
            f"{name}@{source}: {source} registers no scenario {name!r}; it comes from "
            f"{', '.join(holders)}"
        )
    raise SpecError(f"{name}@{source}: no scenario {name!r}{_did_you_mean(name)}")


def _did_you_mean(name: str) -> str:
    close = difflib.get_close_matches(name, _known_names(), n=3)
    local = list(_local_by_name(name))
    hints = [repr(each) for each in close] + [f"the file {each}" for each in local]
    return f" (did you mean {' or '.join(hints)}?)" if hints else ""


def _local_by_name(name: str) -> Iterator[str]:
    """Local spec files named ``name`` (before the suffix): a path the user may mean."""
    base = Path.cwd()
    for file in local_files(base):
        if file.stem == name:
            yield str(file.relative_to(base))


def _is_file(path: Path) -> bool:
    """Whether ``path`` is a file; a name the system cannot look up (too long, say) is not."""
    try:
        return path.is_file()
    except (OSError, ValueError):
        return False


def find_scenario(reference: str) -> Scenario:
    """The scenario ``reference`` names (see the module's docstring for every form).

    Raises SpecError when nothing or more than one thing answers to the name, saying what
    would: the nearest names, or each qualified form.
    """
    from modelscape.specs import available, load_spec

    if reference.startswith("python:"):
        return _python(reference.removeprefix("python:"))
    path_part = reference.rsplit(":", 1)[0] if ":" in reference else reference
    if path_part.endswith(".py"):
        return _python(reference)
    path = Path(reference)
    if path.suffix in (".yaml", ".yml") or _is_file(path):
        if not _is_file(path):
            raise SpecError(f"{path}: no such file")
        return load_spec(path).scenario()
    if "@" in reference:
        name, _, source = reference.rpartition("@")
        if not name or not source:
            raise SpecError(f"{reference!r}: name a scenario as NAME or NAME@SOURCE")
        return _qualified(name, source)
    shipped = reference in available()
    registered = _entries(reference)
    if shipped + len(registered) > 1:
        forms = ([f"{reference}@{SHIPPED} (shipped)"] if shipped else []) + [
            f"{reference}@{_distribution(entry)} (registered)" for entry in registered
        ]
        raise SpecError(
            f"{reference!r} is ambiguous: {len(forms)} scenarios have that name; "
            f"name one as {' or '.join(forms)}"
        )
    if shipped:
        return load_spec(reference).scenario()
    if registered:
        return _registered(registered[0])
    everyone = _entries()
    shipped_names = [*available(), *sorted({e.name for e in everyone if _own(e)})]
    names = sorted({entry.name for entry in everyone if not _own(entry)})
    raise SpecError(
        f"no scenario {reference!r}{_did_you_mean(reference)}; shipped: "
        f"{', '.join(shipped_names)}; registered: {', '.join(names) or 'none'} (a spec or "
        "Python file is named by its path)"
    )
