"""Several-paper questions (issue 8, kind 5): every paper the gate keeps is named, cited, with its own
sentence. Questions are written for these tests (not taken from the evaluation sets); the answers come
from the bundled ICML 2026 abstracts through the real pipeline (MiniLM, Chroma), so those are
integration tests, except the pure helpers at the top."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize("question, kind, several", [
    # an imperative asks for papers as "which papers ..." does
    ("List all papers that study quantization.", "papers", True),
    ("Name every paper that trains with GRPO.", "papers", True),
    ("Show me all the abstracts about decoding.", "papers", True),
    # Portuguese and Italian "which papers / works"
    ("Quais artigos usam quantização?", "papers", True),
    ("Quali lavori studiano la compressione della cache?", "papers", True),
    ("Quais trabalhos propõem um otimizador?", "papers", True),
    # a request for papers, not a which-question (round 10)
    ("I need papers on cheaper inference: one that prunes the beam and one that shrinks the cache.", "papers", True),
    ("Can you find some papers that quantize language models?", "papers", True),
    ("Looking for papers about optimizers for pretraining.", "papers", True),
    # a topic typed as a search for its papers (round 11)
    ("KV cache compression papers?", "papers", True),
    ("optimizer studies in the collection", "papers", True),
    ("How does NorMuon compare with other optimizers in these studies?", "papers", True),  # "compare", not the form
    # topics listed for a paper each, and what work there is (round 11)
    ("I'm interested in two things: pruning the beam, and shrinking the cache. What's out there?", "papers", True),
    ("What's out there on KV cache compression?", "papers", True),
    # things described for a paper each, asked whether the collection has them (round 14, fresh16 chats)
    ("Two ideas I read about: pruning the beam, and shrinking the cache. Are both in the collection?", "papers", True),
    ("I'm weighing three techniques: A, B and C. Which are covered here?", "papers", True),
    ("Is either of them in the collection: a beam pruner, or a cache compressor?", "papers", True),
    # papers described by a gerund, and papers as the subject of a wh-question (round 16)
    ("Any papers building on or analysing DPO?", "papers", True),
    ("How do federated learning papers here guarantee privacy?", "other", True),
    ("Are there papers on machine unlearning?", "papers", False),  # whether one exists
    ("Do any of these papers study reward hacking?", "other", False),
    ("Which of them works without any external supervision?", "other", False),  # "works": a verb, one is asked
    # all there is, asked as "what's there" or "list everything", and methods described by a clause (fresh23)
    ("What's there on quantizing language models, whether weights or caches?", "papers", True),
    ("list everything that reports results on math reasoning benchmarks", "papers", True),
    ("methods that get training to converge in fewer steps?", "papers", True),
    ("Any work on compressing the KV cache of image generation models?", "other", False),  # whether one exists
    # one paper
    ("What two problems does NorMuon address?", "other", False),  # two things asked of one paper
    ("Find the paper about KV cache compression.", "papers", False),
    ("How STAR-KV works", "other", False),
    ("List the datasets NorMuon uses.", "entity", False),
])
def test_a_question_asking_for_all_papers_is_a_several_paper_question(question, kind, several):
    from assistant.extractive import asks_several, question_kind

    assert asks_several(question) is several
    if kind != "entity":
        assert question_kind(question) == kind


@pytest.mark.parametrize("question, compares", [
    ("How do the KV cache method and NorMuon differ?", True),
    ("Compare WinQ with the other quantization papers.", True),
    ("STAR-KV versus WinQ: which saves more memory?", True),
    ("Which papers compare against GRPO?", False),  # a baseline, not two papers set side by side
    ("Which papers study optimizers?", False),
])
def test_a_comparison_question_is_recognised(question, compares):
    from assistant.extractive import asks_comparison

    assert asks_comparison(question) is compares


def _ask(bundled_store, settings, q):
    from assistant.answering import answer, answer_to_json
    from assistant.llm import make_llm
    from assistant.retrieval import Retriever

    return answer_to_json(q, answer(q, retriever=Retriever(bundled_store), llm=make_llm(settings, "extractive"),
                                    settings=settings))


def _lines_by_title(obj) -> dict[str, str]:
    """The answer's lines by the paper title they start with ("WinQ [1]: ...")."""
    out = {}
    for line in obj["answer"].splitlines():
        head, _, rest = line.partition(" [")
        out[head] = rest
    return out


