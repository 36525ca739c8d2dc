// Evidence for the one-call workflows over a parse of any size (issue 17.5): classify, class
// suggestions and split-rule suggestions read the first pages a page-wise prompt can show
// (pagesWithinBudget), edit proposals and schema generation the segments a segment-wise prompt can
// show (renderSegments' budget), each streamed from the bundle instead of loading it whole. A
// document that fits its prompt is read entirely, so its evidence (and the model's answer) is what
// loadParseBundle gave; a larger one is cut where its prompt was cut already.
import type { GroundingDocument, GroundingPage, Segment } from '@docfleet/contracts';
import type { ArtifactManifest, Db, Tx } from '@docfleet/db';
import { ApiError } from '@docfleet/errors';
import {
  DEFAULT_CONTEXT_CHARS,
  buildEvidence,
  pagesWithinBudget,
  segmentBlock,
  segmentPage,
  type Evidence,
} from '@docfleet/models';
import { jsonArrayElements, type StorageDriver } from '@docfleet/storage';
import { newestParse, type LoadOptions } from './evidence';
import { groundingHead, openPageWindows } from './page-windows';

export interface LeadingPages {
  manifest: ArtifactManifest;
  /** Segments, grounding and page texts of pages 1..maxPages (all pages when there are fewer). */
  evidence: Evidence;
  /** Pages of the whole parse (as pageCountOf). */
  pageCount: number;
}

/**
 * The first `maxPages` pages of the newest parse (default: as many as renderPages fits in the default
 * budget), with grounding: segments.json and grounding.json are streamed and read no further than
 * those pages (plus one pass that counts grounding's pages and keeps nothing).
 */
export async function loadLeadingPages(
  db: Db | Tx,
  storage: StorageDriver,
  opts: Pick<LoadOptions, 'orgId' | 'fileVersionId' | 'missingCode'> & { maxPages?: number },
): Promise<LeadingPages> {
  const windows = await openPageWindows(db, storage, { ...opts, withGrounding: true });
  try {
    const last = Math.max(1, Math.min(windows.pageCount, opts.maxPages ?? pagesWithinBudget()));
    return { manifest: windows.manifest, evidence: await windows.read(1, last), pageCount: windows.pageCount };
  } finally {
    await windows.close();
  }
}

export interface BudgetedSegments {
  manifest: ArtifactManifest;
  /** The segments a prompt of `budgetChars` shows, in reading order (with grounding when asked). */
  evidence: Evidence;
  /** Segments asked for (every segment without segment ids), kept or not. */
  segmentCount: number;
  /** Pages of the parse: grounding's page count, else the last page a segment asked for sits on (as pageCountOf). */
  pageCount: number;
  /** Segments were left out: the budget was used before the last of them. */
  truncated: boolean;
}

/**
 * The segments of the newest parse that renderSegments shows within `budgetChars`, streamed from
 * segments.json: the segments are kept up to and including the first one past the budget (so
 * renderSegments cuts at the same place and says it cut), the rest only counted. With
 * `withGrounding`, grounding pages come along up to the last page kept (all of them when every
 * segment was kept); grounding's pages are counted either way, none held beyond those.
 */
export async function loadSegmentsWithin(
  db: Db | Tx,
  storage: StorageDriver,
  opts: Pick<LoadOptions, 'orgId' | 'fileVersionId' | 'missingCode' | 'segmentIds' | 'withGrounding'> & {
    budgetChars?: number;
  },
): Promise<BudgetedSegments> {
  const { manifest, code, missing, segKey, grKey } = await newestParse(db, opts);
  if (!(await storage.exists(segKey))) throw missing();
  const budget = opts.budgetChars ?? DEFAULT_CONTEXT_CHARS;
  const wanted = opts.segmentIds?.length ? new Set(opts.segmentIds) : null;
  const segments: Segment[] = [];
  let count = 0;
  let used = 0;
  let full = false;
  let lastPage = 0;
  let lastKeptPage = 0;
  try {
    for await (const el of jsonArrayElements(storage.readStream(segKey))) {
      const s = el as Segment;
      if (wanted && !wanted.has(s.id)) continue;
      count++;
      const page = segmentPage(s);
      lastPage = Math.max(lastPage, page);
      if (full) continue;
      segments.push(s);
      lastKeptPage = Math.max(lastKeptPage, page);
      used += segmentBlock(s).length;
      if (used > budget) full = true;
    }
  } catch {
    throw missing();
  }
  if (wanted && !count)
    throw new ApiError(code, 'None of the given segment_ids belong to the newest parse of this file.');
  const truncated = count > segments.length;

  let groundingPages = 0;
  let grounding: GroundingDocument | undefined;
  if (await storage.exists(grKey)) {
    const pages: GroundingPage[] = [];
    try {
      for await (const el of jsonArrayElements(storage.readStream(grKey), { at: 'pages' })) {
        const p = el as GroundingPage;
        groundingPages++;
        if (opts.withGrounding && (!truncated || p.page_number <= lastKeptPage)) pages.push(p);
      }
      if (opts.withGrounding) grounding = { ...(await groundingHead(storage, grKey)), pages };
    } catch {
      throw missing();
    }
  }
  return {
    manifest,
    evidence: buildEvidence(segments, grounding),
    segmentCount: count,
    pageCount: groundingPages || lastPage,
    truncated,
  };
}
