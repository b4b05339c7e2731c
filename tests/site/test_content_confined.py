"""The repository around the content is not content (issue 33, round two).

``modelscape init`` makes the content folder a repository's root, so a link inside it can
reach ``.git/config`` (a checkout's token) or ``.env``; a link to a folder can publish the
whole repository; a hard link can bring in any file of the same disk. A lone surrogate in a
spec or a page's front matter ended the whole build; a page could take a path the build
writes (``pages/pagefind/...``). Each case builds through the sandbox, which checks that
nothing outside the output folder changed and no secret leaked.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable

import pytest

from modelscape.site import SiteError
from modelscape.site.content import reserved
from modelscape.site.exports import CSV_FILE, JSON_FILE
from modelscape.site.manifest import MANIFEST, PAGES, Manifest
from modelscape.site.ownership import MARKER
from modelscape.site.search import PAGEFIND, pagefind_installed
from modelscape.site.theme import ASSETS
from tests.site.hostile import Sandbox
from tests.site.sitetools import RUN

TOKEN = "ghp_" + "0123456789abcdef" * 2


@pytest.fixture(autouse=True)
def _key(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("cache")))


def _repository(sandbox: Sandbox) -> None:
    """The content folder as a checkout's root: a token in .git/config, secrets in .env."""
    git = sandbox.content / ".git"
    git.mkdir()
    (git / "config").write_text(
        f'[remote "origin"]\n\turl = https://x-access-token:{TOKEN}@github.com/o/r\n', "utf-8"
    )
    (git / "notes.yaml").write_text(f"name: leak\ndescription: {TOKEN}\n", encoding="utf-8")
    (sandbox.content / ".env").write_text(f"GITHUB_TOKEN={TOKEN}\n", encoding="utf-8")
    (sandbox.content / ".netrc").write_text(f"password {TOKEN}\n", encoding="utf-8")


def _no_token(sandbox: Sandbox) -> None:
    for path in sandbox.output.rglob("*"):
        if path.is_file():
            assert TOKEN.encode() not in path.read_bytes(), path


def test_links_into_hidden_files_are_never_followed(sandbox: Sandbox) -> None:
    _repository(sandbox)
    pages, run = sandbox.content / "pages", sandbox.content / "runs" / RUN
    (pages / "gitconfig.txt").symlink_to("../.git/config")
    (pages / "dotenv.txt").symlink_to("../.env")
    (pages / "netrc.md").symlink_to(sandbox.content / ".netrc")
    (sandbox.content / "specs" / "notes.yaml").symlink_to("../.git/notes.yaml")
    (run / "README.md").unlink()
    (run / "README.md").symlink_to("../../.env")
    result = sandbox.build()
    skipped = [w for w in map(str, result.warnings) if "a hidden file or folder" in w]
    assert len(skipped) == 5, result.warnings
    for name in ("gitconfig.txt", "dotenv.txt", "netrc.md", "notes.yaml", "README.md"):
        assert any(f"/{name}: a link into ." in w for w in skipped), name
    assert not (sandbox.output / "gitconfig.txt").exists()
    assert not (sandbox.output / "dotenv.txt").exists()
    assert not (sandbox.output / "scenarios" / "leak.html").exists()
    _no_token(sandbox)
    sandbox.refuses(r"warnings \(--strict\)", strict=True)


def test_settings_linked_to_a_hidden_file_are_an_error(sandbox: Sandbox) -> None:
    _repository(sandbox)
    (sandbox.content / "site.yaml").unlink()
    (sandbox.content / "site.yaml").symlink_to(".env")
    sandbox.refuses(r"site\.yaml: a link that leaves the content folder or leads into a hidden")


def test_a_link_to_a_folder_inside_is_not_followed(sandbox: Sandbox) -> None:
    _repository(sandbox)
    (sandbox.content / "pages" / "repository").symlink_to("..", target_is_directory=True)
    (sandbox.content / "runs" / "again").symlink_to(RUN, target_is_directory=True)
    result = sandbox.build()
    folders = [w for w in map(str, result.warnings) if "a link to a folder; skipped" in w]
    assert len(folders) == 2, result.warnings
    assert not (sandbox.output / "repository").exists()
    assert not (sandbox.output / "reports" / "again.html").exists()
    _no_token(sandbox)
    # The content's own folders too: pages -> . would publish the repository.
    shutil.move(sandbox.content / "pages", sandbox.content / "docs")
    (sandbox.content / "pages").symlink_to(".", target_is_directory=True)
    sandbox.warns(r"content/pages: a link to a folder; skipped")
    assert not (sandbox.output / "site.yaml").exists()
    _no_token(sandbox)


def test_settings_that_are_a_hard_link_are_an_error(sandbox: Sandbox) -> None:
    settings = sandbox.content / "site.yaml"
    os.link(settings, sandbox.outside / "elsewhere.yaml")
    try:
        sandbox.refuses(r"site\.yaml: a hard link \(the file has 2 names\)")
    finally:
        (sandbox.outside / "elsewhere.yaml").unlink()


def test_a_hard_link_to_a_file_elsewhere_is_skipped(sandbox: Sandbox) -> None:
    pages, run = sandbox.content / "pages", sandbox.content / "runs" / RUN
    os.link(sandbox.secret_file, pages / "key.txt")
    (run / "README.md").unlink()
    os.link(sandbox.secret_file, run / "README.md")
    spec = sandbox.content / "specs" / "return-window.yaml"
    os.link(spec, sandbox.outside / "spec-elsewhere.yaml")
    # Two names of one file, both in the content, are a file like any other.
    (pages / "a.txt").write_text("shared\n", encoding="utf-8")
    os.link(pages / "a.txt", pages / "b.txt")
    warnings = [w for w in map(str, sandbox.build().warnings) if "a hard link with" in w]
    assert len(warnings) == 3, warnings
    assert all("outside the content's files; skipped" in w for w in warnings)
    assert not (sandbox.output / "key.txt").exists()
    assert (sandbox.output / "a.txt").is_file()
    assert (sandbox.output / "b.txt").is_file()
    report = (sandbox.output / "reports" / f"{RUN}.html").read_text(encoding="utf-8")
    assert "How this run was made" not in report
    (sandbox.outside / "spec-elsewhere.yaml").unlink()  # the sandbox checks the outside


