/**
 * The one error type of the API. Domain code throws ApiError('file_not_found', ...); the gateway's
 * single error middleware turns it into { error, code, message?, request_id } with the status
 * from CODE_STATUS. Codes are a wire contract: never rename one.
 */
export const CODE_STATUS = {
  // 400
  confirmation_required: 400,
  invalid_request_body: 400,
  invalid_request: 400,
  file_id_is_required: 400,
  schema_is_required: 400,
  unsupported_model: 400,
  classes_required: 400,
  invalid_page_range: 400,
  invalid_metadata: 400,
  empty_file: 400,
  invalid_webhook_url: 400,
  // 401
  invalid_api_key: 401,
  unauthenticated: 401,
  invalid_credentials: 401,
  // 402
  insufficient_credits: 402,
  monthly_quota_exceeded: 402,
  reserved_credits_exhausted: 402,
  // 403
  api_key_org_mismatch: 403,
  permission_required: 403,
  knowledge_base_access_denied: 403,
  invalid_artefact_child_path: 403,
  org_access_denied: 403,
  // 404
  route_not_found: 404,
  knowledge_base_not_found: 404,
  folder_not_found: 404,
  file_not_found: 404,
  job_not_found: 404,
  operation_not_found: 404,
  schema_not_found: 404,
  artefact_manifest_not_found: 404,
  artefact_not_found: 404,
  api_key_not_found: 404,
  proposal_not_found: 404,
  webhook_not_found: 404,
  webhook_delivery_not_found: 404,
  // 409
  duplicate_knowledge_base_name: 409,
  duplicate_folder_name: 409,
  duplicate_filename: 409,
  file_has_active_job: 409,
  file_must_be_parsed: 409,
  file_must_be_parsed_before_extraction: 409,
  idempotency_conflict: 409,
  // 413 / 415 / 422 / 429
  request_too_large: 413,
  file_too_large: 413,
  unsupported_file_type: 415,
  unsupported_media_type: 415,
  invalid_schema: 422,
  rate_limited: 429,
  // 5xx
  internal_error: 500,
  model_call_failed: 502,
  model_provider_unavailable: 503,
  service_unavailable: 503,
  storage_unavailable: 503,
  insufficient_storage: 507,
} as const;

export type ErrorCode = keyof typeof CODE_STATUS;

export class ApiError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly extra: { message?: string; headers?: Record<string, string>; details?: unknown } = {},
  ) {
    super(message);
    this.name = 'ApiError';
    this.status = CODE_STATUS[code];
  }
}

export function isApiError(err: unknown): err is ApiError {
  return err instanceof ApiError;
}

export interface ErrorEnvelope {
  error: string;
  code: string;
  message?: string;
  request_id?: string;
  details?: unknown;
}

export function toEnvelope(err: ApiError, requestId?: string): ErrorEnvelope {
  const env: ErrorEnvelope = { error: err.message, code: err.code };
  if (err.extra.message) env.message = err.extra.message;
  if (err.extra.details !== undefined) env.details = err.extra.details;
  if (requestId) env.request_id = requestId;
  return env;
}

/** Keeps at most the last n characters (job.failed tracebacks keep the last 4000). */
export function tail(text: string, n = 4000): string {
  return text.length > n ? text.slice(text.length - n) : text;
}

// What a job or operation failure may show its caller: a stable code and a sentence of ours. Tool
// output (stderr), file-system paths and stack frames stay in the log (issue 19): they tell an
// attacker about the host and a user nothing they can act on.
const STACK_FRAME = /^\s*at\s.*$/;
// Absolute paths of two or more segments (/tmp/docfleet-pdf-x/r1, /work/data/kb/file.pdf, C:\x\y).
const ABS_PATH = /(?:[A-Za-z]:\\(?:[^\\\s'"`]+\\)+[^\\\s'"`]*|(?<![\w.])\/(?:[\w.@+~-]+\/)+[\w.@+~-]*)/g;

/** Removes stack frames and replaces absolute paths by `<path>`. */
export function redactDetail(text: string): string {
  return text
    .split('\n')
    .filter((line) => !STACK_FRAME.test(line))
    .join('\n')
    .replace(ABS_PATH, '<path>')
    .trim();
}

/**
 * The traceback a `job.failed` event carries: the error's name, code and message, redacted, without
 * its causes (a cause may be a tool's own error text) and without stack frames. The whole error,
 * stack and causes included, is for the log.
 */
export function publicTraceback(err: unknown): string {
  if (!(err instanceof Error)) return redactDetail(String(err));
  const code = (err as { code?: unknown }).code;
  return redactDetail(`${err.name}${typeof code === 'string' ? ` [${code}]` : ''}: ${err.message}`);
}
