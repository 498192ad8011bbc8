"""Typos in a question corrected against the collection's own words.

"whats the speedup of that low rank kv cahce compresion method?" and "What does NorMoun improve?" were refused:
"cahce", "compresion" and "NorMoun" are in no abstract, so retrieval, the relevance gate and the extractive
answerer found nothing for them (the gate named them as topics the collection lacks). A word is taken for a
typo when it is in no abstract of the collection and in no list of general English either (wordfreq's
``en`` list, zipf 0: misspellings are not in it, while "speech", "lora" or "perovskite" are), it has at least
`MIN_LENGTH` letters, and exactly one word of the collection is nearest to it within `max_distance` edits
(Damerau-Levenshtein: a swap of two adjacent letters is one edit; rapidfuzz; one edit for a name typed with an inner
capital, "DeltaNet"). It is then replaced by that word,
as the collection writes it most often ("NorMuon"). `assistant.answering.answer` searches with the corrected
question, which `ask` prints as "(searched for: ...)" and `--json` gives as ``standalone_question``.

Questions in other languages are left as typed (their words are mostly in no English list; `relevance.cognates`
reads them). A word of the collection is never changed, so a name the collection has is safe; a misspelling
that is nearest to two words at the same distance is left alone. A word the collection writes only with a hyphen
("fine-tuning") typed as one word ("finetuning") is replaced by the collection's form, whatever its length.
"""

from __future__ import annotations

import re
import weakref
from collections import Counter
from collections.abc import Sequence

MIN_LENGTH = 5
"""Shorter words are not corrected: one edit turns a 4-letter word into too many others ("lora" - "lord")."""

_WORD = re.compile(r"(?<![\w-])[A-Za-z]+(?![\w])|(?<=-)[A-Za-z]+(?![\w])")
_WORDS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
"""`_collection_forms` per BM25 index (one per collection and state of it; built on first need)."""


def max_distance(word: str) -> int:
    """Edits allowed between a typed word and its correction: 1 up to 7 letters, 2 from 8 letters on
    ("compresion" - "compression" is 1, "reinforcment" - "reinforcement" 1, "optimzation" - "optimization" 1)."""
    return 1 if len(word) < 8 else 2


def _collection_forms(papers: Sequence, bm25) -> tuple[dict[str, str], dict[str, str], dict[str, str]]:
    """`collection_words`, `collection_compounds` and `collection_names`, read in one pass over the documents and kept
    per `bm25` index (one per collection and state of it)."""
    got = _WORDS.get(bm25)
    if got is None:
        from assistant.store.paper import is_name_like

        # the written forms counted first (one C-level count over every document), then grouped by lower case
        text = "\n".join(paper.document for paper in papers)
        words: dict[str, Counter] = {}
        compounds: dict[str, Counter] = {}
        for form, n in Counter(re.findall(r"[A-Za-z]+", text)).items():  # the parts of a hyphenated word too
            words.setdefault(form.casefold(), Counter())[form] += n
        for form, n in Counter(re.findall(r"(?<![A-Za-z])[A-Za-z]+(?:-[A-Za-z]+)+", text)).items():
            compounds.setdefault(form.replace("-", "").casefold(), Counter())[form] += n
        names = {low: c.most_common(1)[0][0] for low, c in words.items()
                 if len(low) >= NAME_MIN_LENGTH and all(is_name_like(form) for form in c)}
        got = (*({low: c.most_common(1)[0][0] for low, c in forms.items()} for forms in (words, compounds)), names)
        _WORDS[bm25] = got
    return got


def collection_words(papers: Sequence, bm25) -> dict[str, str]:
    """``{lower-case word: its most frequent written form}`` over the documents of `papers` (the collection,
    `PaperStore.bm25`'s first value), built once per `bm25` index, when a question first has a candidate typo (a
    few seconds at 16k papers)."""
    return _collection_forms(papers, bm25)[0]


def collection_compounds(papers: Sequence, bm25) -> dict[str, str]:
    """``{hyphenated word of the collection, joined and lower-cased: its most frequent written form}`` ("finetuning":
    "fine-tuning"), built with `collection_words`."""
    return _collection_forms(papers, bm25)[1]


def collection_names(papers: Sequence, bm25) -> dict[str, str]:
    """``{lower-case word: its most frequent written form}`` for the words the collection writes only as names
    (`store.paper.is_name_like` in every occurrence: "WinQ", "NorMuon", "PLAINTAIN", "EDEN"), built with
    `collection_words`."""
    return _collection_forms(papers, bm25)[2]


_DIGIT_NAMES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def collection_digit_names(papers: Sequence, bm25) -> dict[str, str]:
    """``{lower-case name: the name as typed plainly}`` for the papers whose title is one name holding a digit, its
    LaTeX markup and other signs dropped ("A$^2$RBench": ``{"a2rbench": "A2RBench"}``), kept per `bm25` index. The
    plain form is how a name written in LaTeX is typed and matched (`relevance.matched_names`)."""
    got = _DIGIT_NAMES.get(bm25)
    if got is None:
        got = {}
        for paper in papers:
            title = (getattr(paper, "title", "") or "").strip()
            plain = re.sub(r"[^A-Za-z0-9]", "", title)
            if title and not re.search(r"\s", title) and re.search(r"\d", plain) and re.search(r"[A-Za-z]", plain):
                got[plain.casefold()] = plain
        _DIGIT_NAMES[bm25] = got
    return got


