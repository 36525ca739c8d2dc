// Segments of the corpus documents built with the parsing libraries directly (libs/pdf:
// inspect → parse → assemble → segmentsFromGrounding; libs/sheets: parse → buildSheetSegments),
// the same calls the parse worker makes. Results are cached by content hash in the OS temp dir,
// because OCR of the scanned documents takes a while on a shared machine.
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Segment } from '../../libs/contracts/src';
import { assembleDocument, inspectDocument, parsePages, segmentsFromGrounding } from '../../libs/pdf/src';
import { buildSheetSegments, parseSpreadsheet } from '../../libs/sheets/src';

export interface CorpusDoc {
  path: string;
  name: string;
  kind: 'pdf' | 'image' | 'xlsx' | 'csv';
  contentType: string;
}

const KINDS: Record<string, { kind: CorpusDoc['kind']; contentType: string }> = {
  '.pdf': { kind: 'pdf', contentType: 'application/pdf' },
  '.png': { kind: 'image', contentType: 'image/png' },
  '.jpg': { kind: 'image', contentType: 'image/jpeg' },
  '.xlsx': { kind: 'xlsx', contentType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet' },
  '.csv': { kind: 'csv', contentType: 'text/csv' },
};

/** Every parseable document of the corpus (ground-truth files are left out). */
export async function corpusDocuments(corpus: string): Promise<CorpusDoc[]> {
  const out: CorpusDoc[] = [];
  const walk = async (dir: string) => {
    for (const e of (await readdir(dir, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name))) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) {
        if (e.name !== 'LICENSES') await walk(p);
        continue;
      }
      const k = KINDS[path.extname(e.name).toLowerCase()];
      if (!k) continue;
      // CSVs under b_tables are ground truth of the PDFs next to them, not documents.
      if (k.kind === 'csv' && !p.includes(`${path.sep}d_spreadsheets${path.sep}`)) continue;
      out.push({ path: p, name: e.name, ...k });
    }
  };
  await walk(corpus);
  return out;
}

const CACHE = path.join(os.tmpdir(), 'docfleet-search-eval-cache-v1');

/** Segments of one document, as the parse worker would write them to segments.json. */
export async function documentSegments(
  doc: CorpusDoc,
  ctx: { fileId: string; manifestId?: string },
): Promise<Segment[]> {
  const bytes = await readFile(doc.path);
  const cacheFile = path.join(CACHE, `${createHash('sha256').update(bytes).digest('hex')}.json`);
  let segments: Segment[];
  try {
    segments = JSON.parse(await readFile(cacheFile, 'utf8')) as Segment[];
  } catch {
    segments = await parse(doc);
    await mkdir(CACHE, { recursive: true });
    await writeFile(cacheFile, JSON.stringify(segments));
  }
  // Ids of the cached run are placeholders; give them this file's identity.
  return segments.map((s) => ({ ...s, docId: ctx.fileId, docName: doc.name }));
}

async function parse(doc: CorpusDoc): Promise<Segment[]> {
  const ctx = { fileId: '00000000-0000-4000-8000-000000000000', docName: doc.name };
  if (doc.kind === 'xlsx' || doc.kind === 'csv') {
    const res = await parseSpreadsheet({ path: doc.path, kind: doc.kind, filename: doc.name });
    return buildSheetSegments(res, ctx);
  }
  const outDir = await mkdtemp(path.join(os.tmpdir(), 'docfleet-search-eval-'));
  try {
    const backend = (await inspectDocument(doc.path, doc.kind)).backend.backend;
    const res = await parsePages({ path: doc.path, kind: doc.kind, backend, outDir, renderPages: false });
    const { grounding } = assembleDocument(
      doc.name,
      doc.kind,
      res.pages.map((p) => p.grounding),
      res.pages.map((p) => p.markdown),
      backend,
    );
    return segmentsFromGrounding(grounding, { ...ctx, sourceType: doc.kind });
  } finally {
    await rm(outDir, { recursive: true, force: true });
  }
}
