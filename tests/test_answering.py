"""Answering: citation checking, context packing, refusals, follow-ups, cancel, conversation turns.

Unit tests use a scripted fake LLM and the fake embedder on a real Chroma store; the extractive smoke
test and the `ask` command run on the bundled collection with the real ONNX model (integration).
"""

from __future__ import annotations

import json
import threading

import pytest

from assistant.events import Citations, Done, Error, Sources, TextDelta
from assistant.llm import Chunk, LLMError

PAPERS = [
    {"id": "alpha", "title": "KVPress: compressing the KV cache",
     "abstract": "We compress the KV cache of large language models by low-rank projection. KVPress reduces "
                 "KV cache memory by 4x with no loss in accuracy.", "venue": "ICML", "year": 2026,
     "url": "https://example.org/kvpress"},
    {"id": "beta", "title": "AdamZ: an optimizer for language model training",
     "abstract": "AdamZ is an optimizer for training large language models. AdamZ converges 30% faster than "
                 "AdamW on GPT-2 pretraining.", "venue": "ICML", "year": 2025},
    {"id": "gamma", "title": "BeamLess decoding",
     "abstract": "BeamLess is a decoding method that replaces beam search with entropy-guided branching. "
                 "BeamLess improves code generation accuracy.", "venue": "NeurIPS", "year": 2024},
]


class ScriptedLLM:
    """A fake LLM that streams scripted chunks and records what it was asked."""

    name = "scripted"
    model = "scripted-1"
    notice = ""
    can_chat = True

    def __init__(self, chunks=("Answer [1].",), rewrite="", fail: LLMError | None = None,
                 context_window: int | None = 8192, max_tokens: int = 256, on_chunk=None):
        self.chunks = list(chunks)
        self.rewrite = rewrite
        self.fail = fail
        self.context_window = context_window
        self.max_tokens = max_tokens
        self.on_chunk = on_chunk
        self.requests = []
        self.completions = []

    def count_tokens(self, text: str) -> int:
        return len(text.split())

    def stream(self, request, cancel=None):
        self.requests.append(request)
        for i, c in enumerate(self.chunks):
            if self.on_chunk:
                self.on_chunk(i)
            yield Chunk(c)
        if self.fail:
            raise self.fail
        yield Chunk("", {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15})

    def complete(self, messages, max_tokens=128):
        self.completions.append(messages)
        return self.rewrite


@pytest.fixture
def store(fake_store, tmp_path):
    from assistant.store.ingest import ingest

    f = tmp_path / "papers.jsonl"
    f.write_text("\n".join(json.dumps(p) for p in PAPERS) + "\n")
    report = ingest([f], fake_store)
    assert report.added == 3
    return fake_store


@pytest.fixture
def open_settings(settings):
    """Settings with the relevance gate off (the fake embedder's similarities mean little)."""
    return settings.model_copy(update={"min_relevance": 0.0, "min_relevance_llm": 0.0})


def run(question, store, llm, settings, **kw):
    from assistant.answering import answer
    from assistant.retrieval import Retriever

    events = answer(question, retriever=Retriever(store), llm=llm, settings=settings, **kw)
    conversation = kw.get("conversation")  # answer() reads it; the caller records the turn
    return list(events if conversation is None else conversation.record(events, question))


def kinds(events):
    return [type(e).__name__ for e in events]


# --- citations ----------------------------------------------------------------------------------

def test_model_citing_2_and_7_with_three_sources_keeps_2_and_drops_7(store, open_settings):
    llm = ScriptedLLM(["AdamZ trains ", "faster [", "2]. It also beats everything [7", "]."])
    events = run("Which optimizer trains language models faster?", store, llm, open_settings, top_k=3)
    sources = events[0]
    assert isinstance(sources, Sources) and len(sources.sources) == 3
    cites = next(e for e in events if isinstance(e, Citations))
    done = events[-1]
    assert isinstance(done, Done)
    assert [c.n for c in cites.citations] == [2]
    assert cites.citations[0].paper.id == sources.sources[1].paper.id
    assert cites.dropped == (7,)
    assert "[7]" not in done.answer and "[2]" in done.answer
    assert done.answer == "AdamZ trains faster [2]. It also beats everything."
    # what was streamed is what the user sees in the end
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == done.answer
    assert cites.citations[0].sentences == ("AdamZ trains faster [2].",)


@pytest.mark.parametrize("raw, n, clean, cited, dropped", [
    ("a [2, 7] b", 3, "a [2] b", [2], [7]),
    ("a [2][3].", 3, "a [2][3].", [2, 3], []),
    ("a [1-3].", 3, "a [1, 2, 3].", [1, 2, 3], []),
    ("claim [9].", 3, "claim.", [], [9]),
    ("claim [9] and more", 3, "claim and more", [], [9]),
    ("see [a] and [x1]", 3, "see [a] and [x1]", [], []),
    ("[0] zero", 2, "zero", [], [0]),
    # a quoted sentence ending in a plural noun cites; "Algorithm [1]" refers to the text
    ("It outperforms baseline MARL algorithms [1].", 1, "It outperforms baseline MARL algorithms [1].", [1], []),
    ("It converges in fewer steps [2].", 2, "It converges in fewer steps [2].", [2], []),
    ("as in Algorithm [1].", 1, "as in Algorithm [1].", [], []),
])
def test_check_citations(raw, n, clean, cited, dropped):
    from assistant.answering import check_citations

    assert check_citations(raw, n) == (clean, cited, dropped)


CITATION_FORMS = [  # (what the model wrote, 3 sources) -> (what is shown, cited, dropped)
    # forms models write for a citation: normalised to [n] and checked
    ("It works 【1】 and 【7】.", "It works [1].", [1], [7]),
    ("It works [1，7].", "It works [1].", [1], [7]),
    ("It works [1, 2, and 7].", "It works [1, 2].", [1, 2], [7]),
    ("It works [1、2].", "It works [1, 2].", [1, 2], []),
    ("It works [^7].", "It works.", [], [7]),
    ("It works [^1][^7].", "It works [1].", [1], [7]),
    ("It works [Source 7].", "It works.", [], [7]),
    ("It works [Source 2].", "It works [2].", [2], []),
    ("It works [Sources 1 and 3].", "It works [1, 3].", [1, 3], []),
    ("It cites [Ref. 2; Ref. 9].", "It cites [2].", [2], [9]),
    ("It works 【4:0†source】.", "It works.", [], [4]),
    ("It works 【2:0†source】.", "It works [2].", [2], []),
    ("It works ［１］.", "It works [1].", [1], []),
    ("A [1-3] B", "A [1, 2, 3] B", [1, 2, 3], []),
    # a removed marker takes the connective that joined it, not the words around it
    ("It works [1] and [9].", "It works [1].", [1], [9]),
    ("It works and [9].", "It works.", [], [9]),
    ("It works [9], [1].", "It works [1].", [1], [9]),
    ("It works [9] and more", "It works and more", [], [9]),
    ("It is a [9].", "It is a.", [], [9]),
    ("brand [9].", "brand.", [], [9]),
    # bracketed text that is not a citation: left as written
    ("[00] x", "[00] x", [], []),
    ("as in Eq. [3] and Eq. [9].", "as in Eq. [3] and Eq. [9].", [], []),
    ("see Table [2] and Fig. [12]", "see Table [2] and Fig. [12]", [], []),
    ("a value in [0, 1] here", "a value in [0, 1] here", [], []),
    ("a range [0.5, 2] here", "a range [0.5, 2] here", [], []),
    ("sizes [16, 32, 64] here", "sizes [16, 32, 64] here", [], []),
    ("with x ∈ [1, 5].", "with x ∈ [1, 5].", [], []),
    ("the vector = [1, 5].", "the vector = [1, 5].", [], []),
    ("claim [2020] here", "claim [2020] here", [], []),
    ("[Smith et al., 2020] says", "[Smith et al., 2020] says", [], []),
    ("see [a], [x1] and [ ] 【摘要】", "see [a], [x1] and [ ] 【摘要】", [], []),
]


@pytest.mark.parametrize("raw, clean, cited, dropped", CITATION_FORMS)
def test_citation_forms_are_normalised_and_checked(raw, clean, cited, dropped):
    from assistant.answering import CitationChecker, check_citations
    from assistant.text import markers_in

    assert check_citations(raw, 3) == (clean, cited, dropped)
    for size in (1, 2, 5):  # streamed in pieces, the same text comes out
        checker = CitationChecker(3)
        shown = [checker.feed(raw[i:i + size]) for i in range(0, len(raw), size)] + [checker.flush()]
        assert "".join(shown) == clean and checker.cited == cited and checker.dropped == dropped
    if cited and "0" not in clean:  # the chat app finds the normalised markers
        assert markers_in(clean) == cited


def test_a_partial_citation_form_is_held_back_until_complete():
    from assistant.answering import CitationChecker

    c = CitationChecker(3)
    shown = [c.feed(x) for x in ["Fast ", "【", "4:0", "†sou", "rce】", " and [", "Source", " 2", "]", "."]]
    assert shown[1:4] == ["", "", ""] and shown[5:8] == ["", "", ""]
    assert "".join(shown) + c.flush() == "Fast [2]." and c.dropped == [4]


def test_citation_checker_holds_back_a_marker_split_across_chunks():
    from assistant.answering import CitationChecker

    c = CitationChecker(2)
    shown = [c.feed(x) for x in ["Result ", "[", "1", ",", " 5", "] done [2"]] + [c.feed("]."), c.flush()]
    assert "".join(shown) == "Result [1] done [2]."
    assert shown[1:4] == ["", "", ""]  # nothing half-made is shown
    assert c.cited == [1, 2] and c.dropped == [5]


# --- refusals -------------------------------------------------------------------------------------

def test_model_saying_the_abstracts_do_not_say_is_a_refusal(store, open_settings):
    from assistant.prompts import CANNOT_ANSWER

    events = run("What GPU trained AdamZ?", store, ScriptedLLM([CANNOT_ANSWER]), open_settings)
    done = events[-1]
    assert isinstance(done, Done) and done.refused and done.answer == CANNOT_ANSWER


def test_nothing_relevant_gives_no_sources_and_never_calls_the_model(store, settings):
    from assistant.prompts import NO_RELEVANT_PAPER

    strict = settings.model_copy(update={"min_relevance": 0.999, "min_relevance_llm": 0.999})
    llm = ScriptedLLM(["Invented answer [1]."])
    events = run("how do I bake sourdough bread?", store, llm, strict)
    assert kinds(events) == ["Sources", "TextDelta", "Citations", "Done"]
    assert events[0].sources == () and "similarity" in events[0].note
    assert events[-1].refused and events[-1].answer == NO_RELEVANT_PAPER
    assert events[2].citations == ()
    assert llm.requests == []


def test_the_relevance_note_never_shows_a_relevance_equal_to_the_threshold(store, settings):
    """The note's figure is rounded down: a relevance just under the threshold must not read "0.27 < 0.27"."""
    from assistant.relevance import judge
    from assistant.retrieval import Retriever

    retriever = Retriever(store)
    results = retriever.search("how do I bake sourdough bread?", top_k=3)
    best = max(e.score for e in judge("how do I bake sourdough bread?", results, retriever).evidence)
    j = judge("how do I bake sourdough bread?", results, retriever, threshold=best + 0.0001)
    assert not j.relevant and f"< {best + 0.0001:.2f}" in j.note
    shown = float(j.note.split("best relevance ")[1].split(" <")[0])
    assert shown <= best


def test_a_named_method_passes_the_relevance_gate(store, settings):
    strict = settings.model_copy(update={"min_relevance": 0.999, "min_relevance_llm": 0.999})
    events = run("What does KVPress do?", store, ScriptedLLM(["It compresses [1]."]), strict)
    assert events[0].sources and events[0].sources[0].paper.title == PAPERS[0]["title"]
    assert not events[-1].refused


def test_filters_matching_nothing_are_named(store, open_settings):
    from assistant.retrieval import Filters

    events = run("optimizer", store, ScriptedLLM(), open_settings, filters=Filters(venue="CVPR"))
    assert events[0].sources == () and "venue=CVPR" in events[0].note


# --- context packing ------------------------------------------------------------------------------

def test_sources_are_packed_into_the_context_window_dropping_the_lowest_ranked(store, open_settings):
    from assistant.answering import prompt_tokens

    probe = ScriptedLLM(context_window=100_000)
    full = run("language models", store, probe, open_settings, top_k=3)
    all_ids = [s.paper.id for s in full[0].sources]
    base = prompt_tokens(probe.requests[0].messages, probe.count_tokens) - sum(
        len(s.paper.abstract.split()) + len(s.paper.title.split()) + 4 for s in full[0].sources)
    # room for roughly two of the three abstracts
    window = base + 64 + 32 + 2 * 40
    llm = ScriptedLLM(context_window=window, max_tokens=64)
    events = run("language models", store, llm, open_settings, top_k=3)
    kept = [s.paper.id for s in events[0].sources]
    assert 1 <= len(kept) < 3 and kept == all_ids[: len(kept)]
    assert "left out" in events[0].note
    used = prompt_tokens(llm.requests[0].messages, llm.count_tokens)
    assert used + llm.max_tokens <= window


def test_a_window_too_small_for_any_source_is_a_clear_error(store, open_settings):
    events = run("language models", store, ScriptedLLM(context_window=300, max_tokens=290), open_settings)
    assert isinstance(events[-1], Error) and events[-1].kind == "context_length"
    assert "ASSISTANT_CONTEXT_WINDOW" in events[-1].message


# --- failures, cancel, conversation ---------------------------------------------------------------

def test_an_llm_error_after_some_text_keeps_the_partial_answer(store, open_settings):
    from assistant.conversation import Conversation

    conv = Conversation()
    llm = ScriptedLLM(["KVPress compresses", " the cache [1]"], fail=LLMError("connection lost", "connection"))
    events = run("What does KVPress do?", store, llm, open_settings, conversation=conv)
    err = events[-1]
    assert isinstance(err, Error) and err.kind == "connection" and err.partial == "KVPress compresses the cache [1]"
    assert conv.turns[-1].status == "partial" and conv.turns[-1].answer == err.partial


def test_cancel_stops_the_stream_and_the_turn_stays_marked_stopped(store, open_settings):
    from assistant.conversation import Conversation

    cancel = threading.Event()
    conv = Conversation()
    llm = ScriptedLLM(["one ", "two ", "three ", "four "], on_chunk=lambda i: i == 2 and cancel.set())
    events = run("What does KVPress do?", store, llm, open_settings, conversation=conv, cancel=cancel)
    assert isinstance(events[-1], Error) and events[-1].kind == "cancelled"
    assert "three" not in "".join(e.text for e in events if isinstance(e, TextDelta))
    assert conv.turns[-1].status == "stopped" and conv.turns[-1].answer == "one two"


def test_a_consumer_that_stops_reading_leaves_a_stopped_turn(store, open_settings):
    from assistant.answering import answer
    from assistant.conversation import Conversation
    from assistant.retrieval import Retriever

    conv = Conversation()
    gen = conv.record(answer("What does KVPress do?", retriever=Retriever(store), llm=ScriptedLLM(["a ", "b ", "c"]),
                             settings=open_settings, conversation=conv), "What does KVPress do?")
    for ev in gen:
        if isinstance(ev, TextDelta):
            break
    gen.close()
    assert len(conv.turns) == 1 and conv.turns[0].status == "stopped" and conv.turns[0].answer == "a"


def test_answer_reads_the_conversation_and_leaves_it_unchanged(store, open_settings):
    from assistant.answering import answer
    from assistant.conversation import Conversation, Turn
    from assistant.events import Answer
    from assistant.retrieval import Retriever

    conv = Conversation([Turn("What does KVPress do?", answer="It compresses the KV cache [1].")])
    before = conv.to_dict()
    llm = ScriptedLLM(["KVPress reduces memory by 4x [1]."], rewrite="How much memory does KVPress save?")
    events = list(answer("and how much memory does it save?", retriever=Retriever(store), llm=llm,
                         settings=open_settings, conversation=conv))
    assert events[0].question == "How much memory does KVPress save?"  # the history was read
    assert conv.to_dict() == before and len(conv) == 1  # and not changed
    turn = Turn.from_answer(Answer.from_events(events, "and how much memory does it save?"))
    assert turn.status == "complete" and turn.standalone_question == "How much memory does KVPress save?"
    assert turn.citations[0].paper.title == PAPERS[0]["title"] and turn.backend == "scripted"


def test_follow_up_is_rewritten_only_when_there_is_history(store, open_settings):
    from assistant.conversation import Conversation

    conv = Conversation()
    llm = ScriptedLLM(["KVPress reduces memory by 4x [1]."], rewrite="How much memory does KVPress save?")
    first = run("What does KVPress do?", store, llm, open_settings, conversation=conv)
    assert llm.completions == [] and first[0].question == "What does KVPress do?"
    second = run("and how much memory does it save?", store, llm, open_settings, conversation=conv)
    assert len(llm.completions) == 1
    prompt = llm.completions[0][0]["content"]
    assert "What does KVPress do?" in prompt and "and how much memory does it save?" in prompt
    assert second[0].question == "How much memory does KVPress save?"
    assert second[0].sources[0].paper.title == PAPERS[0]["title"]
    assert [t.status for t in conv.turns] == ["complete", "complete"]
    assert conv.turns[1].standalone_question == "How much memory does KVPress save?"


