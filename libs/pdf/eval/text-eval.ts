// Text fidelity the way the field measures it (the py-pdf text-extraction benchmark): for every
// born-digital manifest row with a whole-document text reference, the Levenshtein ratio
// (python-Levenshtein `ratio`, see metrics/lcs.ts) of the extracted text against the reference,
// both reduced to plain text (markdown syntax stripped, whitespace runs collapsed). Rows are chosen
// by their `gt_format`, never by folder: plain-text references are compared with the whole text
// of the document in reading order (running headers and footers included, as the reference has
// them), markdown references (docling) with `result_md`, which leaves headers and footers out as
// docling's markdown does. Peer extractors run in the same process tree on the same files.
// A reference that writes right-to-left text in visual order (visual-order.ts) is compared with
// every extractor's text in visual order: ours rendered line by line from our logical text, a
// peer's output line by line unless it is in visual order already; the scores of the texts as
// extracted are reported beside.
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import type { GroundingDocument, GroundingElement } from '@docfleet/contracts';
import { readManifest, type EvalParseFn } from './corpus-eval';
import { levenshteinRatio } from './metrics/lcs';
import { normaliseMarkdown } from './metrics/text-similarity';
import { pageLines } from './page-lines';
import { isVisualOrder, unsharedCharacters, visualRendering, visualText } from './visual-order';

const run = promisify(execFile);

export type ReferenceKind = 'plain' | 'markdown';
export interface TextDoc {
  rel: string;
  file: string;
  reference: string;
  kind: ReferenceKind;
  pages: number;
}

/** Manifest rows with a whole-document text reference, chosen by gt_format. */
export async function textReferenceDocs(corpusDir: string): Promise<TextDoc[]> {
  const out: TextDoc[] = [];
  for (const m of (await readManifest(corpusDir)) as unknown as Array<Record<string, string>>) {
    const rel = m.local_path ?? '';
    const format = (m.gt_format ?? '').toLowerCase();
    const bornDigital = (m.kind ?? '').split(',').includes('a');
    if (!bornDigital || !rel.endsWith('.pdf')) continue;
    const refs = (m.ground_truth ?? '').split(';').filter(Boolean);
    let kind: ReferenceKind | undefined, ref: string | undefined;
    if (format.startsWith('plain text')) {
      kind = 'plain';
      ref = refs.find((r) => r.endsWith('.txt'));
    } else if (format.startsWith('markdown')) {
      kind = 'markdown';
      ref = refs.find((r) => r.endsWith('.md'));
    }
    if (!kind || !ref) continue;
    out.push({
      rel,
      file: path.join(corpusDir, rel),
      reference: path.join(corpusDir, ref),
      kind,
      pages: Number(m.pages) || 0,
    });
  }
  return out;
}

/** docling writes GLYPH<gNN> for glyphs without a Unicode mapping; no extractor can produce them. */
export const stripGlyphPlaceholders = (s: string) => s.replace(/GLYPH(?:&lt;|<)[^\s&>]*(?:&gt;|>)/g, '');

/** The benchmark's score, in percent, on normalised text. */
export function textScore(extracted: string, reference: string): number {
  return 100 * levenshteinRatio(normaliseMarkdown(extracted), normaliseMarkdown(reference));
}

/**
 * The whole document's text in reading order from grounding: the text of `result_md` plus the
 * running headers and footers it leaves out. Text drawn inside a figure (axis ticks, legends,
 * diagram labels) is not part of it, as it is not part of `result_md` (the figure's image stands
 * there; the text stays searchable in the figure's segment) nor of the references, which write
 * "[IMAGE]" or docling's image comment for a figure.
 */
export function groundingPlainText(g: GroundingDocument): string {
  const parts: string[] = [];
  for (const p of g.pages)
    for (const e of p.elements) {
      const t = elementPlainText(e);
      if (t) parts.push(t);
    }
  return parts.join('\n');
}

function elementPlainText(e: GroundingElement): string {
  if (e.type === 'figure') return '';
  if (e.type === 'table' && e.cells?.length) {
    const rows = new Map<number, GroundingElement['cells']>();
    for (const c of e.cells) if (c.text) rows.set(c.row, [...(rows.get(c.row) ?? []), c]);
    return [...rows.entries()]
      .sort((a, b) => a[0] - b[0])
      .map(([, cs]) =>
        cs!
          .sort((a, b) => a.col - b.col)
          .map((c) => c.text)
          .join(' '),
      )
      .join('\n');
  }
  return e.content ?? '';
}

export interface PeerResult {
  text?: string;
  seconds?: number;
  error?: string;
}
export interface PeerRun {
  available: Record<string, string | null>;
  results: Map<string, Record<string, PeerResult>>;
}

export const PEERS = ['pymupdf', 'pypdf', 'pdftotext'] as const;
export type Peer = (typeof PEERS)[number];

