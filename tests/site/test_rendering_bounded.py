"""Rendering is bounded: a theme's template or a markdown page that would not end, or would
grow without end, is refused with its file (and the template's line), never a hang or a
traceback (issue 33: ``range(10**9)`` in a template ended the build in a traceback).

The bounds are lowered for these tests (see ``modelscape.site.limits``) so that each case
meets them in a fraction of a second.
"""

from __future__ import annotations

import threading
from typing import Any

import pytest

from modelscape.site import limits, markdown
from modelscape.site.limits import RenderTimeoutError, time_limit
from tests.site.hostile import Sandbox


@pytest.fixture(autouse=True)
def _key(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("cache")))


@pytest.fixture
def quick(monkeypatch: pytest.MonkeyPatch) -> None:
    """A size bound a test reaches at once (a million characters). The time limit stays long:
    a size is refused before it is made, so only a loaded machine could reach the time limit
    first, and then at whatever line it happened to be rendering."""
    monkeypatch.setattr(limits, "RENDER_SECONDS", 60.0)
    monkeypatch.setattr(limits, "MAX_OUTPUT_CHARS", 1_000_000)


#: The time limit of the cases that never end: long enough for a loaded machine to reach the
#: line that loops (the page around it takes milliseconds when the machine is quiet).
SLOW_SECONDS = 5.0


def _footer(sandbox: Sandbox, payload: str) -> None:
    """A theme whose base template puts ``payload`` in every page's footer (line 2)."""
    settings = sandbox.content / "site.yaml"
    settings.write_text(settings.read_text(encoding="utf-8") + "theme: mytheme\n", "utf-8")
    templates = sandbox.content / "mytheme" / "templates"
    templates.mkdir(parents=True)
    (templates / "base.html.j2").write_text(
        f'{{% extends "default/base.html.j2" %}}\n{{% block footer %}}{payload}{{% endblock %}}\n',
        encoding="utf-8",
    )


