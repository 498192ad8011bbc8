"""llama-index as the integration surface, tested with real llama-index components.

- our retriever inside llama-index's own `RetrieverQueryEngine` and `CondensePlusContextChatEngine`;
- our query engine (answering with checked citations) as a llama-index engine and `QueryEngineTool`;
- llama-index LLMs answering through our pipeline: `MockLLM` (and a scripted `CustomLLM`) in unit
  tests, `OpenAILike` against the real `llama_cpp.server` in an integration test.
"""

from __future__ import annotations

import re

import pytest

pytest.importorskip("llama_index.core")

from llama_index.core.base.llms.types import CompletionResponse, LLMMetadata  # noqa: E402
from llama_index.core.bridge.pydantic import Field  # noqa: E402
from llama_index.core.chat_engine import CondensePlusContextChatEngine  # noqa: E402
from llama_index.core.llms import CustomLLM, MockLLM  # noqa: E402
from llama_index.core.llms.callbacks import llm_completion_callback  # noqa: E402
from llama_index.core.llms.mock import MockLLMWithChatMemoryOfLastCall  # noqa: E402
from llama_index.core.query_engine import RetrieverQueryEngine  # noqa: E402
from llama_index.core.schema import NodeWithScore, TextNode  # noqa: E402
from llama_index.core.tools import QueryEngineTool  # noqa: E402

from assistant.events import AnswerError  # noqa: E402
from assistant.llm import LLMError  # noqa: E402
from tests.conftest import free_port  # noqa: E402
from tests.llama_server import llama_server, missing  # noqa: E402,F401  (session fixture)
from tests.test_answering import PAPERS, ScriptedLLM  # noqa: E402
from tests.test_api import papers  # noqa: E402,F401  (fixture)

KVPRESS = PAPERS[0]["title"]


class ScriptedLlamaLLM(CustomLLM):
    """A llama-index `CustomLLM` that streams a fixed reply word by word (so markers such as ``[1, 9]``
    arrive split over chunks) and answers rewrites with `rewrite`; it records the prompts it got."""

    reply: str = "An answer [1]."
    rewrite: str = ""
    prompts: list = Field(default_factory=list)

    @property
    def metadata(self) -> LLMMetadata:
        return LLMMetadata(model_name="scripted-llama", context_window=4096, num_output=64)

    @llm_completion_callback()
    def complete(self, prompt: str, formatted: bool = False, **kwargs) -> CompletionResponse:
        self.prompts.append(prompt)
        return CompletionResponse(text=self.rewrite)

    @llm_completion_callback()
    def stream_complete(self, prompt: str, formatted: bool = False, **kwargs):
        self.prompts.append(prompt)

        def gen():
            text = ""
            for piece in re.findall(r"\S+\s*", self.reply):
                text += piece
                yield CompletionResponse(text=text, delta=piece)

        return gen()


# --- our retriever in llama-index's engines ------------------------------------------------------------

def test_retriever_nodes_are_papers_with_metadata_and_score_parts(papers):
    nodes = papers.as_retriever(top_k=2).retrieve("compress the KV cache")
    assert all(isinstance(n, NodeWithScore) and isinstance(n.node, TextNode) for n in nodes)
    top = nodes[0]
    hit = papers.search("compress the KV cache", top_k=1)[0]
    assert top.node.node_id == hit.paper.id and top.node.text == PAPERS[0]["abstract"]
    meta = top.node.metadata
    assert (meta["title"], meta["venue"], meta["year"], meta["url"]) == (KVPRESS, "ICML", 2026, PAPERS[0]["url"])
    assert meta["rank"] == 1 and meta["score"] == pytest.approx(hit.score) == top.score
    assert {"dense_similarity", "bm25_score", "authors"} <= meta.keys()
    llm_text = top.node.get_content(metadata_mode="llm")
    assert f"title: {KVPRESS}" in llm_text and "bm25_score" not in llm_text  # scores stay out of prompts


def test_retriever_applies_filters(papers):
    nodes = papers.as_retriever(venue="NeurIPS").retrieve("language models")
    assert [n.node.metadata["title"] for n in nodes] == [PAPERS[2]["title"]]