/** Python with the Debian peer packages: the system interpreter first (pyenv shims hide it). */
async function findPython(): Promise<string | undefined> {
  for (const py of ['/usr/bin/python3', 'python3']) {
    try {
      await run(py, ['-c', 'import sys']);
      return py;
    } catch {
      /* next */
    }
  }
  return undefined;
}

/** Runs the peer extractors over the files; a missing extractor is reported, never thrown. */
export async function runPeers(files: string[], scriptsDir: string): Promise<PeerRun> {
  const available: Record<string, string | null> = { pymupdf: null, pypdf: null, pdftotext: null };
  const results = new Map<string, Record<string, PeerResult>>(files.map((f) => [f, {}]));
  const py = await findPython();
  if (py) {
    for (const f of files) {
      try {
        const { stdout } = await run(py, [path.join(scriptsDir, 'text-peers.py'), f], { maxBuffer: 256 * 1024 * 1024 });
        const parsed = JSON.parse(stdout) as {
          libraries: Record<string, string | null>;
          results: Record<string, Record<string, PeerResult>>;
        };
        for (const [k, v] of Object.entries(parsed.libraries)) if (v) available[k] = v;
        Object.assign(results.get(f)!, parsed.results[f] ?? {});
      } catch (err) {
        for (const k of ['pymupdf', 'pypdf']) results.get(f)![k] = { error: (err as Error).message.split('\n')[0] };
      }
    }
  }
  let pdftotext: string | undefined;
  try {
    const { stderr, stdout } = await run('pdftotext', ['-v']);
    pdftotext = /pdftotext version ([\d.]+)/.exec(stderr + stdout)?.[1] ?? '?';
  } catch {
    pdftotext = undefined;
  }
  if (pdftotext) {
    available.pdftotext = pdftotext;
    for (const f of files) {
      const t0 = performance.now();
      try {
        const { stdout } = await run('pdftotext', ['-enc', 'UTF-8', f, '-'], { maxBuffer: 256 * 1024 * 1024 });
        results.get(f)!.pdftotext = { text: stdout, seconds: (performance.now() - t0) / 1000 };
      } catch (err) {
        results.get(f)!.pdftotext = { error: (err as Error).message.split('\n')[0] };
      }
    }
  }
  return { available, results };
}

export interface TextEvalRow {
  doc: string;
  kind: ReferenceKind;
  pages: number;
  docfleet: { score: number; secondsPerPage: number } | { error: string };
  peers: Partial<Record<Peer, { score: number; secondsPerPage: number } | { error: string }>>;
  /**
   * The reference writes right-to-left text in visual order: the scores above compare texts in
   * visual order (ours rendered line by line; `visualLines`: our lines found in our elements / page
   * lines in them), `asExtracted` the texts as extracted (ours in logical order) against it.
   */
  visualOrder?: {
    asExtracted: Partial<Record<'docfleet' | Peer, number>>;
    visualLines?: string;
    /** Characters of the normalised compared text and reference that the other lacks, order and whitespace aside (unsharedCharacters). */
    unshared: Partial<Record<'docfleet' | Peer, number>>;
  };
}

export async function evaluateText(
  corpusDir: string,
  parse: EvalParseFn,
  opts: { peers?: boolean; scriptsDir: string; log?: (s: string) => void; only?: (rel: string) => boolean },
): Promise<{ rows: TextEvalRow[]; available: Record<string, string | null> }> {
  const docs = (await textReferenceDocs(corpusDir)).filter((d) => !opts.only || opts.only(d.rel));
  const peerRun =
    opts.peers === false
      ? ({ available: {}, results: new Map() } as PeerRun)
      : await runPeers(
          docs.map((d) => d.file),
          opts.scriptsDir,
        );
  const rows: TextEvalRow[] = [];
  for (const d of docs) {
    const raw = await fs.readFile(d.reference, 'utf8');
    const reference = d.kind === 'markdown' ? stripGlyphPlaceholders(raw) : raw;
    const visual = isVisualOrder(reference);
    const row: TextEvalRow = { doc: d.rel, kind: d.kind, pages: d.pages, docfleet: { error: 'not run' }, peers: {} };
    if (visual) row.visualOrder = { asExtracted: {}, unshared: {} };
    try {
      const t0 = performance.now();
      const res = await parse(d.file, 'pdf', 'text');
      const seconds = (performance.now() - t0) / 1000;
      const pages = res.grounding.pages.length || d.pages || 1;
      row.pages = pages;
      const ours = d.kind === 'plain' ? groundingPlainText(res.grounding) : res.markdown;
      let compared = ours;
      if (row.visualOrder && !isVisualOrder(ours)) {
        const v = visualRendering(ours, res.grounding, await pageLines(d.file));
        compared = v.text;
        row.visualOrder.visualLines = `${v.linesFound}/${v.lines} lines in ${v.elements} elements${v.missed ? `, ${v.missed} not found` : ''}`;
      }
      row.docfleet = { score: textScore(compared, reference), secondsPerPage: seconds / pages };
      if (row.visualOrder) {
        row.visualOrder.asExtracted.docfleet = textScore(ours, reference);
        row.visualOrder.unshared.docfleet = unsharedCharacters(
          normaliseMarkdown(compared),
          normaliseMarkdown(reference),
        );
      }
    } catch (err) {
      row.docfleet = { error: (err as Error).message };
    }
    const peerResults = peerRun.results.get(d.file) ?? {};
    for (const p of PEERS) {
      const r = peerResults[p];
      if (!r) continue;
      const text = r.text !== undefined && row.visualOrder ? visualText(r.text) : r.text;
      row.peers[p] =
        text !== undefined
          ? { score: textScore(text, reference), secondsPerPage: (r.seconds ?? 0) / (row.pages || 1) }
          : { error: r.error ?? 'failed' };
      if (row.visualOrder && r.text !== undefined && text !== undefined) {
        row.visualOrder.asExtracted[p] = textScore(r.text, reference);
        row.visualOrder.unshared[p] = unsharedCharacters(normaliseMarkdown(text), normaliseMarkdown(reference));
      }
    }
    rows.push(row);
    opts.log?.(`scored ${d.rel}`);
  }
  return { rows, available: peerRun.available };
}

