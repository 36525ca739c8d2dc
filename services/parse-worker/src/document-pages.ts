// Stages of parseDocumentFlow after the page-diff: parse the changed pages (text 10→75, figures 75→95),
// assemble the bundle, and complete the job.
import fs from 'node:fs/promises';
import path from 'node:path';
import { BUNDLE, type Segment } from '@docfleet/contracts';
import {
  ParseError,
  assembleDocument,
  parsePages,
  segmentsFromGrounding,
  textLayerEvent,
  ocrLanguageEvent,
  missingLanguageWarning,
  type ImageOcrHeadStart,
  type OcrHeadStart,
  type ParsedPage,
} from '@docfleet/pdf';
import { addJobEvent, completeParseJob, setParseProgress, type FinishOutcome } from '@docfleet/jobs';
import {
  pageResultName,
  pageResultOf,
  pageWarnings,
  writeJson,
  writeSegments,
  writeText,
  type PageResult,
} from './bundle';
import type { FailedPageEntry, PageDiff } from './document-diff';
import { UnitCharger, type JobContext } from './job-context';
import { pdfManifestHead } from './manifest-head';
import { reusePage } from './page-diff';

type PageWarning = { page_number: number; code: string; message: string };

/** What the parse stage produced: a result for every page, and the pages that had a problem. */
export interface ParsedPages {
  results: Map<number, PageResult>;
  failedPages: FailedPageEntry[];
  /** Parsed (and charged), but the page image was over the page budget. */
  noImagePages: number[];
  warnings: PageWarning[];
}

/**
 * Stage parse (10 → 75 text, 75 → 95 figures): starts from a clean bundle, copies the unchanged pages'
 * results from the previous parse, then parses, charges and records the changed pages.
 */
export async function parseStage(
  ctx: JobContext,
  d: PageDiff,
  head: OcrHeadStart | undefined,
  imageHead: ImageOcrHeadStart | undefined,
): Promise<ParsedPages> {
  await startParseStage(ctx, d);
  const out: ParsedPages = { results: new Map(), failedPages: [], noImagePages: [], warnings: [] };
  for (const n of d.unchanged) {
    const r = await reusePage(d.prev!.root, ctx.outDir, n, d.sources.get(n));
    out.results.set(n, r);
    await writeJson(path.join(ctx.outDir, BUNDLE.page_results, pageResultName(n)), r);
  }
  if (d.changed.length) {
    const parsed = await parseChangedPages(ctx, d, head, imageHead);
    for (const p of parsed.pages) await recordPage(ctx, p, out);
    failIfNothingRead(d, out.failedPages);
    for (const f of out.failedPages) {
      await addJobEvent(
        ctx.deps.db,
        ctx.job.id,
        'parse.page_failed',
        'parse',
        `Page ${f.page_number} was not parsed: ${f.message}`,
        {
          page: f.page_number,
          code: f.code,
        },
      );
    }
  }
  await ctx.checkpoint();
  return out;
}

/** Progress to stage parse, the parse.started event, and an empty bundle directory. */
async function startParseStage(ctx: JobContext, d: PageDiff): Promise<void> {
  const { deps, job } = ctx;
  const { changed, unchanged, backend } = d;
  await setParseProgress(deps.db, job.id, {
    stage: 'parse',
    percent: 10,
    rawStatus: 'in_progress',
    completedPages: unchanged.length,
  });
  await addJobEvent(
    deps.db,
    job.id,
    'parse.started',
    'parse',
    `Parsing ${changed.length} of ${d.pageCount} page(s) with the ${backend} backend${unchanged.length ? `; ${unchanged.length} unchanged page(s) reused` : ''}.`,
    {
      backend,
      backend_reasons: d.inspect.backend.reasons.slice(0, 10),
      changed_pages: changed,
      unchanged_pages: unchanged,
      // Unchanged pages that moved (page inserted or removed before them): new page → previous page.
      moved_pages: Object.fromEntries([...d.sources].filter(([n, from]) => n !== from)),
    },
  );
  // A redelivered job starts from a clean bundle: every file is rewritten under the same name.
  await fs.rm(ctx.outDir, { recursive: true, force: true });
  await fs.mkdir(ctx.outDir, { recursive: true });
}