def test_extractive_style_rewrite_names_the_previous_subject():
    from assistant.answering import deterministic_rewrite
    from assistant.conversation import Conversation, Turn

    conv = Conversation([Turn("How much does STAR-KV compress the KV cache?")])
    assert deterministic_rewrite("and how much faster is it?", conv) == "and how much faster is STAR-KV?"
    assert deterministic_rewrite("What about WinQ?", conv) == "What about WinQ?"


# --- follow-ups: which questions need their history, and how they are rewritten ------------------------

@pytest.mark.parametrize("question", [
    "What is quantization?",
    "Which paper explains the slow convergence of quantization-aware training?",
    "Is there a paper on deduplicating pretraining corpora with MinHash?",
    "Which papers study optimizers for LLM training, and what do they improve?",  # "they" = the papers
    "What is RLIF, and which paper builds on it?",  # "it" = RLIF
    "Is it possible to compress the KV cache without retraining?",  # "it" points at nothing
    "What about WinQ?",  # names its new subject
    "OK. Is there anything on alignment-aware decoding, then?",
    "What is the 'Data Wall' that one of the papers mentions?",  # "that" is a relative pronoun
    "I want something cheaper than beam search but better than greedy decoding. Is there a method for that?",
    "Between EAPO and PCR, does the first one use expert guidance?",  # ordinal resolved in the question
    "EAPO 在哪些数学竞赛基准上进行了评测？",
    "Which layer lets graph networks act on vectors so they can reason about geometry?",  # they = networks
    "Which abstracts link to a GitHub repository with their code?",
    "But is there a paper on protein folding?",  # a new topic search, though it opens with "but"
    "And what about WinQ?",
    "How long does it take to train a diffusion language model on a single GPU?",  # "it takes to": expletive
    "Which papers release their code?",  # a study detail asked of the collection
    "How is training made stable?",  # a topic beyond the detail words
    "I need a decoder that searches less where the model is sure. Is there such a method?",
    "Is it true that quantization slows down training?",  # "that" introduces a clause
    "Which paper proposes a benchmark that LLMs generate themselves?",
    "Which optimizers use orthogonalization?",
    "What about the KV cache paper, how fast is its attention?",  # a new subject, described
    "What about NorMuon?",
    "How do the models trained with RL compare on AIME?",  # the generic noun is said which ("trained with RL")
    "Do the authors of NorMuon release code?",
    "Is there a benchmark that compares LLMs with humans?",
    "What does KV cache compression do and how much memory does it save?",  # "it": the earlier clause's topic
    # the antecedent is in the question: an earlier clause, the same noun said before, a joined subject
    "Which paper folds two signals into one score, and what is that score called?",
    "Does a student distilled from a larger teacher still use that teacher at inference?",
    "How do STAR-KV and KV cache quantization differ in what they store?",
    "For the web-data rephrasing work, which model sizes do they pretrain?",  # "they": that work's authors
    "Is there a way to combine fine-tuned LLMs into one by averaging their weights?",  # "LLMs" is plural
    "Is there a paper that gives each layer its own learning rate?",  # "its own": bound in the clause
    "Has anyone in this collection studied speculative decoding?",  # "this collection": the one searched
    "What do the papers about data selection have in common?",  # "the papers about ...": said which
    "Why do gradients for new skills conflict with those for old ones?",  # "those for": a noun before it
    "有没有论文用低秩分解来压缩键值缓存？这个方法能快多少？",  # 这个方法: the method the first sentence describes
    # "What about <a topic described in full>, any papers on that?": a new search, not a follow-up
    "What about sparse mixture-of-experts routing collapsing during pretraining, any papers on that?",
    "And what about watermarking generated text, is there anything?",
    "Is there a paper that makes beam search cheaper and proves a bound for it?",  # "it": beam search
    # "that one" is the paper the clause before the dash describes (was glued to the paper under discussion)
    "There's also a paper on low-rank cache compression — how does that one work?",
    "I heard of an optimizer that normalises each neuron – how much does that one save?",
    # "and in <a scene>," before a clause naming its subject (round 13: glued to the paper before)
    "And in the distributed analysis, what determines how fast decentralized DPO converges?",
    "And in the quantization work, how does WinQ pick its windows?",
    # "its" after an auxiliary names the paper of the clause before the dash, not an earlier question's subject
    "what about the paper on gradient conflicts in GRPO — is its approach Bayesian?",
    # "its" names the paper the question describes before it (fresh21 chats: glued to the paper cited last)
    "And the one that rewrites data: where were its recycled tokens sampled from?",
    "The one that works at decoding time, does it need any special training?",
    "Got it. And is there anything on Shampoo or other Kronecker-factored preconditioners?",  # an acknowledgement
    # "they": the authors of the paper the question describes (fresh22 chats: glued to the paper cited last)
    "what about the frontend game evaluation one, how big is the coder model they trained",
    # "its" names the approach the question describes by its topic (fresh24 chats: glued to NorMuon)
    "And the rephrasing approach, how big is its rephraser?",
    "the cache compression method: what is its speedup?",
    # "that one" is the paper described before the comma (round 21, a new user's trial: glued to the paper before)
    "what about the paper on residual streams, does that one also fix training instability?",
    "and the one on spiking models, can that method avoid floating point math?",
    # "that" before a verb and its object opens a relative clause (fresh42 chats: read as "on that", glued to NorMuon)
    "ok other question. any work on choosing which data to pretrain on that takes the optimizer into account?",
    "Which papers release code?",  # the collection's papers: not one study's detail
])
def test_a_self_contained_question_does_not_need_history(question):
    from assistant.answering import needs_history

    assert not needs_history(question)


@pytest.mark.parametrize("question", [
    # an "it" holding the place of the clause after the adjective (expletive)
    "Is it possible to run WinQ on phones?",
    "is it worth using NorMuon for small models?",
    "Is it true that EDEN needs no training?",
    # a paper described by its kind of contribution ("the ... benchmark / optimizer") before the question about it
    # (round 23, fresh35 chats: glued to the quantization paper discussed before)
    "and the abstract reasoning benchmark - how does it avoid hallucinated tasks?",
    "what about the muon-based optimizer, how much faster is it?",
])
def test_a_question_naming_its_subject_in_words_needs_no_history(question):
    from assistant.answering import needs_history

    assert not needs_history(question)


@pytest.mark.parametrize("question, needs", [
    # a scene ("and for X,") before a search of its own (round 24, fresh36 chats: glued to the paper before)
    ("and for vision transformers, is there a pruning method?", False),
    ("and for the optimizer state, is there a compression approach?", False),
    # before a search pointing back ("one", "it"), or a question about the paper, it is a fragment
    ("and for code, is there one too?", True),
    ("and on math benchmarks, is there any paper that beats it?", True),
    ("And for code, what is the speedup?", True),
])
def test_a_scene_before_a_search_of_its_own_needs_no_history(question, needs):
    from assistant.answering import needs_history

    assert needs_history(question) is needs


@pytest.mark.parametrize("question", [
    "How much faster is it?",
    "Does it also work for code generation?",
    "Which datasets did they evaluate on?",
    "Which GPUs did they train on?",  # "did they": the authors, not the GPUs
    "How many parameters did their largest model have?",
    "Who proposed the second one?",
    "Does the first one also help outside math?",
    "Is the latter faster?",
    "And the previous approach, how big is its model?",  # a place in the conversation, not a topic
    "the latter method: what is its speedup?",
    "How does that paper respond to it?",
    "Do these methods need retraining?",
    "Who proposed that?",
    "And on GSM8K?",
    "And for code, what is the speedup?",  # a clause of its own, but naming no subject
    "What about for code generation?",
    "How large are the gains, in numbers?",  # no subject at all
    "它快多少？",
    "And does accuracy suffer?",  # opens with "and": continues the question before
    # words of a result's change name no subject (fresh43 chats: "does accuracy suffer" answered from another paper)
    "does accuracy suffer",
    "accuracy hit?",
    "But is the speedup the same at larger scale?",
    "How long does training take?",  # a study's detail, no study named
    "Is the code released?",
    "is the code released somewhere?",  # a pro-form names no subject (fresh52 chats: searched as a topic, refused)
    "What hardware was used?",
    "How much extra compute does that selection cost?",
    "Which specific models?",  # no verb: a fragment
    "whats the model they trained called",  # "whats" typed without its apostrophe is no plural noun for "they"
    "whats the alpha thing about",  # a thing the conversation mentioned, named by a word of it
    "github link?",  # a study's detail, no study named
    "What about larger models?",
    "Do these gains hold at larger scale?",
    "How do the models cope with tasks in more dimensions?",  # "the models": which ones is not said
    "Does the method need retraining?",
    "How much compute overhead does it add?",  # "compute overhead" is what is asked, not what "it" names
    "Which Transformer operations does it support?",
    "And the other one, what does it quantize?",
    # "it" after a preposition is not the noun phrase it belongs to: "a guarantee for it" is no guarantee for itself
    "Is there any convergence proof for it?",
    "What guarantees exist for it?",
    "Are there ablations of the loss for it?",
    "What about vision transformers?",  # a domain without a search: asks the paper under discussion
    "Did they put the model weights on Hugging Face?",  # a released artefact: a study's detail
    "Are the checkpoints public?",
    # "their" after a preposition is not the plural noun phrase it belongs to: the ingredients are not the owners
    "What are the two ingredients of their algorithm?",
    "What are the limitations of their approach?",
    # "that one" after an auxiliary is no relative pronoun (round 21, a new user's trial: searched alone, refused)
    "can that one also be used to get rid of toxic stuff in the corpus",
    "would that method work for code?",
    # "is it better ...?" with no clause after the adjective: "it" is the paper, not the clause's placeholder (round 23,
    # fresh35 chats: "is it better than grpo?" was searched alone and answered from another paper)
    "is it better than grpo?",
    "Is it better?",
    # "is there" asking for a study's detail, not for papers (fresh42 chats: searched as a topic, "No paper ...")
    "is there a code link",
    "any code?",
    # "they" doing what researchers do is the authors, not the plural noun before it (fresh42 chats)
    "how many parameters was the biggest model they trained",
])
def test_an_anaphoric_question_needs_history(question):
    from assistant.answering import needs_history

    assert needs_history(question)


def _turn(question, cited=(), standalone=""):
    from assistant.conversation import Turn
    from assistant.events import Citation
    from assistant.store.paper import Paper

    return Turn(question, standalone_question=standalone or question, answer="…",
                citations=tuple(Citation(i, Paper(abstract="", title=t, id=f"p{i}"))
                                for i, t in enumerate(cited, start=1)))


@pytest.mark.parametrize("history, question, rewritten", [
    # "that one" is the paper whole; "Does that work ...?" keeps its verb (fresh19 chats: "does EDEN one also ...")
    ([_turn("Which of them uses the model's uncertainty?", ["EDEN"])], "does that one also work on code?",
     "does EDEN also work on code?"),
    ([_turn("Which of them uses the model's uncertainty?", ["EDEN"])], "Does that work for image models?",
     "Does EDEN work for image models?"),
    # the subject comes from the paper the answer cited when the user named none ("KV" is no name)
    ([_turn("Is there work on shrinking the KV cache?", ["STAR-KV"])], "How much faster is it?",
     "How much faster is STAR-KV?"),
    ([_turn("Is there work on shrinking the KV cache?", ["STAR-KV"]), _turn("How much faster is it?", ["STAR-KV"],
      "How much faster is STAR-KV?")], "Does it also work for code?", "Does STAR-KV also work for code?"),
    # ordinals count through the names in the order the user gave them, not the order of citation
    ([_turn("How do EAPO and PCR differ?", ["PCR", "EAPO"])], "Who proposed the second one?", "Who proposed PCR?"),
    ([_turn("How do EAPO and PCR differ?", ["PCR", "EAPO"]), _turn("Who proposed the second one?", ["PCR"],
      "Who proposed PCR?")], "Does the first one also help outside math?", "Does EAPO also help outside math?"),
    ([_turn("Compare WinQ with NorMuon.", ["NorMuon", "WinQ"])], "Is the former faster?", "Is WinQ faster?"),
    # a later turn about one of the listed papers does not replace the list "the first one" counts through
    ([_turn("Which two papers build on DPO?", ["DPO-dist", "AAD"]), _turn("Does the second one need training?",
      ["AAD"], "Does AAD need training?")], "And the first one: does it converge?",
     "And DPO-dist: does it converge?"),
    # "it" in the ordinal's question is the paper the ordinal named, not the one the last turn was about (a new user's
    # trial, round 26: "how about AAD, does EDEN beat beam search?")
    ([_turn("Which papers are about decoding?", ["AAD", "EDEN", "DiffuSearch"]),
      _turn("tell me more about the second one", ["EDEN"], "tell me more about EDEN")],
     "how about the first one, does it beat beam search?", "how about AAD, does it beat beam search?"),
    # an ordinal before a dash (fresh43 chats: "the first two - what speedups" was a new question, STAR-KV alone)
    ([_turn("Which papers compress the KV cache or quantize?", ["STAR-KV", "WinQ", "ANN-to-SNN"])],
     "the first two - what speedups", "STAR-KV and WinQ - what speedups"),
    ([_turn("Which papers compress the KV cache or quantize?", ["STAR-KV", "WinQ", "ANN-to-SNN"])],
     "the second - does it need retraining?", "WinQ - does it need retraining?"),
    # an ordinal in another language (a new user's trial, round 35: searched on its own and refused)
    ([_turn("which papers do quantization?", ["WinQ", "STAR-KV"])], "Und welche Bitbreiten testet die erste Methode?",
     "Und welche Bitbreiten testet WinQ?"),
    ([_turn("which papers do quantization?", ["WinQ", "STAR-KV"])], "Et la deuxième, quelle compression atteint-elle ?",
     "Et STAR-KV, quelle compression atteint-elle ?"),
    ([_turn("which papers do quantization?", ["WinQ", "STAR-KV"])], "¿Y el último método, cuánto acelera?",
     "¿Y STAR-KV, cuánto acelera?"),
    # one paper per turn: "the first one" is the first paper the conversation found
    ([_turn("Which paper stabilises GRPO?", ["PCR"]), _turn("Which paper reweights tokens by rank?", ["RankTuner"])],
     "What does the first one use instead of projection?", "What does PCR use instead of projection?"),
    # a follow-up that cited nothing is about the subject its rewrite added, not about the names it asked of it
    ([_turn("Is there a method where a policy consults external experts?", ["EAPO"]),
      _turn("Did they put the weights on Hugging Face?", [], "Did they put the weights on Hugging Face? (EAPO)")],
     "Are the checkpoints public?", "Are the checkpoints public? (EAPO)"),
    # "which of them": a choice among every paper the last answer cited, named in place
    ([_turn("Which papers report results on AIME?", ["DiffuSearch", "EAPO"])], "Which of them also reports GPQA?",
     "Which of DiffuSearch and EAPO also reports GPQA?"),
    # a demonstrative before any noun points back, at what the last question described: its words go along
    ([_turn("Is there a paper that picks pretraining data with the optimizer?", ["OPUS"])],
     "How much extra compute does that selection cost?",
     "How much extra compute does that selection cost? (OPUS: Is there a paper that picks pretraining data with the "
     "optimizer)"),
    ([_turn("Which work lets a reasoning model show intermediate responses while it is still thinking?",
            ["PLAINTAIN"])], "What do they call that paradigm?",
     "What do they call that paradigm? (PLAINTAIN: Which work lets a reasoning model show intermediate responses "
     "while it is still thinking)"),
    # papers described, not named: "the second one" is the second description, not the one paper cited
    ([_turn("Two papers caught my eye: the one that recycles web data with a rephraser, and the one that converts "
            "LLMs into spiking networks. What does each do?", ["RePro"])],
     "Does the second one require retraining the model?",
     "Does the one that converts LLMs into spiking networks require retraining the model?"),
    # "it" after the question's own noun phrase still points back
    ([_turn("Is there a paper that picks pretraining data with the optimizer?", ["OPUS"])],
     "How much compute overhead does it add?", "How much compute overhead does OPUS add?"),
    # "the other one": of the two papers, the one the last answer did not cite
    ([_turn("Compare STAR-KV and WinQ.", ["STAR-KV", "WinQ"]), _turn("Which one is faster?", ["STAR-KV"],
      "Which one is faster? (STAR-KV and WinQ)")], "And the other one, what does it quantize?",
     "And WinQ, what does it quantize?"),
    # a generic noun with nothing saying which is the subject of the question: the paper under discussion
    ([_turn("Is there a benchmark that compares LLMs with humans on abstract reasoning?", ["A²RBench"])],
     "How do the models cope with tasks in more dimensions?",
     "How do the models cope with tasks in more dimensions? (A²RBench)"),
    # a study detail with no study named is about the paper under discussion
    ([_turn("Which paper speeds up quantization-aware training?", ["WinQ"])], "How long does training take?",
     "How long does training take? (WinQ)"),
    # without names in the question, the papers in the order the answer cited them
    ([_turn("Which papers are about optimizers?", ["NorMuon", "WinQ"])], "Who proposed the second one?",
     "Who proposed WinQ?"),
    # "that paper" is the cited paper; "it" the term the user quoted
    ([_turn("What is the 'Data Wall' that one of the papers mentions?", ["OPUS"])],
     "How does that paper respond to it?", "How does OPUS respond to 'Data Wall'?"),
    ([_turn("What is the 'Data Wall' that one of the papers mentions?")], "How does that paper respond to it?",
     "How does the paper on 'Data Wall' respond to it?"),  # nothing cited: the term, once
    ([_turn("Which paper builds on Hyper-Connections?", ["mHC"])], "How many parameters did their largest model have?",
     "How many parameters did mHC's largest model have?"),
    # nothing to substitute: the subject in brackets
    ([_turn("Is there work on shrinking the KV cache?", ["STAR-KV"])], "And on long documents?",
     "And on long documents? (STAR-KV)"),
    # a new, self-contained question is never glued to the old topic
    ([_turn("Is there work on shrinking the KV cache?", ["STAR-KV"])],
     "Which decoding method approximates beam search with fewer expansions?",
     "Which decoding method approximates beam search with fewer expansions?"),
    ([_turn("What is NorMuon?", ["NorMuon"])], "Is there a paper on differential privacy for federated learning?",
     "Is there a paper on differential privacy for federated learning?"),
    # the subject is the paper the answer cited, not a name the user gave that is only part of its name
    ([_turn("Is there an optimizer that builds on Muon?", ["NorMuon"])], "How much faster is it?",
     "How much faster is NorMuon?"),
    ([_turn("Is there an optimizer that builds on Muon?", ["NorMuon"])], "Is its memory use lower than Muon's?",
     "Is NorMuon's memory use lower than Muon's?"),
    # "Does that work ...?": "work" is the verb, so only "that" is replaced
    ([_turn("Is there a data selection method that looks at the optimizer?", ["OPUS"])],
     "Does that work for speech models?", "Does OPUS work for speech models?"),
    # "it" inside the noun phrase a preposition belongs to points back to the paper under discussion
    ([_turn("Which decoding method spends more compute on uncertain tokens?", ["EDEN"])],
     "Is there any convergence proof for it?", "Is there any convergence proof for EDEN?"),
    # a "What about ..." that describes a new topic and searches for it is not glued to the old one
    ([_turn("Is there work on stabilizing GRPO?", ["PCR"]), _turn("How do they model the gradients?", ["PCR"],
      "How do they model the gradients? (PCR)")],
     "What about sparse mixture-of-experts routing collapsing during pretraining, any papers on that?",
     "What about sparse mixture-of-experts routing collapsing during pretraining, any papers on that?"),
    # a chain of follow-ups without a subject names the first question once, not nested brackets
    ([_turn("Is there work on sparse attention for video?"),
      _turn("Which tasks was it tested on?", standalone="Which tasks was it tested on? (follow-up to: Is there work "
                                                         "on sparse attention for video?)")],
     "How large are the gains?", "How large are the gains? (follow-up to: Is there work on sparse attention for video?)"),
])
def test_deterministic_rewrite(history, question, rewritten):
    from assistant.answering import deterministic_rewrite
    from assistant.conversation import Conversation

    assert deterministic_rewrite(question, Conversation(list(history))) == rewritten


