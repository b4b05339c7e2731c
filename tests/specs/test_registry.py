"""The scenario registry: names from the modelscape.scenarios entry point group, Python files
and local spec files, read by find_scenario, listed by `modelscape specs`, run by `modelscape run`.

The plugin distribution is installed into a temporary folder as pip leaves one (its module and
a dist-info with entry_points.txt) and put on the import path, for CliRunner in this process
and through PYTHONPATH for a separate `python -m modelscape` process.
"""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
import tempfile
import zipfile
from importlib.resources import files
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from hypothesis import given
from hypothesis import strategies as st

from modelscape._plugins import SCENARIO_GROUP
from modelscape.cli import main
from modelscape.errors import SpecError
from modelscape.specs import load_spec
from modelscape.specs.registry import find_scenario, listed, scenario_in
from tests.support.plugins import install_plugin

MODULE = "scenario_plugin"

SPEC_YAML = """\
name: filed
version: '3'
description: A spec file shipped inside the plugin. It is read through a path.
prompt: 'Is {number} even? Reply yes or no.'
slots:
  number: {start: 1, stop: 4, step: 1}
vary:
  number: numeric
answer:
  pattern: '\\b(yes|no)\\b'
  choices: [yes, no]
  correct:
    number: {1: no, 2: yes, 3: no, 4: yes}
repetitions: 2
"""

SOURCE = '''\
from pathlib import Path

from modelscape.specs import Spec, load_spec

TONE = Spec.parse("""
name: tone-check
version: '2'
description: Does a tone change a prime check? A registered test scenario.
prompt: |-
  {tone}
  Is {number} a prime number? Reply yes or no.
slots:
  tone: tones
  number: [2, 3, 4]
vary:
  tone: nominal
answer:
  pattern: '\\\\b(yes|no)\\\\b'
  choices: [yes, no]
  correct:
    number: {2: yes, 3: yes, 4: no}
repetitions: 2
""")

FILE = Path(__file__).with_name("filed.yaml")


def made():
    return TONE.model_copy(update={"name": "made", "version": "7"}).scenario()


PRESSURE = load_spec("pressure")
MISNAMED = load_spec("return-window")
NUMBER = 42


def failing():
    raise RuntimeError("the plugin's factory broke")
'''

ENTRIES = """\
tone-check = scenario_plugin:TONE
made = scenario_plugin:made
filed = scenario_plugin:FILE
pressure = scenario_plugin:PRESSURE
misnamed = scenario_plugin:MISNAMED
number = scenario_plugin:NUMBER
failing = scenario_plugin:failing
"""


