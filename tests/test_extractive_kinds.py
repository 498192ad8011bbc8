"""The extractive answer's content by question kind (issue 8): the sentence a user would check is in
the answer. Questions are written for these tests (not taken from the evaluation sets); the answers
come from the bundled ICML 2026 abstracts through the real pipeline (MiniLM, Chroma), so these are
integration tests, except the pure helpers at the top."""

from __future__ import annotations

import pytest


def test_distinctive_overlap_weighs_a_word_only_one_sentence_carries_above_the_topic_words():
    from assistant.extractive import distinctive_overlap, stems

    sentences = ["Large language models reason about abstract rules.",
                 "We evaluate abstract reasoning of language models.",
                 "We prove that cycle consistency guarantees a unique solution."]
    focus = stems("How is a unique solution to the abstract reasoning tasks guaranteed?")
    scores = distinctive_overlap(focus, sentences)
    assert scores[2] == max(scores) and scores[2] == 3.0  # "unique", "solution", "guarantee": this sentence only
    assert scores[0] == 1.0  # "abstract" and "reason" are shared with the second sentence: half each


def _extractive(bundled_store, settings, q):
    from assistant.answering import answer, answer_to_json
    from assistant.llm import make_llm
    from assistant.retrieval import Retriever

    return answer_to_json(q, answer(q, retriever=Retriever(bundled_store), llm=make_llm(settings, "extractive"),
                                    settings=settings))


def _cited_titles(obj) -> list[str]:
    return [c["title"] for c in obj["citations"]]


@pytest.mark.integration
@pytest.mark.parametrize("question, expected", [
    # the asked detail sits in a sentence with low similarity to the whole question, but it is the
    # only sentence of the abstract carrying the question's distinctive words
    ("How is it guaranteed that a generated abstract reasoning task has exactly one solution?",
     "cycle consistency"),
    ("Does alignment-aware decoding need any training beyond the standard DPO setup?", "implicit reward"),
])
def test_extractive_quotes_the_sentence_carrying_the_questions_distinctive_words(bundled_store, settings,
                                                                                  question, expected):
    obj = _extractive(bundled_store, settings, question)
    assert not obj["refused"], obj["answer"]
    assert expected in obj["answer"].casefold()


def test_asked_quantities_splits_a_question_asking_two_quantities():
    from assistant.extractive import asked_quantities

    assert asked_quantities("How much faster is QAT with WinQ, and in how many settings was it tested?") == [
        "How much faster is QAT with WinQ", "in how many settings was it tested?"]
    # "..., and by how much?" has no words of its own: it asks the quantity of the clause before
    assert len(asked_quantities("Does it cut the wait for a first answer, and by how much?")) == 1
    # the subject a follow-up rewrite appends belongs to the asked clause
    assert asked_quantities("It helps. How many strategies did they derive? (PLAINTAIN)") == [
        "How many strategies did they derive? (PLAINTAIN)"]


@pytest.mark.integration
@pytest.mark.parametrize("question, expected", [
    # two quantities asked: a number for each
    ("How many settings does WinQ's evaluation cover, and how much faster does it make QAT?", ["16", "4×"]),
    # a count the abstract writes in words
    ("How many RL strategies come out of the preplan-and-anchor attention analysis?", ["three"]),
    # "what <several words> throughput improvement" asks for a number
    ("What end-to-end throughput improvement does STAR-KV reach?", ["3.1×"]),
    # no quantity named (a follow-up "By how much?" with its subject added): the paper's result
    ("By how much? (WinQ)", ["4×"]),
    # "faster" stated as fewer training steps and an efficiency gain (the follow-up "how much faster is
    # it?" after NorMuon was "The abstracts do not say.")
    ("how much faster is NorMuon?", ["21.74%"]),
    # the size a result was measured at points at its sentence ("... on 1.1B pretraining"; fresh42 chats: "The
    # abstracts do not say.", stems leaving numbers out)
    ("by how much on the 1.1b run (NorMuon)", ["11.31"]),
])
def test_extractive_number_question_states_each_asked_quantity(bundled_store, settings, question, expected):
    obj = _extractive(bundled_store, settings, question)
    assert not obj["refused"], obj["answer"]
    for value in expected:
        assert value in obj["answer"], obj["answer"]


@pytest.mark.integration
def test_extractive_several_papers_each_line_names_the_paper_and_says_what_it_proposes(bundled_store, settings):
    """A line per paper: its name, its citation, and what it is ("We introduce DiffuSearch, a framework
    that ... Monte Carlo Tree Search"), not only the field's motivation that opens its abstract."""
    obj = _extractive(bundled_store, settings, "Compare DiffuSearch and EDEN: how does each choose what to decode?")
    lines = obj["answer"].splitlines()
    by_name = {c["n"]: c["title"] for c in obj["citations"]}
    assert len(lines) == 2 and len(by_name) == 2, obj["answer"]
    diffu = next(line for line in lines if line.startswith("DiffuSearch ["))
    eden = next(line for line in lines if line.startswith("EDEN ["))
    assert "Monte Carlo Tree Search" in diffu and not diffu.split(": ", 1)[1].startswith("While")
    assert "Entropy-informed" in eden


def test_answer_chain_follows_a_problem_to_its_solution_and_a_cause_question_to_the_finding():
    from assistant.extractive import answer_chain, answer_role

    abstract = ["Training is unstable.", "Gradients conflict.",
                "To address this, we propose PCR, a Bayesian framework.",
                "PCR arbitrates conflicts via soft projection.", "Experiments show gains."]
    assert answer_role("How can the gradient conflict be resolved?") == "how"
    assert answer_chain("how", abstract, 1, "PCR") == [2, 3]  # the solution, then the method's mechanism
    assert answer_role("Why does QAT plateau early?") == "why"
    finding = ["QAT plateaus early.", "In this paper, we analyze the Hessian.",
               "We find that weights sit at saddle points."]
    assert answer_chain("why", finding, 0) == [2]
    assert answer_chain("how", ["A problem.", "Experiments show gains."], 0) == []  # no solution stated: no chain


@pytest.mark.integration
@pytest.mark.parametrize("question, expected", [
    ("How does the GRPO stability paper deal with the conflict between plasticity and stability gradients?",
     "soft projection"),
    ("How are hallucinated tasks ruled out in A2RBench?", "cycle consistency"),
    ("Why does quantization-aware training stall at low bit-widths, according to WinQ?", "saddle points"),
])
def test_extractive_how_and_why_questions_quote_the_abstracts_answer_to_the_problem(bundled_store, settings,
                                                                                     question, expected):
    obj = _extractive(bundled_store, settings, question)
    assert not obj["refused"], obj["answer"]
    assert expected in obj["answer"], obj["answer"]


@pytest.mark.parametrize("question, several", [
    ("How do WinQ and STAR-KV differ in what they quantize?", True),
    ("What is the difference between RePro and OPUS?", True),
    ("How does EDEN differ from beam search?", True),
    ("Does the speedup differ across model sizes?", False),  # one paper's results, not two papers
])
def test_a_question_contrasting_two_things_asks_about_several_papers(question, several):
    from assistant.extractive import asks_several, question_kind

    assert (question_kind(question) == "papers" and asks_several(question)) is several


@pytest.mark.integration
def test_extractive_how_do_x_and_y_differ_gives_a_line_naming_and_citing_each(bundled_store, settings):
    obj = _extractive(bundled_store, settings, "How do WinQ and STAR-KV differ in what they compress?")
    lines = obj["answer"].splitlines()
    assert len(obj["citations"]) == 2 and len(lines) == 2, obj["answer"]
    assert any(line.startswith("WinQ [") for line in lines) and any(line.startswith("STAR-KV [") for line in lines)


@pytest.mark.parametrize("question, detail", [
    ("Where is STAR-KV's code?", "code"),
    ("Is there a link to the RePro implementation code?", "code"),
    ("Is the NorMuon code open source?", "code"),  # a new user's trial: NorMuon's FSDP2 sentence was quoted
    ("Did they open-source their code?", "code"),
    ("did they release code?", "code"),  # held-out fresh55 chats: NorMuon's distributed implementation was quoted
    ("Have the authors published their implementation?", "code"),
    ("Is the code public?", "code"),
    ("Does EAPO rely on open-source models as experts?", None),  # models, not the paper's code
    # a follow-up's rewrite names an untitled paper by its opening words in single quotes (fresh16 chats c08)
    ("Where can I download 'Preference-based reinforcement learning (RL) is a key…''s code?", "code"),
    ("Which abstracts link to a GitHub repository with their code?", None),  # several papers: one line each
    ("Does it also work for code generation?", None),
    # a figure asked on a named accelerator (a new user's trial, round 28: the speedups quoted as if measured there)
    ("how much faster is star-kv on an h100?", "hardware"),
    ("How much faster is STAR-KV?", None),
    # released artefacts other than code, and hardware counts as other languages ask them (round 10)
    ("Are RePro's model weights released on Hugging Face?", "weights"),
    ("Did they open-source the checkpoints?", "weights"),
    ("Which paper shares model weights for its rephraser?", None),  # asks for a paper
    ("¿Cuántas GPUs usó NorMuon?", "hardware"),
    ("Wie viele Stunden dauerte das Training von WinQ?", "hardware"),
    ("How many GPU hours did STAR-KV need?", "hardware"),
    ("What GPUs, and how many of them, were used for NorMuon's 1.1B pretraining run?", "hardware"),  # round 12
    ("What kind of accelerators did WinQ train on?", "hardware"),
    ("How much GPU memory does STAR-KV save?", None),  # a quantity of the method, not the study's hardware
    # a question that only describes the paper asked for (airas fresh37: "The abstracts do not say.")
    ("the paper proving that federated averaging converges on non-iid data and that the learning rate has to decay",
     None),
    ("the learning rate schedule of the federated averaging paper", "hyperparameters"),  # "of": asked of the paper
    ("tell me about the learning rate they used", "hyperparameters"),  # a request about the paper discussed
    ('link to the code? (the paper that begins "Preference-based reinforcement learning (RL) is a key…")', "code"),
    ("link?", "code"),  # the clause after "is their code public?" (chats fresh23)
    ("a link to the benchmark's leaderboard would help", None),
    # a detail word as a modifier, or in a sentence that only describes the paper, is not asked (airas fresh17 and
    # fresh5, round 27: "the abstracts do not say" for the paper the question describes)
    ("hyperparameter-free importance score for global magnitude pruning that decides per-layer sparsity", None),
    ("An RL agent decides during training which transformer layers to share weights with earlier layers", None),
    ("A network under a fixed parameter budget learns how to share weights. What were those networks called?", None),
    ("I remember a paper on learning rate schedules. What batch size did it use?", "hyperparameters"),
    ("learning rate used by NorMuon", "hyperparameters"),  # a statement whose head is the detail
])
def test_a_question_asking_for_the_code_link_is_a_detail_question(question, detail):
    from assistant.extractive import detail_asked

    assert detail_asked(question) == detail


@pytest.mark.integration
def test_extractive_code_link_quotes_the_url_or_says_the_abstract_gives_none(bundled_store, settings):
    """The link when the abstract gives one; else "The abstracts do not say.", quoting the sentence that
    mentions the code without a link, cited, so the reader sees which paper was checked."""
    obj = _extractive(bundled_store, settings, "Where can I download the STAR-KV code?")
    assert "https://github.com/" in obj["answer"] and "STAR-KV" in obj["answer"]
    obj = _extractive(bundled_store, settings, "Where is the code of the federated and decentralized DPO analysis?")
    assert obj["answer"].startswith("The abstracts do not say.") and "available here" in obj["answer"]
    assert len(obj["citations"]) == 1 and "http" not in obj["answer"]


def test_a_defined_term_names_an_algorithm_not_a_model():
    from assistant.extractive import named_entities

    sentence = "We optimise infilling orders through Monte Carlo Tree Search (MCTS) on Llama 3."
    assert named_entities(sentence) == ["Llama 3"]  # what a method uses, not what the sentence defines
    assert named_entities(sentence, defined=True) == ["MCTS", "Llama 3"]


def test_entity_question_asks_for_its_head_noun_and_keeps_the_phrase():
    from assistant.extractive import entity_noun, entity_phrase

    assert entity_noun("On which math competition benchmarks was it tested?") == "benchmarks"
    assert entity_phrase("Which spiking neuron model do they use?") == ["spiking", "neuron", "model"]


@pytest.mark.integration
@pytest.mark.parametrize("question, expected", [
    # the abstract names it next to another word of the question's phrase ("LIF neuron groups")
    ("What spiking neuron model computes the operator primitives in the ANN-to-SNN framework?", "LIF"),
    # the head noun of "math competition benchmarks" is "benchmarks", which the abstract writes
    ("Which math competition benchmarks is the expert-consulting RL method tested on?", "AIME"),
    # an algorithm is named as the abstract defines it, with a field's acronym (chats fresh15: "The abstracts do not
    # say.")
    ("What search algorithm does DiffuSearch use?", "Monte Carlo Tree Search"),
])
def test_extractive_entity_question_quotes_the_sentence_naming_them(bundled_store, settings, question, expected):
    obj = _extractive(bundled_store, settings, question)
    assert not obj["refused"], obj["answer"]
    assert expected in obj["answer"]


def test_plain_renders_tex_quotes_and_dashes_an_abstract_keeps_outside_math():
    from assistant.extractive import plain

    assert plain("an ``soft projection'' mechanism") == "an “soft projection” mechanism"
    assert plain("primitives---division and low-rank--aware") == "primitives—division and low-rank–aware"
    assert plain("use --json and 75$\\%$") == "use --json and 75%"  # an option, not a dash between words


def test_every_surface_renders_tex_single_quotes_and_dashes():
    """ALIVE's `pre-flight' stayed as typed in answers, and the chat export's references kept "low-rank--aware"
    (round 11, a new user's trial): the ligatures are `text.render_latex`'s, which every surface uses."""
    from assistant.chats import readable
    from assistant.extractive import plain

    for render in (plain, readable):
        assert render("a scalable `pre-flight' layer") == "a scalable ‘pre-flight’ layer"
        assert render("low-rank--aware") == "low-rank–aware"
    assert readable("it's the model's `code` and --json") == "it's the model's `code` and --json"


def test_defined_term_ends_where_a_second_question_begins_and_an_acronyms_expansion_defines_it():
    from assistant.extractive import defined_term, defines

    assert defined_term("What is RLVR, and which papers use it?") == "RLVR"
    assert defines("rlif", "Reinforcement Learning from Internal Feedback (RLIF) has emerged as a paradigm.")
    assert not defines("rlif", "PowerFlow outperforms existing RLIF methods.")  # uses the term, does not define it


@pytest.mark.integration
def test_extractive_what_is_an_acronym_quotes_the_sentence_spelling_it_out(bundled_store, settings):
    obj = _extractive(bundled_store, settings, "What is RLIF, and is there a paper using it?")
    assert "Internal Feedback" in obj["answer"], obj["answer"]


@pytest.mark.integration
def test_extractive_what_results_does_a_named_paper_report_quotes_its_experiments(bundled_store, settings):
    obj = _extractive(bundled_store, settings, "What improvements does RankTuner report in its experiments?")
    assert "mathematical reasoning benchmarks" in obj["answer"], obj["answer"]
    assert [c["title"] for c in obj["citations"]] and all("RankTuner" in c["title"] or "Token-level" in c["title"]
                                                           for c in obj["citations"])


@pytest.mark.integration
@pytest.mark.parametrize("question, expected", [
    # a new user's question (round 12): the abstract never writes "memory"; its saving is the cache compression
    ("How much memory does STAR-KV save?", "75% KV cache compression"),
    # the optimizer's memory is not stated in the NorMuon abstract, and WinQ states no memory saving
    ("How much extra optimizer memory does NorMuon need compared with plain Muon?", None),
    ("How much memory does WinQ save?", None),
])
def test_extractive_how_much_memory_quotes_a_saving_stated_as_compression(bundled_store, settings, question,
                                                                         expected):
    obj = _extractive(bundled_store, settings, question)
    if expected is None:
        assert obj["answer"].startswith("The abstracts do not say"), obj["answer"]
    else:
        assert expected in obj["answer"] and len(obj["citations"]) == 1, obj["answer"]


@pytest.mark.parametrize("question, kind", [
    # what something costs is a quantity; "what is the" does not count towards the words before it (round 12)
    ("data selection scored in the optimizer's update space — what is the extra compute cost?", "number"),
    ("What is the maximum KV cache compression reported by the adaptive-rank method?", "number"),
    ("What cost function does PowerFlow minimise?", "other"),  # a function, not a cost
    # "inspired by how treatments act" describes the paper asked for; "by how much" asks (airas fresh40)
    ("deep generative model of biomarker time series with attention inspired by how treatments act on disease",
     "other"),
    # a statement asks no number (airas fresh39: "The abstracts do not say." for the paper described)
    ("asynchronous SGD tolerating Byzantine workers by checking how much each gradient would decrease the loss",
     "other"),
    ("how much faster is WinQ", "number"),
    ("By how much does WinQ speed up convergence?", "number"),
])
def test_what_a_method_costs_or_saves_asks_for_a_quantity(question, kind):
    from assistant.extractive import question_kind

    assert question_kind(question) == kind


@pytest.mark.parametrize("question, kind", [
    # a second noun before the auxiliary ends the asked noun phrase (fresh24 chats: read as "which paper")
    ("which model families did they analyse?", "entity"),
    ("Which model variants were released with the code?", "entity"),
    ("Which benchmark pipeline generates tasks automatically?", "which"),  # its own verb: a paper is asked
    ("Which model trained on web data reaches 80%?", "which"),  # "on" is no auxiliary
])
def test_which_noun_phrase_of_two_nouns_asks_for_an_entity(question, kind):
    from assistant.extractive import question_kind

    assert question_kind(question) == kind


@pytest.mark.integration
@pytest.mark.parametrize("question, expected", [
    # held-out fresh14 s16 and fresh9 g9s11: the overhead sentence, not the background
    ("online pretraining data selection that scores examples by the update the actual optimizer would make, not "
     "by raw gradients — what is the extra compute cost?", "4.7% additional compute overhead"),
    # a cost the abstract states in words, not as a number: the sentence stating it, not "do not say"
    ("Apart from hurting training stability, what hardware-level cost do widened residual streams such as "
     "Hyper-Connections incur?", "memory access overhead"),
    # "cheap" shares no word with the sentence stating the cost, and MiniLM ranks the introduction above it (round 21)
    ("Which paper picks pretraining data by projecting each candidate's optimizer update onto a target direction, and "
     "how is that kept cheap?", "4.7% additional compute overhead"),
    ("Is OPUS expensive to run?", "4.7% additional compute overhead"),
])
def test_extractive_what_it_costs_quotes_the_cost_as_a_number_or_in_words(bundled_store, settings, question,
                                                                         expected):
    obj = _extractive(bundled_store, settings, question)
    assert expected in obj["answer"] and len(obj["citations"]) == 1, obj["answer"]


@pytest.mark.integration
def test_a_compound_in_the_description_does_not_ask_for_model_sizes(bundled_store, settings):
    """"multi-scale" describes the paper asked for; the question asks which corpus (airas fresh40: "built from a
    multi-scale normalizing flow ... Which dataset did they test on?" lost the dataset sentence for stating no size,
    and was answered "The abstracts do not say.")."""
    obj = _extractive(bundled_store, settings, "A multi-scale approach to rephrasing web text for pretraining: which "
                                               "corpus did they sample from?")
    assert "DCLM-RefinedWeb" in obj["answer"] and len(obj["citations"]) == 1, obj["answer"]


@pytest.mark.parametrize("question, kind", [
    ("What does PLAINTAIN do?", "definition"),
    ("What does EDEN do exactly?", "definition"),
    ("What does WinQ propose?", "definition"),
    ("What does EDEN stand for?", "definition"),
    # its effect on something named is asked, not what it is (round 13: answered with the defining sentence)
    ("What does PLAINTAIN do to pass@1 and to latency?", "other"),
    ("What does PowerFlow do when alpha is below 1?", "other"),
])
def test_what_does_x_do_defines_x_only_when_nothing_follows(question, kind):
    from assistant.extractive import question_kind

    assert question_kind(question) == kind