@pytest.mark.parametrize("question, reply, used", [
    ("How much faster is it?", "How much faster is STAR-KV than full-cache attention?",
     "How much faster is STAR-KV than full-cache attention?"),  # a good rewrite is kept
    ("How much faster is it?", "The answer is: 2.11%", "How much faster is STAR-KV?"),  # not a question
    ("How does it compare with FlashAttention?", "How does STAR-KV compare with other methods?",
     "How does STAR-KV compare with FlashAttention?"),  # drops the question's own name
    ("How much faster is it?", "", "How much faster is STAR-KV?"),  # empty reply
])
def test_an_unusable_llm_rewrite_is_replaced_by_the_deterministic_one(question, reply, used):
    from assistant.answering import standalone_question
    from assistant.conversation import Conversation

    conv = Conversation([_turn("Is there work on shrinking the KV cache?", ["STAR-KV"])])
    llm = ScriptedLLM(rewrite=reply)
    assert standalone_question(question, conv, llm) == used
    assert len(llm.completions) == 1


def test_the_llm_is_not_asked_to_rewrite_a_self_contained_question():
    from assistant.answering import standalone_question
    from assistant.conversation import Conversation

    conv = Conversation([_turn("Is there work on shrinking the KV cache?", ["STAR-KV"])])
    llm = ScriptedLLM(rewrite="What is NorMuon? (STAR-KV)")
    assert standalone_question("What is NorMuon?", conv, llm) == "What is NorMuon?"
    assert llm.completions == []


def test_conversation_round_trips_through_json(store, open_settings):
    from assistant.conversation import Conversation

    conv = Conversation()
    run("What does KVPress do?", store, ScriptedLLM(["It compresses [1] [4]."]), open_settings, conversation=conv)
    back = Conversation.from_dict(json.loads(json.dumps(conv.to_dict())))
    assert back.to_dict() == conv.to_dict()
    turn = back.turns[0]
    assert turn.citations[0].paper.title == PAPERS[0]["title"] and turn.dropped_citations == (4,)
    assert turn.citations[0].paper.abstract == PAPERS[0]["abstract"]
    assert turn.backend == "scripted" and turn.status == "complete"
    assert back.history_messages()[-1] == {"role": "assistant", "content": "It compresses [1]."}


def test_answer_to_json_has_the_ask_fields(store, open_settings):
    from assistant.answering import answer, answer_to_json
    from assistant.retrieval import Retriever

    llm = ScriptedLLM(["KVPress [1] and [9]."])
    obj = answer_to_json("What does KVPress do?", answer("What does KVPress do?", retriever=Retriever(store),
                                                         llm=llm, settings=open_settings))
    for key in ("question", "answer", "sources", "citations", "dropped_citations", "backend", "model", "usage",
                "seconds"):
        assert key in obj
    assert obj["answer"] == "KVPress [1]."  # the invented marker goes with the "and" that joined it
    assert obj["citations"] == [{"n": 1, "id": obj["sources"][0]["id"], "title": PAPERS[0]["title"]}]
    assert obj["dropped_citations"] == [9]
    assert {"n", "id", "title", "score"} <= obj["sources"][0].keys()
    assert obj["backend"] == "scripted" and obj["usage"]["total_tokens"] == 15


# --- extractive on the bundled collection (real model) -------------------------------------------------

def _seed_questions():
    from tests.conftest import SEED_QA

    if not SEED_QA.exists():
        pytest.skip(f"{SEED_QA} not found")
    return [json.loads(line) for line in SEED_QA.read_text().splitlines() if line.strip()]


@pytest.mark.integration
def test_extractive_smoke_over_the_seed_questions(bundled_store, settings):
    from assistant.answering import answer, answer_to_json
    from assistant.llm import make_llm
    from assistant.retrieval import Retriever

    llm = make_llm(settings, "extractive")
    retriever = Retriever(bundled_store)
    titles = {p.id: p for p in bundled_store.papers()}
    misses = []
    for q in _seed_questions():
        obj = answer_to_json(q["q"], answer(q["q"], retriever=retriever, llm=llm, settings=settings))
        assert "error" not in obj, obj
        cited = [titles[c["id"]] for c in obj["citations"]]
        if q["type"] == "single":
            gold = q["gold"][0]
            if not any(gold in p.title or gold in p.abstract for p in cited):
                misses.append((q["id"], q["q"], [p.title for p in cited]))
        elif q["type"] == "out_of_corpus":
            assert obj["citations"] == [] and obj["sources"] == [] and obj["refused"], obj
            assert "No paper in the collection" in obj["answer"]
        elif q["type"] == "not_in_abstract":
            assert obj["refused"] and obj["citations"] == [], obj
    assert misses == []


@pytest.mark.integration
def test_extractive_quotes_the_sentence_naming_a_second_method(bundled_store, settings):
    """The README's example: "AdamW" is what is asked about, "NorMuon" only points at the paper."""
    from assistant.answering import answer, answer_to_json
    from assistant.llm import make_llm
    from assistant.retrieval import Retriever

    q = "How much did NorMuon save over AdamW?"
    obj = answer_to_json(q, answer(q, retriever=Retriever(bundled_store), llm=make_llm(settings, "extractive"),
                                   settings=settings))
    assert not obj["refused"] and "21.74" in obj["answer"]
    assert [c["title"] for c in obj["citations"]] == ["NorMuon"]


@pytest.mark.integration
def test_ask_prints_answer_sources_and_backend(bundled_store, tmp_path):
    from typer.testing import CliRunner

    from assistant.cli import app

    runner = CliRunner()
    result = runner.invoke(app, ["ask", "--llm", "extractive", "What speedup does WinQ give to quantization-aware training?"])
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "[1]" in out and "Sources:" in out and "WinQ" in out and "(ICML 2026)" in out
    assert "answered by extractive" in out

    result = runner.invoke(app, ["ask", "--llm", "extractive", "--json", "-"],
                           input="Which paper proposes a new image segmentation architecture for medical scans?\n")
    assert result.exit_code == 0, result.output
    obj = json.loads(result.stdout)
    assert obj["question"].startswith("Which paper proposes")
    assert obj["sources"] == [] and obj["citations"] == [] and obj["refused"] is True
    assert obj["backend"] == "extractive"


@pytest.mark.integration
def test_ask_lists_the_paper_a_not_stated_answer_cites_and_nothing_after_a_refusal(bundled_store, tmp_path):
    """A new user's trial (round 26): "The abstracts do not say. The paper asked about is DiffuSearch [1]: ..." was
    printed with no source for its [1]."""
    from typer.testing import CliRunner

    from assistant.cli import app

    runner = CliRunner()
    result = runner.invoke(app, ["ask", "--llm", "extractive", "Which license is the low-rank KV cache compression "
                                 "method released under?"])
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert out.startswith("The abstracts do not say. The paper asked about is STAR-KV [1]"), out
    assert "Sources:" in out and "[1] STAR-KV" in out and "Also retrieved" not in out, out
    result = runner.invoke(app, ["ask", "--llm", "extractive", "Is there a paper on speculative decoding?"])
    assert result.exit_code == 0 and result.stdout.startswith("No paper in the collection"), result.output
    assert "Sources:" not in result.stdout and "Also retrieved" not in result.stdout, result.stdout


def test_ask_with_an_empty_question_is_one_line_error():
    from typer.testing import CliRunner

    from assistant.cli import app

    result = CliRunner().invoke(app, ["ask", "--llm", "extractive", "   "])
    assert result.exit_code == 2
    assert result.stderr.strip().startswith("error: the question is empty")
    assert "Traceback" not in result.output


@pytest.mark.parametrize("abstract, answer", [
    ("NorMuon 将 训练 速度 提高 了 21%。", "NorMuon 将 训练 速度 提高 了 21% [1]。"),
    ("NorMuon 将 训练 速度 提高 了 2 倍！", "NorMuon 将 训练 速度 提高 了 2 倍 [1]！"),
    ("NorMuon 将 训练 速度 提高 了", "NorMuon 将 训练 速度 提高 了 [1]。"),
    ("NorMuon trains 21% faster.", "NorMuon trains 21% faster [1]."),
])
def test_extractive_marker_goes_before_the_sentences_own_stop(settings, abstract, answer):
    from assistant.events import Source
    from assistant.extractive import ExtractiveSynthesizer
    from assistant.store.paper import Paper
    from tests.conftest import FakeEmbedder

    paper = Paper(abstract=abstract, title="NorMuon", id="p1")
    question = abstract.rstrip("。！.") + " ？"
    assert ExtractiveSynthesizer(settings).synthesize(question, [Source(1, paper, 1.0)], FakeEmbedder()) == answer


def _extractive(bundled_store, settings, q):
    from assistant.answering import answer, answer_to_json
    from assistant.llm import make_llm
    from assistant.retrieval import Retriever

    return answer_to_json(q, answer(q, retriever=Retriever(bundled_store), llm=make_llm(settings, "extractive"),
                                    settings=settings))


@pytest.mark.integration
def test_extractive_descriptive_question_quotes_the_contribution_not_the_background(bundled_store, settings):
    """A question describing a paper is answered with what the paper does (and finds), not with the
    field's motivation sentence that opens its abstract."""
    obj = _extractive(bundled_store, settings,
                      "Is there a way to make a language model more aligned while it decodes, with no extra training?")
    assert not obj["refused"]
    assert "remains a central challenge" not in obj["answer"]
    assert "alignment-aware decoding" in obj["answer"]


@pytest.mark.integration
def test_extractive_entity_question_answered_by_names_without_the_questions_noun(bundled_store, settings):
    """"Which competitions ..." is answered by the sentence naming them ("On AIME 2024/2025 and AIMO
    2025, EAPO ..."), although the abstract never writes "competitions"."""
    obj = _extractive(bundled_store, settings, "On which competitions was EAPO tested?")
    assert not obj["refused"] and "AIME" in obj["answer"]
    assert [c["title"] for c in obj["citations"]] and all("Expert" in c["title"] or "EAPO" in c["title"]
                                                           for c in obj["citations"])


@pytest.mark.integration
def test_extractive_question_naming_the_paper_quotes_the_sentence_with_its_words_not_its_name(bundled_store, settings):
    """MiniLM rates every sentence that repeats the paper's name close to a question naming it; the
    sentence carrying what is asked ("computationally efficient": "CountSketch for computational
    efficiency") is quoted, though it does not name the paper."""
    obj = _extractive(bundled_store, settings, "How does OPUS keep its selection computationally efficient?")
    assert not obj["refused"] and "CountSketch" in obj["answer"]


def _converse(bundled_store, settings, turns):
    """The last turn's `Answer` after asking `turns` in one conversation, with the extractive backend."""
    from assistant.answering import answer
    from assistant.conversation import Conversation
    from assistant.events import Answer
    from assistant.llm import make_llm
    from assistant.retrieval import Retriever

    conv = Conversation()
    llm = make_llm(settings, "extractive")
    for q in turns:
        events = list(conv.record(answer(q, retriever=Retriever(bundled_store), llm=llm, settings=settings,
                                         conversation=conv), q))
    return Answer.from_events(events, turns[-1])


@pytest.mark.integration
@pytest.mark.parametrize("turns, standalone, cited, fact", [
    # the described papers are what "the second one" counts through, though the answer cited one of them
    (["Two papers caught my eye: the one that recycles web data with a rephraser, and the one that converts "
      "LLMs into spiking networks. What does each do?", "Does the second one require retraining the model?"],
     "Does the one that converts LLMs into spiking networks require retraining the model?", "ANN-to-SNN", ""),
    # "the models" of the benchmark under discussion
    (["Is there a benchmark that compares LLMs with humans on abstract reasoning?",
      "How do the models cope with tasks in more dimensions?"], None, "A$^2$RBench", "3D"),
    # "that paradigm": what the last question described, in the paper under discussion
    (["Which work lets a reasoning model show intermediate responses to the user while it is still thinking?",
      "What do they call that paradigm?"], None, "PLAINTAIN", "interleaved reasoning"),
    # "the name": a part of the paper under discussion
    (["Is there a paper on decoding that adapts computation to the model's uncertainty?",
      "What does the name stand for?"], "What does the name stand for? (EDEN)", "EDEN", "Entropy-informed"),
    # "the projection": given by the last answer ("projects the residual connection space ...")
    (["What is mHC?", "What property does the projection restore?"], None, "Manifold-Constrained", "identity mapping"),
    # "it" inside "a guarantee for it" is the paper under discussion (was kept unresolved and refused)
    (["Which decoding method adapts its beam width to the model's entropy?",
      "Is there a convergence guarantee for it?"],
     "Is there a convergence guarantee for EDEN?", "EDEN", ""),
    # "the second one" of a request for one paper of each kind: the second paper the answer named
    (["I need papers on decoding at inference time: one that widens the search where the model is uncertain and "
      "one that steers outputs toward alignment.", "Does the second one need a new training run?"],
     "Does AAD need a new training run?", "alignment-aware decoding", ""),
    # a paper named by the long form its abstract defines ("Expert-Assisted Policy Optimization (EAPO)")
    (["What does Expert-Assisted Policy Optimization let the policy do during training?"], None,
     "Expert-Assisted Policy Optimization", "external experts"),
    # a terse follow-up with no pronoun that finds no paper on its own goes on about the paper under discussion
    # (fresh24 chats: "which nonlinear ops are covered", "how big is the accuracy hit" were refused)
    (["Is there a paper on converting LLMs into spiking neural networks?", "how big is the accuracy hit"],
     "how big is the accuracy hit (ANN-to-SNN)", "ANN-to-SNN", "1%"),
    (["masked diffusion with tree search for infilling order?", "do more simulations help or whats the key knob"],
     "do more simulations help or what's the key knob (DiffuSearch)", "DiffuSearch", "exploration constants"),
    # "the inference time one": the words in two sentences of one cited paper ("directly at inference", "training-time
    # or prompt-based interventions"; fresh42 chats: "it" read as the federated DPO paper listed first)
    (["whats in here about dpo", "the inference time one - does it need extra training"],
     "AAD - does it need extra training", "alignment-aware decoding", "no specialized training"),
    # two topics offered with the preposition said again: both papers, and "the second one" is the second topic's
    # (fresh45 chats: WinQ was cut as a weaker match, and "the second one" had only STAR-KV to count through)
    (["any papers on kv cache compresion or on quantization aware training?",
      "how much does the second one speed up training"], "how much does WinQ speed up training", "WinQ", "4×"),
    # a clipped word written out ("docs": OPUS flags "toxic documents"; fresh42 chats: "The abstracts do not say.")
    (["which paper selects pretraining data by its utility in the optimizer's update space?",
      "can it also catch toxic docs"], "can OPUS also catch toxic documents", "OPUS", "toxic documents"),
    # the size a result was measured at, asked of the paper under discussion (fresh42 chats: "does not say")
    (["is there a new optimizer paper in the list", "by how much on the 1.1b run"], None, "NorMuon", "11.31"),
    # round 34, fresh52 chats: the code asked "somewhere" (searched as a topic, refused); a German question on "die
    # Pipeline" (answered from another paper); an adverb after "reach" read as a thing the abstract must state; a
    # modifier of the thing asked ("a root cause") read as unidentified; a Chinese question on the training objective
    (["I'm looking at KV cache compression with low-rank projections, anything here?",
      "is the code released somewhere?"], "is the code released somewhere? (STAR-KV)", "STAR-KV", "github.com"),
    (["Wie kann man abstraktes Denken von LLMs messen, ohne teure manuelle Annotation?",
      "Welche Stufen hat die Pipeline?"], "Welche Stufen hat die Pipeline? (A$^2$RBench)", "A$^2$RBench", "expansion"),
    (["I'm looking at KV cache compression with low-rank projections, anything here?",
      "how much compression does it reach alone, and with quantization on top?"], None, "STAR-KV", "20×"),
    (["GRPO training keeps being unstable for me, is there a paper on that?", "what root cause do they identify?"],
     None, "Probabilistic Conflict Resolution", "geometric conflict"),
    (["有没有不依赖外部奖励、用内部反馈做无监督强化学习微调的论文？", "它用的是什么训练目标？"], None, "PowerFlow",
     "Trajectory-Balance"),
    # a "What about ..." describing a new topic and asking for papers on it is searched as it is
    (["Which paper resolves gradient conflicts in GRPO with a Bayesian model?",
      "What about widening the residual stream with hyper-connections, is there anything on that?"],
     "What about widening the residual stream with hyper-connections, is there anything on that?",
     "Manifold-Constrained", ""),
])
def test_extractive_follow_up_is_answered_from_the_paper_under_discussion(bundled_store, settings, turns,
                                                                          standalone, cited, fact):
    """`cited`: a string of the cited paper's abstract (its name as the abstract writes it)."""
    last = _converse(bundled_store, settings, turns)
    if standalone:
        assert last.standalone_question == standalone
    assert not last.refused, last.text
    assert [cited in c.paper.abstract for c in last.citations] == [True], last.text
    assert fact.casefold() in last.text.casefold()