@pytest.mark.integration
def test_list_all_papers_names_each_kept_paper_on_its_own_cited_line(bundled_store, settings):
    obj = _ask(bundled_store, settings, "List all papers that apply reinforcement learning to language model "
                                        "reasoning.")
    cited = [c["title"] for c in obj["citations"]]
    assert "EAPO" in cited and "PowerFlow" in cited, obj["answer"]
    assert len(cited) == len(obj["sources"]) >= 3  # every kept paper is named, none is dropped
    lines = _lines_by_title(obj)
    assert {"EAPO", "PowerFlow"} <= set(lines), obj["answer"]


@pytest.mark.integration
def test_a_question_naming_two_papers_answers_about_both(bundled_store, settings):
    obj = _ask(bundled_store, settings, "Tell me about NorMuon and WinQ.")
    assert sorted(c["title"] for c in obj["citations"]) == ["NorMuon", "WinQ"], obj["answer"]
    lines = _lines_by_title(obj)
    assert set(lines) == {"NorMuon", "WinQ"}, obj["answer"]
    assert "quantiz" in lines["WinQ"].casefold() and "adamw" in lines["NorMuon"].casefold()


@pytest.mark.integration
@pytest.mark.parametrize("question, titles", [
    # two named papers set against each other: each side is asked about, not a choice of one
    ("STAR-KV vs WinQ: which one compresses the cache and which one speeds up training?", ["STAR-KV", "WinQ"]),
    ("Between NorMuon and OPUS, which is about the optimizer and which about selecting data?", ["NorMuon", "OPUS"]),
])
def test_two_named_papers_set_against_each_other_get_a_line_each(bundled_store, settings, question, titles):
    obj = _ask(bundled_store, settings, question)
    assert sorted(c["title"] for c in obj["citations"]) == titles, obj["answer"]
    assert set(_lines_by_title(obj)) == set(titles), obj["answer"]


@pytest.mark.integration
def test_two_topics_listed_get_a_paper_each(bundled_store, settings):
    # "two things: A, and B. What's out there?" named the first topic's paper only (fresh13 chats)
    obj = _ask(bundled_store, settings, "I'm curious about two topics: speeding up quantization-aware training, "
                                        "and compressing the KV cache. What's out there?")
    assert {"STAR-KV", "WinQ"} <= set(_lines_by_title(obj)), obj["answer"]


@pytest.mark.integration
def test_two_ideas_described_and_asked_whether_the_collection_has_both_get_a_paper_each(bundled_store, settings):
    # "I'm comparing two ideas ...: A, and B. Are both in the collection?" quoted the first idea's paper only, and
    # "the second one" then meant that paper (fresh16 chats c04)
    obj = _ask(bundled_store, settings, "Two techniques I heard of: entropy-guided beam search, and low-rank KV "
                                        "cache compression. Are both in the collection?")
    assert set(_lines_by_title(obj)) == {"STAR-KV", "EDEN"}, obj["answer"]


@pytest.mark.integration
def test_a_topic_typed_as_a_search_for_papers_names_each_paper(bundled_store, settings):
    # "... quantization papers?" asked for the topic's papers; read as one paper's question it named STAR-KV
    # only, WinQ being a "weaker match than the best paper"
    obj = _ask(bundled_store, settings, "sub-4-bit quantization papers in this collection?")
    assert {"STAR-KV", "WinQ"} <= {c["title"] for c in obj["citations"]}, obj["answer"]
    assert {"STAR-KV", "WinQ"} <= set(_lines_by_title(obj)), obj["answer"]


@pytest.mark.integration
def test_a_request_for_one_paper_of_each_kind_names_both(bundled_store, settings):
    obj = _ask(bundled_store, settings, "I need papers on decoding at inference time: one that widens the search "
                                        "where the model is uncertain and one that steers outputs toward alignment.")
    assert {"EDEN", "AAD"} <= {c["title"] for c in obj["citations"]}, obj["answer"]
    assert {"EDEN", "AAD"} <= set(_lines_by_title(obj)), obj["answer"]


