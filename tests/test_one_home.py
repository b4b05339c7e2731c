"""Every constant of the package has one home (issue 29: no constant copied to save an import).

A copy kept "so as not to import" the module that owns a value drifts from it the day one of
the two changes. This scans every module's top-level assignments of literal values: no two
modules may define the same name with the same value. Caches (an empty dict or list that fills
as the process runs) are state, not constants, and are left out.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

import modelscape

PACKAGE = Path(modelscape.__file__).resolve().parent


def _constants(file: Path) -> list[tuple[str, str]]:
    found = []
    for node in ast.parse(file.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, value = [node.target], node.value
        else:
            continue
        try:
            literal = ast.literal_eval(value)
        except ValueError:
            continue
        if isinstance(literal, (dict, list, set)) and not literal:
            continue  # a cache that fills as the process runs
        for target in targets:
            if isinstance(target, ast.Name) and target.id != "__all__":
                found.append((target.id.lstrip("_"), repr(literal)))
    return found


def test_no_constant_is_defined_twice() -> None:
    homes: dict[tuple[str, str], list[str]] = defaultdict(list)
    for file in sorted(PACKAGE.rglob("*.py")):
        for constant in _constants(file):
            homes[constant].append(str(file.relative_to(PACKAGE)))
    copies = {
        f"{name} = {value}": where for (name, value), where in homes.items() if len(where) > 1
    }
    assert copies == {}


def test_the_scan_finds_a_copy(tmp_path: Path) -> None:
    """The scan reads names and values, so a copy under a private name counts too."""
    first, second = tmp_path / "a.py", tmp_path / "b.py"
    first.write_text('ASSETS = "assets"\n_CACHE: dict[str, int] = {}\n', encoding="utf-8")
    second.write_text('_ASSETS = "assets"\n', encoding="utf-8")
    assert _constants(first) == [("ASSETS", "'assets'")]
    assert _constants(second) == [("ASSETS", "'assets'")]


def test_the_light_modules_name_the_shared_values_from_their_homes() -> None:
    from modelscape import _plugins, _spreadsheet
    from modelscape.records import settings
    from modelscape.site import catalog, exports, leaderboard, ranking, unchanged
    from modelscape.specs import registry
    from modelscape.store import loading, rows

    assert catalog.ALL is settings.ALL
    assert unchanged.SCENARIO_GROUP is registry.SCENARIO_GROUP is _plugins.SCENARIO_GROUP
    assert leaderboard.TIE_TOLERANCE is ranking.TIE_TOLERANCE
    assert exports.FORMULA_STARTS is _spreadsheet.FORMULA_STARTS
    assert loading.BLOCK is rows.BLOCK
