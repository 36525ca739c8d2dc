// `pnpm exec tsx bench/eval/ocr-vs-text.ts [corpusDir] [--only a,b] [--skip a,b] [--no-icdar] [--json out.json]`:
// issue 21's target "every shared born-digital document forced through backend "ocr" scores within
// 2 points of backend "text" on text and within 0.05 on table cell accuracy". Every born-digital row
// with a text reference (eval:text's rows, chosen by gt_format) and the ICDAR-2013 table pages (the
// pages their -str.xml describes) are parsed twice with this library, once per backend, and scored
// with eval:text's and eval:parse's own code: the text score (Levenshtein ratio, eval:text) of each
// backend against the reference and of OCR's text against the text backend's; ICDAR cell accuracy
// (eval:parse) per table; on the papers, which have no table truth, the text backend's tables are
// the truth for OCR's (cell accuracy of the best OCR table on the same page). Run it under nice with
// OMP_THREAD_LIMIT=1: OCR of every page takes minutes. Pages get 600 s each (the service's 120 s
// would fail pages of a loaded machine; this measures what is read, not how fast).
import fs from 'node:fs/promises';
import path from 'node:path';
import type { GroundingDocument, GroundingElement } from '../../libs/contracts/src';
import { evalIcdar, readManifest, type ParsedForEval } from '../../libs/pdf/eval/corpus-eval';
import { libraryParsePages } from '../../libs/pdf/eval/library-parse';
import { layerLeadsPage, layerReadsPage, type TextLayerUse } from '../../libs/pdf/src/ocr/text-layer-words';
import { parseIcdarStructure } from '../../libs/pdf/eval/metrics/icdar-xml';
import { cellAccuracy, type OurCell } from '../../libs/pdf/eval/metrics/table-accuracy';
import {
  groundingPlainText,
  stripGlyphPlaceholders,
  textReferenceDocs,
  textScore,
} from '../../libs/pdf/eval/text-eval';

const ROOT = path.resolve(__dirname, '../..');
const PAGE_SECONDS = 600;

interface Row {
  doc: string;
  half: 'papers and book' | 'docling and ICDAR';
  pages: number;
  /** Text score against the reference (none for ICDAR pages). */
  text?: number;
  ocr?: number;
  /** OCR's text scored against the text backend's. */
  ocrVsText: number;
  /** Per table: cell accuracy of each backend (ICDAR: against its truth; papers: OCR against text's tables). */
  cells: Array<{ text: number; ocr: number }>;
  tables: { text: number; ocr: number };
  layer: string;
  seconds: { text: number; ocr: number };
  error?: string;
}

const tablesOf = (g: GroundingDocument) =>
  g.pages.flatMap((p) =>
    p.elements.filter((e) => e.type === 'table' && e.cells?.length).map((e) => ({ page: p.page_number, e })),
  );
const cellsOf = (t: GroundingElement): OurCell[] =>
  (t.cells ?? []).map((c) => ({ row: c.row, col: c.col, rowSpan: c.rowSpan, colSpan: c.colSpan, text: c.text }));

/** The text backend's tables as truth: each one's best cell accuracy among OCR's tables on its page. */
function cellsAgainstText(text: GroundingDocument, ocr: GroundingDocument): Array<{ text: number; ocr: number }> {
  const theirs = tablesOf(ocr);
  return tablesOf(text).map(({ page, e }) => {
    const truth = (e.cells ?? []).filter((c) => c.text.trim()).map((c) => ({ row: c.row, col: c.col, text: c.text }));
    const scores = theirs.filter((t) => t.page === page).map((t) => cellAccuracy(truth, cellsOf(t.e)).accuracy);
    return { text: 1, ocr: Math.max(0, ...scores) };
  });
}

