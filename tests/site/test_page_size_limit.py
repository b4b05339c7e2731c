"""A markdown page is read up to 4 MiB: one byte more is refused with a message saying so.

The limit keeps one runaway page (a pasted log, a generated table) from filling the memory
of a build; the numbers are written out here, not read from the module, so a changed limit
is a failing test rather than a silent change.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from modelscape.site import SiteError
from modelscape.site.markdown import parse_markdown

LIMIT = 4 * 1024 * 1024


def _page(folder: Path, size: int) -> Path:
    heading = b"# Big\n\n"
    page = folder / "big.md"
    page.write_bytes(heading + b"x" * (size - len(heading)))
    return page


def test_a_page_of_exactly_four_mebibytes_is_read(tmp_path: Path) -> None:
    page = parse_markdown(_page(tmp_path, LIMIT))
    assert page.title == "Big"


def test_a_page_one_byte_over_four_mebibytes_is_refused(tmp_path: Path) -> None:
    with pytest.raises(SiteError, match="larger than 4,194,304 bytes"):
        parse_markdown(_page(tmp_path, LIMIT + 1))
