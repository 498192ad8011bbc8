# Two commands on a fresh machine (Python 3.11 and make):
#   make run    set up, then answer a question over the bundled ICML 2026 abstracts
#   make test   set up, then run the whole test suite (unit + integration on real servers)

PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   := .venv
BIN    := $(VENV)/bin
SHARED ?= $(abspath ../shared)
QUESTION ?= Which papers compress the KV cache, and by how much?
# The demo answers with the extractive backend (instant, quotes only what the abstracts say); try
# LLM=local (SmolLM2-135M in process) or LLM=openai with OPENAI_API_KEY / OPENAI_BASE_URL set.
LLM ?= extractive

# The embedding model is read from a local folder (model hubs are unreachable here).
export ASSISTANT_EMBEDDING_MODEL_DIR ?= $(SHARED)/models/all-MiniLM-L6-v2

.PHONY: setup run test clean

setup: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[local,dev]'
	touch $@

run: setup
	$(BIN)/assistant ask --llm $(LLM) "$(QUESTION)"

test: setup
	$(BIN)/pytest -q

clean:
	rm -rf $(VENV) .pytest_cache
