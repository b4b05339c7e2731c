"""BuildWarning: printed as path:line: message, and kept by the manifest relative to the
content folder, so that a moved content folder shows its warnings at its new place."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from modelscape.site import BuildWarning
from modelscape.site.warning import quoted, restored, stored

NAMES = st.text(alphabet="abcdefgh-_.", min_size=1, max_size=8).filter(
    lambda name: name not in {".", ".."}
)


def test_a_warning_prints_where_it_is_then_what() -> None:
    assert str(BuildWarning("pages/a.md", 3, "no run 'x'")) == "pages/a.md:3: no run 'x'"
    assert str(BuildWarning("index.html", None, "broken link")) == "index.html: broken link"
    assert str(BuildWarning("", None, "nothing to build")) == "nothing to build"


@given(parts=st.lists(NAMES, min_size=1, max_size=3), line=st.none() | st.integers(1, 10**6))
def test_a_kept_warning_follows_its_content_folder(parts: list[str], line: int | None) -> None:
    old, new = Path("/old/content"), Path("/new/place/content")
    warning = BuildWarning(str(old.joinpath(*parts)), line, "a problem")
    entry = stored(warning, old)
    assert "/old" not in str(entry)  # the manifest is published: no local path in it
    assert restored(entry, new) == BuildWarning(str(new.joinpath(*parts)), line, "a problem")


def test_a_warning_outside_the_content_folder_is_kept_as_it_is() -> None:
    warning = BuildWarning("reports/r.html", None, "broken link 'x' (no x)")
    assert restored(stored(warning, Path("/c")), Path("/d")) == warning


@pytest.mark.parametrize(
    "entry",
    [[], {"message": "m"}, {"path": 3, "message": "m"}, {"path": "", "message": "m", "line": "2"}],
)
def test_a_kept_warning_that_no_build_wrote_is_refused(entry: object) -> None:
    with pytest.raises(ValueError, match="a warning"):
        restored(entry, Path("/c"))


def test_a_quoted_error_holds_no_local_path() -> None:
    root = Path("/work/lab/content")
    text = quoted("cannot read report /work/lab/content/runs/r/report.json: gone", root)
    assert text == "cannot read report runs/r/report.json: gone"
    # A relative content folder is left alone: "./" would match inside "../x" too.
    assert quoted("../x and ./y", Path(".")) == "../x and ./y"