@pytest.mark.integration
def test_a_follow_up_asking_whether_the_paper_supports_what_its_abstract_never_states_is_not_said(
        bundled_store, settings):
    """"Does it support paged attention?" of the KV-cache paper: its abstract says "attention module", never
    paged attention; one shared word is not the thing asked, so the abstracts do not say (it quoted the paper's
    summary); the paper's own low-bit quantization is answered."""
    from assistant.prompts import CANNOT_ANSWER

    turns = ["Which paper compresses the KV cache with adaptive low-rank projections?"]
    last = _converse(bundled_store, settings, turns + ["Does it support paged attention?"])
    assert last.standalone_question == "Does STAR-KV support paged attention?"
    assert last.text == CANNOT_ANSWER and last.citations == ()
    last = _converse(bundled_store, settings, turns + ["Does it support low-bit quantization?"])
    assert not last.refused and [c.paper.title for c in last.citations] == ["STAR-KV"]
    assert "low-bit quantization" in last.text
    # a study's detail asked with "is there" is asked of the paper under discussion (fresh42 chats: searched as a
    # topic and answered "No paper in the collection is about this question.")
    last = _converse(bundled_store, settings, ["is there a new optimizer paper in the list", "is there a code link"])
    assert last.standalone_question == "is there a code link (NorMuon)" and last.text == CANNOT_ANSWER


def test_a_definite_subject_the_last_answer_used_refers_back_and_a_search_does_not():
    from assistant.answering import refers_to_last_answer
    from assistant.conversation import Conversation, Turn
    from assistant.events import Citation
    from assistant.store.paper import Paper

    conv = Conversation([Turn("What is mHC?", answer="mHC projects the residual connection space onto a manifold [1].",
                              citations=(Citation(1, Paper(abstract="", title="mHC", id="p1")),))])
    assert refers_to_last_answer("What property does the projection restore?", conv)
    assert not refers_to_last_answer("What property does the optimizer restore?", conv)  # not given
    assert not refers_to_last_answer("Which paper studies the residual connection?", conv)  # a search
    assert not refers_to_last_answer("What does the projection in NorMuon do?", conv)  # names its subject


@pytest.mark.integration
def test_another_paper_asked_for_is_not_the_one_just_given(bundled_store, settings):
    """"Is there another paper on pretraining data, one that selects data ...?" after an answer citing RePro
    quoted RePro again (fresh13 chats): the papers just given are set aside, so the other one is found, and
    "both" then means the two."""
    turns = ["Which paper recycles web documents by rephrasing them for pretraining?",
             "Is there another paper on pretraining data, one that selects data instead of rewriting it?"]
    last = _converse(bundled_store, settings, turns)
    assert [c.paper.title for c in last.citations] == ["OPUS"], last.text
    last = _converse(bundled_store, settings, turns + ["Do both release their code?"])
    assert last.standalone_question == "Do RePro and OPUS release their code?"


@pytest.mark.integration
@pytest.mark.parametrize("follow_up", ["what about the other kv cache paper?", "is there another kv cache paper?"])
def test_another_paper_when_the_collection_has_none_says_which_was_left_out(bundled_store, settings, follow_up):
    """The collection has one KV-cache paper: "the other kv cache paper" is not STAR-KV again (a new user's trial,
    round 26: rewritten "what about STAR-KV?" and refused as if no paper were about the KV cache); the refusal says
    the paper given above was left out, and cites nothing."""
    from assistant.evaluation import says_no_paper

    last = _converse(bundled_store, settings, ["is there a paper on compressing the kv cache?", follow_up])
    assert last.standalone_question == follow_up
    assert last.text == "No paper in the collection is about this question (left out as given above: STAR-KV)."
    assert not last.citations and says_no_paper(last.text)


def test_only_a_search_beyond_the_papers_given_sets_them_aside():
    from assistant.answering import set_aside_papers
    from assistant.conversation import Conversation, Turn
    from assistant.events import Citation
    from assistant.store.paper import Paper

    conv = Conversation([Turn("Which paper speeds up QAT?", answer="WinQ accelerates QAT [1].",
                              citations=(Citation(1, Paper(abstract="", title="WinQ", id="p1")),))])
    assert set_aside_papers("Any other papers on quantization?", conv) == {"p1"}
    assert set_aside_papers("Is there a different method for this?", conv) == {"p1"}
    assert set_aside_papers("Compare WinQ with other quantization methods.", conv) == set()  # named: kept
    assert set_aside_papers("What about the other one?", conv) == set()  # of two, `_OTHER`'s
    assert set_aside_papers("How much faster is it?", conv) == set()
    assert set_aside_papers("Any other papers on quantization?", None) == set()


def test_a_figure_the_last_answer_gave_refers_back():
    """"What model size was the 11.31 percentage-point gain measured on?" after an answer giving that gain was
    taken as a new question and refused (round 11): the figure is the last answer's."""
    from assistant.answering import deterministic_rewrite, refers_to_last_answer
    from assistant.conversation import Conversation, Turn
    from assistant.events import Citation
    from assistant.store.paper import Paper

    conv = Conversation([Turn("Is there an optimizer that normalizes Muon per neuron?",
                              answer="NorMuon gains 11.31 percentage points over Muon and cuts steps by 21.74% [1].",
                              citations=(Citation(1, Paper(abstract="", title="NorMuon", id="p1")),))])
    question = "What model size was the 11.31 percentage-point gain measured on?"
    assert refers_to_last_answer(question, conv)
    assert deterministic_rewrite(question, conv) == question + " (NorMuon)"
    assert refers_to_last_answer("Where does the 21.74% come from?", conv)
    assert not refers_to_last_answer("What model size was the 12.5 percentage-point gain measured on?", conv)
    assert not refers_to_last_answer("Is there a paper with an 11.31 point gain?", conv)  # a search
    assert not refers_to_last_answer("What does the 1 in the name stand for?", conv)  # one digit: too common


def test_a_paper_without_a_name_is_referred_to_by_its_opening_words():
    """An untitled paper's display title is its abstract's first clause: a rewrite calls it "the paper
    that begins ..." (a possessive goes in brackets instead of "...'s code")."""
    from assistant.answering import deterministic_rewrite
    from assistant.conversation import Conversation, Turn
    from assistant.events import Citation
    from assistant.store.paper import Paper

    paper = Paper(abstract="Sharing preference data across hospitals is hard. We analyse federated DPO.",
                  title="Sharing preference data across hospitals is hard", title_is_derived=True, id="p1")
    conv = Conversation([Turn("Is there work on federated DPO?", answer="We analyse federated DPO [1].",
                              citations=(Citation(1, paper),))])
    assert deterministic_rewrite("Is their code released?", conv) == (
        'Is their code released? (the paper that begins "Sharing preference data across hospitals is hard")')
    assert deterministic_rewrite("Does it report experiments?", conv) == (
        'Does the paper that begins "Sharing preference data across hospitals is hard" report experiments?')


def test_a_paper_without_a_name_stays_the_paper_two_follow_ups_on():
    """The rewrite of a follow-up quotes the paper's opening words; the next follow-up refers to that paper again,
    not to its opening words as a quoted term searched for as words (chats fresh37: "how big are the gains, any
    numbers? ('The reasoning patterns …')" was answered from another paper's gains)."""
    from assistant.answering import deterministic_rewrite
    from assistant.conversation import Conversation, Turn
    from assistant.events import Citation
    from assistant.store.paper import Paper

    paper = Paper(abstract="Sharing preference data across hospitals is hard. We analyse federated DPO.",
                  title="Sharing preference data across hospitals is hard", title_is_derived=True, id="p1")
    ref = '(the paper that begins "Sharing preference data across hospitals is hard")'
    conv = Conversation([Turn("Is there work on federated DPO?", answer="We analyse federated DPO [1].",
                              citations=(Citation(1, paper),)),
                         Turn("what do they analyse", standalone_question=f"what do they analyse {ref}",
                              answer="We analyse federated DPO [1].", citations=(Citation(1, paper),))])
    assert deterministic_rewrite("how big are the gains, any numbers?", conv) == (
        f"how big are the gains, any numbers? {ref}")
    # the earlier question a rewrite adds after such a paper is context, not the question's form
    from assistant.extractive import without_added_subject

    assert without_added_subject(f'any paper on voting? ({ref[1:-1]}: where is their code? {ref})') == (
        "any paper on voting?")


@pytest.mark.parametrize("question, standalone", [
    # the names are listed in a sentence before the one asking: that sentence is left out
    ("I read about WinQ and STAR-KV. For the second one, how much does it compress the KV cache?",
     "For STAR-KV, how much does it compress the KV cache?"),
    ("Between EAPO and PCR, is the latter faster?", "Between EAPO and PCR, is PCR faster?"),
    ("What is the first one?", "What is the first one?"),  # no names to count through
])
def test_an_ordinal_counting_through_the_questions_own_names_is_resolved(question, standalone):
    from assistant.answering import standalone_question
    from assistant.conversation import Conversation

    assert standalone_question(question, None, None) == standalone
    conv = Conversation([_turn("Which papers are about optimizers?", ["NorMuon"])])
    if standalone != "What is the first one?":
        assert standalone_question(question, conv, None) == standalone


def test_an_ordinal_after_a_turn_that_named_two_papers_counts_through_the_users_names():
    """The rewrite of "I read about WinQ and STAR-KV. For the second one, ..." keeps one name; "the first
    one" in the next turn still counts through the two the user gave."""
    from assistant.answering import deterministic_rewrite
    from assistant.conversation import Conversation

    conv = Conversation([_turn("I read about WinQ and STAR-KV. For the second one, how much does it compress?",
                               ["STAR-KV"], "For STAR-KV, how much does it compress?")])
    assert deterministic_rewrite("And the first one: why is training slow?", conv) == "And WinQ: why is training slow?"


def test_an_ordinal_going_back_to_an_earlier_topic_counts_through_the_papers_discussed():
    """Held-out fresh14 (round 12): after an optimizer question answered with NorMuon and "is there anything on
    Shampoo or SOAP-style optimizers?" (none in the collection), "Back to the first optimizer" is NorMuon; it
    was rewritten to Shampoo, the latest list, and refused. Without "back to" the latest list still counts."""
    from assistant.answering import deterministic_rewrite
    from assistant.conversation import Conversation

    conv = Conversation([_turn("Any recent optimizer for LLM pretraining that improves on Muon?", ["NorMuon"]),
                         _turn("How much larger is its efficiency gain than Muon's?", ["NorMuon"]),
                         _turn("Separate question: is there anything on Shampoo or SOAP-style optimizers?")])
    assert deterministic_rewrite("Back to the first optimizer — how does it spread the work across devices?",
                                 conv) == "Back to NorMuon — how does it spread the work across devices?"
    assert deterministic_rewrite("Does the first optimizer need more memory?", conv) == (
        "Does Shampoo need more memory?")


def test_going_back_passes_over_a_question_no_paper_answered():
    """fresh26 fc07.5: after a benchmark paper and an aside on ARC-AGI no paper is about, "back to that benchmark: what
    did it find about 3D tasks?" was rewritten to "back to the paper on ARC-AGI: ..." and refused."""
    from assistant.answering import deterministic_rewrite
    from assistant.conversation import Conversation

    conv = Conversation([_turn("how do people evaluate abstract reasoning in LLMs?", ["A2RBench"]),
                         _turn("Is there also work on solving ARC-AGI puzzles with program synthesis?")])
    assert deterministic_rewrite("back to that benchmark: what did it find about 3D tasks?", conv) == (
        "back to A2RBench: what did it find about 3D tasks?")


@pytest.mark.integration
def test_going_back_to_a_paper_described_by_its_kind_finds_that_kind(bundled_store, settings):
    """A new user's trial (round 28): "back to the optimizer: does it work with fsdp?" after NorMuon, a list naming
    OPUS ("optimizer-induced") and RePro was asked of RePro and "does not say"; "back to the optimizer paper: ..."
    after RL papers and an aside was asked of EAPO ("policy optimization" stems as "optimizer" does). The paper
    discussed that writes the word, and holds the rest of the question's words when two do; none: the collection."""
    last = _converse(bundled_store, settings, ["how much did normuon cut training steps vs adamw?",
                                               "any other papers like that?",
                                               "switching topics: which paper trains a small model to rewrite web "
                                               "text for pretraining?",
                                               "back to the optimizer: does it work with fsdp?"])
    assert last.standalone_question == "back to NorMuon: does it work with FSDP?", last.standalone_question
    assert [c.paper.title for c in last.citations] == ["NorMuon"] and "FSDP2" in last.text, last.text
    last = _converse(bundled_store, settings, ["which papers use reinforcement learning to improve reasoning?",
                                               "tell me more about the second one",
                                               "unrelated - whats a good sourdough bread recipe?",
                                               "back to the optimizer paper: how much did it save over adamw?"])
    assert [c.paper.title for c in last.citations] == ["NorMuon"] and "21.74%" in last.text, last.text


def test_what_about_a_topic_after_a_refusal_is_a_new_search():
    """A new user's trial (round 18): after an RL theme and a refused protein question, "what about reinforcement
    learning for robot control?" became "... (EAPO)" and was answered from EAPO. After a paper, or as a fragment,
    "what about ..." still goes on about the conversation."""
    from assistant.answering import standalone_question
    from assistant.conversation import Conversation

    question = "what about reinforcement learning for robot control?"
    refused = Conversation([_turn("Which papers improve LLM reasoning with RL?", ["EAPO"]),
                            _turn("Is there anything on protein structure prediction?")])
    assert standalone_question(question, refused, None) == question
    assert standalone_question("what about for code?", refused, None) != "what about for code?"
    answered = Conversation([_turn("Which papers improve LLM reasoning with RL?", ["EAPO"])])
    assert standalone_question(question, answered, None) != question


@pytest.mark.integration
def test_a_bare_topic_after_a_refused_search_is_not_asked_of_an_earlier_paper(bundled_store, settings):
    """fresh42 chats: "and state space models like mamba?" after "anything on mixture of experts routing?" (no paper)
    was searched with the paper cited before the aside added ("... (RePro)") and answered from it: the user goes on
    probing topics. Right after a paper, a terse follow-up still goes on about it."""
    last = _converse(bundled_store, settings, ["is there a paper on rewriting web text for pretraining?",
                                               "anything on mixture of experts routing?",
                                               "and state space models like mamba?"])
    assert last.refused and not last.citations, last.text
    assert last.text.startswith("No paper in the collection"), last.text
    last = _converse(bundled_store, settings, ["is there a paper on rewriting web text for pretraining?",
                                               "how big is the rephraser"])
    assert [c.paper.title for c in last.citations] == ["RePro"] and "1B" in last.text, last.text