@pytest.mark.usefixtures("quick")
@pytest.mark.parametrize(
    ("payload", "match"),
    [
        (
            "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}",
            r"still rendering after 5 s",
        ),
        ("{% for i in range(10**9) %}{% endfor %}", r"Range too big"),
        (
            "{% macro down(n) %}{{ down(n + 1) }}{% endmacro %}{{ down(0) }}",
            r"it calls itself without end",
        ),
        (
            "{% for i in range(100000) %}{{ 'x' * 1000 }}{% endfor %}",
            r"the page grew past 1,000,000 characters",
        ),
        ("{% set big = 'x' * 10**8 %}", r"refused by the template sandbox: a sequence repeated"),
        ("{{ 10 ** 10000000 }}", r"refused by the template sandbox: a power of more than"),
        # One step of C code each, which no time limit could stop part way.
        ("{{ 'x' | center(10**9) }}", r"sandbox: center given a size over 10,000,000"),
        ("{{ 'x'.ljust(10**9) }}", r"sandbox: ljust given a size over 10,000,000"),
        ("{{ 'x'.zfill(10**9) }}", r"sandbox: zfill given a size over 10,000,000"),
        ("{{ 'a\tb'.expandtabs(10**9) }}", r"sandbox: expandtabs given a size over"),
        ("{{ 'x' | indent(10**9) }}", r"sandbox: indent given a size over 10,000,000"),
        ("{{ '%1000000000d' % 1 }}", r"sandbox: a format field wider than 10,000,000"),
        ("{{ '%1000000000d' | format(1) }}", r"sandbox: a format field wider than"),
        ("{{ '{:1000000000}'.format(1) }}", r"sandbox: a format field wider than"),
        (
            "{{ ('x' * 10000) | replace('', 'y' * 10000) }}",
            r"sandbox: a replace that makes more than 10,000,000 characters",
        ),
        (
            "{{ ('x' * 10000).replace('x', 'y' * 10000) }}",
            r"sandbox: a replace that makes more than",
        ),
    ],
    ids=[
        "loop",
        "range",
        "recursion",
        "output",
        "repeat",
        "power",
        "center",
        "ljust",
        "zfill",
        "expandtabs",
        "indent",
        "percent",
        "format-filter",
        "format-method",
        "replace-filter",
        "replace-method",
    ],
)
def test_a_template_past_a_bound_is_refused_at_its_line(
    sandbox: Sandbox, payload: str, match: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    if "still rendering" in match:
        monkeypatch.setattr(limits, "RENDER_SECONDS", SLOW_SECONDS)
    _footer(sandbox, payload)
    message = sandbox.refuses(rf"mytheme/templates/base\.html\.j2: line 2: .*{match}")
    assert "the page is refused" in message or "sandbox" in message


@pytest.mark.usefixtures("quick")
def test_a_markdown_page_too_slow_to_render_is_refused(
    sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A parse that never ends stands for a pathological page: how slow a real input is
    # depends on the machine (a table that took seconds here under load took a fraction of
    # one on a quiet machine), while the limit must stop any parse, whatever its input.
    parser = markdown._parser()

    class Endless:
        options = parser.options
        renderer = parser.renderer

        def parse(self, text: str) -> list[Any]:
            while "never ends" in text:
                pass
            return parser.parse(text)

    monkeypatch.setattr(markdown, "_parser", lambda: Endless())
    monkeypatch.setattr(limits, "RENDER_SECONDS", SLOW_SECONDS)
    page = sandbox.content / "pages" / "table.md"
    page.write_text("# A page\n\nwhose parse never ends\n", encoding="utf-8")
    message = sandbox.refuses(r"table\.md: rendering its markdown took longer than 5 s")
    assert message.startswith(str(page))


@pytest.mark.usefixtures("quick")
def test_a_markdown_page_too_large_is_refused(
    sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    (sandbox.content / "pages" / "long.md").write_text("&amp;" * 300_000, encoding="utf-8")
    sandbox.refuses(r"long\.md: it makes more than 1,000,000 characters of HTML")


def test_a_page_within_the_bounds_is_rendered_as_before(sandbox: Sandbox) -> None:
    _footer(sandbox, "{% for i in range(3) %}<span>{{ i * 2 }}</span>{% endfor %}")
    sandbox.build(strict=True)
    assert "<span>4</span>" in (sandbox.output / "index.html").read_text(encoding="utf-8")


def _spin(caught: list[BaseException]) -> None:
    try:
        with time_limit(0.2):
            while True:
                pass
    except RenderTimeoutError as error:
        caught.append(error)


def test_the_time_limit_stops_any_thread_and_never_fires_late() -> None:
    caught: list[BaseException] = []
    worker = threading.Thread(target=_spin, args=(caught,))
    worker.start()
    worker.join(timeout=30)  # a guard against hanging, not a timing check
    assert not worker.is_alive()
    assert len(caught) == 1
    # Blocks that end about when their limit does: the exception may arrive inside one,
    # never after it, where Python code keeps running (each step a place it could arrive).
    late = 0
    for number in range(2000):
        try:
            try:
                with time_limit(0.0002):
                    sum(range(number % 40 * 50))
            except RenderTimeoutError:
                pass
            for _ in range(500):
                pass
        except RenderTimeoutError:
            late += 1
    assert late == 0
    assert not [t for t in threading.enumerate() if t.name == "modelscape-time-limit"]


def test_sized_steps_within_the_bounds_still_render(sandbox: Sandbox) -> None:
    # Big numbers are formatted as usual: only a width or a count is a size.
    _footer(
        sandbox,
        "{{ '%d' % 20000000 }}|{{ '{:,}'.format(20000000) }}|{{ 'ab' | center(6) }}|"
        "{{ 'a-b' | replace('-', '+') }}|{{ '%5s' | format('x') }}",
    )
    sandbox.build()
    page = (sandbox.output / "index.html").read_text(encoding="utf-8")
    assert "20000000|20,000,000|  ab  |a+b|    x" in page
