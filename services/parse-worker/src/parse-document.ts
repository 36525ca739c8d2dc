// PDFs and images: page-diff → parse (text 10→75, figures 75→95) → bundle → completed, or
// completed at stage `reused` when nothing changed.
import fs from 'node:fs/promises';
import path from 'node:path';
import { BUNDLE, type Segment } from '@docfleet/contracts';
import {
  ParseError,
  assembleDocument,
  inspectDocument,
  pageBudget,
  parsePages,
  segmentsFromGrounding,
  startImageOcrHeadStart,
  startOcrHeadStart,
  type ImageOcrHeadStart,
  type OcrHeadStart,
  type PageBudget,
} from '@docfleet/pdf';
import { bundleReadable, pageResultName, writeJson, writeSegments, writeText, type PageResult } from './bundle';
import { pdfManifestHead } from './manifest-head';
import type { WorkerDeps } from './deps';
import { UnitCharger, type JobContext } from './job-context';
import { addJobEvent, completeParseJob, setParseProgress, type FinishOutcome } from '@docfleet/jobs';
import { diffPages, findPreviousParse, reusePage, samePositions, type ParseSettings } from './page-diff';
import { dispatchShards, hasShards } from './shards';

const range = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

/** The per-page budget from PARSE_PAGE_MAX_* (defaults when a test builds deps without them). */
export function budgetOf(env: WorkerDeps['env']): PageBudget {
  return pageBudget({
    maxOperators: env.PARSE_PAGE_MAX_OPERATORS,
    maxSeconds: env.PARSE_PAGE_MAX_SECONDS,
    maxMegapixels: env.PARSE_PAGE_MAX_MEGAPIXELS,
    maxPixels: env.PARSE_PAGE_MAX_PIXELS,
  });
}

/** A page the parser could not read within its budget: listed on the result and manifest, not charged. */
export interface FailedPageEntry {
  page_number: number;
  code: string;
  message: string;
}

export async function parseDocument(ctx: JobContext): Promise<FinishOutcome | 'dispatched'> {
  // A planning run redelivered after it split the job: only make sure every open shard is queued.
  if (ctx.kind === 'pdf' && (await hasShards(ctx.deps, ctx.job.id))) return dispatchShards(ctx, null);
  // An OCR parse of a PDF: page 1's raster and Tesseract start now, while the pages are hashed and
  // diffed; parsePages takes them over (a first parse always parses page 1), else they are dropped.
  const head =
    ctx.kind === 'pdf' && ctx.options.backend === 'ocr'
      ? startOcrHeadStart(ctx.deps.storage.localPath(ctx.version.storage_path), {
          timeoutSeconds: ctx.options.timeout_seconds,
          budget: budgetOf(ctx.deps.env),
        })
      : undefined;
  // An image always goes to OCR: Tesseract starts now and loads its model while the page is hashed.
  const imageHead =
    ctx.kind === 'image'
      ? startImageOcrHeadStart(ctx.deps.storage.localPath(ctx.version.storage_path), {
          timeoutSeconds: ctx.options.timeout_seconds,
        })
      : undefined;
  try {
    return await parseDocumentFlow(ctx, head, imageHead);
  } finally {
    await head?.dispose();
    await imageHead?.dispose();
  }
}

