"""An incremental build is a clean build: after any sequence of edits to a content folder.

The build reuses what the last one made wherever the inputs are unchanged; the only promise
that matters to a reader of the site is that reuse never shows. So this property edits a small
content folder at random (pages, files beside them, runs and their notes, specs, a theme and
the settings: added, changed, deleted, renamed), builds it into one output folder now and
then along the way, and at the end compares that folder with a clean build of the same
content into a fresh one: the same files, byte for byte, and the same warnings.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from modelscape.report import Report
from modelscape.site import build_site
from tests.site.sitetools import RUN, SETTINGS, make_content
from tests.support.examples import fewer
from tests.support.runs import copy_run

#: The names the edits pick from: few, so that edits meet (a page renamed onto a deleted one).
PAGE_NAMES = ("about", "method", "notes")
RUN_NAMES = (RUN, "second")
#: Kinds of test run an added run is copied from (both are made once per process).
RUN_KINDS = (RUN, "pressure-fixture")
SPEC_NAMES = ("return-window", "pressure")
THEME = "mytheme"
WORDS = st.text(alphabet="abcdefghij klmnop", min_size=1, max_size=12)


@dataclass(frozen=True)
class Edit:
    """One change to the content folder: its kind and the names and text it uses."""

    kind: str
    name: str = ""
    other: str = ""
    text: str = ""

    def apply(self, content: Path) -> None:
        """Make the change; an edit that has nothing to act on (a missing page) does nothing."""
        _EDITS[self.kind](self, content)


def _page(content: Path, name: str) -> Path:
    return content / "pages" / f"{name}.md"


def _write_page(edit: Edit, content: Path) -> None:
    title = edit.text.strip() or "Page"
    text = f"---\ntitle: {title}\n---\n# {edit.text}\n\nSee [about](about.html).\n"
    _page(content, edit.name).write_text(text, encoding="utf-8")


def _embed_page(edit: Edit, content: Path) -> None:
    # A page whose numbers come from a run: rebuilt when any run changes.
    text = f"# Findings\n\nAccuracy: `ms:accuracy {edit.name} oracle`.\n\n{edit.text}\n"
    _page(content, "findings").write_text(text, encoding="utf-8")


def _append(path: Path, text: str) -> None:
    if path.is_file():
        with path.open("a", encoding="utf-8") as file:
            file.write(text)


def _delete(path: Path) -> None:
    if path.is_dir():
        shutil.rmtree(path)
    elif path.exists():
        path.unlink()


def _rename(source: Path, target: Path) -> None:
    if source.exists() and not target.exists():
        os.rename(source, target)


def _add_run(edit: Edit, content: Path) -> None:
    if not (content / "runs" / edit.name).exists():
        copy_run(edit.other, content, as_name=edit.name)


def _describe_run(edit: Edit, content: Path) -> None:
    file = content / "runs" / edit.name / "report.json"
    if file.is_file():
        report = Report.load(file)
        report.model_copy(update={"description": edit.text}).save(file)


def _theme_on(edit: Edit, content: Path) -> None:
    (content / THEME / "templates").mkdir(parents=True, exist_ok=True)
    (content / THEME / "static").mkdir(parents=True, exist_ok=True)
    _settings(content, theme=True)


def _theme_off(edit: Edit, content: Path) -> None:
    _settings(content, theme=False)


def _settings(content: Path, *, theme: bool | None = None, title: str | None = None) -> None:
    """Rewrite site.yaml from the tests' settings, keeping what this edit does not change."""
    file = content / "site.yaml"
    lines = file.read_text(encoding="utf-8").splitlines()
    had_theme = f"theme: {THEME}" in lines
    kept_title = next(line for line in lines if line.startswith("title: "))
    new_title = kept_title if title is None else f"title: {title}"
    text = SETTINGS.replace("title: modelscape leaderboard", new_title)
    if had_theme if theme is None else theme:
        text += f"theme: {THEME}\n"
    file.write_text(text, encoding="utf-8")


def _theme_static(edit: Edit, content: Path) -> None:
    folder = content / THEME / "static"
    if folder.is_dir():
        (folder / f"{edit.name}.css").write_text(f"/* {edit.text} */\n", encoding="utf-8")


def _theme_template(edit: Edit, content: Path) -> None:
    folder = content / THEME / "templates"
    if folder.is_dir():
        (folder / "base.html.j2").write_text(
            '{% extends "default/base.html.j2" %}\n'
            f"{{% block footer %}}<footer>{edit.text}</footer>{{% endblock %}}\n",
            encoding="utf-8",
        )