@pytest.mark.integration
def test_a_comparison_naming_one_side_in_words_keeps_that_paper(bundled_store, settings):
    # "the KV cache compression method" is STAR-KV, named in words: it does not mention NorMuon, but it is
    # what the question compares NorMuon with
    obj = _ask(bundled_store, settings, "How do the KV cache compression method and NorMuon differ in what "
                                        "they save?")
    assert sorted(c["title"] for c in obj["citations"]) == ["NorMuon", "STAR-KV"], obj["answer"]


def test_theme_is_a_word_about_the_asking_not_a_key_word():
    from assistant.relevance import salient_words

    # like "topic": no abstract says "theme", and a key word no abstract uses counts against every paper
    assert salient_words("Which papers have the theme of speculative decoding?") == ["speculative", "decoding"]


@pytest.mark.integration
@pytest.mark.parametrize("question, titles", [
    ("Which papers have the common theme of modifying GRPO?", {"PCR", "PowerFlow"}),
    ("What papers share the theme of decoding strategies at inference?", {"AAD", "EDEN"}),
])
def test_a_theme_question_names_every_paper_of_the_theme(bundled_store, settings, question, titles):
    obj = _ask(bundled_store, settings, question)
    assert titles <= {c["title"] for c in obj["citations"]}, obj["answer"]


@pytest.mark.integration
def test_which_of_two_named_papers_picks_the_one_that_does_it(bundled_store, settings):
    # two papers named, but the question asks which one of them: not one line each
    # (the shape of a follow-up rewritten with the previous answer's papers)
    obj = _ask(bundled_store, settings, "Which of them evaluates on GPQA? (DiffuSearch and EAPO)")
    assert [c["title"] for c in obj["citations"]] == ["EAPO"], obj["answer"]


def test_a_name_with_a_modifier_matches_the_name():
    from assistant.relevance import matched_names

    abstract = "EAPO also generalizes to non-math benchmarks, including HumanEval and MBPP."
    assert matched_names("Which papers test on HumanEval-style or MBPP-like benchmarks?", abstract) == [
        "HumanEval", "MBPP"]
    assert matched_names("Which papers use STAR-KV?", "STAR is a method.") == []  # "KV" is part of the name


@pytest.mark.integration
def test_a_benchmark_named_with_a_modifier_keeps_the_paper_naming_it(bundled_store, settings):
    obj = _ask(bundled_store, settings, "Which papers test on HumanEval-style or MBPP-like code benchmarks?")
    assert {"DiffuSearch", "EAPO"} <= {c["title"] for c in obj["citations"]}, obj["answer"]


@pytest.mark.integration
@pytest.mark.parametrize("question, titles, facts", [
    ("Which is faster, STAR-KV or WinQ?", ["STAR-KV", "WinQ"], ["6.9×", "4×"]),
    ("Which of NorMuon and WinQ reports the bigger improvement?", ["NorMuon", "WinQ"], ["21.74%", "8.8%"]),
    # each paper's speed, not another of its results (a new user's trial and fresh26: WinQ's 8.8% gain, not its 4×)
    ("Compare NorMuon and WinQ: what does each speed up and by how much?", ["NorMuon", "WinQ"], ["21.74%", "4×"]),
    ("NorMuon and WinQ both claim to make training faster. what numbers do they report?", ["NorMuon", "WinQ"],
     ["21.74%", "4×"]),
])
def test_a_comparative_between_two_named_papers_gives_each_papers_figure(bundled_store, settings, question, titles,
                                                                          facts):
    # it cited the first paper only, with a sentence that has no figure
    obj = _ask(bundled_store, settings, question)
    assert sorted(c["title"] for c in obj["citations"]) == sorted(titles), obj["answer"]
    assert all(f in obj["answer"] for f in facts), obj["answer"]


