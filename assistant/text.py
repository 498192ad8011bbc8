"""Text helpers shared by retrieval, answering, evaluation and the user interfaces.

- words and names: `name_tokens`, `mentions`, `content_stems` (Snowball stemming, PyStemmer, loaded
  once for BM25 and these), `content_words`, the stop words (`STOP_WORDS`, `GENERIC_WORDS`);
- sentences: `sentence_spans` (the one splitter), `split_sentences` (an abstract's sentences);
- citation markers as the checker writes them: `CITATION_MARKER`, `marker_groups`, `markers_in`,
  `sentences_citing`, and `relied_spans` (the abstract sentences an answer rests on);
- what a person reads: `render_latex` (LaTeX in abstracts to Unicode text, pylatexenc).

Pure functions on ``str``; heavy libraries are imported when first used.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from functools import cache, lru_cache

from assistant.store.paper import is_name_like, venue_key

STOP_WORDS = frozenset("""a an the and or of in on for to with by from as at is are was were be been being this that
these those it its we our they their which who whom whose than then also such can may might will would into over
under about between across while not no nor but both each more most less least very via using use used based show
shows shown per""".split())
"""Function words (articles, pronouns, prepositions, auxiliaries) and a few words every abstract uses
("using", "shown"), lower-case: what `content_words` drops."""
_ASKING = frozenset("""what when where why how do does did doing done could should shall has have had having there
them you your he she his her i me my so through during before after above below up down out off again further
other some any few all own same just only paper papers work works method methods approach approaches model models
propose proposes proposed study studies uses present presents introduce introduces new one two many much mean means
give gives get gets make makes like well stand stands compare compared comparison summarize summarise summary
describe explain tell list discuss overview main key""".split())
_STOP = (STOP_WORDS - {"across", "while", "but", "less", "least", "via", "based", "shown", "per"}) | _ASKING
GENERIC_WORDS = frozenset(_STOP | set("""there here any anything something whether does did is are according
reported report reports reporting abstract abstracts research researcher researchers propose proposed
introduce introduced able else besides apart""".split()))
"""Words that say nothing about a question's subject (stop words, question words, "paper", "propose"),
lower-case; `content_stems` drops `_STOP` (`STOP_WORDS` and the words of asking about papers, as
`relevance` was tuned with them), `relevance.salient_words` these."""

_WORD = re.compile(r"[A-Za-z][A-Za-z0-9$^{}\\\-]*[A-Za-z0-9]|[A-Za-z]")
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"”')\]]*\s+(?=[A-Z0-9(\"“\[$\\]|[^\x00-\x7f])|(?<=[。！？])\s*(?=\S)")
_ABSTRACT_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z(\"“$\\])"
                                    # "... external tools.However, current ...": a space lost in the source (one
                                    # airas abstract in 23); not "e.g.The" (one letter before the stop)
                                    r"|(?<=[a-z]{2}[.!?])(?=[A-Z][a-z]|\()|(?<=[0-9%)\]][.!?])(?=[A-Z][a-z]|\()")
AGAINST = r"(?:as\s+)?compared\s+(?:to|with)|relative\s+to|versus|vs\.?|than"
"""The words setting a thing against a baseline ("... compared to plain GRPO", "fewer steps than AdamW"), as a regular
expression (no groups)."""
_ACRONYM = re.compile(r"^[A-Z][A-Z0-9\-]{1,}[A-Z0-9s]?$")
_COMMON_ACRONYMS = {"LLM", "LLMs", "AI", "ML", "NLP", "GPU", "GPUs", "CPU", "API", "APIs", "SOTA"}
GENERIC_ACRONYMS = frozenset("""LLM LLMs LM LMs RL AI ML NLP GPU GPUs CPU SFT KV MoE QAT DPO RLHF CoT SOTA API
APIs MLLM MLLMs VLM VLMs GRPO PPO ANN SNN MCTS HC CNN CNNs RNN GAN GANs NN DNN GNN GNNs SGD VAE VAEs MDP MDPs
POMDP RGB IID OOD NMT ASR Transformer Transformers""".split())
"""Acronyms of a whole area, and the architecture a whole area builds on ("Transformers"): a question using one
("... with PPO?", "the residual stream of Transformers") does not name a paper."""


def name_tokens(text: str) -> list[str]:
    """Method/benchmark names and acronyms in `text` (``NorMuon``, ``STAR-KV``, ``GRPO``), in order,
    without very common acronyms (``LLM``, ``GPU``). Read after Unicode NFKC, so fullwidth ``ＮｏｒＭｕｏｎ``
    gives ``NorMuon``; names equal in `fold` form (``A²RBench``, ``A$^2$RBench``) are listed once."""
    import unicodedata

    out: list[str] = []
    seen: set[str] = set()
    for tok in re.findall(r"[A-Za-z0-9$^{}\\][A-Za-z0-9$^{}\\\-]*[A-Za-z0-9$}]|[A-Z]", unicodedata.normalize("NFKC", text)):
        tok = tok.strip("-")
        if tok in _COMMON_ACRONYMS or _folded(tok) in seen:
            continue
        if is_name_like(tok) or (_ACRONYM.match(tok) and sum(c.isalpha() for c in tok) >= 2):
            out.append(tok)
            seen.add(_folded(tok))
    return out


def _long_form(short: str, before: str) -> str | None:
    """The long form of the abbreviation `short` at the end of `before` ("... we propose Expert-Assisted Policy
    Optimization" for "EAPO"), or None: Schwartz and Hearst's algorithm ("A simple algorithm for identifying
    abbreviation definitions in biomedical text", PSB 2003): the short form's letters and digits are matched
    right to left against the long form's characters, its first one at the start of a word."""
    letters = [c.casefold() for c in short if c.isalnum()]
    if len(letters) < 2 or not short[:1].isalnum():
        return None
    i = len(before) - 1
    for k in range(len(letters) - 1, -1, -1):
        c = letters[k]
        while i >= 0 and (before[i].casefold() != c or (k == 0 and i > 0 and before[i - 1].isalnum())):
            i -= 1
        if i < 0:
            return None
        i -= 1
    start = max(before.rfind(" ", 0, i + 1), before.rfind("(", 0, i + 1)) + 1
    return before[start:].strip() or None


PAREN_ACRONYM = re.compile(r"\(\s*([A-Z][A-Za-z0-9\-]*[A-Z][A-Za-z0-9\-]*)\s*\)")
"""An acronym in brackets ("(GRPO)", "(PT-MoE)"), as an abstract defines one after its long form."""


def defined_expansions(name: str, abstract: str) -> list[str]:
    """What `abstract` says `name` stands for, as it defines the abbreviation: "Probabilistic Conflict Resolution
    (PCR)", "alignment-aware decoding (AAD)", and the other way round, "NorMuon (Neuron-wise Normalized Muon)"
    (`_long_form`, Schwartz and Hearst 2003); each of two or more words, LaTeX rendered. [] when the abstract
    defines no such long form. Read once per (name, abstract) and process (a cache of 4,096)."""
    return list(_defined_expansions(name, abstract))


@lru_cache(maxsize=4096)
def _defined_expansions(name: str, abstract: str) -> tuple[str, ...]:
    text = " ".join(fold(abstract).split())
    key = re.escape(fold(name))
    out: list[str] = []
    for m in re.finditer(rf"(?<![\w-]){key}\s*\(([^()]{{4,80}})\)", text):  # NAME (long form)
        inner = m.group(1).strip()
        if len(inner.split()) >= 2 and _long_form(fold(name), inner) is not None:
            out.append(inner)
    for m in re.finditer(rf"\(\s*{key}\s*\)", text):  # long form (NAME)
        window = " ".join(text[:m.start()].split()[-(len(name) + 5):])
        found = _long_form(fold(name), window)
        if found and len(found.split()) >= 2 and found not in out:
            out.append(found)
    return tuple(out)


def phrase_key(text: str) -> str:
    """`text`'s words, folded and lower-cased, space-separated with a space at each end: " group relative policy "
    for "Group-Relative Policy"; `phrase_key(a) in phrase_key(b)` asks whether b writes phrase a, case- and
    hyphen-blind, as whole words."""
    return " " + " ".join(re.findall(r"[^\W_]+", fold(text).casefold())) + " "


_AS_EXAMPLE = re.compile(r"\b(?:like|such\s+as|e\.\s?g\.?|for\s+example|for\s+instance|similar\s+to|other\s+than|"
                         r"besides|except|apart\s+from|beyond|than|unlike|instead\s+of)\s+(?:the\s+|an?\s+)?$", re.I)
"""Words that give what follows as an example or a comparison ("RL methods like expert-assisted policy
optimization", "other than alignment-aware decoding"), not as the paper asked about."""


def named_by_expansion(question: str, paper) -> list[str]:
    """The names of `paper`'s title (`name_tokens`) that `question` names by the long form its abstract defines
    for them (`defined_expansions`): "Which base models were used to test Probabilistic Conflict Resolution?"
    names PCR as surely as "... to test PCR?" does. Words are compared case- and hyphen-blind; a long form given
    as an example or a comparison (`_AS_EXAMPLE`: "papers like expert-assisted policy optimization") names no
    paper asked about."""
    asked, folded = phrase_key(question), fold(question)
    out = []
    for name in name_tokens(_folded(paper.title or "")):
        if sum(c.isalnum() for c in name) < 3 or name in GENERIC_ACRONYMS:
            continue  # "RL", "GAN" of a title: a field's acronym, whose long form any question may use
        if name in out or phrase_key(name) in asked:
            continue
        for long_form in _defined_expansions(name, paper.abstract):
            words = re.findall(r"[^\W_]+", long_form)
            at = re.search(r"(?<![^\W_])" + r"[\W_]+".join(map(re.escape, words)) + r"(?![^\W_])", folded, re.I)
            if at and not _AS_EXAMPLE.search(folded[:at.start()]):
                out.append(name)
                break
    return out


_EXAMPLES = re.compile(r"\s*\((?:e\.\s?g\.,?\s*|such\s+as\s+|like\s+)?[^()]*(?:,|\.\.\.|…|\betc\b\.?)[^()]*\)"
                       r"|\s*\(\s*(?:e\.\s?g\.|such\s+as|like)\s[^()]*\)", re.I)


def without_examples(question: str) -> str:
    """`question` without the examples it lists in parentheses ("... of the optimizer (Adam, Muon...)",
    "(e.g. GSM8K)"): they illustrate the class the question describes, they do not name the paper asked
    about. A parenthesis naming one thing ("... speedup? (EDEN)", a follow-up's subject) stays."""
    return _EXAMPLES.sub("", question)


def mentions(document: str, name: str) -> bool:
    """True when `name` occurs in `document` as a whole word (case-sensitive), both compared in `fold`
    form: fullwidth, decomposed (NFD) and LaTeX spellings of a name match its plain form. A name ending in a
    letter is mentioned by its versions too: "FSDP" by "FSDP2", "Qwen" by "Qwen2.5" (a new user's trial, round
    23: "Does NorMuon work with FSDP?" was "the abstract does not mention FSDP")."""
    name = _folded(name)
    version = r"(?:\d+(?:\.\d+)*)?" if name[-1:].isalpha() else ""
    return re.search(rf"(?<![\w$\\]){re.escape(name)}{version}(?![\w])", _folded(document)) is not None


def sentence_spans(text: str, *, strict: bool = False) -> list[tuple[int, int]]:
    """(start, end) character spans of the sentences of `text`, without the white space between them.

    A sentence ends after . ! ? (and any closing quote or bracket) before a capital, digit, bracket,
    ``$``, backslash or non-ASCII character, or after 。！？; paragraph breaks also split. `strict`
    splits only after . ! ? before a capital, an opening bracket or quote, or a formula (the rule the
    relevance gate and the extractive answerer were tuned with: `split_sentences`)."""
    end_at = _ABSTRACT_SENTENCE_END if strict else _SENTENCE_END
    spans: list[tuple[int, int]] = []
    for para in re.finditer(r"[^\n]+", text):
        start = para.start()
        for m in end_at.finditer(para.group(0)):
            end = para.start() + m.start()
            if end > start:
                spans.append((start, end))
            start = para.start() + m.end()
        if para.end() > start:
            spans.append((start, para.end()))
    return [(s, e) for s, e in spans if text[s:e].strip()]


def split_sentences(text: str) -> list[str]:
    """Sentences of an abstract, white space collapsed (`sentence_spans` with `strict`)."""
    text = " ".join(text.split())
    return [text[s:e].strip() for s, e in sentence_spans(text, strict=True)]


@cache
def _stemmer():
    from assistant.store.bm25 import english_stemmer  # one PyStemmer loader: BM25's, so both stem alike

    stemmer = english_stemmer()
    return stemmer.stemWord if stemmer is not None else (lambda w: w[:6])


def content_stems(text: str, exclude: Sequence[str] = ()) -> set[str]:
    """Stemmed content words of `text`: no stop words, no question words, none of `exclude`."""
    stem = _stemmer()
    skip = {e.casefold() for e in exclude}
    return {stem(w.casefold()) for w in _WORD.findall(text)
            if w.casefold() not in _STOP and w.casefold() not in skip and len(w) > 1}


def content_bigrams(text: str, exclude: Sequence[str] = ()) -> set[tuple[str, str]]:
    """Pairs of adjacent content words of `text` as stems (`content_stems`' words, in order, stop words
    skipped; hyphenated words split): "plan-and-infill decoding" -> ``{("plan", "infil"), ("infil",
    "decod")}``. A question's phrase found in a sentence is stronger evidence than its words apart."""
    stem = _stemmer()
    skip = {e.casefold() for e in exclude}
    words = [stem(w.casefold()) for w in _WORD.findall(text.replace("-", " "))
             if w.casefold() not in _STOP and w.casefold() not in skip and len(w) > 1]
    return set(zip(words, words[1:]))


# --- citation markers and the sentences that carry them -----------------------------------------------

CITATION_MARKER = re.compile(r"\[(\d+(?:\s*,\s*\d+)*)\]")
"""A checked citation marker, as `answering.CitationChecker` writes it: ``[2]`` or ``[1, 3]`` (group 1:
the numbers)."""
_UNICODE_WORD = re.compile(r"[^\W_]+(?:[-'’][^\W_]+)*", re.UNICODE)


def marker_groups(text: str) -> list[list[int]]:
    """The numbers of each citation marker in `text`, in order: ``"a [1] b [2, 3]"`` -> ``[[1], [2, 3]]``."""
    return [[int(x) for x in re.findall(r"\d+", m.group(1))] for m in CITATION_MARKER.finditer(text)]


def markers_in(text: str) -> list[int]:
    """The distinct citation numbers in `text`, in order of first appearance."""
    return list(dict.fromkeys(n for group in marker_groups(text) for n in group))


_LINE_HEAD = re.compile(r"^[^\n\[\]]{1,200}?\s\[(\d+)\]:\s", re.M)
"""A line of a several-paper answer, headed by the paper's name and marker: ``EDEN [1]: ...``."""


def sentences_citing(text: str, n: int) -> tuple[str, ...]:
    """The sentences of `text` (`sentence_spans`) that carry marker ``[n]``, alone or in a group (a
    bracketed list with 0 in it, ``[0, 1]``, is no citation), and the unmarked sentences of a line
    headed ``Name [n]: ...`` (the several-paper answer's line: every sentence on it is that paper's)."""
    headed = []  # (start, end) of the lines headed "Name [n]: "
    for m in _LINE_HEAD.finditer(text):
        if int(m.group(1)) == n:
            end = text.find("\n", m.end())
            headed.append((m.start(), len(text) if end < 0 else end))
    out = []
    for s, e in sentence_spans(text):
        groups = marker_groups(text[s:e])
        if any(n in group and 0 not in group for group in groups) or (
                not groups and any(a <= s < b for a, b in headed)):
            out.append(text[s:e].strip())
    return tuple(out)


def content_words(text: str) -> set[str]:
    """Case-folded words of `text` without citation markers and `STOP_WORDS` (CJK runs count as words;
    ASCII words need three letters or digits only)."""
    text = CITATION_MARKER.sub(" ", text)
    return {w.casefold() for w in _UNICODE_WORD.findall(text)
            if w.casefold() not in STOP_WORDS and (len(w) > 2 or w.isdigit() or not w.isascii())}


def relied_spans(abstract: str, answer_sentences: Iterable[str], *, best_min: float = 0.3,
                 any_min: float = 0.5) -> list[tuple[int, int]]:
    """Spans of the abstract's sentences that the answer sentences rest on.

    For each answer sentence, the abstract sentence with the highest set cosine of content words
    (|S∩A| / sqrt(|S|·|A|), `content_words`) is taken if it reaches `best_min`; any sentence reaching
    `any_min` is taken too (each with at least two shared words). An answer that quotes a sentence (the
    extractive answerer) scores 1.0 on it. Returns sorted, distinct spans (see `sentence_spans`).
    """
    import math

    spans = sentence_spans(abstract)
    words = [content_words(abstract[s:e]) for s, e in spans]
    chosen: set[int] = set()
    for sentence in answer_sentences:
        a = content_words(sentence)
        if not a:
            continue
        scores = [len(a & w) / math.sqrt(len(a) * len(w)) if w else 0.0 for w in words]
        if not scores:
            continue
        best = max(range(len(scores)), key=scores.__getitem__)
        if scores[best] >= best_min and len(a & words[best]) >= 2:
            chosen.add(best)
        chosen.update(i for i, sc in enumerate(scores) if sc >= any_min and len(a & words[i]) >= 2)
    return [spans[i] for i in sorted(chosen)]



# --- LaTeX to Unicode text ----------------------------------------------------------------------------

_SUPERSCRIPT = str.maketrans("0123456789+-=()nia", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ⁿⁱᵃ")
_SUBSCRIPT = str.maketrans("0123456789+-=()aeioxhklmnpst", "₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎ₐₑᵢₒₓₕₖₗₘₙₚₛₜ")
_SCRIPT = re.compile(r"([\^_])(?:\{([^{}]*)\}|([A-Za-z0-9]))")
_MATH = re.compile(r"\$\$(.+?)\$\$|\$([^$]+?)\$", re.S)
_LATEX_HINT = re.compile(r"[$\\]")
_GREEK_VARIANTS = str.maketrans({"ϵ": "ε"})


@cache
def _latex2text():
    import logging

    from pylatexenc.latex2text import LatexNodes2Text

    logging.getLogger("pylatexenc").setLevel(logging.ERROR)  # a malformed macro is handled below
    return LatexNodes2Text(math_mode="text", strict_latex_spaces="based-on-source")


def _script(m: re.Match) -> str:
    body = m.group(2) if m.group(2) is not None else m.group(3)
    table = _SUPERSCRIPT if m.group(1) == "^" else _SUBSCRIPT
    converted = body.translate(table)
    if body and all(a != b for a, b in zip(body, converted)):
        return converted
    return m.group(1) + (body if len(body) == 1 else "{" + body + "}")


def _render_segment(latex: str, math: bool) -> str:
    if math:
        latex = _SCRIPT.sub(_script, latex)
        # ``\alpha_i`` became ``\alphaᵢ``: end the macro name so the script is not read as part of it
        latex = re.sub(r"(\\[A-Za-z]+)(?=[^\x00-\x7f])", r"\1{}", latex)
    else:
        # Plain text: a bare % or ~ is a percent sign or "about", not a LaTeX comment or a tie.
        latex = re.sub(r"(?<!\\)%", r"\\%", latex).replace("~", "\x00")
    try:
        text = _latex2text().latex_to_text(latex)
    except Exception:  # malformed LaTeX: show it as written rather than lose it
        text = latex
    if "%s" in text and "%s" not in latex:  # pylatexenc's placeholder for a macro missing its arguments
        text = latex
    return text.replace("\x00", "~").translate(_GREEK_VARIANTS)


_TEX_QUOTES = ((re.compile(r"``(.+?)''"), "“", "”"),
               (re.compile(r"(?<![`\w])`([^`'\n]{1,60}?)'(?![\w'])"), "‘", "’"))
_TEX_DASHES = ((re.compile(r"(?<=\w)---(?=\w)"), "—"), (re.compile(r"(?<=\w)--(?=\w)"), "–"))


def tex_ligatures(text: str) -> str:
    """TeX's text ligatures that abstracts keep without any ``$`` or backslash, as a person reads them:
    ````soft projection''`` -> “soft projection”, ```pre-flight'`` -> ‘pre-flight’, ``---`` -> em dash, ``--``
    between words -> en dash (``low-rank--aware``; not ``--json``)."""
    if "`" in text:
        for pattern, left, right in _TEX_QUOTES:
            text = pattern.sub(lambda m: f"{left}{m.group(1)}{right}", text)
    if "--" in text:
        for pattern, dash in _TEX_DASHES:
            text = pattern.sub(dash, text)
    return text


def render_latex(text: str) -> str:
    """`text` with its LaTeX rendered as Unicode text, for what a person reads.

    ``75\\%`` -> ``75%``, ``20$\\times$`` -> ``20×``, ``A$^2$RBench`` -> ``A²RBench``, ``$\\epsilon$-greedy``
    -> ``ε-greedy``, ``$\\ell_2$`` -> ``ℓ₂``. Math (``$...$``, ``$$...$$``) and backslash macros are
    rendered by pylatexenc (``LatexNodes2Text``, math as text); a sub- or superscript becomes its Unicode
    form when every character has one; TeX's text ligatures (`tex_ligatures`) are rendered too. Text without
    ``$`` or ``\\`` is otherwise left alone, so plain abstracts (and their bare ``%``) are never touched;
    malformed LaTeX is left as written.
    """
    if not text:
        return text
    text = tex_ligatures(text)
    if not _LATEX_HINT.search(text):
        return text
    out: list[str] = []
    last = 0
    for m in _MATH.finditer(text):
        out.append(_render_segment(text[last:m.start()], math=False) if "\\" in text[last:m.start()]
                   else text[last:m.start()])
        out.append(_render_segment(m.group(1) if m.group(1) is not None else m.group(2), math=True))
        last = m.end()
    rest = text[last:]
    out.append(_render_segment(rest, math=False) if "\\" in rest else rest)
    return "".join(out)


# --- matching and safe display --------------------------------------------------------------------------

_CONTROL = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-_]|[\x00-\x08\x0b-\x1f\x7f-\x9f]")


_CARET = re.compile(r"(?<=[^\W_])\^\{?([^\W_]+)\}?")


FIGURE = re.compile(r"(?<![\w.,])(\d+\.\d+|\d+(?=\s?(?:%|×|x\b|-fold|\s(?:percent|times)\b)))(?![\d]|[.,]\d)")
"""A figure a question quotes: a decimal ("11.31", "6.9") or a number with a percent or times sign ("75%", "20×",
"20x"), not a bare integer ("8 GPUs", "2024"), which many abstracts share. It points at the abstract stating it as a
name does (`relevance.matched_names`)."""
def states_figure(figure: str, text: str) -> bool:
    """`text` (after `fold`) writes the number `figure` (a `FIGURE` match) as a whole number: "1.74" is not in
    "21.74", "6.9" not in "6.95"."""
    return re.search(rf"(?<![\d.,]){re.escape(figure)}(?![\d]|[.,]\d)", text) is not None


_DECIMAL_COMMA = re.compile(r"(?<![\d.,])(\d+),(\d{1,2})(?![\d]|,\d)")


def decimal_points(text: str) -> str:
    """`text` with decimal commas written as points: "21,74%" -> "21.74%", "39,8 %" -> "39.8 %" (German, French,
    Spanish and others write a decimal comma; the abstracts write a point). A comma followed by three digits
    ("9,490") groups thousands and stays."""
    return _DECIMAL_COMMA.sub(r"\1.\2", text)


def same_question(a: str, b: str) -> bool:
    """`a` and `b` ask the same words: case, runs of whitespace and the punctuation around them ignored ("¿Hay algún
    trabajo ...?" and the "Hay algún trabajo ...?" retrieval searched are the same question, and no "searched for"
    line is shown for them)."""
    def norm(x: str) -> str:
        return re.sub(r"^[\W_]+|[\W_]+$", "", " ".join(x.split())).casefold()

    return norm(a) == norm(b)


def fold(text: str) -> str:
    """`text` in one form for matching: LaTeX rendered (`render_latex`), then Unicode NFKC (fullwidth
    ``ＮｏｒＭｕｏｎ`` -> ``NorMuon``, ``²`` -> ``2``, composed accents), so ``A2RBench``, ``A²RBench`` and
    ``A$^2$RBench`` (and ``A^2RBench``, a caret typed outside LaTeX) compare equal. Case is kept;
    casefold the result where case does not matter."""
    import unicodedata

    text = _CARET.sub(r"\1", render_latex(text))  # A^2RBench, as typed without LaTeX: A2RBench
    return unicodedata.normalize("NFKC", text)


@lru_cache(maxsize=8192)
def _folded(text: str) -> str:
    return fold(text)


def fold_key(text: str) -> str:
    """`text` for case-insensitive comparison of metadata (venue, author filters): NFKC, case-folded,
    NFKC again (case folding can leave unnormalised text), spaces collapsed. ``ＩＣＭＬ`` -> ``icml``,
    ``Jose\u0301`` (decomposed, as macOS types it) -> ``josé``."""
    return venue_key(text)


def printable(text: str) -> str:
    """`text` safe for a terminal: ANSI/OSC escape sequences and other control characters (bare CR,
    BEL, backspace, C1 codes) removed; newlines and tabs kept. ``--json`` output needs no such step
    (JSON escapes control characters)."""
    return _CONTROL.sub("", text)


# Words that describe any paper's results rather than a topic: a question made only of these has no
# subject (`assistant.answering.needs_history`).
RESULT_WORDS = """gain gains result results improvement improvements improve improves speedup speedups speed faster
slower fast slow better worse best worst number numbers performance accuracy experiment experiments evaluation
evaluate evaluated benchmark benchmarks task tasks dataset datasets data model models method paper approach author
authors detail details way problem problems idea setting settings baseline baselines report reports reported large
larger largest small smaller smallest big bigger high higher highest low lower lowest good kind kinds type types
parameter parameters exactly total overall different difference differ differs help helps test tested train trained
run runs ran exist existing available limitation limitations weakness weaknesses strength strengths advantage
advantages contribution contributions claim claims finding findings conclusion conclusions reason reasons cost
costs size sizes scale number amount score scores metric metrics outperform outperforms beat beats achieve
achieves reach reaches work works apply applies applied hold holds ok okay then suffer suffers hurt hurts hit drop
drops loss losses degrade degrades degradation penalty""".split()


@cache
def result_stems() -> frozenset[str]:
    """The `content_stems` of `RESULT_WORDS`."""
    return frozenset(content_stems(" ".join(RESULT_WORDS)))


_SOFT_BREAK = re.compile(r"(?<=\S)\n(?!\n)")


def hard_line_breaks(markdown: str) -> str:
    """`markdown` with each single line break kept as a line break (two spaces before it, CommonMark's
    hard break), not joined into one paragraph: the extractive answer to a several-paper question is one
    line per paper. Blank lines, and text without line breaks, are unchanged."""
    return _SOFT_BREAK.sub("  \n", markdown)


def join_names(names: Sequence[str], limit: int | None = None) -> str:
    """``"A"``, ``"A and B"``, ``"A, B and C"``; with more than `limit` names, the first `limit` and
    ``"et al."`` (``"A, B et al."``)."""
    names = list(names)
    if limit is not None and len(names) > limit:
        return ", ".join(names[:limit]) + " et al."
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
