// One typed error for everything the library refuses to parse. The worker maps `code` to a job
// failure reason; `permanent` tells it whether a retry could help (a corrupt file never heals).
// Messages are ours and name no tool, path or tool output: the worker shows them to the API caller
// (the cause, kept on `cause`, goes to the log only).

export type ParseErrorCode =
  | 'corrupt_pdf'
  | 'invalid_pdf'
  | 'encrypted_pdf'
  | 'not_a_pdf'
  | 'unsupported_image'
  | 'too_many_pages'
  | 'page_timeout'
  | 'no_artifacts'
  | 'cancelled'
  | 'ocr_failed'
  | 'render_failed'
  | 'page_too_complex';

const PERMANENT: ReadonlySet<ParseErrorCode> = new Set<ParseErrorCode>([
  'corrupt_pdf',
  'invalid_pdf',
  'encrypted_pdf',
  'not_a_pdf',
  'unsupported_image',
  'too_many_pages',
  'no_artifacts',
  'page_too_complex',
]);

export class ParseError extends Error {
  readonly code: ParseErrorCode;
  readonly permanent: boolean;
  readonly pageNumber?: number;

  constructor(code: ParseErrorCode, message: string, opts: { pageNumber?: number; cause?: unknown } = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'ParseError';
    this.code = code;
    this.permanent = PERMANENT.has(code);
    this.pageNumber = opts.pageNumber;
  }
}

export function isParseError(err: unknown): err is ParseError {
  return err instanceof ParseError;
}
