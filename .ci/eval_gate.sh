#!/usr/bin/env bash
# CI evaluation gate: `assistant eval` with the extractive backend (no LLM, so deterministic) over the
# bundled ICML 2026 abstracts, on the development questions of ../shared/eval/ (README there):
# icml2026_dev.jsonl (80 questions), icml2026_chats_dev.jsonl (15 conversations, 46 turns) and the first
# seed_dev_qa.jsonl (12). Fails (exit 3) below a --min-* or above a --max-* threshold.
#
# Thresholds come from measured values (docs/benchmarks.md, "Answer quality on the development sets"),
# each set about one question below the lower of two measurements: this branch (main with issue 9's
# fixes + the eval changes, 4c78c87) and the same merged with branch `answers` at 7e50650 (relevance
# gate + extractive answers), so the gate holds across that merge; raise them to the merged figures
# once it is in.
#   icml2026_dev   eval / +answers: recall@5 0.962/0.962, MRR 0.985/0.985, facts 0.759/0.862, citation
#                  precision 0.759/0.902, gold cited 0.793/0.931, multi recall 0.446/0.643, false refusals
#                  0.207/0.069, not-in-abstract 0.20/0.80, out-of-corpus 0.417/0.917.
#   chats (turns)  recall@5 1.00/1.00, MRR 0.980/1.000, facts 0.571/0.500, citation precision 0.707/0.759,
#                  gold cited 0.724/0.759, false refusals 0.276/0.241, not-in-abstract 0.222/0.556,
#                  out-of-corpus 0.75/0.875.
#   seed           recall@5 0.955, MRR 0.932, facts 1.00, citation precision 0.95/0.817, refusal 1.00.
# One question is 1/58 of the dev answerable questions (0.017), 1/12 of its out-of-corpus ones, 1/10 of
# its not-in-abstract ones; 1/29 of the chat answerable turns, 1/14 of the chat turns with facts.
set -euo pipefail
cd "$(dirname "$0")/.."
SHARED="${SHARED:-$(cd .. && pwd)/shared}"
export ASSISTANT_EMBEDDING_MODEL_DIR="${ASSISTANT_EMBEDDING_MODEL_DIR:-$SHARED/models/all-MiniLM-L6-v2}"
# A fresh data folder: only the bundled collection, no leftover config.
ASSISTANT_DATA_DIR="$(mktemp -d)"
export ASSISTANT_DATA_DIR
unset ASSISTANT_CONFIG ASSISTANT_COLLECTION ASSISTANT_CHROMA_URL ASSISTANT_LLM || true
trap 'rm -rf "$ASSISTANT_DATA_DIR"' EXIT
ASSISTANT="${ASSISTANT:-.venv/bin/assistant}"
[ -x "$ASSISTANT" ] || ASSISTANT=assistant
REPORTS="${EVAL_REPORT_DIR:-$ASSISTANT_DATA_DIR}"
status=0

"$ASSISTANT" eval "$SHARED/eval/icml2026_dev.jsonl" --llm extractive \
  --min-recall-at-5 0.94 \
  --min-mrr 0.96 \
  --min-fact-recall 0.74 \
  --min-citation-precision 0.73 \
  --min-gold-cited 0.77 \
  --min-multi-recall 0.42 \
  --max-false-refusal-rate 0.225 \
  --min-not-in-abstract-rate 0.15 \
  --min-out-of-corpus-rate 0.38 \
  -o "$REPORTS/eval-icml2026-dev.json" || status=$?

"$ASSISTANT" eval "$SHARED/eval/icml2026_chats_dev.jsonl" --llm extractive \
  --min-recall-at-5 0.96 \
  --min-mrr 0.95 \
  --min-fact-recall 0.45 \
  --min-citation-precision 0.68 \
  --min-gold-cited 0.70 \
  --max-false-refusal-rate 0.29 \
  --min-not-in-abstract-rate 0.2 \
  --min-out-of-corpus-rate 0.7 \
  -o "$REPORTS/eval-icml2026-chats-dev.json" || status=$?

# The first seed: one gold paper lost from the top 5 drops recall@5 to 0.864; a missed fact drops fact
# recall to 0.80; a missed refusal drops the refusal rate to 0.5.
"$ASSISTANT" eval "$SHARED/eval/seed_dev_qa.jsonl" --llm extractive \
  --min-recall-at-5 0.90 \
  --min-mrr 0.85 \
  --min-fact-recall 0.90 \
  --min-citation-precision 0.80 \
  --min-refusal-rate 1.0 \
  -o "$REPORTS/eval-seed.json" || status=$?

exit "$status"
