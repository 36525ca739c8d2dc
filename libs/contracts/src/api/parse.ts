// Parse jobs, job events, credit reservations and artifact manifests (docs/api.md: Resources, States,
// Credits; the served OpenAPI document). The gateway validates with these and generates OpenAPI;
// the parse worker reads the normalised options it stored on the job.
import { z } from 'zod';
import { JsonObject, Timestamp, Uuid } from './common';

/**
 * Parse options. Two named backends besides `auto`: `text` (the PDF text layer, with per-page OCR
 * fallback when `page_fallback_ocr`) and `ocr` (Tesseract on every page). Unknown keys are refused,
 * so a typo cannot silently change the idempotency key or be ignored.
 */
export const ParseOptions = z
  .object({
    backend: z
      .enum(['auto', 'text', 'ocr'])
      .default('auto')
      .describe('auto (spec rule), text (text layer) or ocr (Tesseract)'),
    dpi: z.number().int().min(72).max(600).default(150).describe('page image and pixel_bbox resolution'),
    layout_device: z
      .enum(['auto', 'cpu'])
      .default('auto')
      .describe('layout analysis runs on the CPU in this build; auto means cpu'),
    page_fallback_ocr: z.boolean().default(true).describe('text backend: OCR pages whose text layer is unusable'),
    timeout_seconds: z
      .number()
      .int()
      .min(1)
      .max(3600)
      .default(120)
      .describe('limit per page; a page over it fails the job'),
  })
  .strict();
export type ParseOptions = z.output<typeof ParseOptions>;

export const ParseBody = z.object({
  options: ParseOptions.optional(),
  idempotency_key: z.string().trim().min(1).max(200).optional(),
});
export const ParseBulkBody = ParseBody.extend({ file_ids: z.array(Uuid).min(1).max(1000) });

export const JobStatus = z.enum(['queued', 'running', 'completed', 'failed', 'cancelled']);
export type JobStatus = z.infer<typeof JobStatus>;
export const JobKind = z.enum(['parse', 'extract']);
export type JobKind = z.infer<typeof JobKind>;

export const Job = z.object({
  job_id: Uuid,
  file_id: Uuid,
  file_version_id: Uuid,
  status: JobStatus,
  raw_status: z.string().describe('stored value; started and in_progress read as running'),
  kind: JobKind,
  stage: z
    .string()
    .nullable()
    .describe(
      'parse: page-diff, parse (or parse-spreadsheet), completed, reused; extract: load-parse, build-evidence, extract, validate, write-artifacts',
    ),
  percent: z.number().int().describe('0-100, never goes back'),
  total_pages: z.number().int().nullable(),
  completed_pages: z.number().int(),
  error: z.string().nullable(),
  error_code: z
    .string()
    .nullable()
    .describe('stable failure code when failed (docs/errors.md, Job failures); null otherwise'),
  result: JsonObject.nullable().describe(
    'what a completed job produced: parse (artifact_manifest_id, page_count, changed_pages, unchanged_pages, backend, credits_charged, reused) or extract (extraction_result_id, artifact_manifest_id, validation_errors)',
  ),
  options: JsonObject,
  idempotency_key: z.string(),
  created_at: Timestamp,
  started_at: Timestamp.nullable(),
  cancel_requested_at: Timestamp.nullable(),
  completed_at: Timestamp.nullable(),
  updated_at: Timestamp,
  retry_of_job_id: Uuid.optional().describe('the failed or cancelled job this one retries'),
});
export type Job = z.infer<typeof Job>;

export const CreditReservation = z.object({
  id: Uuid,
  amount_credits: z.number().int(),
  debited_credits: z.number().int(),
  status: z.enum(['reserved', 'committed', 'released', 'failed', 'cancelled']),
  created_at: Timestamp,
  finalized_at: Timestamp.nullable(),
});
export type CreditReservation = z.infer<typeof CreditReservation>;

export const ParseUsage = z.object({
  unit: z.enum(['pages', 'sheets']),
  estimated_units: z.number().int().describe('pages (or sheets) the reservation was sized for'),
  reserved_credits: z.number().int(),
  debited_credits: z.number().int(),
});
export type ParseUsage = z.infer<typeof ParseUsage>;

export const ParseResponse = z.object({
  job: Job,
  usage: ParseUsage,
  credit_reservation: CreditReservation.nullable(),
  idempotency_key: z.string(),
  idempotent: z.boolean(),
  retry_of_job_id: Uuid.optional(),
});
export type ParseResponse = z.infer<typeof ParseResponse>;
export const ParseBulkResponse = z.object({
  jobs: z.array(z.object({ job: Job, credit_reservation: CreditReservation.nullable() })),
});

export const JobEnvelope = z.object({ job: Job });
export const JobList = z.object({ jobs: z.array(Job) });
export const JobEventPayload = z
  .object({
    code: z.string().optional().describe('job.failed: the stable failure code'),
    traceback: z.string().optional().describe('job.failed: the last 4000 characters'),
  })
  .catchall(z.unknown());
export const JobEvent = z.object({
  event_type: z.string(),
  message: z.string(),
  stage: z.string().nullable(),
  payload: JobEventPayload,
  created_at: Timestamp,
});
export type JobEvent = z.infer<typeof JobEvent>;
export const JobEvents = z.object({ events: z.array(JobEvent) });
export const ClearFailedJobsResponse = z.object({
  cleaned: z.number().int(),
  cleaned_job_ids: z.array(Uuid),
  cleaned_kinds: z.array(JobKind),
});

const Link = z.string().nullable();
/** API paths of a manifest's artifacts (null when the manifest has none of that kind). */
export const ArtifactLinks = z.object({
  result_md: Link,
  grounding_json: Link,
  result_json: Link,
  workbook_json: Link,
  tables_json: Link,
  pages: Link,
  imgs: Link,
});
export type ArtifactLinks = z.infer<typeof ArtifactLinks>;

/** What a parse manifest records about the pages (PDFs and images). */
export const ParseManifestInfo = z.object({
  page_count: z.number().int(),
  changed_pages: z.array(z.number().int()).describe('pages parsed by this job'),
  unchanged_pages: z.array(z.number().int()).describe('pages reused from the previous parse'),
});
/** What a spreadsheet parse manifest records. */
export const SpreadsheetManifestInfo = z.object({
  unit: z.literal('sheets'),
  source_type: z.literal('spreadsheet'),
  segment_count: z.number().int(),
});

export const ArtifactManifest = z.object({
  id: Uuid,
  file_id: Uuid,
  file_version_id: Uuid,
  job_id: Uuid.nullable(),
  artifact_type: z.enum(['parse', 'extract']),
  manifest: z
    .object({
      ...ParseManifestInfo.partial().shape,
      ...SpreadsheetManifestInfo.partial().shape,
      segment_count: z.number().int().nullable().optional(),
    })
    .catchall(z.unknown())
    .describe(
      'what the job recorded: pages (PDFs, images) or sheets (spreadsheets), backend, schema name (extraction)',
    ),
  created_at: Timestamp,
  links: ArtifactLinks,
});
export type ArtifactManifest = z.infer<typeof ArtifactManifest>;
export const ArtifactManifestList = z.object({ artifacts: z.array(ArtifactManifest) });
export const ArtifactDirectoryListing = z.object({
  entries: z.array(z.object({ name: z.string(), kind: z.string(), url: z.string() })),
});
export const ArtifactParams = z.object({ manifestId: Uuid, key: z.string().max(64) });
export const ArtifactQuery = z.object({ file: z.string().max(512).optional() });
