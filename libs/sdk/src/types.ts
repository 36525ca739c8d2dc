// Types of the endpoints @docfleet/contracts does not describe yet (parse jobs, artifacts, search,
// extraction, operations, split, classify, edit), written from the API's contract (docs/api.md,
// the served OpenAPI document) field for field. When a route lands with its zod schema, replace the type here by
// `z.infer<typeof api.X>` in contract-types.ts so client and gateway keep one definition.
import type { FileRecord, Segment } from './contract-types';

export type JsonObject = Record<string, unknown>;

// ---------------------------------------------------------------- jobs (parse and extract)

export type JobStatus = 'queued' | 'running' | 'completed' | 'failed' | 'cancelled';
export type JobKind = 'parse' | 'extract';

export interface ValidationError { path: string; message: string }

/** `result` of a completed extract job. */
export interface ExtractJobResult {
  extraction_result_id: string;
  artifact_manifest_id: string;
  validation_errors: ValidationError[];
}

export interface Job {
  job_id: string;
  status: JobStatus;
  /** Stored value; `started` and `in_progress` both read as `running` in `status`. */
  raw_status: string;
  kind: JobKind;
  /** Parse: page-diff, parse (or parse-spreadsheet), completed, reused. Extract: load-parse, build-evidence, extract, validate, write-artifacts. */
  stage: string | null;
  /** 0-100, monotonic. */
  percent: number;
  total_pages: number | null;
  completed_pages: number;
  error: string | null;
  /** Stable failure code when failed (`invalid_pdf`, `page_too_complex`, …; docs/errors.md); null otherwise. */
  error_code?: string | null;
  result: (ExtractJobResult & JsonObject) | JsonObject | null;
  created_at: string;
  started_at: string | null;
  cancel_requested_at: string | null;
  completed_at: string | null;
  retry_of_job_id?: string;
}

export interface JobEvent {
  event_type: string;
  message: string;
  stage: string | null;
  /** `job.failed` carries `traceback` (last 4000 characters). */
  payload: JsonObject & { traceback?: string };
}

export interface CreditReservation {
  id: string;
  amount_credits: number;
  debited_credits: number;
  status: 'reserved' | 'committed' | 'released' | 'failed' | 'cancelled';
  [key: string]: unknown;
}

/** The spec names the parse usage object without listing its fields. */
export type ParseUsage = JsonObject;

export interface ParseOptions {
  /** `auto` (default) or a named backend (text layer, OCR). */
  backend?: string;
  dpi?: number;
  layout_device?: string;
  page_fallback_ocr?: boolean;
  timeout_seconds?: number;
  [key: string]: unknown;
}

export interface ParseBody { options?: ParseOptions; idempotency_key?: string }
export interface ParseResponse {
  job: Job;
  usage: ParseUsage;
  credit_reservation: CreditReservation | null;
  idempotency_key: string;
  idempotent: boolean;
  retry_of_job_id?: string;
}
export interface ParseBulkBody { file_ids: string[]; options?: ParseOptions; idempotency_key?: string }
export interface ParseBulkResponse { jobs: Array<{ job: Job; credit_reservation: CreditReservation | null }> }

export interface JobEnvelope { job: Job }
export interface JobList { jobs: Job[] }
export interface JobEvents { events: JobEvent[] }
export interface ClearFailedJobsResponse { cleaned: number; cleaned_job_ids: string[]; cleaned_kinds: JobKind[] }

// ---------------------------------------------------------------- files (multipart answers)

/** POST /v1/files and PUT /v1/files/{id}/content: with auto_parse also the parse job. */
export interface UploadResponse {
  file: FileRecord;
  parse_job?: Job;
  parse_usage?: ParseUsage;
  credit_reservation?: CreditReservation | null;
}

export interface FilePermanentDeleteReport {
  deleted: true;
  permanent: true;
  file_id: string;
  database: Record<string, number>;
}

// ---------------------------------------------------------------- artifacts

export type ArtifactKey = 'result_md' | 'grounding_json' | 'result_json' | 'workbook_json' | 'tables_json' | 'pages' | 'imgs';
export type ArtifactLinks = Record<ArtifactKey, string | null>;

export interface ParseManifestInfo { page_count: number; changed_pages: number[]; unchanged_pages: number[] }
export interface SpreadsheetManifestInfo { unit: 'sheets'; source_type: 'spreadsheet'; segment_count: number }

export interface ArtifactManifest {
  id: string;
  file_id: string;
  file_version_id: string;
  job_id: string | null;
  artifact_type: 'parse' | 'extract';
  manifest: Partial<ParseManifestInfo> & Partial<SpreadsheetManifestInfo> & JsonObject;
  created_at: string;
  links: ArtifactLinks;
}
export interface ArtifactManifestList { artifacts: ArtifactManifest[] }