/** Runs the parser over the changed pages, charging each page as its text is read and reporting progress. */
async function parseChangedPages(
  ctx: JobContext,
  d: PageDiff,
  head: OcrHeadStart | undefined,
  imageHead: ImageOcrHeadStart | undefined,
) {
  const { deps, job, options } = ctx;
  const charger = new UnitCharger(deps.db, ctx, 'page');
  let written = 10;
  const parsed = await parsePages({
    path: d.src,
    kind: d.kind,
    backend: d.backend,
    outDir: ctx.outDir,
    pageNumbers: d.changed,
    dpi: options.dpi,
    renderPages: d.pageImages,
    pageFallbackOcr: options.page_fallback_ocr,
    timeoutSeconds: options.timeout_seconds,
    maxPages: deps.env.MAX_PAGES,
    budget: d.budget,
    ocrHeaderReread: deps.env.PARSE_OCR_HEADER_REREAD ?? false,
    ocrBodyReread: deps.env.PARSE_OCR_BODY_REREAD ?? false,
    ocrCellReread: deps.env.PARSE_OCR_CELL_REREAD ?? true,
    onProgress: async (done, total, phase, page) => {
      // A page over its budget is not charged (it may still fail later, in the figures phase: see recordPage).
      if (phase === 'text' && page && !page.failed) {
        charger.add(page.pageNumber);
        await charger.maybeFlush();
      }
      const pct = Math.floor(phase === 'text' ? 10 + (65 * done) / total : 75 + (20 * done) / total);
      if (pct > written) {
        written = pct;
        await setParseProgress(deps.db, job.id, { percent: pct });
      }
    },
    shouldCancel: ctx.shouldStop,
    ocrHeadStart: head,
    imageOcrHeadStart: imageHead,
    decodedImage: d.inspect.decodedImage,
  });
  await charger.flush();
  return parsed;
}

/** Writes one parsed page's result, its OCR events and warnings, and notes whether it failed or has no image. */
async function recordPage(ctx: JobContext, p: ParsedPage, out: ParsedPages): Promise<void> {
  const r = pageResultOf(p);
  out.results.set(p.pageNumber, r);
  await writeJson(path.join(ctx.outDir, BUNDLE.page_results, pageResultName(p.pageNumber)), r);
  for (const w of pageWarnings(r)) out.warnings.push({ page_number: p.pageNumber, ...w });
  await pageEvents(ctx, r);
  if (p.failed) out.failedPages.push({ page_number: p.pageNumber, code: p.failed.code, message: p.failed.message });
  else if (p.noImage) out.noImagePages.push(p.pageNumber);
}

/** The events of one stored page, sharded or not: its OCR report and warnings, and its text layer's use. */
export async function pageEvents(ctx: JobContext, r: PageResult): Promise<void> {
  const db = ctx.deps.db;
  const n = r.page_number;
  if (r.ocr) {
    const o = r.ocr;
    await addJobEvent(
      db,
      ctx.job.id,
      'parse.ocr_page',
      'parse',
      `Page ${n}: OCR read ${o.chosen}${o.tried.length > 1 ? ` (best of ${o.tried.map((t) => t.name).join(', ')})` : ''}${o.paper ? '; scanner border cropped' : ''}${o.rulesRemoved ? `; ${o.rulesRemoved} separator rule(s) removed` : ''}.`,
      { page_number: n, ...o },
    );
    for (const w of o.warnings)
      await addJobEvent(db, ctx.job.id, 'parse.warning', 'parse', w.message, { page_number: n, code: w.code });
  }
  if (r.text_layer) {
    const e = textLayerEvent(n, r.text_layer);
    await addJobEvent(db, ctx.job.id, 'parse.text_layer', 'parse', e.message, e.payload);
  }
  if (r.ocr_language) {
    const e = ocrLanguageEvent(n, r.ocr_language);
    await addJobEvent(db, ctx.job.id, 'parse.ocr_language', 'parse', e.message, e.payload);
    const w = missingLanguageWarning(n, r.ocr_language);
    if (w) await addJobEvent(db, ctx.job.id, 'parse.warning', 'parse', w.message, { page_number: n, code: w.code });
  }
}

