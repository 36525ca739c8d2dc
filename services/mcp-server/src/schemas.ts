// Input pieces shared by the tools. Every message names the parameter and says what is expected,
// because an agent reads it verbatim and retries from it.
import path from 'node:path';
import { z } from 'zod';

export const uuid = (param: string, what: string) =>
  z.uuid({ error: `${param} must be a UUID (${what})` }).describe(`${what} (UUID)`);

export const fileId = (
  what = 'the file id, as returned by service_upload_file, service_list_files or service_kb_index',
) => uuid('file_id', what);
export const kbId = (
  what = 'the knowledge base id, as returned by service_create_knowledge_base or service_list_knowledge_bases',
) => uuid('kb_id', what);

export const fileIds = (what: string) =>
  z
    .array(uuid('file_ids[]', 'a file id'), { error: 'file_ids must be an array of file ids' })
    .min(1, 'file_ids needs at least one file id')
    .max(1000, 'file_ids takes at most 1000 ids per call')
    .describe(what);

export const absolutePath = (param: string, what: string) =>
  z
    .string({ error: `${param} must be a string` })
    .min(1, `${param} must not be empty`)
    .refine(
      (p) => path.isAbsolute(p),
      `${param} must be an absolute path (starting with / on Linux and macOS); relative paths are ambiguous for a server`,
    )
    .refine((p) => !p.includes('\0'), `${param} must not contain NUL characters`)
    .describe(what);

/**
 * A field of a DocAI-style field list (docs/api.md, "Extraction schemas"); nested through `children`. Type
 * aliases, not interfaces, so a field list is assignable to the SDK's request body (a JSON object).
 */
export type FieldInput = {
  name: string;
  type?: string;
  description?: string;
  required?: boolean;
  children?: FieldInput[];
};
export type FieldOutput = Omit<FieldInput, 'type' | 'children'> & {
  type: string;
  children?: FieldOutput[];
};
const Field: z.ZodType<FieldOutput, FieldInput> = z.lazy(() =>
  z.object({
    name: z.string({ error: 'every field needs a name (string)' }).min(1, 'field names must not be empty'),
    type: z
      .string()
      .default('string')
      .describe('string, number, boolean, date, object, array or table (any other value is treated as string)'),
    description: z.string().optional().describe('what the value is; the model reads it'),
    required: z.boolean().optional(),
    children: z.array(Field).optional().describe('sub-fields of an object, array or table field'),
  }),
);

export const FieldList = z
  .object({
    version: z.number().int().optional(),
    title: z.string().optional(),
    description: z.string().optional(),
    fields: z
      .array(Field, { error: 'schema.fields must be an array of { name, type, description }' })
      .min(1, 'schema.fields needs at least one field'),
  })
  .describe('a field list: { title?, description?, fields: [{ name, type, description, required?, children? }] }');

/** A JSON Schema object for the file-extraction job (validated by the server against Draft 2020-12). */
export const JsonSchemaObject = z
  .record(z.string(), z.unknown(), {
    error: 'schema must be a JSON Schema object, e.g. { "type": "object", "properties": { … } }',
  })
  .refine(
    (s) => !Array.isArray((s as { fields?: unknown }).fields),
    'schema looks like a field list ({ fields: [...] }); this tool takes a JSON Schema — use service_extract_run for field lists',
  )
  .refine(
    (s) => s.type === 'object' || typeof s.properties === 'object',
    'schema must describe an object: give "type": "object" and "properties"',
  )
  // Say "any JSON Schema keywords" explicitly; a bare {} reads to clients as an unconstrained value.
  .meta({ additionalProperties: true })
  .describe(
    'a JSON Schema (Draft 2020-12) describing the object to extract, e.g. { "type": "object", "properties": { "total": { "type": "number" } }, "required": ["total"] }',
  );
