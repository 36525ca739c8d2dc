// Stages of parseDocumentFlow before any page is parsed: page-diff (5), reuse of an unchanged
// document, and the hand-off of a long PDF to page-range shards.
import { BUNDLE } from '@docfleet/contracts';
import {
  inspectDocument,
  pageBudget,
  type ImageOcrHeadStart,
  type InspectResult,
  type OcrHeadStart,
  type PageBudget,
} from '@docfleet/pdf';
import { addJobEvent, completeParseJob, setParseProgress, type FinishOutcome } from '@docfleet/jobs';
import { bundleReadable } from './bundle';
import type { WorkerDeps } from './deps';
import type { JobContext } from './job-context';
import { reusedManifestHead } from './manifest-head';
import { diffPages, findPreviousParse, samePositions, type ParseSettings, type PreviousParse } from './page-diff';
import { dispatchShards } from './shards';

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

/** What the page-diff stage learnt: the later stages read it, none change it. */
export interface PageDiff {
  kind: 'pdf' | 'image';
  src: string;
  budget: PageBudget;
  inspect: InspectResult;
  backend: ParseSettings['backend'];
  pageImages: boolean;
  settings: ParseSettings;
  prev: PreviousParse | null;
  changed: number[];
  unchanged: number[];
  /** Unchanged page → its page number in the previous parse. */
  sources: Map<number, number>;
  pageCount: number;
  /** The manifest fields every outcome shares. */
  baseManifest: {
    page_count: number;
    backend: ParseSettings['backend'];
    backend_reasons: string[];
    parse_settings: ParseSettings;
  };
  t0: number;
  tDiff: number;
}

/**
 * Stage page-diff (5): inspect and hash the pages (within the page budget and the job's timeout) and
 * compare them with the previous parse of the file. Drops page 1's OCR head start when page 1 is reused.
 */
export async function diffStage(
  ctx: JobContext,
  head: OcrHeadStart | undefined,
  imageHead?: ImageOcrHeadStart,
): Promise<PageDiff> {
  const { deps, job, file, version, options } = ctx;
  const kind = ctx.kind as 'pdf' | 'image';
  const db = deps.db;
  const src = deps.storage.localPath(version.storage_path);
  const t0 = Date.now();
  // The previous parse is looked up while the pages are inspected (neither needs the other).
  const prevQuery = findPreviousParse(db, deps.storage, file.id);
  prevQuery.catch(() => undefined); // awaited below; a failed inspection must not leave it unhandled
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
    // The image head start decodes page 1 as the job starts: hashed here rather than decoded again.
    ...(imageHead ? { decodedPage1: imageHead.decodedPage } : {}),
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
  const prev = await prevQuery;
  const { changed, unchanged, sources } = await diffPages(prev, inspect.pageHashes, settings);
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
  return {
    kind,
    src,
    budget,
    inspect,
    backend,
    pageImages,
    settings,
    prev,
    changed,
    unchanged,
    sources,
    pageCount,
    baseManifest,
    t0,
    tDiff,
  };
}

/**
 * Stage reused: when no page changed and the previous bundle is still readable, completes the job with a
 * new manifest row for this version pointing at the previous bundle (no copy, no credits). Else null.
 */
export async function completeIfUnchanged(ctx: JobContext, d: PageDiff): Promise<FinishOutcome | null> {
  const { prev, pageCount } = d;
  if (
    d.changed.length ||
    !prev ||
    prev.pageCount !== pageCount ||
    !samePositions(d.sources) ||
    !(await bundleReadable(prev.root, [BUNDLE.result_md, BUNDLE.grounding_json, BUNDLE.segments_json]))
  ) {
    return null;
  }
  const { deps, job } = ctx;
  await addJobEvent(
    deps.db,
    job.id,
    'parse.reused',
    'page-diff',
    `No page changed since the previous parse; its artifacts are kept and no credits are used.`,
    { previous_manifest_id: prev.manifest.id },
  );
  const prevManifest = (prev.manifest.manifest ?? {}) as Record<string, unknown>;
  return completeParseJob(deps, job.id, {
    stage: 'reused',
    pageCount,
    pageHashes: d.inspect.pageHashes,
    manifest: {
      ...reusedManifestHead(ctx, prev.manifest),
      manifest: {
        ...d.baseManifest,
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
      backend: d.backend,
      credits_charged: 0,
      reused: true,
    },
    timings: { page_diff: d.tDiff - d.t0 },
  });
}

/**
 * A long PDF (over PARSE_SHARD_PAGES): page-range shards that any parse worker takes (shards.ts), and this
 * run ends here ('dispatched'). Else null: the pages are parsed in this run.
 */
export async function dispatchIfLong(
  ctx: JobContext,
  d: PageDiff,
  head: OcrHeadStart | undefined,
): Promise<'dispatched' | null> {
  if (d.kind !== 'pdf' || d.pageCount <= (ctx.deps.env.PARSE_SHARD_PAGES ?? 32)) return null;
  await head?.dispose();
  return dispatchShards(ctx, {
    pageCount: d.pageCount,
    backend: d.backend,
    backendReasons: d.inspect.backend.reasons.slice(0, 10),
    settings: d.settings,
    pageHashes: d.inspect.pageHashes,
    changed: d.changed,
    unchanged: d.unchanged,
    prevPrefix: d.unchanged.length ? d.prev!.manifest.storage_prefix : null,
    diffMs: d.tDiff - d.t0,
    plannedAt: d.t0,
  });
}