async function parseDocumentFlow(
  ctx: JobContext,
  head: OcrHeadStart | undefined,
  imageHead: ImageOcrHeadStart | undefined,
): Promise<FinishOutcome | 'dispatched'> {
  const { deps, job, file, version, options } = ctx;
  const kind = ctx.kind as 'pdf' | 'image';
  const db = deps.db;
  const src = deps.storage.localPath(version.storage_path);
  const t0 = Date.now();

  // ---- stage page-diff (5)
  await setParseProgress(db, job.id, { stage: 'page-diff', percent: 5 });
  await addJobEvent(
    db,
    job.id,
    'parse.page_diff.started',
    'page-diff',
    'Hashing pages and comparing them with the previous parse.',
  );
  // An image's decoded pixels are kept for the parse below (a single-page image is decoded once).
  // Inspection walks pages too (backend decision, fallback hashes): each within the page budget and
  // within the job's timeout_seconds; a page over it there just goes to OCR.
  const budget = budgetOf(deps.env);
  const inspect = await inspectDocument(src, kind, {
    maxPages: deps.env.MAX_PAGES,
    decideBackend: kind === 'pdf' && options.backend === 'auto',
    keepImage: kind === 'image',
    budget: { ...budget, maxSeconds: Math.min(budget.maxSeconds, options.timeout_seconds) },
  });
  // Images always go to OCR; `auto` follows inspectDocument's decision (docs/api.md, "Parse backend `auto`").
  const backend = kind === 'image' ? 'ocr' : options.backend === 'auto' ? inspect.backend.backend : options.backend;
  const pageImages = deps.pageImages !== false;
  const settings: ParseSettings = {
    backend,
    dpi: options.dpi,
    page_fallback_ocr: options.page_fallback_ocr,
    layout_device: options.layout_device,
    page_images: pageImages,
  };
  const prev = await findPreviousParse(db, deps.storage, file.id);
  const { changed, unchanged, sources } = await diffPages(prev, inspect.pageHashes, settings);
  const failedPages: FailedPageEntry[] = [];
  /** Parsed (and charged), but the page image was over the page budget. */
  const noImagePages: number[] = [];
  if (head && !changed.includes(1)) await head.dispose(); // page 1 is reused: stop its OCR now
  const pageCount = inspect.pageCount;
  await setParseProgress(db, job.id, { totalPages: pageCount, completedPages: 0 });
  await ctx.checkpoint();

  const tDiff = Date.now();
  const baseManifest = {
    page_count: pageCount,
    backend,
    backend_reasons: inspect.backend.reasons.slice(0, 10),
    parse_settings: settings,
  };
  if (
    !changed.length &&
    prev &&
    prev.pageCount === pageCount &&
    samePositions(sources) &&
    (await bundleReadable(prev.root, [BUNDLE.result_md, BUNDLE.grounding_json, BUNDLE.segments_json]))
  ) {
    // Nothing changed: a new manifest row for this version pointing at the previous bundle (no copy).
    await addJobEvent(
      db,
      job.id,
      'parse.reused',
      'page-diff',
      `No page changed since the previous parse; its artifacts are kept and no credits are used.`,
      { previous_manifest_id: prev.manifest.id },
    );
    const prevManifest = (prev.manifest.manifest ?? {}) as Record<string, unknown>;
    return completeParseJob(db, job.id, {
      stage: 'reused',
      pageCount,
      pageHashes: inspect.pageHashes,
      manifest: {
        id: ctx.manifestId,
        org_id: job.org_id,
        file_id: file.id,
        file_version_id: version.id,
        job_id: job.id,
        artifact_type: 'parse',
        storage_prefix: prev.manifest.storage_prefix,
        links: prev.manifest.links ?? {},
        manifest: {
          ...baseManifest,
          changed_pages: [],
          unchanged_pages: range(pageCount),
          segment_count: prevManifest.segment_count ?? null,
          reused_from_manifest_id: prev.manifest.id,
        },
      },
      result: {
        artifact_manifest_id: ctx.manifestId,
        page_count: pageCount,
        changed_pages: [],
        unchanged_pages: range(pageCount),
        backend,
        credits_charged: 0,
        reused: true,
      },
      timings: { page_diff: tDiff - t0 },
    });
  }

  // A long PDF: page-range shards that any parse worker takes (shards.ts); this run ends here.
  if (kind === 'pdf' && pageCount > (deps.env.PARSE_SHARD_PAGES ?? 32)) {
    await head?.dispose();
    return dispatchShards(ctx, {
      pageCount,
      backend,
      backendReasons: inspect.backend.reasons.slice(0, 10),
      settings,
      pageHashes: inspect.pageHashes,
      changed,
      unchanged,
      prevPrefix: unchanged.length ? prev!.manifest.storage_prefix : null,
      diffMs: tDiff - t0,
      plannedAt: t0,
    });
  }

  // ---- stage parse (10 → 75 text, 75 → 95 figures)
  await setParseProgress(db, job.id, {
    stage: 'parse',
    percent: 10,
    rawStatus: 'in_progress',
    completedPages: unchanged.length,
  });
  await addJobEvent(
    db,
    job.id,
    'parse.started',
    'parse',
    `Parsing ${changed.length} of ${pageCount} page(s) with the ${backend} backend${unchanged.length ? `; ${unchanged.length} unchanged page(s) reused` : ''}.`,
    {
      backend,
      backend_reasons: inspect.backend.reasons.slice(0, 10),
      changed_pages: changed,
      unchanged_pages: unchanged,
      // Unchanged pages that moved (page inserted or removed before them): new page → previous page.
      moved_pages: Object.fromEntries([...sources].filter(([n, from]) => n !== from)),
    },
  );
  // A redelivered job starts from a clean bundle: every file is rewritten under the same name.
  await fs.rm(ctx.outDir, { recursive: true, force: true });
  await fs.mkdir(ctx.outDir, { recursive: true });
  const results = new Map<number, PageResult>();
  for (const n of unchanged) {
    const r = await reusePage(prev!.root, ctx.outDir, n, sources.get(n));
    results.set(n, r);
    await writeJson(path.join(ctx.outDir, BUNDLE.page_results, pageResultName(n)), r);
  }

  const charger = new UnitCharger(db, ctx, 'page');
  const warnings: Array<{ page_number: number; code: string; message: string }> = [];
  if (changed.length) {
    let written = 10;
    const parsed = await parsePages({
      path: src,
      kind,
      backend,
      outDir: ctx.outDir,
      pageNumbers: changed,
      dpi: options.dpi,
      renderPages: pageImages,
      pageFallbackOcr: options.page_fallback_ocr,
      timeoutSeconds: options.timeout_seconds,
      maxPages: deps.env.MAX_PAGES,
      budget,
      onProgress: async (done, total, phase, page) => {
        // A page over its budget is not charged (it may still fail later, in the figures phase: see below).
        if (phase === 'text' && page && !page.failed) {
          charger.add(page.pageNumber);
          await charger.maybeFlush();
        }
        const pct = Math.floor(phase === 'text' ? 10 + (65 * done) / total : 75 + (20 * done) / total);
        if (pct > written) {
          written = pct;
          await setParseProgress(db, job.id, { percent: pct });
        }
      },
      shouldCancel: ctx.shouldStop,
      ocrHeadStart: head,
      imageOcrHeadStart: imageHead,
      decodedImage: inspect.decodedImage,
    });
    await charger.flush();
    for (const p of parsed.pages) {
      const r: PageResult = {
        page_number: p.pageNumber,
        grounding: p.grounding,
        markdown: p.markdown,
        files: p.files,
        source: p.source,
        ...(p.ocr ? { ocr: p.ocr } : {}),
      };
      results.set(p.pageNumber, r);
      await writeJson(path.join(ctx.outDir, BUNDLE.page_results, pageResultName(p.pageNumber)), r);
      if (p.ocr) {
        const o = p.ocr;
        await addJobEvent(
          db,
          job.id,
          'parse.ocr_page',
          'parse',
          `Page ${p.pageNumber}: OCR read ${o.chosen}${o.tried.length > 1 ? ` (best of ${o.tried.map((t) => t.name).join(', ')})` : ''}${o.paper ? '; scanner border cropped' : ''}${o.rulesRemoved ? `; ${o.rulesRemoved} separator rule(s) removed` : ''}.`,
          { page_number: p.pageNumber, ...o },
        );
        for (const w of o.warnings) {
          warnings.push({ page_number: p.pageNumber, ...w });
          await addJobEvent(db, job.id, 'parse.warning', 'parse', w.message, {
            page_number: p.pageNumber,
            code: w.code,
          });
        }
      }
      if (p.failed) failedPages.push({ page_number: p.pageNumber, code: p.failed.code, message: p.failed.message });
      else if (p.noImage) noImagePages.push(p.pageNumber);
    }
    if (failedPages.length && failedPages.length === changed.length && !unchanged.length) {
      // Nothing of the document could be read: a failed job (nothing charged) rather than an empty result.
      throw new ParseError(
        'page_too_complex',
        pageCount === 1
          ? failedPages[0]!.message
          : `Every page is over the page budget (the first: ${failedPages[0]!.message.replace(/\.$/, '')}).`,
        { pageNumber: failedPages[0]!.page_number },
      );
    }
    for (const f of failedPages) {
      await addJobEvent(
        db,
        job.id,
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
  const tParse = Date.now();

  // ---- bundle
  const ordered = [...results.values()].sort((a, b) => a.page_number - b.page_number);
  if (ordered.length !== pageCount) {
    throw new ParseError(
      'no_artifacts',
      `The parser finished without expected artifacts: ${ordered.length} of ${pageCount} page(s) came back.`,
    );
  }
  const { grounding, markdown } = assembleDocument(
    file.filename,
    kind,
    ordered.map((r) => r.grounding),
    ordered.map((r) => r.markdown),
    backend,
    { pageCount },
  );
  await writeText(path.join(ctx.outDir, BUNDLE.result_md), markdown);
  await writeJson(path.join(ctx.outDir, BUNDLE.grounding_json), grounding);
  const segments: Segment[] = segmentsFromGrounding(grounding, {
    fileId: file.id,
    docName: file.filename,
    manifestId: ctx.manifestId,
    sourceType: kind,
  });
  const segmentCount = await writeSegments(ctx.outDir, segments);
  const pngs = await fs.readdir(path.join(ctx.outDir, BUNDLE.pages)).catch(() => [] as string[]);
  if (
    pageImages &&
    pngs.filter((n) => n.endsWith('.png')).length < pageCount - failedPages.length - noImagePages.length
  ) {
    throw new ParseError(
      'no_artifacts',
      `The parser finished without expected artifacts: ${pngs.length} of ${pageCount} page image(s) were written.`,
    );
  }
  await setParseProgress(db, job.id, { percent: 95 });

  return completeParseJob(db, job.id, {
    stage: 'completed',
    pageCount,
    pageHashes: inspect.pageHashes,
    manifest: {
      ...(await pdfManifestHead(ctx, pageImages)),
      manifest: {
        ...baseManifest,
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
      backend,
      credits_charged: changed.length - failedPages.length,
      reused: false,
      failed_pages: failedPages,
      // Pages that completed with a problem the caller should see (an image with ink but no text read).
      ...(warnings.length ? { warnings } : {}),
    },
    timings: { page_diff: tDiff - t0, parse: tParse - tDiff, bundle: Date.now() - tParse },
  });
}
