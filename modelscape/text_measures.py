"""Difference measures for free-text answers: edit distance, token Jaccard, embedding distance.

An answer reader turns a reply into one of a few choices; these measures compare the replies
themselves, for tasks whose answer is prose. Each is a difference measure as
:mod:`modelscape.measures` defines them (symmetric, zero on equal texts, never negative), with
values in [0, 1], so profiles, sensitivity, divergence and scorecards take them by name like
``answer_change``.

- ``edit_distance``: Levenshtein distance normalised as Yujian and Bo do,
  2·L / (|a| + |b| + L) (L. Yujian, L. Bo, "A normalized Levenshtein distance metric", IEEE
  TPAMI 29(6), 2007). Dividing by the longer length instead is not a metric (``ab``, ``aba``,
  ``ba`` break the triangle inequality); this form is. It is not of negative type, so the
  excess change may miss some differences (see STATS.md).
- ``token_jaccard``: 1 − |A ∩ B| / |A ∪ B| over the sets of case-folded words. The Jaccard
  similarity is a positive definite kernel (the Tanimoto kernel), so this distance is of
  negative type.
- ``embedding_distance``: the Euclidean distance between the texts' embeddings, each scaled
  to length ½, so that it lies in [0, 1] and equals √((1 − cos) / 2). Being Euclidean it is
  of negative type. The embedder is any function from a list of texts to a list of vectors,
  named as ``python:module:function`` or passed as a function.

Model output is hostile: texts are compared as Unicode code points after NFC normalisation
(lone surrogates, right-to-left marks and combining characters are code points like any
other). The cost is bounded by comparing only the first ``limit`` code points of each text:
the edit distance's dynamic programme then takes at most ``limit`` numpy steps over
``limit`` cells; tokenising is linear in ``limit``. The limit is part of each measure's
identity, so a run says what it compared.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from modelscape._identity import JsonValue
from modelscape.errors import ExecutionError
from modelscape.measures import CallableDifference, KeyedDifference, Response

__all__ = [
    "EDIT_LIMIT",
    "TEXT_MEASURES",
    "TOKEN_LIMIT",
    "Embedder",
    "edit_difference",
    "edit_distance",
    "embedding_difference",
    "jaccard_difference",
    "levenshtein",
    "token_jaccard",
    "tokens",
]

#: Code points of each text the edit distance compares: at most 2,000 numpy steps per pair.
EDIT_LIMIT = 2_000
#: Code points of each text token Jaccard reads.
TOKEN_LIMIT = 200_000

#: A function from texts to one vector each, such as a sentence-embedding model's ``encode``.
Embedder = Callable[[Sequence[str]], Any]

_WORD = re.compile(r"\w+")


def _prepared(text: str, limit: int) -> str:
    # truncating before normalising bounds the cost of NFC too; a character split at the
    # cut only changes what lies beyond the limit
    return unicodedata.normalize("NFC", text[: 4 * limit])[:limit]


def _code_points(text: str) -> NDArray[np.uint32]:
    # surrogatepass keeps a lone surrogate as its own code point instead of failing
    return np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype="<u4")


def levenshtein(first: str, second: str) -> int:
    """The number of single code point insertions, deletions and substitutions between texts.

    The Wagner–Fischer recurrence one row at a time: with t[j] the best of a deletion or a
    substitution, the insertions make cur[j] = min over k ≤ j of t[k] + (j − k), one running
    minimum (``np.minimum.accumulate``) per row. Rows run over the shorter text, so the cost
    is min(|a|, |b|) numpy steps over max(|a|, |b|) + 1 cells; it is unbounded here, and the
    measures bound it by truncating first.
    """
    start = 0
    while start < min(len(first), len(second)) and first[start] == second[start]:
        start += 1  # a common prefix and suffix cost nothing; replies often share them
    end = 0
    while end < min(len(first), len(second)) - start and first[-1 - end] == second[-1 - end]:
        end += 1
    first = first[start : len(first) - end]
    second = second[start : len(second) - end]
    if len(first) > len(second):
        first, second = second, first
    if not first:
        return len(second)
    columns = _code_points(second)
    offsets = np.arange(len(second) + 1, dtype=np.int64)
    previous = offsets.copy()
    for row, code in enumerate(_code_points(first), start=1):
        best = np.empty_like(previous)
        best[0] = row
        np.minimum(previous[1:] + 1, previous[:-1] + (columns != code), out=best[1:])
        previous = np.minimum.accumulate(best - offsets) + offsets
    return int(previous[-1])


def edit_distance(first: str, second: str, *, limit: int = EDIT_LIMIT) -> float:
    """Normalised Levenshtein distance 2·L / (|a| + |b| + L) in [0, 1], a metric.

    Compares the first ``limit`` code points of each text after NFC normalisation.
    """
    a, b = _prepared(first, limit), _prepared(second, limit)
    distance = levenshtein(a, b)
    if distance == 0:
        return 0.0
    return 2 * distance / (len(a) + len(b) + distance)


def tokens(text: str, *, limit: int = TOKEN_LIMIT) -> frozenset[str]:
    """The case-folded words of a text's first ``limit`` code points (runs of letters,
    digits and underscores in any script)."""
    return frozenset(_WORD.findall(_prepared(text, limit).casefold()))


def token_jaccard(first: str, second: str, *, limit: int = TOKEN_LIMIT) -> float:
    """1 − |A ∩ B| / |A ∪ B| over the texts' word sets; 0 for two texts without words."""
    a, b = tokens(first, limit=limit), tokens(second, limit=limit)
    union = len(a | b)
    if union == 0:
        return 0.0
    return 1.0 - len(a & b) / union


