// Writing the artifact bundle (libs/contracts bundle.ts is the layout contract). The bundle of a
// job lives under artifactPrefix(kb, file, manifestId) with a manifest id derived from the job id,
// so a redelivered job rewrites the same files under the same names instead of leaving a second,
// orphaned bundle behind.
import { createWriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { once } from 'node:events';
import { BUNDLE, type GroundingPage, type Segment } from '@docfleet/contracts';
import {
  missingLanguageWarning,
  type OcrLanguageChoice,
  type OcrPageReport,
  type ParsedPage,
  type TextLayerUse,
} from '@docfleet/pdf';

export const pageResultName = (n: number) => `page_${String(n).padStart(4, '0')}.json`;

/** page-results/page_NNNN.json: what a re-parse needs to reuse an unchanged page. */
export interface PageResult {
  page_number: number;
  grounding: GroundingPage;
  markdown: string;
  /** Files of this page relative to the bundle root (pages/…, imgs/…). */
  files: string[];
  source: 'text' | 'ocr';
  /** Image pages: which OCR preprocessing won, what was tried, and warnings (ink but no text). */
  ocr?: OcrPageReport;
  /** OCR'd PDF pages with a text layer: whether its characters were taken (it agreed with OCR). */
  text_layer?: TextLayerUse;
  /** OCR pages whose script called for another language: the one read with, or the one missing. */
  ocr_language?: OcrLanguageChoice;
}

/** The stored result of one page the parser read (the one place that maps the parser's page to the file's fields). */
export function pageResultOf(p: ParsedPage): PageResult {
  return {
    page_number: p.pageNumber,
    grounding: p.grounding,
    markdown: p.markdown,
    files: p.files,
    source: p.source,
    ...(p.ocr ? { ocr: p.ocr } : {}),
    ...(p.textLayer ? { text_layer: p.textLayer } : {}),
    ...(p.ocrLanguage ? { ocr_language: p.ocrLanguage } : {}),
  };
}

/** A stored page's warnings for the job: OCR's (ink but no text, low confidence) and a missing OCR language. */
export function pageWarnings(r: PageResult): Array<{ code: string; message: string }> {
  const language = r.ocr_language && missingLanguageWarning(r.page_number, r.ocr_language);
  return [...(r.ocr?.warnings ?? []), ...(language ? [language] : [])];
}

export async function writeJson(file: string, value: unknown): Promise<void> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  const tmp = `${file}.tmp-${process.pid}`;
  await fs.writeFile(tmp, JSON.stringify(value));
  await fs.rename(tmp, file);
}

export async function writeText(file: string, text: string): Promise<void> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  const tmp = `${file}.tmp-${process.pid}`;
  await fs.writeFile(tmp, text);
  await fs.rename(tmp, file);
}

/** Streams segments.json as a JSON array, one segment at a time (spreadsheets can have tens of thousands). */
export async function writeSegments(outDir: string, segments: Iterable<Segment>): Promise<number> {
  const file = path.join(outDir, BUNDLE.segments_json);
  const tmp = `${file}.tmp-${process.pid}`;
  const out = createWriteStream(tmp);
  let n = 0;
  const write = async (s: string) => {
    if (!out.write(s)) await once(out, 'drain');
  };
  await write('[');
  for (const seg of segments) {
    await write((n++ ? ',' : '') + JSON.stringify(seg));
  }
  await write(']');
  out.end();
  await once(out, 'finish');
  await fs.rename(tmp, file);
  return n;
}

/** Readable artifacts of a previous bundle (the condition for a `reused` completion; docs/api.md, States). */
export async function bundleReadable(root: string, names: string[]): Promise<boolean> {
  for (const n of names) {
    try {
      await fs.access(path.join(root, n));
    } catch {
      return false;
    }
  }
  return true;
}
