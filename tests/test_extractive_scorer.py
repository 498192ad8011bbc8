"""The extractive answerer's learned sentence scorer (`assistant.extractive.sentence_scores`, fit by
``benchmarks/fit_sentences.py``): the sentence that carries the question's own words and phrases is
quoted, even when it is the field's background, and acronym questions in any form get the expansion.
Questions are written for these tests (not taken from the evaluation sets); the integration tests
answer them from the bundled ICML 2026 abstracts through the real pipeline (MiniLM, Chroma)."""

from __future__ import annotations

import pytest

ABSTRACT = [
    "Masked diffusion models generate text by unmasking tokens in any order.",
    "While plan-and-infill decoding shows promise for mathematical and code reasoning, its output varies "
    "with the infilling order.",
    "We propose OrderSearch, a framework that selects infilling orders by tree search.",
    "OrderSearch evaluates partial completions with look-ahead simulations.",
    "Experiments show an average improvement of 3.2% over autoregressive baselines.",
]


def test_sentence_features_measure_overlap_against_the_best_sentence_and_flag_an_expansion():
    from assistant.extractive import SENTENCE_FEATURES, sentence_features

    rows = sentence_features("What does OS stand for in plan-and-infill decoding?",
                             ["Order Search (OS) picks infilling orders.", "Plan-and-infill decoding is popular."],
                             [0.3, 0.5])
    col = {name: i for i, name in enumerate(SENTENCE_FEATURES)}
    assert len(rows) == 2 and all(len(r) == len(SENTENCE_FEATURES) for r in rows)
    assert rows[0][col["spells_out"]] == 1.0 and rows[1][col["spells_out"]] == 0.0
    assert rows[1][col["similarity_gap"]] == 0.0 and rows[0][col["similarity_gap"]] == pytest.approx(-0.2)
    assert rows[1][col["bigrams"]] == 2.0  # ("plan", "infil"), ("infil", "decod")
    assert rows[1][col["overlap_gap"]] == 0.0 > rows[0][col["overlap_gap"]]


def test_a_background_sentence_carrying_the_questions_phrase_outranks_the_proposal_and_the_result():
    from assistant.extractive import sentence_scores

    q = "For which two kinds of reasoning has plan-and-infill decoding shown promise?"
    scores = sentence_scores(q, ABSTRACT, [0.45, 0.45, 0.45, 0.40, 0.40])  # the words decide
    assert scores.index(max(scores)) == 1


def test_a_number_asked_prefers_the_sentence_with_the_number():
    from assistant.extractive import sentence_scores

    q = "By how much does OrderSearch improve over autoregressive baselines?"
    scores = sentence_scores(q, ABSTRACT, [0.3, 0.4, 0.5, 0.4, 0.5], pointers=["OrderSearch"], quantity=True)
    assert scores.index(max(scores)) == 4


@pytest.mark.parametrize("question, term", [
    ("EDEN = ? (acronym)", "EDEN"),
    ("Cosa significa l'acronimo NorMuon?", "NorMuon"),
    ("Wofür steht die Abkürzung PCR?", "PCR"),
    ("What does EDEN stand for?", "EDEN"),
])
def test_an_acronym_question_in_any_form_asks_for_the_definition(question, term):
    from assistant.extractive import acronym_asked, question_kind

    assert acronym_asked(question) == term
    assert question_kind(question) == "definition"


def test_what_kind_of_asks_for_a_description_not_for_names():
    from assistant.extractive import question_kind

    assert question_kind("On what kind of benchmarks does X improve across backbones?") == "other"
    assert question_kind("Which benchmarks does X improve on?") == "entity"


def test_spells_out_reads_both_orders():
    from assistant.extractive import spells_out

    assert spells_out("EDEN", "we introduce Entropy-informed DEcodiNg (EDEN), a decoding framework")
    assert spells_out("NorMuon", "by proposing NorMuon (Neuron-wise Normalized Muon), an optimizer")
    assert not spells_out("NorMuon", "NorMuon (2025) is fast")
    assert not spells_out("EDEN", "EDEN is a decoding framework")


def _extractive(bundled_store, settings, q):
    from assistant.answering import answer, answer_to_json
    from assistant.llm import make_llm
    from assistant.retrieval import Retriever

    return answer_to_json(q, answer(q, retriever=Retriever(bundled_store), llm=make_llm(settings, "extractive"),
                                    settings=settings))


@pytest.mark.integration
@pytest.mark.parametrize("question, expected", [
    # the answer is the abstract's background sentence; it shares the question's rare phrase
    ("For what two kinds of reasoning is plan-and-infill decoding with masked diffusion models promising?",
     "mathematical and code reasoning"),
    ("Stability problems in GRPO training appear as a trade-off between what?", "reasoning plasticity"),
    # "what kind of benchmarks" asks for a description, not names
    ("What kind of benchmarks does RankTuner improve across backbones?", "mathematical reasoning benchmarks"),
    # acronyms asked without "stand for"
    ("EDEN: what is the acronym short for?", "entropy-informed decoding"),
    ("Che cosa significa l'acronimo NorMuon?", "neuron-wise normalized muon"),
])
def test_extractive_quotes_the_sentence_that_states_the_answer(bundled_store, settings, question, expected):
    obj = _extractive(bundled_store, settings, question)
    assert not obj["refused"], obj["answer"]
    assert expected in obj["answer"].casefold(), obj["answer"]
