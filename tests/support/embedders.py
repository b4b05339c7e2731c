"""Embedders for the embedding distance's tests, named as python:tests.support.embedders:NAME.

``letters`` is a real (if tiny) embedding: counts of each letter a-z and of everything else,
so texts with the same letters in any order embed alike. The others misbehave on purpose.
"""

from __future__ import annotations

from collections.abc import Sequence


def letters(texts: Sequence[str]) -> list[list[float]]:
    """One vector of 27 counts per text: a-z (case-folded), then every other character."""
    vectors = []
    for text in texts:
        counts = [0.0] * 27
        for character in text.casefold():
            index = ord(character) - ord("a")
            counts[index if 0 <= index < 26 else 26] += 1.0
        vectors.append(counts)
    return vectors


def nothing(texts: Sequence[str]) -> list[list[float]]:
    """The zero vector, which has no direction."""
    return [[0.0, 0.0] for _ in texts]


def not_a_number(texts: Sequence[str]) -> list[list[float]]:
    """A vector with a NaN in it."""
    return [[1.0, float("nan")] for _ in texts]


def matrix(texts: Sequence[str]) -> list[list[list[float]]]:
    """A matrix per text instead of a vector."""
    return [[[1.0, 0.0], [0.0, 1.0]] for _ in texts]


def broken(texts: Sequence[str]) -> list[list[float]]:
    """An embedder whose model fails."""
    raise RuntimeError("the embedding model is not loaded")


NOT_A_FUNCTION = 3


def quoting(texts: Sequence[str]) -> list[list[float]]:
    """An embedder whose error quotes the whole text, as many libraries' errors do."""
    raise ValueError(f"cannot embed {texts[0]!r}")