@pytest.mark.integration
@pytest.mark.parametrize("question, expected", [
    ("What does PLAINTAIN do to pass@1?", "6%"),
    ("What does NorMuon do to the number of training steps?", "21.74%"),
])
def test_extractive_what_does_x_do_to_something_quotes_its_effect_on_it(bundled_store, settings, question, expected):
    obj = _extractive(bundled_store, settings, question)
    assert expected in obj["answer"] and len(obj["citations"]) == 1, obj["answer"]


@pytest.mark.parametrize("question, kind", [
    ("In the federated setting, what determines how fast training converges?", "other"),  # a factor
    ("What factor governs how much memory is saved?", "other"),
    ("How fast does it converge?", "number"),
])
def test_what_determines_how_fast_asks_for_a_factor_not_a_number(question, kind):
    from assistant.extractive import question_kind

    assert question_kind(question) == kind


@pytest.mark.integration
def test_extractive_what_determines_the_convergence_speed_quotes_the_factor(bundled_store, settings):
    obj = _extractive(bundled_store, settings,
                      "For decentralized DPO, what governs how quickly the optimization converges?")
    assert "spectral connectivity" in obj["answer"], obj["answer"]



def test_what_a_how_many_question_counts():
    """"How many X ..." is answered only by a sentence that counts X; a unit is not what is counted."""
    from assistant.extractive import counted_noun

    assert counted_noun("How many bits are keys and values stored with?") == "bits"
    assert counted_noun("How many timesteps per token does the converted spiking LLM need?") == "timesteps"
    assert counted_noun("How many RL strategies did they derive from it?") == "strategies"
    assert counted_noun("How many BLEU points does it gain over LayerNorm?") == "BLEU"
    assert counted_noun("How many times faster is decoding?") is None
    assert counted_noun("What is the speedup?") is None
    assert counted_noun("how many of them were used?") is None  # a pronoun: the noun is elsewhere (round 12)


@pytest.mark.integration
def test_a_how_many_question_is_not_answered_by_a_sentence_counting_something_else(bundled_store, settings):
    obj = _extractive(bundled_store, settings, "How many bits are keys and values stored with in STAR-KV?")
    assert obj["answer"] == "The abstracts do not say."  # it states 75% and 20×, no bit-width
    assert "STAR-KV" in [s["title"] for s in obj["sources"]]


@pytest.mark.integration
def test_a_question_about_code_generation_is_not_answered_with_the_code_link(bundled_store, settings):
    """"code generation" shares a word with "Our code is publicly available at ...", not an answer; a
    question asking where the code is still gets the link."""
    obj = _extractive(bundled_store, settings, "Does STAR-KV also work for code generation?")
    assert "github.com" not in obj["answer"]
    obj = _extractive(bundled_store, settings, "Where is the STAR-KV code?")
    assert "github.com" in obj["answer"]


@pytest.mark.parametrize("question, several", [
    ("Two papers caught my eye: the one that recycles web data and the one that builds spiking LLMs. "
     "What does each do?", True),
    ("How do both methods handle noise?", True),
    ("What does each of them report?", True),
    ("What does each layer compute in mHC?", False),  # "each" of something else
    ("Does it use two models?", False),
    # one paper's results compared with people or baselines (fresh18 c08.4 quoted four papers)
    ("On the abstract reasoning benchmark, how does the top model compare with humans?", False),
    ("How does NorMuon compare to the baselines?", False),
    ("Compare NorMuon with WinQ.", True),
])
def test_a_question_about_each_of_two_papers_asks_about_several(question, several):
    from assistant.extractive import asks_several

    assert asks_several(question) is several


@pytest.mark.integration
@pytest.mark.parametrize("question, expected", [
    ("What is NorMuon?", "Neuron-wise Normalized Muon"),  # "by proposing NorMuon (…), an optimizer that"
    ("What is EDEN?", "Entropy-informed DEcodiNg"),  # "we introduce Entropy-informed DEcodiNg (EDEN)"
])
def test_extractive_what_is_x_quotes_the_sentence_that_defines_it(bundled_store, settings, question, expected):
    obj = _extractive(bundled_store, settings, question)
    assert not obj["refused"], obj["answer"]
    assert expected in obj["answer"].split("[1]")[0], obj["answer"]  # the first sentence quoted defines it


def test_the_question_kind_is_read_after_a_discourse_opener():
    """"Separately, which paper ..." asks which paper as "Which paper ..." does; an opener is no subject."""
    from assistant.extractive import question_kind

    assert question_kind("Separately, which paper finds that Muon's updates have uneven neuron norms?") == "papers"
    assert question_kind("Different topic. Which paper recasts fine-tuning as distribution matching?") == "papers"
    assert question_kind("Hi, what is EDEN?") == "definition"


def test_what_a_how_much_question_measures():
    """"How much <noun> ..." asks about that noun; "how much faster / does X improve" names none."""
    from assistant.extractive import measured_noun

    assert measured_noun("How much extra optimizer memory does NorMuon need compared with plain Muon?") == "memory"
    assert measured_noun("How much KV cache compression does STAR-KV achieve?") == "compression"
    assert measured_noun("How much does WinQ improve accuracy?") is None
    assert measured_noun("How much faster is it?") is None


@pytest.mark.integration
@pytest.mark.parametrize("question, expected", [
    # the abstract states the speed in other words: "accelerates QAT by up to 4×"
    ("And by how much does WinQ speed up training?", "4×"),
    # "To address these challenges, we propose mHC": the sentence before states the challenges
    ("Which problems of the original hyper-connections does mHC address?", "memory access"),
    ("Which problems of the original hyper-connections does mHC address?", "instability"),
    # baselines are described by their method, not named
    ("What baselines does RankTuner beat?", "entropy-only"),
])
def test_extractive_answer_states_the_asked_fact_said_in_other_words(bundled_store, settings, question, expected):
    obj = _extractive(bundled_store, settings, question)
    assert not obj["refused"], obj["answer"]
    assert expected in obj["answer"]


@pytest.mark.integration
def test_a_which_paper_question_after_an_opener_names_the_paper(bundled_store, settings):
    obj = _extractive(bundled_store, settings, "Separately, which paper finds that Muon's updates have very uneven "
                                               "neuron norms, so that a few neurons dominate?")
    assert obj["answer"].startswith("NorMuon [1]: "), obj["answer"]
    assert _cited_titles(obj) == ["NorMuon"]


@pytest.mark.integration
@pytest.mark.parametrize("question", [
    "How much extra optimizer memory does NorMuon need compared with plain Muon?",  # its numbers are steps, points
    "Which language models were quantized in the WinQ experiments?",  # "models" are named, and none is
])
def test_a_number_or_name_about_something_else_does_not_answer(bundled_store, settings, question):
    obj = _extractive(bundled_store, settings, question)
    assert obj["answer"].startswith("The abstracts do not say."), obj["answer"]


def test_a_question_asking_for_a_number_of_things_and_the_sentences_listing_them():
    from assistant.extractive import asked_count, enumerates

    assert asked_count("What two ingredients make up WinQ?") == "two"
    assert asked_count("Which 3 stages does the pipeline have?") == "three"
    assert asked_count("What is WinQ?") is None
    assert enumerates("It involves: (1) resetting weights and (2) computing gradients of noisy weights.", "two")
    assert enumerates("Existing methods either rely on static filters, or use raw gradients.", "two")
    assert enumerates("We quantify these with two metrics measuring backward attention.", "two")
    assert not enumerates("We introduce three novel RL strategies (preplan tokens, anchor tokens, and coupling).",
                          "two")


@pytest.mark.integration
@pytest.mark.parametrize("question, expected", [
    ("What two ingredients make up WinQ?", ["interpolation", "noise-injected"]),
    ("Which two families of existing data-selection methods does OPUS criticise?", ["static filters",
                                                                                    "raw gradients"]),
])
def test_extractive_what_two_things_quotes_the_sentence_listing_them(bundled_store, settings, question, expected):
    obj = _extractive(bundled_store, settings, question)
    assert all(e in obj["answer"] for e in expected), obj["answer"]


@pytest.mark.integration
def test_how_long_does_training_take_is_not_answered_by_a_percentage(bundled_store, settings):
    """The WinQ abstract states 4× and 8.8% "under the same training cost", no training time."""
    obj = _extractive(bundled_store, settings, "How long does WinQ training take?")
    assert obj["answer"] == "The abstracts do not say."


@pytest.mark.integration
@pytest.mark.parametrize("question, expected", [
    # a second new user's trial (round 21): "up to 4×" was quoted; WinQ's abstract gives no share of eigenvalues
    ("What percentage of Hessian eigenvalues are near zero in QAT?", "The abstracts do not say."),
    ("By what percentage does NorMuon reduce training steps compared with AdamW?", "21.74%"),
])
def test_what_percentage_is_answered_by_a_share_not_a_factor(bundled_store, settings, question, expected):
    obj = _extractive(bundled_store, settings, question)
    assert expected in obj["answer"], obj["answer"]
    assert "4×" not in obj["answer"]


@pytest.mark.integration
def test_a_yes_no_question_about_a_named_paper_is_answered_from_it_not_refused(bundled_store, settings):
    """No sentence of ALIVE's abstract shares a word with "screenshots" or "page structure": its best
    sentences are quoted and cited, not "The abstracts do not say."."""
    obj = _extractive(bundled_store, settings, "Does ALIVE look at screenshots or at the page structure?")
    assert not obj["refused"], obj["answer"]
    assert _cited_titles(obj) == ["ALIVE"]


@pytest.mark.integration
@pytest.mark.parametrize("question, expected", [
    # "what does X improve" asks for X's results, not its definition (issue 8's example)
    ("What does NorMuon improve over AdamW?", "21.74%"),
    # the tasks are listed in words, not named
    ("What tasks was EDEN evaluated on?", "code generation"),
])
def test_extractive_results_and_described_things_of_a_named_paper(bundled_store, settings, question, expected):
    obj = _extractive(bundled_store, settings, question)
    assert expected in obj["answer"], obj["answer"]


@pytest.mark.integration
def test_which_papers_report_results_on_benchmarks_names_the_benchmarks_in_each_line(bundled_store, settings):
    """Each paper's line adds its sentence naming the benchmarks with a score when its best sentences
    name none: DiffuSearch's "... on MATH500", EAPO's "On AIME 2024/2025 ..."."""
    obj = _extractive(bundled_store, settings, "Which papers report results on mathematical reasoning benchmarks?")
    lines = {line.split(" [")[0]: line for line in obj["answer"].splitlines()}
    assert "MATH500" in lines["DiffuSearch"]
    assert "AIME" in lines["EAPO"]


def test_the_authors_as_the_subject_of_a_research_verb_are_not_the_asked_detail():
    from assistant.extractive import detail_asked

    assert detail_asked("Which objective do the authors propose?") is None
    assert detail_asked("What do the authors find about exploration?") is None
    assert detail_asked("Who are the authors of the NorMuon paper?") == "authors"
    assert detail_asked("Which authors wrote it?") == "authors"


def test_a_quantity_written_in_words_is_a_stated_quantity():
    from assistant.extractive import states_quantity

    assert states_quantity("ALIVE remains orders of magnitude more efficient than GUI agents.")
    assert states_quantity("RePro doubles the gains of prompting.")
    assert not states_quantity("ALIVE is more efficient than GUI agents.")


@pytest.mark.integration
def test_how_much_more_efficient_is_answered_by_a_quantity_in_words(bundled_store, settings):
    obj = _extractive(bundled_store, settings, "How much more efficient is ALIVE than GUI agents?")
    assert "orders of magnitude" in obj["answer"], obj["answer"]
    assert _cited_titles(obj) == ["ALIVE"]


# --- a known paper described in other words is cited (issue 8, airas 16k kinds) --------------------------

_TOOL_ABSTRACT = ("We present a learned approach that detects and fixes bugs in Python programs. A graph "
                  "network predicts a sequence of edits on the program's syntax tree. By training on 120,000 "
                  "commits mined from GitHub, our tool fixes bugs in 4,210 out of 20,000 programs end to end. "
                  "The code is available at https://github.com/x/y.")
_DESCENT_ABSTRACT = ("Over-parameterized networks show double descent. We show that epoch-wise double descent "
                     "arises from a superposition of bias-variance tradeoffs learned at different epochs, and that "
                     "scaling the step sizes of the layers removes it. Experiments on CIFAR-10 confirm the theory.")


@pytest.mark.integration
@pytest.mark.parametrize("abstract, question, quoted", [
    # "commits mined from GitHub" is the training data, not a code availability statement
    (_TOOL_ABSTRACT, "A learned tool repairs bugs in Python code by predicting edits on a graph. How many "
                     "programs did it fix end to end?", "4,210 out of 20,000 programs"),
    # "training epochs" describes the paper asked for; it does not ask for the number of epochs
    (_DESCENT_ABSTRACT, "Which paper argues that double descent over training epochs comes from several "
                        "bias-variance tradeoffs, and removes it by rescaling step sizes?",
     "superposition of bias-variance tradeoffs"),
])
def test_a_known_paper_described_in_other_words_is_quoted_and_cited(real_store, settings, abstract, question,
                                                                     quoted):
    from assistant.answering import check_citations
    from assistant.events import Source
    from assistant.extractive import ExtractiveSynthesizer
    from assistant.store.paper import Paper

    paper = Paper(abstract=abstract, title="A Known Paper", id="p1")
    text = ExtractiveSynthesizer(settings).synthesize(question, [Source(1, paper, 1.0)], real_store.embedder)
    assert quoted in text
    assert check_citations(text, 1)[1] == [1]


_FLASH2_ABSTRACT = ("The attention layer is the main bottleneck in scaling to longer sequences. FlashAttention [5] "
                    "exploits the asymmetric GPU memory hierarchy to bring significant memory saving and runtime "
                    "speedup (2-4× compared to optimized baselines), with no approximation. We propose "
                    "FlashAttention-2, with better work partitioning, yielding around 2× speedup compared to "
                    "FlashAttention [5, 9].")


@pytest.mark.integration
def test_an_abstracts_own_reference_markers_are_not_quoted_as_citations(real_store, settings):
    """"FlashAttention [5]" in a quoted sentence read as a citation of source 5, which the citation check
    removed with a note ("naming no given source: [5]") that means nothing to a reader."""
    from assistant.answering import check_citations
    from assistant.events import Source
    from assistant.extractive import ExtractiveSynthesizer
    from assistant.store.paper import Paper

    paper = Paper(abstract=_FLASH2_ABSTRACT, title="FlashAttention-2", id="p1")
    text = ExtractiveSynthesizer(settings).synthesize("How much faster is FlashAttention-2 than FlashAttention?",
                                                      [Source(1, paper, 1.0)], real_store.embedder)
    assert "2× speedup" in text and "[5" not in text and "[9]" not in text
    _, cited, removed = check_citations(text, 1)
    assert cited == [1] and not removed


def test_the_number_of_epochs_asked_is_a_detail_a_described_paper_is_not():
    from assistant.extractive import detail_asked

    assert detail_asked("How many epochs was the model trained for?") == "hyperparameters"
    assert detail_asked("Which random seeds did they use?") == "hyperparameters"
    assert detail_asked("Which paper shows double descent over training epochs?") is None
    assert detail_asked("Which work studies choosing seed users in a social network?") is None


@pytest.mark.parametrize("question, kind", [
    # "how much" inside what the paper does: a paper is asked for
    ("Which paper bounds how much information is squeezed in message passing, and adds edges to reduce it?", "papers"),
    ("Which paper measures how far apart two black-box models are by comparing explanations?", "papers"),
    # a quantity asked in a clause of its own
    ("Which paper derives a bandit index for inventories, and how many SKUs did its largest problem have?", "number"),
    ("A tool repairs bugs in programs. How many programs did it fix?", "number"),
    ("By how much does WinQ reduce memory?", "number"),
    # "datasets" is what the method maps, not what is asked
    ("Which method maps two datasets without correspondences into one Euclidean space?", "other"),
    ("Which datasets does NorMuon use?", "entity"),
])
def test_question_kind_of_a_known_item_described_in_other_words(question, kind):
    from assistant.extractive import question_kind

    assert question_kind(question) == kind


def test_a_count_of_the_asked_thing_answers_how_many_though_it_is_no_content_word():
    from assistant.extractive import number_answer

    rows = [(0.9, 1, "We propose two extensions of the PGD attack that fix its step size.", 0.7, 3, 0),
            (0.4, 1, "We apply our ensemble to over 50 models from recent papers.", 0.3, 0, 1),
            (0.3, 1, "In all but 1 of the cases the robust accuracy is lower than reported.", 0.3, 0, 2)]
    chosen = number_answer("Which paper fixes PGD's step size? On how many models was it run?", rows, ["PGD"], 1)
    assert [x[2] for x in chosen] == ["We apply our ensemble to over 50 models from recent papers."]


@pytest.mark.integration
def test_a_field_name_inside_the_asked_noun_phrase_does_not_make_it_an_entity_question(real_store, settings):
    """"SGD" is in the paper's title, but "Which decentralized SGD algorithm ...?" asks which paper."""
    from assistant.answering import check_citations
    from assistant.events import Source
    from assistant.extractive import ExtractiveSynthesizer
    from assistant.store.paper import Paper

    paper = Paper(title="DSGD-EX: Decentralized SGD with Exact Consensus", id="p1",
                  abstract="Decentralized SGD trains networks without a central server. The best topology needs a "
                           "power-of-two number of agents. We remove this restriction and propose DSGD-EX, which "
                           "works for any number of agents with unit per-iteration communication.")
    question = "Which decentralized SGD algorithm drops the power-of-two agent count requirement?"
    text = ExtractiveSynthesizer(settings).synthesize(question, [Source(1, paper, 1.0)], real_store.embedder)
    assert "We remove this restriction" in text
    assert check_citations(text, 1)[1] == [1]


@pytest.mark.integration
@pytest.mark.parametrize("lead_in", ["Now, ", "OK so ", "And "])
def test_a_discourse_marker_before_what_is_x_still_gets_the_definition(bundled_store, settings, lead_in):
    """"Now, what is NorMuon?" asks what "What is NorMuon?" asks: the same defining sentence, same paper."""
    plain = _extractive(bundled_store, settings, "What is NorMuon?")
    led = _extractive(bundled_store, settings, lead_in + "what is NorMuon?")
    assert _cited_titles(led) == _cited_titles(plain) == ["NorMuon"]
    assert led["answer"].split("[1]")[0] == plain["answer"].split("[1]")[0], led["answer"]


@pytest.mark.parametrize("question, searches", [
    ("ok, and anything on LLM agents that learn tool calling?", True),  # fresh48 chats: read as about the paper before
    ("and anything on sparse attention?", True),
    ("anything on reward hacking?", True),
    ("what does it say about anything on X", False),  # "anything" inside a question about a paper
])
def test_anything_on_after_discourse_markers_searches_the_collection(question, searches):
    from assistant.extractive import searches_for_paper

    assert searches_for_paper(question) is searches


# --- round 6: where answers lose the gold paper (issue 8) ------------------------------------------------

@pytest.mark.parametrize("question, asks", [
    ("Is there a way to make users wait less before a reasoning model shows them anything, and by how much?", True),
    ("Which method speeds up QAT, and how much faster is it?", True),
    ("OK. Is there anything on data selection, and what does it cost?", True),
    ("How much faster is WinQ?", False),
    ("What does NorMuon gain over AdamW?", False),
    # a verb before "paper": the paper is named, its datasets are asked (round 21: a chat's standalone question naming
    # an unnamed paper by its first words was read as a search and answered with sentences, not "do not say")
    ('Which datasets did the paper that begins "Preference-based reinforcement learning" use?', False),
    ("What benchmarks does the paper on masked diffusion report?", False),
])
def test_asks_for_paper_reads_whether_or_which_paper_is_asked_first(question, asks):
    from assistant.extractive import asks_for_paper, searches_for_paper

    assert asks_for_paper(question) is asks
    if "paper" in question:
        assert searches_for_paper(question) is asks


