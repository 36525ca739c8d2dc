// Spreadsheets (.xlsx, .csv): page-diff (whole-file hash) → parse-spreadsheet (10 → 95, per sheet)
// → completed, or `reused` when the bytes are those of the previous parse. Billed 1 credit per sheet.
import fs from 'node:fs/promises';
import { BUNDLE } from '@docfleet/contracts';
import {
  SheetParseError,
  inspectSpreadsheet,
  iterateSheetSegments,
  parseSpreadsheet,
  spreadsheetManifestFields,
} from '@docfleet/sheets';
import { bundleReadable, writeSegments } from './bundle';
import { CancelSignal, UnitCharger, type JobContext } from './job-context';
import { reusedManifestHead } from './manifest-head';
import { addJobEvent, completeParseJob, setParseProgress, type FinishOutcome } from '@docfleet/jobs';
import { findPreviousParse } from './page-diff';

export async function parseSheets(ctx: JobContext): Promise<FinishOutcome> {
  const { deps, job, file, version } = ctx;
  const kind = ctx.kind as 'xlsx' | 'csv';
  const db = deps.db;
  const src = deps.storage.localPath(version.storage_path);

  // ---- stage page-diff: a workbook has no stable pages, so the whole file is the unit of change.
  await setParseProgress(db, job.id, { stage: 'page-diff', percent: 5 });
  await addJobEvent(
    db,
    job.id,
    'parse.page_diff.started',
    'page-diff',
    'Comparing the workbook with the previous parse.',
  );
  const inspection = await inspectSpreadsheet(src, kind, { filename: file.filename });
  const sheetCount = inspection.sheetCount;
  await setParseProgress(db, job.id, { totalPages: sheetCount, completedPages: 0 });
  const prev = await findPreviousParse(db, deps.storage, file.id);
  await ctx.checkpoint();
  if (
    prev?.spreadsheet &&
    prev.sha256 === version.sha256 &&
    (await bundleReadable(prev.root, [
      BUNDLE.result_md,
      BUNDLE.grounding_json,
      BUNDLE.workbook_json,
      BUNDLE.tables_json,
      BUNDLE.segments_json,
    ]))
  ) {
    await addJobEvent(
      db,
      job.id,
      'parse.reused',
      'page-diff',
      'The workbook is unchanged since the previous parse; its artifacts are kept and no credits are used.',
      { previous_manifest_id: prev.manifest.id },
    );
    return completeParseJob(deps, job.id, {
      stage: 'reused',
      pageCount: sheetCount,
      manifest: {
        ...reusedManifestHead(ctx, prev.manifest),
        manifest: {
          ...((prev.manifest.manifest ?? {}) as Record<string, unknown>),
          reused_from_manifest_id: prev.manifest.id,
        },
      },
      result: { artifact_manifest_id: ctx.manifestId, sheet_count: sheetCount, credits_charged: 0, reused: true },
    });
  }

  // ---- stage parse-spreadsheet (10 → 95)
  await setParseProgress(db, job.id, { stage: 'parse-spreadsheet', percent: 10, rawStatus: 'in_progress' });
  await addJobEvent(db, job.id, 'parse.started', 'parse-spreadsheet', `Parsing ${sheetCount} sheet(s).`, {
    sheet_count: sheetCount,
    sheet_names: inspection.sheetNames.slice(0, 100),
  });
  await fs.rm(ctx.outDir, { recursive: true, force: true });
  await fs.mkdir(ctx.outDir, { recursive: true });

  // The parser's callbacks are synchronous: debits and progress are chained, and cancellation is a
  // flag refreshed from the database in the background.
  const charger = new UnitCharger(db, ctx, 'sheet');
  let chain: Promise<void> = Promise.resolve();
  let chainError: unknown;
  let stop = false;
  let stopError: unknown;
  const poll = setInterval(() => {
    ctx.shouldStop().then(
      (s) => {
        stop ||= s;
      },
      (err) => {
        stopError = err;
        stop = true;
      },
    );
  }, 300);
  let result;
  try {
    result = await parseSpreadsheet({
      path: src,
      kind,
      filename: file.filename,
      outDir: ctx.outDir,
      onProgress: (done, total) => {
        if (done < 1) return;
        chain = chain
          .then(async () => {
            charger.add(done);
            await charger.flush();
            await setParseProgress(db, job.id, { percent: 10 + (85 * done) / Math.max(1, total) });
          })
          .catch((err) => {
            chainError = err;
            stop = true;
          });
      },
      shouldCancel: () => stop,
    });
  } catch (err) {
    await chain;
    if (chainError) throw chainError;
    if (stopError) throw stopError;
    if (err instanceof SheetParseError && err.code === 'cancelled') throw new CancelSignal();
    throw err;
  } finally {
    clearInterval(poll);
  }
  await chain;
  if (chainError) throw chainError;
  // Every sheet is billed once, also those the progress callback did not report.
  for (let n = 1; n <= result.sheetCount; n++) charger.add(n);
  await charger.flush();
  await ctx.checkpoint();

  const segmentCount = await writeSegments(
    ctx.outDir,
    iterateSheetSegments(result, { fileId: file.id, docName: file.filename, manifestId: ctx.manifestId }),
  );
  await setParseProgress(db, job.id, { percent: 95 });
  return completeParseJob(deps, job.id, {
    stage: 'completed',
    pageCount: result.sheetCount,
    manifest: {
      id: ctx.manifestId,
      org_id: job.org_id,
      file_id: file.id,
      file_version_id: version.id,
      job_id: job.id,
      artifact_type: 'parse',
      storage_prefix: ctx.prefix,
      links: {
        result_md: BUNDLE.result_md,
        grounding_json: BUNDLE.grounding_json,
        workbook_json: BUNDLE.workbook_json,
        tables_json: BUNDLE.tables_json,
        pages: null,
        imgs: null,
        result_json: null,
      },
      manifest: {
        ...spreadsheetManifestFields(result.sheetCount, segmentCount),
        warnings: result.warnings.slice(0, 20),
      },
    },
    result: {
      artifact_manifest_id: ctx.manifestId,
      sheet_count: result.sheetCount,
      segment_count: segmentCount,
      credits_charged: result.sheetCount,
      reused: false,
    },
  });
}
