// PDFs and images: page-diff → parse (text 10→75, figures 75→95) → bundle → completed, or
// completed at stage `reused` when nothing changed.
import { startImageOcrHeadStart, startOcrHeadStart, type ImageOcrHeadStart, type OcrHeadStart } from '@docfleet/pdf';
import type { FinishOutcome } from '@docfleet/jobs';
import { budgetOf, completeIfUnchanged, diffStage, dispatchIfLong } from './document-diff';
import { bundleStage, completeStage, parseStage } from './document-pages';
import type { JobContext } from './job-context';
import { dispatchShards, hasShards } from './shards';

export { budgetOf, type FailedPageEntry } from './document-diff';

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

/**
 * The flow of a PDF or image parse, one stage after another; a stage that ends the job early returns its
 * outcome. Each stage is in document-diff.ts (before parsing) or document-pages.ts (parsing and after).
 */
async function parseDocumentFlow(
  ctx: JobContext,
  head: OcrHeadStart | undefined,
  imageHead: ImageOcrHeadStart | undefined,
): Promise<FinishOutcome | 'dispatched'> {
  const diff = await diffStage(ctx, head, imageHead); // page-diff (5)
  const reused = await completeIfUnchanged(ctx, diff); // reused: nothing changed, no credits
  if (reused) return reused;
  const dispatched = await dispatchIfLong(ctx, diff, head); // a long PDF: page-range shards
  if (dispatched) return dispatched;
  const parsed = await parseStage(ctx, diff, head, imageHead); // parse (10 → 75 text, 75 → 95 figures)
  const tParse = Date.now();
  const segmentCount = await bundleStage(ctx, diff, parsed); // bundle (95)
  return completeStage(ctx, diff, parsed, segmentCount, tParse); // completed
}