@pytest.mark.integration
@pytest.mark.parametrize("question, gold, expected", [
    # the wait is "time-to-first-response" in the abstract: no sentence shares the quantity's words
    ("Is there a way to make users wait less before a reasoning model shows them anything, and by how much?",
     "PLAINTAIN", "60%"),
    # the gain on creative tasks is stated without a number
    ("Is there a fine-tuning method that fixes over-sharpening in aligned models? What does it gain in creative "
     "writing?", "PowerFlow", "diversity and quality"),
])
def test_a_paper_asked_for_with_a_quantity_in_other_words_is_named_not_refused(bundled_store, settings, question,
                                                                              gold, expected):
    obj = _extractive(bundled_store, settings, question)
    assert not obj["refused"], obj["answer"]
    assert any(gold in t for t in _cited_titles(obj)), obj["citations"]
    assert expected in obj["answer"], obj["answer"]


@pytest.mark.parametrize("question, kind", [
    ("Two papers interest me: the one on entropy-guided decoding and the one on alignment at inference time. "
     "What does each do?", "papers"),
    ("What does each of them report?", "papers"),
    ("What does each layer compute in mHC?", "other"),
    ("Does it use two models?", "other"),
])
def test_two_described_papers_and_each_is_a_several_paper_question(question, kind):
    from assistant.extractive import question_kind

    assert question_kind(question) == kind


@pytest.mark.integration
def test_extractive_what_does_each_of_two_described_papers_do_cites_both(bundled_store, settings):
    obj = _extractive(bundled_store, settings, "Two papers interest me: the one on entropy-guided decoding and the "
                                               "one on alignment at inference time. What does each do?")
    titles = _cited_titles(obj)
    assert len(titles) == 2 and any("Entropy" in t or "EDEN" in t for t in titles) and any(
        "alignment-aware" in t.casefold() or "AAD" in t for t in titles), titles
    assert "EDEN [" in obj["answer"] and "AAD [" in obj["answer"], obj["answer"]


def test_states_count_is_a_count_of_things_not_a_percentage_or_a_factor():
    from assistant.extractive import states_count

    assert states_count("These results are consistent across 16 settings with different language models.")
    assert states_count("we introduce three novel RL strategies")
    assert not states_count("WinQ accelerates QAT by up to 4× across various quantization methods and models.")
    assert not states_count("It improves accuracy by 8.8% over the baselines.")


@pytest.mark.integration
def test_extractive_a_count_asked_in_another_language_is_answered_by_the_count(bundled_store, settings):
    obj = _extractive(bundled_store, settings, "Combien de configurations différentes l'évaluation de WinQ "
                                               "couvre-t-elle ?")
    assert "16 settings" in obj["answer"], obj["answer"]
    assert "4×" not in obj["answer"], obj["answer"]  # a speed-up factor counts no configurations
    # "De combien ...": by how much, not how many
    obj = _extractive(bundled_store, settings, "De combien WinQ accélère-t-il l'entraînement QAT ?")
    assert "4×" in obj["answer"], obj["answer"]


def test_answer_role_and_chain_of_a_what_goes_wrong_question():
    from assistant.extractive import answer_chain, answer_role

    assert answer_role("What can go wrong when the LLMs expand the rules?") == "risk"
    assert answer_role("What problems can arise when the cache is compressed?") == "risk"
    assert answer_role("How can the cache be compressed?") == "how"
    sentences = ["We build tasks with LLMs.", "In the expansion stage, LLMs expand new input spaces.",
                 "However, such a process may cause hallucinations.", "We prove cycle consistency."]
    assert answer_chain("risk", sentences, 1) == [2]
    assert answer_chain("risk", sentences, 2) == []  # no problem stated after it


@pytest.mark.integration
def test_extractive_what_goes_wrong_quotes_the_problem_stated_after_the_step(bundled_store, settings):
    obj = _extractive(bundled_store, settings, "What goes wrong when the LLMs of A2RBench expand new input spaces?")
    assert "hallucinations" in obj["answer"], obj["answer"]


# the abstract of "Is Space-Time Attention All You Need for Video Understanding?" (ICML 2021)
_TIMESFORMER = (
    'We present a convolution-free approach to video classification built exclusively on self-attention '
    "over space and time. Our method, named ``TimeSformer,'' adapts the standard Transformer architecture"
    ' to video by enabling spatiotemporal feature learning directly from a sequence of frame-level '
    'patches. Our experimental study compares different self-attention schemes and suggests that '
    "``divided attention,'' where temporal attention and spatial attention are separately applied within "
    'each block, leads to the best video classification accuracy among the design choices considered. '
    'Despite the radically new design, TimeSformer achieves state-of-the-art results on several action '
    'recognition benchmarks, including the best reported accuracy on Kinetics-400 and Kinetics-600. '
    'Finally, compared to 3D convolutional networks, our model is faster to train, it can achieve '
    'dramatically higher test efficiency (at a small drop in accuracy), and it can also be applied to '
    'much longer video clips (over one minute long). Code and models are available at:  '
    'https://github.com/facebookresearch/TimeSformer.')


@pytest.mark.integration
def test_a_which_paper_question_with_a_second_question_asking_names_quotes_them(real_store, settings):
    from assistant.answering import check_citations
    from assistant.events import Source
    from assistant.extractive import ExtractiveSynthesizer
    from assistant.store.paper import Paper

    question = ("Which work builds a video classifier from self-attention alone, without convolutions, over "
                "frame-level patches, and finds that divided attention per block works best? On which benchmarks "
                "does it report its top accuracy?")
    paper = Paper(abstract=_TIMESFORMER, title="Is Space-Time Attention All You Need for Video Understanding?",
                  id="p1")
    text = ExtractiveSynthesizer(settings).synthesize(question, [Source(1, paper, 1.0)], real_store.embedder)
    assert "Kinetics-600" in text, text  # the second question's names
    assert "divided attention" in text, text  # and the first one's paper
    assert check_citations(text, 1)[1] == [1]


# two kept papers on distilling GNNs (ICLR 2022 "Cold Brew", ICML 2023 "Quantifying the Knowledge in GNNs ...")
_COLD_BREW = (
    'Graph Neural Networks (GNNs) have achieved state-of-the-art performance in node classification, '
    'regression, and recommendation tasks. GNNs work well when rich and high-quality connections are '
    'available. However, their effectiveness is often jeopardized in many real-world graphs in which node'
    ' degrees have power-law distributions. The extreme case of this situation, where a node may have no '
    'neighbors, is called Strict Cold Start (SCS). SCS forces the prediction to rely completely on the '
    "node's own features. We propose Cold Brew, a teacher-student distillation approach to address the "
    'SCS and noisy-neighbor challenges for GNNs. We also introduce feature contribution ratio (FCR), a '
    'metric to quantify the behavior of inductive GNNs to solve SCS. We experimentally show that FCR '
    'disentangles the contributions of different graph data components and helps select the best '
    'architecture for SCS generalization. We further demonstrate the superior performance of Cold Brew on'
    ' several public benchmark and proprietary e-commerce datasets, where many nodes have either very few'
    ' or noisy connections. Our source code is available at https://github.com/amazon-research/gnn-tail-'
    'generalization.')
_KRD = (
    'To bridge the gaps between topology-aware Graph Neural Networks (GNNs) and inference-efficient '
    'Multi-Layer Perceptron (MLPs), GLNN proposes to distill knowledge from a well-trained teacher GNN '
    'into a student MLP. Despite their great progress, comparatively little work has been done to explore'
    ' the reliability of different knowledge points (nodes) in GNNs, especially their roles played during'
    ' distillation. In this paper, we first quantify the knowledge reliability in GNN by measuring the '
    'invariance of their information entropy to noise perturbations, from which we observe that different'
    ' knowledge points (1) show different distillation speeds (temporally); (2) are differentially '
    'distributed in the graph (spatially). To achieve reliable distillation, we propose an effective '
    'approach, namely Knowledge-inspired Reliable Distillation (KRD), that models the probability of each'
    ' node being an informative and reliable knowledge point, based on which we sample a set of '
    'additional reliable knowledge points as supervision for training student MLPs. Extensive experiments'
    ' show that KRD improves over the vanilla MLPs by 12.62% and outperforms its corresponding teacher '
    'GNNs by 2.16% averaged over 7 datasets and 3 GNN architectures. Codes are publicly available at: '
    'https://github.com/LirongWu/RKD.')


def test_described_paper_puts_first_the_kept_paper_carrying_the_descriptions_words():
    from assistant.events import Source
    from assistant.extractive import described_paper, focus_stems
    from assistant.store.paper import Paper

    krd, cold = Paper(abstract=_KRD, title="KRD", id="a"), Paper(abstract=_COLD_BREW, title="Cold Brew", id="b")
    sources = [Source(1, krd, 1.0), Source(2, cold, 0.9)]
    focus = focus_stems("Which paper distills a teacher GNN into a student so nodes with no or noisy neighbors can be "
                        "handled, and what metric does it propose?", [])
    assert [s.n for s in described_paper(focus, sources)] == [2, 1]
    # a question both abstracts carry keeps the gate's order
    focus = focus_stems("Which paper distils a teacher GNN into a student?", [])
    assert [s.n for s in described_paper(focus, sources)] == [1, 2]


@pytest.mark.integration
def test_a_which_paper_question_cites_the_described_paper_not_the_first_kept(real_store, settings):
    from assistant.answering import check_citations
    from assistant.events import Source
    from assistant.extractive import ExtractiveSynthesizer
    from assistant.store.paper import Paper

    sources = [Source(1, Paper(abstract=_KRD, title="Quantifying the Knowledge in GNNs", id="a"), 1.0),
               Source(2, Paper(abstract=_COLD_BREW, title="Cold Brew", id="b"), 0.9)]
    question = ("Which paper distills a teacher GNN into a student so nodes with no or noisy neighbors can be "
                "handled, and what metric does it propose?")
    text = ExtractiveSynthesizer(settings).synthesize(question, sources, real_store.embedder)
    assert check_citations(text, 2)[1] == [2], text
    assert "feature contribution ratio" in text, text


def test_asks_absent_thing_is_a_counted_or_measured_thing_the_abstract_never_mentions():
    from assistant.extractive import asks_absent_thing

    abstract = _COLD_BREW
    assert asks_absent_thing("Is there a distillation method for GNNs, and how many parameters does it have?", abstract)
    assert asks_absent_thing("Which paper distills GNNs, and how much memory does it need?", abstract)
    assert not asks_absent_thing("Is there a distillation method for GNNs, and by how much does it help?", abstract)
    assert not asks_absent_thing("Is there a distillation method for GNNs, and how many datasets is it tested on?",
                                 abstract)  # "datasets": the abstract mentions them


@pytest.mark.integration
def test_a_paper_asked_for_with_a_thing_its_abstract_never_mentions_is_not_answered(bundled_store, settings):
    from assistant.events import Source
    from assistant.extractive import ExtractiveSynthesizer
    from assistant.prompts import CANNOT_ANSWER

    paper = next(p for p in bundled_store.papers() if "PLAINTAIN" in p.abstract)
    synthesizer = ExtractiveSynthesizer(settings)
    asked = "Is there a way to make users wait less before a reasoning model shows them anything, and "
    # the paper the gate kept, asked for a count its abstract never mentions: that part is not answered (since round
    # 28 the part asking for the paper is, and the count is said to be unstated, as for a detail)
    text = synthesizer.synthesize(asked + "how many parameters does its planner have?", [Source(1, paper, 1.0)],
                                  bundled_store.embedder)
    assert "PLAINTAIN" in text, text
    assert text.endswith('As for "how many parameters does its planner have?", the abstract does not state it.'), text
    # asked alone, the count is not answered at all
    text = synthesizer.synthesize("How many parameters does PLAINTAIN's planner have?", [Source(1, paper, 1.0)],
                                  bundled_store.embedder)
    assert text.startswith(CANNOT_ANSWER), text
    # the same paper asked for a quantity in other words than the abstract's: named and quoted
    text = synthesizer.synthesize(asked + "by how much?", [Source(1, paper, 1.0)], bundled_store.embedder)
    assert "60%" in text, text


@pytest.mark.integration
def test_which_models_a_paper_compared_against_is_an_entity_question_not_a_comparison(bundled_store, settings):
    """"compare against" is what the paper did, not the user asking to compare papers: ALIVE's abstract
    mentions "proprietary counterparts" but names none, so the abstracts do not say (it used to quote
    ALIVE's summary as a several-paper line)."""
    from assistant.extractive import question_kind

    assert question_kind("Which proprietary models did ALIVE compare against?") == "entity"
    assert question_kind("Compare the speedups of STAR-KV and WinQ") == "papers"
    obj = _extractive(bundled_store, settings, "Which proprietary models did ALIVE compare against?")
    assert obj["answer"].startswith("The abstracts do not say"), obj["answer"]


def test_asked_domain_is_the_domain_of_a_yes_no_applicability_question_only():
    from assistant.extractive import asked_domain, covers_domain

    assert asked_domain("Does STAR-KV also work for code generation?", ["STAR-KV"]) == {"code", "generat"}
    assert asked_domain("Can it be applied to vision transformers?") == {"vision", "transform"}
    # "tasks" is generic: the domain is "long-context"
    assert asked_domain("Does it work on long-context tasks?") == {"long-context"}
    # not applicability questions: a property ("need retraining") or "work" as a noun
    assert asked_domain("Does it need retraining?") == set()
    assert asked_domain("Is there work on shrinking the KV cache by exploiting redundancy?") == set()
    sentences = ["We evaluate on math and code generation benchmarks.", "Our code is available."]
    assert covers_domain({"code", "generat"}, sentences)
    assert not covers_domain({"vision", "transform"}, sentences)


def _ask(bundled_store, settings, q, conversation=None):
    from assistant.answering import answer, answer_to_json
    from assistant.llm import make_llm
    from assistant.retrieval import Retriever

    return answer_to_json(q, answer(q, retriever=Retriever(bundled_store), llm=make_llm(settings, "extractive"),
                                    settings=settings, conversation=conversation))


@pytest.mark.integration
def test_an_applicability_question_about_a_domain_the_abstract_never_names_is_not_stated(bundled_store, settings):
    """STAR-KV's abstract never names code generation: whether it works for it is not stated (it used to
    quote STAR-KV's description); asked about quantization, which the abstract names ("when combined with
    quantization"), it is answered from the abstract."""
    obj = _extractive(bundled_store, settings, "Does STAR-KV also work for code generation?")
    assert obj["answer"] == "The abstracts do not say.", obj["answer"]
    obj = _extractive(bundled_store, settings, "Does STAR-KV work with quantization?")
    assert not obj["refused"] and _cited_titles(obj) and "STAR-KV" in obj["answer"], obj["answer"]


def test_category_names_are_the_names_inside_a_list_of_kinds_ending_in_the_asked_noun():
    from assistant.extractive import category_names

    q = "Which reading-comprehension benchmark did they use?"
    listed = "Across challenging math, coding, text-to-SQL, and reading-comprehension benchmarks, X improves pass@1."
    assert category_names(listed, q) == ["text-to-SQL"]
    # a benchmark named after the category is an instance: not a category name
    assert category_names("On reading-comprehension benchmarks such as SQuAD, X improves F1.", q) == []


@pytest.mark.integration
def test_an_entity_question_whose_abstract_states_only_the_category_is_not_stated(bundled_store, settings):
    """PLAINTAIN's abstract says "reading-comprehension benchmarks" and names none: the abstracts do not
    say which (it used to quote that sentence); asked which benchmarks in general, the sentence answers."""
    obj = _extractive(bundled_store, settings, "Which reading-comprehension benchmark does PLAINTAIN use?")
    assert obj["answer"] == "The abstracts do not say.", obj["answer"]
    obj = _extractive(bundled_store, settings, "Which benchmarks does PLAINTAIN evaluate on?")
    assert "reading-comprehension" in obj["answer"] and _cited_titles(obj), obj["answer"]


@pytest.mark.integration
def test_a_detail_follow_up_with_no_paper_in_the_history_does_not_take_another_papers_detail(bundled_store,
                                                                                            settings):
    """After a question no paper was found for, "Is its code on GitHub?" asks about that (absent) paper:
    RePro's GitHub link, which the words "code" and "GitHub" retrieve, does not answer it. After a
    question that found RePro, the same follow-up is answered with RePro's link."""
    from assistant.conversation import Conversation, Turn
    from assistant.events import Answer
    from assistant.answering import answer
    from assistant.llm import make_llm
    from assistant.retrieval import Retriever

    def turn(conv, q):
        events = list(answer(q, retriever=Retriever(bundled_store), llm=make_llm(settings, "extractive"),
                             settings=settings, conversation=conv))
        conv.add(Turn.from_answer(Answer.from_events(events, question=q)))
        return conv.turns[-1]

    conv = Conversation()
    first = turn(conv, "Is there a paper on membership inference attacks against the training data of LLMs?")
    assert first.refused and not first.sources, first.answer
    follow = turn(conv, "Is its code on GitHub?")
    assert follow.answer == "The abstracts do not say." and not follow.citations, follow.answer
    conv = Conversation()
    first = turn(conv, "Which paper recycles low-quality web data by rephrasing it with a small model?")
    assert any("RePro" in c.paper.abstract for c in first.citations), first.answer
    follow = turn(conv, "Is its code on GitHub?")
    assert "github.com" in follow.answer, follow.answer


@pytest.mark.integration
def test_which_model_sizes_is_answered_by_a_size_the_question_does_not_already_give(bundled_store, settings):
    """NorMuon's abstract states one size (1.1B) and "multiple model scales": asked which sizes, the
    sentence with 1.1B answers; asked which sizes besides 1.1B, the abstracts do not say (it used to
    quote the "multiple model scales" sentence)."""
    obj = _extractive(bundled_store, settings, "Which model sizes did NorMuon train?")
    assert "1.1B" in obj["answer"], obj["answer"]
    obj = _extractive(bundled_store, settings, "Other than the 1.1B one, which model sizes did NorMuon train?")
    assert obj["answer"] == "The abstracts do not say.", obj["answer"]


@pytest.mark.integration
@pytest.mark.parametrize("question", [
    "Are RePro's model weights on Hugging Face?",  # its abstract links its code on GitHub, not weights
    "¿Cuántas GPUs y cuántas horas de entrenamiento necesitó NorMuon?",
    "Which base models were used to evaluate Probabilistic Conflict Resolution?",  # PCR named by its long form
    "Which datasets does alignment-aware decoding report, e.g. HH-RLHF or UltraFeedback?",  # examples no paper names
])
def test_a_detail_the_named_paper_does_not_state_is_not_said(bundled_store, settings, question):
    obj = _extractive(bundled_store, settings, question)
    assert obj["answer"].startswith("The abstracts do not say."), obj["answer"]
    assert not obj["answer"].startswith("No paper"), obj["answer"]


@pytest.mark.integration
@pytest.mark.parametrize("question, fact", [
    # the thing sized is named in other words ("the rewriting model" of "a rephraser as small as 1B parameters")
    ("How big was the rewriting model in RePro?", "1B"),
    ("How large is the model NorMuon pretrains?", "1.1B"),
])
def test_a_size_asked_of_a_thing_named_in_other_words_is_the_papers_stated_size(bundled_store, settings, question,
                                                                                  fact):
    obj = _extractive(bundled_store, settings, question)
    assert fact in obj["answer"] and len(obj["citations"]) == 1, obj["answer"]


