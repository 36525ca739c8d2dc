// OCR text fidelity on every image row of the corpus with line ground truth, beside raw Tesseract
// on the same images in the same run. Rows are found through MANIFEST.tsv (kind "c"): SROIE
// receipts (`<n>.csv`: 4-point boxes and transcripts in box-file order, grouped into rows here),
// plain-text expectations (`*.expected.txt`) and image-only PDFs with a markdown reference. Both
// systems' text gets the same normalisation (markdown syntax removed, Unicode NFKC, whitespace
// collapsed, case folded), then CER (edits / reference characters) and word F1 (multiset of tokens).
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { runTool } from '../src/render/run-tool';
import { readManifest } from './corpus-eval';
import { levenshtein } from '../src/edit-distance';
import { normaliseMarkdown } from './metrics/text-similarity';

export interface OcrDoc {
  /** Corpus-relative path. */
  doc: string;
  file: string;
  kind: 'pdf' | 'image';
  /** Reference text, one line per printed row. */
  reference: string;
  /** 'receipt' for SROIE rows, else the manifest doc_class. */
  docClass: string;
  /** Halves of the receipts for honest tuning: A and B alternate in file-name order. */
  half?: 'A' | 'B';
  /** Reference is another OCR engine's output (regression, not truth). */
  weakReference?: boolean;
}

export interface TextScore {
  edits: number;
  refChars: number;
  cer: number;
  tp: number;
  hypWords: number;
  refWords: number;
  f1: number;
}
export interface OcrSystemResult extends TextScore {
  seconds: number;
  error?: string;
}
export interface OcrDocResult {
  doc: OcrDoc;
  raw: OcrSystemResult;
  ours: OcrSystemResult;
  detail?: string;
}

/** The one normalisation both systems' text and the reference go through. */
export function normaliseOcrText(text: string): string {
  // Case folded: SROIE transcripts are upper case whatever the receipt prints.
  return normaliseMarkdown(text.normalize('NFKC')).toLowerCase();
}

export function scoreText(hypothesis: string, reference: string): TextScore {
  const hyp = normaliseOcrText(hypothesis);
  const ref = normaliseOcrText(reference);
  const edits = levenshtein(hyp, ref);
  const words = (s: string) => s.split(' ').filter(Boolean);
  const hw = words(hyp),
    rw = words(ref);
  const counts = new Map<string, number>();
  for (const w of rw) counts.set(w, (counts.get(w) ?? 0) + 1);
  let tp = 0;
  for (const w of hw) {
    const n = counts.get(w) ?? 0;
    if (n > 0) {
      tp++;
      counts.set(w, n - 1);
    }
  }
  const p = hw.length ? tp / hw.length : 0,
    r = rw.length ? tp / rw.length : 0;
  return {
    edits,
    refChars: ref.length,
    cer: ref.length ? edits / ref.length : hyp.length ? 1 : 0,
    tp,
    hypWords: hw.length,
    refWords: rw.length,
    f1: p + r ? (2 * p * r) / (p + r) : 0,
  };
}

interface Box {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
  text: string;
}

/**
 * SROIE box lines → reading-order rows: boxes whose vertical extents overlap by at least half the
 * smaller height share a row; rows top to bottom, boxes left to right.
 */
export function sroieRows(csv: string): string[] {
  const boxes: Box[] = [];
  for (const line of csv.split(/\r?\n/)) {
    const f = line.split(',');
    if (f.length < 9) continue;
    const n = f.slice(0, 8).map(Number);
    if (n.some((v) => !Number.isFinite(v))) continue;
    const xs = [n[0]!, n[2]!, n[4]!, n[6]!],
      ys = [n[1]!, n[3]!, n[5]!, n[7]!];
    const text = f.slice(8).join(',').trim();
    if (text) boxes.push({ x0: Math.min(...xs), x1: Math.max(...xs), y0: Math.min(...ys), y1: Math.max(...ys), text });
  }
  boxes.sort((a, b) => a.y0 + a.y1 - (b.y0 + b.y1));
  const rows: Box[][] = [];
  for (const b of boxes) {
    const row = rows.find((r) =>
      r.some((o) => Math.min(o.y1, b.y1) - Math.max(o.y0, b.y0) >= 0.5 * Math.min(o.y1 - o.y0, b.y1 - b.y0)),
    );
    if (row) row.push(b);
    else rows.push([b]);
  }
  const mid = (r: Box[]) => r.reduce((s, b) => s + b.y0 + b.y1, 0) / (2 * r.length);
  return rows
    .sort((a, b) => mid(a) - mid(b))
    .map((r) =>
      r
        .sort((a, b) => a.x0 - b.x0)
        .map((b) => b.text)
        .join(' '),
    );
}