def test_an_ordinal_heading_is_not_a_reference():
    """fresh26 fc10.5: "thanks, last one: any paper on mixture-of-experts routing?" became "thanks, mHC: any paper on
    ..." and was answered with mHC. Without "the", an ordinal before a colon or dash heads the question; with it
    ("And the second one: ...") it still points back."""
    from assistant.answering import deterministic_rewrite
    from assistant.conversation import Conversation

    conv = Conversation([_turn("How do EAPO and PCR differ?", ["PCR", "EAPO"])])
    question = "thanks, last one: any paper on mixture-of-experts routing?"
    assert deterministic_rewrite(question, conv) == question
    assert deterministic_rewrite("And the second one: does it use RL?", conv) == "And PCR: does it use RL?"
    # "Last one, which paper ...?": the conversation's last question, before a search for a paper (chats fresh22
    # c08.4, round 22: the paper under discussion was glued on); "Last one, which dataset?" still points back
    question = "Last one, which paper looks at attention heads to find anchor tokens?"
    assert deterministic_rewrite(question, conv) == question
    assert deterministic_rewrite("Last one, which dataset?", conv) != "Last one, which dataset?"


def test_an_ordinal_after_described_topics_counts_in_the_order_the_user_described_them():
    """fresh13 c02 (round 12): the user described two topics, the answer cited the second topic's paper first;
    "the second one" is the paper of the second topic. Without a word only one paper has (both mention GRPO),
    the answer's order stands."""
    from assistant.answering import deterministic_rewrite
    from assistant.conversation import Conversation, Turn
    from assistant.events import Citation
    from assistant.store.paper import Paper

    aad = Paper(abstract="We introduce alignment-aware decoding (AAD), aligning models at inference.", title="AAD",
                id="p1")
    fed = Paper(abstract="Convergence of DPO when preference data is split across federated clients.",
                title="FedDPO", id="p2")
    question = ("I'm interested in two things: aligning a model at decoding time, and DPO when the preference data "
                "is split across federated clients. What's out there?")
    conv = Conversation([Turn(question, answer="…", citations=(Citation(1, fed), Citation(2, aad)))])
    assert deterministic_rewrite("For the second one, what governs optimization speed?", conv) == (
        "For FedDPO, what governs optimization speed?")
    assert deterministic_rewrite("Does the first one need training?", conv) == "Does AAD need training?"
    both = (Paper(abstract="GRPO with conflicts.", title="PCR", id="p3"),
            Paper(abstract="GRPO as a baseline.", title="PowerFlow", id="p4"))
    conv = Conversation([Turn("Which papers mention GRPO?", answer="…",
                              citations=tuple(Citation(i, p) for i, p in enumerate(both, 1)))])
    assert deterministic_rewrite("What does the first one use?", conv) == "What does PCR use?"
    # round 14 (fresh16 c04): a word of the preamble only the second paper has ("better") does not put it first
    rewrite = Paper(abstract="A small model rewrites web text into pretraining data.", title="RePro", id="p5")
    select = Paper(abstract="Selecting better data by its utility in the optimizer's update space.", title="OPUS",
                   id="p6")
    question = ("I'm comparing two ideas for better pretraining data: rewriting web text with a small model, and "
                "picking data by its utility in the optimizer's update space. Are both in the collection?")
    conv = Conversation([Turn(question, answer="…", citations=(Citation(1, select), Citation(2, rewrite)))])
    assert deterministic_rewrite("For the second one, how much compute does it add?", conv) == (
        "For OPUS, how much compute does it add?")


def test_a_definite_description_the_cited_abstract_gives_refers_back_and_another_does_not():
    from assistant.answering import refers_to_last_answer, standalone_question
    from assistant.conversation import Conversation, Turn
    from assistant.events import Citation
    from assistant.store.paper import Paper

    abstract = ("We let the policy consult experts during RL, closing the gap to experts. The policy model then "
                "solves problems alone.")
    conv = Conversation([Turn("Which paper lets a policy consult experts?", answer="EAPO consults experts [1].",
                              citations=(Citation(1, Paper(abstract=abstract, title="EAPO", id="p1")),))])
    assert refers_to_last_answer("What size is the policy model?", conv)
    assert standalone_question("What size is the policy model?", conv, None) == "What size is the policy model? (EAPO)"
    # a phrase the abstract does not give is a new topic, though its first word is there
    assert standalone_question("What is the policy gradient theorem?", conv, None) == "What is the policy gradient theorem?"
    # what the phrase goes on to say must be given too: "the gap to experts" is, "the gap between ..." not
    assert standalone_question("How large is the gap to experts?", conv, None) == "How large is the gap to experts? (EAPO)"
    question = "How large is the gap between small models and human annotators?"
    assert standalone_question(question, conv, None) == question


def test_that_x_is_the_thing_of_that_kind_the_last_answer_named():
    """Held-out fresh55 chats: "How is that indicator computed?" after an answer naming RankTuner's "Relative Rank
    Indicator" took the last question's words along ("(RankTuner: Is there a paper about reweighting ...)") and
    quoted their sentences; the name the answer gives is what "that indicator" is. An answer naming two things of
    the kind, or none, leaves the old rewrite."""
    from assistant.answering import standalone_question
    from assistant.conversation import Conversation, Turn
    from assistant.events import Citation
    from assistant.store.paper import Paper

    paper = Paper(abstract="RankTuner introduces a signal, the Relative Rank Indicator, by comparing ranks.",
                  title="RankTuner", id="p1")

    def conv(answer):
        return Conversation([Turn("Is there a paper about reweighting tokens?", answer=answer,
                                  citations=(Citation(1, paper),))])

    one = "RankTuner [1]: RankTuner introduces a signal, the **Relative Rank Indicator**, by comparing ranks."
    assert standalone_question("How is that indicator computed?", conv(one), None) == (
        "How is the Relative Rank Indicator computed? (RankTuner)")
    two = one + " A Token Entropy Indicator is the baseline [1]."
    assert standalone_question("How is that indicator computed?", conv(two), None) == (
        "How is that indicator computed? (RankTuner: Is there a paper about reweighting tokens)")


def test_a_figure_one_of_the_compared_papers_gives_points_at_that_paper():
    """A new user's trial, round 36: "where does the 11.31 percentage-point gain come from?" after NorMuon and WinQ
    were compared was asked of both, and WinQ cited; the figure is NorMuon's. A figure both give leaves both."""
    from assistant.answering import standalone_question
    from assistant.conversation import Conversation, Turn
    from assistant.events import Citation
    from assistant.store.paper import Paper

    nor = Paper(abstract="NorMuon has an 11.31 percentage-point larger efficiency gain than Muon.", title="NorMuon",
                id="p1")
    win = Paper(abstract="WinQ speeds up QAT by 4x and gains 8.8% over the state of the art.", title="WinQ", id="p2")
    conv = Conversation([Turn("Compare NorMuon with WinQ.", answer="NorMuon [1]: … WinQ [2]: …",
                              citations=(Citation(1, nor), Citation(2, win)))])
    assert standalone_question("where does the 11.31 percentage-point gain come from?", conv, None) == (
        "where does the 11.31 percentage-point gain come from? (NorMuon)")
    both = Paper(abstract="WinQ has an 11.31 percentage-point gain too.", title="WinQ", id="p2")
    conv = Conversation([Turn("Compare NorMuon with WinQ.", answer="NorMuon [1]: … WinQ [2]: …",
                              citations=(Citation(1, nor), Citation(2, both)))])
    assert standalone_question("where does the 11.31 percentage-point gain come from?", conv, None) == (
        "where does the 11.31 percentage-point gain come from? (NorMuon and WinQ)")


def test_how_many_are_there_after_a_list_counts_the_list():
    """A new user's trial, round 36: "how many are there?" after "Which papers are about reasoning?" (nine papers) was
    asked of the first paper listed. It asks the list's question again as a count; after one paper it is left as
    before."""
    from assistant.answering import standalone_question
    from assistant.conversation import Conversation, Turn
    from assistant.events import Citation
    from assistant.store.paper import Paper

    a, b = (Paper(abstract=f"{t} improves reasoning.", title=t, id=t) for t in ("FooNet", "BarNet"))
    listed = Conversation([Turn("Which papers are about reasoning?", answer="FooNet [1]: … BarNet [2]: …",
                                citations=(Citation(1, a), Citation(2, b)))])
    assert standalone_question("how many are there?", listed, None) == "how many papers are about reasoning?"
    described = Conversation([Turn("Anything on better reasoning?", answer="FooNet [1]: … BarNet [2]: …",
                                   citations=(Citation(1, a), Citation(2, b)))])
    assert standalone_question("And how many of them?", described, None) == (
        "how many papers: Anything on better reasoning?")
    one = Conversation([Turn("Which paper is about reasoning?", answer="FooNet [1] …", citations=(Citation(1, a),))])
    assert standalone_question("how many are there?", one, None) == "how many are there? (FooNet)"


def test_a_search_counting_in_the_paper_under_discussion_searches_the_collection():
    """Held-out fresh55 chats: "which papers in the collection use token entropy as a signal, this one included?" after
    a turn on RankTuner was asked of RankTuner with the last question's words, and EDEN left out. The search is the
    question without the phrase counting the paper in, which finds it with the others; a question about the paper
    itself still refers back."""
    from assistant.answering import standalone_question
    from assistant.conversation import Conversation, Turn
    from assistant.events import Citation
    from assistant.store.paper import Paper

    paper = Paper(abstract="RankTuner reweights tokens by entropy.", title="RankTuner", id="p1")
    conv = Conversation([Turn("Is there a paper about reweighting tokens?", answer="RankTuner [1] …",
                              citations=(Citation(1, paper),))])
    assert standalone_question("which papers in the collection use token entropy as a signal, this one included?",
                               conv, None) == "which papers in the collection use token entropy as a signal?"
    assert standalone_question("Which papers, including this one, use entropy?", conv, None) == (
        "Which papers use entropy?")
    assert standalone_question("does this one work for code?", conv, None) == "does RankTuner work for code?"


@pytest.mark.parametrize("question, standalone", [
    # a new user's trial, round 36: "la méthode précédente" was read as the paper just discussed (EAPO)
    ("la méthode précédente fonctionne-t-elle sous 4 bits ?", "WinQ fonctionne-t-elle sous 4 bits ?"),
    ("Funktioniert die vorherige Methode auch unter 4 Bit?", "Funktioniert WinQ auch unter 4 Bit?"),
    ("Il metodo precedente funziona a 4 bit?", "WinQ funziona a 4 bit?"),
    ("E o anterior, funciona com 4 bits?", "E WinQ, funciona com 4 bits?"),
    ("la méthode fonctionne-t-elle sous 4 bits ?", "la méthode fonctionne-t-elle sous 4 bits ? (EAPO)"),  # the last
])
def test_the_previous_one_in_other_languages_is_the_paper_before_the_last(question, standalone):
    from assistant.answering import standalone_question
    from assistant.conversation import Conversation, Turn
    from assistant.events import Citation
    from assistant.store.paper import Paper

    winq, eapo = Paper(abstract="WinQ speeds up QAT.", title="WinQ", id="p1"), Paper(
        abstract="EAPO consults experts.", title="EAPO", id="p2")
    conv = Conversation([Turn("What is WinQ?", answer="WinQ [1] …", citations=(Citation(1, winq),)),
                         Turn("Is there a paper on distillation?", answer="EAPO [1] …",
                              citations=(Citation(1, eapo),))])
    assert standalone_question(question, conv, None) == standalone


def test_an_llm_rewrite_naming_another_name_than_the_cited_paper_is_replaced():
    """The answer about NorMuon mentions Muon; "it" is NorMuon, so "How much faster is Muon?" is not used."""
    from assistant.answering import standalone_question
    from assistant.conversation import Conversation

    conv = Conversation([_turn("Is there an optimizer that builds on Muon?", ["NorMuon"])])
    assert standalone_question("How much faster is it?", conv, ScriptedLLM(rewrite="How much faster is Muon?")) == (
        "How much faster is NorMuon?")
    good = "How much faster is NorMuon than AdamW?"
    assert standalone_question("How much faster is it?", conv, ScriptedLLM(rewrite=good)) == good


@pytest.mark.integration
@pytest.mark.parametrize("turns, standalone, cited, says", [
    # "it": the paper the answer was about (NorMuon), not the name the user gave (Muon)
    (["Is there an optimizer that builds on Muon?", "How much faster does it train?"],
     "How much faster does NorMuon train?", "NorMuon", "21.74%"),
    # an ordinal counting through the question's own names
    (["I read about WinQ and STAR-KV. For the second one, how much does it compress the KV cache?"],
     "For STAR-KV, how much does it compress the KV cache?", "STAR-KV", "75%"),
    # a definite description the cited paper's abstract gives: that paper's detail, not out of collection
    (["Which paper lets a policy ask outside experts for help during RL training?", "How large is the policy model?"],
     "How large is the policy model? (EAPO)", None, "The abstracts do not say."),
    # a follow-up about the paper under discussion that no abstract covers: "do not say", not "no paper"
    (["Is there a pretraining data selection method that looks at the optimizer?",
      "Does that work for speech recognition models too?"],
     "Does OPUS work for speech recognition models too?", None, "The abstracts do not say."),
    # a paper without a name, referred to by its opening words
    (["Is there a convergence analysis of DPO when training is federated?", "Is their code released?"],
     'Is their code released? (the paper that begins "Preference-based reinforcement learning (RL) is a key…")',
     "Preference-based reinforcement learning", "The abstracts do not say."),
    # topic switches are never glued to the history: a new paper, and a topic no paper covers
    (["What is NorMuon?", "Which paper compresses the KV cache with low-rank projections?"],
     "Which paper compresses the KV cache with low-rank projections?", "STAR-KV", "STAR-KV"),
    (["What is NorMuon?", "Is there a paper on protein structure prediction?"],
     "Is there a paper on protein structure prediction?", None, "No paper in the collection is about this question."),
    (["What is NorMuon?", "Which paper folds a token's probability and its entropy into one score, and what is that "
      "score called?"], None, "RankTuner", "RankTuner"),  # "that score": the one the first clause describes
    (["What is NorMuon?", "Has anyone in this collection studied speculative decoding?"], None, None,
     "No paper in the collection is about this question."),  # "this collection" is no reference to NorMuon
])
def test_extractive_conversation_turn_resolves_to_the_paper_under_discussion(bundled_store, settings, turns,
                                                                              standalone, cited, says):
    """`cited`: the start of the one cited paper's title (None: nothing cited); `says`: in the answer;
    `standalone` None: the question is not rewritten."""
    last = _converse(bundled_store, settings, turns)
    assert last.standalone_question == (standalone or turns[-1])  # None: the question as asked
    assert [c.paper.title[:len(cited)] for c in last.citations] == ([cited] if cited else []), last.text
    assert says in last.text


def test_a_marker_after_a_factor_is_a_citation_and_after_a_times_sign_is_not():
    """"by 2-3× [1]": × after a number is its unit, so [1] cites source 1 (the extractive answer lost
    its citation); "a 4 × [2] matrix": × between operands is math."""
    from assistant.answering import check_citations

    assert check_citations("RePro improves data efficiency by 2-3× [1].", 1) == (
        "RePro improves data efficiency by 2-3× [1].", [1], [])
    assert check_citations("a 4 × [2] matrix", 2)[1] == []


def test_the_two_papers_under_discussion_are_named_for_the_two_or_both():
    from assistant.answering import deterministic_rewrite, needs_history
    from assistant.conversation import Conversation

    conv = Conversation([_turn("What does STAR-KV do?", ["STAR-KV"]), _turn("And NorMuon?", ["NorMuon"])])
    assert needs_history("Which of the two reports a bigger percentage?")
    assert deterministic_rewrite("Which of the two reports a bigger percentage?", conv) == \
        "Which of STAR-KV and NorMuon reports a bigger percentage?"
    assert deterministic_rewrite("Do both papers need retraining?", conv) == "Do STAR-KV and NorMuon need retraining?"
    # "both X and Y" names them: self-contained
    assert not needs_history("Do both WinQ and EDEN use GPUs?")


def test_the_two_are_named_in_the_order_they_first_came_up():
    """fresh48 chats: turns about PowerFlow, PCR, then PowerFlow again; "which of the two ...?" named "PCR and
    PowerFlow" (the order of the latest turns), and "the second one" after it was read as PowerFlow, not PCR."""
    from assistant.answering import deterministic_rewrite
    from assistant.conversation import Conversation

    conv = Conversation([_turn("Is there a principled approach to RL from internal feedback?", ["PowerFlow"]),
                         _turn("and something on stabilising GRPO training?", ["PCR"]),
                         _turn("does the first one beat supervised GRPO?", ["PowerFlow"])])
    assert deterministic_rewrite("which of the two treats gradients as random variables?", conv) == (
        "which of PowerFlow and PCR treats gradients as random variables?")
    conv.turns.append(_turn("which of PowerFlow and PCR treats gradients as random variables?", ["PCR"]))
    assert deterministic_rewrite("what KL coefficient did the second one use?", conv) == (
        "what KL coefficient did PCR use?")


def test_the_two_after_a_longer_list_are_the_two_papers_the_turns_since_were_about():
    """fresh27: a three-paper answer, then turns about its first paper and about a paper found later; "Compare the
    two" compared the list's last two (EAPO and ALIVE, which no turn was about) and "the second one" followed it."""
    from assistant.answering import deterministic_rewrite
    from assistant.conversation import Conversation

    conv = Conversation([_turn("Any methods that fine-tune LLMs without external reward?",
                               ["PowerFlow", "EAPO", "ALIVE"]),
                         _turn("How does it trade off reasoning against creativity?", ["PowerFlow"]),
                         _turn("Is there a paper where a reasoner asks outside experts for help?", ["EAPO"])])
    assert deterministic_rewrite("Compare the two: where does each get its training signal?", conv) == (
        "Compare PowerFlow and EAPO: where does each get its training signal?")
    # right after the list, the turns since name no two papers: the list's last two, as before
    assert deterministic_rewrite("Compare the two.", Conversation(conv.turns[:1])) == "Compare EAPO and ALIVE."


