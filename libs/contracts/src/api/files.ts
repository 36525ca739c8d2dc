import { z } from 'zod';
import { JsonObject, Timestamp, Uuid } from './common';
import { CreditReservation, Job, ParseUsage } from './parse';

export const FileVersion = z.object({
  id: Uuid,
  version_number: z.number().int(),
  byte_size: z.number().int(),
  page_count: z.number().int().nullable(),
});

export const FileRecord = z.object({
  id: Uuid,
  org_id: Uuid,
  knowledge_base_id: Uuid,
  folder_id: Uuid.nullable(),
  filename: z.string(),
  content_type: z.string(),
  metadata: JsonObject,
  deleted_at: Timestamp.nullable(),
  current_version: FileVersion,
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type FileRecord = z.infer<typeof FileRecord>;
export const FileEnvelope = z.object({ file: FileRecord });
export const FilePage = z.object({ files: z.array(FileRecord), next_cursor: z.string().nullable() });

/** POST /v1/files and PUT /v1/files/{id}/content: with auto_parse also the parse job (or why none was queued). */
export const UploadResponse = FileEnvelope.extend({
  parse_job: Job.nullable().optional().describe('with auto_parse: the queued parse (null when it could not be queued)'),
  parse_usage: ParseUsage.nullable().optional(),
  credit_reservation: CreditReservation.nullable().optional(),
  parse_error: z
    .object({ code: z.string(), error: z.string() })
    .optional()
    .describe('with auto_parse: why no parse was queued (the upload itself succeeded)'),
});

export const FilePermanentDeleteReport = z.object({
  deleted: z.literal(true),
  permanent: z.literal(true),
  file_id: Uuid,
  database: z.record(z.string(), z.number().int()),
});

export const ListFilesQuery = z.object({
  knowledge_base_id: Uuid.optional(),
  folder_id: Uuid.optional(),
  include_deleted: z.enum(['true', 'false']).optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: z.string().optional(),
});

export const UploadFields = z.object({
  knowledge_base_id: Uuid,
  folder_id: Uuid.optional(),
  filename: z.string().trim().min(1).max(512).optional(),
  metadata: z.string().optional().describe('JSON object as a string'),
  auto_parse: z.enum(['true', 'false']).optional(),
});

export const MoveFileBody = z.object({ folder_id: Uuid.nullable() });
export const PermanentDeleteQuery = z.object({ confirm_permanent: z.string().optional() });

export const JobSummary = z.object({
  job_id: Uuid,
  status: z.enum(['queued', 'running', 'completed', 'failed', 'cancelled']),
  stage: z.string().nullable(),
  percent: z.number().int(),
  error: z.string().nullable(),
  created_at: Timestamp,
  completed_at: Timestamp.nullable(),
});

const ArtifactLinks = z.object({
  result_md: z.string().nullable(),
  grounding_json: z.string().nullable(),
  workbook_json: z.string().nullable(),
  tables_json: z.string().nullable(),
  pages: z.string().nullable(),
  imgs: z.string().nullable(),
});

/** One file of the knowledge-base listing (GET /v1/knowledge-bases/{kbId}/index; not the search index). */
export const KbListingEntry = z.object({
  file_id: Uuid,
  filename: z.string(),
  content_type: z.string(),
  folder_id: Uuid.nullable(),
  folder_name: z.string().nullable(),
  current_version_id: Uuid,
  version_number: z.number().int(),
  storage_path: z.string().describe('opaque bundle key; never build paths from it'),
  sha256: z.string(),
  byte_size: z.number().int(),
  page_count: z.number().int().nullable(),
  metadata: JsonObject,
  created_at: Timestamp,
  updated_at: Timestamp,
  latest_parse_job: JobSummary.nullable(),
  latest_extract_job: JobSummary.nullable(),
  parse_artifacts: z.object({ manifest_id: Uuid, created_at: Timestamp, links: ArtifactLinks }).nullable(),
  extract_artifacts: z
    .object({ manifest_id: Uuid, created_at: Timestamp, links: z.object({ result_json: z.string().nullable() }) })
    .nullable(),
});
export type KbListingEntry = z.infer<typeof KbListingEntry>;

export const KbListing = z.object({
  knowledge_base: z.object({ id: Uuid, name: z.string() }),
  index_version: z.string(),
  files: z.array(KbListingEntry),
});
export const KbListingQuery = z.object({ folder_id: Uuid.optional() });
