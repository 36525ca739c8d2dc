// Types of the jobs, artifacts, search and model workflow endpoints, inferred from the zod schemas the
// gateway validates with and generates its OpenAPI document from (@docfleet/contracts), so client and
// server keep one definition. Request bodies are `z.input` (what a caller may send: defaults optional),
// answers `z.infer`. Field notes live on the schemas (`.describe`) and show in the OpenAPI document.
// Type-only imports: the SDK loads neither zod nor the contracts at run time.
import type { api } from '@docfleet/contracts';
import type { z } from 'zod';
import type { Segment } from './contract-types';

export type JsonObject = z.infer<typeof api.JsonObject>;

// ---------------------------------------------------------------- jobs (parse and extract)

export type JobStatus = z.infer<typeof api.JobStatus>;
export type JobKind = z.infer<typeof api.JobKind>;
export type ValidationError = z.infer<typeof api.ValidationError>;
/** `result` of a completed extract job. */
export type ExtractJobResult = z.infer<typeof api.ExtractJobResult>;
export type Job = z.infer<typeof api.Job>;
export type JobEvent = z.infer<typeof api.JobEvent>;
export type CreditReservation = z.infer<typeof api.CreditReservation>;
export type ParseUsage = z.infer<typeof api.ParseUsage>;
export type ParseOptions = z.input<typeof api.ParseOptions>;
export type ParseBody = z.input<typeof api.ParseBody>;
export type ParseResponse = z.infer<typeof api.ParseResponse>;
export type ParseBulkBody = z.input<typeof api.ParseBulkBody>;
export type ParseBulkResponse = z.infer<typeof api.ParseBulkResponse>;
export type JobEnvelope = z.infer<typeof api.JobEnvelope>;
export type JobList = z.infer<typeof api.JobList>;
export type JobEvents = z.infer<typeof api.JobEvents>;
export type ClearFailedJobsResponse = z.infer<typeof api.ClearFailedJobsResponse>;

// ---------------------------------------------------------------- files (multipart answers)

/** POST /v1/files and PUT /v1/files/{id}/content: with auto_parse also the parse job. */
export type UploadResponse = z.infer<typeof api.UploadResponse>;
export type FilePermanentDeleteReport = z.infer<typeof api.FilePermanentDeleteReport>;

// ---------------------------------------------------------------- artifacts

export type { ArtifactKey } from '@docfleet/contracts';
export type ArtifactLinks = z.infer<typeof api.ArtifactLinks>;
export type ParseManifestInfo = z.infer<typeof api.ParseManifestInfo>;
export type SpreadsheetManifestInfo = z.infer<typeof api.SpreadsheetManifestInfo>;
export type ArtifactManifest = z.infer<typeof api.ArtifactManifest>;
export type ArtifactManifestList = z.infer<typeof api.ArtifactManifestList>;
/** `pages` or `imgs` fetched without `file`. */
export type ArtifactDirectoryListing = z.infer<typeof api.ArtifactDirectoryListing>;
export type SegmentList = Segment[];

// ---------------------------------------------------------------- search

export type SearchBody = z.input<typeof api.SearchBody>;
export type SearchHit = z.infer<typeof api.SearchHit>;
export type SearchResponse = z.infer<typeof api.SearchResponse>;

// ---------------------------------------------------------------- model controls and credit

export type ReasoningLevel = z.infer<typeof api.ReasoningLevel>;
/** Accepted by every workflow body. */
export type ModelControls = z.input<typeof api.ModelControls>;
/** Synchronous workflows report whether this request was charged. */
export type CreditInfo = z.infer<typeof api.SyncCredit>;

// ---------------------------------------------------------------- operations (queued workflows)

export type OperationType = z.infer<typeof api.OperationType>;
export type OperationStatus = z.infer<typeof api.OperationStatus>;
/** An operation whose completed `output` is typed `TOutput` (null on every other status). */
export type Operation<TOutput = unknown> = Omit<z.infer<typeof api.Operation>, 'output'> & { output: TOutput | null };
/** The 202 body of a queued workflow: no result fields. */
export type QueuedAck = z.infer<typeof api.QueuedAck>;