@pytest.mark.integration
def test_a_url_asked_for_is_the_code_detail_not_a_name_no_paper_mentions(bundled_store, settings):
    # "URL" was read as a name no abstract mentions, and the question refused as about no paper
    obj = _extractive(bundled_store, settings, "Give me the URL of the code of the paper that recycles web data "
                                               "with a rephraser.")
    assert "github.com" in obj["answer"] and [c["title"] for c in obj["citations"]] == ["RePro"], obj["answer"]


@pytest.mark.integration
def test_which_value_of_a_parameter_is_a_number_question(bundled_store, settings):
    """"Which value of X" asks a number like "what value of X": WinQ's abstract names its linear
    interpolation but gives no coefficient, so the abstracts do not say (as a question of kind "other" it
    quoted WinQ's summary); STAR-KV's compression ratio is stated (75%)."""
    from assistant.extractive import question_kind

    assert question_kind("Which value of the interpolation coefficient does WinQ use?") == "number"
    obj = _extractive(bundled_store, settings, "Which value of the interpolation coefficient does WinQ use?")
    assert obj["answer"] == "The abstracts do not say.", obj["answer"]
    obj = _extractive(bundled_store, settings, "Which value of the compression ratio does STAR-KV reach?")
    assert "75%" in obj["answer"], obj["answer"]


# --- session 7: whether the chosen sentences answer (false refusals and not-in-abstract answers) -------------

def test_detail_is_asked_only_by_a_clause_asking_for_it():
    """Authors, hyperparameters or a code link are the asked detail only when a clause asks for them, not when
    they describe the paper asked for or the authors are the subject of what is asked."""
    from assistant.extractive import detail_asked

    assert detail_asked("Who wrote WinQ?") == "authors"
    assert detail_asked("Is there a paper on KV cache compression, and who are its authors?") == "authors"
    assert detail_asked("Which paper adapts per-neuron step sizes? What learning rate did it use?") == "hyperparameters"
    # the authors as the ones who found or say something
    assert detail_asked("What did the WinQ authors find about where the weights converge?") is None
    assert detail_asked("Where do the weights converge, according to the WinQ authors?") is None
    # a detail word describing the paper asked for
    assert detail_asked("Is there an optimizer that adapts the learning rate of each neuron?") is None
    assert detail_asked("Which hyperparameter optimization paper ranks configurations?") is None
    # a quoted subject (a follow-up rewrite quotes a paper's first words) does not hide the asked link
    assert detail_asked('Where is the code of "Token-level reweighting is a simple…"?') == "code"
    assert detail_asked("and where can i get the code") == "code"
    assert detail_asked("Do you know where the code of EDEN is?") == "code"
    # "where" relating a description, not asking a place (airas fresh35: "The abstracts do not say." for want of a
    # code link, to a question asking how many LLMs the benchmark analysed)
    assert detail_asked("benchmark where LLMs solve tasks by running Python code - how many LLMs did they analyze?") \
        is None


def test_a_quantity_inside_a_how_question_asks_the_mechanism():
    from assistant.extractive import question_kind

    assert question_kind("How does EDEN choose how many branches to follow at a step?") == "other"
    assert question_kind("How many branches does EDEN follow at a step?") == "number"
    assert question_kind("Does EDEN cut expansions, and by how much?") == "number"


def test_entity_questions_ask_for_named_things_not_kinds_or_subjects():
    from assistant.extractive import entity_noun, question_kind

    # tasks are kinds of problems, described rather than named
    assert question_kind("Which tasks was EAPO tested on?") != "entity"
    # "model sizes": the sizes are asked ("what model sizes were used ..." names no paper-describing verb)
    assert question_kind("Which model sizes did PowerFlow fine-tune?") == "entity"
    assert entity_noun("Which model sizes did PowerFlow fine-tune?") == "sizes"
    assert question_kind("Which pretraining corpora did NorMuon train on?") == "entity"
    # after a verb the noun is the subject of the question, not the thing asked
    assert question_kind("What do reasoning models waste before a visible response?") != "entity"


def test_a_cited_name_is_a_name_not_a_term_being_defined():
    from assistant.extractive import named_entities

    assert named_entities("Our model naturally generalizes TuckER (Balazevic et al., 2019).") == ["TuckER"]
    assert "QAT" not in named_entities("Quantization-aware training (QAT) is widely adopted.")


def test_domain_phrase_of_an_applicability_question_and_of_one_adding_to_the_paper():
    from assistant.extractive import asked_domain, domain_phrase

    assert domain_phrase("Does STAR-KV also work for code generation?", ["STAR-KV"]) == "code generation"
    # "... as well?" / "... too?": what follows the subject is the asked addition
    assert domain_phrase("Can ALIVE evaluate mobile apps too?", ["ALIVE"]) == "evaluate mobile apps"
    assert asked_domain("Can ALIVE evaluate mobile apps too?", ["ALIVE"]) == {"evalu", "mobil", "app"}
    assert domain_phrase("Is it better than autoregressive models as well? (DiffuSearch)") == (
        "better than autoregressive models")
    assert domain_phrase("Does it need retraining?") == ""


@pytest.mark.integration
@pytest.mark.parametrize("question, expected", [
    # "authors" as the subject of the claim asked about, not the thing asked (was "do not say")
    ("According to the PLAINTAIN authors, what do reasoning models waste before a visible response?", "user time"),
    # "how many" inside "how does it choose": the mechanism, not a number (was "do not say")
    ("How does EDEN choose how many branches to follow at a step?", "entropy"),
    # "learning rate" describing the optimizer asked for, not a hyperparameter asked (was "do not say")
    ("Is there an optimizer that adapts the learning rate of each neuron after orthogonalizing the update?",
     "neuron-level adaptive learning rates"),
    # "instruction tuning" is not written, "supervised fine-tuning" is: covered in meaning (was "do not say")
    ("Would RankTuner work for supervised instruction tuning?", "supervised fine-tuning"),
])
def test_extractive_answers_a_question_whose_answer_is_written_in_other_words(bundled_store, settings, question,
                                                                             expected):
    obj = _extractive(bundled_store, settings, question)
    assert not obj["answer"].startswith("The abstracts do not say"), obj["answer"]
    assert expected in obj["answer"], obj["answer"]


@pytest.mark.integration
@pytest.mark.parametrize("question, paper", [
    # corpora asked; NorMuon names optimizers, not corpora (was its result sentence)
    ("Which pretraining corpora did NorMuon train on?", "NorMuon"),
    # a frequency asked; WinQ's numbers are gains, not how often it resets (was its speedup sentence)
    ("How often does WinQ reset the weights while it trains QAT?", "WinQ"),
    # an addition the abstract covers neither in words nor in meaning (was STAR-KV's summary)
    ("Can STAR-KV compress image features as well?", "STAR-KV"),
    ("Can ALIVE evaluate mobile apps too?", "ALIVE"),
])
def test_extractive_says_the_abstracts_do_not_say_when_no_sentence_states_the_asked_kind(bundled_store, settings,
                                                                                       question, paper):
    obj = _extractive(bundled_store, settings, question)
    assert obj["answer"].startswith("The abstracts do not say"), obj["answer"]
    # the gate kept the paper: it is the answerer that finds the asked thing unstated
    assert any(paper in s["title"] for s in obj["sources"]), obj["sources"]


@pytest.mark.parametrize("authors, question, said", [
    (("Ada Lovelace", "Charles Babbage"), "Who are the authors of Engine?", "lists Ada Lovelace and Charles Babbage [1]."),
    (("Ada Lovelace", "Charles Babbage"), "Who wrote the Engine paper?", "lists Ada Lovelace and Charles Babbage [1]."),
    # the record has no affiliations, and an abstract without authors says nothing
    (("Ada Lovelace",), "What are the affiliations of the Engine authors?", None),
    ((), "Who are the authors of Engine?", None),
    # a consortium: the first ten and "et al."
    (tuple(f"Author {i}" for i in range(30)), "Who wrote Engine?", "Author 8, Author 9 et al. [1]."),
])
def test_the_authors_asked_come_from_the_papers_record_when_the_collection_has_them(settings, authors, question,
                                                                                    said):
    from assistant.events import Source
    from assistant.extractive import ExtractiveSynthesizer
    from assistant.prompts import CANNOT_ANSWER
    from assistant.store.paper import Paper
    from tests.conftest import FakeEmbedder

    paper = Paper(abstract="We present Engine, a machine that computes tables of numbers. Engine is fast.",
                  title="Engine", id="p1", authors=authors)
    text = ExtractiveSynthesizer(settings).synthesize(question, [Source(1, paper, 1.0)], FakeEmbedder())
    if said is None:
        assert text.startswith(CANNOT_ANSWER) and "lists" not in text
    else:
        assert text.startswith("The abstract does not name them; the collection's record of Engine lists")
        assert text.endswith(said)


@pytest.mark.parametrize("question, number", [
    ("Was Engine tested on a 7B model?", "7"),
    ("Going back to Engine, does it run on 8 GPUs?", "8"),
    ("Does Engine reach 90% accuracy?", "90"),
    ("Was Engine tested on 1.1B models?", None),  # the abstract has it
    ("Does Engine cut the error by 21.74%?", None),
    ("How much faster is Engine at 1,000 tables?", None),  # not a yes/no question
    ("Is there work on 2:4 sparsity?", None),  # a search: the gate's to judge
])
def test_a_yes_no_question_about_a_number_the_abstract_never_writes_is_not_answered_yes(settings, question, number):
    from assistant.events import Source
    from assistant.extractive import ExtractiveSynthesizer, unstated_number
    from assistant.prompts import CANNOT_ANSWER
    from assistant.store.paper import Paper
    from tests.conftest import FakeEmbedder

    abstract = "We present Engine, trained at 1.1B scale. Engine cuts the error by 21.74\\% on 1,000 tables."
    assert unstated_number(question, abstract) == number
    if number:  # it quoted the 1.1B sentence, which reads as a yes
        paper = Paper(abstract=abstract, title="Engine", id="p1")
        assert ExtractiveSynthesizer(settings).synthesize(question, [Source(1, paper, 1.0)], FakeEmbedder()) \
            == CANNOT_ANSWER


@pytest.mark.parametrize("question, noun", [
    ("Exactly which kernel does Engine smooth the scores with?", "kernel"),
    ("Onto which manifold does Engine project its weights?", "manifold"),
    ("Which prior does Engine place on the tables?", None),  # named: "a Dirichlet prior"
    ("Which loss does Engine minimise?", None),  # "a loss of ...": said which
    ("Which optimizer does Engine use?", None),  # never written: the other kinds answer
    ("Which papers smooth scores with a kernel?", None),  # asks for papers
    # plural things left unnamed: "on standard alignment benchmarks" says no benchmark (fresh20, twice)
    ("Which alignment benchmarks exactly was Engine evaluated on?", "benchmarks"),
    ("Which tasks was Engine tested on?", "tasks"),
    ("Which datasets does Engine use?", None),  # named after "including"
    ("What alignment score did Engine reach?", None),  # a quantity ("a mean score of 8,400": airas fresh39), not which
    # the head identified ("a root cause as the conflict ..."): its modifier's mention belongs to the same phrase
    # (fresh52 chats: "what root cause do they identify?" was answered "the abstracts do not say")
    ("What root cause does Engine identify?", None),
])
def test_a_thing_the_abstract_leaves_unidentified_is_not_said(settings, question, noun):
    """"Exactly which manifold does mHC project ... onto?" was answered with "... onto a specific manifold",
    asked in three held-out sets written apart (fresh3, fresh12, fresh13); "Which alignment benchmarks exactly
    were used?" with the sentence writing "on standard alignment benchmarks" (fresh20)."""
    from assistant.events import Source
    from assistant.extractive import ExtractiveSynthesizer, unnamed_instance
    from assistant.prompts import CANNOT_ANSWER
    from assistant.store.paper import Paper
    from tests.conftest import FakeEmbedder

    abstract = ("Engine smooths the scores with a specific kernel and projects its weights onto a manifold. It "
                "places a Dirichlet prior on the tables and minimises a loss of two terms. It gains 3 points on "
                "standard alignment benchmarks across diverse tasks, on several datasets, including Tab-1 and Tab-2. "
                "We identify a root cause as the conflict of two gradients.")
    assert unnamed_instance(question, abstract) == noun
    if noun:
        paper = Paper(abstract=abstract, title="Engine", id="p1")
        assert ExtractiveSynthesizer(settings).synthesize(question, [Source(1, paper, 1.0)], FakeEmbedder()) \
            == CANNOT_ANSWER


@pytest.mark.integration
def test_an_amount_of_text_is_answered_by_a_count_of_tokens(bundled_store, settings):
    """"how much text did it recycle?" of RePro: "recycle 72B tokens" states it (fresh43 chats: "The abstracts do not
    say.", the sentence naming no text)."""
    obj = _extractive(bundled_store, settings, "how much text did RePro recycle")
    assert "72B tokens" in obj["answer"] and len(obj["citations"]) == 1, obj["answer"]


def test_a_quantity_stated_in_words_answers_a_later_clause_asking_for_the_paper(settings):
    """"<description>. Which paper is this, and how fast are its design decisions?" of an abstract saying "in
    milliseconds": what the paper does and finds, not "the abstracts do not say" for want of a number (airas fresh15;
    the fallback had read only a first clause asking for a paper)."""
    from assistant.events import Source
    from assistant.extractive import ExtractiveSynthesizer
    from assistant.store.paper import Paper
    from tests.conftest import FakeEmbedder

    paper = Paper(abstract="Sequential experimental design is costly. We introduce Engine, a policy network that "
                           "outputs the next design with a single forward pass. Its design decisions are made in "
                           "milliseconds during the live experiment.", title="Engine", id="p1")
    text = ExtractiveSynthesizer(settings).synthesize(
        "A policy network picks the next experiment with one forward pass. Which paper is this, and how fast are its "
        "design decisions?", [Source(1, paper, 1.0)], FakeEmbedder())
    assert "milliseconds" in text and text.startswith("Engine [1]"), text


@pytest.mark.parametrize("question", [
    "Tell me about a decoding method that decides how many candidates to expand based on the entropy.",
    "Which of them uses the model's uncertainty to decide how many candidates to expand?",
    "What decides how many candidates EDEN expands?",
    "Is there an optimizer that learns how much to scale each neuron's update?",
])
def test_a_quantity_a_method_decides_is_not_the_quantity_asked(question):
    """"... a decoding method that decides how many candidates to expand" is what the method does: read as a
    "how many" question it was refused, as no sentence counted candidates (fresh19, fresh21)."""
    from assistant.extractive import asks_mechanism, question_kind

    assert asks_mechanism(question)
    assert question_kind(question) != "number"


@pytest.mark.parametrize("question", [
    "Tell me how much faster it is.",
    "Which method decides how many candidates to expand, and how much faster is it?",
    "How many candidates does EDEN expand?",
])
def test_a_quantity_asked_stays_a_number_question(question):
    from assistant.extractive import question_kind

    assert question_kind(question) == "number"


def test_the_subject_a_rewrite_adds_is_not_the_question_form():
    """"Does the model still need those experts at test time? (EAPO: I'm looking for an RL method in which the LLM
    ...)": the earlier question in brackets made it a "which" question, answered "the abstracts do not say"."""
    from assistant.extractive import question_kind

    assert question_kind("Does the model still need those experts at test time? (EAPO: I'm looking for an RL "
                         "method in which the LLM consults external experts)") == "other"


def test_a_measure_asked_by_what_is_a_number_question():
    from assistant.extractive import question_kind

    assert question_kind("What beam width did they compare against?") == "number"
    assert question_kind("What context length does the model support?") == "number"


# --- single-paper answers state each thing asked (issue 8, session 8) -----------------------------------

@pytest.mark.parametrize("question, clauses", [
    ("Is there a model that sorts photos by tree search? How much does it save on COCO?",
     ["Is there a model that sorts photos by tree search?", "How much does it save on COCO?"]),
    ("how do they check the generated forms actually submit? and which model did they fine-tune",
     ["how do they check the generated forms actually submit?", "and which model did they fine-tune"]),
    ("What does FooBench score, and how are its labels verified?",
     ["What does FooBench score", "how are its labels verified?"]),
    ("A sampler that reweights rare tokens (e.g. digits, names...): what does it cost?",
     ["A sampler that reweights rare tokens (e.g. digits, names...):", "what does it cost?"]),
    # one thing asked: the question itself, with the statements around it
    ("Why do sparse models train slowly? I remember a curvature analysis.",
     ["Why do sparse models train slowly? I remember a curvature analysis."]),
    ("How much faster is it, and by how much? (FooNet)", ["How much faster is it, and by how much? (FooNet)"]),
    # the second question after a preposition (round 23, fresh35: only the settings were answered, not the speed-up)
    ("By how much does FooNet speed up QAT, and across how many settings do the results hold?",
     ["By how much does FooNet speed up QAT", "across how many settings do the results hold?"]),
    # the same in other languages (held-out fresh55: the German question's number was not given)
    ("Welches Paper formuliert Webdaten um, und wie viele Tokens wurden dabei recycelt?",
     ["Welches Paper formuliert Webdaten um", "wie viele Tokens wurden dabei recycelt?"]),
    ("¿Qué artículo usa MCTS, y cuánto mejora en MBPP?", ["¿Qué artículo usa MCTS", "cuánto mejora en MBPP?"]),
    ("Quel article compresse le cache KV, et quel gain obtient-il ?",
     ["Quel article compresse le cache KV", "quel gain obtient-il ?"]),
    ("Ein Paper über Daten und Modelle, wie viele?", ["Ein Paper über Daten und Modelle, wie viele?"]),
    # "which ones?" after a count asks which of the counted things (a new user's trial, round 36: the count alone)
    ("How many downstream tasks does FooNet evaluate on, and which ones?",
     ["How many downstream tasks does FooNet evaluate on", "which downstream tasks does FooNet evaluate on?"]),
])
def test_asked_clauses_are_the_things_a_question_asks(question, clauses):
    from assistant.extractive import asked_clauses

    assert asked_clauses(question) == clauses


def test_interrogative_drops_the_recollection_around_the_question():
    from assistant.extractive import interrogative

    assert interrogative("Why do sparse models train slowly? I remember a curvature analysis.") \
        == "Why do sparse models train slowly?"
    assert interrogative("Sparse models train slowly. Why?") == "Why?"
    assert interrogative("papers on sparse training") == "papers on sparse training"


@pytest.mark.parametrize("sentence, elaborates", [
    ("FooNet routes tokens through a learned sparse mask.", True),  # the method's name, as proposed
    ("Our method decomposes the layer into three primitives.", True),
    ("By casting routing as matching, we derive a closed-form mask.", True),
    ("Extensive experiments show that FooNet outperforms dense baselines.", False),  # its results
    ("Sparse training remains a bottleneck.", False),
])
def test_the_sentence_after_a_proposal_elaborates_when_it_says_how_the_method_works(sentence, elaborates):
    from assistant.extractive import elaborates as says_how

    assert says_how("To address this, we propose FooNet, a sparse router.", sentence) is elaborates


def test_names_listed_as_examples_are_dropped_and_a_followups_subject_stays():
    from assistant.text import without_examples

    assert without_examples("A scheduler for optimizers (Adam, Lion...) that warms up: what does it cost?") \
        == "A scheduler for optimizers that warms up: what does it cost?"
    assert without_examples("Which benchmarks (e.g. GSM8K) does it use?") == "Which benchmarks does it use?"
    assert without_examples("How much faster is it? (FooNet)") == "How much faster is it? (FooNet)"
    assert without_examples("What is Sparse Routing (SR)?") == "What is Sparse Routing (SR)?"


ROUTER = ("Dense transformers waste compute on easy tokens. "
          "We propose FooNet, a router that picks experts by Monte Carlo Tree Search. "
          "FooNet evaluates partial routes with look-ahead rollouts. "
          "Experiments show FooNet gains 7.5% on MBPP and 2.1% on GSM8K. "
          "We prove that the search finds the optimal route with bounded regret.")


