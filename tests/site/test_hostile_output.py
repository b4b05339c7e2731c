"""Hostile content, part two: the output folder and its manifest, reserved paths, raw files.

The output folder is not trusted more than the content: a manifest left there may list any
path, and a folder or file in it may be a link. Every case builds through the sandbox, which
also checks that nothing outside the output folder changed and that no secret leaked.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path, PurePosixPath
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from modelscape import __version__
from modelscape.site.confine import site_path
from modelscape.site.manifest import MANIFEST, SUMMARIES
from tests.site.hostile import Sandbox
from tests.site.sitetools import REPO, RUN


def _manifest(sandbox: Sandbox) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((sandbox.output / MANIFEST).read_text(encoding="utf-8"))
    return data


def test_a_manifest_cannot_make_the_build_delete_outside(sandbox: Sandbox) -> None:
    sandbox.build()
    data = _manifest(sandbox)
    for path in ("../outside/victim.txt", str(sandbox.victim), "a/../../outside/victim.txt"):
        data["outputs"][path] = {"digest": "x"}
    (sandbox.output / MANIFEST).write_text(json.dumps(data), encoding="utf-8")
    result = sandbox.build()
    assert result.removed == []
    assert sandbox.victim.is_file()
    # A manifest naming a path outside is corrupt: the build starts over, rendering every page.
    assert [p for p in result.reused if p.endswith(".html")] == []


@pytest.mark.parametrize(
    "text",
    [
        "null",
        "[]",
        '"text"',
        "{",
        '{"format": 1}',
        '{"format": 1, "modelscape": "VERSION", "outputs": []}',
        '{"format": 1, "modelscape": "VERSION", "outputs": {"index.html": {}}}',
        '{"format": 1, "modelscape": "VERSION", "outputs": {"index.html": {"digest": 3}}}',
        '{"format": 1, "modelscape": "VERSION", "outputs": {"index.html": "x"}}',
        '{"format": 1, "modelscape": "VERSION", "outputs": {}, "files": {"a": [1]}}',
        '{"format": 1, "modelscape": "VERSION", "outputs": {"i.html": {"digest": "x", '
        '"files": ["/etc/passwd"]}}}',
        '{"format": 1, "modelscape": "VERSION", "outputs": {"i.html": {"digest": "x", '
        '"links": [1]}}}',
        "[" * 100_000,
    ],
)
def test_a_corrupt_manifest_means_a_full_rebuild(sandbox: Sandbox, text: str) -> None:
    sandbox.output.mkdir()
    (sandbox.output / MANIFEST).write_text(text.replace("VERSION", __version__), "utf-8")
    result = sandbox.build(strict=True)
    assert [p for p in result.reused if p.endswith(".html")] == []
    assert "index.html" in result.rendered
    assert _manifest(sandbox)["outputs"]["index.html"]["digest"]


def test_a_corrupt_summary_in_the_manifest_is_read_again(sandbox: Sandbox) -> None:
    sandbox.build()
    file = sandbox.output / SUMMARIES
    data = json.loads(file.read_text(encoding="utf-8"))
    assert data["summaries"]
    for key in data["summaries"]:
        data["summaries"][key] = {"run": 3}
    file.write_text(json.dumps(data), encoding="utf-8")
    assert sandbox.build(strict=True).warnings == []


def test_the_published_manifest_holds_no_local_paths(sandbox: Sandbox) -> None:
    (sandbox.content / "runs" / RUN / "store.db").unlink()  # a warning that names a file
    sandbox.build(base_url="https://example.org/")
    text = (sandbox.output / MANIFEST).read_text(encoding="utf-8")
    for local in (str(sandbox.root), str(REPO), str(Path.home()), str(Path.cwd())):
        assert local not in text
    # The warnings kept for unchanged pages still name the files when printed.
    again = sandbox.build(base_url="https://example.org/")
    assert any(str(sandbox.content / "runs" / RUN) in w for w in map(str, again.warnings))


def test_a_linked_folder_in_the_output_is_not_written_through(sandbox: Sandbox) -> None:
    sandbox.build()
    shutil.rmtree(sandbox.output / "reports")
    (sandbox.output / "reports").symlink_to(sandbox.outside, target_is_directory=True)
    sandbox.build()  # the link is removed as a link (see test_output_owned.py)
    assert (sandbox.output / "reports").is_dir()
    assert not (sandbox.output / "reports").is_symlink()
    assert sorted(p.name for p in sandbox.outside.iterdir()) == ["secret.txt", "victim.txt"]


def test_a_linked_file_in_the_output_is_replaced_not_followed(sandbox: Sandbox) -> None:
    sandbox.build()
    (sandbox.output / "index.html").unlink()
    (sandbox.output / "index.html").symlink_to(sandbox.victim)
    (sandbox.output / (MANIFEST + ".tmp")).symlink_to(sandbox.victim)
    sandbox.build()
    assert not (sandbox.output / "index.html").is_symlink()
    assert "leaderboard" in (sandbox.output / "index.html").read_text(encoding="utf-8")


def test_an_output_folder_that_cannot_be_made_is_one_line(sandbox: Sandbox) -> None:
    blocker = sandbox.root / "blocker"
    blocker.write_text("a file\n", encoding="utf-8")
    sandbox.output = blocker / "site"
    sandbox.refuses(r"cannot create the output folder .*blocker/site: Not a directory")
    sandbox.output = blocker
    sandbox.refuses(r"the output folder .*blocker is a file")


@pytest.mark.parametrize("inside", ["pages", "runs", "specs"])
def test_an_output_folder_inside_the_inputs_is_refused(sandbox: Sandbox, inside: str) -> None:
    sandbox.output = sandbox.content / inside / "site"
    sandbox.refuses(rf"lies inside the content's {inside}/ folder")


@pytest.mark.parametrize(
    ("page", "generated"),
    [
        ("index.md", "index.html"),
        ("search.md", "search.html"),
        ("404.md", "404.html"),
        ("assets/site.js", "assets/site.js"),
        ("assets/page.css", "assets/page.css"),
        ("reports/x.md", "reports/x.html"),
        ("models/oracle.md", "models/oracle.html"),
        ("scenarios/pressure.md", "scenarios/pressure.html"),
    ],
)
def test_a_page_cannot_replace_what_the_build_makes(
    sandbox: Sandbox, page: str, generated: str
) -> None:
    source = sandbox.content / "pages" / page
    source.parent.mkdir(parents=True, exist_ok=True)
    source.write_text("# Mine\n\nalert('mine')\n", encoding="utf-8")
    warning = sandbox.warns(rf"would replace {generated}, but .* is made by the build")
    assert warning.startswith(str(source))
    if (sandbox.output / generated).exists():
        assert "alert('mine')" not in (sandbox.output / generated).read_text(encoding="utf-8")


@pytest.mark.parametrize(
    "name", ["raw.html", "raw.htm", "raw.xhtml", "drawing.svg", "code.js", "feed.xml", "noext"]
)
def test_active_files_are_not_published(sandbox: Sandbox, name: str) -> None:
    (sandbox.content / "pages" / name).write_text(
        "<script>alert(document.cookie)</script>\n", encoding="utf-8"
    )
    sandbox.warns(rf"{name}: .* files are not published")
    assert not (sandbox.output / name).exists()


def test_plain_files_are_copied(sandbox: Sandbox) -> None:
    (sandbox.content / "pages" / "data.csv").write_text("a,b\n1,2\n", encoding="utf-8")
    (sandbox.content / "pages" / "figure.PNG").write_bytes(b"\x89PNG\r\n\x1a\n")
    assert sandbox.build(strict=True).warnings == []
    assert (sandbox.output / "data.csv").read_text(encoding="utf-8") == "a,b\n1,2\n"
    assert (sandbox.output / "figure.PNG").is_file()


def test_a_removed_page_is_removed_from_the_output_only(sandbox: Sandbox) -> None:
    extra = sandbox.content / "pages" / "extra.md"
    extra.write_text("# Extra\n", encoding="utf-8")
    sandbox.build()
    extra.unlink()
    result = sandbox.build(strict=True)
    # (and, with Pagefind, the page's fragment of the search index)
    assert [p for p in result.removed if not p.startswith("pagefind/")] == ["extra.html"]
    assert not (sandbox.output / "extra.html").exists()


def test_files_over_the_size_limit_are_warned_about(sandbox: Sandbox) -> None:
    settings = sandbox.content / "site.yaml"
    settings.write_text(
        settings.read_text(encoding="utf-8") + "max_file_mb: 0.2\n", encoding="utf-8"
    )
    result = sandbox.build()
    large = [w for w in map(str, result.warnings) if "over the 0.2 MB limit (max_file_mb" in w]
    assert any(w.startswith("assets/plotly-cartesian.min.js: ") for w in large)
    assert all("GitHub Pages refuses files over 100 MB" in w for w in large)
    assert sandbox.build(max_file_mb=50).warnings == []
    sandbox.refuses(r"over the 0\.2 MB limit", strict=True)


@given(st.text(alphabet=st.sampled_from("ab./\\:\x00\x1f\x7f é"), max_size=16) | st.text())
def test_a_site_path_is_clean_or_refused(path: str) -> None:
    clean = site_path(path)
    if clean is not None:
        # Nothing to normalise, nothing that leaves the folder, nothing a shell or Windows
        # would read differently.
        assert clean == path == str(PurePosixPath(path))
        assert not PurePosixPath(path).is_absolute()
        assert ".." not in path.split("/")
        assert "\\" not in path
        assert all(ord(c) >= 0x20 and c != "\x7f" for c in path)
    else:
        parts = path.split("/")
        assert (
            not path
            or len(path) > 1024
            or any(part in ("", ".", "..") for part in parts)
            or any(ord(c) < 0x20 or c in "\\\x7f" for c in path)
            or ":" in parts[0]
        )