#: Lone surrogates as YAML writes them: an escape in a double-quoted scalar.
SURROGATE = '"\\ud800"'


def _in_prompt(text: str) -> str:
    """The spec's prompt as a double-quoted scalar holding an escaped lone surrogate."""
    start, end = text.index("prompt: |-\n"), text.index("slots:")
    prompt = '"A customer received {item} {days} days ago \\ud800. Is this return eligible?"'
    return text[:start] + f"prompt: {prompt}\n" + text[end:]


def _in_slot(text: str) -> str:
    """One of the spec's slot values replaced by an escaped lone surrogate."""
    assert "- a desk lamp\n" in text
    return text.replace("- a desk lamp\n", f"- {SURROGATE}\n", 1)


@pytest.mark.parametrize(
    ("damage", "place"), [(_in_prompt, "prompt"), (_in_slot, "item")], ids=["prompt", "slot"]
)
def test_a_spec_with_a_lone_surrogate_is_skipped(
    sandbox: Sandbox, damage: Callable[[str], str], place: str
) -> None:
    spec = sandbox.content / "specs" / "return-window.yaml"
    spec.write_text(damage(spec.read_text(encoding="utf-8")), encoding="utf-8")
    warning = sandbox.warns(r"return-window\.yaml: .*surrogate")
    # Whichever reader names it, the warning says the file and the place in it.
    assert str(spec) in warning
    assert place in warning
    # The rest of the site is built, the run's report page too.
    assert (sandbox.output / "reports" / f"{RUN}.html").is_file()


@pytest.mark.parametrize("key", ["title", "description"])
def test_a_page_with_a_lone_surrogate_in_its_front_matter_is_skipped(
    sandbox: Sandbox, key: str
) -> None:
    page = sandbox.content / "pages" / "broken.md"
    page.write_text(f"---\n{key}: {SURROGATE}\n---\n# Broken\n", encoding="utf-8")
    warning = sandbox.warns(rf"broken\.md: front matter: {key}: a lone surrogate \(U\+D800\)")
    assert warning.startswith(str(page))
    assert not (sandbox.output / "broken.html").exists()
    assert (sandbox.output / "about.html").is_file()
    # Known by the hash of its file: the next build says so again without reading it.
    assert Manifest.load(sandbox.output).damaged
    again = sandbox.build()
    assert [w for w in map(str, again.warnings) if "broken.md: front matter" in w] == [warning]


def test_run_notes_with_a_lone_surrogate_are_left_out(sandbox: Sandbox) -> None:
    notes = sandbox.content / "runs" / RUN / "README.md"
    notes.write_text(f"---\ntitle: {SURROGATE}\n---\n# Notes\n", encoding="utf-8")
    warning = sandbox.warns(r"README\.md: front matter: title: a lone surrogate")
    assert "the run's notes are left out" in warning
    assert (sandbox.output / "reports" / f"{RUN}.html").is_file()


def test_settings_with_a_lone_surrogate_are_an_error(sandbox: Sandbox) -> None:
    settings = sandbox.content / "site.yaml"
    settings.write_text(
        settings.read_text(encoding="utf-8") + f"description: {SURROGATE}\n", "utf-8"
    )
    sandbox.refuses(r"site\.yaml: description: a lone surrogate \(U\+D800\)")


@pytest.mark.parametrize(
    "name",
    [
        "pagefind/pagefind-entry.json",
        "pagefind/index.md",
        "Index.md",
        "ASSETS/data.json",
        "Leaderboard.CSV",
    ],
)
def test_a_page_cannot_take_a_path_the_build_writes(sandbox: Sandbox, name: str) -> None:
    source = sandbox.content / "pages" / name
    source.parent.mkdir(parents=True, exist_ok=True)
    source.write_text("# Mine\n", encoding="utf-8")
    sandbox.warns(r"would replace .*, but .* is made by the build")


def test_every_path_the_build_writes_is_reserved(sandbox: Sandbox) -> None:
    if not pagefind_installed():
        pytest.skip("Pagefind is not installed: its index is one of the paths")
    result = sandbox.build(base_url="https://example.org/")
    made = {*result.rendered, *result.reused, MANIFEST, PAGES, MARKER}
    assert {f"{ASSETS}/search-index.js", "sitemap.xml", ".nojekyll", CSV_FILE, JSON_FILE} <= made
    assert any(path.startswith(f"{PAGEFIND}/") for path in made)
    pages = {
        path.relative_to(sandbox.content / "pages").with_suffix(".html").as_posix()
        for path in (sandbox.content / "pages").rglob("*.md")
    }
    free = sorted(path for path in made - pages if reserved(path) is None)
    assert free == []


def test_a_theme_file_cannot_replace_a_file_the_build_makes(sandbox: Sandbox) -> None:
    settings = sandbox.content / "site.yaml"
    settings.write_text(settings.read_text(encoding="utf-8") + "theme: mytheme\n", "utf-8")
    static = sandbox.content / "mytheme" / "static"
    static.mkdir(parents=True)
    (static / "search-index.js").write_text("alert(1)\n", encoding="utf-8")
    with pytest.raises(SiteError, match=r"search-index\.js: the theme's static file would"):
        sandbox.build()