@pytest.mark.parametrize("question, several", [
    # a question asked as its plural noun phrase asks for every paper it describes
    ("Papers on speculative decoding?", True),
    ("studies that compress the KV cache", True),
    ("Any works about low-bit quantization?", True),
    # "work" and "research" as mass nouns: all the work there is
    ("What research exists on optimizers for LLM pretraining?", True),
    ("what recent work makes decoding cheaper?", True),
    # "which work" counts one work; a sentence that only starts with "papers" is not a question about papers
    ("Which work converts transformers into spiking networks?", False),
    ("Papers are long. What is NorMuon?", False),
    # a past participle after the plural noun describes the papers as "papers that ..." does (fresh23)
    ("papers built around second-order optimizers", True),
    ("Studies focused on cache compression?", True),
    ("Methods used in STAR-KV?", False),  # one paper's methods
    # whatever the collection holds on a topic (fresh24 chats: refused at the one-paper threshold)
    ("My pretraining data is running out. What in here could help?", True),
    ("what do you have on speculative decoding?", True),
    ("what's in here on improving llm pretraining data, like recycling web text?", True),  # chats fresh25
    ("I'm interested in methods that weight tokens. What's here?", True),  # fresh26
    ("What is in the collection on decoding?", True),
    ("What is there to gain from NorMuon?", False),
    # things of the plural asked of the whole collection (fresh10, fresh15, fresh18: answered with one paper)
    ("What optimizers for pretraining are in the collection?", True),
    ("What evaluation benchmarks does the corpus contain?", True),
    ("What compression techniques are proposed across these papers?", True),
    ("What is the speedup of NorMuon in the collection?", False),  # one paper's quantity
    ("What analysis does the collection have?", False),  # "analysis" is no plural
    # "who" asked of the collection is the papers doing it (fresh26); the authors, or "who" alone, is one paper
    ("who does quantisation in this collection", True),
    ("Who works on decoding across these papers?", True),
    ("Who are the authors of NorMuon in the collection?", False),
    ("Who trains a small model with RL to rewrite web pages?", False),
])
def test_a_noun_phrase_or_mass_noun_question_asks_for_several_papers(question, several):
    from assistant.extractive import asks_several, question_kind

    assert asks_several(question) is several
    if several:
        assert question_kind(question) == "papers"


@pytest.mark.integration
@pytest.mark.parametrize("question, titles", [
    # it was answered from the best paper alone, as a one-paper question
    ("Papers about compressing or quantizing models for cheaper inference?", {"STAR-KV", "WinQ"}),
])
def test_a_noun_phrase_theme_question_names_each_paper_on_its_own_line(bundled_store, settings, question, titles):
    obj = _ask(bundled_store, settings, question)
    assert titles <= {c["title"] for c in obj["citations"]}, obj["answer"]
    assert titles <= set(_lines_by_title(obj)), obj["answer"]


@pytest.mark.integration
def test_a_theme_paper_ranked_below_top_k_is_judged_and_named(bundled_store, settings):
    # RankTuner writes "code generation performance" once, in its results sentence: 11th by retrieval, it was
    # never judged when a theme question was judged on the first top_k (8) papers
    obj = _ask(bundled_store, settings, "Which papers evaluate their method on code generation?")
    cited = {c["title"] for c in obj["citations"]}
    assert {"ALIVE", "DiffuSearch", "EDEN", "RankTuner"} <= cited, obj["answer"]


@pytest.mark.integration
def test_a_theme_question_leaves_out_papers_far_below_the_themes_papers(bundled_store, settings):
    # PowerFlow and PLAINTAIN share "language models" and "preference"-like words only in passing (relevance 0.08,
    # log-odds 3.9 below the two alignment papers): named before, now left out with the reason
    obj = _ask(bundled_store, settings, "Which papers study how to align language models with human preferences?")
    cited = [c["title"] for c in obj["citations"]]
    assert "AAD" in cited and len(cited) == 2, obj["answer"]
    assert not {"PowerFlow", "PLAINTAIN"} & set(cited), obj["answer"]
    notes = {e["title"]: e.get("note", "") for e in obj["relevance"]}
    assert "weaker match than the theme's papers" in notes["PowerFlow"], notes


