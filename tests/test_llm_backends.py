"""Choosing and setting up backends: names, one-line configuration errors, token counting."""

from __future__ import annotations

import pytest

from assistant.llm import LLMError, bpe_token_counter, make_llm
from assistant.text import name_tokens


def test_unknown_backend_is_a_config_error(settings):
    with pytest.raises(LLMError, match="unknown LLM backend 'gpt'") as info:
        make_llm(settings, "gpt")
    assert info.value.kind == "config"


def test_local_backend_with_a_missing_model_file_names_the_setting(settings, tmp_path):
    pytest.importorskip("llama_cpp")
    with pytest.raises(LLMError, match="ASSISTANT_LOCAL_MODEL_PATH") as info:
        make_llm(settings, "local", model=str(tmp_path / "nope.gguf"))
    assert info.value.kind == "config"


def test_every_backend_is_named(settings):
    llm = make_llm(settings, "extractive")
    assert (llm.name, llm.can_chat, llm.context_window) == ("extractive", False, None) and llm.model
    openai_llm = make_llm(settings.model_copy(update={"openai_api_key": "sk-x"}), "openai", model="gpt-4o")
    assert (openai_llm.name, openai_llm.model) == ("openai", "gpt-4o")
    assert make_llm(settings.model_copy(update={"openai_api_key": "sk-x"})).name == "openai"


def test_token_counts_use_the_openai_bpe_offline():
    count = bpe_token_counter("gpt-4o-mini")
    assert count("hello world") == 2
    text = "Quantization-aware training (QAT) is widely adopted to quantize language models. " * 20
    assert 250 < count(text) < 450
    assert bpe_token_counter("smollm2-135m")(text) > count(text)  # a safety factor for other tokenizers


@pytest.mark.parametrize("model", ["gpt-4o-mini", "gpt-4", "smollm2-135m"])
@pytest.mark.parametrize("token", ["<|endoftext|>", "<|fim_prefix|>", "<|im_start|>", "<|endofprompt|>"])
def test_text_spelling_a_special_token_is_counted_as_plain_text(model, token):
    count = bpe_token_counter(model)
    # as text it is several tokens (a special token would be one), and counting never raises
    assert count(f"What is NorMuon {token}?") >= count("What is NorMuon ?") + 4
    if model == "gpt-4o-mini" and token == "<|endoftext|>":
        assert count(token) == 7  # "<", "|", "end", "of", "text", "|", ">" in o200k_base


def test_name_tokens_finds_methods_and_acronyms_but_not_common_words():
    assert name_tokens("How does NorMuon compare to STAR-KV and GRPO on GPUs for LLMs?") == [
        "NorMuon", "STAR-KV", "GRPO"]
    assert name_tokens("Which paper proposes a new image segmentation architecture?") == []


@pytest.mark.parametrize("question, names", [
    ("What is ＮｏｒＭｕｏｎ?", ["NorMuon"]),
    ("How does ＳＴＡＲ-ＫＶ compare to ＧＲＰＯ?", ["STAR-KV", "GRPO"]),
    ("What is A²RBench, also written A$^2$RBench?", ["A2RBench"]),
])
def test_name_tokens_read_fullwidth_and_superscript_forms(question, names):
    assert name_tokens(question) == names


@pytest.mark.parametrize("document, name, found", [
    ("We propose NorMuon, an optimizer.", "ＮｏｒＭｕｏｎ", True),
    ("We propose ＮｏｒＭｕｏｎ, an optimizer.", "NorMuon", True),
    ("We introduce A$^2$RBench for agents.", "A²RBench", True),
    ("We introduce A²RBench for agents.", "A2RBench", True),
    ("Méthode de Schro\u0308dinger.", "Schrödinger", True),  # decomposed in the document
    ("We propose NorMuonX.", "NorMuon", False),  # still whole words only
])
def test_mentions_compares_fold_forms(document, name, found):
    from assistant.text import mentions

    assert mentions(document, name) is found
