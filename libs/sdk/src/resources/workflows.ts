// Model workflows: extraction schemas and runs, queued operations, split, classify and edit.
import { path, type RequestOptions } from '../http';
import type {
  ClassifyRunBody,
  ClassifyRunResponse,
  CreateSchemaBody,
  DeleteSchemaResponse,
  EditProposalEnvelope,
  EditRunBody,
  EditRunResponse,
  ExtractRunBody,
  ExtractRunOutput,
  GenerateSchemaBody,
  Operation,
  QueuedResult,
  SavedSchema,
  SchemaEnvelope,
  SchemaGenerateOutput,
  SchemaList,
  SplitDownloadBody,
  SplitRunBody,
  SplitSession,
  SuggestClassesBody,
  SuggestClassesResponse,
  SuggestRulesBody,
  SuggestRulesOutput,
  UpdateSchemaBody,
} from '../types';
import { Resource, requestOptions } from './resource';

export class Extract extends Resource {
  /** 201 `{ schema: record }`; a JSON Schema is derived when `jsonSchema` is omitted. No credit. */
  createSchema(body: CreateSchemaBody, o?: RequestOptions): Promise<SchemaEnvelope> {
    return this.call({ method: 'POST', path: '/v1/extract/schemas', json: body, ...requestOptions(o) });
  }

  /** `{ schemas }`; a bare array answer is accepted too. */
  async listSchemas(o?: RequestOptions): Promise<SchemaList> {
    const data = await this.call<SchemaList | SavedSchema[]>({
      method: 'GET',
      path: '/v1/extract/schemas',
      ...requestOptions(o),
    });
    return Array.isArray(data) ? { schemas: data } : data;
  }

  getSchema(schemaId: string, o?: RequestOptions): Promise<SchemaEnvelope> {
    return this.call({ method: 'GET', path: path`/v1/extract/schemas/${schemaId}`, ...requestOptions(o) });
  }

  /** Any of title, description, schema, jsonSchema, metadata (metadata is merged). */
  updateSchema(schemaId: string, body: UpdateSchemaBody, o?: RequestOptions): Promise<SchemaEnvelope> {
    return this.call({
      method: 'PATCH',
      path: path`/v1/extract/schemas/${schemaId}`,
      json: body,
      ...requestOptions(o),
    });
  }

  /** Soft delete; afterwards the schema answers 404 schema_not_found. */
  deleteSchema(schemaId: string, o?: RequestOptions): Promise<DeleteSchemaResponse> {
    return this.call({ method: 'DELETE', path: path`/v1/extract/schemas/${schemaId}`, ...requestOptions(o) });
  }

  /** Queued (1 credit): 202 acknowledgement, or 200 with the output on a completed replay. */
  generateSchema(body: GenerateSchemaBody, o?: RequestOptions): Promise<QueuedResult<SchemaGenerateOutput>> {
    return this.queued({ method: 'POST', path: '/v1/extract/schemas/generate', json: body, ...requestOptions(o) });
  }

  /** Queued (1 credit): `schema_id` or an inline field-list `schema`. */
  run(body: ExtractRunBody, o?: RequestOptions): Promise<QueuedResult<ExtractRunOutput>> {
    return this.queued({ method: 'POST', path: '/v1/extract/runs', json: body, ...requestOptions(o) });
  }
}

export class Operations extends Resource {
  get<TOutput = unknown>(operationId: string, o?: RequestOptions): Promise<Operation<TOutput>> {
    return this.call({ method: 'GET', path: path`/v1/operations/${operationId}`, ...requestOptions(o) });
  }

  /** Cooperative; a terminal operation comes back unchanged. */
  cancel<TOutput = unknown>(operationId: string, o?: RequestOptions): Promise<Operation<TOutput>> {
    return this.call({ method: 'POST', path: path`/v1/operations/${operationId}/cancel`, ...requestOptions(o) });
  }
}

export class Split extends Resource {
  /** Queued (1 credit); completed output `{ rules, modelId }`. */
  suggestRules(body: SuggestRulesBody, o?: RequestOptions): Promise<QueuedResult<SuggestRulesOutput>> {
    return this.queued({ method: 'POST', path: '/v1/split/rules/suggest', json: body, ...requestOptions(o) });
  }

  /**
   * Queued (1 credit); completed output is a split session. The default idempotency key cannot tell
   * two deliberate identical runs apart: send a fresh `idempotency_key` for new work.
   */
  run(body: SplitRunBody, o?: RequestOptions): Promise<QueuedResult<SplitSession>> {
    return this.queued({ method: 'POST', path: '/v1/split/runs', json: body, ...requestOptions(o) });
  }

  /** PDF bytes of a page range of a PDF source. No model, no credit. */
  download(body: SplitDownloadBody, o?: RequestOptions): Promise<Buffer> {
    return this.call({
      method: 'POST',
      path: '/v1/split/download',
      json: body,
      response: 'buffer',
      ...requestOptions(o),
    });
  }
}

/** Synchronous: the model runs inside the request, so these calls may take minutes. */
export class Classify extends Resource {
  suggestClasses(body: SuggestClassesBody, o?: RequestOptions): Promise<SuggestClassesResponse> {
    return this.call({ method: 'POST', path: '/v1/classify/classes/suggest', json: body, ...requestOptions(o) });
  }

  /** At least one class; without classes 400 classes_required. */
  run(body: ClassifyRunBody, o?: RequestOptions): Promise<ClassifyRunResponse> {
    return this.call({ method: 'POST', path: '/v1/classify/runs', json: body, ...requestOptions(o) });
  }
}

/** Edit proposes changes and never applies them. */
export class Edit extends Resource {
  run(body: EditRunBody, o?: RequestOptions): Promise<EditRunResponse> {
    return this.call({ method: 'POST', path: '/v1/edit/runs', json: body, ...requestOptions(o) });
  }

  /** The stored proposal (GET /v1/edit/proposals/{proposalId}; a path this SDK fixes, see README). */
  getProposal(proposalId: string, o?: RequestOptions): Promise<EditProposalEnvelope> {
    return this.call({ method: 'GET', path: path`/v1/edit/proposals/${proposalId}`, ...requestOptions(o) });
  }
}