@pytest.mark.parametrize("question, offered", [
    ("Which papers report results on image classification or object detection benchmarks?",
     ["image classification", "object detection benchmarks"]),
    ("Which papers give guarantees (a lower bound, sample complexity or consistency)?",
     ["a lower bound", "sample complexity", "consistency"]),
    ("Which papers study sparsity, such as pruned weights, sparse attention or mixture-of-experts?",
     ["pruned weights", "sparse attention", "mixture-of-experts"]),
    ("Which papers train on text / speech data?", ["text", "speech data"]),
    # the preposition said again after "or" (fresh45 chats: no alternatives read, WinQ cut as a weaker match)
    ("any papers on kv cache compression or on quantization aware training?",
     ["kv cache compression", "quantization aware training"]),
    # one thing in parentheses (an acronym) and no "or": no alternatives
    ("Which papers build on Proximal Policy Optimization (PPO)?", []),
    ("Which papers study KV cache compression?", []),
])
def test_the_alternatives_a_theme_question_offers(question, offered):
    from assistant.relevance import alternatives

    assert alternatives(question) == offered


@pytest.mark.parametrize("question, exists", [
    # whether papers exist, asked in the plural (fresh23: answered with the best paper)
    ("Are there methods that use the entropy of the predicted distribution?", True),
    ("Are there approaches that prune the beam?", True),
    ("Are there any techniques for cheaper decoding?", True),
    # whatever there is (fresh26: answered with one of two or three papers)
    ("anything on GRPO?", True),
    ("Is there anything on compressing the KV cache?", True),
    ("Do any of these derive explicit theoretical rates, like convergence rates?", True),
    # one paper asked for, or several asked outright (`asks_several`); "work" asked for one known paper 41 times of 41
    ("Is there a paper that compresses the KV cache?", False),
    ("Is there work on recycling web text for pretraining?", False),
    ("Has anyone applied NorMuon to vision transformers?", False),
    ("Which papers use reinforcement learning?", False),
    ("Is there a link to STAR-KV's code? (follow-up to: Are there methods for cache compression?)", False),
])
def test_an_existence_question_stands_for_any_number_of_papers(question, exists):
    from assistant.extractive import asks_existence

    assert asks_existence(question) is exists


@pytest.mark.integration
def test_an_existence_question_names_every_paper_of_its_topic(bundled_store, settings):
    # "Is there any work on ...": decided as a one-paper question, answered with WinQ alone before
    obj = _ask(bundled_store, settings, "Are there methods for quantizing models to low bit widths?")
    cited = {c["title"] for c in obj["citations"]}
    assert {"WinQ", "STAR-KV"} <= cited, obj["answer"]
    assert {"WinQ", "STAR-KV"} <= set(_lines_by_title(obj)), obj["answer"]


@pytest.mark.integration
def test_a_paper_sharing_a_themes_words_in_passing_is_left_out(bundled_store, settings):
    # chats fresh25: the papers of pretraining data were named with four more (NorMuon's "data", ALIVE's "tokens");
    # the membership model leaves out the weakest beside the papers named before them, and says why
    obj = _ask(bundled_store, settings, "what's in here on improving llm pretraining data, like recycling web text "
                                        "or selecting better tokens?")
    cited = {c["title"] for c in obj["citations"]}
    assert {"RePro", "OPUS"} <= cited and not {"NorMuon", "ALIVE"} & cited, obj["answer"]
    from assistant.relevance import WEAKER_MEMBER

    left_out = {r["title"] for r in obj["relevance"] if (r.get("note") or "").startswith(WEAKER_MEMBER)}
    assert {"NorMuon", "ALIVE"} <= left_out, obj["relevance"]


@pytest.mark.integration
def test_anything_on_a_topic_names_every_paper_of_it(bundled_store, settings):
    # fresh26: PCR alone; PowerFlow's abstract reports its gains over GRPO too
    obj = _ask(bundled_store, settings, "anything on GRPO?")
    assert {"PCR", "PowerFlow"} <= {c["title"] for c in obj["citations"]}, obj["answer"]


@pytest.mark.integration
@pytest.mark.parametrize("question, cited", [
    # chats fresh37 (round 25): named the spiking-conversion paper too, for "per-neuron"
    ("is there anything that combines muon with adam-style per-neuron adaptive learning rates?", {"NorMuon"}),
    ("anything on diffusion language models for code?", {"DiffuSearch"}),  # EDEN was named beside it (fresh33)
])
def test_anything_that_does_one_thing_names_only_papers_relevant_on_their_own(bundled_store, settings, question,
                                                                            cited):
    obj = _ask(bundled_store, settings, question)
    assert {c["title"] for c in obj["citations"]} == cited, obj["answer"]


