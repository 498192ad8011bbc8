"""The Paper record: display names, text cleaning, Chroma metadata round trip."""

from assistant.store.paper import Paper, clean_text, derive_display_name
from assistant.store.readers import read_file

from tests.conftest import ICML_FILE


def bundled_names() -> list[str]:
    return [r.paper.title for r in read_file(ICML_FILE)]


def test_bundled_abstracts_get_their_method_names():
    names = bundled_names()
    assert len(names) == 19
    for expected in ("DiffuSearch", "NorMuon", "STAR-KV", "mHC", "A$^2$RBench", "EDEN", "WinQ", "PLAINTAIN",
                     "RePro", "PowerFlow", "ALIVE", "OPUS", "RankTuner"):
        assert expected in names, f"{expected} not among {names}"


def test_names_are_short_and_unique_enough():
    names = bundled_names()
    assert all(0 < len(n) <= 60 for n in names)
    assert len(set(names)) == len(names)


def test_without_a_named_method_the_first_clause_is_clipped():
    text = ("Preference-based reinforcement learning is a key paradigm for aligning policies with human "
            "judgments in distributed settings, yet its behaviour remains poorly understood.")
    name = derive_display_name(text)
    assert name.startswith("Preference-based reinforcement learning")
    assert len(name) <= 60 and name.endswith("…")


def test_acronym_after_a_spelled_out_name_wins():
    assert derive_display_name("We propose Expert-Assisted Policy Optimization (EAPO), a framework.") == "EAPO"
    assert derive_display_name("We introduce NorMuon (Neuron-wise Normalized Muon), an optimizer.") == "NorMuon"


def test_clean_text_removes_control_characters_and_lone_surrogates():
    dirty = "Deep\x00 learning\x1b is \ud800fun\u00a0 indeed"
    cleaned = clean_text(dirty)
    assert "\x00" not in cleaned and "\x1b" not in cleaned and "\ud800" not in cleaned
    assert cleaned == "Deep learning is fun indeed"
    cleaned.encode("utf-8")  # encodable now


def test_metadata_round_trip_keeps_every_field():
    p = Paper(abstract="An abstract.", title="A Title", authors=("Ada Lovelace", "Alan Turing"), venue="ICLR",
              year=2021, url="https://openreview.net/forum?id=x", source_id="abc", id="p1")
    meta = p.to_metadata()
    assert all(isinstance(v, (str, int, float, bool)) for v in meta.values())
    assert meta["authors"] == "Ada Lovelace; Alan Turing"
    back = Paper.from_chroma("p1", p.document, meta)
    assert back.title == "A Title" and back.abstract == "An abstract."
    assert back.authors == ("Ada Lovelace", "Alan Turing") and back.year == 2021 and back.venue == "ICLR"


def test_empty_fields_are_dropped_from_metadata():
    meta = Paper(abstract="x", title="t").to_metadata()
    assert "authors" not in meta and "year" not in meta and "url" not in meta
    assert None not in meta.values() and "" not in meta.values()


def test_sentences_split_where_the_source_lost_the_space_after_a_full_stop():
    """One airas abstract in 23 writes "tools.However" (MINT: "... feedback simulated by GPT-4.We repurpose ...");
    read as one sentence, the number asked ("Our analysis of 20 ... LLMs") was buried. "e.g.The" (one letter
    before the stop) is no sentence end."""
    from assistant.text import split_sentences

    assert split_sentences("LLMs need tools.However, work (e.g.This one) fails.Our analysis of 20 LLMs (GSM8K).We "
                           "find 5%.Better results.(a) gains hold. Also x.") == [
        "LLMs need tools.", "However, work (e.g.This one) fails.", "Our analysis of 20 LLMs (GSM8K).", "We find 5%.",
        "Better results.", "(a) gains hold.", "Also x."]


def test_a_name_is_mentioned_by_its_versions():
    """A new user's trial (round 23): "Does NorMuon work with FSDP?" was "the abstract does not mention FSDP"."""
    from assistant.text import mentions

    assert mentions("under the FSDP2 framework", "FSDP") and mentions("fine-tune Qwen2.5 models", "Qwen")
    assert not mentions("under the FSDP2 framework", "FSD") and not mentions("NorMuon", "Muon")
    assert mentions("GPT-4 and GPT-4o", "GPT-4") and not mentions("A2RBench", "A2")
