import type {
  CreateFolderBody,
  CreateKnowledgeBaseBody,
  FolderEnvelope,
  IndexEnvelope,
  KnowledgeBaseDeleteReport,
  KnowledgeBaseEnvelope,
  KnowledgeBaseList,
  UpdateKnowledgeBaseBody,
} from '../contract-types';
import { path, type RequestOptions } from '../http';
import type { SearchBody, SearchResponse } from '../types';
import { Resource, requestOptions } from './resource';

export class KnowledgeBases extends Resource {
  /** 201 `{ knowledge_base }`; 409 duplicate_knowledge_base_name (names compare case-insensitively). */
  create(body: CreateKnowledgeBaseBody, o?: RequestOptions): Promise<KnowledgeBaseEnvelope> {
    return this.call({ method: 'POST', path: '/v1/knowledge-bases', json: body, ...requestOptions(o) });
  }

  /** Newest first, filtered to what the caller can reach. */
  list(o?: RequestOptions): Promise<KnowledgeBaseList> {
    return this.call({ method: 'GET', path: '/v1/knowledge-bases', ...requestOptions(o) });
  }

  /** `name` is required even when only the description changes. */
  rename(kbId: string, body: UpdateKnowledgeBaseBody, o?: RequestOptions): Promise<KnowledgeBaseEnvelope> {
    return this.call({ method: 'PATCH', path: path`/v1/knowledge-bases/${kbId}`, json: body, ...requestOptions(o) });
  }

  /**
   * Permanent: removes every file, folder, grant and job of the knowledge base. Without
   * `confirmPermanent: true` the server answers 400 confirmation_required.
   */
  delete(kbId: string, opts: { confirmPermanent?: boolean } & RequestOptions = {}): Promise<KnowledgeBaseDeleteReport> {
    return this.call({
      method: 'DELETE',
      path: path`/v1/knowledge-bases/${kbId}`,
      query: { confirm_permanent: opts.confirmPermanent ? 'true' : undefined },
      ...requestOptions(opts),
    });
  }

  /** 201 `{ folder }`; 409 duplicate_folder_name for a sibling with the same name. */
  createFolder(kbId: string, body: CreateFolderBody, o?: RequestOptions): Promise<FolderEnvelope> {
    return this.call({
      method: 'POST',
      path: path`/v1/knowledge-bases/${kbId}/folders`,
      json: body,
      ...requestOptions(o),
    });
  }

  /** Every live file with its newest jobs and artifact links, in one call; the way to watch bulk work. */
  index(kbId: string, opts: { folderId?: string } & RequestOptions = {}): Promise<IndexEnvelope> {
    return this.call({
      method: 'GET',
      path: path`/v1/knowledge-bases/${kbId}/index`,
      query: { folder_id: opts.folderId },
      ...requestOptions(opts),
    });
  }

  /**
   * The index only if it changed since `indexVersion` (an earlier envelope's `index_version`, which
   * the gateway serves as the ETag); `null` when unchanged. Unchanged polls cost the server a small
   * aggregate query instead of the whole index.
   */
  async indexIfChanged(
    kbId: string,
    indexVersion: string,
    opts: { folderId?: string } & RequestOptions = {},
  ): Promise<IndexEnvelope | null> {
    const r = await this.http.request<IndexEnvelope | null>({
      method: 'GET',
      path: path`/v1/knowledge-bases/${kbId}/index`,
      query: { folder_id: opts.folderId },
      headers: { 'if-none-match': `"${indexVersion}"` },
      notModifiedOk: true,
      ...requestOptions(opts),
    });
    return r.status === 304 ? null : r.data;
  }

  /** Lexical full-text search; no model, no credits. Malformed bodies give 400 invalid_request_body. */
  search(kbId: string, body: SearchBody, o?: RequestOptions): Promise<SearchResponse> {
    return this.call({
      method: 'POST',
      path: path`/v1/knowledge-bases/${kbId}/search`,
      json: body,
      ...requestOptions(o),
    });
  }
}