NAME_MIN_LENGTH = 3
"""Shorter words are not cased as names ("kv" is a word of "kv cache" however the abstracts write it)."""


def name_cased(question: str, papers: Sequence, bm25) -> str:
    """`question` with each word typed in lower case that the collection writes only as a name (`collection_names`)
    written as the collection writes it: "quick summary of winq, normuon and pcr pls" asks for WinQ, NorMuon and PCR
    (fresh45 chats: refused, no name being seen in lower case, and "im comparing plaintain and eden" was answered
    for EDEN alone). A word the collection also writes in lower case is left as typed; a name with a digit is written
    as the collection's name is typed plainly (`collection_digit_names`: "a2rbench" -> "A2RBench"). `papers`, `bm25`:
    `PaperStore.bm25()`."""
    from assistant.store.paper import is_name_like

    compounds = re.findall(r"(?<![\w-])[a-z\d]+(?:-[a-z\d]+)+(?![\w-])", question)
    if compounds:  # "star-kv": the collection's "STAR-KV"
        written = collection_compounds(papers, bm25)
        for typed in compounds:
            form = written.get(typed.replace("-", ""))
            if form is not None and form.casefold() == typed and is_name_like(form):
                question = re.sub(rf"(?<![\w-]){re.escape(typed)}(?![\w-])", form, question)
    digits = list(re.finditer(r"(?<![\w-])[a-z][a-z\d]*\d[a-z\d]*(?![\w-])", question))
    if digits:  # "a2rbench": the collection's "A$^2$RBench", typed plainly as "A2RBench" (a new user's trial, round 30)
        written = collection_digit_names(papers, bm25)
        for m in reversed(digits):
            form = written.get(m.group(0))
            if form is not None:
                question = question[:m.start()] + form + question[m.end():]
    lower = [m for m in _WORD.finditer(question) if m.group(0).islower() and len(m.group(0)) >= NAME_MIN_LENGTH]
    if not lower:
        return question
    names = collection_names(papers, bm25)
    found = [(m, names[m.group(0)]) for m in lower if m.group(0) in names]
    common = _common_in_own_language(question) if found else None  # the language is read only for a name found
    for m, name in reversed(found):
        if not common(m.group(0)):
            question = question[:m.start()] + name + question[m.end():]
    return question


FOREIGN_COMMON_ZIPF = 4.0
"""`name_cased`: a word of a question in another language at least this frequent in that language (wordfreq's Zipf
scale, R. Speer 2022) is a word of the language, not a name typed in lower case: "dass", "das" (6.7, 7.2) and "como"
(6.7) are German and Spanish words, where airas papers are named DaSS, DAS and CoMo (airas fresh52: searched as
those names and refused); the names of the bundled papers typed in lower case stay below it ("pcr" 3.0 in German,
"eden" 3.2 in Spanish, "opus" 3.4 in German)."""


def _common_in_own_language(question: str):
    """A test of a word: a common word of `question`'s language (`FOREIGN_COMMON_ZIPF`) when it is not English."""
    from assistant.relevance import is_foreign, question_language

    if not is_foreign(question):
        return lambda word: False
    from wordfreq import zipf_frequency

    language = question_language(question)[0]
    return lambda word: zipf_frequency(word, language) >= FOREIGN_COMMON_ZIPF


def corrections(question: str, papers: Sequence, bm25) -> list[tuple[str, str]]:
    """``[(typed word, correction)]`` for the typos of `question` (module docstring), in question order;
    ``[]`` for a question in another language or without typos. `papers`, `bm25`: `PaperStore.bm25()`."""
    from rapidfuzz import process
    from rapidfuzz.distance import DamerauLevenshtein
    from wordfreq import zipf_frequency

    from assistant.relevance import is_foreign

    if is_foreign(question):
        return []
    out: list[tuple[str, str]] = []
    words = None
    for m in _WORD.finditer(question):
        typed = m.group(0)
        low = typed.casefold()
        if len(typed) < MIN_LENGTH or any(low == t.casefold() for t, _ in out):
            continue
        if (bm25.scores(low) > 0).any():
            continue  # a word of the collection (BM25's stems)
        words = words if words is not None else collection_words(papers, bm25)
        if low in words:
            continue
        joined = collection_compounds(papers, bm25).get(low)
        if joined is not None:  # "finetuning" for the collection's "fine-tuning": the same word, written apart
            out.append((typed, joined))
            continue
        limit = max_distance(low)
        if re.search(r"[a-z][A-Z]", typed):
            # a name typed with an inner capital ("DeltaNet") is a name as its writer spells it: a slip is one edit
            # ("NorMoun"); two make another name (airas fresh56: "Gated DeltaNet" searched as "Gated DepthNet", and an
            # out-of-collection question was answered from a gated-attention paper)
            limit = 1
        near = process.extract(low, [w for w in words if abs(len(w) - len(low)) <= limit and len(w) >= MIN_LENGTH],
                               scorer=DamerauLevenshtein.distance, score_cutoff=limit, limit=None)
        if not near:
            continue
        best = min(d for _, d, _ in near)
        nearest = [w for w, d, _ in near if d == best]
        # asked last: the first call loads wordfreq's list (about 0.5 s), and most unknown words are near no
        # collection word (at 19 papers nearly every question has a word no abstract uses)
        if len(nearest) == 1 and zipf_frequency(low, "en") == 0:
            out.append((typed, words[nearest[0]]))
    return out