@pytest.mark.parametrize("question, plural", [
    ("Are there methods that use the entropy of the predicted distribution?", True),
    ("Do any of these derive explicit theoretical rates?", True),
    ("anything on GRPO?", False),
    ("is there anything that combines muon with adam?", False),
    ("we're running out of web text. is there anything that rewrites it?", False),
])
def test_an_existence_question_asks_in_the_plural_or_in_no_number(question, plural):
    from assistant.extractive import asks_plural

    assert asks_plural(question) is plural


@pytest.mark.integration
def test_an_existence_question_on_a_topic_no_paper_covers_is_still_refused(bundled_store, settings):
    # the theme's looser thresholds name the papers of a topic; whether there is one is decided as before
    obj = _ask(bundled_store, settings, "Are there any methods for predicting protein structures from sequence?")
    assert obj["refused"] and not obj["citations"], obj["answer"]


@pytest.mark.integration
def test_results_named_after_the_theme_are_the_evaluation_frame_not_a_key_word(bundled_store, settings):
    """fresh27 gc05.4: "Which other papers in the collection report code generation results?" named RePro and OPUS,
    which report results but none on code; "results on code generation" was already read as the frame."""
    obj = _ask(bundled_store, settings, "Which papers report code generation results?")
    cited = {c["title"] for c in obj["citations"]}
    assert {"DiffuSearch", "EDEN"} <= cited and not cited & {"RePro", "OPUS"}, obj["answer"]


@pytest.mark.integration
def test_a_papers_line_says_what_it_proposes_by_the_sentence_naming_it(bundled_store, settings):
    """A new user's trial: NorMuon's line quoted "we develop an efficient distributed implementation under the FSDP2
    framework" as what it proposes; "we bridge this gap by proposing NorMuon ..." names it."""
    obj = _ask(bundled_store, settings, "Compare NorMuon and OPUS")
    assert "by proposing NorMuon" in _lines_by_title(obj)["NorMuon"], obj["answer"]


@pytest.mark.integration
@pytest.mark.parametrize("question, titles", [
    # a new user's trial (rounds 22 and 23): refused, "no paper in the collection mentions 'released'"
    ("Which papers released their code?", {"RePro", "STAR-KV", "A²RBench"}),
    ("Which papers release their data?", {"A²RBench"}),  # "Code and data are available at ..."; the others: code
])
def test_which_papers_release_code_is_answered_from_their_release_statements(bundled_store, settings, question,
                                                                                titles):
    from assistant.relevance import states_release

    obj = _ask(bundled_store, settings, question)
    lines = _lines_by_title(obj)
    assert set(lines) == titles, obj["answer"]
    assert all(any(states_release(s, question) for s in line.split(". ")) for line in lines.values()), obj["answer"]


@pytest.mark.parametrize("sentence, question, says", [
    ("Our code is publicly available at https://github.com/x/y.", "Which papers released their code?", True),
    ("Our code is publicly available at https://github.com/x/y.", "Which papers release their data?", False),
    ("Code and data are available at: https://github.com/x/y.", "Which papers release their data?", True),
    ("The code base is available here.", "Which papers have a GitHub link?", False),  # no link given
    ("The code base is available here.", "Which papers share their code?", True),
    ("We release a benchmark of 1,000 tasks.", "Which papers release their data?", False),  # no availability
])
def test_a_release_statement_states_the_artefact_asked(sentence, question, says):
    from assistant.relevance import asks_release_theme, states_release

    assert asks_release_theme(question)
    assert states_release(sentence, question) is says


@pytest.mark.integration
@pytest.mark.parametrize("question, titles", [
    # a search offering alternatives names each paper the gate kept (fresh45: both kept, only the first quoted)
    ("tree search or beam search during generation", {"EDEN", "DiffuSearch"}),
    ("work on improving or selecting llm pretraining data", {"RePro", "OPUS"}),
    # "tackling" asks, it is no topic word no paper mentions (fresh45: refused as "no paper mentions 'tackling'")
    ("papers tackling training instability", {"PCR", "mHC"}),
    # a named paper compared with one described (a new user's trial, round 28: AAD, named, was left out)
    ("and how does AAD compare to the entropy based decoding one?", {"AAD", "EDEN"}),
])
def test_a_theme_typed_as_a_search_names_each_paper(bundled_store, settings, question, titles):
    obj = _ask(bundled_store, settings, question)
    assert not obj["refused"], obj["answer"]
    assert set(_lines_by_title(obj)) == titles, obj["answer"]


