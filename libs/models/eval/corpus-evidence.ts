// Parses corpus files with @docfleet/pdf (PDFs, images) and @docfleet/sheets (xlsx, csv) into the
// evidence a model call receives (grounding, segments, page texts), as the parse worker will. PDFs
// use the text layer with per-page OCR fallback; no page images are rendered.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { GroundingDocument, Segment } from '@docfleet/contracts';
import { assembleDocument, parsePages, segmentsFromGrounding } from '@docfleet/pdf';
import { buildSheetSegments, parseSpreadsheet } from '@docfleet/sheets';
import { buildEvidence } from '../src/evidence';
import type { Evidence } from '../src/types';

export const DEFAULT_CORPUS = process.env.DOCFLEET_CORPUS ?? path.resolve(__dirname, '../../../../shared/corpus');
const FILE_ID = '00000000-0000-4000-8000-000000000000';

export interface ParsedEvidence {
  grounding?: GroundingDocument;
  segments: Segment[];
  evidence: Evidence;
}

export async function parseEvidence(file: string, docName = path.basename(file)): Promise<ParsedEvidence> {
  const ext = path.extname(file).toLowerCase();
  if (ext === '.xlsx' || ext === '.csv') {
    const res = await parseSpreadsheet({ path: file, kind: ext === '.csv' ? 'csv' : 'xlsx', filename: docName });
    const segments = buildSheetSegments(res, { fileId: FILE_ID, docName });
    return { grounding: res.grounding, segments, evidence: buildEvidence(segments, res.grounding) };
  }
  const kind = ext === '.pdf' ? 'pdf' : 'image';
  const outDir = await fs.mkdtemp(path.join(os.tmpdir(), 'docfleet-models-'));
  try {
    const res = await parsePages({
      path: file,
      kind,
      backend: kind === 'pdf' ? 'text' : 'ocr',
      outDir,
      renderPages: false,
    });
    const { grounding } = assembleDocument(
      docName,
      kind,
      res.pages.map((p) => p.grounding),
      res.pages.map((p) => p.markdown),
      'text',
    );
    const segments = segmentsFromGrounding(grounding, { fileId: FILE_ID, docName, sourceType: kind });
    return { grounding, segments, evidence: buildEvidence(segments, grounding) };
  } finally {
    await fs.rm(outDir, { recursive: true, force: true });
  }
}

/** Back-compat name used by the dev scripts. */
export const parsePdfEvidence = parseEvidence;
