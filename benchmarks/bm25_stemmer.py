"""BM25 alone on BEIR SciFact with the product's stemmer (`store.bm25.FieldStemmer`) against plain Snowball.

``python -m benchmarks.bm25_stemmer``

`FieldStemmer` joins the field's clipped words ("math", "params") to their full forms, British spellings to American
("quantisation") and an acronym's plural to its singular ("LLMs"); this prints nDCG@10 and Recall@100 of
`store.bm25.BM25Index` (bm25s, Lucene, k1=0.9, b=0.4) over the 5,183 SciFact abstracts (title + abstract) with each
stemmer, on the train queries (809) and the test queries (300): the change must not cost a biomedical collection its
BM25. No embedding: a few seconds.
"""

from __future__ import annotations

import numpy as np

from benchmarks._scifact import evaluate, load_corpus, load_qrels, load_queries


def main() -> None:
    import Stemmer

    from assistant.store import bm25

    docs, queries = load_corpus(), load_queries()
    ids, texts = [d.doc_id for d in docs], [f"{d.title}\n\n{d.text}" for d in docs]
    stemmers = (("Snowball (PyStemmer)", Stemmer.Stemmer("english")), ("FieldStemmer", bm25.english_stemmer()))
    for name, stemmer in stemmers:
        index = bm25.BM25Index.build(ids, texts, stemmer)  # its queries are stemmed by the same stemmer
        for split in ("train", "test"):
            qrels = load_qrels(split)
            run = {q: [ids[i] for i in np.argsort(-index.scores(queries[q]))[:100]] for q in qrels}
            figures = evaluate(run, qrels)
            print(f"{name:22s} {split:5s} nDCG@10 {figures['ndcg@10']:.4f}  Recall@100 {figures['recall@100']:.4f}")


if __name__ == "__main__":
    main()