@pytest.mark.integration
@pytest.mark.parametrize("question, titles", [
    # seven papers were listed, all but A²RBench only evaluated "on ... benchmarks"
    ("which papers propose a new benchmark?", {"A²RBench"}),
    ("are there papers that introduce new benchmarks?", {"A²RBench"}),
    # fresh49 lm07 (answered from A²RBench alone: "which ones" opening a question asks for papers)
    ("Which ones contribute a new evaluation pipeline or benchmark rather than a training method?",
     {"A²RBench", "ALIVE"}),
    ("Which papers introduce automated evaluation frameworks or benchmarks for LLMs?", {"A²RBench", "ALIVE"}),
    # a field asked, not a kind of thing made: PowerFlow's framework is an RL one by its abstract's opening sentence
    ("Which papers propose reinforcement learning methods for improving LLM reasoning?",
     {"EAPO", "PowerFlow", "The reasoning patterns of large language models (LLMs)…", "RePro"}),
])
def test_papers_asked_to_contribute_a_thing_are_those_whose_contribution_it_is(bundled_store, settings, question,
                                                                                 titles):
    obj = _ask(bundled_store, settings, question)
    assert not obj["refused"], obj["answer"]
    assert set(_lines_by_title(obj)) == titles, obj["answer"]
    notes = {e["title"]: e.get("note", "") for e in obj["relevance"]}
    if "benchmark" in question.split()[-1]:
        assert "is not what the question asks papers to contribute (benchmark)" in notes["STAR-KV"], notes["STAR-KV"]


@pytest.mark.parametrize("question, stems", [
    ("which papers propose a new benchmark?", {"benchmark"}),
    ("Which ones contribute a new evaluation pipeline or benchmark rather than a training method?",
     {"evalu", "pipelin", "benchmark"}),
    ("Which papers introduce automated evaluation frameworks or benchmarks for LLMs?", {"autom", "evalu", "benchmark"}),
    ("Which papers propose reinforcement learning methods for improving LLM reasoning?", set()),  # a field
    ("Which papers propose new decoding strategies?", set()),
    ("Which papers propose new decoding or generation-time strategies?", set()),  # "decoding" modifies "strategies"
    ("Which papers in the set propose new decoding methods overall?", set()),
    ("Which papers propose new benchmarks or evaluation frameworks for LLMs?", {"benchmark", "evalu"}),
    ("Which papers propose reinforcement learning methods aimed at improving the reasoning of LLMs?", set()),
    ("papers built around modern optimizers like Adam or Muon, either designing one or exploiting how it shapes the "
     "updates", set()),
    ("Which papers propose new methods?", set()),
    ("Which papers are about quantization?", set()),  # no contribution asked
])
def test_the_thing_a_question_asks_papers_to_contribute(question, stems):
    from assistant.relevance import contributed_stems

    assert contributed_stems(question) == stems


@pytest.mark.parametrize("sentences, says", [
    (["Existing benchmarks are costly.", "To address this, we introduce an automated pipeline named A²RBench."], True),
    (["We propose STAR-KV, a KV cache compression framework.", "Evaluated across multiple LLMs and benchmarks, "
      "STAR-KV achieves up to 75% compression."], False),
    (["RankTuner introduces a calibration signal.", "Experiments on reasoning benchmarks show gains."], False),
    (["LLMs are trained with reinforcement learning (RL).", "We propose EAPO, a novel RL benchmark."], True),
    (["Benchmarks are everywhere.", "Results on two benchmarks are reported."], None),  # no contribution stated
])
def test_a_contribution_is_what_the_sentence_stating_it_names(sentences, says):
    from assistant.relevance import contributes

    assert contributes({"benchmark"} if "EAPO" not in sentences[-1] else {"reinforc"}, sentences) is says