/** Image rows of the manifest that carry line ground truth. */
export async function ocrDocuments(corpusDir: string): Promise<OcrDoc[]> {
  const out: OcrDoc[] = [];
  const rows = (await readManifest(corpusDir)) as unknown as Array<Record<string, string>>;
  for (const m of rows) {
    const kinds = (m.kind ?? '').split(',');
    if (!kinds.includes('c')) continue;
    const rel = m.local_path!;
    const file = path.join(corpusDir, rel);
    const truth = (m.ground_truth ?? '').split(';').filter(Boolean);
    const kind = rel.toLowerCase().endsWith('.pdf') ? ('pdf' as const) : ('image' as const);
    const csv = truth.find((t) => t.endsWith('.csv'));
    if (/sroie/i.test(m.gt_format ?? '') && csv) {
      out.push({
        doc: rel,
        file,
        kind,
        reference: sroieRows(await fs.readFile(path.join(corpusDir, csv), 'utf8')).join('\n'),
        docClass: 'receipt',
      });
      continue;
    }
    const txt = truth.find((t) => t.endsWith('.expected.txt'));
    if (txt) {
      out.push({
        doc: rel,
        file,
        kind,
        reference: await fs.readFile(path.join(corpusDir, txt), 'utf8'),
        docClass: m.doc_class ?? '',
        weakReference: /tesseract'?s own output/i.test(m.notes ?? ''),
      });
      continue;
    }
    const md = truth.find((t) => t.endsWith('.md'));
    if (md && kind === 'pdf' && /image-only/i.test(m.notes ?? '')) {
      out.push({
        doc: rel,
        file,
        kind,
        reference: await fs.readFile(path.join(corpusDir, md), 'utf8'),
        docClass: m.doc_class ?? '',
      });
    }
  }
  const receipts = out.filter((d) => d.docClass === 'receipt').sort((a, b) => a.doc.localeCompare(b.doc));
  receipts.forEach((d, i) => {
    d.half = i % 2 === 0 ? 'A' : 'B';
  });
  return out;
}

/**
 * The baseline: `tesseract IMG stdout -l eng`, the command a user would type (PDF pages are
 * rasterised at 300 dpi with pdftoppm first, since Tesseract reads no PDF).
 */
