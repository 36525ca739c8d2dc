/**
 * Every way a spreadsheet can be refused. The parse worker records `code` and `message` on the job
 * and treats all of them as permanent (retrying the same bytes gives the same answer), except
 * `cancelled`, which it maps to the cancelled state. Codes are a contract with the worker: never
 * rename one.
 */
export type SheetErrorCode =
  | 'zip_bomb'
  | 'password_protected'
  | 'corrupt_spreadsheet'
  | 'not_a_spreadsheet'
  | 'unsupported_format'
  | 'too_many_cells'
  | 'too_many_sheets'
  | 'empty_spreadsheet'
  | 'cancelled';

export class SheetParseError extends Error {
  readonly code: SheetErrorCode;
  /** Machine-readable detail (sizes, limits, entry names) for logs and job events. */
  readonly details: Record<string, unknown>;

  constructor(
    code: SheetErrorCode,
    message: string,
    details: Record<string, unknown> = {},
    options?: { cause?: unknown },
  ) {
    super(`${code}: ${message}`, options);
    this.name = 'SheetParseError';
    this.code = code;
    this.details = details;
  }
}

export function isSheetParseError(err: unknown): err is SheetParseError {
  return err instanceof SheetParseError;
}

/** Wraps an unknown failure from a third-party reader (saxes, zlib, csv-parse) as a typed error. */
export function asSheetParseError(err: unknown, code: SheetErrorCode, context: string): SheetParseError {
  if (err instanceof SheetParseError) return err;
  const reason = err instanceof Error ? err.message : String(err);
  return new SheetParseError(code, `${context}: ${reason}`, {}, { cause: err });
}