@pytest.mark.integration
def test_are_there_new_benchmarks_lists_the_papers_contributing_one(bundled_store, settings):
    """fresh50: "Are there new benchmarks or automatic evaluation frameworks in this collection? List them." named
    ALIVE alone (read as a question about one paper: "benchmarks" was no word of asking for papers)."""
    obj = _ask(bundled_store, settings, "Are there new benchmarks or automatic evaluation frameworks in this "
                                        "collection? List them.")
    assert set(_lines_by_title(obj)) == {"A²RBench", "ALIVE"}, obj["answer"]


@pytest.mark.parametrize("question, joined", [
    ("which papers in here deal with the KV cache or with quantization?", ["KV cache", "quantization"]),
    ("papers on kv cache compression or on quantization aware training?",
     ["kv cache compression", "quantization aware training"]),
])
def test_alternatives_with_the_preposition_said_again(question, joined):
    from assistant.relevance import alternatives

    assert alternatives(question) == joined


@pytest.mark.integration
def test_each_alternative_a_theme_offers_names_its_best_paper(bundled_store, settings):
    """A new user's trial (round 34): "Which papers compress the KV cache or quantize LLMs?" named STAR-KV alone; WinQ,
    the quantization paper, was a weaker match than STAR-KV, which does both."""
    from assistant.relevance import alternatives

    question = "Which papers compress the KV cache or quantize LLMs?"
    assert alternatives(question) == ["compress the KV cache", "quantize LLMs"]
    obj = _ask(bundled_store, settings, question)
    cited = [c["title"] for c in obj["citations"]]
    assert set(cited) == {"STAR-KV", "WinQ"}, obj["answer"]
    # one alternative alone names its papers as before (no second best added)
    obj = _ask(bundled_store, settings, "Which papers compress the KV cache?")
    assert [c["title"] for c in obj["citations"]] == ["STAR-KV"], obj["answer"]
    # a question no paper is about stays refused, whatever its alternatives find alone
    obj = _ask(bundled_store, settings, "Which papers are about music generation or protein folding?")
    assert obj["refused"] and not obj["citations"], obj["answer"]


@pytest.mark.integration
@pytest.mark.parametrize("question, expected", [
    # fresh52: six papers, four holding "token" or "signal" and not "entropy"
    ("Welche Arbeiten verwenden die Entropie der Token-Verteilung als Signal?", {"RankTuner", "EDEN"}),
    # fresh52: six papers for the two automated evaluation pipelines
    ("有哪些论文提出了自动化评测大模型能力的流水线或框架？", {"A$^2$RBench", "ALIVE"}),
    ("¿Qué artículos tratan sobre la cuantización de modelos de lenguaje?", {"WinQ", "STAR-KV"}),
])
def test_a_theme_in_another_language_names_the_papers_holding_its_words(bundled_store, settings, question, expected):
    """A paper kept beside the best one for a question in another language holds at least
    `relevance.FOREIGN_MEMBER_SHARE` of the best one's share of the question's known words."""
    obj = _ask(bundled_store, settings, question)
    assert {c["title"] for c in obj["citations"]} == expected, obj["answer"]


@pytest.mark.integration
def test_a_theme_written_as_two_words_finds_the_paper_writing_one(bundled_store, settings):
    """A new user's trial (round 34): "Which papers speed up LLM inference?" left out STAR-KV ("6.9× speedup",
    "3.1× end-to-end generation throughput"), its words holding no "speed"."""
    obj = _ask(bundled_store, settings, "Which papers speed up LLM inference?")
    assert "STAR-KV" in [c["title"] for c in obj["citations"]], obj["answer"]


@pytest.mark.integration
def test_the_theme_rule_for_other_languages_keeps_out_of_the_way_with_the_gate_off(bundled_store, settings):
    """`ASSISTANT_MIN_RELEVANCE=0` turns the gate off (README): the round-34 rule for several-paper questions in other
    languages (`relevance.FOREIGN_MEMBER_SHARE`) leaves no paper out then."""
    from assistant.relevance import judge
    from assistant.retrieval import Retriever

    retriever = Retriever(bundled_store)
    question = "Welche Arbeiten verwenden die Entropie der Token-Verteilung als Signal?"
    results = retriever.search(question, top_k=8)
    notes = [e.note for e in judge(question, results, retriever, threshold=0.0).evidence]
    assert not any("known key words" in n for n in notes), notes
    assert any("known key words" in n for n in (e.note for e in judge(question, results, retriever).evidence))