@pytest.fixture
def plugin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The plugin installed in a folder on the import path; the test runs in an empty folder."""
    folder = tmp_path / "site-packages"
    folder.mkdir()
    (folder / "filed.yaml").write_text(SPEC_YAML, encoding="utf-8")
    install_plugin(
        folder,
        monkeypatch,
        module=MODULE,
        source=SOURCE,
        group=SCENARIO_GROUP,
        entry_points=ENTRIES,
    )
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    return folder


def _run(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


def test_every_form_of_entry_gives_its_scenario(plugin: Path) -> None:
    assert find_scenario("tone-check").version == "2"
    made = find_scenario("made")
    assert (made.name, made.version) == ("made", "7")
    filed = find_scenario("filed")
    assert (filed.name, filed.version, len(list(filed.variants()))) == ("filed", "3", 4)


def test_a_registered_scenario_runs_through_the_command_line(plugin: Path) -> None:
    store = Path("runs.db")
    result = _run(
        "run", "tone-check", "--target", "oracle:tone-check", "--store", str(store),
        "--report", "report.json",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    report = json.loads(Path("report.json").read_text(encoding="utf-8"))
    assert report["scenario"] == "tone-check"
    assert report["version"] == "2"
    (card,) = [c for c in report["scorecards"] if c["group"] == "all"]
    assert card["accuracy"] == 1.0
    described = _run("describe", "tone-check")
    assert described.exit_code == 0
    assert described.output.startswith("tone-check (version 2)")
    page = _run("page", "filed", "-o", "filed.html")
    assert page.exit_code == 0, page.output
    assert Path("filed.html").read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


def test_a_registered_scenario_runs_in_a_separate_process(plugin: Path) -> None:
    environment = dict(os.environ, PYTHONPATH=os.pathsep.join([str(plugin), *sys.path]))
    finished = subprocess.run(
        [sys.executable, "-m", "modelscape", "run", "made", "--target", "oracle:made",
         "--store", "made.db"],
        capture_output=True, text=True, env=environment, timeout=300, check=False,
    )  # fmt: skip
    assert finished.returncode == 0, finished.stderr
    assert Path("made.db").is_file()
    listing = subprocess.run(
        [sys.executable, "-m", "modelscape", "specs"],
        capture_output=True, text=True, env=environment, timeout=300, check=False,
    )  # fmt: skip
    assert listing.returncode == 0, listing.stderr
    assert "registered scenario-plugin 0.1 (scenario_plugin:made)" in listing.stdout


def test_specs_lists_shipped_registered_and_local_ones(plugin: Path) -> None:
    load_spec("return-window").save(Path("mine.yaml"))
    Path("content/specs").mkdir(parents=True)
    Path("content/specs/broken.yaml").write_text(
        "name: broken\nprompt: hi\nanswer: {choices: [a]}\n", encoding="utf-8"
    )
    Path("targets.yaml").write_text("- echo\n", encoding="utf-8")  # not a spec: left out
    Path("site.yaml").write_text("title: x\n", encoding="utf-8")
    lines = _run("specs").output.splitlines()
    rows = {(line.split()[0], line.split()[2]): line for line in lines}
    assert ("pressure", "shipped") in rows
    assert ("pressure", "registered") in rows
    assert "Does a tone change a prime check?" in rows["tone-check", "registered"]
    assert rows["tone-check", "registered"].split()[1] == "2"
    assert "scenario-plugin 0.1 (scenario_plugin:TONE)" in rows["tone-check", "registered"]
    assert "return-window 1 local mine.yaml" in " ".join(rows["return-window", "local"].split())
    assert "cannot be read: answer: give exactly one of field" in rows["broken", "local"]
    assert "cannot be read" in rows["misnamed", "registered"]
    assert "cannot be read" in rows["failing", "registered"]
    assert "names a int, not a spec or scenario" in rows["number", "registered"]
    assert not any("targets" in line or "site" in line for line in lines)
    assert [item.source for item in listed()][:4] == ["shipped"] * 4


def test_a_name_both_shipped_and_registered_is_ambiguous(plugin: Path) -> None:
    result = _run("describe", "pressure")
    assert result.exit_code == 1
    assert result.stderr == (
        "error: 'pressure' is ambiguous: 2 scenarios have that name; name one as "
        "pressure@modelscape (shipped) or pressure@scenario-plugin (registered)\n"
    )
    assert _run("describe", "pressure@modelscape").exit_code == 0
    assert _run("describe", "pressure@scenario-plugin").exit_code == 0
    wrong = _run("describe", "tone-check@modelscape")
    assert "no shipped spec 'tone-check'" in wrong.stderr
    elsewhere = _run("describe", "tone-check@other")
    assert "other registers no scenario 'tone-check'; it comes from scenario-plugin" in (
        elsewhere.stderr
    )


def test_a_misspelt_registered_name_gets_did_you_mean(plugin: Path) -> None:
    result = _run("run", "tone-chek", "--target", "echo", "--store", "x.db")
    assert result.exit_code == 1
    assert "no scenario 'tone-chek' (did you mean 'tone-check'?)" in result.stderr
    assert "registered: failing, filed, made, misnamed, number, pressure, tone-check" in (
        result.stderr
    )
    assert not Path("x.db").exists()


def test_broken_entries_name_the_entry_and_the_distribution(plugin: Path) -> None:
    with pytest.raises(SpecError, match=r"'misnamed' of scenario-plugin .* gives the scenario"):
        find_scenario("misnamed")
    with pytest.raises(SpecError, match="calling it to make the scenario raised RuntimeError"):
        find_scenario("failing")


def test_a_local_file_of_that_name_is_suggested(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("content/specs").mkdir(parents=True)
    load_spec("pressure").save(Path("content/specs/doubt.yaml"))
    with pytest.raises(SpecError, match=r"did you mean the file content/specs/doubt.yaml\?"):
        find_scenario("doubt")
    assert find_scenario("content/specs/doubt.yaml").name == "pressure"


def test_a_python_file_with_one_scenario_needs_no_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("one.py").write_text(
        "from modelscape.specs import load_spec\n_HIDDEN = 1\nSPEC = load_spec('return-window')\n",
        encoding="utf-8",
    )
    Path("two.py").write_text(
        "from modelscape.specs import load_spec\nA = load_spec('pressure')\nB = A.scenario()\n",
        encoding="utf-8",
    )
    Path("none.py").write_text("X = 1\n", encoding="utf-8")
    Path("raises.py").write_text("raise ValueError('bad file')\n", encoding="utf-8")
    assert find_scenario("one.py").name == "return-window"
    assert find_scenario("python:one.py").name == "return-window"
    assert find_scenario("two.py:B").name == "pressure"
    with pytest.raises(SpecError, match=r"defines 2 scenarios; name one: two\.py:A, two\.py:B"):
        find_scenario("two.py")
    with pytest.raises(SpecError, match="defines no Scenario or Spec at its top level"):
        find_scenario("none.py")
    with pytest.raises(SpecError, match=r"importing it raised ValueError\('bad file'\)"):
        find_scenario("raises.py")
    with pytest.raises(SpecError, match=r"missing\.py: no such Python file"):
        find_scenario("missing.py")
    described = _run("describe", "one.py")
    assert described.exit_code == 0
    assert described.output.startswith("return-window")


@pytest.mark.parametrize("reference", ["@", "name@", "@source"])
def test_an_empty_part_of_a_qualified_name_is_refused(
    reference: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SpecError, match="name a scenario as NAME or NAME@SOURCE"):
        find_scenario(reference)


def test_a_spec_file_inside_a_zipped_package_is_read_through_importlib_resources(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    archive = tmp_path / "zipped.zip"
    with zipfile.ZipFile(archive, "w") as packed:
        packed.writestr(
            "zipped_scenarios/__init__.py",
            "from importlib.resources import files\nFILE = files(__name__) / 'filed.yaml'\n",
        )
        packed.writestr("zipped_scenarios/filed.yaml", SPEC_YAML)
        packed.writestr("zipped_scenarios/bad.yaml", b"name: [\xff")
    monkeypatch.syspath_prepend(str(archive))
    monkeypatch.delitem(sys.modules, "zipped_scenarios", raising=False)
    package = importlib.import_module("zipped_scenarios")
    assert not isinstance(package.FILE, Path)  # a zip member, not a file on disk
    assert scenario_in(package.FILE, "zipped").name == "filed"
    with pytest.raises(SpecError, match="zipped: cannot read the spec file"):
        scenario_in(files("zipped_scenarios") / "bad.yaml", "zipped")


@given(
    st.text(max_size=300).filter(lambda text: not text.startswith("python:"))
    | st.text(alphabet="a/.:@", max_size=5000).filter(lambda text: ":" not in text)
)
def test_any_reference_is_a_scenario_or_a_clear_error(reference: str) -> None:
    # in a folder that holds nothing, so a reference can only name the shipped specs
    with tempfile.TemporaryDirectory() as empty:
        here = os.getcwd()
        os.chdir(empty)
        try:
            said = find_scenario(reference).name  # only a shipped name gets here
        except SpecError as error:
            said = str(error)  # anything else than a SpecError fails the test
        finally:
            os.chdir(here)
    assert said


def test_control_characters_of_a_local_spec_are_escaped_in_the_listing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    spec = load_spec("return-window").model_copy(
        update={"name": "evil\x1b[2J", "description": "Clears\x07 your screen? No."}
    )
    spec.save(tmp_path / "evil.yaml")
    listing = _run("specs").output
    (line,) = [line for line in listing.splitlines() if "evil" in line]
    assert line.startswith("evil\\x1b[2J")
    assert "Clears\\x07 your screen?" in line
    assert "\x1b" not in listing
    assert "\x07" not in listing
