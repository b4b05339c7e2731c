"""The output folder is not trusted: a build keeps in it only the files it wrote, as it wrote them.

Issue 33: pages changed after a build (``<script>`` added) survived every rebuild, and files
and links the build never wrote (``leak.txt -> secret``, ``etcdir -> /etc``, ``evil.html``)
stayed with no warning, ``serve`` answering through them. Issue 32: a build into a folder of
the user's own files replaced them without a word. Every hostile case builds through the
sandbox, which checks that nothing outside the output folder changed and no secret leaked.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

import modelscape.site.ownership
from modelscape.cli import main
from modelscape.scaffold.serve import SiteServer
from modelscape.site import SiteError, build_site
from modelscape.site.manifest import MANIFEST
from modelscape.site.ownership import MARKER
from tests.site.hostile import Sandbox
from tests.site.links import fetch

SCRIPT = "<script>alert(document.cookie)</script>"


@pytest.fixture(autouse=True)
def cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A key of this test's own, outside the folders the sandbox watches."""
    cache = tmp_path_factory.mktemp("cache")
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    return cache


def _tamper(sandbox: Sandbox) -> list[str]:
    """Add a script to three pages, three ways: appended; written over the same bytes in
    place with the old modification time put back; a new file of the same size and time."""
    site = sandbox.output
    appended, in_place, replaced = "index.html", "about.html", "search.html"
    with (site / appended).open("a", encoding="utf-8") as stream:
        stream.write(SCRIPT)
    for name in (in_place, replaced):
        page = site / name
        before = page.stat()
        data = page.read_bytes()
        at = data.index(b"</body>")
        changed = data[: at - len(SCRIPT)] + SCRIPT.encode() + data[at:]
        assert len(changed) == len(data)
        if name == in_place:
            with page.open("r+b") as stream:  # the same file (inode), new bytes
                stream.write(changed)
        else:
            page.unlink()
            page.write_bytes(changed)
        os.utime(page, ns=(before.st_atime_ns, before.st_mtime_ns))
    return sorted([appended, in_place, replaced])


