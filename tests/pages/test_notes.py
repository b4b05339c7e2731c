"""n/a without noise: a numbered marker per cell, one note per distinct reason."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st
from markupsafe import escape

from modelscape.pages.notes import number_notes


def _mark(reason: str) -> str:
    return f'<span class="num na">n/a</span><span data-na="{escape(reason)}"></span>'


def test_each_distinct_reason_is_one_note_listed_where_it_first_appears() -> None:
    page = (
        "<main><section><table>"
        f"<td>{_mark('too few answers')}</td><td>{_mark('too few answers')}</td>"
        f"<td>{_mark('no cases')}</td></table></section>"
        f"<section><p>{_mark('no cases')} {_mark('a third')}</p></section></main>"
    )
    made = number_notes(page)
    assert "data-na=" not in made
    markers = re.findall(r'<a class="na-link" href="#na-(\d)"', made)
    assert markers == ["1", "1", "2", "2", "3"]
    notes = re.findall(r'<li id="na-(\d)" value="\d">([^<]*)</li>', made)
    assert notes == [("1", "too few answers"), ("2", "no cases"), ("3", "a third")]
    first, second = made.split("</section>")[:2]
    assert 'id="na-1"' in first
    assert 'id="na-2"' in first
    assert 'id="na-3"' in second  # only the note first marked in it
    assert 'id="na-2"' not in second


def test_a_page_without_marks_is_unchanged_and_notes_outside_sections_go_before_main_ends() -> None:
    plain = "<main><section><p>0.5</p></section></main>"
    assert number_notes(plain) == plain
    made = number_notes(f"<main><p>{_mark('why')}</p></main><footer></footer>")
    assert made.index('<ol class="na-notes"') < made.index("</main>")


@given(st.lists(st.text(min_size=1, max_size=30), min_size=1, max_size=12))
def test_any_reasons_number_in_order_of_first_appearance_and_stay_escaped(
    reasons: list[str],
) -> None:
    page = "<section>" + "".join(f"<td>{_mark(r)}</td>" for r in reasons) + "</section>"
    made = number_notes(page)
    distinct = list(dict.fromkeys(str(escape(r)) for r in reasons))
    listed = re.findall(r'<li id="na-\d+" value="\d+">(.*?)</li>', made, re.DOTALL)
    assert listed == distinct
    numbers = [int(n) for n in re.findall(r'<a class="na-link" href="#na-(\d+)"', made)]
    assert numbers == [distinct.index(str(escape(r))) + 1 for r in reasons]
    assert "<script" not in made.replace("&lt;script", "")
