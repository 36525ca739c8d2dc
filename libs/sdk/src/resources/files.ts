import type { FileEnvelope, FilePage, FileRecord, MoveFileBody, Segment } from '../contract-types';
import { path, type RequestOptions } from '../http';
import type {
  ArtifactManifestList,
  ClearFailedJobsResponse,
  ExtractBulkBody,
  ExtractBulkResponse,
  FileExtractBody,
  FileExtractResponse,
  FilePermanentDeleteReport,
  JobEnvelope,
  JobEvents,
  JobList,
  JsonObject,
  ParseBody,
  ParseBulkBody,
  ParseBulkResponse,
  ParseResponse,
  UploadResponse,
} from '../types';
import { multipart, type UploadSource } from '../upload';
import { Resource, requestOptions } from './resource';

export interface UploadOptions extends RequestOptions {
  knowledgeBaseId: string;
  folderId?: string;
  /** Stored name (overrides the source's own); required for bytes and streams, which carry none. */
  filename?: string;
  metadata?: JsonObject;
  /** Queue a parse right away (billed per page). */
  autoParse?: boolean;
  /** Type of the multipart part; the server sniffs the bytes regardless. */
  contentType?: string;
}

export interface ReplaceContentOptions extends RequestOptions {
  /** Name of the multipart part when the source has none (the stored filename does not change). */
  filename?: string;
  autoParse?: boolean;
  contentType?: string;
}

export interface ListFilesOptions extends RequestOptions {
  knowledgeBaseId?: string;
  folderId?: string;
  /** Also list trashed files. */
  includeDeleted?: boolean;
  /** Default 50, max 200. */
  limit?: number;
  cursor?: string;
}

const flag = (b: boolean | undefined) => (b === undefined ? undefined : b ? 'true' : 'false');

export class Files extends Resource {
  /**
   * Multipart upload. A path is streamed from disk (never read whole); bytes, Blobs and streams are
   * accepted too. 201 `{ file }`, with autoParse also `parse_job`, `parse_usage`, `credit_reservation`.
   */
  async upload(source: UploadSource, opts: UploadOptions): Promise<UploadResponse> {
    const { body, contentType } = await multipart(
      {
        knowledge_base_id: opts.knowledgeBaseId,
        folder_id: opts.folderId,
        filename: opts.filename,
        metadata: opts.metadata === undefined ? undefined : JSON.stringify(opts.metadata),
        auto_parse: flag(opts.autoParse),
      },
      { source, filename: opts.filename, contentType: opts.contentType },
    );
    return this.call({ method: 'POST', path: '/v1/files', body, contentType, ...requestOptions(opts) });
  }

  list(opts: ListFilesOptions = {}): Promise<FilePage> {
    return this.call({
      method: 'GET',
      path: '/v1/files',
      query: {
        knowledge_base_id: opts.knowledgeBaseId,
        folder_id: opts.folderId,
        include_deleted: flag(opts.includeDeleted),
        limit: opts.limit,
        cursor: opts.cursor,
      },
      ...requestOptions(opts),
    });
  }

