"""The OpenAI-compatible embedding backend against a real HTTP server on loopback."""

import hashlib
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np
import pytest

from assistant.retrieval import Retriever
from assistant.settings import load_settings
from assistant.store.collection import PaperStore
from assistant.store.embeddings import EmbeddingError
from assistant.store.ingest import ingest

from tests.conftest import ICML_FILE, free_port

DIM = 48


def vector(text: str) -> list[float]:
    v = np.zeros(DIM)
    for word in text.lower().split():
        v[int(hashlib.md5(word.strip(".,()").encode()).hexdigest(), 16) % DIM] += 1
    return (v + 1e-3).tolist()


class EmbeddingsHandler(BaseHTTPRequestHandler):
    requests: list[dict] = []

    def log_message(self, *args):
        pass

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        EmbeddingsHandler.requests.append(body)
        if self.headers.get("Authorization") != "Bearer sk-good":
            self.send_response(401)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(b'{"error": {"message": "bad key", "type": "invalid_request_error"}}')
            return
        data = [{"object": "embedding", "index": i, "embedding": vector(t)} for i, t in enumerate(body["input"])]
        payload = json.dumps({"object": "list", "data": data[::-1], "model": body["model"],
                              "usage": {"prompt_tokens": 1, "total_tokens": 1}}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)


@pytest.fixture
def embeddings_server():
    server = ThreadingHTTPServer(("127.0.0.1", free_port()), EmbeddingsHandler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()


def test_ingest_and_search_with_an_openai_compatible_embedding_endpoint(embeddings_server):
    settings = load_settings(embedding_backend="openai", embedding_model="test-embed", embedding_base_url=embeddings_server,
                             openai_api_key="sk-good", collection="remote_embeddings")
    store = PaperStore(settings)
    assert ingest([ICML_FILE], store).added == 19
    assert store.collection.metadata["embedding_model"] == "test-embed"
    assert store.collection.metadata["embedding_dim"] == DIM
    results = Retriever(store).search("low-rank KV cache compression", top_k=3, mode="dense")
    assert results[0].paper.title == "STAR-KV"  # the reversed response order was put back by index


def test_a_rejected_key_is_one_line_naming_the_setting(embeddings_server):
    settings = load_settings(embedding_backend="openai", embedding_model="test-embed", embedding_base_url=embeddings_server,
                             openai_api_key="sk-bad", max_retries=0)
    with pytest.raises(EmbeddingError) as err:
        ingest([ICML_FILE], PaperStore(settings))
    assert "AuthenticationError" in str(err.value) and "ASSISTANT_EMBEDDING_BASE_URL" in str(err.value)
