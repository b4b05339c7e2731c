"""Hostile content, part one: links out of the content folder, and files that are no files.

Each case builds through the sandbox, which also checks that nothing outside the output
folder changed and that no secret (environment or file) reached the output.
"""

from __future__ import annotations

import os
import shutil

import pytest

from tests.site.hostile import Sandbox
from tests.site.sitetools import RUN


def test_a_page_file_linked_to_the_environment_is_not_published(sandbox: Sandbox) -> None:
    (sandbox.content / "pages" / "env.txt").symlink_to("/proc/self/environ")
    warning = sandbox.warns(r"env\.txt: a link that leaves the content folder")
    assert str(sandbox.content / "pages" / "env.txt") in warning
    assert not (sandbox.output / "env.txt").exists()


def test_a_markdown_page_linked_outside_is_not_a_page(sandbox: Sandbox) -> None:
    (sandbox.content / "pages" / "x.md").symlink_to(sandbox.secret_file)
    (sandbox.content / "pages" / "passwd.md").symlink_to("/etc/passwd")
    result = sandbox.build()
    skipped = [w for w in map(str, result.warnings) if "a link that leaves the content folder" in w]
    assert len(skipped) == 2
    assert not (sandbox.output / "x.html").exists()
    assert not (sandbox.output / "passwd.html").exists()
    sandbox.refuses(r"2 warnings \(--strict\)", strict=True)


def test_a_linked_folder_of_pages_outside_is_skipped(sandbox: Sandbox) -> None:
    (sandbox.outside / "more.md").write_text("# More\n", encoding="utf-8")
    (sandbox.content / "pages" / "linked").symlink_to(sandbox.outside, target_is_directory=True)
    sandbox.warns(r"pages/linked: a link that leaves the content folder")
    assert not (sandbox.output / "linked").exists()


def test_links_inside_the_content_folder_are_followed(sandbox: Sandbox) -> None:
    pages = sandbox.content / "pages"
    (pages / "again.md").symlink_to(pages / "about.md")
    (pages / "spec.yaml").symlink_to(sandbox.content / "specs" / "return-window.yaml")
    result = sandbox.build(strict=True)
    assert result.warnings == []
    assert "About" in (sandbox.output / "again.html").read_text(encoding="utf-8")
    assert (sandbox.output / "spec.yaml").is_file()
    # To files only: a linked folder is skipped (see test_content_confined.py).
    (pages / "docs").symlink_to(sandbox.content / "specs", target_is_directory=True)
    sandbox.warns(r"pages/docs: a link to a folder; skipped")


def test_a_run_readme_linked_outside_is_left_out(sandbox: Sandbox) -> None:
    notes = sandbox.content / "runs" / RUN / "README.md"
    notes.unlink()
    notes.symlink_to(sandbox.secret_file)
    sandbox.warns(r"README\.md: a link that leaves the content folder; its notes are left out")
    page = (sandbox.output / "reports" / f"{RUN}.html").read_text(encoding="utf-8")
    assert "How this run was made" not in page


def test_a_run_store_or_report_linked_outside_is_not_read(sandbox: Sandbox) -> None:
    run = sandbox.content / "runs" / RUN
    shutil.move(run / "store.db", sandbox.outside / "store.db")
    (run / "store.db").symlink_to(sandbox.outside / "store.db")
    sandbox.warns(r"store\.db: a link that leaves the content folder")
    page = (sandbox.output / "reports" / f"{RUN}.html").read_text(encoding="utf-8")
    assert "No outputs are attached" in page

    shutil.move(run / "report.json", sandbox.outside / "report.json")
    (run / "report.json").symlink_to(sandbox.outside / "report.json")
    (run / "store.db").unlink()
    shutil.move(sandbox.outside / "store.db", run / "store.db")
    sandbox.warns(r"report\.json: a link that leaves the content folder; the run is skipped")
    assert not (sandbox.output / "reports" / f"{RUN}.html").exists()


def test_a_store_journal_linked_outside_keeps_the_store_closed(sandbox: Sandbox) -> None:
    # SQLite would open (and may write) store.db-wal beside the store.
    (sandbox.content / "runs" / RUN / "store.db-wal").symlink_to(sandbox.victim)
    sandbox.warns(r"store\.db-wal: a link that leaves the content folder")


def test_a_run_folder_linked_outside_is_skipped(sandbox: Sandbox) -> None:
    elsewhere = sandbox.outside / "run"
    shutil.copytree(sandbox.content / "runs" / RUN, elsewhere)
    (sandbox.content / "runs" / "borrowed").symlink_to(elsewhere, target_is_directory=True)
    sandbox.warns(r"runs/borrowed: a link that leaves the content folder; skipped")
    assert not (sandbox.output / "reports" / "borrowed.html").exists()


def test_a_spec_linked_outside_is_skipped(sandbox: Sandbox) -> None:
    (sandbox.outside / "leak.yaml").write_text("name: leak\n", encoding="utf-8")
    (sandbox.content / "specs" / "leak.yaml").symlink_to(sandbox.outside / "leak.yaml")
    sandbox.warns(r"specs/leak\.yaml: a link that leaves the content folder; skipped")
    assert not (sandbox.output / "scenarios" / "leak.html").exists()


def test_settings_linked_outside_are_an_error(sandbox: Sandbox) -> None:
    settings = sandbox.content / "site.yaml"
    shutil.move(settings, sandbox.outside / "site.yaml")
    settings.symlink_to(sandbox.outside / "site.yaml")
    message = sandbox.refuses(r"site\.yaml: a link that leaves the content folder")
    assert message.startswith(str(settings))
    assert not sandbox.output.exists()


def test_a_pipe_among_the_pages_is_skipped_not_waited_on(sandbox: Sandbox) -> None:
    os.mkfifo(sandbox.content / "pages" / "stream.txt")
    sandbox.warns(r"stream\.txt: not a regular file")


def test_a_dangling_link_is_skipped(sandbox: Sandbox) -> None:
    (sandbox.content / "pages" / "gone.txt").symlink_to(sandbox.content / "nowhere")
    sandbox.warns(r"gone\.txt: cannot read it")


@pytest.mark.parametrize("name", ["loop.md", "loop"])
def test_a_link_loop_is_skipped(sandbox: Sandbox, name: str) -> None:
    (sandbox.content / "pages" / name).symlink_to(sandbox.content / "pages" / name)
    sandbox.warns(rf"{name}: a link that leaves the content folder")


@pytest.mark.parametrize(
    ("data", "match"),
    [
        (b"[" * 100_000, "is not a report file"),
        (b"\xff\xfe{}", "is not a report file"),
        (b'{"format": 1, "scenario": 3}', "invalid report at"),
        (b'{"format": 2, "description": "\\ud800"}', r"description: a lone surrogate \(U\+D800\)"),
    ],
)
def test_a_hostile_report_skips_its_run(sandbox: Sandbox, data: bytes, match: str) -> None:
    (sandbox.content / "runs" / RUN / "report.json").write_bytes(data)
    sandbox.warns(rf"run '{RUN}' skipped: .*report\.json.*{match}")
    assert not (sandbox.output / "reports" / f"{RUN}.html").exists()
