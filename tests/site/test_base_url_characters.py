"""Which characters a site's public address may hold.

``base_url`` goes into ``sitemap.xml`` and into the 404 page's links, so a character that
would end an attribute or a URL (a quote, an angle bracket, a space, a control character) is
refused. Every other printable ASCII character is part of some valid URL (``!``, ``$``, ``&``,
``(``, ``*``, ``;``, ``=``, ``@``, ``~`` are RFC 3986 sub-delimiters or unreserved) and must be
accepted as written.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from modelscape.site import SiteConfig, SiteError, build_site
from modelscape.site.config import load_config
from tests.site.sitetools import make_content

REFUSED = frozenset("\"'<>\\\x7f") | {chr(code) for code in range(0x21)}
ACCEPTED = sorted({chr(code) for code in range(0x21, 0x7F)} - REFUSED)


@pytest.mark.parametrize("character", ACCEPTED)
def test_a_printable_url_character_is_accepted_as_written(character: str) -> None:
    address = f"https://example.org/a{character}b/"
    assert SiteConfig(base_url=address).base_url == address


def test_an_exclamation_mark_right_after_the_last_refused_code_is_accepted(
    tmp_path: Path,
) -> None:
    # "!" is 0x21, the first code above the space: the edge of the control-character range.
    config = load_config(tmp_path, base_url="https://example.org/wow!")
    assert config.base_url == "https://example.org/wow!/"
    assert config.base_path == "/wow!/"


@pytest.mark.parametrize("character", sorted(REFUSED))
def test_a_character_that_would_break_a_link_is_refused(character: str) -> None:
    with pytest.raises(ValidationError, match="base_url must be an absolute http"):
        SiteConfig(base_url=f"https://example.org/a{character}b/")


@given(st.text(alphabet=st.sampled_from(ACCEPTED), max_size=20))
def test_any_path_of_accepted_characters_keeps_its_text(path: str) -> None:
    address = "https://example.org/" + path.lstrip("/")
    accepted = SiteConfig(base_url=address).base_url
    assert accepted is not None
    assert accepted.rstrip("/") == address.rstrip("/")
    assert accepted.endswith("/")


def test_the_sitemap_and_404_page_hold_an_address_with_sub_delimiters(tmp_path: Path) -> None:
    content = make_content(tmp_path / "content")
    site = tmp_path / "site"
    build_site(content, site, base_url="https://example.org/a!b$c/")
    sitemap = (site / "sitemap.xml").read_text(encoding="utf-8")
    assert "<loc>https://example.org/a!b$c/</loc>" in sitemap
    missing = (site / "404.html").read_text(encoding="utf-8")
    assert 'href="/a!b$c/index.html"' in missing


def test_a_refused_address_from_the_command_line_names_the_setting(tmp_path: Path) -> None:
    with pytest.raises(SiteError, match="base_url: Value error, base_url must be an absolute"):
        load_config(tmp_path, base_url="https://example.org/a b/")
