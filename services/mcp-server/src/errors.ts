// Turns any failure inside a tool into a tool result an agent can act on: the HTTP status, method,
// path, stable code and message, plus a next step for the codes an agent can do something about.
// Every text passes through redact() with the API key, even though the SDK already scrubs it: error
// text ends up in agent transcripts and logs, so the key must never reach it by any route.
import { DocfleetApiError, DocfleetRequestError, DocfleetTimeoutError } from '@docfleet/sdk';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/** A problem found by the tool itself before or after calling the API (bad local path, no parse yet). */
export class ToolInputError extends Error {
  constructor(
    message: string,
    readonly code = 'invalid_tool_input',
  ) {
    super(message);
    this.name = 'ToolInputError';
  }
}

const HINTS: Record<string, string> = {
  invalid_api_key: 'SERVICE_API_KEY is wrong, revoked or expired; ask an organisation admin for a new key.',
  file_not_found: 'Check the file id with service_list_files or service_kb_index (deleted files are not found).',
  job_not_found: 'Both ids are needed: the file_id and the job_id returned by service_parse_file or service_extract.',
  operation_not_found: 'Use the operation_id returned by the queued tool (split, extract run, schema generation).',
  schema_not_found: 'List saved schemas with service_list_schemas.',
  file_must_be_parsed:
    'Parse the file first with service_parse_file and wait until service_job_status reports completed.',
  file_must_be_parsed_before_extraction:
    'Parse the current version first with service_parse_file and wait until service_job_status reports completed.',
  insufficient_credits: 'The organisation has too few credits; check service_credits.',
  monthly_quota_exceeded: 'The monthly credit quota would be exceeded; check service_credits.',
  duplicate_filename:
    'A live file with this name already exists in that folder; delete it first or upload a copy under another name.',
  duplicate_knowledge_base_name:
    'A knowledge base with this name exists (names compare case-insensitively); find it with service_list_knowledge_bases.',
  file_has_active_job: "Wait until the file's parse or extract job has finished (service_job_status), then retry.",
  unsupported_file_type: 'No parser handles this file type; upload PDF, PNG/JPEG, XLSX or CSV.',
  file_too_large: 'The gateway refused the upload as too large.',
  model_provider_unavailable: 'No model is configured or reachable on the server; an operator must configure one.',
  unsupported_model: 'The requested model is not available on this deployment.',
  rate_limited: 'Too many requests; wait and retry.',
  route_not_found: 'This gateway does not serve the endpoint (it may be an older release).',
};

function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) if (s) out = out.split(s).join('[redacted]');
  return out;
}

/** The structured part of a tool error (also rendered as the first line of text). */
export interface ToolErrorInfo {
  status?: number;
  method?: string;
  path?: string;
  code: string;
  message: string;
  request_id?: string;
  hint?: string;
}

export function describeError(err: unknown, baseUrl: string): ToolErrorInfo {
  if (err instanceof DocfleetApiError) {
    const message =
      err.serverMessage && err.serverMessage !== err.error ? `${err.error} (${err.serverMessage})` : err.error;
    return {
      status: err.status,
      method: err.method,
      path: err.path,
      code: err.code,
      message,
      request_id: err.requestId,
      hint: HINTS[err.code],
    };
  }
  if (err instanceof DocfleetRequestError) {
    const hint =
      err.code === 'network_error' ? `Is the docfleet gateway running at ${baseUrl}? (SERVICE_BASE_URL)` : undefined;
    return {
      method: err.method,
      path: err.path,
      code: err.code,
      message: err.message.replace(`${err.method} ${err.path} -> ${err.code}: `, ''),
      hint,
    };
  }
  if (err instanceof DocfleetTimeoutError) return { code: err.code, message: err.message };
  if (err instanceof ToolInputError) return { code: err.code, message: err.message };
  return { code: 'internal_error', message: err instanceof Error ? err.message : String(err) };
}

/** `POST /v1/files/…/parse -> HTTP 402 insufficient_credits: …` then the hint, then the JSON. */
export function toolErrorResult(err: unknown, secrets: readonly string[], baseUrl: string): CallToolResult {
  const info = describeError(err, baseUrl);
  const where = info.method && info.path ? `${info.method} ${info.path} -> ` : '';
  const status = info.status !== undefined ? `HTTP ${info.status} ` : '';
  const lines = [`${where}${status}${info.code}: ${info.message}`];
  if (info.hint) lines.push(info.hint);
  lines.push(JSON.stringify({ error: info }));
  return { isError: true, content: [{ type: 'text', text: redact(lines.join('\n'), secrets) }] };
}

export { redact };
