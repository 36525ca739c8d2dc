"""Text of PDFs through the peer extractors the text benchmark compares against (pnpm eval:text).

Usage: python3 scripts/text-peers.py FILE.pdf [FILE.pdf ...]
Prints one JSON object: {"libraries": {name: version or null}, "results": {file: {name: {"text", "seconds"} or {"error"}}}}.
A library that is not installed is reported with version null and no results; the caller says so.
Each extractor is called the way the py-pdf benchmark calls it: PyMuPDF page.get_text() per page
joined with newlines, pypdf page.extract_text() per page.
"""
import json
import sys
import time

libs = {}
try:
    import fitz  # PyMuPDF (Debian: python3-fitz)
    libs["pymupdf"] = getattr(fitz, "VersionBind", "?")
except Exception:  # noqa: BLE001 - any import failure means "not available"
    fitz = None
    libs["pymupdf"] = None
try:
    import pypdf  # Debian: python3-pypdf
    libs["pypdf"] = getattr(pypdf, "__version__", "?")
except Exception:  # noqa: BLE001
    pypdf = None
    libs["pypdf"] = None


def pymupdf_text(path):
    with fitz.open(path) as doc:
        return "".join(page.get_text() + "\n" for page in doc)


def pypdf_text(path):
    reader = pypdf.PdfReader(path)
    return "\n".join(page.extract_text() for page in reader.pages)


results = {}
for path in sys.argv[1:]:
    out = {}
    for name, fn, mod in (("pymupdf", pymupdf_text, fitz), ("pypdf", pypdf_text, pypdf)):
        if mod is None:
            continue
        t0 = time.perf_counter()
        try:
            text = fn(path)
            out[name] = {"text": text, "seconds": time.perf_counter() - t0}
        except Exception as exc:  # noqa: BLE001 - a peer failing on one file is a row, not a crash
            out[name] = {"error": f"{type(exc).__name__}: {exc}"}
    results[path] = out

json.dump({"libraries": libs, "results": results}, sys.stdout)
