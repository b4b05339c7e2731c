"""A local GGUF model run in-process through llama-cpp-python, for users without a server.

Install with ``pip install 'modelscape-map[llama]'``. The model is loaded on the first call, once,
and every call runs in one worker thread of its own: generation holds the CPU for seconds and
releases the GIL, so the runner's loop stays free, and one model instance is never entered by
two calls at once (llama.cpp contexts are not thread-safe). Calls are therefore serialized
whatever the run's concurrency; a call that the runner times out still finishes in its thread
before the next one starts.

A call's timeout measures its own generation: the wait for the model (the calls ahead of it,
and the model's loading on the first call) is left out, as :mod:`modelscape.targets._clock`
describes, so that the eighth of eight queued calls is not timed out for the seven before it.
Only the observation's whole budget bounds that wait.

The model stays loaded for the length of a run: the runner closes the target when the run
ends (:meth:`LlamaCppTarget.aclose`), which frees the model and its thread. Its replies have
the OpenAI chat-completions shape and are read by :mod:`~modelscape.targets.providers._chat`. This
module declares the ``llama-cpp:PATH`` kind of target (:data:`LLAMA_CPP`).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import importlib
import importlib.util
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

from modelscape._identity import Identity
from modelscape._version import requirement
from modelscape.errors import ExecutionError
from modelscape.targets._clock import waiting
from modelscape.targets._shape import AnswerShape
from modelscape.targets.protocol import IdentifiedTarget, TargetError, TargetOutput, TargetRequest
from modelscape.targets.providers._chat import chat_messages, read_chat_completion
from modelscape.targets.providers._names import HTTP_ONLY, KIND_ONLY, target_options
from modelscape.targets.providers._settings import Generation, TargetOptions
from modelscape.targets.providers._structured import (
    StructuredMode,
    StructuredTarget,
    structured_mode,
)
from modelscape.targets.registry import Provider

__all__ = ["LLAMA_CPP", "LlamaCppTarget", "fingerprint"]

#: Tokens of context when none is asked for.
DEFAULT_CONTEXT = 2048
#: A bound on each reply when none is set: llama.cpp's own default runs to the end of the context.
DEFAULT_MAX_TOKENS = 256
# Bytes read from each end of a model file for its fingerprint.
_FINGERPRINT_BYTES = 4 * 1024 * 1024

_Result = TypeVar("_Result")


def fingerprint(path: Path) -> str:
    """A short hash naming a model file: its size and its first and last 4 MiB.

    A GGUF file starts with its metadata (architecture, quantization, tokenizer) and weights
    follow, so two different models practically never share this; hashing a whole 40 GB model
    to make an identity would take minutes.
    """
    size = path.stat().st_size
    digest = hashlib.sha256(str(size).encode())
    with path.open("rb") as handle:
        digest.update(handle.read(_FINGERPRINT_BYTES))
        handle.seek(max(0, size - _FINGERPRINT_BYTES))
        digest.update(handle.read(_FINGERPRINT_BYTES))
    return digest.hexdigest()[:16]


class LlamaCppTarget(StructuredTarget, IdentifiedTarget):
    """A GGUF model file run in this process by llama.cpp.

    The identity holds the file's name and :func:`fingerprint` (not its path, which differs
    between machines), the context size and the generation parameters. The reported model is
    the file name with the llama-cpp-python version that ran it. ``threads`` sets llama.cpp's
    CPU threads and is not part of the identity. ``generation`` (a
    :class:`~modelscape.targets.providers._settings.Generation`) holds the generation
    parameters, ``max_tokens`` defaulting to ``DEFAULT_MAX_TOKENS``. ``structured`` (``True``
    or ``"grammar"``) constrains every reply with a grammar of the answer's shape, which also
    fits a plain-text answer (``text_match``).
    """

    #: The ways this target can shape its replies.
    structured_modes: tuple[StructuredMode, ...] = ("grammar",)

    def __init__(
        self,
        path: str | Path,
        *,
        name: str | None = None,
        version: str = "1",
        generation: Generation | None = None,
        context: int | None = None,
        threads: int | None = None,
        structured: bool | str = False,
    ) -> None:
        self.path = Path(path).expanduser()
        self.structured = structured_mode(
            structured, allowed=self.structured_modes, where=f"target {name or self.path.stem!r}"
        )
        if not self.path.is_file():
            raise ExecutionError(f"llama-cpp target: no model file at {self.path}")
        if importlib.util.find_spec("llama_cpp") is None:
            raise ExecutionError(
                "llama-cpp targets need llama-cpp-python: pip install 'modelscape-map[llama]'"
            )
        generation = Generation() if generation is None else generation
        if generation.max_tokens is None:  # a reply needs a bound in this process
            generation = generation.model_copy(update={"max_tokens": DEFAULT_MAX_TOKENS})
        self.generation = generation
        self.context = DEFAULT_CONTEXT if context is None else context
        self.threads = threads
        self._identity = Identity(
            kind="target",
            name=name or self.path.stem,
            version=version,
            parameters={
                "provider": "llama-cpp",
                "model": self.path.name,
                "fingerprint": fingerprint(self.path),
                "context": self.context,
                **self.generation.identity(),
                **({"structured": self.structured} if self.structured else {}),
            },
        )
        self._model: Any = None
        self._grammars: dict[AnswerShape, Any] = {}
        self._load_lock = threading.Lock()
        self._executor: ThreadPoolExecutor | None = None
        # The job in the model's thread now (it may outlive a caller the runner timed out),
        # and the lock that lines up the calls waiting for the thread, one per event loop.
        self._running: Future[Any] | None = None
        self._turns: tuple[asyncio.AbstractEventLoop, asyncio.Lock] | None = None
        self.engine = "llama-cpp-python"

    def _load(self) -> Any:
        with self._load_lock:
            if self._model is None:
                # Loaded by name: the extra is optional, and its types are not ours to check.
                llama_cpp: Any = importlib.import_module("llama_cpp")
                try:
                    self._model = llama_cpp.Llama(
                        model_path=str(self.path),
                        n_ctx=self.context,
                        n_threads=self.threads,
                        verbose=False,
                    )
                except Exception as error:  # a corrupt or unsupported file: no retry helps
                    raise TargetError(
                        f"llama-cpp cannot load {self.path}: {error}", retryable=False
                    ) from None
                self.engine = f"llama-cpp-python {llama_cpp.__version__}"
            return self._model

    def _grammar(self, shape: AnswerShape) -> Any:
        """The compiled grammar of an answer shape, compiled once per shape."""
        grammar = self._grammars.get(shape)
        if grammar is None:
            llama_cpp: Any = importlib.import_module("llama_cpp")
            grammar = llama_cpp.LlamaGrammar.from_string(shape.grammar(), verbose=False)
            self._grammars[shape] = grammar
        return grammar

    def _generate(self, request: TargetRequest) -> TargetOutput:
        model = self._load()
        options: dict[str, Any] = self.generation.fields(request.seed)
        if self.structured is not None:
            options["grammar"] = self._grammar(self.shape(request))
        started = time.perf_counter()
        # Every call from an empty context: llama-cpp-python reuses the previous call's tokens
        # as a prefix, and on Gemma 3 (sliding-window attention) the reused cache changes the
        # reply, so at temperature 0 an output depended on what was asked before it (the first
        # call answered "\n", the same prompt later " Paris. It is the largest").
        model.reset()
        try:
            reply = model.create_chat_completion(messages=chat_messages(request.prompt), **options)
        except ValueError as error:  # a prompt longer than the context: retrying cannot help
            raise TargetError(f"llama-cpp: {error}", retryable=False) from None
        latency = time.perf_counter() - started
        output = read_chat_completion(reply, provider="llama-cpp", latency=latency)
        # The file and the engine that ran it name the model better than the reply does.
        return output.model_copy(update={"model": f"{self.path.name} ({self.engine})"})

    async def __call__(self, request: TargetRequest) -> TargetOutput:
        if self._executor is None:
            self._executor = ThreadPoolExecutor(1, thread_name_prefix="modelscape-llama")
        with waiting():  # the call's timeout starts when its generation does
            async with self._turn():
                await self._free()
                if self._model is None:
                    await self._submit(self._executor, self._load)
                job = self._submit(self._executor, self._generate, request)
        return await job

    def _turn(self) -> asyncio.Lock:
        """The lock the calls of this event loop wait in, in the order they came."""
        loop = asyncio.get_running_loop()
        if self._turns is None or self._turns[0] is not loop:
            self._turns = (loop, asyncio.Lock())
        return self._turns[1]

    async def _free(self) -> None:
        """Wait until the model's thread has finished its job (which may be a call the runner
        has already timed out: a job outlives its caller). Cancelling this wait leaves the job
        alone, and the job's outcome stays its own caller's to read."""
        running = self._running
        if running is None or running.done():
            return
        loop = asyncio.get_running_loop()
        free: asyncio.Future[None] = loop.create_future()

        def wake(_: Future[Any]) -> None:  # runs in the model's thread
            # A loop closed since has nobody waiting on it any more.
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(_settle, free)

        running.add_done_callback(wake)
        await free

    def _submit(
        self, executor: ThreadPoolExecutor, work: Callable[..., _Result], *arguments: Any
    ) -> asyncio.Future[_Result]:
        """Start ``work`` in the model's thread; the future of its result on this loop."""
        job = executor.submit(work, *arguments)
        self._running = job
        return asyncio.wrap_future(job)

    async def aclose(self) -> None:
        """Free the model and its thread (waiting, off the loop, for a call still running)."""
        await asyncio.to_thread(self.close)

    def close(self) -> None:
        """Free the model and its thread; the next call loads the model again."""
        if self._executor is not None:
            self._executor.shutdown(wait=True)
            self._executor = None
            self._running = None
        with self._load_lock:
            model, self._model = self._model, None
        if model is not None and hasattr(model, "close"):
            model.close()

    def __repr__(self) -> str:
        return f"LlamaCppTarget({self._identity}, path={str(self.path)!r})"


def _settle(free: asyncio.Future[None]) -> None:
    if not free.done():  # a cancelled wait is done already
        free.set_result(None)


def _llama_cpp(argument: str, **given: Any) -> LlamaCppTarget:
    options = target_options("llama-cpp", argument, given, refuses=LLAMA_CPP.refuses)
    return LlamaCppTarget(
        argument,
        name=options.name,
        version=options.version,
        structured=options.structured,
        context=options.context,
        threads=options.threads,
        generation=options.generation,
    )


#: ``llama-cpp:PATH``: a GGUF file run in this process by llama-cpp-python.
LLAMA_CPP = Provider(
    kind="llama-cpp",
    make=_llama_cpp,
    extra=requirement("llama"),
    requires=("llama_cpp",),
    forms=("llama-cpp:PATH",),
    summary="a GGUF model file run in this process by llama-cpp-python; no key",
    options=TargetOptions,
    refuses=HTTP_ONLY | KIND_ONLY,
    defaults={"max_tokens": DEFAULT_MAX_TOKENS, "context": DEFAULT_CONTEXT},
)
