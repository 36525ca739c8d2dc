/**
 * Resource limits. Defaults let a ~200 MB ordinary workbook through while refusing archives built to
 * exhaust memory or time. Every check happens before the expensive step it protects: zip sizes and
 * ratios are read from the central directory before anything is inflated, and cells are counted as
 * they stream in.
 */
export interface SheetLimits {
  /** Non-empty cells across the whole workbook. Empty-but-styled cells are not counted. */
  maxCells: number;
  /** Sum of the declared uncompressed sizes of all zip entries. */
  maxUncompressedBytes: number;
  /** Largest uncompressed/compressed ratio for one entry (applies to entries over `ratioFloorBytes`). */
  maxCompressionRatio: number;
  /** Entries smaller than this are exempt from the ratio check (tiny XML parts compress well). */
  ratioFloorBytes: number;
  /** Zip entries in the archive. */
  maxZipEntries: number;
  /** Worksheets in one workbook. */
  maxSheets: number;
  /** Bytes of one CSV file. */
  maxCsvBytes: number;
  /** Characters in one CSV record (an unterminated quote would otherwise swallow the whole file). */
  maxCsvRecordChars: number;
}

export const DEFAULT_SHEET_LIMITS: Readonly<SheetLimits> = Object.freeze({
  maxCells: 10_000_000,
  maxUncompressedBytes: 1024 * 1024 * 1024,
  maxCompressionRatio: 200,
  ratioFloorBytes: 10 * 1024 * 1024,
  maxZipEntries: 10_000,
  maxSheets: 1_000,
  maxCsvBytes: 512 * 1024 * 1024,
  maxCsvRecordChars: 4 * 1024 * 1024,
});

export function resolveLimits(overrides?: Partial<SheetLimits>): SheetLimits {
  const limits = { ...DEFAULT_SHEET_LIMITS, ...(overrides ?? {}) };
  for (const [key, value] of Object.entries(limits)) {
    if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
      throw new TypeError(`sheet limit ${key} must be a positive number, got ${String(value)}`);
    }
  }
  return limits;
}