@pytest.mark.parametrize("question, facts", [
    # two things asked: the mechanism of the paper asked for, and a number
    ("Is there a router that uses tree search to pick experts? How much does it gain on MBPP?",
     ["Monte Carlo Tree Search", "7.5%"]),
    # a theoretical result, not the experiments
    ("Does FooNet come with any theoretical guarantee?", ["bounded regret"]),
])
def test_extractive_single_paper_answer_states_each_asked_fact(settings, question, facts):
    from assistant.events import Source
    from assistant.extractive import ExtractiveSynthesizer
    from assistant.store.paper import Paper
    from tests.conftest import FakeEmbedder

    paper = Paper(abstract=ROUTER, title="FooNet: routing by search", id="p1")
    text = ExtractiveSynthesizer(settings).synthesize(question, [Source(1, paper, 1.0)], FakeEmbedder())
    for fact in facts:
        assert fact in text, text


@pytest.mark.integration
@pytest.mark.parametrize("question, expected", [
    # each clause of a compound question gets its evidence
    ("Is there work on choosing the infilling order of masked diffusion models by search? What does it gain "
     "on MATH500?", ["Monte Carlo Tree Search", "4.9%"]),
    ("Which framework evaluates generated frontend games by executing them, and which coder model was trained "
     "with it?", ["DOM-based", "ALIVE-Coder"]),
    # a theory question: the theoretical result
    ("Is there any theoretical result in the EDEN paper?", ["regret"]),
    # a why-question with a recollection after it: the cause of the problem asked about
    ("Why do low-bit QAT runs converge so slowly? I think the authors looked at the loss curvature.",
     ["saddle points"]),
    # a search for a method: its proposal and the sentence saying how it works
    ("Is there a Bayesian method for resolving gradient conflicts in GRPO?", ["soft projection"]),
    # optimizers named as examples do not point at the optimizer paper named after one of them
    ("A data selection method that measures utility in the update space of optimizers (e.g. AdamW, Muon): how "
     "much compute overhead does it add?", ["4.7%"]),
    # a choice between two alternatives: the sentence weighing them, not the paper's headline numbers (round 14,
    # fresh16 s20, asked here in other words)
    ("For the masked-diffusion search paper, which helps more: more simulations or a bigger exploration constant?",
     ["larger exploration constants, rather than increased simulations"]),
])
def test_extractive_single_paper_answer_states_what_each_clause_asks(bundled_store, settings, question, expected):
    obj = _extractive(bundled_store, settings, question)
    assert not obj["refused"], obj["answer"]
    for fact in expected:
        assert fact in obj["answer"], obj["answer"]
    assert len(obj["citations"]) == 1, obj["citations"]


@pytest.mark.parametrize("question, sides", [
    ("What matters more for finding good orders: running more simulations or using a bigger exploration constant?",
     ({"run", "simul"}, {"bigger", "explor", "constant"})),
    ("Does WinQ quantize the weights or the activations?", ({"winq", "quantiz", "weight"}, {"activ"})),
    ("Is it faster or slower?", ({"faster"}, {"slower"})),
    ("What is NorMuon?", None),
    ("Does it work for code or math?", ({"code"}, {"mathemat"})),
])
def test_the_alternatives_a_question_asks_to_choose_between(question, sides):
    from assistant.extractive import choice_sides, weighs

    assert choice_sides(question) == sides
    if sides:
        assert not weighs(({"run", "simul"}, {"bigger", "explor", "constant"}),
                          "Look-ahead simulations explore the space of orders.")  # "explore" alone is no constant
        assert weighs(({"run", "simul"}, {"bigger", "explor", "constant"}),
                      "Larger exploration constants, rather than increased simulations, are necessary.")


def test_a_compound_measured_is_answered_by_its_words_written_apart():
    """"How much more data-efficient ...?" is answered by "improves organic data efficiency by 2-3×" (fresh19)."""
    from assistant.extractive import number_answer

    sentences = ["We introduce Engine, a rephraser trained with reinforcement learning.",
                 "Engine delivers 3.7% higher accuracy on 22 tasks.",
                 "Engine improves organic data efficiency by 2-3$\\times$."]
    rows = [(0.5, 1, s, 0.5, 1, i) for i, s in enumerate(sentences)]
    chosen = number_answer("How much more data-efficient does pretraining get with Engine?", rows, ["Engine"], 1)
    assert [x[2] for x in chosen] == [sentences[2]]


@pytest.mark.integration
@pytest.mark.parametrize("question, expected", [
    ("Tell me about a decoding method that decides how many candidates to expand based on the entropy of the "
     "next-token distribution.", "EDEN"),
    ("Which of EDEN and DiffuSearch uses the model's uncertainty to decide how many candidates to expand?", "EDEN"),
    ("how much more data-efficient does pretraining get when organic web text is recycled by an RL-trained "
     "rephraser instead of only using the originals?", "2-3×"),
])
def test_questions_refused_for_a_misread_form_are_answered(bundled_store, settings, question, expected):
    """Each was answered "The abstracts do not say." (fresh19, fresh21)."""
    obj = _extractive(bundled_store, settings, question)
    assert expected in obj["answer"], obj["answer"]


@pytest.mark.integration
def test_papers_asked_for_with_a_gerund_are_each_named(bundled_store, settings):
    """"Any papers building on or analysing DPO?" quoted RePro's "analyses" sentence alone (fresh21)."""
    obj = _extractive(bundled_store, settings, "Any papers building on or analysing DPO?")
    cited = _cited_titles(obj)
    assert "AAD" in cited and len(cited) >= 2, obj["answer"]


def test_a_rewrites_earlier_question_about_a_quoted_paper_sets_no_detail():
    """fresh23 chats: "what about byzantine-robust aggregation in that setting, any paper?" after "is their code
    public?" was answered with the paper's code link. The earlier question the rewrite adds names a paper without a
    name by its abstract's opening words in quotes, which hold a bracket: context, not the question asked."""
    from assistant.extractive import detail_asked, question_kind

    rewritten = ("what about byzantine-robust aggregation in that setting, any paper? ('Preference-based "
                 "reinforcement learning (RL) is a key…': is 'Preference-based reinforcement learning (RL) is a "
                 "key…''s code public?)")
    assert detail_asked(rewritten) is None and question_kind(rewritten) != "detail"
    assert detail_asked("Is its code on GitHub? (follow-up to: Is there a paper on robots?)") == "code"


@pytest.mark.parametrize("question, asks", [
    ("Does it still need those experts at test time?", True),
    ("ok, and does their method require any fine-tuning", True),
    ("Would EDEN rely on a separate draft model?", True),
    ("How much memory does STAR-KV need?", False),  # a quantity, not a yes/no question
    ("Which papers need fewer training steps?", False),
])
def test_a_requirement_question_asks_whether_a_method_needs_something(question, asks):
    from assistant.extractive import asks_requirement

    assert asks_requirement(question) is asks


@pytest.mark.parametrize("sentence, states", [
    ("ANN-to-SNN conversion offers a practical, training-free route to spiking large language models.", True),
    ("Theoretically, AAD can be interpreted as implicit reward optimization, yet it requires no specialized training "
     "beyond the standard DPO setup.", True),
    ("During evaluation, the policy model has been well-optimized to solve questions independently.", True),
    ("Extensive experiments show that WinQ accelerates QAT by up to 4$\\times$.", False),
])
def test_a_sentence_states_what_a_method_does_without(sentence, states):
    from assistant.extractive import states_requirement

    assert states_requirement(sentence) is states


@pytest.mark.integration
@pytest.mark.parametrize("question, expected", [
    # quoted its entropy mechanism and results, not that it is plug-and-play (dev chats: "Does it need extra training?")
    ("Does EDEN need any extra training?", "plug-and-play"),
    ("Does EAPO need the external experts when it is evaluated?", "solve questions independently"),
    ("Do the spiking-conversion operators require fine-tuning the model?", "without any fine-tuning"),
])
def test_a_requirement_question_quotes_what_the_method_does_without(bundled_store, settings, question, expected):
    obj = _extractive(bundled_store, settings, question)
    assert expected in obj["answer"], obj["answer"]


@pytest.mark.integration
@pytest.mark.parametrize("question, name, paper", [
    # quoted "AAD can be interpreted as ..." without ever saying what AAD is
    ("Is there a way to align a model better at decoding time using only what DPO training already gives?",
     "alignment-aware decoding (AAD)", "AAD"),
    # quoted the pipeline's stages and findings, never its name
    ("any paper on testing abstract reasoning of LLMs in a way that can't be memorized?", "A²RBench", "A$^2$RBench"),
])
def test_a_paper_asked_for_in_words_is_named_in_the_answer(bundled_store, settings, question, name, paper):
    obj = _extractive(bundled_store, settings, question)
    assert name in obj["answer"], obj["answer"]
    assert _cited_titles(obj) == [paper], obj["answer"]


@pytest.mark.integration
def test_a_why_question_in_other_words_than_the_symptom_quotes_the_papers_finding(bundled_store, settings):
    """"get stuck" is not the abstract's "slow convergence and early performance plateau": no sentence names the
    symptom, and the answer quoted background and results instead of the cause it finds."""
    obj = _extractive(bundled_store, settings, "Why does low-bit quantization-aware training get stuck?")
    assert "saddle points" in obj["answer"], obj["answer"]


@pytest.mark.integration
def test_a_search_whose_topic_is_a_quantity_is_answered_with_the_paper_found(bundled_store, settings):
    """fresh27 g09: "Has anyone analysed how fast DPO converges when ...? Which factors does the rate depend on?" read
    as asking a number ("how fast"); no sentence states one, so the paper the gate kept was answered "The abstracts do
    not say." The question searches for a paper: it is named, with what it does and finds."""
    obj = _extractive(bundled_store, settings, "Did anyone study how fast DPO converges when training is federated "
                                               "across clients? What does the rate depend on?")
    assert "client drift" in obj["answer"], obj["answer"]


@pytest.mark.integration
@pytest.mark.parametrize("question, said", [
    # a new user's trial: STAR-KV says nothing of retraining; its components and speed-ups were quoted as the answer
    ("Does STAR-KV need retraining?", False),
    ("Does OPUS need extra compute?", True),  # "additional compute": it names the thing asked (4.7%)
    ("Does EAPO still need the experts at test time?", True),  # "solve questions independently"
])
def test_a_requirement_the_abstract_neither_names_nor_waives_is_not_said(bundled_store, settings, question, said):
    obj = _extractive(bundled_store, settings, question)
    assert obj["answer"].startswith("The abstracts do not say") is not said, obj["answer"]


@pytest.mark.integration
def test_a_yes_no_question_about_a_domain_the_abstract_names_quotes_the_sentence_naming_it(bundled_store, settings):
    """A new user's trial: "Does DiffuSearch work for code?" quoted three sentences on infilling orders; the abstract's
    "... shows promise for mathematical and code reasoning" was not among them."""
    obj = _extractive(bundled_store, settings, "Does DiffuSearch work for code?")
    assert "code reasoning" in obj["answer"] and _cited_titles(obj) == ["DiffuSearch"], obj["answer"]


@pytest.mark.integration
def test_what_is_x_for_a_name_inside_another_name_quotes_the_sentence_about_x(bundled_store, settings):
    """A new user's trial: "What is Muon?" was answered with NorMuon's definition ("proposing NorMuon (Neuron-wise
    Normalized Muon)"); "the Muon optimizer has demonstrated ... by orthogonalizing parameter updates" says what it
    is."""
    from assistant.extractive import defines

    sentence = "We bridge this gap by proposing NorMuon (Neuron-wise Normalized Muon), an optimizer that ..."
    assert not defines("muon", sentence) and defines("normuon", sentence)
    obj = _extractive(bundled_store, settings, "What is Muon?")
    assert obj["answer"].split("[1]")[0].startswith("Recently, the Muon optimizer"), obj["answer"]


@pytest.mark.integration
@pytest.mark.parametrize("question, absent", [
    ("How much faster is GPT-5 than NorMuon?", "GPT-5"),
    ("Is NorMuon better than Shampoo?", "Shampoo"),
])
def test_a_name_no_paper_mentions_beside_a_named_paper_is_not_answered_from_it(bundled_store, settings, question,
                                                                               absent):
    """A new user's trial: "How much faster is GPT-5 than NorMuon?" was answered with NorMuon's figures. A name the
    collection has ("Does NorMuon beat AdamW?") is still answered."""
    obj = _extractive(bundled_store, settings, question)
    assert obj["answer"] == "The abstracts do not say." and absent in obj["note"], (obj["answer"], obj["note"])
    obj = _extractive(bundled_store, settings, "Does NorMuon beat AdamW?")
    assert "21.74" in obj["answer"] and _cited_titles(obj) == ["NorMuon"], obj["answer"]


@pytest.mark.integration
def test_which_model_of_a_described_paper_quotes_the_sentence_naming_it(bundled_store, settings):
    """fresh24 c08.4: "the paper on evaluating LLM-made frontend mini-games: what model did they train with it?" was
    answered "The abstracts do not say."; "we train ALIVE-Coder, a model ..." names it (the paper is described, not
    named). An indefinite "a model" after a name is that name, not an unnamed model."""
    from assistant.extractive import unnamed_instance

    assert unnamed_instance("what model did they train?", "We train ALIVE-Coder, a model for frontend code.") is None
    assert unnamed_instance("what model did they train?", "We train a model for frontend code.") == "model"
    obj = _extractive(bundled_store, settings,
                      "What about the paper on evaluating LLM-made frontend mini-games: what model did they train?")
    assert "ALIVE-Coder" in obj["answer"] and _cited_titles(obj) == ["ALIVE"], obj["answer"]


@pytest.mark.integration
@pytest.mark.parametrize("question, stated, unstated", [
    ("How much faster is WinQ, and what learning rate did they use?", "4×", "what learning rate did they use?"),
    ("Which GPUs did STAR-KV use, and how much faster is its attention?", "6.9×", "which GPUs did STAR-KV use?"),
    ("Does NorMuon beat AdamW? Also who funded it?", "21.74%", "who funded it?"),
    # a quantity no sentence states (a new user's trial, round 27: "The abstracts do not say." for the whole question)
    ("How does mHC fix the instability of Hyper-Connections, and how much does it improve loss?", "identity mapping",
     "how much does it improve loss?"),
])
def test_a_two_part_question_answers_the_part_the_abstract_states_and_says_the_other_is_not(
        bundled_store, settings, question, stated, unstated):
    """A new user's trial: "Does NorMuon beat Adam? Also who funded it?" answered the first part and was silent on the
    second; "How much faster is WinQ, and what learning rate did they use?" was "The abstracts do not say." whole."""
    obj = _extractive(bundled_store, settings, question)
    assert stated in obj["answer"] and f'As for "{unstated}", the abstract does not state it.' in obj["answer"], (
        obj["answer"])
    assert not obj["refused"]


def test_funding_is_a_detail_abstracts_do_not_state():
    from assistant.extractive import detail_asked

    assert detail_asked("Who funded NorMuon?") == "funding"
    assert detail_asked("How does funding-free data selection work?") is None


@pytest.mark.integration
def test_which_of_several_named_papers_is_the_one_matching_the_criterion(bundled_store, settings):
    obj = _extractive(bundled_store, settings, "which of RePro, NorMuon, OPUS and ALIVE uses reinforcement learning?")
    assert _cited_titles(obj) == ["RePro"] and "reinforcement learning" in obj["answer"], obj["answer"]


@pytest.mark.integration
def test_what_a_paper_can_do_is_not_stated_when_its_abstract_never_names_the_thing(bundled_store, settings):
    """A new user's trial: "Can RePro filter toxic documents?" quoted three RePro sentences that read as a yes (toxic
    documents are OPUS's). What follows the verb is asked: "Can NorMuon beat AdamW?" is answered."""
    from assistant.extractive import domain_phrase

    assert domain_phrase("Can RePro also filter toxic documents?", ["RePro"]) == "toxic documents"
    assert domain_phrase("Can STAR-KV be combined with quantization?", ["STAR-KV"]) == "quantization"
    assert _extractive(bundled_store, settings, "Can RePro filter toxic documents?")["answer"] == (
        "The abstracts do not say.")
    obj = _extractive(bundled_store, settings, "Can OPUS filter toxic documents?")
    assert "toxic documents" in obj["answer"] and _cited_titles(obj) == ["OPUS"], obj["answer"]
    obj = _extractive(bundled_store, settings, "Can NorMuon beat AdamW?")
    assert "outperforms both AdamW" in obj["answer"], obj["answer"]


def test_asking_whether_a_paper_comes_with_code_asks_for_the_code_link():
    from assistant.extractive import detail_asked

    assert detail_asked("does it come with code?") == "code"
    assert detail_asked("Is there any code?") == "code"
    assert detail_asked("Is there code generation work?") is None
    # round 21, a new user's trial: the implementation, the data, asked as a user would
    assert detail_asked("can I grab A2RBench's implementation somewhere?") == "code"
    assert detail_asked("is the data public?") == "code"
    assert detail_asked("Is the A2RBench data public?") == "code"  # a second trial: "The abstracts do not say."
    assert detail_asked("Is the data for the abstract reasoning benchmark public?") == "code"
    assert detail_asked("Is the speedup of WinQ available on CPUs?") is None
    assert detail_asked("Does it use data available online to train?") is None


@pytest.mark.integration
@pytest.mark.parametrize("question, expected", [
    ("is the code for the web rephrasing method public?", "github.com/cxcscmu/RePro"),  # was "do not say"
    ("where can I download the implementation of the KV cache paper?", "github.com/PriyanshBhatnagar/STAR-KV"),
    ("Is the A2RBench data public?", "github.com/MAC-AutoML/A2Rbench"),
])
def test_a_code_question_about_a_described_paper_quotes_its_code_link(bundled_store, settings, question, expected):
    """The code statement shares one word with the question ("code"): below the sentences a question matches, it is
    still the described paper's statement of the detail asked."""
    obj = _extractive(bundled_store, settings, question)
    assert expected in obj["answer"] and len(obj["citations"]) == 1, obj["answer"]


def test_a_required_thing_is_named_by_its_head_noun():
    """A chat-focused new user's trial: "Does it need human feedback labels?" about PLAINTAIN quoted "Human speakers, in
    contrast, use lightweight incremental check-ins ..."; "human" alone does not name human feedback labels. The CI
    gate's "Does A²RBench rely on human annotators to write its tasks?" is named by "manual annotation"."""
    from assistant.extractive import unstated_requirement

    abstract = ("Human speakers use lightweight check-ins. We instantiate this idea with PLAINTAIN, a post-training "
                "recipe that teaches a model to externalize a plan.")
    assert unstated_requirement("Does PLAINTAIN need human feedback labels?", abstract)
    assert not unstated_requirement("Does PLAINTAIN need post-training?", abstract)
    assert not unstated_requirement("Does it rely on human annotators to write its tasks?",
                                    "Benchmarks rely on expensive manual annotation.")


def test_what_a_paper_can_do_under_a_condition_is_no_domain():
    """fresh17, fresh26, fresh27 (development chats): "can AAD also help when labeled data is scarce?" became "The
    abstracts do not say." when "when labeled data is scarce" was read as the asked capability; the abstract's
    "a practical solution when labeled data is limited" answers it."""
    from assistant.extractive import domain_phrase

    assert domain_phrase("can AAD also help when labeled data is scarce?", ["AAD"]) == ""
    assert domain_phrase("can the OPUS utility score be used offline, e.g. to remove toxic docs?", ["OPUS"]) == ""


# --- round 21: a concept asked in other words than the abstract states it (`PARAPHRASES`) -------------------------