function layerSummary(r: Awaited<ReturnType<typeof libraryParsePages>>): string {
  const used = r.textLayer.filter((u) => u?.used).length;
  const ignored = r.textLayer.filter((u) => u && !u.used);
  const agreements = r.textLayer.filter((u) => u).map((u) => u!.agreement);
  const min = agreements.length ? Math.min(...agreements).toFixed(2) : 'n/a';
  const laidOut = r.textLayer.filter((u) => layerReadsPage(u)).length;
  const inFigures = r.textLayer.reduce((n, u) => n + (u?.figureWords ?? 0), 0);
  // The pages not read from the layer alone, each with the share of OCR's words the layer holds:
  // laid out from the layer with OCR's words where it has none, kept in OCR's layout, or ignored.
  const pageNumbers = r.grounding.pages.map((p) => p.page_number);
  const page = (u: TextLayerUse | undefined, i: number) =>
    !u || layerReadsPage(u)
      ? []
      : [
          `p${pageNumbers[i]} ${u.used ? `${u.covered}/${u.words} words${layerLeadsPage(u) ? ' + OCR words' : " OCR's layout"}` : `ignored ${u.agreement.toFixed(2)}`}`,
        ];
  const kept = r.textLayer.flatMap(page);
  return `layer ${used}/${r.textLayer.length} pages (${laidOut} laid out from it${inFigures ? `; ${inFigures} OCR words in its figures` : ''})${ignored.length ? `, ${ignored.length} ignored` : ''}, min agreement ${min}${kept.length ? `; ${kept.join(', ')}` : ''}`;
}

async function timed<T>(f: () => Promise<T>): Promise<[T, number]> {
  const t0 = performance.now();
  const v = await f();
  return [v, (performance.now() - t0) / 1000];
}

async function main(argv: string[]): Promise<number> {
  const opt = (name: string) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : undefined);
  const list = (name: string) => (opt(name) ?? '').split(',').filter(Boolean);
  const only = list('--only'),
    skip = list('--skip');
  const jsonOut = opt('--json');
  const valued = new Set(['--only', '--skip', '--json'].map((n) => argv.indexOf(n) + 1).filter((i) => i > 0));
  const positional = argv.filter((a, i) => !a.startsWith('--') && !valued.has(i));
  const corpus = path.resolve(positional[0] ?? path.resolve(ROOT, '../shared/corpus'));
  const wanted = (rel: string) =>
    (!only.length || only.some((o) => rel.includes(o))) && !skip.some((s) => rel.includes(s));
  const log = (s: string) => process.stderr.write(`${s}\n`);
  const rows: Row[] = [];

  for (const d of (await textReferenceDocs(corpus)).filter((x) => wanted(x.rel))) {
    const raw = await fs.readFile(d.reference, 'utf8');
    const reference = d.kind === 'markdown' ? stripGlyphPlaceholders(raw) : raw;
    const plain = (r: ParsedForEval) => (d.kind === 'plain' ? groundingPlainText(r.grounding) : r.markdown);
    try {
      const [t, ts] = await timed(() => libraryParsePages(d.file, 'pdf', 'text', undefined, PAGE_SECONDS));
      const [o, os] = await timed(() => libraryParsePages(d.file, 'pdf', 'ocr', undefined, PAGE_SECONDS));
      rows.push({
        doc: d.rel,
        half: d.kind === 'plain' ? 'papers and book' : 'docling and ICDAR',
        pages: t.grounding.pages.length,
        text: textScore(plain(t), reference),
        ocr: textScore(plain(o), reference),
        ocrVsText: textScore(plain(o), plain(t)),
        cells: cellsAgainstText(t.grounding, o.grounding),
        tables: { text: tablesOf(t.grounding).length, ocr: tablesOf(o.grounding).length },
        layer: layerSummary(o),
        seconds: { text: ts, ocr: os },
      });
    } catch (err) {
      rows.push(failed(d.rel, 'papers and book', err));
    }
    log(`done ${JSON.stringify(rows.at(-1))}`);
  }

  if (!argv.includes('--no-icdar'))
    for (const m of await readManifest(corpus)) {
      const rel = m.local_path;
      if (!rel.startsWith('b_tables/icdar2013/') || !rel.endsWith('.pdf') || !wanted(rel)) continue;
      const file = path.join(corpus, rel);
      const str = file.replace(/\.pdf$/, '-str.xml');
      const structure = parseIcdarStructure(await fs.readFile(str, 'utf8').catch(() => ''));
      if (!structure.length) continue;
      const pages = [...new Set(structure.map((s) => s.page))].sort((a, b) => a - b);
      try {
        const [t, ts] = await timed(() => libraryParsePages(file, 'pdf', 'text', pages, PAGE_SECONDS));
        const [o, os] = await timed(() => libraryParsePages(file, 'pdf', 'ocr', pages, PAGE_SECONDS));
        const cells = async (r: ParsedForEval) =>
          (await evalIcdar(file, rel, r, () => undefined)).filter((x) => x.metric === 'cell_accuracy');
        const [ct, co] = [await cells(t), await cells(o)];
        rows.push({
          doc: rel,
          half: 'docling and ICDAR',
          pages: pages.length,
          ocrVsText: textScore(groundingPlainText(o.grounding), groundingPlainText(t.grounding)),
          cells: ct.map((c, i) => ({ text: c.value, ocr: co[i]?.value ?? 0 })),
          tables: { text: tablesOf(t.grounding).length, ocr: tablesOf(o.grounding).length },
          layer: layerSummary(o),
          seconds: { text: ts, ocr: os },
        });
      } catch (err) {
        rows.push(failed(rel, 'docling and ICDAR', err));
      }
      log(`done ${JSON.stringify(rows.at(-1))}`);
    }

  console.log(report(rows));
  if (jsonOut) await fs.writeFile(jsonOut, JSON.stringify(rows, null, 2));
  return rows.some((r) => r.error) ? 1 : 0;
}