  /** Every file matching the filters, following `next_cursor` page by page. */
  async *iterate(opts: Omit<ListFilesOptions, 'cursor'> = {}): AsyncGenerator<FileRecord> {
    let cursor: string | undefined;
    do {
      const page = await this.list({ ...opts, cursor });
      yield* page.files;
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
  }

  get(fileId: string, o?: RequestOptions): Promise<FileEnvelope> {
    return this.call({ method: 'GET', path: path`/v1/files/${fileId}`, ...requestOptions(o) });
  }

  /** `folder_id: null` moves to the top level; 409 duplicate_filename on a clash. */
  move(fileId: string, body: MoveFileBody, o?: RequestOptions): Promise<FileEnvelope> {
    return this.call({ method: 'PATCH', path: path`/v1/files/${fileId}/move`, json: body, ...requestOptions(o) });
  }

  /** New version; it has no parse artifacts until parsed again. */
  async replaceContent(
    fileId: string,
    source: UploadSource,
    opts: ReplaceContentOptions = {},
  ): Promise<UploadResponse> {
    const { body, contentType } = await multipart(
      { auto_parse: flag(opts.autoParse) },
      { source, filename: opts.filename, contentType: opts.contentType },
    );
    return this.call({
      method: 'PUT',
      path: path`/v1/files/${fileId}/content`,
      body,
      contentType,
      ...requestOptions(opts),
    });
  }

  /** Soft delete (restorable); 409 file_has_active_job while a job is queued or running. */
  delete(fileId: string, o?: RequestOptions): Promise<FileEnvelope> {
    return this.call({ method: 'DELETE', path: path`/v1/files/${fileId}`, ...requestOptions(o) });
  }

  restore(fileId: string, o?: RequestOptions): Promise<FileEnvelope> {
    return this.call({ method: 'POST', path: path`/v1/files/${fileId}/restore`, ...requestOptions(o) });
  }

  /** Irreversible. Without `confirmPermanent: true` the server answers 400 confirmation_required. */
  permanentDelete(
    fileId: string,
    opts: { confirmPermanent?: boolean } & RequestOptions = {},
  ): Promise<FilePermanentDeleteReport> {
    return this.call({
      method: 'DELETE',
      path: path`/v1/files/${fileId}/permanent`,
      query: { confirm_permanent: opts.confirmPermanent ? 'true' : undefined },
      ...requestOptions(opts),
    });
  }

  // ------------------------------------------------------------ parse jobs

  /** 202: queues a parse job (credits reserved per estimated page). */
  parse(fileId: string, body: ParseBody = {}, o?: RequestOptions): Promise<ParseResponse> {
    return this.call({ method: 'POST', path: path`/v1/files/${fileId}/parse`, json: body, ...requestOptions(o) });
  }

  /** Not atomic: the first failure aborts while earlier jobs stay queued. */
  parseBulk(body: ParseBulkBody, o?: RequestOptions): Promise<ParseBulkResponse> {
    return this.call({ method: 'POST', path: '/v1/files/parse/bulk', json: body, ...requestOptions(o) });
  }

  /** Newest first. */
  jobs(fileId: string, o?: RequestOptions): Promise<JobList> {
    return this.call({ method: 'GET', path: path`/v1/files/${fileId}/jobs`, ...requestOptions(o) });
  }

  job(fileId: string, jobId: string, o?: RequestOptions): Promise<JobEnvelope> {
    return this.call({ method: 'GET', path: path`/v1/files/${fileId}/jobs/${jobId}`, ...requestOptions(o) });
  }

  /** Oldest first; a `job.failed` event carries `payload.traceback`. */
  jobEvents(fileId: string, jobId: string, o?: RequestOptions): Promise<JobEvents> {
    return this.call({ method: 'GET', path: path`/v1/files/${fileId}/jobs/${jobId}/events`, ...requestOptions(o) });
  }

  /** Cooperative; a terminal job comes back as it is. */
  cancelJob(fileId: string, jobId: string, o?: RequestOptions): Promise<JobEnvelope> {
    return this.call({ method: 'POST', path: path`/v1/files/${fileId}/jobs/${jobId}/cancel`, ...requestOptions(o) });
  }

  /** Removes failed parse and extract jobs and their events; needs manager access. */
  clearFailedJobs(fileId: string, o?: RequestOptions): Promise<ClearFailedJobsResponse> {
    return this.call({ method: 'DELETE', path: path`/v1/files/${fileId}/jobs/failed`, ...requestOptions(o) });
  }

  // ------------------------------------------------------------ artifacts and segments

  /** Artifact manifests, newest first (the listing path is spelled `artefacts`). */
  artefacts(fileId: string, o?: RequestOptions): Promise<ArtifactManifestList> {
    return this.call({ method: 'GET', path: path`/v1/files/${fileId}/artefacts`, ...requestOptions(o) });
  }

  /** Bare array from the newest parse, coordinates on a 0-1000 scale. */
  segments(fileId: string, o?: RequestOptions): Promise<Segment[]> {
    return this.call({ method: 'GET', path: path`/v1/files/${fileId}/segments`, ...requestOptions(o) });
  }

  // ------------------------------------------------------------ extraction jobs (file path)

  /** 202 `{ job, idempotency_key }`; `schema` is a JSON Schema. No credits. */
  extract(fileId: string, body: FileExtractBody, o?: RequestOptions): Promise<FileExtractResponse> {
    return this.call({ method: 'POST', path: path`/v1/files/${fileId}/extract`, json: body, ...requestOptions(o) });
  }

  /** Not atomic; one job per file in request order. */
  extractBulk(body: ExtractBulkBody, o?: RequestOptions): Promise<ExtractBulkResponse> {
    return this.call({ method: 'POST', path: '/v1/files/extract/bulk', json: body, ...requestOptions(o) });
  }
}