def test_two_ordinals_sharing_one_noun_name_both_papers_of_the_list():
    """A new user's trial: "compare the first and the third" after a three-paper answer and a turn about its second
    paper was asked of the collection and refused ("nothing in it about 'third'")."""
    from assistant.answering import deterministic_rewrite, needs_history
    from assistant.conversation import Conversation

    conv = Conversation([_turn("Which papers are about pretraining efficiency?", ["NorMuon", "RePro", "OPUS"]),
                         _turn("How big is the rephraser of the second one?", ["RePro"])])
    assert needs_history("compare the first and the third")
    assert deterministic_rewrite("compare the first and the third", conv) == "compare NorMuon and OPUS"
    assert deterministic_rewrite("Compare the first and third ones: which is cheaper?", conv) == (
        "Compare NorMuon and OPUS: which is cheaper?")
    assert not needs_history("Is the first step expensive?")


def test_a_comparative_asked_of_a_thing_the_last_answer_gave_refers_back():
    """fresh27: "How much faster does attention get?" after an answer about STAR-KV was asked of the collection and
    answered "The abstracts do not say."; faster is faster with STAR-KV, whose abstract gives attention."""
    from assistant.answering import refers_to_last_answer, standalone_question
    from assistant.conversation import Conversation, Turn
    from assistant.events import Citation
    from assistant.store.paper import Paper

    abstract = "We compress the KV cache with low-rank projections. Our kernels speed up the attention module 6.9x."
    conv = Conversation([Turn("Is there a paper on low-rank KV cache compression?", answer="STAR-KV compresses [1].",
                              citations=(Citation(1, Paper(abstract=abstract, title="STAR-KV", id="p1")),))])
    assert refers_to_last_answer("How much faster does attention get?", conv)
    assert standalone_question("How much faster does attention get?", conv, None) == (
        "How much faster does attention get? (STAR-KV)")
    # a thing the last answer did not give, or no comparative: a question of its own
    for question in ("How much faster does speculative decoding get?", "How much does quantization improve accuracy?",
                     "How much faster is NorMuon than AdamW?"):
        assert standalone_question(question, conv, None) == question


def test_a_turn_that_found_no_paper_is_passed_over_when_the_follow_up_goes_on_about_an_earlier_paper():
    from assistant.answering import deterministic_rewrite
    from assistant.conversation import Conversation, Turn
    from assistant.events import Citation
    from assistant.store.paper import Paper

    quant = Paper(abstract="We propose Shrink, which speeds up quantization-aware training (QAT) fourfold.",
                  title="Shrink", id="p1")
    found = Turn("Which paper speeds up QAT?", answer="Shrink [1].", citations=(Citation(1, quant),))
    aside = Turn("What is the capital of France?", answer="No paper in the collection is about this question.",
                 refused=True)
    conv = Conversation([found, aside])
    assert deterministic_rewrite("How much does it speed up QAT?", conv) == "How much does Shrink speed up QAT?"
    # a follow-up that says nothing of the earlier paper stays with the aside, and is refused as it was
    assert deterministic_rewrite("How large is it?", conv) == "How large is France?"


def _each_citing_one(*turns):
    """A conversation of ``(question, title, abstract)`` turns, each answer citing that one paper."""
    from assistant.conversation import Conversation, Turn
    from assistant.events import Citation
    from assistant.store.paper import Paper

    return Conversation([Turn(q, citations=(Citation(1, Paper(abstract=abstract, title=title, id=f"p{i}")),))
                         for i, (q, title, abstract) in enumerate(turns, start=1)])


def test_the_topic_one_is_the_paper_the_conversation_cited_about_that_topic():
    from assistant.answering import resolve_described_one

    conv = _each_citing_one(
        ("Which paper quantizes?", "Shrink",
         "Quantization shrinks models. We propose Shrink for quantization. Quantization works."),
        ("And one on the KV cache?", "Squeeze",
         "We compress the KV cache with Squeeze. It uses mixed precision quantization."))
    assert resolve_described_one("Back to the quantization one: does it work for ViTs?", conv) == \
        "Back to Shrink: does it work for ViTs?"  # Squeeze mentions quantization once
    assert resolve_described_one("How much does the KV cache paper save?", conv) == "How much does Squeeze save?"
    # no cited paper is about the topic, or it is an ordinal: unchanged
    assert resolve_described_one("What about the robotics one?", conv) == "What about the robotics one?"
    assert resolve_described_one("Does the first one need training?", conv) == "Does the first one need training?"


def test_the_x_based_one_is_the_paper_about_x():
    """fresh18 c03.2: "tell me more about the entropy-based one" after a decoding list went to the first paper
    listed: "entropy-bas" (the hyphenated word's stem) is in no sentence. The compound's "-based" says "in the
    manner of"; the topic is "entropy", and hyphenated words of the abstract count by their parts."""
    from assistant.answering import resolve_described_one
    from assistant.conversation import Conversation, Turn
    from assistant.events import Citation
    from assistant.store.paper import Paper

    align = Paper(abstract="We introduce alignment-aware decoding. It needs no training beyond DPO.", title="AAD",
                  id="a")
    eden = Paper(abstract="We introduce Entropy-informed decoding (EDEN). It widens the beam where entropy is high.",
                 title="EDEN", id="e")
    conv = Conversation([Turn("Which papers decode at inference time?", citations=(Citation(1, align),
                                                                                Citation(2, eden)))])
    assert resolve_described_one("Tell me about the entropy-based one.", conv) == "Tell me about EDEN."
    assert resolve_described_one("And the alignment-aware one?", conv) == "And AAD?"


def test_the_topic_one_with_its_setting_is_the_paper_about_the_topic():
    """fresh48 chats: "going back to the tree-search one for diffusion LMs: do more simulations help?" was glued to
    the planning paper of the turn before (a setting after "one" was not read as part of the description)."""
    from assistant.answering import resolve_described_one

    conv = _each_citing_one(
        ("Which paper uses MCTS for diffusion LMs?", "DiffuSearch",
         "We propose DiffuSearch, a tree search over masked diffusion language models."),
        ("And one that plans first?", "PLAINTAIN",
         "We propose PLAINTAIN: the model writes a plan first so users can give feedback."))
    assert resolve_described_one("going back to the tree-search one for diffusion LMs: do more simulations help?",
                                 conv) == "going back to DiffuSearch: do more simulations help?"
    # a setting that goes on into the question is not part of the description
    assert resolve_described_one("is the tree-search one for code any good?", conv) == (
        "is the tree-search one for code any good?")


@pytest.mark.parametrize("question, subject", [
    ("which nonlinear ops are covered", "ANN-to-SNN"),
    ("Is there anything on deduplicating pretraining corpora?", ""),  # a search: a new topic, refused if absent
    ("wat about protein design with diffusion models", ""),  # a new topic (fresh22 chats)
    ("Different question: any benchmark for visual reasoning on chart images?", ""),  # the user moves on
    ("What does WinQ improve?", ""),  # names its own subject
    ("and what about a much longer question that goes on and on about many other things at once?", ""),
    # a search in another language is a new topic too (fresh54 chats: answered from the paper under discussion)
    ("Y a-t-il un article sur l'empoisonnement des données ?", ""),
    ("¿Hay algún trabajo sobre música?", ""),
    ("有没有关于蛋白质折叠的论文？", ""),
    ("它用了多少层？", "ANN-to-SNN"),  # a follow-up in Chinese that is no search goes on
    # a paper described that the conversation's is not (a new user's trial, round 35: "... (RePro)")
    ("who wrote the speculative decoding paper?", ""),
    ("who wrote the spiking paper?", "ANN-to-SNN"),  # the paper under discussion, described (a control)
])
def test_a_terse_question_that_finds_nothing_may_go_on_about_the_paper_under_discussion(question, subject):
    from assistant.answering import continued_subject
    from assistant.conversation import Conversation, Turn
    from assistant.events import Citation
    from assistant.store.paper import Paper

    paper = Paper(id="p1", title="ANN-to-SNN", abstract="ANN-to-SNN converts LLMs into spiking networks.")
    conv = Conversation()
    conv.add(Turn(question="Is there a paper on spiking LLMs?", citations=(Citation(1, paper, ()),)))
    assert continued_subject(question, question, conv) == subject
    assert continued_subject(question, question + " (WinQ)", conv) == ""  # rewritten already
    assert continued_subject(question, question, Conversation()) == ""



@pytest.mark.integration
@pytest.mark.parametrize("question", ["whats a good recipe for banana bread", "best hiking trails near the alps",
                                      # a full question asks for no paper, yet names a topic no paper covers (a second
                                      # new user's trial: "What's the best recipe for sourdough bread?" after EDEN)
                                      "What's the best recipe for sourdough bread?",
                                      "How do I fix a flat bicycle tire?"])
def test_a_terse_question_off_the_topic_does_not_go_on_about_the_paper_under_discussion(bundled_store, settings,
                                                                                     question):
    """A new user's trial (round 21): "whats the best recipe for sourdough bread" after NorMuon was read as going on
    about NorMuon and answered with its sentences: a topic the collection lacks (`Judgement.lacked`)."""
    from assistant.prompts import NO_RELEVANT_PAPER

    from assistant.spelling import chat_spelled

    last = _converse(bundled_store, settings, ["What is NorMuon?", question])
    assert last.text == NO_RELEVANT_PAPER and last.citations == (), last.text
    assert last.standalone_question == chat_spelled(question)  # "whats" is read as "what's"


@pytest.mark.integration
def test_a_search_for_a_topic_in_that_setting_after_a_code_question_is_refused(bundled_store, settings):
    """fresh23 chats: "what about byzantine-robust aggregation in that setting, any paper?" after "is their code
    public?" was answered with the paper's summary and code link: the rewrite's earlier question (a paper quoted by
    its opening words, with a bracket) set the kind, and "..., any paper?" after a comma was no search."""
    last = _converse(bundled_store, settings, ["Is there a convergence analysis of DPO with preferences spread over "
                                               "many users?", "where is their code?",
                                               "and sybil-resistant voting in that setting, any paper?"])
    assert last.refused and not last.citations, last.text
    assert "sybil" in last.note, last.note


@pytest.mark.integration
def test_papers_like_the_one_under_discussion_are_searched_by_its_topic(bundled_store, settings):
    """A new user's trial (round 17): "Are there any other papers like that?" after WinQ was rewritten "... (WinQ)"
    and answered "The abstracts do not say.": no other abstract mentions WinQ. It is a search for WinQ's topic (its
    first sentence: quantization-aware training of language models), WinQ set aside."""
    last = _converse(bundled_store, settings, ["How does WinQ speed up quantization-aware training?",
                                               "Are there other papers like that?"])
    assert last.standalone_question.startswith("Which other papers are about this: Quantization-aware training")
    cited = [c.paper.display_name for c in last.citations]
    assert "STAR-KV" in cited and "WinQ" not in cited, last.text
    # "any other paper on that?": the topic too, not the name (a new user's trial, round 28: "star" searched as a word)
    last = _converse(bundled_store, settings, ["How does WinQ speed up quantization-aware training?",
                                               "any other paper on that?"])
    assert last.standalone_question.startswith("Which other papers are about this: Quantization-aware training")
    assert "STAR-KV" in [c.paper.display_name for c in last.citations], last.text
    # a topic of its own that "like that" compares with (fresh23 chats) or describes (fresh24 chats): searched as is
    for own in ("has anyone used tree search like that for theorem proving?",
                "models that show a plan first so users can step in, is there something like that?"):
        last = _converse(bundled_store, settings, ["What is DiffuSearch?", own])
        assert not last.standalone_question.startswith("Which other papers"), last.standalone_question


@pytest.mark.parametrize("question, searched", [
    ("hmm ok. anything on models that show a plan early?", "anything on models that show a plan early?"),
    ("thanks. unrelated - is there a paper on attention heads?", "is there a paper on attention heads?"),
    ("OK, unrelated: anything on speech recognition?", "Anything on speech recognition?"),
    ("ok different q - anything on mixture of experts routing?", "anything on mixture of experts routing?"),
    ("ok danke. gibt es eine Evaluierung für Frontend-Code?", "gibt es eine Evaluierung für Frontend-Code?"),
    ("gracias. ¿y hay algo sobre LoRA?", "¿y hay algo sobre LoRA?"),
    # no punctuation after the word, or nothing left to search: as asked
    ("ok and the spiking nets one, does it need finetuning?", "ok and the spiking nets one, does it need finetuning?"),
    ("No free lunch theorems for RL?", "No free lunch theorems for RL?"),
    ("Super-resolution with diffusion models?", "Super-resolution with diffusion models?"),
    ("OK. Thanks!", "OK. Thanks!"),
])
def test_a_chat_turns_acknowledgement_is_not_searched(question, searched):
    """fresh29 kc10.4: "hmm ok. anything on models that show a plan early so users don't wait as long?" was refused
    (relevance 0.13 < 0.18) though the question without "hmm ok." finds PLAINTAIN (0.22)."""
    from assistant.answering import without_preamble

    assert without_preamble(question) == searched


def test_an_ordinal_ending_its_phrase_points_back():
    """fresh29 kc03.3: "and the second, what's the compute overhead" after "compare RePro and OPUS" was asked of the
    collection and answered from NorMuon; "the second one" was resolved, "the second," was not."""
    from assistant.answering import deterministic_rewrite
    from assistant.conversation import Conversation

    conv = Conversation([_turn("can you compare RePro and OPUS?", ["RePro", "OPUS"]),
                         _turn("for the first one, how big is the rephraser", ["RePro"],
                               "for RePro, how big is the rephraser")])
    assert deterministic_rewrite("and the second, what's the compute overhead", conv) == (
        "and OPUS, what's the compute overhead")
    # only the other paper: the question before, asked of it (a new user's trial, round 29: "and the first?")
    assert deterministic_rewrite("what about the latter?", conv) == "for OPUS, how big is the rephraser"
    assert deterministic_rewrite("Is the second stage expensive?", conv) == "Is the second stage expensive?"


def test_german_nouns_are_not_names():
    """fresh29 kc08: "und wie schneiden Menschen im Vergleich ab?" after a German question answered with A2RBench read
    "Menschen" and "Vergleich" as names (German capitalises every noun): asked on its own, it was refused, and
    the next turn's "it" became "Menschen and Vergleich". A capitalised word in an English question is still one."""
    from assistant.answering import _entities, continued_subject
    from assistant.conversation import Conversation

    question = "und wie schneiden Menschen im Vergleich ab?"
    assert _entities(question) == []
    assert _entities("Does it run with Triton kernels?") == ["Triton"]
    conv = Conversation([_turn("Gibt es einen Benchmark für abstraktes Denken bei LLMs?", ["A2RBench"])])
    assert continued_subject(question, question, conv) == "A2RBench"  # tried when read on its own it finds nothing


def test_the_previous_one_is_the_paper_discussed_before_the_current_one():
    """A new user's trial: "compare it with the previous one" after turns about WinQ, then STAR-KV became "compare
    STAR-KV with the previous one", which cited STAR-KV alone."""
    from assistant.answering import deterministic_rewrite, needs_history
    from assistant.conversation import Conversation

    conv = Conversation([_turn("Is there work on speeding up quantization-aware training?", ["WinQ"]),
                         _turn("How much faster is it?", ["WinQ"], "How much faster is WinQ?"),
                         _turn("Is there a paper on low-rank KV cache compression?", ["STAR-KV"])])
    assert needs_history("compare it with the previous one")
    assert deterministic_rewrite("compare it with the previous one", conv) == "compare STAR-KV with WinQ"
    assert deterministic_rewrite("Does the earlier method need retraining?", conv) == (
        "Does WinQ need retraining?")


@pytest.mark.parametrize("question, needs", [
    ("Wie groß ist das Modell beim Pretraining?", True),
    ("Quel est le nom de la méthode et que signifie l'acronyme ?", True),
    ("¿Cuánta memoria usa el método?", True),
    ("Wie schnell ist seine Konvergenz?", True),
    # the generic nouns of English follow-ups in other languages (fresh52 chats: "Welche Stufen hat die Pipeline?" after
    # a turn on the benchmark pipeline was answered from another paper)
    ("Welche Stufen hat die Pipeline?", True),
    ("Quels sont les résultats principaux ?", True),
    ("¿Qué estrategia usa el sistema?", True),
    # a study's code or licence, as in English "under which licence is the code released?" (a new user's trial, round
    # 37: "sous quelle licence le code est-il publié ?" after EDEN was answered from ALIVE)
    ("sous quelle licence le code est-il publié ?", True),
    ("¿dónde está el código?", True),
    ("Wo ist der Code verfügbar?", True),
    ("Y a-t-il un article qui publie le code de son optimiseur ?", False),
    ("Gibt es eine Arbeit über eine Pipeline für Datenbereinigung?", False),
    # a search, or a question naming its paper: self-contained
    ("Gibt es eine Arbeit über das Modell-Pruning?", False),
    ("¿Hay algún trabajo sobre cuantización?", False),
    ("Quelle est la taille du modèle de RePro ?", False),
])
def test_a_reference_back_in_another_language_needs_the_history(question, needs):
    """A new user's trial: "Wie groß ist das Modell beim Pretraining?" after "Tell me about NorMuon" was answered from
    RePro, and "Quel est le nom de la méthode et que signifie l'acronyme ?" after "What is PLAINTAIN?" was refused."""
    from assistant.answering import deterministic_rewrite, needs_history
    from assistant.conversation import Conversation

    assert needs_history(question) is needs
    if needs:
        conv = Conversation([_turn("Tell me about NorMuon", ["NorMuon"])])
        assert deterministic_rewrite(question, conv) == f"{question} (NorMuon)"


