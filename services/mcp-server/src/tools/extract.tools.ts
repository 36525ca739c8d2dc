// Extraction: the file job (JSON Schema), the queued run (field list or saved schema), bulk
// extraction, schema generation and the saved-schema list.
import { z } from 'zod';
import { ToolInputError } from '../errors';
import { queuedAnswer } from '../queued';
import { FieldList, JsonSchemaObject, fileId, fileIds, uuid } from '../schemas';
import { ADDITIVE, IDEMPOTENT, READ_ONLY, defineTool } from '../tool';

const schemaId = (what: string) => uuid('schema_id', what);

export const extractTools = [
  defineTool({
    name: 'service_extract',
    title: 'Extract JSON from a file (job)',
    description:
      'Queues an extraction job on a parsed file: the model fills a JSON Schema from the document, every value with citations ' +
      '(segment, page, quote), and the result is validated against the schema. No credits. Returns the job; poll service_job_status ' +
      '(file_id, job_id) until completed, then read the result with service_read_artifact key result_json. Takes an inline JSON Schema ' +
      'only (not a schema_id; for saved schemas use service_extract_run). The file must be parsed first.',
    input: z.strictObject({ file_id: fileId('the parsed file to extract from'), schema: JsonSchemaObject }),
    annotations: IDEMPOTENT,
    run: async ({ file_id, schema }, { client }) => ({
      ...(await client.files.extract(file_id, { schema })),
      file_id,
      next: 'poll service_job_status with file_id and job_id; when completed read service_read_artifact key result_json',
    }),
  }),

  defineTool({
    name: 'service_extract_run',
    title: 'Extract with a field list (operation)',
    description:
      'Queues an extraction operation (1 credit) on a parsed file using a saved schema (schema_id) or an inline field list ' +
      '(schema: { fields: [{ name, type, description }] }), optionally limited to some segment ids. Returns an operation_id: poll ' +
      'service_operation_status; the completed output holds jsonResult (values by field name), resultTree and citations.',
    input: z
      .strictObject({
        file_id: fileId('the parsed file to extract from'),
        schema_id: schemaId('a saved schema from service_list_schemas or service_generate_schema').optional(),
        schema: FieldList.optional(),
        segment_ids: z
          .array(z.string().min(1), { error: 'segment_ids must be an array of segment ids' })
          .min(1, 'segment_ids, when given, needs at least one id')
          .optional()
          .describe('only use these segments (ids from service_get_segments or service_search)'),
      })
      .refine((a) => (a.schema_id === undefined) !== (a.schema === undefined), {
        message: 'pass exactly one of schema_id (a saved schema) or schema (an inline field list)',
        path: ['schema_id'],
      }),
    annotations: ADDITIVE,
    run: async ({ file_id, schema_id, schema, segment_ids }, { client }) =>
      queuedAnswer(await client.extract.run({ file_id, schema_id, schema, segment_ids }), 'the extraction'),
  }),

  defineTool({
    name: 'service_extract_bulk',
    title: 'Extract from several files (jobs)',
    description:
      'Queues one extraction job per file with a saved schema (its JSON Schema is used). Files that are not parsed yet are parsed ' +
      'first (credits per page). Not atomic: the first failure stops the call while earlier jobs keep running. Poll each job with ' +
      'service_job_status, or watch all of them with service_kb_index. schema_id is required in practice (find one with service_list_schemas).',
    input: z
      .strictObject({
        file_ids: fileIds('the files to extract from (at least one)'),
        schema_id: schemaId('the saved schema to extract with').optional(),
      })
      .refine((a) => a.schema_id !== undefined, {
        message:
          'schema_id is required: bulk extraction uses a saved schema (service_list_schemas, or create one with service_generate_schema)',
        path: ['schema_id'],
      }),
    annotations: IDEMPOTENT,
    run: async ({ file_ids, schema_id }, { client }) => {
      const { schema } = await client.extract.getSchema(schema_id!);
      if (!schema.jsonSchema || typeof schema.jsonSchema !== 'object')
        throw new ToolInputError(`saved schema ${schema_id} has no JSON Schema to extract with`);
      const r = await client.files.extractBulk({ file_ids, schema: schema.jsonSchema });
      return {
        ...r,
        schema_id,
        next: 'poll each job with service_job_status (file_id, job_id), or service_kb_index for all',
      };
    },
  }),

  defineTool({
    name: 'service_generate_schema',
    title: 'Generate an extraction schema',
    description:
      'Queues schema generation (1 credit): the model reads a parsed file and proposes a reusable extraction schema, which is saved. ' +
      'Returns an operation_id; poll service_operation_status; the output carries schema_id, the field list and its JSON Schema.',
    input: z.strictObject({
      file_id: fileId('the parsed file to derive the schema from'),
      title: z
        .string({ error: 'title must be a string' })
        .min(1, 'title must not be empty')
        .max(200)
        .optional()
        .describe('title for the saved schema'),
    }),
    annotations: ADDITIVE,
    run: async ({ file_id, title }, { client }) =>
      queuedAnswer(await client.extract.generateSchema({ file_id, title }), 'schema generation'),
  }),

  defineTool({
    name: 'service_list_schemas',
    title: 'List saved extraction schemas',
    description:
      'Lists the saved extraction schemas (id, title, description, field list, JSON Schema, attached file or knowledge base).',
    input: z.strictObject({}),
    annotations: READ_ONLY,
    run: (_a, { client }) => client.extract.listSchemas(),
  }),
];
