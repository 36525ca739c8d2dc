// Saved extraction schemas (docs/api.md, Resources: Schema; wire shape in libs/contracts): what the
// gateway's CRUD and the schema generation runner both write, so a generated schema and a hand-made one look
// the same.
import type { api } from '@docfleet/contracts';
import { fieldListToJsonSchema, normalizeFieldSchema, type FieldListSchema } from '@docfleet/models';
import type { ExtractionSchema } from '@docfleet/db';
import { canonicalJson } from '../keys';

export function serializeSchema(s: ExtractionSchema): api.SavedSchema {
  return {
    id: s.id,
    org_id: s.org_id,
    knowledge_base_id: s.knowledge_base_id,
    file_id: s.file_id,
    title: s.title,
    description: s.description,
    schema: s.schema as unknown as api.FieldList,
    jsonSchema: (s.json_schema ?? {}) as Record<string, unknown>,
    metadata: (s.metadata ?? {}) as Record<string, unknown>,
    created_by_user_id: s.created_by_user_id,
    created_at: s.created_at.toISOString(),
    updated_at: s.updated_at.toISOString(),
  };
}

/** The stored form of a field list: normalised names, coerced types, stable ids, version 1. */
export function normalizedForStorage(
  raw: Record<string, unknown>,
  overrides: { title?: string; description?: string | null } = {},
): FieldListSchema {
  const n = normalizeFieldSchema(raw);
  if (overrides.title !== undefined) n.title = overrides.title;
  if (overrides.description !== undefined) n.description = overrides.description ?? '';
  return n;
}

/**
 * True when a stored jsonSchema is the one derived from the stored field list (not one the caller
 * supplied): an edit of the fields then derives it again, while a supplied one is kept.
 */
export function isDerivedJsonSchema(fieldList: unknown, jsonSchema: unknown): boolean {
  if (!fieldList || typeof fieldList !== 'object') return false;
  return (
    canonicalJson(fieldListToJsonSchema(normalizeFieldSchema(fieldList as Record<string, unknown>))) ===
    canonicalJson(jsonSchema)
  );
}
