"""A rebuild with nothing changed, answered before planning (modelscape.site.unchanged).

The answer must be the one a planning build would give, must never be given when anything the
plan reads changed, and must not be given from a manifest that was edited or damaged.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import modelscape.site.build
import modelscape.site.plan
import modelscape.site.unchanged
from modelscape.site import SiteError, build_site
from modelscape.site.build import _ASSETS
from modelscape.site.manifest import MANIFEST, SUMMARIES, Manifest, OutputRecord
from modelscape.site.pagesource import PageMaker
from modelscape.site.seal import signed
from tests.site.sitetools import RUN


def _no_plan(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("planned")

    monkeypatch.setattr(modelscape.site.plan, "plan", refuse)


def _with_warnings(content: Path) -> None:
    """Warnings of every kind a build repeats: met finding the content, planning, making a
    page, and checking the site."""
    (content / "runs" / "broken").mkdir()
    (content / "runs" / "broken" / "report.json").write_text("{", encoding="utf-8")
    (content / "pages" / "odd.md").write_text("# Odd\n\n[gone](nowhere.html)\n", "utf-8")
    (content / "pages" / "odd.svg").write_text("<svg/>", encoding="utf-8")


def test_the_answer_is_the_planning_builds(
    content: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _with_warnings(content)
    site = tmp_path / "site"
    first = build_site(content, site)
    manifest = Manifest.load(site)
    assert manifest.listing is not None
    assert manifest.quick
    assert manifest.order
    # The same manifest not marked quick: the next build plans, and finds nothing to write.
    # (Read in full first, with the files beside it, so that saving it changes nothing else.)
    manifest.read_pages(site)
    manifest.read_summaries(site)
    Manifest(**{**vars(manifest), "quick": False}).save(site)
    planned = build_site(content, site)
    assert planned.rendered == []
    assert planned.removed == []
    # A build that plans and writes nothing leaves the manifest as it was; one that wrote
    # keeps the hash again, so the next no-change build need not plan.
    build_site(content, site, force=True)
    _no_plan(monkeypatch)
    quick = build_site(content, site)
    assert (quick.rendered, quick.removed) == ([], [])
    assert quick.reused == planned.reused
    assert quick.warnings == planned.warnings == first.warnings
    assert quick.notes == planned.notes
    assert len(quick.warnings) >= 4
    # Strict builds fail on the warnings they repeat, writing nothing either way.
    with pytest.raises(SiteError, match="warnings"):
        build_site(content, site, strict=True)


def test_the_light_modules_import_their_names_from_one_home() -> None:
    """The build's start and the specs name the assets folder and the scenario group by
    importing them from their one home, not by a copy of their own."""
    from modelscape import _plugins
    from modelscape.site import incremental, render, theme, unchanged
    from modelscape.specs import registry

    assert _ASSETS is theme.ASSETS
    assert render.ASSETS is incremental.ASSETS is theme.ASSETS
    assert unchanged.SCENARIO_GROUP is registry.SCENARIO_GROUP is _plugins.SCENARIO_GROUP


def _count_plans(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """A list that gets an item each time a build plans."""
    calls: list[int] = []
    real = modelscape.site.plan.plan

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(modelscape.site.plan, "plan", counted)
    return calls


def _touch_page(content: Path, site: Path) -> None:
    about = content / "pages" / "about.md"
    text = about.read_text(encoding="utf-8")
    about.write_text(text.replace("a", "b", 1), encoding="utf-8")  # the same size


def _add_page(content: Path, site: Path) -> None:
    (content / "pages" / "new.md").write_text("# New\n", encoding="utf-8")


def _remove_page(content: Path, site: Path) -> None:
    (content / "pages" / "about.md").unlink()


def _add_file(content: Path, site: Path) -> None:
    (content / "pages" / "data.csv").write_text("a,b\n", encoding="utf-8")


def _change_store(content: Path, site: Path) -> None:
    store = content / "runs" / RUN / "store.db"
    store.write_bytes(store.read_bytes())  # the same bytes, a new time: hashed again
    os.utime(store, ns=(1, 1))


def _add_theme_file(content: Path, site: Path) -> None:
    (content / "theme" / "static").mkdir(parents=True)
    (content / "theme" / "static" / "extra.css").write_text("p{}", encoding="utf-8")
    settings = content / "site.yaml"
    settings.write_text(settings.read_text(encoding="utf-8") + "theme: theme\n", "utf-8")


def _remove_output(content: Path, site: Path) -> None:
    (site / "models" / "oracle.html").unlink()


def _add_spec(content: Path, site: Path) -> None:
    spec = next((content / "specs").glob("*.yaml"))
    (content / "specs" / "copy.yaml").write_text(
        spec.read_text(encoding="utf-8").replace("name: ", "name: copy-", 1), "utf-8"
    )


#: Each change, and whether the build after it must write (True) or may find the site as it
#: stands but only after planning (False: the plan reads the file again and finds it equal).
CHANGES: dict[str, tuple[Callable[[Path, Path], None], bool]] = {
    "a page edited, same size": (_touch_page, True),
    "a page added": (_add_page, True),
    "a page removed": (_remove_page, True),
    "a published file added": (_add_file, True),
    "a store rewritten": (_change_store, False),
    "a theme file added": (_add_theme_file, True),
    "an output removed": (_remove_output, True),
    "a spec added": (_add_spec, True),
}


@pytest.mark.parametrize("kind", sorted(CHANGES))
def test_any_change_is_planned(
    content: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: str
) -> None:
    change, writes = CHANGES[kind]
    site = tmp_path / "site"
    build_site(content, site)
    change(content, site)
    calls = _count_plans(monkeypatch)
    result = build_site(content, site)
    assert calls == [1]
    assert bool(result.rendered or result.removed) == writes


@pytest.mark.parametrize(
    "options",
    [{"base_url": "https://example.org/"}, {"max_file_mb": 0.001}],
    ids=["base url", "file limit"],
)
def test_a_changed_option_is_planned(
    content: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, options: dict[str, Any]
) -> None:
    site = tmp_path / "site"
    first = build_site(content, site)
    second = build_site(content, site, **options)
    assert second.rendered or second.warnings != first.warnings
    _no_plan(monkeypatch)
    assert build_site(content, site, **options).warnings == second.warnings


def test_a_scenario_of_another_package_is_always_planned(
    content: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # No spec for any scenario: each is looked up among the installed packages' entry points.
    monkeypatch.setattr(PageMaker, "spec_of", lambda self, name: None)
    site = tmp_path / "site"
    build_site(content, site)
    # Registered by no package, or by modelscape itself (a new version changes the hash).
    assert Manifest.load(site).quick
    # Registered by another package, whose code may change without a new version.
    listing = [["return-window", "plugin:SCENARIO", "a-plugin", "1.0"]]
    monkeypatch.setattr(modelscape.site.build, "plugins", lambda: listing)
    build_site(content, site, force=True)
    assert not Manifest.load(site).quick
    calls = _count_plans(monkeypatch)
    assert build_site(content, site).rendered == []
    assert calls == [1]


def _forge(site: Path, edit: Callable[[dict[str, Any]], None]) -> None:
    """The manifest edited by hand: its JSON read, changed and written back."""
    data = json.loads((site / MANIFEST).read_text(encoding="utf-8"))
    edit(data)
    (site / MANIFEST).write_text(json.dumps(data), encoding="utf-8")


def test_an_edited_manifest_never_keeps_a_stale_page(content: Path, tmp_path: Path) -> None:
    site = tmp_path / "site"
    build_site(content, site)
    about = content / "pages" / "about.md"
    about.write_text(about.read_text(encoding="utf-8") + "\nA new sentence.\n", "utf-8")
    stat = about.stat()

    def hide_the_change(data: dict[str, Any]) -> None:
        # The page's entry says the new size and time still have the old content's hash.
        entry = data["files"]["content:pages/about.md"]
        entry[0], entry[1] = stat.st_size, stat.st_mtime_ns
        # Every page said to embed nothing, so a changed run would leave it as it is.
        data["mentions"] = dict.fromkeys(data["mentions"], False)

    _forge(site, hide_the_change)
    summaries = json.loads((site / SUMMARIES).read_text(encoding="utf-8"))
    for key in summaries["summaries"]:
        summaries["summaries"][key]["run"] = "forged"
    (site / SUMMARIES).write_text(json.dumps(summaries), encoding="utf-8")
    result = build_site(content, site)
    assert "about.html" in result.rendered
    assert "A new sentence." in (site / "about.html").read_text(encoding="utf-8")
    assert "forged" not in (site / "index.html").read_text(encoding="utf-8")


def _saved(folder: Path) -> bytes:
    Manifest(
        {
            "index.html": OutputRecord(
                "d1",
                warnings=[{"path": "", "message": "w"}],
                files=["a.txt"],
                inputs=["content:pages/a.md"],
            )
        },
        {"content:pages/a.md": [3, 4, "abc"]},
        {"run:1:2": {"run": "r"}},
        ["content:pages/a.md"],
        [{"path": "index.html", "message": "check"}],
        "listing",
        ["index.html"],
        [{"in": "content", "path": "pages/a.md", "line": 3, "message": "planned"}],
    ).save(folder)
    return (folder / MANIFEST).read_bytes()


@given(data=st.data())
def test_a_damaged_manifest_is_not_read(
    tmp_path_factory: pytest.TempPathFactory, data: Any
) -> None:
    folder = tmp_path_factory.mktemp("manifest")
    text = _saved(folder)
    whole = Manifest.load(folder)
    assert whole.listing == "listing"
    assert whole.outputs["index.html"].inputs == ["content:pages/a.md"]
    assert whole.order == ["index.html"]
    position = data.draw(st.integers(0, len(text) - 1))
    damage = data.draw(
        st.sampled_from(["byte", "cut", "insert"]),
    )
    if damage == "byte":
        value = data.draw(st.integers(0, 255).filter(lambda b: b != text[position]))
        changed = text[:position] + bytes([value]) + text[position + 1 :]
    elif damage == "cut":
        changed = text[:position]
    else:
        changed = text[:position] + data.draw(st.binary(min_size=1, max_size=8)) + text[position:]
    (folder / MANIFEST).write_bytes(changed)
    loaded = Manifest.load(folder)
    assert loaded == Manifest()


def test_a_no_change_build_loads_no_page_code(content: Path, tmp_path: Path) -> None:
    """``modelscape build`` with nothing to make, in a fresh process, imports neither the
    statistics nor numpy: start-up is most of what such a build costs."""
    site = tmp_path / "site"
    build_site(content, site)
    script = (
        "import sys\n"
        "from modelscape.cli import main\n"
        "try:\n"
        f"    main(['build', {str(content)!r}, '-o', {str(site)!r}])\n"
        "except SystemExit as stop:\n"
        "    assert not stop.code, stop.code\n"
        "heavy = ['numpy', 'scipy', 'modelscape.pages', 'modelscape.stats',\n"
        "         'modelscape.site.plan']\n"
        "print(sorted(name for name in heavy if name in sys.modules))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    assert "0 files written" in done.stdout
    assert done.stdout.strip().splitlines()[-1] == "[]"


def test_a_pages_answer_to_embeds_is_kept_by_its_hash(
    content: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = tmp_path / "site"
    build_site(content, site)
    assert set(Manifest.load(site).mentions.values()) == {False}
    read: list[str] = []
    real = modelscape.site.plan.mentions

    def counted(text: str) -> bool:
        read.append(text)
        return real(text)

    monkeypatch.setattr(modelscape.site.plan, "mentions", counted)
    about = content / "pages" / "about.md"
    about.write_text(f"```modelscape\nscorecard: {RUN}\n```\n", encoding="utf-8")
    result = build_site(content, site)
    # Only the changed page is read to answer; it now shows the run, so it changes with it.
    assert len(read) == 1
    assert "about.html" in result.rendered
    assert True in Manifest.load(site).mentions.values()
    report = content / "runs" / RUN / "report.json"
    report.write_text(report.read_text(encoding="utf-8") + " ", encoding="utf-8")
    assert "about.html" in build_site(content, site).rendered
    assert len(read) == 1


def test_a_resealed_table_does_not_look_outside(
    content: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = tmp_path / "site"
    build_site(content, site)
    manifest = Manifest.load(site)
    outside = tmp_path / "outside.txt"
    outside.write_text("x", encoding="utf-8")
    stat = outside.stat()
    # A table naming a file outside the content folder, sealed as a build would seal it.
    files = {**manifest.files, "content:../outside.txt": [stat.st_size, stat.st_mtime_ns, "d"]}
    Manifest(**{**vars(manifest), "files": files}).save(site)
    looked: list[str] = []
    real_stat = os.stat

    def watched(path: Any, *args: Any, **kwargs: Any) -> Any:
        looked.append(os.fspath(path))
        return real_stat(path, *args, **kwargs)

    monkeypatch.setattr(modelscape.site.unchanged.os, "stat", watched)
    calls = _count_plans(monkeypatch)
    build_site(content, site)
    assert calls == [1]
    assert not any("outside" in path for path in looked)


def test_each_record_lists_the_files_its_hash_read(content: Path, tmp_path: Path) -> None:
    site = tmp_path / "site"
    build_site(content, site)
    manifest = Manifest.load(site)
    outputs = manifest.outputs
    assert outputs["about.html"].inputs == ["content:pages/about.md"]
    # A report page: its notes and store, and the runs' files through the catalog.
    report = outputs[f"reports/{RUN}.html"].inputs
    assert "runs:" in report
    assert f"content:runs/{RUN}/store.db" in report
    assert f"content:runs/{RUN}/report.json" in manifest.runs
    assert outputs["404.html"].inputs == []
    # Every input is in the table, which holds nothing no record or the runs name.
    named = {label for record in outputs.values() for label in record.inputs}
    assert named - {"runs:"} <= set(manifest.files)
    assert set(manifest.files) == (named - {"runs:"}) | set(manifest.runs)


def test_a_manifest_of_the_last_format_means_a_full_build(content: Path, tmp_path: Path) -> None:
    site = tmp_path / "site"
    first = build_site(content, site)
    text = (site / MANIFEST).read_bytes()
    # The same manifest as format 6 wrote it, sealed with this machine's key.
    body = text[: text.rindex(b',"seal":')].replace(b'"format":7', b'"format":6', 1)
    (site / MANIFEST).write_bytes(signed(body))
    again = build_site(content, site)
    assert sorted(again.rendered) == sorted(first.rendered)
    assert Manifest.load(site).listing is not None


def test_the_summaries_are_written_only_when_one_changed(content: Path, tmp_path: Path) -> None:
    site = tmp_path / "site"
    build_site(content, site)
    inode = (site / SUMMARIES).stat().st_ino
    about = content / "pages" / "about.md"
    about.write_text(about.read_text(encoding="utf-8") + "\nMore.\n", encoding="utf-8")
    assert "about.html" in build_site(content, site).rendered
    assert (site / SUMMARIES).stat().st_ino == inode
    report = content / "runs" / RUN / "report.json"
    report.write_text(report.read_text(encoding="utf-8") + " ", encoding="utf-8")
    build_site(content, site)
    assert (site / SUMMARIES).stat().st_ino != inode