def corrected(question: str, papers: Sequence, bm25) -> str:
    """`question` with its typos replaced by their corrections (`corrections`)."""
    for typed, right in corrections(question, papers, bm25):
        question = re.sub(rf"(?<![\w]){re.escape(typed)}(?![\w])", right, question)
    return question


CHAT_SPELLINGS = {"wich": "which", "whic": "which", "wat": "what", "wut": "what", "waht": "what", "whta": "what",
                  "hw": "how", "u": "you", "ur": "your", "tho": "though", "thru": "through", "abt": "about",
                  "pls": "please", "plz": "please", "whats": "what's", "hows": "how's", "wheres": "where's",
                  "whos": "who's", "thats": "that's", "doesnt": "doesn't", "dont": "don't", "didnt": "didn't",
                  "isnt": "isn't", "arent": "aren't", "cant": "can't", "teh": "the", "hte": "the", "adn": "and",
                  "taht": "that", "thier": "their", "wiht": "with", "whihc": "which"}
"""Chat spellings of English function words ("wich base model did they use", "wat does it use", "do u have papers
on ..."): a closed class, written so by people typing fast (the development conversations), and too short for
`corrections` (`MIN_LENGTH`). Lower case only: "U" may be a name. Contractions typed without their apostrophe get it
back ("whats the speedup": chats fresh40, "whats" was read as a topic word, so the follow-up was taken as a new
question and answered from another paper); not "its", "wont", "well", which are words of their own. Function words
with two letters swapped ("how do teh best models do vs humans": fresh44 chats, "teh" read as a topic word, so the
follow-up was searched on its own and refused)."""
FIELD_ABBREVIATIONS = {"lr": "learning rate", "lrs": "learning rates", "bs": "batch size", "hparams": "hyperparameters",
                       "hparam": "hyperparameter", "hyperparams": "hyperparameters", "hyperparam": "hyperparameter",
                       "wd": "weight decay", "ckpt": "checkpoint", "ckpts": "checkpoints"}
"""Abbreviations of training details that people type in chat and abstracts write out ("what lr schedule did they
use": chats fresh37, answered with the paper's sentences where the abstract does not state it, since no detail was
seen in "lr"). Lower case only, as `CHAT_SPELLINGS`: "LR" may be a name."""
CHAT_ABBREVIATIONS = {"doc": "document", "docs": "documents", "params": "parameters", "perf": "performance",
                      "eval": "evaluation", "evals": "evaluations", "exps": "experiments", "impl": "implementation",
                      "approx": "approximately", "lms": "language models"}
"""Clipped words people type in chat for what abstracts write in full ("can it also catch toxic docs": fresh42 chats,
"The abstracts do not say." though OPUS flags "toxic documents"; stems do not join "docs" to "documents"; "back to
diffusion lms": fresh44 chats, no abstract writes "LMs" beside "diffusion"). Lower case only, as `CHAT_SPELLINGS`:
"LMs" stays as written."""
CHAT_SHORTHANDS = {"w/o": "without", "w/": "with", "b/c": "because"}
"""Shorthands with a slash people type in chat ("aligning llms at decoding time w/o extra training": chats fresh46,
"w" and "o" were no words, so nothing said "without"). Lower case only, as `CHAT_SPELLINGS`."""
_SPELLINGS = {**CHAT_SPELLINGS, **FIELD_ABBREVIATIONS, **CHAT_ABBREVIATIONS, **CHAT_SHORTHANDS}
_CHAT_WORD = re.compile(r"(?<![\w'’/-])(?:" + "|".join(map(re.escape, sorted(_SPELLINGS, key=len, reverse=True)))
                        + r")(?![\w'’/-])")


def chat_spelled(question: str) -> str:
    """`question` with the chat spellings of function words and the abbreviations of training details and clipped
    words written out (`CHAT_SPELLINGS`: "wich" -> "which", "u" -> "you"; `FIELD_ABBREVIATIONS`: "lr" -> "learning
    rate"; `CHAT_ABBREVIATIONS`: "docs" -> "documents"; `CHAT_SHORTHANDS`: "w/o" -> "without"); a question
    in another language (`relevance.is_foreign`) unchanged."""
    if not _CHAT_WORD.search(question):
        return question
    from assistant.relevance import is_foreign

    if is_foreign(question):
        return question
    return _CHAT_WORD.sub(lambda m: _SPELLINGS[m.group(0)], question)