/**
 * A queued workflow answers 202 with an acknowledgement (new, re-attached or retried attempt) or 200
 * with the completed output inline (completed replay). Branch on `status`.
 */
export type QueuedResult<TOutput> = { status: 202; body: QueuedAck } | { status: 200; body: TOutput };

// ---------------------------------------------------------------- extraction

export type FieldType = z.infer<typeof api.FieldType>;
/**
 * A field of a DocAI-style field list: the normalised field the server stores and answers with, whose
 * `type` a request may also give as any other string (the server coerces it to `string`).
 */
export type SchemaField = Omit<z.infer<typeof api.SchemaField>, 'type' | 'children'> & {
  type: FieldType | (string & {});
  children?: SchemaField[];
};
/** DocAI-style field list (answers carry it normalised: names, types and ids set by the server). */
export type FieldListSchema = Omit<z.infer<typeof api.FieldList>, 'fields'> & { fields: SchemaField[] };

export type SavedSchema = z.infer<typeof api.SavedSchema>;
export type SchemaEnvelope = z.infer<typeof api.SchemaEnvelope>;
export type SchemaList = z.infer<typeof api.SchemaList>;
export type CreateSchemaBody = z.input<typeof api.CreateSchemaBody>;
export type UpdateSchemaBody = z.input<typeof api.UpdateSchemaBody>;
export type DeleteSchemaResponse = z.infer<typeof api.DeleteSchemaResponse>;
export type GenerateSchemaBody = z.input<typeof api.GenerateSchemaBody>;
export type SchemaGenerateOutput = z.infer<typeof api.SchemaGenerateOutput>;

export type ExtractRunBody = z.input<typeof api.ExtractRunBody>;
export type Citation = z.infer<typeof api.Citation>;
export type ResultNode = z.infer<typeof api.ResultNode>;
export type ExtractRunOutput = z.infer<typeof api.ExtractRunOutput>;
/** The `result_json` artifact of a file extraction job. */
export type ExtractionDocument = z.infer<typeof api.ExtractionDocument>;

export type FileExtractBody = z.input<typeof api.FileExtractBody>;
export type FileExtractResponse = z.infer<typeof api.FileExtractResponse>;
export type ExtractBulkBody = z.input<typeof api.ExtractBulkBody>;
export type ExtractBulkResponse = z.infer<typeof api.ExtractBulkResponse>;

// ---------------------------------------------------------------- split

export type SplitRule = z.infer<typeof api.SplitRule>;
export type SuggestRulesBody = z.input<typeof api.SplitRulesSuggestBody>;
export type SuggestRulesOutput = z.infer<typeof api.SplitRulesOutput>;
/** `rules` may be omitted (no rules: the model's own boundary signals). */
export type SplitRunBody = z.input<typeof api.SplitRunBody>;
export type SplitRecord = z.infer<typeof api.SplitRecord>;
export type SplitQuality = z.infer<typeof api.SplitQuality>;
export type SplitSession = z.infer<typeof api.SplitSession>;
export type SplitDownloadBody = z.input<typeof api.SplitDownloadBody>;

// ---------------------------------------------------------------- classify and edit (synchronous)

export type SuggestClassesBody = z.input<typeof api.ClassifySuggestBody>;
export type SuggestClassesResponse = z.infer<typeof api.ClassifySuggestResponse>;
export type ClassifyRunBody = z.input<typeof api.ClassifyRunBody>;
export type ClassifyRunResponse = z.infer<typeof api.ClassifyRunResponse>;
export type EditRunBody = z.input<typeof api.EditRunBody>;
export type EditRunResponse = z.infer<typeof api.EditRunResponse>;
/** A stored proposal (status starts at `proposed`; nothing applies it to the file). */
export type EditProposal = z.infer<typeof api.EditProposal>;
export type EditProposalEnvelope = z.infer<typeof api.EditProposalEnvelope>;
