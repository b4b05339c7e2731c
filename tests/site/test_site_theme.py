"""Themes: the default theme is found, and a site theme overrides one block or adds files."""

from __future__ import annotations

from pathlib import Path

import pytest

from modelscape.site import SiteError, build_site
from modelscape.site.theme import Theme, default_theme
from tests.site.sitetools import REPO, RUN


def test_the_default_theme_is_the_source_tree_one_in_a_checkout() -> None:
    # An editable install has no modelscape/_themes; a wheel has it (pyproject force-include).
    assert default_theme() == REPO / "themes" / "default"
    assert (default_theme() / "templates" / "base.html.j2").is_file()


def _theme(content: Path) -> Path:
    folder = content / "mytheme"
    (folder / "templates").mkdir(parents=True)
    (folder / "static").mkdir()
    settings = content / "site.yaml"
    settings.write_text(settings.read_text(encoding="utf-8") + "theme: mytheme\n", encoding="utf-8")
    return folder


def test_a_site_theme_overrides_one_block(content: Path, tmp_path: Path) -> None:
    theme = _theme(content)
    (theme / "templates" / "base.html.j2").write_text(
        '{% extends "default/base.html.j2" %}\n'
        '{% block footer %}<footer><p>Our lab, <a href="{{ root }}about.html">about</a>'
        "</p></footer>{% endblock %}\n",
        encoding="utf-8",
    )
    (theme / "static" / "lab.css").write_text("body { color: teal; }\n", encoding="utf-8")
    build_site(content, tmp_path / "site", strict=True)
    for page in ("index.html", f"reports/{RUN}.html", "about.html"):
        text = (tmp_path / "site" / page).read_text(encoding="utf-8")
        assert "<footer><p>Our lab," in text, page
        assert "Built with modelscape" not in text
        assert 'class="site-nav"' in text  # every other block is the default one
    report = (tmp_path / "site" / "reports" / f"{RUN}.html").read_text()
    assert 'href="../about.html">about</a>' in report
    assert (tmp_path / "site" / "assets" / "lab.css").read_text() == "body { color: teal; }\n"
    assert (tmp_path / "site" / "assets" / "site.css").is_file()


def test_a_site_static_file_replaces_the_default_one(content: Path, tmp_path: Path) -> None:
    theme = _theme(content)
    (theme / "static" / "site.css").write_text("/* ours */\n", encoding="utf-8")
    build_site(content, tmp_path / "site")
    assert (tmp_path / "site" / "assets" / "site.css").read_text() == "/* ours */\n"


def test_templates_resolve_site_then_default_then_pages(tmp_path: Path) -> None:
    env = Theme(None).environment
    assert env.get_template("base.html.j2").filename == str(
        default_theme() / "templates" / "base.html.j2"
    )
    assert env.get_template("macros.html.j2").filename is not None
    assert "pages" in str(env.get_template("pages/report.html.j2").filename)


def test_a_missing_theme_folder_is_an_error(content: Path, tmp_path: Path) -> None:
    settings = content / "site.yaml"
    settings.write_text(settings.read_text(encoding="utf-8") + "theme: nowhere\n", encoding="utf-8")
    with pytest.raises(SiteError, match=r"theme folder .*nowhere does not exist"):
        build_site(content, tmp_path / "site")
