"""Hostile content, part three: themes (code in templates, folders outside), settings, YAML.

Every case builds through the sandbox, which also checks that nothing outside the output
folder changed and that no secret leaked.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from jinja2.exceptions import SecurityError
from jinja2.sandbox import ImmutableSandboxedEnvironment

from modelscape.pages.evidence import Cell
from modelscape.site.theme import Theme
from tests.site.hostile import Sandbox
from tests.site.sitetools import RUN

BOMB = (
    "a: &a ["
    + ",".join(["lol"] * 9)
    + "]\n"
    + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [" + ",".join([f"*{chr(97 + i)}"] * 9) + "]\n"
        for i in range(8)
    )
)


def _theme(sandbox: Sandbox, folder: str = "mytheme") -> Path:
    settings = sandbox.content / "site.yaml"
    settings.write_text(
        settings.read_text(encoding="utf-8") + f"theme: {folder}\n", encoding="utf-8"
    )
    theme = sandbox.content / folder
    (theme / "templates").mkdir(parents=True, exist_ok=True)
    return theme


def _refused_footer(sandbox: Sandbox, template: str, payload: str) -> str:
    """Build with a theme whose ``template`` puts ``payload`` in the footer, expecting the
    sandbox to refuse it at that line; the error message."""
    theme = _theme(sandbox)
    (theme / "templates" / template).write_text(
        f'{{% extends "default/{template}" %}}\n{{% block footer %}}{payload}{{% endblock %}}\n',
        encoding="utf-8",
    )
    where = template.replace(".", r"\.")
    return sandbox.refuses(rf"{where}: line 2: refused by the template sandbox")


@pytest.mark.parametrize(
    "payload",
    [
        "{{ cycler.__init__.__globals__.os.popen('touch MARKER').read() }}",
        "{{ lipsum.__globals__['os'].system('touch MARKER') }}",
        "{{ ''.__class__.__mro__[1].__subclasses__() }}",
        "{{ self._TemplateReference__context.cycler.__init__.__globals__.os }}",
        "{{ namespace.__init__.__globals__.os.environ }}",
    ],
)
def test_theme_templates_cannot_run_code(
    sandbox: Sandbox, payload: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(sandbox.outside)
    assert "unsafe" in _refused_footer(sandbox, "base.html.j2", payload)
    assert not (sandbox.outside / "MARKER").exists()


@pytest.mark.parametrize(
    "payload",
    [
        # Report.save writes a file wherever the build may write (found in note 032).
        "{{ report.save('pwned.json') }}",
        "{{ report.load('pwned.json') }}",
        # Methods of modelscape's objects are refused whatever they do: only plain values and
        # Jinja's own callables may be called.
        "{{ report.summary() }}",
        "{{ report.scorecards[0].model_dump_json() }}",
        "{{ provenance.model_copy() }}",
    ],
)
def test_theme_templates_cannot_call_methods_of_the_objects_they_show(
    sandbox: Sandbox, payload: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(sandbox.outside)
    assert "is not safely callable" in _refused_footer(sandbox, "report.html.j2", payload)
    assert not (sandbox.outside / "pwned.json").exists()


def test_plain_values_and_jinja_callables_stay_callable_in_a_theme(sandbox: Sandbox) -> None:
    theme = _theme(sandbox)
    (theme / "templates" / "report.html.j2").write_text(
        '{% extends "default/report.html.j2" %}\n'
        "{% macro shout(text) %}{{ text | upper }}{% endmacro %}\n"
        "{% block footer %}<footer><p>"
        "{{ shout('a') }}|{{ 'x-y'.split('-') | join('+') }}|{{ '{} {}'.format(1, 2) }}|"
        "{{ {'k': 3}.items() | list | length }}|{{ range(3) | list | join(',') }}|"
        "{% set row = cycler('odd', 'even') %}{% for t in report.targets[:2] %}"
        "{{ row.next() }}{{ loop.cycle(':', ';') }}{% endfor %}|"
        "{% set ns = namespace(n=0) %}{% set ns.n = 5 %}{{ ns.n }}|{{ dict(a=1) | length }}"
        "</p>{{ super() }}</footer>{% endblock %}\n",
        encoding="utf-8",
    )
    assert sandbox.build(strict=True).warnings == []
    report = next((sandbox.output / "reports").glob("*.html"))
    page = report.read_text(encoding="utf-8")
    assert "<footer><p>A|x+y|1 2|1|0,1,2|odd:even;|5|1</p>" in page


def test_a_theme_override_still_renders_in_the_sandbox(sandbox: Sandbox) -> None:
    theme = _theme(sandbox)
    (theme / "templates" / "base.html.j2").write_text(
        '{% extends "default/base.html.j2" %}\n'
        "{% block footer %}<footer><p>{{ site.title | upper }} · "
        "{{ navigation | map(attribute='title') | join(', ') }}</p></footer>{% endblock %}\n",
        encoding="utf-8",
    )
    assert sandbox.build(strict=True).warnings == []
    page = (sandbox.output / "about.html").read_text(encoding="utf-8")
    assert "<footer><p>MODELSCAPE LEADERBOARD · Leaderboard, About" in page


@pytest.mark.parametrize("folder", ["../outside", "/etc", "mytheme/../../outside", "C:/x"])
def test_a_theme_outside_the_content_folder_is_refused(sandbox: Sandbox, folder: str) -> None:
    settings = sandbox.content / "site.yaml"
    settings.write_text(
        settings.read_text(encoding="utf-8") + f"theme: {folder}\n", encoding="utf-8"
    )
    sandbox.refuses(r"site\.yaml: theme: .*theme must be a folder inside the content folder")


def test_a_theme_folder_linked_outside_is_refused(sandbox: Sandbox) -> None:
    (sandbox.outside / "templates").mkdir()
    (sandbox.content / "linked").symlink_to(sandbox.outside, target_is_directory=True)
    settings = sandbox.content / "site.yaml"
    settings.write_text(settings.read_text(encoding="utf-8") + "theme: linked\n", encoding="utf-8")
    sandbox.refuses(r"theme folder .*linked leaves the content folder")


@pytest.mark.parametrize(
    "where", ["templates/base.html.j2", "templates/.hidden.j2", "static/x.css"]
)
def test_a_theme_file_linked_outside_is_refused(sandbox: Sandbox, where: str) -> None:
    theme = _theme(sandbox)
    (theme / where).parent.mkdir(parents=True, exist_ok=True)
    (theme / where).symlink_to(sandbox.secret_file)
    sandbox.refuses(rf"theme folder .*mytheme: .*{where.split('/')[-1]}: a link that leaves")


def test_a_template_error_in_a_theme_is_one_line(sandbox: Sandbox) -> None:
    theme = _theme(sandbox)
    (theme / "templates" / "base.html.j2").write_text(
        '{% extends "default/base.html.j2" %}\n{% block footer %}{{ nothing.here }}{% endblock',
        encoding="utf-8",
    )
    sandbox.refuses(r"base\.html\.j2: line 2: unexpected end of template")
    (theme / "templates" / "base.html.j2").write_text(
        '{% extends "default/base.html.j2" %}\n{% block footer %}{{ nothing.here }}{% endblock %}',
        encoding="utf-8",
    )
    sandbox.refuses(r"base\.html\.j2: line 2: 'nothing' is undefined")


# -- settings ----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "url",
    [
        "javascript:alert(document.cookie)",
        "JavaScript:alert(1)",
        "data:text/html,<script>alert(1)</script>",
        "java\tscript:alert(1)",
        " javascript:alert(1)",
        "vbscript:x",
        "file:///etc/passwd",
        "//evil.example/",
    ],
)
def test_navigation_refuses_links_that_run_code(sandbox: Sandbox, url: str) -> None:
    import json

    (sandbox.content / "site.yaml").write_text(
        f"title: t\nnavigation:\n  - {{title: Go, url: {json.dumps(url)}}}\n", encoding="utf-8"
    )
    sandbox.refuses(r"site\.yaml: navigation\.0\.url: Value error")


def test_navigation_keeps_site_pages_and_web_addresses(sandbox: Sandbox) -> None:
    (sandbox.content / "site.yaml").write_text(
        "title: t\nnavigation:\n  - {title: About, url: about.html}\n"
        "  - {title: Code, url: 'https://example.org/code'}\n"
        "  - {title: Mail, url: 'mailto:lab@example.org'}\n",
        encoding="utf-8",
    )
    sandbox.build(strict=True)
    page = (sandbox.output / "reports" / f"{RUN}.html").read_text("utf-8")
    assert '<a href="../about.html">About</a>' in page
    assert '<a href="https://example.org/code">Code</a>' in page
    assert '<a href="mailto:lab@example.org">Mail</a>' in page


def test_markdown_links_that_run_code_are_not_links(sandbox: Sandbox) -> None:
    (sandbox.content / "pages" / "links.md").write_text(
        "[a](javascript:alert(1)) [b](data:text/html,x) [c](vbscript:x) ![d](javascript:x)\n",
        encoding="utf-8",
    )
    sandbox.build()
    page = (sandbox.output / "links.html").read_text(encoding="utf-8")
    for scheme in ("javascript:", "data:text/html", "vbscript:"):
        assert f'href="{scheme}' not in page
        assert f'src="{scheme}' not in page


# -- YAML in the content -----------------------------------------------------------------------
def test_an_alias_bomb_in_a_spec_is_skipped(sandbox: Sandbox) -> None:
    (sandbox.content / "specs" / "bomb.yaml").write_text(BOMB, encoding="utf-8")
    warning = sandbox.warns(r"bomb\.yaml:\d+: column \d+: expands to more than")
    assert "lol" not in warning


def test_an_alias_bomb_in_front_matter_is_an_error(sandbox: Sandbox) -> None:
    front = BOMB.replace("a: ", "title: ", 1)
    (sandbox.content / "pages" / "bomb.md").write_text(f"---\n{front}---\n# Bomb\n", "utf-8")
    message = sandbox.refuses(r"bomb\.md: front matter: line \d+, column \d+: expands to")
    assert "lol" not in message


def test_front_matter_values_are_text(sandbox: Sandbox) -> None:
    (sandbox.content / "pages" / "odd.md").write_text(
        "---\ntitle: [a, b]\n---\n# Odd\n", encoding="utf-8"
    )
    sandbox.refuses(r"odd\.md: front matter: title: must be text")


def test_an_alias_bomb_in_the_settings_is_an_error(sandbox: Sandbox) -> None:
    (sandbox.content / "site.yaml").write_text(BOMB.replace("a: ", "title: ", 1), "utf-8")
    sandbox.refuses(r"site\.yaml: line \d+, column \d+: expands to more than")


def test_deep_yaml_in_a_spec_is_skipped(sandbox: Sandbox) -> None:
    (sandbox.content / "specs" / "deep.yaml").write_text("x: " + "[" * 5000, "utf-8")
    sandbox.warns(r"deep\.yaml:1: column \d+: nested more than 64 levels deep")


def test_a_page_that_is_not_utf8_is_one_line(sandbox: Sandbox) -> None:
    (sandbox.content / "pages" / "latin.md").write_bytes("# Café\n\nna\xefve\n".encode("latin-1"))
    sandbox.refuses(r"latin\.md: line 1: not UTF-8 \(byte 0xe9\)")


def test_a_spec_that_is_not_utf8_is_skipped(sandbox: Sandbox) -> None:
    (sandbox.content / "specs" / "latin.yaml").write_bytes(b"name: caf\xe9\n")
    sandbox.warns(r"latin\.yaml:1: column 10: not UTF-8 \(byte 0xe9\)")


def test_the_sandbox_answers_for_a_number_cell_as_jinja_does() -> None:
    # The site's sandbox answers for number cells itself; its answer must be Jinja's own.
    env = Theme(None).environment
    cell = Cell("0.5", "accuracy", evidence=3, count=2, reason=None, caveats=("few cases",))
    names = {
        *dir(cell),
        *("mro", "_x", "__class__", "__init__", "__globals__", "func_code", "gi_frame"),
        *("append", "clear", "pop", "update", "format", "format_map", "text", "undefined"),
    }
    for name in sorted(names):
        value = getattr(cell, name, None)
        jinja = ImmutableSandboxedEnvironment.is_safe_attribute(env, cell, name, value)  # type: ignore[arg-type]
        assert env.is_safe_attribute(cell, name, value) is jinja, name  # type: ignore[attr-defined]
    # And in a template: fields are read, internals are not.
    shown = env.from_string("{{ cell.text }} {{ cell.caveats | join }}").render(cell=cell)
    assert shown == "0.5 few cases"
    with pytest.raises(SecurityError):
        env.from_string("{{ cell.__class__.__mro__ }}").render(cell=cell)


def test_the_call_check_never_asks_a_value_to_compare_itself() -> None:
    """A value whose ``__eq__`` raises (or answers with an array) is refused, not an error."""
    from modelscape.site.theme import _may_call

    class Touchy:
        def __eq__(self, other: object) -> bool:
            raise RuntimeError("compared")

        __hash__ = object.__hash__

        def __call__(self) -> str:
            return "called"

    assert _may_call(Touchy()) is False
