import type { ParseInputKind } from '@docfleet/contracts';
import { Counter, type Registry } from '@docfleet/runtime';

/** The parse worker's own metrics (queue-level job metrics come from createWorker). */
export interface ParseMetrics {
  /** A parse.file run ended with this outcome (completed, failed, cancelled, skipped, missing). */
  jobFinished(outcome: string): void;
  /** Units of a completed parse: pages (PDF, image) or sheets (xlsx, csv), parsed or reused. */
  units(kind: ParseInputKind, parsed: number, reused: number): void;
}

export function createParseMetrics(registry: Registry): ParseMetrics {
  const jobs = new Counter({
    name: 'docfleet_parse_jobs_total',
    help: 'parse.file runs by the outcome written to the job row',
    labelNames: ['outcome'],
    registers: [registry],
  });
  const pages = new Counter({
    name: 'docfleet_parse_pages_total',
    help: 'Pages (sheets for xlsx/csv) of completed parses, by input kind and whether they were parsed or reused from the previous parse',
    labelNames: ['kind', 'result'],
    registers: [registry],
  });
  return {
    jobFinished: (outcome) => jobs.inc({ outcome }),
    units(kind, parsed, reused) {
      if (parsed) pages.inc({ kind, result: 'parsed' }, parsed);
      if (reused) pages.inc({ kind, result: 'reused' }, reused);
    },
  };
}

/** Parsed and reused units from a completed job's `result` (documents list pages; spreadsheets count sheets). */
export function unitsOfResult(result: unknown): { parsed: number; reused: number } {
  const r = (result ?? {}) as {
    changed_pages?: unknown[];
    unchanged_pages?: unknown[];
    sheet_count?: number;
    reused?: boolean;
  };
  if (Array.isArray(r.changed_pages) || Array.isArray(r.unchanged_pages))
    return { parsed: r.changed_pages?.length ?? 0, reused: r.unchanged_pages?.length ?? 0 };
  const sheets = r.sheet_count ?? 0;
  return r.reused ? { parsed: 0, reused: sheets } : { parsed: sheets, reused: 0 };
}