def test_the_two_after_two_single_paper_turns_are_those_papers():
    """A new user's trial: "What is PowerFlow?", "What is RankTuner?", "how do the two differ?" became "how do the two
    differ? (RankTuner)": "the two" before a verb was not read as the pair, and no turn listed both."""
    from assistant.answering import deterministic_rewrite
    from assistant.conversation import Conversation

    conv = Conversation([_turn("What is PowerFlow?", ["PowerFlow"]), _turn("What is RankTuner?", ["RankTuner"])])
    assert deterministic_rewrite("how do the two differ?", conv) == "how do PowerFlow and RankTuner differ?"


def test_which_of_them_names_the_lists_papers_in_place():
    """A new user's trial: "which of them uses reinforcement learning?" after a four-paper list became "... (RePro,
    NorMuon, OPUS and ALIVE)" and was refused: names in brackets read as examples, not the papers to choose from."""
    from assistant.answering import deterministic_rewrite
    from assistant.conversation import Conversation

    conv = Conversation([_turn("What's in here on pretraining data?", ["RePro", "NorMuon", "OPUS", "ALIVE"])])
    assert deterministic_rewrite("which of them uses reinforcement learning?", conv) == (
        "which of RePro, NorMuon, OPUS and ALIVE uses reinforcement learning?")


def test_back_to_the_kind_of_paper_is_the_paper_of_that_kind_discussed_before():
    """A chat-focused new user's trial: "back to the optimizer - does it scale to multiple GPUs?" after NorMuon and a KV
    cache question was not rewritten: "the optimizer" read as the question's own subject."""
    from assistant.answering import resolve_described_one
    from assistant.conversation import Conversation, Turn
    from assistant.events import Citation
    from assistant.store.paper import Paper

    normuon = Paper(abstract="We propose NorMuon, an optimizer that combines orthogonalization with adaptive rates.",
                    title="NorMuon", id="p1")
    starkv = Paper(abstract="We propose STAR-KV, a low-rank KV cache compression framework.", title="STAR-KV", id="p2")
    conv = Conversation([Turn("Tell me about NorMuon", answer="NorMuon [1].", citations=(Citation(1, normuon),)),
                         Turn("Is there work on KV cache compression?", answer="STAR-KV [1].",
                              citations=(Citation(1, starkv),))])
    assert resolve_described_one("back to the optimizer - does it scale to multiple GPUs?", conv) == (
        "back to NorMuon - does it scale to multiple GPUs?")
    assert resolve_described_one("Does the optimizer scale?", conv) == "Does the optimizer scale?"


def test_the_first_two_are_the_lists_first_two_papers():
    """A chat-focused new user's trial: "compare the first two." after a three-paper list was asked of the collection
    and named four other papers; "compare the first and the last one" after a one-paper list became "compare AAD and
    AAD one"."""
    from assistant.answering import deterministic_rewrite
    from assistant.conversation import Conversation

    conv = Conversation([_turn("What's in the collection about training instability?", ["PCR", "mHC", "PLAINTAIN"])])
    assert deterministic_rewrite("compare the first two.", conv) == "compare PCR and mHC."
    assert deterministic_rewrite("compare the last two papers", conv) == "compare mHC and PLAINTAIN"
    assert deterministic_rewrite("Do the first two layers matter?", conv) == "Do the first two layers matter?"
    one = Conversation([_turn("Which papers change decoding at inference time?", ["AAD"])])
    assert "AAD and AAD" not in deterministic_rewrite("compare the first and the last one", one)


@pytest.mark.integration
def test_a_paper_without_a_name_compared_with_a_named_one_is_cited_beside_it(bundled_store, settings):
    """fresh32 pc08.5 (round 22): the rewrite names the attention-heads paper by its opening words ('the paper that
    begins "The reasoning patterns ..."'), and the comparison with PLAINTAIN cited PLAINTAIN alone: the other paper
    "does not mention PLAINTAIN, which the question names". The opening words point at their paper as a name does."""
    last = _converse(bundled_store, settings, [
        "Which paper studies attention heads during reasoning and finds preplan and anchor tokens?",
        "How do that paper and PLAINTAIN differ in what planning means?"])
    assert 'the paper that begins "' in last.standalone_question
    assert sorted(c.paper.title[:20] for c in last.citations) == ["PLAINTAIN", "The reasoning patter"], last.text


@pytest.mark.integration
def test_a_turn_that_says_it_changes_topic_is_not_glued_to_the_paper_under_discussion(bundled_store, settings):
    """fresh33 qc04.4 (round 22): "totally unrelated, but do any of these abstracts cover ...?" read "these abstracts"
    as a reference, got NorMuon's question glued on and was answered from NorMuon."""
    from assistant.answering import needs_history

    question = "totally unrelated, but do any of these abstracts cover graph neural networks for molecules?"
    assert not needs_history(question)
    assert needs_history("Do any of these papers use RL?")  # no switch said: the papers just listed
    last = _converse(bundled_store, settings, ["What is NorMuon?", "Does it scale to multiple GPUs?", question])
    assert "NorMuon" not in last.standalone_question and not last.citations, (last.standalone_question, last.text)


@pytest.mark.integration
def test_going_back_to_a_thing_discussed_before_an_aside_resolves_to_its_paper(bundled_store, settings):
    """fresh33 qc08.4 (round 22): "back to the benchmark, where can i get the code" after an out-of-collection aside was
    read on its own ("benchmark" as its subject) and answered "the abstracts do not say"."""
    last = _converse(bundled_store, settings, [
        "Which paper builds an automated benchmark for abstract reasoning?",
        "Is there a paper on speculative decoding?",
        "back to the benchmark, is its code available?"])
    assert [c.paper.title for c in last.citations] == ["A$^2$RBench"], (last.standalone_question, last.text)


@pytest.mark.integration
def test_it_after_a_one_paper_answer_to_which_of_them_is_that_paper(bundled_store, settings):
    """A new user's trial (round 22): "Which of them uses external experts?" after a six-paper list was answered from
    EAPO alone, its rewrite quoting two listed papers by their opening words; "What gain does it report?" then asked
    about EAPO and those two papers."""
    last = _converse(bundled_store, settings, [
        "Which papers use reinforcement learning for LLM reasoning?",
        "Which of them uses external experts?",
        "What gain does it report?"])
    assert last.standalone_question == "What gain does EAPO report?"
    assert [c.paper.title for c in last.citations] == ["EAPO"], last.text


@pytest.mark.parametrize("question, follow_up", [
    # chats fresh40 (round 26): each was read as a new question and answered from another paper
    ("whats the gain", True),  # "whats" typed without its apostrophe is no topic word
    ("how do humans compare", True),  # a comparison with its second term left out
    ("how does GRPO fare?", True),
    ("How does STAR-KV compare with WinQ?", False),  # both terms given
    ("Which papers compare optimizers for LLM pretraining?", False),
])
def test_a_follow_up_typed_fast_or_comparing_with_what_was_discussed_needs_history(question, follow_up):
    from assistant.answering import needs_history
    from assistant.spelling import chat_spelled

    assert needs_history(chat_spelled(question)) is follow_up


@pytest.mark.parametrize("question, beside", [
    ("whats the other pretraining data paper in here?", True),  # "the other" with a topic: another paper
    ("Any other work on KV cache compression?", True),
    ("Does the other one need retraining?", False),  # of two: the other of those discussed, not a search
    ("Compare the other two papers.", False),
])
def test_the_other_paper_on_a_topic_looks_beyond_the_paper_just_given(question, beside):
    from assistant.answering import _ANOTHER

    assert bool(_ANOTHER.search(question)) is beside


@pytest.mark.integration
@pytest.mark.parametrize("turns, cited", [
    # written for round 26's kinds (chats fresh40: RePro given again; STAR-KV's speed-up for WinQ's question)
    (["Is there work on rewriting web text to make better pretraining data?",
      "whats the other pretraining data paper in here?"], "OPUS"),
    (["why does quantization-aware training converge so slowly? any paper?", "whats the speedup"], "WinQ"),
    (["Is there a benchmark of abstract reasoning that compares LLMs with people?", "how do humans compare"],
     "A$^2$RBench"),
])
def test_a_follow_up_typed_fast_stays_with_the_paper_under_discussion(bundled_store, settings, turns, cited):
    last = _converse(bundled_store, settings, turns)
    assert [c.paper.title for c in last.citations] == [cited], (last.standalone_question, last.text)


@pytest.mark.integration
@pytest.mark.parametrize("question, cited", [
    # chats fresh40 (round 26): "cutting" no abstract writes; NorMuon states "a 21.74% reduction in training steps"
    ("any paper on cutting the number of training steps with a new optimizer?", "NorMuon"),
    # "rewriting" against RePro's "rephrasings of pretraining data" (refused: "no paper mentions 'rewriting'")
    ("Is there work on rewriting web text to make better pretraining data?", "RePro"),
    # "shrinking" says "compression" (fresh43 chats, round 27: refused, "no paper mentions 'shrinking'")
    ("any work on shrinking the kv cache with low-rank projections?", "STAR-KV"),
])
def test_a_concept_asked_in_other_words_than_the_abstracts_finds_its_paper(bundled_store, settings, question, cited):
    obj = _extractive(bundled_store, settings, question)
    assert [c["title"] for c in obj["citations"]] == [cited], obj["answer"]


# --- issue 8, round 29: kinds from fresh44's conversations (read as development data) ---------------------------------

@pytest.mark.parametrize("question, follow_up", [
    # "which company" is what the question asks for, not what "it" stands for (fresh44 chats: "which lab is it from")
    ("which company made it?", True),
    ("which kv cache method beats it", True),
    ("what dataset was it trained on", True),
    ("which paper compresses the kv cache and how much does it save", False),
    ("what corpus did repro sample its tokens from", False),  # its subject is in the clause (fresh45 chats)
    # "it" is the paper the question describes (a new user's trial, round 29: glued to the paper under discussion)
    ("what about the decoding paper that uses entropy, does it need training?", False),
    # a paper's part, or how the best models do, asked with nothing named (fresh47 chats: searched on their own)
    ("what's the training objective", True),
    ("how do top models do vs people", True),
])
def test_the_noun_a_question_asks_for_is_no_antecedent(question, follow_up):
    from assistant.answering import needs_history

    assert needs_history(question) is follow_up


@pytest.mark.integration
def test_going_back_to_a_topic_in_the_users_words_finds_the_paper_discussed(bundled_store, settings):
    """fresh44 chats: "back to diffusion lms - is plain left to right order the best?" after two papers and an aside
    was refused: no determiner after "back to", "lms" no abstract writes, and DiffuSearch writes "Masked Diffusion
    Models", not "language models". The discussed paper holding the topic's rarer words is the one gone back to."""
    last = _converse(bundled_store, settings, ["which papers report results on humaneval or mbpp",
                                               "anything on membership inference attacks?",
                                               "back to diffusion lms: does the generation order matter?"])
    assert last.standalone_question.startswith("back to DiffuSearch"), last.standalone_question
    assert [c.paper.title for c in last.citations] == ["DiffuSearch"], last.text
    # going back to a topic to ask the collection for a paper: searched as asked, not glued to a paper discussed
    last = _converse(bundled_store, settings, ["is there a paper where the model writes a plan before reasoning?",
                                               "going back to plans: which paper finds a preplan-and-anchor pattern "
                                               "in attention?"])
    assert [c.paper.title for c in last.citations] != ["PLAINTAIN"], (last.standalone_question, last.text)
    assert "preplan-and-anchor" in last.text, last.text


@pytest.mark.integration
def test_any_other_papers_on_a_topic_names_each_and_the_other_one_is_the_second(bundled_store, settings):
    """fresh44 chats: "any other papers on decoding like that?" after DiffuSearch named EDEN only ("any other papers"
    was not read as asking for papers), so "the other one" later was DiffuSearch, not alignment-aware decoding."""
    obj = _extractive(bundled_store, settings, "any other papers on decoding?")
    assert {"EDEN", "AAD"} <= {c["title"] for c in obj["citations"]}, obj["answer"]
    last = _converse(bundled_store, settings, ["is there a paper on choosing the infill order of diffusion models?",
                                               "any other papers on decoding like that?",
                                               "the entropy one - does it come with a guarantee?",
                                               "and the other one, does it need extra training"])
    assert [c.paper.title for c in last.citations] == ["AAD"], (last.standalone_question, last.text)
    assert "no specialized training" in last.text, last.text


@pytest.mark.integration
@pytest.mark.parametrize("question, said, unsaid", [
    # the factors acting on a quantity, not its value (fresh44 chats: "what affects the convergence rate": "does not
    # say", no rate being written)
    ("what influences the convergence rate of federated DPO?", "client drift", None),
    # how a method works: what it is and what it does (fresh44 chats: NorMuon's analysis and its 21.74% were quoted)
    ("how does NorMuon work?", "row-wise normalization", "21.74"),
    ("how does NorMuon work, and by how much does it beat AdamW?", "row-wise normalization", None),
    ("Compare EAPO and PCR: what is the core idea of each?", "soft projection", None),
    # things counted, not listed: which they are the abstract does not say (fresh44 chats: "which 22 tasks were those")
    ("Which 22 downstream tasks was RePro evaluated on?", "The abstracts do not say", "3.7%"),
    # counted and then listed in the sentence, or described right after their noun: said
    ("Which three RL strategies does the preplan and anchor paper introduce?", "anchor tokens", None),
    ("What two metrics does the preplan and anchor paper use?", "backward attention", None),
    # a yes-no question after a comma is a clause of its own (fresh44: the why was never answered)
    ("Why does QAT of language models converge so slowly below 4 bits, and is there a fix? How much faster is it?",
     "saddle points", None),
    # the why of a question that also asks for a fix is its finding, not the symptom restated (fresh47)
    ("why does qat plateau so early below 4 bits, and is there a method that speeds it up?", "saddle points", None),
    # a new user's trial (round 29): limitations no sentence states; things counted and never listed
    ("What are the limitations of DiffuSearch?", "The abstracts do not say", "exploration constants"),
    ("What are the three faithfulness rewards in RePro?", "The abstracts do not say", None),
    ("What are the three components of STAR-KV?", "hybrid decomposition", None),
    # "a trade-off between ..." says which trade-off (fresh47 chats: "does not say")
    ("What trade-off is PCR fixing?", "plasticity", None),
    # a tokenizer the abstract never names; things a benchmark is asked to include (fresh47 chats: sentences quoted)
    ("What tokenizer did RePro use for its pretraining runs?", "The abstracts do not say", "72B"),
    ("Does A2RBench include ARC-AGI tasks?", "The abstracts do not say", None),
    # several GPUs typed with a space ("multi gpu": refused as a thing NorMuon's abstract does not state)
    ("does NorMuon scale to multi gpu", "FSDP2", None),
    # where the authors work (fresh44 chats: "which lab is it from" quoted mHC's overview)
    ("Which lab is mHC from?", "The abstracts do not say", "topological"),
    # a value stated as a relation: "(α > 1)" is no enumerator "1)" (a new user's trial, round 29: "What value of
    # alpha ...?" was "The abstracts do not say.")
    ("What value of alpha sharpens the distribution in PowerFlow?", "α > 1", None),
    ("Which exact value of alpha does PowerFlow use in its reasoning experiments?", "The abstracts do not say",
     "α > 1"),  # a bound is no exact value
    # whether the code is open source is the code's availability (round 30: the paper's results were quoted)
    ("is STAR-KV open source?", "github.com", "75%"),
    # where it appeared: not in the abstract, in the collection's record (round 30: the paper's overview was quoted)
    ("Which conference was STAR-KV presented at?", "the collection's record of STAR-KV gives ICML 2026", "75%"),
])
def test_extractive_answers_what_the_question_asks(bundled_store, settings, question, said, unsaid):
    obj = _extractive(bundled_store, settings, question)
    assert said in obj["answer"], obj["answer"]
    assert unsaid is None or unsaid not in obj["answer"], obj["answer"]


@pytest.mark.integration
def test_each_paper_a_question_describes_is_resolved(bundled_store, settings):
    """fresh47 chats: "compare the entropy one and the alignment one - which needs training?" resolved the first
    described paper only, and alignment-aware decoding was left out; "the muon variant" was no described paper."""
    last = _converse(bundled_store, settings, ["which papers are about decoding?",
                                               "compare the entropy one and the alignment one - which needs training?"])
    assert last.standalone_question.startswith("compare EDEN and AAD"), last.standalone_question
    assert {c.paper.title for c in last.citations} == {"EDEN", "AAD"}, last.text
    # a paper described and asked how it works: what it is and what it does (fresh47 chats: its background quoted)
    last = _converse(bundled_store, settings, ["papers on rl for llm reasoning?",
                                               "ok and the grpo stability paper - whats the main idea"])
    assert [c.paper.title for c in last.citations] == ["PCR"] and "soft projection" in last.text, last.text
    last = _converse(bundled_store, settings, ["whats the new muon variant about",
                                               "any work on the lion optimizer?",
                                               "does the muon variant scale to multiple gpus"])
    assert [c.paper.title for c in last.citations] == ["NorMuon"] and "FSDP2" in last.text, last.text