def test_retriever_inside_llama_index_retriever_query_engine(papers):
    engine = RetrieverQueryEngine.from_args(papers.as_retriever(top_k=2), llm=MockLLM())
    response = engine.query("What does KVPress do?")
    assert response.source_nodes[0].node.metadata["title"] == KVPRESS
    assert "KVPress reduces KV cache memory by 4x" in str(response)  # MockLLM echoes the prompt it got


def test_retriever_inside_llama_index_condense_plus_context_chat_engine(papers):
    engine = CondensePlusContextChatEngine.from_defaults(papers.as_retriever(top_k=1), llm=MockLLM())
    first = engine.chat("Which optimizer converges faster than AdamW?")
    assert [n.node.metadata["title"] for n in first.source_nodes] == [PAPERS[1]["title"]]
    assert "AdamZ converges 30% faster than AdamW" in first.response  # MockLLM echoes the engine's context
    second = engine.chat("And which paper compresses the KV cache?")
    assert second.source_nodes and len(engine.chat_history) == 4


# --- our query engine ---------------------------------------------------------------------------------

def test_query_engine_response_carries_checked_citations_as_source_nodes(papers):
    engine = papers.as_query_engine(llm=ScriptedLLM(["KVPress cuts memory [1]; see also [7]."]), top_k=3)
    response = engine.query("What does KVPress do?")
    assert response.response == "KVPress cuts memory [1]; see also."
    assert [n.node.metadata["title"] for n in response.source_nodes] == [KVPRESS]  # cited, not all 3 given
    assert response.source_nodes[0].node.metadata["citation"] == 1
    assert len(response.metadata["sources"]) == 3 and response.metadata["dropped_citations"] == [7]


def test_query_engine_streams_and_fills_source_nodes_at_the_end(papers):
    engine = papers.as_query_engine(llm=ScriptedLLM(["AdamZ ", "is faster [", "2]."]), streaming=True)
    response = engine.query("Which optimizer trains language models faster?")
    assert response.source_nodes == []
    chunks = list(response.response_gen)
    assert "".join(chunks) == "AdamZ is faster [2]." and len(chunks) >= 2
    assert [n.node.node_id for n in response.source_nodes] == [response.metadata["sources"][1]["id"]]


def test_query_engine_raises_a_failed_answer(papers):
    llm = ScriptedLLM(["KVPress"], fail=LLMError("the server went away", kind="connection"))
    with pytest.raises(AnswerError, match="went away") as info:
        papers.as_query_engine(llm=llm).query("What does KVPress do?")
    assert info.value.kind == "connection"


def test_query_engine_as_a_query_engine_tool(papers):
    engine = papers.as_query_engine(llm=ScriptedLLM(["BeamLess replaces beam search [1]."]))
    tool = QueryEngineTool.from_defaults(engine, name="papers", description="Answers from abstracts, cited.")
    output = tool.call("Which decoding method replaces beam search?")
    assert output.tool_name == "papers" and output.content == "BeamLess replaces beam search [1]."
    assert [n.node.metadata["title"] for n in output.raw_output.source_nodes] == [PAPERS[2]["title"]]


# --- llama-index LLMs answering through our pipeline ------------------------------------------------------

def test_mock_llm_answers_through_the_pipeline(papers):
    llm = MockLLMWithChatMemoryOfLastCall()
    answer = papers.ask("What does KVPress do?", llm=llm, top_k=2)
    assert answer.ok and answer.backend == "llama-index" and answer.model == "MockLLMWithChatMemoryOfLastCall"
    sent = [m.content for m in llm.last_chat_messages]
    assert len(sent) == 2 and "[1] " + KVPRESS in sent[1]  # our numbered sources, our prompt
    # MockLLM echoes the prompt: every [n] of it names a given source, so all are kept and mapped
    assert [c.paper.title for c in answer.citations] == [s.paper.title for s in answer.sources]