/** `pages` or `imgs` fetched without `file`. */
export interface ArtifactDirectoryListing { entries: Array<{ name: string; kind: string; url: string }> }

export type SegmentList = Segment[];

// ---------------------------------------------------------------- search

export interface SearchBody {
  /** Up to 4000 characters; blank applies the filters only. */
  query?: string;
  /** Default 30, capped at 80. */
  limit?: number;
  file_ids?: string[];
  folder_id?: string;
  years?: number[];
  source_type?: string;
  table_only?: boolean;
}

export interface SearchHit {
  id: string;
  fileId: string;
  /** Alias of fileId kept for older clients. */
  docId: string;
  fileVersionId: string;
  artifactManifestId: string;
  segmentId: string;
  docName: string;
  title: string;
  markdown: string;
  /** Comparable within one response only. */
  score: number;
  sourceType: string;
  coordinates: JsonObject;
  tableMetadata: { isTable: boolean; headers?: string[]; rowLabels?: string[]; noteRefs?: string[] };
  noteRefs: string[];
  years: number[];
  quarters: string[];
  neighbors: { previousSegmentId: string | null; nextSegmentId: string | null; noteSegmentIds: string[] };
}

export interface SearchResponse {
  knowledge_base_id: string;
  index_version: string;
  status: string;
  snapshot: JsonObject;
  hits: SearchHit[];
}

// ---------------------------------------------------------------- model controls and credit

export type ReasoningLevel = 'none' | 'low' | 'medium' | 'high';
/** Accepted by every workflow body. */
export interface ModelControls { model_id?: string; reasoning_level?: ReasoningLevel; idempotency_key?: string }
/** Synchronous workflows report whether this request was charged. */
export interface CreditInfo { debited: boolean; [key: string]: unknown }

// ---------------------------------------------------------------- operations (queued workflows)

export type OperationType = 'split_run' | 'extract_run' | 'classify_run' | 'edit_run' | 'split_rules_suggest' | 'schema_generate';
export type OperationStatus = 'queued' | 'in_progress' | 'completed' | 'failed' | 'cancelled';

export interface Operation<TOutput = unknown> {
  operation_id: string;
  operation_type: OperationType;
  status: OperationStatus;
  /** Advisory; done and total are 0 before the run reports. */
  progress: { done: number; total: number; phase: string | null };
  /** null on every status except completed. */
  output: TOutput | null;
  error: string | null;
  created_at: string;
  completed_at: string | null;
}

/** The 202 body of a queued workflow: no result fields. */
export interface QueuedAck { operation_id: string; status: OperationStatus }

/**
 * A queued workflow answers 202 with an acknowledgement (new, re-attached or retried attempt) or 200
 * with the completed output inline (completed replay). Branch on `status`, as the spec says.
 */
export type QueuedResult<TOutput> = { status: 202; body: QueuedAck } | { status: 200; body: TOutput };

// ---------------------------------------------------------------- extraction

export type FieldType = 'string' | 'number' | 'boolean' | 'date' | 'object' | 'array' | 'table';

export interface SchemaField {
  name: string;
  /** Any other value is coerced to `string` by the server. */
  type: FieldType | (string & {});
  description?: string;
  required?: boolean;
  children?: SchemaField[];
  /** Stable id derived from the path (`field-<normalised-path>`), set by the server. */
  id?: string;
}

/** DocAI-style field list. */
export interface FieldListSchema { version?: number; title?: string; description?: string; fields: SchemaField[] }

export interface SavedSchema {
  id: string;
  org_id: string;
  knowledge_base_id: string | null;
  file_id: string | null;
  title: string;
  description: string | null;
  schema: FieldListSchema;
  jsonSchema: JsonObject;
  metadata: JsonObject;
  created_by_user_id: string | null;
  created_at: string;
  updated_at: string;
}
export interface SchemaEnvelope { schema: SavedSchema }
export interface SchemaList { schemas: SavedSchema[] }

export interface CreateSchemaBody { schema: FieldListSchema; jsonSchema?: JsonObject; file_id?: string; knowledge_base_id?: string; metadata?: JsonObject }
export interface UpdateSchemaBody { title?: string; description?: string | null; schema?: FieldListSchema; jsonSchema?: JsonObject; metadata?: JsonObject }
export interface DeleteSchemaResponse { deleted: true; schema_id: string }

export interface GenerateSchemaBody extends ModelControls { file_id: string; title?: string; segment_ids?: string[] }
export interface SchemaGenerateOutput {
  operation_id: string;
  schema_id: string;
  schema: FieldListSchema;
  jsonSchema: JsonObject;
  modelId: string;
  documentType: string;
  schemaRationale: string;
  metrics: { segmentCount: number; pageCount: number; contextChars: number; modelCalls: number };
}

export interface ExtractRunBody extends ModelControls { file_id: string; schema_id?: string; schema?: FieldListSchema; segment_ids?: string[] }