def _text(response: Response) -> str:
    return response.output.text or ""


def edit_difference(*, limit: int = EDIT_LIMIT) -> CallableDifference:
    """The ``edit_distance`` difference measure between two replies' texts."""
    _check_limit(limit)
    return CallableDifference(
        lambda a, b: edit_distance(_text(a), _text(b), limit=limit),
        name="edit_distance",
        parameters={"normalised": "yujian-bo", "limit": limit, "unicode": "NFC"},
    )


def jaccard_difference(*, limit: int = TOKEN_LIMIT) -> CallableDifference:
    """The ``token_jaccard`` difference measure between two replies' word sets."""
    _check_limit(limit)
    return CallableDifference(
        lambda a, b: token_jaccard(_text(a), _text(b), limit=limit),
        name="token_jaccard",
        parameters={"tokens": "casefolded \\w+", "limit": limit, "unicode": "NFC"},
    )


def _check_limit(limit: int) -> None:
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        raise ExecutionError(
            f"a text measure's limit is a whole number of at least 1, not {limit!r}"
        )


class _Embedding:
    """The key of one reply: its embedding scaled to length ½, found through the embedder.

    A named embedder is imported on first use, so naming one in a spec imports nothing
    until a run measures with it.
    """

    def __init__(self, embedder: str | Embedder, limit: int) -> None:
        self.embedder = embedder
        self.limit = limit
        self.loaded: Embedder | None = None if isinstance(embedder, str) else embedder

    def function(self) -> Embedder:
        if self.loaded is None:
            from modelscape.targets._resolve import load_object

            assert isinstance(self.embedder, str)
            found = load_object(self.embedder.removeprefix("python:"))
            if not callable(found):
                raise ExecutionError(
                    f"embedder {self.embedder}: names a {type(found).__name__}, not a function "
                    "from texts to vectors"
                )
            self.loaded = found
        return self.loaded

    def __call__(self, response: Response) -> JsonValue:
        text = _prepared(_text(response), self.limit)
        where = f"embedder {_embedder_name(self.embedder)}"
        try:
            vectors = self.function()([text])
            vector = np.asarray(vectors, dtype=np.float64)
        except ExecutionError:
            raise
        except Exception as error:  # the user's function: say whose failure it is
            # the error may quote the whole reply, which can be megabytes of hostile text
            raise ExecutionError(f"{where} failed: {_shortened(repr(error))}") from error
        if vector.ndim == 2 and vector.shape[0] == 1:
            vector = vector[0]
        if vector.ndim != 1 or vector.size == 0:
            raise ExecutionError(
                f"{where} returned an array of shape {vector.shape} for one text; return one "
                "vector per text"
            )
        if not np.all(np.isfinite(vector)):
            raise ExecutionError(f"{where} returned a vector with NaN or infinite entries")
        length = math.sqrt(float(vector @ vector))
        if length == 0.0:
            raise ExecutionError(f"{where} returned the zero vector, which has no direction")
        scaled: list[float] = (vector / (2 * length)).tolist()
        return scaled  # type: ignore[return-value]


def _shortened(text: str, most: int = 300) -> str:
    return text if len(text) <= most else f"{text[:most]}... ({len(text):,} characters)"


def _embedder_name(embedder: str | Embedder) -> str:
    if isinstance(embedder, str):
        return embedder if embedder.startswith("python:") else f"python:{embedder}"
    module = getattr(embedder, "__module__", None) or "?"
    return f"python:{module}:{getattr(embedder, '__qualname__', type(embedder).__name__)}"


def embedding_difference(
    embedder: str | Embedder, *, version: str = "1", limit: int = TOKEN_LIMIT
) -> KeyedDifference:
    """The ``embedding_distance`` difference measure, through ``embedder``.

    ``embedder`` maps a list of texts to a list of vectors; named as
    ``python:module:function`` (or ``python:path/to/file.py:function``), it is imported when a
    run first measures. Its name and ``version`` identify the measure, so change the version
    when the embedding model changes. Each reply's vector is stored with its output.
    """
    _check_limit(limit)
    return KeyedDifference(
        _Embedding(embedder, limit),
        name="embedding_distance",
        version="1",
        distance="euclidean",
        parameters={
            "embedder": _embedder_name(embedder),
            "embedder_version": version,
            "limit": limit,
            "scaled": "unit/2",
        },
    )


#: The text measures a spec names in ``measures``: a name and the factory of its measure.
TEXT_MEASURES: dict[str, Callable[[], CallableDifference]] = {
    "edit_distance": edit_difference,
    "token_jaccard": jaccard_difference,
}