def test_llama_index_llm_gets_no_call_when_no_paper_is_relevant(papers):
    from assistant.api import PaperCollection

    gated = PaperCollection(papers.settings.model_copy(update={"min_relevance": 0.999, "min_relevance_llm": 0.999}), store=papers.store)
    llm = MockLLMWithChatMemoryOfLastCall()
    answer = gated.ask("Who won the 1998 football world cup?", llm=llm)
    assert answer.refused and answer.sources == () and answer.text.startswith("No paper in the collection")
    assert llm.last_called_chat_function == []


def test_llama_index_llm_prompt_is_packed_into_its_context_window(papers):
    from assistant.llama_index import LlamaIndexLLM

    llm = MockLLMWithChatMemoryOfLastCall()
    adapter = LlamaIndexLLM(llm, papers.settings, context_window=600, max_tokens=64)
    answer = papers.ask("Which language model methods are there?", llm=adapter, top_k=3)
    assert 1 <= len(answer.sources) < 3 and "left out to fit the context window (600 tokens)" in answer.note
    sent = sum(adapter.count_tokens(m.content) + 8 for m in llm.last_chat_messages)
    assert sent + 64 <= 600


def test_llama_index_llm_citations_are_checked_while_streaming(papers):
    llm = ScriptedLlamaLLM(reply="KVPress saves memory [1, 9]. AdamZ is faster [2]. Nothing else [12].")
    events = list(papers.stream("What does KVPress do?", llm=llm, top_k=2))
    shown = "".join(e.text for e in events if type(e).__name__ == "TextDelta")
    assert shown == "KVPress saves memory [1]. AdamZ is faster [2]. Nothing else."
    done = events[-1]
    assert type(done).__name__ == "Done" and done.model == "scripted-llama"
    cites = next(e for e in events if type(e).__name__ == "Citations")
    assert [c.n for c in cites.citations] == [1, 2] and cites.dropped == (9, 12)


def test_llama_index_llm_rewrites_follow_ups(papers):
    llm = ScriptedLlamaLLM(reply="It compresses the KV cache [1].", rewrite="How much memory does KVPress save?")
    chat = papers.chat(llm=llm)
    chat.ask("What does KVPress do?")
    follow = chat.ask("How much does it save?")
    assert follow.standalone_question == "How much memory does KVPress save?"
    assert "What does KVPress do?" in llm.prompts[1]  # the rewrite prompt holds the history


def test_openai_like_llm_that_cannot_connect_is_a_connection_error(papers):
    from llama_index.llms.openai_like import OpenAILike

    llm = OpenAILike(model="none", api_base=f"http://127.0.0.1:{free_port()}/v1", api_key="none",
                     is_chat_model=True, max_retries=0, timeout=5)
    answer = papers.ask("What does KVPress do?", llm=llm)
    assert answer.status == "error" and answer.error_kind == "connection", answer
    assert "cannot connect" in answer.error and "\n" not in answer.error


@pytest.mark.integration
def test_openai_like_llm_answers_through_the_pipeline_on_a_llama_cpp_server(llama_server, bundled_store):  # noqa: F811
    """One short answer (one source, 32 tokens: the server is slow on a busy 2-core machine). The 135M
    model writes poor text, so this checks what the pipeline guarantees: the answer streams through
    llama-index's OpenAILike, names the model, and cites only the source it was given."""
    from llama_index.llms.openai_like import OpenAILike

    from assistant.api import PaperCollection

    llm = OpenAILike(model=llama_server.model, api_base=llama_server.url, api_key="none", is_chat_model=True,
                     context_window=llama_server.context_window, max_tokens=32, temperature=0.0, timeout=300)
    papers = PaperCollection(bundled_store.settings, store=bundled_store)
    answer = papers.ask("What speedup does WinQ give to quantization-aware training?", llm=llm, top_k=1)
    assert answer.ok, answer.error
    assert answer.backend == "llama-index" and answer.model == llama_server.model and answer.text
    assert [s.paper.title for s in answer.sources] == ["WinQ"]
    assert {c.n for c in answer.citations} <= {1}
    assert set(re.findall(r"\[(\d+)\]", answer.text)) <= {"1"}  # no marker naming a source not given
