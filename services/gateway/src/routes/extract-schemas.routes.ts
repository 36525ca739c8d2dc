import { api } from '@docfleet/contracts';
import { serializeSchema } from '@docfleet/workflows';
import { z } from 'zod';
import type { Deps } from '../deps';
import type { ApiRoutes } from '../http/route';
import { dispatchSchemaGenerate } from '../domain/extract/schema-generate';
import { createSchema, deleteSchema, getSchema, listSchemas, updateSchema } from '../domain/extract/schemas';
import { QUEUED_ERRORS } from './workflow-errors';

const tags = ['Extraction'];
const Params = z.object({ schemaId: api.Uuid });
const ACCESS = ['permission_required', 'knowledge_base_access_denied'];

export function extractSchemaRoutes(r: ApiRoutes, deps: Deps) {
  r.add(
    {
      method: 'post',
      path: '/v1/extract/schemas/generate',
      summary: 'Queue a schema generation from a parsed file (1 credit); the schema is saved attached to the file',
      tags,
      body: api.GenerateSchemaBody,
      responses: {
        202: { description: 'queued, re-attached or a fresh attempt', schema: api.QueuedAck },
        200: { description: 'completed replay: the output itself', schema: api.SchemaGenerateOutput },
      },
      errors: QUEUED_ERRORS,
    },
    async ({ body, principal }) => dispatchSchemaGenerate(deps, principal, body),
  );
  r.add(
    {
      method: 'post',
      path: '/v1/extract/schemas',
      summary: 'Save an extraction schema (field list; jsonSchema derived unless given). No credit',
      tags,
      body: api.CreateSchemaBody,
      responses: { 201: { description: 'the saved schema', schema: api.SchemaEnvelope } },
      errors: [...ACCESS, 'invalid_schema', 'file_not_found', 'knowledge_base_not_found', 'invalid_request_body'],
    },
    async ({ body, principal }) => ({
      status: 201,
      body: { schema: serializeSchema(await createSchema(deps.db, principal, body)) },
    }),
  );
  r.add(
    {
      method: 'get',
      path: '/v1/extract/schemas',
      summary: 'Saved schemas the caller may read, newest first',
      tags,
      responses: { 200: { description: 'schemas', schema: api.SchemaList } },
    },
    async ({ principal }) => ({ body: { schemas: (await listSchemas(deps.db, principal)).map(serializeSchema) } }),
  );
  r.add(
    {
      method: 'get',
      path: '/v1/extract/schemas/:schemaId',
      summary: 'A saved schema',
      tags,
      params: Params,
      responses: { 200: { description: 'the schema', schema: api.SchemaEnvelope } },
      errors: ['schema_not_found', ...ACCESS],
    },
    async ({ params, principal }) => ({
      body: { schema: serializeSchema(await getSchema(deps.db, principal, params.schemaId)) },
    }),
  );
  r.add(
    {
      method: 'patch',
      path: '/v1/extract/schemas/:schemaId',
      summary: 'Update a saved schema (metadata is merged)',
      tags,
      params: Params,
      body: api.UpdateSchemaBody,
      responses: { 200: { description: 'the schema', schema: api.SchemaEnvelope } },
      errors: ['schema_not_found', 'invalid_schema', ...ACCESS],
    },
    async ({ params, body, principal }) => ({
      body: { schema: serializeSchema(await updateSchema(deps.db, principal, params.schemaId, body)) },
    }),
  );
  r.add(
    {
      method: 'delete',
      path: '/v1/extract/schemas/:schemaId',
      summary: 'Soft-delete a saved schema (afterwards 404 schema_not_found)',
      tags,
      params: Params,
      responses: { 200: { description: 'deleted', schema: api.DeleteSchemaResponse } },
      errors: ['schema_not_found', ...ACCESS],
    },
    async ({ params, principal }) => ({ body: await deleteSchema(deps.db, principal, params.schemaId) }),
  );
}
