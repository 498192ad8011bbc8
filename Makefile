# Two commands on a fresh machine (Python 3.11 and make):
#   make run    set up (core dependencies only), then answer a question over the bundled ICML 2026 abstracts
#   make test   set up with the `local` and `dev` extras, then run the whole test suite (unit + integration)
# `make run LLM=local` adds the `local` extra first (llama-cpp-python is compiled from source: minutes).

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
# The tests and benchmarks read the data and eval sets from the same folder.
export ASSISTANT_SHARED_DIR ?= $(SHARED)

.PHONY: setup setup-core setup-local check-shared run test clean

# One stamp per set of extras: `run` needs only the core dependencies (the extractive and openai
# backends); the `local` extra compiles llama.cpp, so only `test` and `LLM=local` pay for it.
$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

$(VENV)/.installed-core: pyproject.toml | $(VENV)/bin/python
	$(BIN)/pip install --quiet -e .
	touch $@

# llama.cpp is compiled for AVX2 rather than for this CPU (-march=native): on Sapphire Rapids (AMX_INT8) a native
# build segfaults in its first decode (ggml's AMX matmul, llama.cpp issue #20824), and an AVX2 build runs on the
# AMD and Intel machines here alike. `--no-cache-dir`: a wheel pip built and cached with other flags is not reused.
export CMAKE_ARGS ?= -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON

$(VENV)/.installed-local: pyproject.toml | $(VENV)/bin/python
	$(BIN)/pip install --quiet --no-cache-dir -e '.[local]'
	touch $@ $(VENV)/.installed-core

$(VENV)/.installed: pyproject.toml | $(VENV)/bin/python
	$(BIN)/pip install --quiet --no-cache-dir -e '.[local,dev]'
	touch $@ $(VENV)/.installed-local $(VENV)/.installed-core

setup-core: $(VENV)/.installed-core
setup-local: $(VENV)/.installed-local
setup: $(VENV)/.installed

# The shared folder (models/, data/, eval/) sits beside the repository; say where it is when it does not.
check-shared:
	@test -f "$(ASSISTANT_EMBEDDING_MODEL_DIR)/onnx/model.onnx" || { echo "error: no embedding model in $(ASSISTANT_EMBEDDING_MODEL_DIR); give the shared folder (models/, data/, eval/): make $(MAKECMDGOALS) SHARED=/path/to/shared" >&2; exit 1; }

run: check-shared $(if $(filter local,$(LLM)),setup-local,setup-core)
	$(BIN)/assistant ask --llm $(LLM) "$(QUESTION)"

test: check-shared setup
	$(BIN)/pytest -q

clean:
	rm -rf $(VENV) .pytest_cache