function failed(doc: string, half: Row['half'], err: unknown): Row {
  return {
    doc,
    half,
    pages: 0,
    ocrVsText: NaN,
    cells: [],
    tables: { text: 0, ocr: 0 },
    layer: '',
    seconds: { text: 0, ocr: 0 },
    error: (err as Error).message,
  };
}

const f1 = (v?: number) => (v === undefined || Number.isNaN(v) ? '' : v.toFixed(1));
const f3 = (v: number) => v.toFixed(3);
const mean = (vs: number[]) => (vs.length ? vs.reduce((a, b) => a + b, 0) / vs.length : NaN);

/** A document misses the target when OCR is > 2 points under text, or any table > 0.05 cells under. */
const misses = (r: Row) =>
  !!r.error ||
  (r.text !== undefined && r.ocr !== undefined && r.ocr < r.text - 2) ||
  r.cells.some((c) => c.ocr < c.text - 0.05);

function report(rows: Row[]): string {
  const lines = [
    '| document | pages | text: vs ref | OCR: vs ref | OCR vs text output | tables text / OCR | cells text → OCR | OCR s/page | text layer | target |',
    '|---|---:|---:|---:|---:|---:|---|---:|---|---|',
  ];
  for (const r of rows)
    lines.push(
      r.error
        ? `| ${r.doc} | | | | | | | | failed: ${r.error.slice(0, 80)} | miss |`
        : `| ${r.doc} | ${r.pages} | ${f1(r.text)} | ${f1(r.ocr)} | ${f1(r.ocrVsText)} | ${r.tables.text} / ${r.tables.ocr} | ${r.cells.map((c) => `${c.text.toFixed(2)}→${c.ocr.toFixed(2)}`).join(', ')} | ${(r.seconds.ocr / (r.pages || 1)).toFixed(1)} | ${r.layer} | ${misses(r) ? 'miss' : 'ok'} |`,
    );
  lines.push('');
  for (const half of ['papers and book', 'docling and ICDAR', undefined] as const) {
    const rs = rows.filter((r) => !r.error && (!half || r.half === half));
    if (!rs.length) continue;
    const scored = rs.filter((r) => r.text !== undefined);
    const cells = rs.flatMap((r) => r.cells);
    lines.push(
      `- ${half ?? 'all'}: ${rs.length} documents, ${rs.filter((r) => !misses(r)).length} within target; text vs ref ${f1(mean(scored.map((r) => r.text!)))} (text) / ${f1(mean(scored.map((r) => r.ocr!)))} (OCR); OCR vs text output ${f1(mean(rs.map((r) => r.ocrVsText)))}; ${cells.length} tables, mean cells ${f3(mean(cells.map((c) => c.text)))} (text) / ${f3(mean(cells.map((c) => c.ocr)))} (OCR)`,
    );
  }
  return lines.join('\n');
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
