"""A manifest whose file list holds an entry that is not [size, time, digest] is not trusted.

The manifest decides which files a rebuild keeps, so one damaged part makes the whole of it
unread (an empty manifest: everything is made again). These manifests are sealed with this
test's own key, so it is their content, not their seal, that is refused.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from modelscape.site.manifest import Manifest


@pytest.fixture(autouse=True)
def own_key(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """A key of this test's own."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("cache")))


def test_a_well_formed_entry_is_read_back(tmp_path: Path) -> None:
    Manifest(files={"assets/site.css": [120, 1700000000, "ab" * 32]}, listing="k").save(tmp_path)
    loaded = Manifest.load(tmp_path)
    assert loaded.files == {"assets/site.css": [120, 1700000000, "ab" * 32]}
    assert loaded.listing == "k"


@pytest.mark.parametrize(
    "entry",
    [[120, 1700000000], [120, 1700000000, "ab", "cd"], [], [120, None, "ab"], "120,1,ab"],
    ids=["two parts", "four parts", "empty", "a null part", "text"],
)
def test_a_malformed_entry_makes_the_whole_manifest_unread(tmp_path: Path, entry: object) -> None:
    files: dict[str, list[object]] = {"assets/site.css": entry}  # type: ignore[dict-item]
    Manifest(files=files, listing="k").save(tmp_path)
    assert Manifest.load(tmp_path) == Manifest()