@pytest.mark.integration
@pytest.mark.parametrize("question, expected", [
    ("does NorMuon work for multi-GPU setups?", "FSDP2"),  # "a distributed implementation ... across devices"
    ("At test time, does EAPO's policy still consult the experts?", "solve questions independently"),  # "evaluation"
    ("does PLAINTAIN work for SQL stuff?", "text-to-SQL"),  # "stuff" names nothing more (a new user's trial)
    ("does EAPO help on coding too?", "HumanEval"),  # code named by its benchmarks only (a new user's trial)
])
def test_a_yes_no_question_asked_in_other_words_quotes_the_sentence_stating_it(bundled_store, settings, question,
                                                                               expected):
    """fresh30's conversations asked so: the first was "The abstracts do not say.", the second quoted the sentences
    on consulting experts during training only."""
    obj = _extractive(bundled_store, settings, question)
    assert expected in obj["answer"] and len(obj["citations"]) == 1, obj["answer"]


@pytest.mark.integration
@pytest.mark.parametrize("question", ["Does NorMuon work for multi-GPU training of vision transformers?",
                                      "Does STAR-KV work for multi-GPU inference?",
                                      "Does STAR-KV help on coding too?"])
def test_a_paraphrased_concept_does_not_state_the_rest_of_what_is_asked(bundled_store, settings, question):
    """The distributed implementation states several GPUs, not vision transformers; STAR-KV states no GPUs at all, and
    its code link is no code benchmark."""
    from assistant.prompts import CANNOT_ANSWER

    obj = _extractive(bundled_store, settings, question)
    assert obj["answer"] == CANNOT_ANSWER, obj["answer"]


def test_paraphrase_stems_name_the_words_an_abstract_states_a_concept_in():
    from assistant.extractive import paraphrase_stems, stems

    assert stems("efficiency overhead") <= paraphrase_stems("How do they keep it cheap?")
    assert stems("distributed devices") <= paraphrase_stems("does it run on multiple GPUs?")
    assert stems("supervision") <= paraphrase_stems("no labels needed?")
    assert stems("evaluation inference") <= paraphrase_stems("what happens at test time?")
    assert paraphrase_stems("How much faster is WinQ?") == set()


@pytest.mark.parametrize("question, kind", [
    # round 21, fresh31: a "how fast" after the verb says what the asked thing governs, not a quantity asked
    ("What property of the graph controls how fast decentralized DPO converges?", "other"),
    ("I want a theory paper on DPO over a communication graph. What property of the graph controls how fast it "
     "optimizes?", "other"),
    ("How much faster is WinQ?", "number"),
    ("What speedup does WinQ get, and how much faster is it than plain QAT?", "number"),
    # an idea is asked, not a named thing near "architecture"
    ("which earlier architecture idea does mHC extend?", "other"),
    ("which model families did they analyse?", "entity"),
])
def test_the_kind_of_a_question_asking_for_a_thing_or_an_idea(question, kind):
    from assistant.extractive import question_kind

    assert question_kind(question) == kind


@pytest.mark.integration
def test_what_governs_how_fast_is_answered_with_the_sentence_naming_it(bundled_store, settings):
    """fresh31: "The abstracts do not say." for want of a number; the abstract says "spectral connectivity governs
    optimization speed"."""
    obj = _extractive(bundled_store, settings, "What property of the communication graph controls how fast "
                                               "decentralized DPO converges?")
    assert "spectral connectivity" in obj["answer"] and len(obj["citations"]) == 1, obj["answer"]


@pytest.mark.integration
def test_a_chinese_question_asking_which_models_is_an_entity_question(bundled_store, settings):
    """fresh31 (round 21): "which language models exactly?" in Chinese was answered with "16 settings with different
    language models"; the abstract names none. Which benchmarks, asked so, are named."""
    from assistant.extractive import entity_noun
    from assistant.prompts import CANNOT_ANSWER

    assert entity_noun("WinQ 在哪些语言模型上做了实验？") == "models"
    assert _extractive(bundled_store, settings, "WinQ 在哪些语言模型上做了实验？模型叫什么？")["answer"] == CANNOT_ANSWER
    obj = _extractive(bundled_store, settings, "EAPO在哪些基准上评测？")
    assert "HumanEval" in obj["answer"] and _cited_titles(obj) == ["EAPO"], obj["answer"]


@pytest.mark.integration
@pytest.mark.parametrize("question, expected", [
    ("How do the federated DPO analysis and alignment-aware decoding relate to each other?",
     ["alignment-aware decoding", "first convergence and time-complexity analysis of DPO"]),
    ("What is the relationship between WinQ and STAR-KV?", ["WinQ", "STAR-KV"]),
])
def test_how_two_papers_relate_is_a_comparison_naming_both(bundled_store, settings, question, expected):
    """fresh31 (round 21): "How do X and Y relate to each other?" cited one of the two."""
    from assistant.extractive import asks_comparison

    assert asks_comparison(question)
    obj = _extractive(bundled_store, settings, question)
    abstracts = {p.title: p.abstract for p in bundled_store.papers()}
    cited = [abstracts[c["title"]] for c in obj["citations"]]
    assert len(cited) == 2 and all(any(e in a for a in cited) for e in expected), obj["answer"]


@pytest.mark.parametrize("question, kind, several", [
    # round 21, fresh31: "which ones" asks for the papers the question's sentence before spoke of
    ("Planning shows up in several abstracts. Which ones involve some kind of plan?", "papers", True),
    ("Some methods use projection. Which of them project onto a manifold?", "papers", True),
    ("Quantization comes up in a few papers. Which ones?", "papers", True),
    # without papers spoken of before, "which of them" is a choice among the papers of a conversation
    ("Which of them uses reinforcement learning?", "other", False),
    ("I read the STAR-KV paper. Which of them is faster?", "other", False),
])
def test_which_ones_after_papers_spoken_of_asks_for_papers(question, kind, several):
    from assistant.extractive import asks_several, question_kind

    assert (question_kind(question), asks_several(question)) == (kind, several)


@pytest.mark.integration
def test_which_ones_after_papers_spoken_of_names_each_paper(bundled_store, settings):
    """fresh31 (round 21): answered with four sentences of DiffuSearch alone, naming one of its four papers."""
    obj = _extractive(bundled_store, settings, "Planning shows up in several abstracts. Which ones involve some kind "
                                               "of plan (generation plans, planning steps, preplanning)?")
    cited = {c["title"] for c in obj["citations"]}
    for phrase in ("DiffuSearch", "PLAINTAIN", "preplan-and-anchor"):
        paper = next(p for p in bundled_store.papers() if phrase in p.abstract)
        assert paper.title in cited, (phrase, obj["answer"])


@pytest.mark.parametrize("question, detail", [
    ("Wer sind die Autoren von NorMuon?", "authors"),
    ("mHC 这篇论文的作者来自哪个机构？", "authors"),
    ("¿Está disponible el código de EDEN?", "code"),
    ("Où se trouve le code de EDEN ?", "code"),
    ("WinQ 的代码链接在哪里？", "code"),
    ("Quel taux d'apprentissage utilise NorMuon ?", "hyperparameters"),
    ("¿Qué tasa de aprendizaje usa NorMuon?", "hyperparameters"),
    ("Wie viele GPU-Stunden brauchte WinQ?", "hardware"),
    ("Quelle est la licence de RePro ?", "licence"),
    ("¿Qué modelo base usa RankTuner y cuántos parámetros tiene?", "base model"),
    ("RePro 用的是多大的模型？", "base model"),
    # not details: the authors as the subject, GPU kernels, a theme
    ("Les auteurs proposent quoi ?", None),
    ("Welche GPU-Kernel nutzt STAR-KV?", None),
    ("Quels articles évaluent la génération de code ?", None),
])
def test_details_asked_in_other_languages_are_the_same_details(question, detail):
    """fresh34 (round 22): "作者是谁？来自哪个机构？", "Qual é o link do repositório de código ...?", "Su quali modelli base
    ...?" were answered with the paper's method sentences, where their English twins said the abstracts do not say."""
    from assistant.extractive import detail_asked

    assert detail_asked(question) == detail


@pytest.mark.integration
@pytest.mark.parametrize("question, stated", [
    ("Wer sind die Autoren von NorMuon?", None),
    ("¿Cuál es el modelo base de RankTuner y cuántos parámetros tiene?", None),
    ("RePro 用的是多大的模型？", "1.4B"),  # its abstract states the sizes: quoted
])
def test_a_detail_asked_in_another_language_is_quoted_only_where_stated(bundled_store, settings, question, stated):
    obj = _extractive(bundled_store, settings, question)
    if stated:
        assert stated in obj["answer"] and len(obj["citations"]) == 1, obj["answer"]
    else:
        assert obj["answer"].startswith("The abstracts do not say."), obj["answer"]


@pytest.mark.parametrize("question", [
    "What is NorMuon's efficiency gain over Adam?",
    "What is STAR-KV’s compression ratio?",
    "What was WinQ's speedup?",
])
def test_a_quantity_of_a_possessive_subject_is_asked_as_a_number(question):
    """fresh32 pn08 (round 22): "What is EDEN's wall-clock latency overhead ...?" was no number question (the possessive
    broke the words before the quantity) and was answered with EDEN's method sentences."""
    from assistant.extractive import question_kind

    assert question_kind(question) == "number"
    assert question_kind("What is NorMuon's main idea?") == "definition"


@pytest.mark.integration
def test_a_quantity_no_sentence_states_asked_of_a_possessive_subject_is_not_said(bundled_store, settings):
    obj = _extractive(bundled_store, settings, "What is PLAINTAIN's memory overhead in gigabytes?")
    assert obj["answer"].startswith("The abstracts do not say."), obj["answer"]


@pytest.mark.integration
def test_what_of_a_thing_governs_how_fast_asks_for_a_factor(bundled_store, settings):
    """fresh33 qs09 (round 22): "what property of the graph governs how fast ...?" was a number question (four words
    between "what" and "governs"), and with no speed stated it was answered "the abstracts do not say"."""
    from assistant.extractive import asks_mechanism

    question = "What aspect of the communication graph determines how quickly decentralized DPO converges?"
    assert asks_mechanism(question)
    obj = _extractive(bundled_store, settings, question)
    assert "spectral connectivity" in obj["answer"], obj["answer"]


# --- round 23: a new user's trial ---------------------------------------------------------------------------------

@pytest.mark.integration
@pytest.mark.parametrize("question", [
    "How many experts does EAPO consult?",  # "expert-assisted ... baselines" beside "AIME 2024/2025" counts no experts
    "what datasets did NorMuon train on",  # "outperforms both AdamW and Muon" names no dataset
    # round 24 (fresh36 read as development data)
    "Which foundation model is ALIVE-Coder built on?",  # "train ALIVE-Coder, a model ..." names no base model
    "which base MDM does DiffuSearch start from?",
    "Is the A2RBench benchmark offered in Chinese as well?",  # a language covered, not a release (the code link)
    "Did the ANN-to-SNN paper deploy its framework on physical neuromorphic hardware?",
])
def test_a_figure_or_name_the_abstract_does_not_state_is_not_said(bundled_store, settings, question):
    from assistant.prompts import CANNOT_ANSWER

    obj = _ask(bundled_store, settings, question)
    assert obj["answer"] == CANNOT_ANSWER, obj["answer"]


@pytest.mark.integration
@pytest.mark.parametrize("question, fact", [
    ("how many fewer steps does NorMuon need than AdamW?", "21.74%"),  # a count stated as a reduction
    ("How many fewer steps than AdamW does NorMuon need?", "21.74%"),  # the steps are counted, not AdamW
    ("How many settings was WinQ tested on?", "16 settings"),
    ("What speedup does WinQ achieve?", "4×"),  # "accelerates QAT by up to 4×": a speed-up in other words
    ("What GPU kernels does STAR-KV use?", "Triton-based GPU kernels"),  # the kernels asked, not GPUs
    ("Which algorithm does PCR improve?", "Group Relative Policy Optimization (GRPO)"),  # defined, not "algorithm"
    ("Does NorMuon work with FSDP?", "FSDP2"),  # a name without its version
    ("¿Qué es DiffuSearch?", "We introduce DiffuSearch"),  # the defining sentence, as "What is DiffuSearch?"
    ("Was ist NorMuon?", "proposing NorMuon"),
    ("EDEN是什么？", "We introduce Entropy-informed DEcodiNg (EDEN)"),  # "To address these, " not quoted without them
    # round 24: "rather than discarding them": RePro need not write "discarding" (it was refused: nothing in it about
    # it); "the wait" is the time to the first response (it was "the abstracts do not say")
    ("Is there a method that rephrases web documents with a small model rather than discarding them?", "RePro"),
    ("By how much does PLAINTAIN cut the wait for the first response?", "60%"),
    ("Is A2RBench's data available for download?", "github.com"),  # a release, though "available for" a language is not
])
def test_what_the_abstract_states_is_quoted(bundled_store, settings, question, fact):
    obj = _ask(bundled_store, settings, question)
    assert fact in obj["answer"], obj["answer"]


def test_a_name_is_compared_with_only_inside_the_comparison():
    from assistant.extractive import compared_with

    s = "NorMuon consistently outperforms both AdamW and Muon, achieving a 21.74% reduction on FineWeb."
    assert compared_with(s, "AdamW") and compared_with(s, "Muon") and not compared_with(s, "FineWeb")


# --- round 24: fresh36 read as development data ---------------------------------------------------------------------

@pytest.mark.parametrize("sentence, statement", [
    ("Our code is publicly available at https://example.org/repo.", True),
    ("Code and models will be released upon publication.", True),
    ("The implementation is open-sourced so that results can be reproduced.", True),
    # the data a paper used, not a release ("available" before its noun)
    ("The model is pretrained on only 12M publicly available image-caption pairs.", False),
    ("We evaluate on two publicly available datasets and an in-house one.", False),
    ("Few-shot methods learn from only a few available training examples.", False),
])
def test_an_availability_statement_is_a_release_not_the_adjective_before_a_noun(sentence, statement):
    from assistant.relevance import is_availability_statement

    assert is_availability_statement(sentence) is statement


def test_a_time_with_its_unit_answers_how_long_something_takes_in_other_words():
    from assistant.extractive import number_answer

    sentences = ["We certify the fairness of a trained tree to an auditor in under 3 minutes on a laptop.",
                 "Fairness improves by 12% on four tabular datasets."]
    rows = [(0.5, 1, s, 0.5, 0, i) for i, s in enumerate(sentences)]
    # "certification" and "certify" share no stem: the time stated answers
    assert [x[2] for x in number_answer("How long does the certification take?", rows, [], 1)] == sentences[:1]


@pytest.mark.parametrize("question, asks", [
    ("There's work on auditing fairness with zero-knowledge proofs. How long does certification take?", True),
    ("I remember a model that unifies captioning and grounding. How many image pairs was it trained on?", True),
    ("There is no way to do this without retraining, is there?", False),
])
def test_a_paper_described_before_the_question_is_asked_for(question, asks):
    from assistant.extractive import asks_for_paper

    assert asks_for_paper(question) is asks


def test_words_named_only_as_what_is_not_asked_are_not_key_words():
    from assistant.relevance import contrasted_words

    assert contrasted_words("a paper that paraphrases web pages with a model instead of discarding them") == {
        "discarding"}
    assert contrasted_words("compression of the cache rather than of the weights") == {"weights"}
    # a word the rest of the question uses stays a key word
    assert contrasted_words("quantizing the cache rather than quantizing the weights") == {"weights"}
    assert contrasted_words("Which papers study KV cache compression?") == set()


@pytest.mark.parametrize("question, kind", [
    ("Which models and reasoning benchmarks did the credit assignment paper test on?", "entity"),
    ("Which datasets and baselines does WinQ use?", "entity"),
    ("Which models and benchmarks did they evaluate?", "entity"),
])
def test_two_nouns_joined_ask_for_names_not_for_a_paper(question, kind):
    from assistant.extractive import question_kind

    assert question_kind(question) == kind


@pytest.mark.integration
def test_a_sentence_pointing_back_is_quoted_with_the_sentence_it_points_at(bundled_store, settings):
    # "By composing these primitives ..." needs the sentence naming the primitives and how they are realised
    obj = _ask(bundled_store, settings, "How does the spiking LLM framework run Softmax and SiLU without retraining?")
    assert "By composing these primitives" in obj["answer"] and "LIF neuron groups" in obj["answer"], obj["answer"]


@pytest.mark.integration
def test_what_about_a_domain_the_paper_under_discussion_never_names_is_not_stated(bundled_store, settings):
    from assistant.prompts import CANNOT_ANSWER, NO_RELEVANT_PAPER
    from tests.test_answering import _converse

    last = _converse(bundled_store, settings, [
        "Which paper searches over the infilling order of masked diffusion models?",
        "what about molecule generation with diffusion?"])
    # it quoted DiffuSearch's sentences; a topic of its own that the collection lacks is no paper's (round 30,
    # `answering.about_topic`: "wat about protein design with diffusion models", out of the collection in fresh22)
    assert last.text == NO_RELEVANT_PAPER and not last.citations, last.text
    last = _converse(bundled_store, settings, [
        "Which paper searches over the infilling order of masked diffusion models?", "what about molecules?"])
    assert last.text == CANNOT_ANSWER, last.text  # a domain asked of the paper under discussion
    last = _converse(bundled_store, settings, [
        "Which paper searches over the infilling order of masked diffusion models?", "what about MBPP?"])
    assert "19.5%" in last.text, last.text


@pytest.mark.integration
@pytest.mark.parametrize("question, defining", [
    ("tell me more about RePro", "we introduce RePro"),
    ("Summarize WinQ.", "We propose an algorithm called WinQ"),  # "To mitigate these issues, " not quoted alone
    ("can you give me an overview of STAR-KV?", "We propose STAR-KV"),
])
def test_an_overview_of_a_named_paper_says_what_it_proposes(bundled_store, settings, question, defining):
    """Chats fresh37 (round 25): "tell me more about the rephrasing one" (RePro) was answered with three result
    sentences and never said what RePro is; an overview starts from the sentence proposing the paper's method."""
    obj = _extractive(bundled_store, settings, question)
    assert defining in obj["answer"] and len(obj["citations"]) == 1, obj["answer"]
    assert obj["answer"].count("[1]") >= 2  # what it proposes and more, not the definition alone


def test_an_overview_request_is_not_a_question_about_one_point():
    from assistant.extractive import _OVERVIEW_Q

    assert _OVERVIEW_Q.match("tell me a bit more about NorMuon")
    assert _OVERVIEW_Q.match("ok, summarise the OPUS paper")
    assert not _OVERVIEW_Q.match("explain how WinQ resets weights")  # one point of it
    assert not _OVERVIEW_Q.match("What does NorMuon improve?")
    from assistant.extractive import asks_overview

    assert asks_overview("tell me more about the EDEN paper")
    # chats fresh18: the question asked after the request is what is asked
    assert not asks_overview("tell me more about EDEN. does it come with any theoretical guarantee?")
    assert not asks_overview("tell me about EDEN, how does it pick the branching factor?")


def test_a_count_joined_by_a_hyphen_or_of_a_word_before_the_head_answers_how_many():
    """airas fresh38 (round 25): "How many parameters?" of "a 9B-parameter transformer" and "How many documentation
    files did they analyze?" of "all 7,433 dataset documentation" were "the abstracts do not say"."""
    from assistant.extractive import counted_phrase, number_answer

    sentences = ["In this work, we present CogVideo, a 9B-parameter transformer for text-to-video generation.",
                 "By analyzing all 7,433 dataset documentation on Hugging Face, we find 5 trends.",
                 "It trains 3 times faster than before."]
    rows = [(0.5, 1, s, 0.5, 0, i) for i, s in enumerate(sentences)]
    assert [x[2] for x in number_answer("How many parameters does CogVideo have?", rows, ["CogVideo"], 1)] \
        == sentences[:1]
    assert counted_phrase("How many documentation files did they analyze?") == ["documentation", "files"]
    assert [x[2] for x in number_answer("How many documentation files did they analyze?", rows, [], 1)] \
        == sentences[1:2]
    assert number_answer("How many fewer files did they need?", rows, [], 1) == []  # "fewer" counts nothing


