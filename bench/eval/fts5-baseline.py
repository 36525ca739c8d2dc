#!/usr/bin/env python3
"""The same-run baseline of `pnpm eval:search`: SQLite FTS5 with its default bm25() and the porter tokenizer.

Reads one JSON object on stdin:
  {"docs": [{"id": str, "title": str, "text": str}], "queries": [{"id": str, "text": str}], "k": int}
and writes {"runs": {query id: [doc id, ...best first, at most k]}, "ms": [per-query ms, in process]} on stdout.

The index has two columns (title, text) at bm25()'s default weights (1 each). A query is every
token FTS5's own tokenizer would make of it (unicode61 splits at anything that is not a letter or a
digit), each quoted, OR-ed: the plain "ten-line script" a new user would write. Only python3's
standard library (its sqlite3 module, which is built with FTS5); nothing here is a runtime dependency.
"""
import json
import re
import sqlite3
import sys
import time

TOKEN = re.compile(r"[^\W_]+", re.UNICODE)


def main() -> None:
    req = json.load(sys.stdin)
    k = int(req.get("k", 80))
    db = sqlite3.connect(":memory:")
    db.execute("CREATE VIRTUAL TABLE docs USING fts5(title, text, tokenize = 'porter unicode61')")
    ids = []
    for i, d in enumerate(req["docs"]):
        ids.append(d["id"])
        db.execute("INSERT INTO docs (rowid, title, text) VALUES (?, ?, ?)", (i + 1, d.get("title") or "", d.get("text") or ""))
    db.commit()
    runs, ms = {}, []
    for q in req["queries"]:
        tokens = list(dict.fromkeys(t.lower() for t in TOKEN.findall(q["text"])))
        t0 = time.perf_counter()
        if tokens:
            expr = " OR ".join('"%s"' % t.replace('"', '""') for t in tokens)
            rows = db.execute("SELECT rowid FROM docs WHERE docs MATCH ? ORDER BY bm25(docs) LIMIT ?", (expr, k)).fetchall()
        else:
            rows = []
        ms.append((time.perf_counter() - t0) * 1000)
        runs[q["id"]] = [ids[r[0] - 1] for r in rows]
    json.dump({"runs": runs, "ms": ms}, sys.stdout)


if __name__ == "__main__":
    main()
