#!/usr/bin/env python3
"""Side check of `bench/eval/scifact-variants.ts`: BM25 fused with a latent semantic (LSA) cosine, SciFact train.

Usage: python3 bench/eval/scifact-lsa.py CACHE QRELS [k ...]
CACHE is the analyser output scifact-variants.ts writes (bench/out/scifact-variants-cache.json), QRELS the
collection's qrels/train.tsv. The document vectors are the BM25 weights (k1 1.2, b 0.75, field weights 1/1/0.5,
IDF ln(1 + (N - df + .5)/(df + .5))), reduced to k dimensions by a truncated SVD of the collection itself (no
outside data, no model); a query is its own terms at their IDF, projected the same way. Score: BM25 (own terms,
no synonyms, no common-word skip: scifact-variants' "no common-word skip" row, 0.697) + lam x cosine x max BM25 / 4.
nDCG@10 for all queries and the id-parity halves. Needs numpy and scipy (Debian python3-numpy, python3-scipy).
"""
import json
import math
import sys

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import svds


def main() -> None:
    cache, qrels_file, ks = sys.argv[1], sys.argv[2], [int(x) for x in sys.argv[3:]] or [100, 300]
    c = json.load(open(cache))
    docs, queries = c["docs"], c["queries"]
    vocab, rows, cols, vals = {}, [], [], []
    for i, d in enumerate(docs):
        tf = {}
        for fld, w in (("title", 1), ("body", 1), ("name", 0.5)):
            for t, p in d[fld]:
                tf[t] = tf.get(t, 0) + w * len(p)
        for t, v in tf.items():
            rows.append(i)
            cols.append(vocab.setdefault(t, len(vocab)))
            vals.append(v)
    a = sp.csr_matrix((vals, (rows, cols)), shape=(len(docs), len(vocab)))
    n = len(docs)
    df = np.asarray((a > 0).sum(0)).ravel()
    idf = np.log(1 + (n - df + 0.5) / (df + 0.5))
    dl = np.asarray(a.sum(1)).ravel()
    k1, b = 1.2, 0.75
    a = a.tocoo()
    norm = k1 * (1 - b + b * dl[a.row] / dl.mean())
    w = sp.csr_matrix(((a.data * (k1 + 1) / (a.data + norm)) * idf[a.col], (a.row, a.col)), shape=a.shape)
    wc = w.tocsc()
    qrels = {}
    for line in open(qrels_file).read().split("\n")[1:]:
        p = line.split("\t")
        if len(p) == 3 and float(p[2]) > 0:
            qrels.setdefault(p[0], {})[p[1]] = float(p[2])
    ids = [d["id"] for d in docs]

    def ndcg(rank, rel):
        dcg = sum(rel.get(ids[d], 0) / math.log2(i + 2) for i, d in enumerate(rank[:10]))
        return dcg / sum(g / math.log2(i + 2) for i, g in enumerate(sorted(rel.values(), reverse=True)[:10]))

    print("| k | lam | all | even ids | odd ids |")
    for k in ks:
        u, s, vt = svds(w, k=k)
        dv = u * s
        dv /= np.linalg.norm(dv, axis=1, keepdims=True) + 1e-12
        for lam in (0, 0.5, 1, 2, 4, None):
            out = {"all": [], "even": [], "odd": []}
            for q in queries:
                js = [vocab[t["term"]] for t in q["terms"] if t["term"] in vocab]
                bm = np.asarray(wc[:, js].sum(1)).ravel() if js else np.zeros(n)
                qv = np.zeros(len(vocab))
                qv[js] = idf[js]
                qv = vt @ qv
                cos = dv @ (qv / (np.linalg.norm(qv) + 1e-12))
                sc = cos if lam is None else bm + lam * cos * (bm.max() or 1) / 4
                v = ndcg(np.argsort(-sc, kind="stable")[:10], qrels[q["id"]])
                out["all"].append(v)
                out["even" if int(q["id"]) % 2 == 0 else "odd"].append(v)
            m = {x: f"{np.mean(v):.3f}" for x, v in out.items()}
            print(f"| {k} | {'LSA alone' if lam is None else lam} | {m['all']} | {m['even']} | {m['odd']} |", flush=True)


if __name__ == "__main__":
    main()