def test_a_name_in_the_asked_noun_phrase_is_identified_by_itself():
    """airas fresh38 (round 25): "what MNIST accuracy did they reach?" was "the abstracts do not say": "an MNIST
    classifier" read as an MNIST left unnamed."""
    from assistant.extractive import unnamed_instance

    abstract = "We are the first to present an MNIST classifier trained in MPC, reaching 99.2% accuracy."
    assert unnamed_instance("Who trained it, and what MNIST accuracy did they reach?", abstract) is None
    assert unnamed_instance("Which classifier exactly did they train?", "We train a classifier in MPC.") == "classifier"


@pytest.mark.integration
def test_accuracy_asked_is_answered_by_pass_at_1(bundled_store, settings):
    """Chats fresh38 (round 25): "and what happens to accuracy? (PLAINTAIN)" was "The abstracts do not say.": the
    abstract states "improves pass@1 by roughly 6%"."""
    obj = _extractive(bundled_store, settings, "and what happens to accuracy? (PLAINTAIN)")
    assert "pass@1 by roughly 6%" in obj["answer"], obj["answer"]


def _airas_paper(where: str, title: str):
    """The airas record of `where` ("iclr/2020") whose title starts with `title`, as ingest reads it."""
    from assistant.store.ingest import IngestReport, read_papers
    from tests.conftest import AIRAS_DIR

    venue, year = where.split("/")
    return next(p for p in read_papers([AIRAS_DIR / venue / f"{year}.json"], IngestReport())
                if p.title.startswith(title))


@pytest.mark.parametrize("question, kind", [
    # the noun, a phrase after it, then a verb of its own: which paper (airas development files, round 26)
    ("Which optimizer for physics-informed networks rescales every parameter's update?", "which"),
    ("Which model of relational events in continuous time couples node pairs through Hawkes processes, so it can "
     "reproduce triangles?", "which"),
    # an auxiliary before the clause ends: the names are asked
    ("Which benchmarks for code generation did they evaluate on?", "entity"),
    ("Which datasets from the Open LLM Leaderboard were used?", "entity"),
])
def test_a_which_question_whose_noun_phrase_has_its_own_verb_asks_for_a_paper(question, kind):
    from assistant.extractive import question_kind

    assert question_kind(question) == kind


def test_a_subject_question_does_not_ask_for_an_unnamed_instance():
    from assistant.extractive import unnamed_instance

    abstract = ("We propose an algorithm that decomposes soft Q-functions into subtasks. Our interactive loop has a "
                "model sample rationales. The matrices are projected onto a specific manifold.")
    # "handles" and "has a" are the verbs of the thing asked: the paper is asked for, not which algorithm it uses
    assert unnamed_instance("Which algorithm handles continuous-control tasks made of prioritized subtasks?",
                            abstract) is None
    assert unnamed_instance("Which interactive loop has a model sample rationales for a human critic?",
                            abstract) is None
    # asked of the paper ("does X project onto"): the abstract does not say which manifold
    assert unnamed_instance("Exactly which manifold does the method project the matrices onto?", abstract) \
        == "manifold"


def test_experts_written_bare_or_as_a_modifier_are_not_identified():
    """fresh48 chats: "which experts did they use, gpt-4?" was answered with the sentences on consulting experts, none
    of which says which experts."""
    from assistant.extractive import unnamed_instance

    abstract = ("We propose EAPO, which adds multi-turn interactions with external experts during training. The "
                "policy learns when to consult experts. External assistance internalizes expert knowledge.")
    assert unnamed_instance("which experts did they use, gpt-4?", abstract) == "experts"
    # a named expert, or experts listed after the noun, identify them
    assert unnamed_instance("which experts did they use?", abstract + " The expert GPT-4 answers.") is None
    assert unnamed_instance("which experts did they use?",
                            "The policy consults experts such as GPT-4 and Claude during training.") is None
    # "the experts" point at experts the abstract has named or described
    assert unnamed_instance("which experts did they use?", "We ask the experts of the MATH team.") is None
    # an uncommon or hyphenated word before the bare plural says which (development chats: "What statistics does it
    # keep for each neuron?" is answered "second-moment statistics")
    assert unnamed_instance("What statistics does it keep for each neuron?",
                            "It works by maintaining second-moment statistics for each neuron.") is None
    # a relative "which" asks nothing to be identified ("the order in which slots are filled")
    assert unnamed_instance("how does it choose the order in which slots are filled?",
                            "It formulates slot selection as decision making over infilling orders.") is None


@pytest.mark.integration
@pytest.mark.parametrize("question, says", [
    ("which experts did EAPO use, gpt-4?", None),  # the abstract never says which experts
    ("what KL coefficient did PCR use?", None),  # nor any KL coefficient
    ("can AAD also be used to make synthetic training data?", "synthetic data"),  # "synthetic data" covers it
])
def test_a_detail_of_a_named_paper_is_quoted_only_where_the_abstract_states_it(bundled_store, settings, question, says):
    """fresh48 chats, on the bundled collection: the first two were answered with the paper's method and results, the
    third was "The abstracts do not say." ("training" a word of the domain no sentence held)."""
    from assistant.prompts import CANNOT_ANSWER

    obj = _extractive(bundled_store, settings, question)
    if says is None:
        assert obj["answer"].startswith(CANNOT_ANSWER), obj["answer"]
    else:
        assert says in obj["answer"] and _cited_titles(obj) == ["AAD"], obj["answer"]


@pytest.mark.parametrize("question, abstract, setting", [
    ("what KL coefficient did PCR use?", "PCR is a Bayesian framework that models gradients as random variables.",
     "KL coefficient"),
    ("what KL penalty did they use?", "We add a KL penalty to the reward.", None),  # written: other kinds answer
    ("what alpha did PowerFlow use?", "sharpening the distribution ($\\alpha > 1$) intensifies reasoning", None),
    ("which benchmarks did they use?", "It improves results on reasoning benchmarks.", None),
    ("which papers use a KL coefficient?", "PCR is a Bayesian framework.", None),  # asks for papers
    # one common word may be said otherwise (fresh17: "does not say" of the sentence on its Ghost technique)
    ("Which tricks does OPUS use to stay scalable?", "To ensure scalability, we employ Ghost technique.", None),
])
def test_a_setting_the_abstract_never_mentions_is_not_stated(question, abstract, setting):
    """fresh48 chats: "what KL coefficient did the second one use?" was answered with the method's sentences."""
    from assistant.extractive import unmentioned_setting

    assert unmentioned_setting(question, abstract) == setting


def test_a_modifier_inside_the_asked_domain_is_covered_by_the_broader_term():
    """fresh48 chats: "can the first one also be used to make synthetic training data?" was "The abstracts do not say."
    of alignment-aware decoding, which "can produce high-quality synthetic data": "synthetic data" covers "synthetic
    training data". Only a word between two the sentence writes side by side is dropped."""
    from assistant.extractive import dropped_modifiers

    said = ["Moreover, AAD can produce high-quality synthetic data to improve alignment."]
    assert dropped_modifiers("make synthetic training data", said) == {"train"}
    assert dropped_modifiers("synthetic data for training", said) == set()
    assert dropped_modifiers("code generation", said) == set()


@pytest.mark.parametrize("sentence, quantity", [
    ("Our approach matches the baseline while using less than a quarter of the decoder layers.", True),
    ("It needs two thirds of the compute and half the memory.", True),
    ("A third party evaluates the model.", False),  # no fraction of anything
])
def test_a_fraction_in_words_states_a_quantity(sentence, quantity):
    from assistant.extractive import states_quantity

    assert states_quantity(sentence) is quantity


def test_how_many_authors_asks_for_the_authors():
    from assistant.extractive import detail_asked

    assert detail_asked("How many authors wrote the paper on neuron-wise normalized Muon?") == "authors"


@pytest.mark.integration
@pytest.mark.parametrize("where, title, question, said", [
    # questions written for round 26's kinds (airas development files: "The abstracts do not say.", nothing cited)
    ("icml/2023", "MultiAdam", "Which optimizer for PINNs rescales each parameter's update so that the PDE loss and "
     "the boundary loss stay balanced?", "MultiAdam"),
    ("iclr/2024", "Prioritized Soft Q-Decomposition", "Which algorithm solves lexicographic multi-objective "
     "continuous-control tasks by decomposing soft Q-functions into subtask solutions?", "Prioritized Soft"),
    ("iclr/2020", "Depth-Adaptive Transformer", "The transformer that varies its decoder depth per sequence: what "
     "fraction of the decoder layers does it need on IWSLT?", "a quarter of the decoder layers"),
])
def test_a_known_item_asked_by_its_verb_or_a_fraction_is_answered_from_its_paper(bundled_store, settings, where,
                                                                                  title, question, said):
    from assistant.events import Source
    from assistant.extractive import ExtractiveSynthesizer
    from assistant.prompts import CANNOT_ANSWER

    paper = _airas_paper(where, title)
    text = ExtractiveSynthesizer(settings).synthesize(question, [Source(1, paper, 1.0)], bundled_store.embedder)
    assert not text.startswith(CANNOT_ANSWER) and said in text and "[1]" in text, text


@pytest.mark.integration
@pytest.mark.parametrize("question, named", [
    ("What GPUs did the paper that searches over the unmasking order of masked diffusion models train on?",
     "DiffuSearch"),
    ("Which license is the low-rank KV cache compression method released under?", "STAR-KV"),
    ("What license is STAR-KV released under?", None),  # the user named the paper: nothing to add
])
def test_a_detail_no_abstract_states_names_the_paper_the_question_describes(bundled_store, settings, question, named):
    obj = _extractive(bundled_store, settings, question)
    if named is None:
        assert obj["answer"] == "The abstracts do not say." and not obj["citations"], obj["answer"]
    else:
        said = f"The abstracts do not say. The paper asked about is {named} [1]"
        assert obj["answer"].startswith(said), obj["answer"]
        assert len(obj["citations"]) == 1 and named in obj["citations"][0]["title"], obj["citations"]


@pytest.mark.integration
@pytest.mark.parametrize("question, name", [
    # "what's the paper that ...": a paper asked for, so naming it answers (fresh45 chats: "The abstracts do not say."
    # of a learning rate, the paper named only as the one asked about)
    ("whats the paper that combines muon with adam style adaptive lr", "NorMuon"),
    ("What was the paper on recycling web text with a trained rephraser?", "RePro"),
])
def test_what_is_the_paper_that_is_answered_with_the_paper(bundled_store, settings, question, name):
    from assistant.extractive import asks_for_paper

    assert asks_for_paper(question)
    obj = _extractive(bundled_store, settings, question)
    assert not obj["refused"] and not obj["answer"].startswith("The abstracts do not say"), obj["answer"]
    assert _cited_titles(obj) == [name] and name in obj["answer"], obj["answer"]


def test_a_choice_between_alternatives_the_abstract_never_mentions_is_not_stated():
    """fresh42 chats "is the training rl or sft" (PLAINTAIN's "post-training recipe" was quoted) and fresh43 chats
    "which base diffusion model, llada or dream?": the abstract names neither alternative, so it does not say which."""
    from assistant.extractive import unoffered_choice

    plan = "We instantiate this idea with PLAINTAIN, a post-training recipe that teaches a model to plan first."
    assert unoffered_choice("is the training rl or sft (PLAINTAIN)", plan) == "rl or sft"
    assert unoffered_choice("which base diffusion model, llada or dream?", plan) == "llada or dream"
    # one alternative named, also by the words its acronym spells; common words ask about the paper's results
    assert unoffered_choice("is it trained with rl or sft?", "A novel reinforcement learning framework.") is None
    assert unoffered_choice("does it use grpo or ppo?", "It matches supervised GRPO.") is None
    assert unoffered_choice("is it faster or slower?", plan) is None
    assert unoffered_choice("Which papers use grpo or ppo?", plan) is None  # papers asked for


@pytest.mark.integration
@pytest.mark.parametrize("question, expected", [
    # one paper asked whether it beats or was compared with another thing no abstract of theirs mentions beside it
    # (fresh45 chats: RePro, named, was kept by the gate and its results quoted)
    ("does OPUS compare against RePro?", None),
    ("does PLAINTAIN beat EDEN on math?", None),
    ("is the training rl or sft (PLAINTAIN)", None),
    # the abstract names both: its sentence answers
    ("Does NorMuon outperform AdamW?", "21.74%"),
    ("does PowerFlow use GRPO or PPO?", "GRPO"),
    ("Can you compare PowerFlow and Probabilistic Conflict Resolution?", "Bayesian"),  # a request: each is described
    # a figure asked on hardware the abstract never names (a new user's trial, round 28)
    ("how much faster is star-kv on an h100?", None),
])
def test_a_comparison_or_choice_the_abstract_never_makes_is_not_stated(bundled_store, settings, question, expected):
    from assistant.prompts import CANNOT_ANSWER

    obj = _extractive(bundled_store, settings, question)
    if expected is None:
        assert obj["answer"].startswith(CANNOT_ANSWER), obj["answer"]
    else:
        assert not obj["refused"] and expected in obj["answer"], obj["answer"]



@pytest.mark.parametrize("question, count", [
    ("two papers: the entropy-based decoding one and alignment-aware decoding. what does each do?", 2),
    ("How do both methods handle noise?", 2),
    ("Three papers caught my eye: A, B and C. What does each do?", 3),
    ("What does each of them report?", 2),
    ("What does EDEN do?", 0),
])
def test_how_many_papers_a_question_asks_about_each_of(question, count):
    from assistant.extractive import asks_each_paper

    assert asks_each_paper(question) == count


@pytest.mark.parametrize("question, noun", [
    ("what's the name of the manifold it projects the matrices onto?", "manifold"),  # "which manifold"
    ("what are the names of the experts it consults?", "experts"),
    ("which manifold does mHC project onto?", "manifold"),
])
def test_the_name_of_a_thing_asks_which_thing(question, noun):
    from assistant.extractive import unnamed_instance
    from tests.conftest import ICML_FILE

    abstracts = ICML_FILE.read_text().splitlines()
    name = "mHC" if "manifold" in question else "EAPO"
    assert unnamed_instance(question, next(a for a in abstracts if name in a)) == noun


# --- round 33: each paper's line says how it works; a paper named in the question stands where its name does;
# --- "how does X do Y" quotes X's method; a yes/no on a thing the abstract sets against another quotes that

def test_a_paper_named_in_the_question_stands_where_its_name_does():
    from assistant.answering import question_positions
    from tests.conftest import ICML_FILE

    abstracts = ICML_FILE.read_text().splitlines()
    powerflow = next(a for a in abstracts if "PowerFlow" in a)
    pcr = next(a for a in abstracts if "(PCR)" in a)
    # "relate" is a word of PCR's abstract only; PCR is still named first
    where = question_positions("Contrast PCR with PowerFlow; both relate to GRPO, right?", [powerflow, pcr])
    assert where[1] < where[0]


def test_a_method_sentence_and_a_reported_finding_are_told_apart():
    from assistant.extractive import acts_in, contrasts, stems

    assert acts_in("PCR dynamically arbitrates conflicts via a soft projection mechanism.", "PCR")
    assert not acts_in("Individual and distributional analyses validate that RePro preserves more information.",
                       "RePro")
    focus = stems("is doing more simulations the key?")
    assert contrasts(focus, "Larger exploration constants, rather than increased simulations, are necessary.")
    assert not contrasts(focus, "DiffuSearch uses look-ahead simulations to evaluate partial completions.")


@pytest.mark.parametrize("question, several", [
    ("Contrast PCR with PowerFlow; both relate to GRPO, right?", True),
    ("ok, contrast EDEN and AAD", True),
    # the noun: one network is asked for (airas fresh7), and "in contrast to" compares nothing
    ("Which network solves Raven's Progressive Matrices with a rule contrast module and a choice contrast module?",
     False),
    ("In contrast to AdamW, does NorMuon need more memory?", False),
])
def test_contrast_as_a_request_asks_about_several_papers(question, several):
    from assistant.extractive import asks_several

    assert asks_several(question) is several


def test_a_hyphenated_word_counts_once_when_choosing_the_described_paper():
    from assistant.extractive import _word_groups, focus_stems

    groups = _word_groups(focus_stems("is there any work on stabilizing GRPO fine-tuning?", []))
    assert len(groups) == 3 and any({"fine-tun", "fine"} <= g for g in groups)


@pytest.mark.integration
@pytest.mark.parametrize("question, first, expected", [
    ("What do PowerFlow and PCR each do?", "PowerFlow", ["GFlowNet", "soft projection"]),
    ("Compare EDEN with AAD", "EDEN", ["estimates the entropy", "implicit reward"]),
    ("Contrast PCR with PowerFlow; both relate to GRPO, right?", "PCR", ["soft projection"]),
    ("PCR vs PowerFlow?", "PCR", []),
    # each side asked, not a choice (a new user's trial, round 33: EDEN first)
    ("DiffuSearch vs EDEN: which one uses tree search and which uses entropy?", "DiffuSearch", []),
    # what each is, though PLAINTAIN "instantiates" rather than "proposes" (its results alone were quoted)
    ("What do PLAINTAIN and EAPO each do?", "PLAINTAIN", ["post-training recipe"]),
])
def test_a_comparison_lists_the_papers_as_named_each_with_how_it_works(bundled_store, settings, question, first,
                                                                      expected):
    obj = _extractive(bundled_store, settings, question)
    assert len(obj["citations"]) == 2 and obj["answer"].startswith(f"{first} ["), obj["answer"]
    for phrase in expected:
        assert phrase in obj["answer"], (phrase, obj["answer"])


@pytest.mark.integration
@pytest.mark.parametrize("question, cited, expected", [
    # the paper's method, not its results on "recycled data"
    ("how does RePro obtain new data?", "RePro", "reinforcement learning"),
    # the finding setting the thing asked against another answers the yes/no
    ("is doing more simulations the key to DiffuSearch's improvements?", "DiffuSearch", "rather than increased"),
    # one paper searched for: the one about stability (not PowerFlow, which writes "fine-tuning"), and how it works
    ("is there any work on stabilizing GRPO fine-tuning?", "PCR", "soft projection"),
    # no sentence has RePro as its subject: the one after its definition says how it works
    ("how does repro work?", "RePro", "three faithfulness rewards"),
])
def test_a_question_on_how_a_paper_works_quotes_its_method(bundled_store, settings, question, cited, expected):
    obj = _extractive(bundled_store, settings, question)
    assert _cited_titles(obj) == [cited] and expected in obj["answer"], obj["answer"]


@pytest.mark.integration
def test_a_theme_keeps_the_best_paper_first_when_the_question_names_no_papers_one_by_one(bundled_store, settings):
    """A new user's trial, round 33: WinQ ("we analyze the convergence of QAT") was listed first, for the question's
    word "analyze", before the paper on federated DPO."""
    obj = _extractive(bundled_store, settings, "Which papers analyze DPO convergence in federated settings?")
    assert obj["citations"] and obj["answer"].startswith("Preference-based reinforcement learning"), obj["answer"]


@pytest.mark.parametrize("question, stated, unstated", [
    # a new user's trial, round 33: the figure was dropped for the authors' record
    ("How much faster is Engine, and who wrote it?", "3.2×", None),
    # a clause the abstract has no sentence for is said to be unstated, not dropped without a word
    ("How much faster is Engine, and what model size did they use?", "3.2×", "what model size did they use"),
])
def test_a_question_asking_two_things_answers_both_or_says_which_it_cannot(settings, question, stated, unstated):
    from assistant.events import Source
    from assistant.extractive import ExtractiveSynthesizer
    from assistant.store.paper import Paper
    from tests.conftest import FakeEmbedder

    paper = Paper(abstract="We present Engine, a machine that computes tables of numbers. Engine computes tables "
                           "3.2× faster than a room of clerks.", title="Engine", id="p1",
                  authors=("Ada Lovelace", "Charles Babbage"))
    text = ExtractiveSynthesizer(settings).synthesize(question, [Source(1, paper, 1.0)], FakeEmbedder())
    assert stated in text, text
    if unstated is None:
        assert text.endswith("lists Ada Lovelace and Charles Babbage as its authors [1]."), text
    else:
        assert f'As for "{unstated}?", the abstract does not state it.' in text, text