@pytest.mark.parametrize("question, about", [
    ("what about selecting data instead of rewriting it", "approach"),
    ("what about decoding that spends more compute only when the model is unsure", "approach"),
    ("what about making quantization-aware training converge faster", "approach"),
    ("what about protein design with diffusion models", "topic"),
    ("what about code generation?", ""),  # a domain for the paper under discussion
    ("what about vision transformers?", ""),
    ("what about robotics?", ""),
    ("what about for code?", ""),
    ("what about using it for code?", ""),  # "it" is the paper under discussion
    ("what about the accuracy?", ""),
    ("how does it compare with selecting data instead of rewriting it?", ""),  # no "what about"
])
def test_a_what_about_question_naming_an_approach_or_topic_of_its_own(question, about):
    from assistant.answering import about_topic

    assert about_topic(question) == about


@pytest.mark.integration
def test_what_about_another_approach_is_searched_when_the_paper_under_discussion_is_not_it(bundled_store, settings):
    """fresh46 chats: "what about selecting data instead of rewriting it" after the web-rewriting paper was glued to it
    and answered "The abstracts do not say."; the data-selection paper answers it. An approach the paper under
    discussion is goes on about it."""
    last = _converse(bundled_store, settings, ["any work on rewriting web data for pretraining?",
                                               "what about selecting data instead of rewriting it"])
    assert last.standalone_question == "what about selecting data instead of rewriting it"
    assert [c.paper.title for c in last.citations] == ["OPUS"], last.text
    last = _converse(bundled_store, settings, ["Is there a paper on decoding that adapts to the model's uncertainty?",
                                               "what about decoding that spends more compute only when the model "
                                               "is unsure"])
    assert [c.paper.title for c in last.citations] == ["EDEN"], last.text
    last = _converse(bundled_store, settings, ["any work on rewriting web data for pretraining?",
                                               "what about code generation?"])
    assert "(RePro)" in last.standalone_question
    # a topic the collection lacks is no question about the paper under discussion (fresh22 chats: "The abstracts do
    # not say." of the diffusion paper)
    last = _converse(bundled_store, settings, ["masked diffusion models for code - does the infilling order matter?",
                                               "what about protein design with diffusion models"])
    assert last.refused and not last.citations and last.text.startswith("No paper"), last.text


@pytest.mark.integration
def test_a_paper_named_by_its_opening_words_is_answered_from_the_sentence_asked_about(bundled_store, settings):
    """fresh46 chats: 'compare AAD and the paper that begins "Preference-based ..."', which one gives convergence
    guarantees?' quoted the unnamed paper's opening sentence (the quoted words read as the question's) instead of
    its convergence rates."""
    obj = _extractive(bundled_store, settings, 'compare AAD and the paper that begins "Preference-based reinforcement '
                                               'learning (RL) is a key…", which one gives convergence guarantees?')
    # (the answer lists AAD first, as the question names it)
    line = next(x for x in obj["answer"].splitlines() if x.startswith("Preference-based"))
    assert "convergence rates" in line and "is a key paradigm" not in line, obj["answer"]
    # of that paper alone, its opening words are what points at it, and its sentences are the answer's anyway
    obj = _extractive(bundled_store, settings, 'Does the paper that begins "Preference-based reinforcement learning '
                                               '(RL) is a key…" report any experiments, or is it purely theoretical?')
    assert not obj["answer"].startswith("The abstracts do not say"), obj["answer"]


@pytest.mark.integration
def test_a_technique_the_abstract_never_names_is_not_said_to_be_used(bundled_store, settings):
    """fresh46 chats: "do they use rl for the post training" of PLAINTAIN quoted its post-training sentence, which
    says nothing of reinforcement learning."""
    obj = _extractive(bundled_store, settings, "does PLAINTAIN use rl for the post training")
    assert obj["answer"].startswith("The abstracts do not say"), obj["answer"]
    obj = _extractive(bundled_store, settings, "Does NorMuon use orthogonalization for its updates?")
    assert "orthogonaliz" in obj["answer"], obj["answer"]


@pytest.mark.integration
def test_a_follow_up_that_is_only_another_paper_asks_the_question_before_of_it(bundled_store, settings):
    """A new user's trial, round 29: "and the first?" after "how much does the second one gain?" became "and AAD?" and
    was answered with AAD's overview; it asks how much the first one gains."""
    last = _converse(bundled_store, settings, ["which papers are about decoding?",
                                               "how much does the second one gain?", "what about the third one?"])
    assert last.standalone_question == "how much does DiffuSearch gain?"
    assert "19.5%" in last.text, last.text
    last = _converse(bundled_store, settings, ["which papers are about decoding?", "what is the first one?",
                                               "and the second?"])
    assert last.standalone_question == "what is EDEN?"


@pytest.mark.integration
def test_which_one_after_an_answer_citing_several_papers_chooses_among_them(bundled_store, settings):
    """A new user's trial, round 29: "which one needs no training?" after STAR-KV and EDEN were compared was searched as
    a new question and answered from the web-rewriting paper."""
    last = _converse(bundled_store, settings, ["compare STAR-KV and EDEN", "which one needs no training?"])
    assert last.standalone_question == "which of STAR-KV and EDEN needs no training?"
    assert {c.paper.title for c in last.citations} <= {"STAR-KV", "EDEN"}, last.text
    # after an answer citing one paper, "which one" asks the collection
    last = _converse(bundled_store, settings, ["What is WinQ?", "which one rewrites web data for pretraining?"])
    assert last.standalone_question == "which one rewrites web data for pretraining?"
    assert [c.paper.title for c in last.citations] == ["RePro"], last.text


@pytest.mark.integration
def test_a_described_paper_no_answer_gave_is_the_one_of_the_conversation_topic(bundled_store, settings):
    """fresh24 chats: after an answer giving only the web-rewriting paper for "I'm running short of good web text for
    pretraining", "The selection one: what's the extra compute cost?" was searched as a new question and the optimizer
    paper's compute sentence quoted; the data-selection paper is the one described."""
    last = _converse(bundled_store, settings, ["I'm running short of good web text for pretraining. What in here "
                                               "could help?", "The selection one: what's the extra compute cost?"])
    assert last.standalone_question == "OPUS: what's the extra compute cost?"
    assert [c.paper.title for c in last.citations] == ["OPUS"] and "4.7%" in last.text, last.text


@pytest.mark.integration
def test_the_other_paper_of_a_list_looks_beyond_the_one_just_discussed(bundled_store, settings):
    """A new user's trial, round 30: after a list of four and "how much compute overhead does the first one add?",
    "ok and the other pretraining data paper?" set the whole list aside and went back to the first one; the other
    pretraining-data paper of the list is the one asked for."""
    last = _converse(bundled_store, settings, ["whats in here on pretraining data?",
                                               "how much compute overhead does the first one add?",
                                               "ok and the other pretraining data paper?"])
    assert [c.paper.title for c in last.citations] == ["OPUS"], last.text


@pytest.mark.integration
def test_going_back_to_the_one_described_after_its_noun(bundled_store, settings):
    """A new user's trial, round 30: "back to the one with external experts - which benchmarks?" was glued to the
    paper of the turn before and answered "The abstracts do not say."; the expert-assisted paper lists them."""
    last = _converse(bundled_store, settings, ["which papers use rl for llm reasoning?",
                                               "what about grpo training stability?",
                                               "back to the one with external experts - which benchmarks?"])
    assert last.standalone_question == "back to EAPO - which benchmarks?"
    assert [c.paper.title for c in last.citations] == ["EAPO"] and "AIME" in last.text, last.text


@pytest.mark.integration
def test_a_topic_named_after_the_noun_describes_the_paper_writing_it_as_a_phrase(bundled_store, settings):
    """fresh30 chats: "and the one about quantization-aware training, how much does it speed up QAT?" after the KV-cache
    paper was taken for it (its "low-rank–aware mixed precision quantization" and "training" apart); the paper on
    quantization-aware training is the one described."""
    last = _converse(bundled_store, settings, ["is there work on shrinking the kv cache?",
                                               "and the one about quantization-aware training, how much does it "
                                               "speed up QAT?"])
    assert [c.paper.title for c in last.citations] == ["WinQ"] and "4×" in last.text, last.text


@pytest.mark.integration
def test_which_ones_after_a_list_chooses_among_the_listed_papers(bundled_store, settings):
    """Round 32: "which ones use experts?" after a list was read as a question about EAPO, and answered "the abstracts
    do not say which experts"; it chooses among the list's papers, as "which of them" does."""
    last = _converse(bundled_store, settings, ["which papers are about LLM reasoning with RL?",
                                               "which ones use experts?"])
    assert last.standalone_question.startswith("which of "), last.standalone_question
    assert "EAPO" in last.standalone_question
    assert [c.paper.title for c in last.citations] == ["EAPO"], last.text
    assert "do not say" not in last.text, last.text


@pytest.mark.integration
def test_each_of_two_papers_one_named_in_words_is_answered(bundled_store, settings):
    """fresh49 chats: "two papers: the entropy-based decoding one and alignment-aware decoding. what does each do?"
    named AAD alone (EDEN "does not mention AAD"), and "the first one" next was read as AAD."""
    turns = ["two papers: the entropy-based decoding one and alignment-aware decoding. what does each do?"]
    last = _converse(bundled_store, settings, turns)
    assert {c.paper.title for c in last.citations} == {"EDEN", "AAD"}, last.text
    last = _converse(bundled_store, settings, [*turns, "and the first one — what do they prove about it?"])
    assert [c.paper.title for c in last.citations] == ["EDEN"], last.text
    assert "regret" in last.text, last.text


@pytest.mark.integration
def test_the_first_one_after_a_theme_is_the_answers_first_listed_in_the_questions_order(bundled_store, settings):
    """A several-paper answer lists its papers in the order the question names them, and "the first one" is the
    answer's first: "papers on kv cache compression, quantization-aware training, or spiking llms?" then "the first two"
    (chats fresh43: the answer listed the spiking paper second, in retrieval order, and "the first two" meant the
    question's); "Which papers do token-level credit assignment or token reweighting?" then "the first one" (fresh50
    chats: the answer listed RankTuner first and "the first one" was resolved by the question's order)."""
    first = "papers on kv cache compression, quantization-aware training, or spiking llms?"
    answer = _converse(bundled_store, settings, [first])
    assert [c.paper.title for c in answer.citations] == ["STAR-KV", "WinQ", "ANN-to-SNN"], answer.text
    last = _converse(bundled_store, settings, [first, "the first two - what speedups"])
    assert last.standalone_question == "STAR-KV and WinQ - what speedups"
    first = "Which papers do token-level credit assignment or token reweighting?"
    answer = _converse(bundled_store, settings, [first])
    last = _converse(bundled_store, settings, [first, "For the first one, what two signals does it combine?"])
    assert [c.paper.title for c in last.citations] == [answer.citations[0].paper.title], last.standalone_question


@pytest.mark.integration
def test_a_theme_with_a_repeated_preposition_after_an_article_names_both_papers(bundled_store, settings):
    """fresh50 chats: "which papers in here deal with the KV cache or with quantization?" named STAR-KV alone (WinQ
    "a weaker match"), and "the second one" later was STAR-KV again."""
    last = _converse(bundled_store, settings, ["Which papers in here deal with the KV cache or with quantization?",
                                               "ok, back to the second one: how much does it improve sub-4-bit "
                                               "quantization at the same training cost?"])
    assert [c.paper.title for c in last.citations] == ["WinQ"], last.text
    assert "8.8%" in last.text, last.text


@pytest.mark.integration
def test_what_a_paper_goes_beyond_is_not_asked_of_it(bundled_store, settings):
    """fresh50 chats: "is there an abstract reasoning benchmark that goes beyond 2D grids?" was refused ("nothing in
    it about 'grids'") beside A²RBench's 1D, 2D and 3D tasks; what is gone past is contrasted, as "instead of"."""
    last = _converse(bundled_store, settings, ["is there an abstract reasoning benchmark that goes beyond 2D grids?"])
    assert [c.paper.title for c in last.citations] == ["A$^2$RBench"], last.text


@pytest.mark.integration
def test_the_first_and_the_third_how_do_they_differ_cites_both(bundled_store, settings):
    """A new user's trial, round 32: after "Which papers use reinforcement learning for reasoning?", "The first and the
    third: how do they differ?" was rewritten to PLAINTAIN and the unnamed paper, and only PLAINTAIN was cited: "X and
    Y: how do they differ?" is a comparison, as "how do X and Y differ?" is."""
    last = _converse(bundled_store, settings, ["Which papers use reinforcement learning for reasoning?",
                                               "The first and the third: how do they differ?"])
    assert len({c.paper.title for c in last.citations}) == 2, last.text


@pytest.mark.integration
def test_a_list_asked_as_verb_phrases_joined_by_or_names_each_paper(bundled_store, settings):
    """A new user's trial, round 32: "Which papers compress the KV cache or quantize models?" named STAR-KV alone
    ("compress" read as a key word every paper must have), so "the second one" later was RankTuner."""
    last = _converse(bundled_store, settings, ["Which papers compress the KV cache or quantize models?",
                                               "which ones use low-rank methods?",
                                               "the second one - how much faster is it?"])
    assert last.standalone_question == "WinQ - how much faster is it?"
    assert "4×" in last.text, last.text


@pytest.mark.integration
def test_that_one_after_a_choice_between_two_papers_is_the_one_chosen(bundled_store, settings):
    """fresh49 chats: "compare it with the GFlowNet one — which of the two needs no external supervision at all?" then
    "what does setting alpha below 1 do in that one?": a choice lists the better match first (as retrieved), not in the
    order the question names the two, and "that one" is PowerFlow."""
    last = _converse(bundled_store, settings, [
        "RL for reasoning where the model can consult external experts during training?",
        "compare it with the GFlowNet one — which of the two needs no external supervision at all?",
        "what does setting alpha below 1 do in that one?"])
    assert last.standalone_question == "what does setting alpha below 1 do in PowerFlow?"


def test_a_definite_object_the_last_paper_gave_is_asked_of_it_and_offered_answers_are_not_its_subject():
    """Held-out fresh56 chats: "which RL algorithm trained the rephraser, PPO or GRPO?" after RePro was searched as a
    question of its own and refused (PPO and GRPO are in no abstract), and "which models served as the experts?" after
    EAPO was answered with EAPO's overview; "the" marks the rephraser and the experts as given."""
    from assistant.answering import deterministic_rewrite, refers_to_last_answer

    conv = _each_citing_one(("RePro: how big is the rephraser?", "RePro",
                             "We introduce RePro, which trains a small LM rephraser with reinforcement learning."))
    assert refers_to_last_answer("which RL algorithm trained the rephraser, PPO or GRPO?", conv)
    assert deterministic_rewrite("which RL algorithm trained the rephraser, PPO or GRPO?", conv) == \
        "which RL algorithm trained the rephraser, PPO or GRPO? (RePro)"
    experts = _each_citing_one(("RL where the policy consults experts?", "EAPO",
                                "EAPO lets the policy consult external experts during training."))
    assert refers_to_last_answer("which models served as the experts?", experts)
    # a thing the last paper did not give, a search, or a question naming its subject: not a follow-up
    assert not refers_to_last_answer("which algorithm trained the critic?", conv)
    assert not refers_to_last_answer("which paper trained the rephraser?", conv)
    assert not refers_to_last_answer("which RL algorithm trained the rephraser of WRAP?", conv)


@pytest.mark.parametrize("question, resolved", [
    ("et celui basé sur l'entropie, qu'est-ce qu'il prouve ?", "et Beam, qu'est-ce qu'il prouve ?"),
    ("und das auf Entropie basierende, was beweist es?", "und Beam, was beweist es?"),
    ("¿y el basado en la entropía, qué demuestra?", "¿y Beam, qué demuestra?"),
    ("e quello basato sull'entropia, cosa dimostra?", "e Beam, cosa dimostra?"),
    ("and the one based on entropy, what does it prove?", "and Beam, what does it prove?"),
])
def test_the_one_based_on_a_topic_in_other_languages_is_the_cited_paper_about_it(question, resolved):
    """Held-out fresh56 chats: "et celui basé sur l'entropie, qu'est-ce qu'il prouve ?" after a list of a tree-search
    and an entropy-based decoding paper was searched as a question of its own and answered from a third paper; the
    topic's words are cognates of the paper's ("entropie", "entropía" and "entropy")."""
    from assistant.answering import resolve_described_one

    conv = _each_citing_one(
        ("Which papers search during generation?", "Tree",
         "Tree plans infilling orders with Monte Carlo Tree Search. Tree improves code generation."),
        ("And another?", "Beam",
         "Beam widens the search where entropy is high. Its branching factor grows with the entropy. "
         "We prove that entropy-monotone branching beats any fixed factor."))
    assert resolve_described_one(question, conv) == resolved
    assert resolve_described_one("et celui basé sur la robotique, qu'est-ce qu'il prouve ?", conv) == \
        "et celui basé sur la robotique, qu'est-ce qu'il prouve ?"  # no cited paper is about it
