// Extraction schema CRUD (docs/api.md, "Extraction schemas" and Credits). No credits.
// The field list is stored normalised; jsonSchema is derived from it unless the caller supplies
// one, and re-derived on a field edit only while it still is the derived one.
import { hasPermission, reachableKbIds, type Principal } from '@docfleet/auth';
import type { api } from '@docfleet/contracts';
import { Prisma, type Db } from '@docfleet/db';
import { ApiError } from '@docfleet/errors';
import { fieldListToJsonSchema } from '@docfleet/models';
import { compileJsonSchema, isDerivedJsonSchema, normalizedForStorage } from '@docfleet/workflows';
import { loadFile } from '../files/files';
import { loadKb } from '../knowledge-bases/knowledge-bases';
import { checkSchemaAccess, loadSchema } from './schema-access';

const json = (v: unknown) => v as Prisma.InputJsonValue;

function usableFields(schema: ReturnType<typeof normalizedForStorage>) {
  if (!schema.fields.length)
    throw new ApiError('invalid_schema', 'The schema has no usable fields (each needs a name).');
  return schema;
}

/** A supplied jsonSchema must at least compile (Draft 2020-12); it is otherwise kept as given. */
function checkJsonSchema(js: Record<string, unknown>) {
  try {
    compileJsonSchema(js);
  } catch (err) {
    throw new ApiError('invalid_schema', `jsonSchema is not a valid JSON Schema: ${(err as Error).message}`);
  }
  return js;
}

/** Where a schema attaches: a file (its knowledge base follows), a knowledge base, or nothing. */
async function attachment(db: Db, p: Principal, body: { file_id?: string; knowledge_base_id?: string }) {
  if (body.file_id) {
    const file = await loadFile(db, p, body.file_id);
    if (body.knowledge_base_id && body.knowledge_base_id !== file.knowledge_base_id) {
      throw new ApiError('invalid_request_body', 'knowledge_base_id does not match the knowledge base of file_id.');
    }
    return { file_id: file.id, knowledge_base_id: file.knowledge_base_id };
  }
  if (body.knowledge_base_id)
    return { file_id: null, knowledge_base_id: (await loadKb(db, p, body.knowledge_base_id)).id };
  return { file_id: null, knowledge_base_id: null };
}

export async function createSchema(db: Db, p: Principal, body: api.CreateSchemaBody) {
  const at = await attachment(db, p, body);
  await checkSchemaAccess(db, p, at, 'write');
  const schema = usableFields(normalizedForStorage(body.schema as Record<string, unknown>));
  const jsonSchema = body.jsonSchema ? checkJsonSchema(body.jsonSchema) : fieldListToJsonSchema(schema);
  return db.extractionSchema.create({
    data: {
      org_id: p.orgId,
      ...at,
      title: schema.title || 'Untitled schema',
      description: schema.description || null,
      schema: json(schema),
      json_schema: json(jsonSchema),
      metadata: json(body.metadata ?? {}),
      created_by_user_id: p.userId ?? null,
    },
  });
}

/** Every live schema the caller may read, newest first. */
export async function listSchemas(db: Db, p: Principal) {
  const rows = await db.extractionSchema.findMany({
    where: { org_id: p.orgId, deleted_at: null },
    orderBy: [{ created_at: 'desc' }, { id: 'desc' }],
    take: 1000,
  });
  const reachable = await reachableKbIds(db, p);
  if (reachable === null) return rows; // organisation-root caller
  const kbs = new Set(reachable);
  const fileIds = [...new Set(rows.map((r) => r.file_id).filter((x): x is string => !!x))];
  const fileKb = new Map(
    (
      await db.file.findMany({
        where: { id: { in: fileIds }, org_id: p.orgId },
        select: { id: true, knowledge_base_id: true },
      })
    ).map((f) => [f.id, f.knowledge_base_id]),
  );
  const canRead = hasPermission(p, 'files.read');
  return rows.filter((r) => {
    if (!canRead) return false;
    if (r.file_id) return kbs.has(fileKb.get(r.file_id) ?? '');
    if (r.knowledge_base_id) return kbs.has(r.knowledge_base_id);
    return true;
  });
}

export const getSchema = (db: Db, p: Principal, id: string) => loadSchema(db, p, id, 'read');

export async function updateSchema(db: Db, p: Principal, id: string, body: api.UpdateSchemaBody) {
  const cur = await loadSchema(db, p, id, 'write');
  const title = body.title ?? cur.title;
  const description = body.description !== undefined ? body.description : cur.description;
  const fieldsChanged = body.schema !== undefined || body.title !== undefined || body.description !== undefined;
  const schema = usableFields(
    normalizedForStorage((body.schema ?? cur.schema) as Record<string, unknown>, {
      // The record's title and description and the field list's stay one value.
      title: body.title ?? (body.schema && typeof body.schema.title === 'string' ? body.schema.title : title),
      description:
        body.description !== undefined
          ? body.description
          : body.schema && typeof body.schema.description === 'string'
            ? body.schema.description
            : description,
    }),
  );
  let jsonSchema = cur.json_schema as Record<string, unknown>;
  if (body.jsonSchema) jsonSchema = checkJsonSchema(body.jsonSchema);
  else if (fieldsChanged && isDerivedJsonSchema(cur.schema, cur.json_schema))
    jsonSchema = fieldListToJsonSchema(schema);
  const metadata: Record<string, unknown> = { ...((cur.metadata ?? {}) as Record<string, unknown>) };
  for (const [k, v] of Object.entries(body.metadata ?? {})) {
    if (v === null) delete metadata[k];
    else metadata[k] = v;
  }
  const n = await db.extractionSchema.updateMany({
    where: { id: cur.id, deleted_at: null },
    data: {
      title: schema.title || title,
      description: schema.description || null,
      schema: json(schema),
      json_schema: json(jsonSchema),
      metadata: json(metadata),
    },
  });
  if (!n.count) throw new ApiError('schema_not_found', 'Extraction schema not found.');
  return db.extractionSchema.findUniqueOrThrow({ where: { id: cur.id } });
}

export async function deleteSchema(db: Db, p: Principal, id: string) {
  const cur = await loadSchema(db, p, id, 'write');
  const n = await db.extractionSchema.updateMany({
    where: { id: cur.id, deleted_at: null },
    data: { deleted_at: new Date() },
  });
  if (!n.count) throw new ApiError('schema_not_found', 'Extraction schema not found.');
  return { deleted: true as const, schema_id: cur.id };
}
