"""Shared fixtures: every test writes under a temporary data folder (one fixture moves all paths)."""

from __future__ import annotations

import hashlib
import os
import shutil
import socket
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("ASSISTANT_SHARED_DIR", ROOT.parent / "shared"))
MODEL_DIR = Path(os.environ.get("ASSISTANT_EMBEDDING_MODEL_DIR", SHARED / "models" / "all-MiniLM-L6-v2"))
ICML_FILE = SHARED / "data" / "icml2026" / "icml2026_abstracts.txt"
AIRAS_DIR = SHARED / "data" / "airas-papers-db" / "data"
SCIFACT_DIR = SHARED / "data" / "scifact"
SEED_QA = SHARED / "eval" / "seed_dev_qa.jsonl"


class FakeEmbedder:
    """Deterministic bag-of-words embedder for fast unit tests: hashed unigrams, L2-normalised."""

    name = "fake-hash-64"
    dim = 64

    def __init__(self):
        self.calls = 0
        self.embedded = 0

    def embed(self, texts):
        self.calls += 1
        self.embedded += len(texts)
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in text.lower().split():
                h = int(hashlib.md5(word.strip(".,;:()").encode()).hexdigest(), 16)
                out[row, h % self.dim] += 1.0
            out[row, 0] += 1e-3
        return out / np.linalg.norm(out, axis=1, keepdims=True)


@pytest.fixture(autouse=True)
def data_dir(tmp_path, monkeypatch) -> Path:
    """Move every path the product writes to a temporary folder, and drop settings that leak in."""
    d = tmp_path / "data"
    monkeypatch.setenv("ASSISTANT_DATA_DIR", str(d))
    monkeypatch.setenv("ASSISTANT_EMBEDDING_MODEL_DIR", str(MODEL_DIR))
    for var in ("ASSISTANT_CHROMA_URL", "ASSISTANT_CONFIG", "ASSISTANT_COLLECTION", "ASSISTANT_LLM",
                "ASSISTANT_EMBEDDING_PRECISION",
                "OPENAI_API_KEY", "OPENAI_BASE_URL", "ASSISTANT_OPENAI_API_KEY", "ASSISTANT_OPENAI_BASE_URL"):
        monkeypatch.delenv(var, raising=False)
    return d


@pytest.fixture
def settings(data_dir):
    from assistant.settings import load_settings

    return load_settings()


@pytest.fixture
def fake_store(settings):
    """A real embedded Chroma store in the temp folder with the fake embedder (fast)."""
    from assistant.store.collection import PaperStore

    return PaperStore(settings, embedder=FakeEmbedder())


@pytest.fixture
def real_store(settings):
    """A real embedded Chroma store with the real ONNX MiniLM model (empty)."""
    from assistant.store.collection import PaperStore

    if not (MODEL_DIR / "onnx" / "model.onnx").exists():
        pytest.skip(f"embedding model not found in {MODEL_DIR}")
    return PaperStore(settings)


@pytest.fixture
def bundled_store(real_store):
    """The real store with the bundled ICML 2026 collection ingested."""
    from assistant.store.ingest import ensure_default_collection

    ensure_default_collection(real_store)
    return real_store


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_port(port: int, proc: subprocess.Popen, seconds: float, what: str) -> None:
    deadline = time.time() + seconds
    while time.time() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{what} exited with code {proc.returncode}")
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.2)
    raise RuntimeError(f"{what} did not listen on port {port} within {seconds} s")


@contextmanager
def serve(cmd: list[str], port: int, log_path: Path, seconds: float, what: str):
    """Run a server command with its output in `log_path`, wait until `port` listens, stop it after."""
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
        try:
            wait_for_port(port, proc, seconds, what)
            yield proc
        finally:
            proc.terminate()
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()


@pytest.fixture(scope="session")
def chroma_server(tmp_path_factory):
    """A real Chroma server (`chroma run`) on a free loopback port; yields its URL."""
    chroma = shutil.which("chroma") or str(Path(sys.executable).with_name("chroma"))
    if not Path(chroma).exists():
        pytest.skip("the chroma CLI is not installed")
    port = free_port()
    path = tmp_path_factory.mktemp("chroma-server")
    cmd = [chroma, "run", "--path", str(path / "db"), "--host", "127.0.0.1", "--port", str(port)]
    with serve(cmd, port, path / "server.log", 60, "chroma run"):
        yield f"http://127.0.0.1:{port}"
