import { redactDetail } from '@docfleet/errors';
import { countPages } from '@docfleet/pdf';
import { inspectSpreadsheet } from '@docfleet/sheets';
import { isSpreadsheetKind, parseInputKind } from '@docfleet/contracts';
import type { StorageDriver } from '@docfleet/storage';
import type { Logger } from '@docfleet/logger';

export interface UnitEstimate {
  unit: 'pages' | 'sheets';
  /** What the reservation holds: at least 1. */
  units: number;
  /** Why the estimate fell back to 1 (unreadable file, over the page limit). */
  note?: string;
}

/**
 * Pages (PDF page tree, image frames) or sheets (workbook.xml) to reserve for a parse. The
 * estimate reads structure only, never content. A file the estimate cannot read, or one over
 * MAX_PAGES, holds 1 credit: the worker then fails it with the precise reason and charges nothing,
 * which tells the caller more than a 402 would.
 */
export async function estimateUnits(
  deps: { storage: StorageDriver; logger?: Logger },
  version: { storage_path: string; content_type: string; original_filename: string },
  maxPages: number,
): Promise<UnitEstimate> {
  const kind = parseInputKind(version.content_type);
  const unit = kind && isSpreadsheetKind(kind) ? 'sheets' : 'pages';
  if (!kind) return { unit, units: 1, note: 'unsupported content type' };
  const file = deps.storage.localPath(version.storage_path);
  try {
    const n = isSpreadsheetKind(kind)
      ? (await inspectSpreadsheet(file, kind, { filename: version.original_filename })).sheetCount
      : await countPages(file, kind);
    if (n > maxPages) return { unit, units: 1, note: `over the page limit (${n} > ${maxPages})` };
    return { unit, units: Math.max(1, n) };
  } catch (err) {
    deps.logger?.debug({ err: (err as Error).message }, 'parse estimate: file not readable, holding 1 credit');
    // The note goes on the job.queued event: the reader's message without paths or frames (docs/errors.md).
    return { unit, units: 1, note: redactDetail((err as Error).message) };
  }
}