const scoreOf = (v: TextEvalRow['docfleet'] | undefined) => (v && 'score' in v ? v.score : undefined);

export function meanScore(rows: TextEvalRow[], who: 'docfleet' | Peer): number | undefined {
  const vs = rows
    .map((r) => scoreOf(who === 'docfleet' ? r.docfleet : r.peers[who]))
    .filter((v): v is number => v !== undefined);
  return vs.length ? vs.reduce((a, b) => a + b, 0) / vs.length : undefined;
}

/** Markdown report: one row per document (score and seconds per page for each extractor) and the means. */
export function textReport(
  rows: TextEvalRow[],
  available: Record<string, string | null>,
  groups: Array<{ name: string; test: (r: TextEvalRow) => boolean }> = [],
): string {
  const who = ['docfleet', ...PEERS] as const;
  const cell = (v: TextEvalRow['docfleet'] | undefined, peer?: string) => {
    if (peer && !available[peer]) return 'not installed';
    if (!v) return 'n/a';
    return 'score' in v
      ? `${v.score.toFixed(1)} (${v.secondsPerPage.toFixed(3)} s/p)`
      : `failed: ${v.error.slice(0, 60)}`;
  };
  const head = `| document | ref | pages | ${who.map((w) => (w === 'docfleet' ? 'docfleet' : `${w}${available[w] ? ` ${available[w]}` : ''}`)).join(' | ')} |`;
  const lines = [head, `|---|---|---:|${who.map(() => '---:').join('|')}|`];
  for (const r of rows)
    lines.push(
      `| ${r.doc} | ${r.kind} | ${r.pages} | ${cell(r.docfleet)} | ${PEERS.map((p) => cell(r.peers[p], p)).join(' | ')} |`,
    );
  const meanRow = (name: string, rs: TextEvalRow[]) =>
    `| **${name}** (${rs.length} docs) | | ${rs.reduce((s, r) => s + r.pages, 0)} | ${who
      .map((w) => {
        if (w !== 'docfleet' && !available[w]) return 'not installed';
        const m = meanScore(rs, w);
        return m === undefined ? 'n/a' : `**${m.toFixed(1)}**`;
      })
      .join(' | ')} |`;
  lines.push(meanRow('mean', rows));
  for (const g of groups) {
    const rs = rows.filter(g.test);
    if (rs.length && rs.length < rows.length) lines.push(meanRow(g.name, rs));
  }
  const visual = rows.filter((r) => r.visualOrder);
  if (visual.length) {
    lines.push(
      '',
      'References in visual order (right-to-left words written as displayed): the scores above compare texts in visual order, docfleet rendered line by line from its logical text, a peer line by line unless its output is in visual order already. The same texts as extracted (docfleet in logical order) against the reference as stored:',
    );
    for (const r of visual)
      lines.push(
        `- ${r.doc}: ${who
          .map(
            (w) =>
              `${w} ${r.visualOrder!.asExtracted[w] === undefined ? 'n/a' : r.visualOrder!.asExtracted[w]!.toFixed(1)}`,
          )
          .join(
            ', ',
          )}${r.visualOrder!.visualLines ? ` (docfleet's rendering: ${r.visualOrder!.visualLines})` : ''}; characters the compared text and the reference do not share, order and whitespace aside: ${who
          .map((w) => `${w} ${r.visualOrder!.unshared[w] ?? 'n/a'}`)
          .join(', ')}`,
      );
  }
  return lines.join('\n');
}