export interface Citation {
  /** Slash path into jsonResult, e.g. `/field` or `/rows/0/field`. */
  path: string;
  segmentId: string;
  pageNumber: number;
  quote: string;
  confidence: number;
  /** File-job path only: resolved against the grounding. */
  elementId?: string;
  bbox?: unknown;
}

export interface ResultNode {
  id: string;
  fieldId: string;
  path: string;
  label: string;
  type: FieldType | null;
  value: unknown;
  /** 0.8 means unattributed. */
  confidence: number;
  citations: Citation[];
  children: ResultNode[];
  /** File-job path only. */
  missingReason?: 'not_in_evidence' | (string & {});
}

export interface ExtractRunOutput {
  operation_id: string;
  schema: FieldListSchema;
  normalizedSchema: FieldListSchema;
  jsonResult: JsonObject;
  resultTree: ResultNode[];
  citations: Citation[];
  modelId: string;
  warnings: unknown[];
  metrics: { segmentCount: number; selectedSegmentCount: number; pageCount: number; contextChars: number; modelCalls: number; durationMs: number; timedOut: boolean };
}

/** The `result_json` artifact of a file extraction job. */
export interface ExtractionDocument {
  schema: JsonObject;
  data: JsonObject;
  jsonResult: JsonObject;
  resultTree: ResultNode[];
  citations: Citation[];
  evidence: unknown[];
  warnings: Array<{ code?: string; message?: string; [key: string]: unknown }>;
  metrics: JsonObject;
  validationErrors: ValidationError[];
  schema_name: string;
  modelId: string;
}

export interface FileExtractBody {
  /** A JSON Schema (Draft 2020-12), not a field list. */
  schema: JsonObject;
  schema_name?: string;
  options?: { scope?: unknown; [key: string]: unknown };
  idempotency_key?: string;
}
export interface FileExtractResponse { job: Job; idempotency_key: string; idempotent?: boolean }
export interface ExtractBulkBody { file_ids: string[]; schema: JsonObject; schema_name?: string; options?: FileExtractBody['options']; idempotency_key?: string }
export interface ExtractBulkResponse { jobs: Array<FileExtractResponse & JsonObject> }

// ---------------------------------------------------------------- split

export interface SplitRule { name: string; description: string }
export interface SuggestRulesBody extends ModelControls { file_id: string }
export interface SuggestRulesOutput { rules: SplitRule[]; modelId: string }
/** `rules` may be omitted (no rules: the model's own boundary signals). */
export interface SplitRunBody extends ModelControls { file_id: string; rules?: SplitRule[] }

export interface SplitRecord {
  id: string;
  title: string;
  documentType: string;
  startPage: number;
  endPage: number;
  segmentIds: string[];
  metadata: JsonObject;
  confidence: number;
  boundaryReason: string;
  warnings: unknown[];
}

export interface SplitQuality {
  coverage: number;
  recordCount: number;
  pageCount: number;
  gapPages: number[];
  overlapPages: number[];
  duplicateRecordIds: string[];
  invalidRecords: unknown[];
  /** `review` means a human should look. */
  status: 'pass' | 'review' | 'fail';
}

export interface SplitSession {
  sessionId: string;
  sourceDocId: string;
  sourceDocName: string;
  sourcePageCount: number;
  records: SplitRecord[];
  rules: SplitRule[];
  quality: SplitQuality;
  warnings: unknown[];
  createdAt: string;
  updatedAt: string;
  operation_id: string;
  modelId: string;
}

export interface SplitDownloadBody { file_id: string; startPage: number; endPage: number; title: string }

// ---------------------------------------------------------------- classify and edit (synchronous)

export interface SuggestClassesBody extends ModelControls { file_id: string; guidelines?: string }
export interface SuggestClassesResponse { operation_id: string; classes: Array<{ name: string; description: string }>; modelId: string; credit: CreditInfo }

export interface ClassifyRunBody extends ModelControls { file_id: string; classes: string[]; multi_label?: boolean }
export interface ClassifyRunResponse {
  operation_id: string;
  document: { class: string; confidence: number; rationale: string };
  pages: Array<{ page_number: number; class: string; confidence: number }>;
  modelId: string;
  credit: CreditInfo;
}

export interface EditRunBody extends ModelControls { file_id: string; prompt: string; rules?: string[] }
export interface EditRunResponse { operation_id: string; proposal_id: string; proposal: JsonObject; modelId: string; credit: CreditInfo }

/** A stored proposal (status starts at `proposed`; nothing applies it to the file). */
export interface EditProposal {
  id: string;
  file_id: string;
  operation_id: string;
  status: 'proposed' | (string & {});
  prompt: string;
  rules: string[];
  proposal: JsonObject;
  diff: string | null;
  model_id: string;
  created_at: string;
  updated_at: string;
}
export interface EditProposalEnvelope { proposal: EditProposal }