def _papers_answer(settings, question: str, *papers: tuple[str, str]) -> str:
    """The extractive answer to `question` from `papers` (``(title, abstract)``, best first), with the fake embedder."""
    from assistant.events import Source
    from assistant.extractive import ExtractiveSynthesizer
    from assistant.store.paper import Paper
    from tests.conftest import FakeEmbedder

    sources = [Source(i, Paper(abstract=abstract, title=title, id=f"p{i}"), 1.0 - i / 10)
               for i, (title, abstract) in enumerate(papers, start=1)]
    return ExtractiveSynthesizer(settings).synthesize(question, sources, FakeEmbedder())


def _one_paper_answer(settings, question: str, abstract: str, title: str = "Engine") -> str:
    return _papers_answer(settings, question, (title, abstract))


_GO = ("We attack the Go engine KataGo by training adversarial policies against it, achieving a >97% win rate against "
       "KataGo at superhuman settings. Our adversaries do not win by playing Go well. Instead, they trick KataGo into "
       "serious blunders.")


@pytest.mark.parametrize("question, abstract, stated", [
    # a share or factor after a sign is a result, not a bound (airas fresh54: "the abstracts do not say")
    ("what win rate did the adversarial policies reach against KataGo?", _GO, ">97%"),
    ("How much accuracy does Engine lose?", "We present Engine, a converter of networks. Engine incurs a <1% "
     "accuracy drop on all evaluated tasks.", "<1%"),
])
def test_a_result_stated_after_a_comparison_sign_answers_how_much(settings, question, abstract, stated):
    text = _one_paper_answer(settings, question, abstract)
    assert stated in text and not text.startswith("The abstracts do not say"), text


_AT = ("Adversarial training is a strong defence. We find that the basic settings used by defences, such as "
       "weight decay, are highly inconsistent. For example, a slightly different value of weight decay can reduce "
       "the robust accuracy by more than 7%. We give a baseline training setting.")


@pytest.mark.parametrize("question, stated", [
    # the detail describes the paper or is what changes; the clause asks for another quantity (airas fresh54)
    ("the paper that found adversarial training defences are sensitive to settings like weight decay; how much robust "
     "accuracy can a slightly different weight decay cost?", "7%"),
    ("how much robust accuracy can a different weight decay cost?", "7%"),
    # the detail itself asked: not stated (a control)
    ("what weight decay did they use?", None),
    ("how much weight decay did they use?", None),
])
def test_a_detail_that_is_not_what_a_clause_asks_for_does_not_make_it_unstated(settings, question, stated):
    from assistant.extractive import detail_asked

    text = _one_paper_answer(settings, question, _AT)
    if stated:
        assert stated in text and detail_asked(question) is None, text
    else:
        assert text.startswith("The abstracts do not say") and detail_asked(question) == "hyperparameters", text


@pytest.mark.parametrize("question, kind", [
    ("what's the latency overhead per token in milliseconds?", "number"),  # fresh54 chats: "other"
    ("whats the speedup?", "number"),
    ("what’s the speedup?", "number"),
    ("what is the speedup?", "number"),
    ("who's the author?", "detail"),
    # what a thing is called asks a name, whatever its noun (chats fresh47: "the abstracts do not say", a factor read
    # as a quantity)
    ("back to RankTuner - what's the reweighting factor called", "other"),
    ("what is the reweighting factor in RankTuner called?", "definition"),
])
def test_a_contracted_is_after_a_question_word_is_read_as_written_out(question, kind):
    from assistant.extractive import question_kind

    assert question_kind(question) == kind


def test_a_number_asked_with_a_contraction_that_the_abstract_lacks_is_not_stated(settings):
    abstract = ("We present Engine, a decoder that expands more candidates where the model is unsure. Engine improves "
                "accuracy on reasoning and code generation. We prove a regret bound for its branching rule.")
    text = _one_paper_answer(settings, "what's the latency overhead per token in milliseconds?", abstract)
    assert text.startswith("The abstracts do not say"), text


@pytest.mark.parametrize("question, kind", [
    ("具体用了哪些语言模型？", "entity"),  # which language models did it use (fresh54 chats: listed papers)
    ("用了哪些数据集？", "entity"),
    ("哪些论文研究量化？", "papers"),  # which papers study quantization: a search (a control)
    ("哪些模型能压缩KV缓存？", "which"),  # which models can compress the KV cache: the subject (a control)
])
def test_chinese_which_noun_after_a_verb_of_using_asks_for_names(question, kind):
    from assistant.extractive import question_kind

    assert question_kind(question) == kind


@pytest.mark.parametrize("question, present, absent", [
    # a quoted problem goes with the sentence resolving it (fresh54: the change NorMuon makes was left out)
    ("what does RowNorm change compared to Muon, and how many fewer steps does it need?",
     ["dominate", "row-wise", "21.7%"], []),
    # and a quoted resolution with the problem it resolves (a new user's trial, round 34: "this imbalance" unsaid)
    ("how does RowNorm work?", ["dominate", "row-wise"], []),
    ("how many fewer steps does RowNorm need?", ["21.7%"], ["row-wise"]),  # a number alone gains nothing (a control)
])
def test_a_quoted_problem_comes_with_the_sentence_resolving_it(settings, question, present, absent):
    abstract = ("Optimizers shape how fast language models train. Our analysis reveals that Muon leaves highly "
                "non-uniform neuron norms, so certain neurons dominate the optimization. RowNorm addresses this "
                "imbalance by applying row-wise normalization after orthogonalization. RowNorm needs 21.7% fewer "
                "steps than AdamW.")
    text = _one_paper_answer(settings, question, abstract, title="RowNorm")
    assert all(w in text for w in present) and not any(w in text for w in absent), text


@pytest.mark.parametrize("question, named", [
    # the paper asked for by description is named with its number (fresh54: the overhead quoted without OPUS)
    ("data selection for pretraining that accounts for the optimizer — what is the extra compute overhead?", True),
    ("how much compute overhead does OptSel add?", False),  # named by the user: the number alone (a control)
])
def test_a_number_asked_of_a_described_paper_comes_with_its_name(settings, question, named):
    abstract = ("Data selection decides which documents a language model is pretrained on. We propose OptSel "
                "(Optimizer-aware Selection), a data selection framework that accounts for the optimizer. To scale, we "
                "sketch gradients, incurring only 4.7% additional compute overhead.")
    text = _one_paper_answer(settings, question, abstract, title="OptSel")
    assert "4.7%" in text, text
    assert ("We propose OptSel" in text) == named, text


@pytest.mark.parametrize("question", [
    # a new user's trial, round 35: "the abstracts do not say" for sizes the abstract lists
    "what model sizes did SizeUp use?",
    "how many model sizes did SizeUp pretrain?",
    "how many sizes of models does SizeUp pretrain?",
])
def test_model_sizes_asked_are_answered_by_the_sizes_listed(settings, question):
    abstract = ("We present SizeUp, a way to recycle web text for pretraining. Pretraining results on 400M, 1.4B, and "
                "2.8B models show that SizeUp improves accuracy on 22 downstream tasks. SizeUp is simple to run.")
    text = _one_paper_answer(settings, question, abstract, title="SizeUp")
    assert "400M, 1.4B, and 2.8B models" in text, text


@pytest.mark.parametrize("question, count", [
    ("how many papers in this collection are about GRPO?", "2 papers:"),  # a new user's trial, round 35
    ("which papers are about GRPO?", None),  # no count asked (a control)
])
def test_how_many_papers_lists_the_papers_after_their_count(settings, question, count):
    text = _papers_answer(settings, question,
                          ("ConfRes", "We propose ConfRes, which resolves gradient conflicts in GRPO. ConfRes improves "
                                      "GRPO on reasoning benchmarks."),
                          ("FlowTune", "We introduce FlowTune, a GRPO variant for unsupervised fine-tuning. FlowTune "
                                       "matches GRPO with fewer labels."))
    assert "[1]" in text and "[2]" in text, text
    assert text.startswith(count) if count else not text[0].isdigit(), text


@pytest.mark.parametrize("question, both", [
    ("is there any work on training instability?", True),  # a new user's trial, round 35: one of the two named
    ("is there work on training instability?", False),  # the mass noun asks for one known paper (a control)
])
def test_any_work_on_a_topic_names_each_paper_the_gate_kept(settings, question, both):
    text = _papers_answer(settings, question,
                          ("ConfRes", "GRPO training suffers from instability. We propose ConfRes, which smooths "
                                      "training by resolving gradient conflicts."),
                          ("ManiHC", "Hyper-connections cause severe training instability at scale. We propose "
                                     "ManiHC, which restores stable training."))
    assert ("[1]" in text and "[2]" in text) == both, text


def test_a_titled_paper_described_is_named_by_the_method_its_abstract_coins(settings):
    """airas fresh54: a known item described in the user's words was quoted without the name it coins ("DimeNet")."""
    abstract = ("Graph networks predict properties of molecules from distances between atoms. They do not consider "
                "the direction between atoms. We embed the messages passed between atoms instead of the atoms, with "
                "their directions. Messages are transformed based on the angle between them. We use spherical Bessel "
                "functions instead of Gaussian radial bases. We leverage these to construct the directional message "
                "passing network (DiMPNet). DiMPNet outperforms previous GNNs by 76% on MD17. Our code is online.")
    question = "GNN that embeds messages between atoms with angles and spherical Bessel functions"
    text = _one_paper_answer(settings, question, abstract, title="Directional Messages for Molecular Graphs")
    assert "DiMPNet" in text and "spherical Bessel" in text, text


def test_a_quoted_sentence_opening_on_these_things_comes_with_the_sentence_naming_them(settings):
    """fresh47: "By composing these primitives ..." was quoted without the sentence listing the primitives once "what's
    the accuracy hit" was read as asking a number."""
    abstract = ("Conversion offers a training-free route to spiking language models. Our method decomposes the "
                "nonlinear computations into three recurring primitives: division, exponentiation and norms. By "
                "composing these primitives as operator blocks, our framework supports Softmax and normalization "
                "without any fine-tuning. Replacing the operators incurs less than a 1% accuracy drop.")
    question = ("can you run transformer nonlinearities like softmax and norms with spiking neurons without fine "
                "tuning? what's the accuracy hit")
    text = _one_paper_answer(settings, question, abstract, title="SpikeOps")
    assert "1% accuracy drop" in text and "these primitives" in text and "exponentiation" in text, text


_MANIHC = ("Hyper-connections widen the residual stream. This diversification causes severe training instability and "
           "notable memory access overhead. To address these challenges, we propose ManiHC, a framework that projects "
           "the residual connections onto a manifold. ManiHC trains stably at scale.")


def test_a_purpose_clause_pointing_back_is_quoted_only_after_what_it_points_at(settings):
    """A new user's trial, round 35: "To address these challenges, we propose mHC ..." quoted without the challenges."""
    from assistant.extractive import _quoted_after, without_back_reference

    text = _one_paper_answer(settings, "What is ManiHC?", _MANIHC, title="ManiHC")
    assert "We propose ManiHC, a framework that projects" in text and "To address" not in text, text
    # the opening stays after the sentence it points at, quoted right before it
    challenge, proposal = ("This diversification causes severe training instability and notable memory access "
                           "overhead.", "To address these challenges, we propose ManiHC, a framework that projects the "
                                        "residual connections onto a manifold.")
    assert _quoted_after(challenge, proposal, _MANIHC) and not _quoted_after(None, proposal, _MANIHC)
    assert not _quoted_after("Hyper-connections widen the residual stream.", proposal, _MANIHC)
    assert without_back_reference("To address this, we propose PCR.") == "We propose PCR."
    assert without_back_reference("To train the model, we use Adam.") == "To train the model, we use Adam."


@pytest.mark.parametrize("question", [
    "What is the base model of PLAINTAIN?",  # a new user's trial, round 35: PLAINTAIN's description quoted
    "what is the backbone of RankTuner?",
    "What backbone does PLAINTAIN post-train?",  # (a control: already read so)
])
def test_what_is_the_base_model_of_x_asks_for_a_model(question):
    from assistant.extractive import entity_noun, question_kind

    assert question_kind(question) == "entity" and entity_noun(question) in ("models", "backbone")


@pytest.mark.parametrize("question, abstract, follows", [
    # the sentence after the definition, about the thing defined, says how it works (held-out fresh55 chats: "what
    # is alignment-aware decoding?" got "a method to enhance model alignment directly at inference" alone)
    ("what is alignment-aware decoding?", "Alignment remains hard. In this paper, we introduce alignment-aware "
     "decoding (AAD), a method to enhance alignment at inference. Theoretically, AAD can be interpreted as implicit "
     "reward optimization. Empirically, AAD outperforms baselines.", "implicit reward"),
    ("What is RowNorm?", "Optimizers matter. We propose RowNorm, an optimizer for transformers. RowNorm scales each "
     "row of the update by its second moment. It trains 20% faster.", "second moment"),
    # the next sentence about something else is not added
    ("What is RowNorm?", "Optimizers matter. We propose RowNorm, an optimizer for transformers. Prior optimizers "
     "scale each row of the update by its second moment. It trains 20% faster.", None),
])
def test_what_is_x_adds_the_next_sentence_when_it_goes_on_about_x(settings, question, abstract, follows):
    text = _one_paper_answer(settings, question, abstract, title="RowNorm")
    assert text.startswith(("In this paper, we introduce", "We propose")), text
    if follows:
        assert follows in text, text
    else:
        assert "second moment" not in text and "faster" not in text, text


def test_a_detail_asked_of_two_named_papers_gets_a_line_for_each(settings):
    """Chats fresh13 (a regression caught while reading "did they release code?" as the code asked): "Do RowNorm and
    ColSketch release their code?" quoted RowNorm's link alone; ColSketch's abstract states none, and says so."""
    row = ("RowNorm", "We propose RowNorm, an optimizer. RowNorm trains 20% faster. Our code is available at "
           "https://github.com/x/rownorm.")
    col = ("ColSketch", "We propose ColSketch, a data selector. ColSketch adds 4% compute.")
    text = _papers_answer(settings, "Do RowNorm and ColSketch release their code?", row, col)
    assert text.splitlines() == ["RowNorm [1]: Our code is available at https://github.com/x/rownorm.",
                                 "ColSketch [2]: The abstract does not say."], text
    # in the question's order; and when neither states it, the abstracts do not say
    text = _papers_answer(settings, "Is the code of ColSketch and RowNorm public?", row, col)
    assert text.splitlines()[0].startswith("ColSketch [2]:"), text
    none = ("RowNorm", "We propose RowNorm, an optimizer. RowNorm trains 20% faster.")
    assert _papers_answer(settings, "Do RowNorm and ColSketch release their code?", none, col).startswith(
        "The abstracts do not say.")


def test_a_count_and_which_ones_gives_the_count_and_says_the_abstract_names_none(settings):
    """A new user's trial, round 36: "How many downstream tasks does RePro evaluate on, and which ones?" gave "22" and
    never said the tasks are not named."""
    text = _one_paper_answer(settings, "How many downstream tasks does FooNet evaluate on, and which ones?",
                             "We propose FooNet, a data recycler. FooNet gains 3.7% on 22 downstream tasks.",
                             title="FooNet")
    assert "22 downstream tasks" in text and "does not state" in text, text


_QAT = ("Quantization-aware training (QAT) trains full-precision weights with gradients from the quantized model. "
        "It converges slowly below 4 bits. "
        "We propose an algorithm called SnapQ to accelerate QAT by resetting weights. "
        "Experiments show that SnapQ accelerates QAT by up to 4× across models.")


@pytest.mark.parametrize("question", ["what's SnapQ about?", "What is SnapQ?", "what is SnapQ about?"])
def test_what_a_paper_is_about_says_what_its_acronyms_stand_for(settings, question):
    """Held-out fresh56 chats: "what's WinQ about?" was read as defining "WinQ about", and the answer said WinQ
    accelerates "QAT" without ever saying what QAT is (the fact asked: quantization-aware training). The sentence
    defining an acronym the quoted sentences use goes first."""
    text = _one_paper_answer(settings, question, _QAT, title="SnapQ")
    assert text.startswith("Quantization-aware training (QAT) trains"), text
    assert "called SnapQ to accelerate QAT" in text, text


def test_what_a_paper_is_about_reads_as_an_overview_not_a_definition():
    from assistant.extractive import asks_overview, defined_term, question_kind

    assert asks_overview("what's WinQ about?") and asks_overview("what is the RePro paper about?")
    assert question_kind("what's WinQ about?") == "other" and defined_term("what is WinQ about?") is None
    assert not asks_overview("what's it about?") and question_kind("What is WinQ?") == "definition"


def test_the_baselines_a_paper_beats_are_the_methods_it_is_compared_with_by_name(settings):
    """airas fresh56: "non-autoregressive text-to-speech trained ... without an external aligner ...; which baselines
    does it beat?" was "the abstracts do not say": the abstract never writes "baseline", it "significantly
    outperform[s] counterpart models such as Tacotron 2 and Glow-TTS". A second kept paper does not stop it."""
    abstract = ("We propose Voxa, a non-autoregressive text-to-speech model trained end to end. Voxa specifies "
                "monotonic constraints on the alignment. We show that Voxa significantly outperforms counterpart "
                "models such as Tacotron 2 and Glow-TTS in speech quality.")
    other = "Glow-TTS is a flow-based text-to-speech model. It searches the monotonic alignment."
    text = _papers_answer(settings, "non-autoregressive text-to-speech with monotonic alignment constraints; which "
                                    "baselines does it beat?", ("Voxa", abstract), ("Glow-TTS", other))
    assert "outperforms counterpart models such as Tacotron 2 and Glow-TTS" in text, text
    # an abstract comparing with nothing named still does not say
    text = _one_paper_answer(settings, "which baselines does Voxa beat?", "We propose Voxa, a fast text-to-speech "
                                       "model. Voxa is trained end to end.", title="Voxa")
    assert text.startswith("The abstracts do not say."), text


@pytest.mark.integration
def test_a_cost_asked_in_french_is_the_overhead_the_abstract_states(bundled_store, settings):
    """fresh56 es07: "... Quel est le surcoût de calcul ?" named OPUS without its "4.7% additional compute overhead":
    "surcoût" is no cognate of "overhead"; the cost words of other languages ask what "cost" does in English."""
    from assistant.extractive import paraphrase_stems

    assert "overhead" in paraphrase_stems("Quel est le surcoût de calcul ?")
    assert "overhead" in paraphrase_stems("Wie hoch ist der Rechenaufwand?")
    assert "overhead" not in paraphrase_stems("Quel est le gain de vitesse ?")
    obj = _extractive(bundled_store, settings, "Y a-t-il un article sur la sélection dynamique des données de "
                                               "pré-entraînement qui tient compte de l'optimiseur ? Quel est le "
                                               "surcoût de calcul ?")
    assert _cited_titles(obj) == ["OPUS"] and "4.7% additional compute overhead" in obj["answer"], obj["answer"]


@pytest.mark.parametrize("question", ["SnapQ", "SnapQ?", "and SnapQ?", "the SnapQ paper"])
def test_a_question_that_is_only_a_papers_name_gets_its_overview(settings, question):
    """A new user's trial, round 37: "the second one", rewritten "OPUS", quoted OPUS's results and never what OPUS is;
    a question that is nothing but a paper's name asks for the paper, as "tell me about OPUS" does."""
    from assistant.extractive import names_only

    text = _one_paper_answer(settings, question, _QAT, title="SnapQ")
    assert "We propose an algorithm called SnapQ to accelerate QAT" in text, text
    assert not names_only("SnapQ results?", ["SnapQ"]) and not names_only("What is it?", [])