def _hashed(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """A list that gets the path of each output the build reads again to check it."""
    read: list[str] = []
    real = modelscape.site.ownership._sha256

    def counted(path: str) -> str:
        read.append(path)
        return real(path)

    monkeypatch.setattr(modelscape.site.ownership, "_sha256", counted)
    return read


def test_changed_pages_are_made_again(sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch) -> None:
    sandbox.build()
    tampered = _tamper(sandbox)
    for source in (sandbox.content / "pages").rglob("*.md"):  # touching the content too
        source.touch()
    result = sandbox.build()
    for name in tampered:
        assert SCRIPT not in (sandbox.output / name).read_text(encoding="utf-8"), name
        assert name in result.rendered
    found = [w for w in map(str, result.warnings) if "differed from what the last build wrote" in w]
    assert len(found) == 1, result.warnings
    assert all(name in found[0] for name in tampered), found
    # The build after it has nothing to do, and reads no output again to know it.
    read = _hashed(monkeypatch)
    again = sandbox.build(strict=True)
    assert (again.rendered, again.warnings, read) == ([], [], [])
    # Files touched but not changed (their change time moved) are read again once, kept,
    # and remembered: nothing is written and the build after reads nothing.
    for path in sandbox.output.rglob("*.html"):
        path.chmod(0o644)
    assert sandbox.build(strict=True).rendered == []
    assert read
    read.clear()
    assert sandbox.build(strict=True).rendered == []
    assert read == []


def _reseal(site: Path, page: str) -> None:
    """The manifest given a changed page's size and sha256, sealed as an unkeyed build
    would seal it (what anyone who can write the folder can do)."""
    text = (site / MANIFEST).read_bytes()
    data = json.loads(text)
    data.pop("seal")
    data["outputs"][page]["size"] = (site / page).stat().st_size
    data["outputs"][page]["sha256"] = hashlib.sha256((site / page).read_bytes()).hexdigest()
    body = json.dumps(data, separators=(",", ":")).encode()[:-1]
    (site / MANIFEST).write_bytes(body + f',"seal":"{hashlib.sha256(body).hexdigest()}"}}'.encode())


def test_a_manifest_resealed_by_hand_does_not_keep_a_changed_page(sandbox: Sandbox) -> None:
    sandbox.build()
    _tamper(sandbox)
    _reseal(sandbox.output, "index.html")
    result = sandbox.build()
    assert SCRIPT not in (sandbox.output / "index.html").read_text(encoding="utf-8")
    # Not trusted, so every page was made again.
    assert [p for p in result.reused if p.endswith(".html")] == []
    assert any("manifest could not be checked" in note for note in result.notes)


def test_files_the_build_did_not_write_are_removed(sandbox: Sandbox) -> None:
    sandbox.build()
    site = sandbox.output
    (site / "leak.txt").symlink_to(sandbox.secret_file)
    (site / "etcdir").symlink_to(sandbox.outside, target_is_directory=True)
    (site / "evil.html").write_text(SCRIPT, encoding="utf-8")
    (site / "reports" / "extra").mkdir()
    (site / "reports" / "extra" / "page.html").write_text(SCRIPT, encoding="utf-8")
    (site / ".git").mkdir()  # a gh-pages checkout: the user's, not the site's
    (site / ".git" / "HEAD").write_text("ref: refs/heads/gh-pages\n", encoding="utf-8")
    strict = sandbox.refuses(r"4 files the build did not write", strict=True)
    assert "etcdir, evil.html, leak.txt, reports/extra/" in strict
    assert os.path.lexists(site / "leak.txt")  # a failed build changes nothing
    result = sandbox.build()
    found = [w for w in map(str, result.warnings) if "the build did not write" in w]
    assert len(found) == 1, result.warnings
    assert found[0].startswith(str(site))
    for name in ("leak.txt", "etcdir", "evil.html", "reports/extra"):
        assert not os.path.lexists(site / name), name
    assert (site / ".git" / "HEAD").is_file()
    # Removed as links, never followed (the sandbox checks that nothing outside changed).
    assert sorted(p.name for p in sandbox.outside.iterdir()) == ["secret.txt", "victim.txt"]
    assert sandbox.build(strict=True).rendered == []


@pytest.fixture
def preview(sandbox: Sandbox) -> Iterator[SiteServer]:
    server = SiteServer(sandbox.content, sandbox.output, port=0, interval=60)
    server.start()
    yield server
    server.stop()


def test_serve_answers_only_with_files_inside_the_folder(
    sandbox: Sandbox, preview: SiteServer
) -> None:
    site = sandbox.output
    (site / "leak.txt").symlink_to(sandbox.secret_file)
    (site / "etcdir").symlink_to(sandbox.outside, target_is_directory=True)
    (site / "models" / "gone.html").symlink_to(sandbox.secret_file)
    assert fetch(preview.url + "about.html")[0] == 200
    for path in ("leak.txt", "etcdir/secret.txt", "etcdir/", "models/gone.html", MANIFEST):
        status, body = fetch(preview.url + path)
        assert status == 404, path
        assert sandbox.secret not in body


@pytest.fixture
def own_files(tmp_path: Path) -> Path:
    """A folder of a user's own files, which is no build's."""
    folder = tmp_path / "mine"
    (folder / "notes").mkdir(parents=True)
    (folder / "index.html").write_text("my own page\n", encoding="utf-8")
    (folder / "notes" / "todo.txt").write_text("keep me\n", encoding="utf-8")
    return folder


def test_a_folder_no_build_made_is_refused(content: Path, own_files: Path) -> None:
    with pytest.raises(SiteError, match=r"not made by a modelscape build") as raised:
        build_site(content, own_files)
    assert "holds 2 files: index.html, notes/todo.txt; build into an empty" in str(raised.value)
    assert (own_files / "index.html").read_text(encoding="utf-8") == "my own page\n"
    with pytest.raises(SiteError, match=r"not made by a modelscape build"):
        SiteServer(content, own_files, port=0)
    ran = CliRunner().invoke(main, ["build", str(content), "-o", str(own_files)])
    assert ran.exit_code == 1
    assert "index.html, notes/todo.txt" in ran.output
    assert "--force" in ran.output
    assert sorted(p.name for p in own_files.iterdir()) == ["index.html", "notes"]
    # Forced, the folder becomes the site's, and holds the site alone.
    forced = build_site(content, own_files, force=True, strict=True)
    assert any("index.html, notes/todo.txt" in note for note in forced.notes)
    assert "leaderboard" in (own_files / "index.html").read_text(encoding="utf-8")
    assert not (own_files / "notes").exists()
    assert (own_files / MARKER).is_file()
    assert build_site(content, own_files, strict=True).rendered == []


def test_the_refusal_lists_twenty_files_and_counts_the_rest(content: Path, tmp_path: Path) -> None:
    folder = tmp_path / "many"
    folder.mkdir()
    for number in range(25):
        (folder / f"file-{number:02d}.txt").write_text("x", encoding="utf-8")
    with pytest.raises(SiteError) as raised:
        build_site(content, folder)
    message = str(raised.value)
    assert "file-19.txt and 5 more; " in message
    assert "file-20.txt" not in message


def test_an_empty_or_version_controlled_folder_is_the_builds(content: Path, tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    build_site(content, empty, strict=True)
    checkout = tmp_path / "checkout"
    (checkout / ".git").mkdir(parents=True)
    (checkout / ".git" / "HEAD").write_text("ref: refs/heads/gh-pages\n", encoding="utf-8")
    build_site(content, checkout, strict=True)
    build_site(content, checkout, strict=True, force=True)
    assert (checkout / ".git" / "HEAD").is_file()
    assert not (tmp_path / "site").exists()
    # A folder of an earlier build (its manifest, no marker yet) is the build's too.
    (empty / MARKER).unlink()
    build_site(content, empty, strict=True)
    # Anything else in a folder is not.
    (checkout / MARKER).unlink()
    (checkout / MANIFEST).unlink()
    with pytest.raises(SiteError, match=r"not made by a modelscape build"):
        build_site(content, checkout)


def test_without_a_key_every_build_starts_over(
    content: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    unwritable = tmp_path / "cache-is-a-file"
    unwritable.write_text("", encoding="utf-8")
    monkeypatch.setenv("XDG_CACHE_HOME", str(unwritable))
    site = tmp_path / "site"
    build_site(content, site, strict=True)
    again = build_site(content, site, strict=True)
    assert "index.html" in again.rendered
    assert again.reused == []
    assert any("no key to seal" in note for note in again.notes)


def test_an_empty_content_folder_is_warned_about(tmp_path: Path) -> None:
    (tmp_path / "content").mkdir()
    result = build_site(tmp_path / "content", tmp_path / "site")
    assert [w for w in map(str, result.warnings) if "no specs, no runs, no pages" in w]
    with pytest.raises(SiteError, match=r"no specs, no runs, no pages"):
        build_site(tmp_path / "content", tmp_path / "site", strict=True)


def test_the_cache_keeps_the_signatures_of_the_folders_built_last(
    content: Path, tmp_path: Path, cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(modelscape.site.ownership, "KEPT_FOLDERS", 2)
    for name in ("one", "two", "three"):
        build_site(content, tmp_path / name)
    tables = (cache / "modelscape" / "outputs").iterdir()
    kept = [json.loads(path.read_text(encoding="utf-8")) for path in tables]
    assert sorted(Path(table["folder"]).name for table in kept) == ["three", "two"]