_EDITS = {
    "page-write": _write_page,
    "page-append": lambda e, c: _append(_page(c, e.name), f"\n{e.text}\n"),
    "page-delete": lambda e, c: _delete(_page(c, e.name)),
    "page-rename": lambda e, c: _rename(_page(c, e.name), _page(c, e.other)),
    "page-embed": _embed_page,
    "file-write": lambda e, c: (c / "pages" / f"{e.name}.txt").write_text(e.text, "utf-8"),
    "file-delete": lambda e, c: _delete(c / "pages" / f"{e.name}.txt"),
    "run-add": _add_run,
    "run-describe": _describe_run,
    "run-notes": lambda e, c: _append(c / "runs" / e.name / "README.md", f"\n{e.text}\n"),
    "run-delete": lambda e, c: _delete(c / "runs" / e.name),
    "run-rename": lambda e, c: _rename(c / "runs" / e.name, c / "runs" / e.other),
    "spec-append": lambda e, c: _append(c / "specs" / f"{e.name}.yaml", f"# {e.text}\n"),
    "spec-delete": lambda e, c: _delete(c / "specs" / f"{e.name}.yaml"),
    "theme-on": _theme_on,
    "theme-off": _theme_off,
    "theme-static": _theme_static,
    "theme-template": _theme_template,
    "theme-static-delete": lambda e, c: _delete(c / THEME / "static" / f"{e.name}.css"),
    "settings-title": lambda e, c: _settings(c, title=e.text.strip() or "Lab"),
    # Not an edit: an incremental build in the middle of the sequence, so later builds
    # start from a folder an earlier incremental build made.
    "build": lambda e, c: None,
}

pages = st.sampled_from(PAGE_NAMES)
runs = st.sampled_from(RUN_NAMES)
edits = st.one_of(
    st.builds(
        Edit, st.sampled_from(["page-write", "page-append", "page-delete"]), pages, text=WORDS
    ),
    st.builds(Edit, st.just("page-rename"), pages, pages),
    st.builds(Edit, st.just("page-embed"), runs, text=WORDS),
    st.builds(Edit, st.sampled_from(["file-write", "file-delete"]), pages, text=WORDS),
    st.builds(Edit, st.just("run-add"), runs, st.sampled_from(RUN_KINDS)),
    st.builds(Edit, st.sampled_from(["run-describe", "run-notes", "run-delete"]), runs, text=WORDS),
    st.builds(Edit, st.just("run-rename"), runs, runs),
    st.builds(
        Edit,
        st.sampled_from(["spec-append", "spec-delete"]),
        st.sampled_from(SPEC_NAMES),
        text=WORDS,
    ),
    st.builds(
        Edit,
        st.sampled_from(
            ["theme-on", "theme-off", "theme-static", "theme-template", "theme-static-delete"]
        ),
        st.sampled_from(("lab", "extra")),
        text=WORDS,
    ),
    st.builds(Edit, st.just("settings-title"), text=WORDS),
    st.builds(Edit, st.just("build")),
)


def _files(site: Path) -> dict[str, bytes]:
    """Every file of a built site by its path inside it, with its bytes."""
    return {
        path.relative_to(site).as_posix(): path.read_bytes()
        for path in sorted(site.rglob("*"))
        if path.is_file()
    }


def _build(content: Path, site: Path) -> list[str]:
    return build_site(content, site).warnings


# Each example builds the site three to ten times (a second or more on two cores), so it takes
# half the profile's examples: 25 in CI, 250 in the thorough profile.
@settings(
    max_examples=fewer(2), suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)
@given(st.lists(edits, min_size=1, max_size=8))
def test_an_incremental_build_after_any_edits_is_a_clean_build(sequence: list[Edit]) -> None:
    with tempfile.TemporaryDirectory(prefix="modelscape-edits-") as folder:
        work = Path(folder)
        content = make_content(work / "content")
        site = work / "site"
        _build(content, site)
        for edit in sequence:
            if edit.kind == "build":
                _build(content, site)
            else:
                edit.apply(content)
        incremental = _build(content, site)
        clean = _build(content, work / "clean")
        assert incremental == clean
        made, expected = _files(site), _files(work / "clean")
        assert sorted(made) == sorted(expected)
        differing = [path for path in expected if made[path] != expected[path]]
        assert differing == []
