"""The package ``modelscape.targets`` names every public name of targets once, and loads each
only when it is used: the readers of outputs import the protocol from inside this package, so
importing it must not bring the resolver, the oracle or a provider along."""

from __future__ import annotations

import subprocess
import sys

import pytest

import modelscape.targets as targets


def test_every_exported_name_has_a_home_and_resolves() -> None:
    assert sorted(targets.__all__) == sorted(targets._HOMES)
    for name in targets.__all__:
        value = getattr(targets, name)
        home = targets._HOMES[name]
        assert getattr(sys.modules[home], name) is value


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match=r"'modelscape\.targets' has no attribute 'Nothing'"):
        targets.Nothing  # noqa: B018


def test_the_protocol_loads_without_the_parts_that_make_targets() -> None:
    code = (
        "import sys\n"
        "from modelscape.targets import TargetOutput\n"
        "print(sorted(m for m in sys.modules if m.startswith('modelscape.targets')))\n"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert "modelscape.targets.protocol" in loaded
    for heavy in ("_resolve", "_oracle", "_reference", "registry", "providers"):
        assert f"modelscape.targets.{heavy}" not in loaded


def test_the_top_of_the_package_finds_the_targets_names_here() -> None:
    import modelscape

    assert modelscape.CallableTarget is targets.CallableTarget
    assert modelscape.TargetRequest is targets.TargetRequest
    assert modelscape.TargetOutput is targets.TargetOutput