export async function rawTesseractText(doc: OcrDoc, lang = 'eng'): Promise<string> {
  const env = { OMP_THREAD_LIMIT: '1' };
  if (doc.kind === 'image')
    return (await runTool('tesseract', [doc.file, 'stdout', '-l', lang], { env, timeoutMs: 600_000 })).stdout;
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'docfleet-rawocr-'));
  try {
    await runTool('pdftoppm', ['-r', '300', '-gray', doc.file, path.join(dir, 'p')], { timeoutMs: 600_000 });
    const pages = (await fs.readdir(dir)).sort();
    const texts: string[] = [];
    for (const p of pages)
      texts.push(
        (await runTool('tesseract', [path.join(dir, p), 'stdout', '-l', lang], { env, timeoutMs: 600_000 })).stdout,
      );
    return texts.join('\n');
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

/** `seconds`: the system's own time when the call does more than parse (an upload first). */
export type OcrParseFn = (doc: OcrDoc) => Promise<{ text: string; detail?: string; seconds?: number }>;

async function timed(
  run: () => Promise<{ text: string; detail?: string; seconds?: number }>,
  reference: string,
): Promise<OcrSystemResult & { detail?: string }> {
  const t0 = process.hrtime.bigint();
  try {
    const { text, detail, seconds: own } = await run();
    const seconds = own ?? Number(process.hrtime.bigint() - t0) / 1e9;
    return { ...scoreText(text, reference), seconds, detail };
  } catch (err) {
    const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
    return { ...scoreText('', reference), seconds, error: (err as Error).message };
  }
}

/** Every OCR document through both systems, one after the other, in the same run. */
export async function evaluateOcr(
  docs: OcrDoc[],
  ours: OcrParseFn,
  log: (s: string) => void = () => undefined,
): Promise<OcrDocResult[]> {
  const out: OcrDocResult[] = [];
  for (const doc of docs) {
    const raw = await timed(async () => ({ text: await rawTesseractText(doc) }), doc.reference);
    const mine = await timed(() => ours(doc), doc.reference);
    out.push({ doc, raw, ours: mine, detail: mine.detail });
    log(
      `ocr ${doc.doc}: CER raw ${raw.cer.toFixed(3)} ours ${mine.cer.toFixed(3)}; F1 raw ${raw.f1.toFixed(3)} ours ${mine.f1.toFixed(3)}; ${raw.seconds.toFixed(2)} s / ${mine.seconds.toFixed(2)} s${mine.error ? ` FAILED ${mine.error}` : ''}`,
    );
  }
  return out;
}

export interface OcrSummary {
  n: number;
  cerPooled: number;
  cerMean: number;
  f1Pooled: number;
  f1Mean: number;
  secondsPerImage: number;
  worse: number;
}

export function summarise(results: OcrDocResult[], which: 'raw' | 'ours'): OcrSummary {
  const rs = results.map((r) => r[which]);
  const other = results.map((r) => r[which === 'raw' ? 'ours' : 'raw']);
  const sum = (f: (s: OcrSystemResult) => number) => rs.reduce((a, s) => a + f(s), 0);
  const tp = sum((s) => s.tp),
    hw = sum((s) => s.hypWords),
    rw = sum((s) => s.refWords);
  const p = hw ? tp / hw : 0,
    r = rw ? tp / rw : 0;
  return {
    n: rs.length,
    cerPooled:
      sum((s) => s.edits) /
      Math.max(
        1,
        sum((s) => s.refChars),
      ),
    cerMean: sum((s) => s.cer) / Math.max(1, rs.length),
    f1Pooled: p + r ? (2 * p * r) / (p + r) : 0,
    f1Mean: sum((s) => s.f1) / Math.max(1, rs.length),
    secondsPerImage: sum((s) => s.seconds) / Math.max(1, rs.length),
    worse: rs.filter((s, i) => s.cer > other[i]!.cer + 1e-9).length,
  };
}

/** Markdown report: per-document rows and the summary per group (receipts, their halves, other scans). */
export function ocrReport(results: OcrDocResult[]): string {
  const f = (x: number) => x.toFixed(3);
  const lines = [
    '| document | CER raw | CER docfleet | word F1 raw | word F1 docfleet | s raw | s docfleet | detail |',
    '|---|---:|---:|---:|---:|---:|---:|---|',
  ];
  for (const r of results) {
    lines.push(
      `| ${r.doc.doc}${r.doc.half ? ` (${r.doc.half})` : ''}${r.doc.weakReference ? ' †' : ''} | ${f(r.raw.cer)} | ${f(r.ours.cer)} | ${f(r.raw.f1)} | ${f(r.ours.f1)} | ${r.raw.seconds.toFixed(2)} | ${r.ours.seconds.toFixed(2)} | ${(r.ours.error ? `FAILED: ${r.ours.error}` : (r.detail ?? '')).replace(/\|/g, '\\|')} |`,
    );
  }
  const groups: Array<[string, OcrDocResult[]]> = [
    ['receipts, all', results.filter((r) => r.doc.docClass === 'receipt')],
    ['receipts, half A', results.filter((r) => r.doc.half === 'A')],
    ['receipts, half B', results.filter((r) => r.doc.half === 'B')],
    ['other scans', results.filter((r) => r.doc.docClass !== 'receipt')],
  ];
  lines.push(
    '',
    '| set | n | system | CER pooled | CER mean | word F1 pooled | word F1 mean | s / image | worse than the other |',
    '|---|---:|---|---:|---:|---:|---:|---:|---:|',
  );
  for (const [name, rs] of groups) {
    if (!rs.length) continue;
    for (const which of ['raw', 'ours'] as const) {
      const s = summarise(rs, which);
      lines.push(
        `| ${name} | ${s.n} | ${which === 'raw' ? 'raw `tesseract IMG stdout -l eng`' : 'docfleet'} | ${f(s.cerPooled)} | ${f(s.cerMean)} | ${f(s.f1Pooled)} | ${f(s.f1Mean)} | ${s.secondsPerImage.toFixed(2)} | ${s.worse} |`,
      );
    }
  }
  if (results.some((r) => r.doc.weakReference))
    lines.push('', '† reference is Tesseract output itself (regression, not truth).');
  return lines.join('\n');
}