/** Nothing of the document could be read: a failed job (nothing charged) rather than an empty result. */
function failIfNothingRead(d: PageDiff, failedPages: FailedPageEntry[]): void {
  if (!failedPages.length || failedPages.length !== d.changed.length || d.unchanged.length) return;
  throw new ParseError(
    'page_too_complex',
    d.pageCount === 1
      ? failedPages[0]!.message
      : `Every page is over the page budget (the first: ${failedPages[0]!.message.replace(/\.$/, '')}).`,
    { pageNumber: failedPages[0]!.page_number },
  );
}

/**
 * Stage bundle: the document's markdown, grounding and segments from the page results, after checking every
 * page (and every expected page image) came back. Returns the segment count.
 */
export async function bundleStage(ctx: JobContext, d: PageDiff, parsed: ParsedPages): Promise<number> {
  const { file } = ctx;
  const { pageCount } = d;
  const ordered = [...parsed.results.values()].sort((a, b) => a.page_number - b.page_number);
  if (ordered.length !== pageCount) {
    throw new ParseError(
      'no_artifacts',
      `The parser finished without expected artifacts: ${ordered.length} of ${pageCount} page(s) came back.`,
    );
  }
  const { grounding, markdown } = assembleDocument(
    file.filename,
    d.kind,
    ordered.map((r) => r.grounding),
    ordered.map((r) => r.markdown),
    d.backend,
    { pageCount },
  );
  await writeText(path.join(ctx.outDir, BUNDLE.result_md), markdown);
  await writeJson(path.join(ctx.outDir, BUNDLE.grounding_json), grounding);
  const segments: Segment[] = segmentsFromGrounding(grounding, {
    fileId: file.id,
    docName: file.filename,
    manifestId: ctx.manifestId,
    sourceType: d.kind,
  });
  const segmentCount = await writeSegments(ctx.outDir, segments);
  const pngs = await fs.readdir(path.join(ctx.outDir, BUNDLE.pages)).catch(() => [] as string[]);
  const expectedImages = pageCount - parsed.failedPages.length - parsed.noImagePages.length;
  if (d.pageImages && pngs.filter((n) => n.endsWith('.png')).length < expectedImages) {
    throw new ParseError(
      'no_artifacts',
      `The parser finished without expected artifacts: ${pngs.length} of ${pageCount} page image(s) were written.`,
    );
  }
  await setParseProgress(ctx.deps.db, ctx.job.id, { percent: 95 });
  return segmentCount;
}

/** Stage completed: the manifest row, the job's result (credits = changed pages that were read) and timings. */
export async function completeStage(
  ctx: JobContext,
  d: PageDiff,
  parsed: ParsedPages,
  segmentCount: number,
  tParse: number,
): Promise<FinishOutcome> {
  const { changed, unchanged, pageCount } = d;
  const { failedPages, noImagePages, warnings } = parsed;
  return completeParseJob(ctx.deps, ctx.job.id, {
    stage: 'completed',
    pageCount,
    pageHashes: d.inspect.pageHashes,
    manifest: {
      ...(await pdfManifestHead(ctx, d.pageImages)),
      manifest: {
        ...d.baseManifest,
        changed_pages: changed,
        unchanged_pages: unchanged,
        segment_count: segmentCount,
        failed_pages: failedPages,
        pages_without_image: noImagePages,
        ...(warnings.length ? { warnings } : {}),
      },
    },
    result: {
      artifact_manifest_id: ctx.manifestId,
      page_count: pageCount,
      changed_pages: changed,
      unchanged_pages: unchanged,
      backend: d.backend,
      credits_charged: changed.length - failedPages.length,
      reused: false,
      failed_pages: failedPages,
      // Pages that completed with a problem the caller should see (an image with ink but no text read).
      ...(warnings.length ? { warnings } : {}),
    },
    timings: { page_diff: d.tDiff - d.t0, parse: tParse - d.tDiff, bundle: Date.now() - tParse },
  });
}
