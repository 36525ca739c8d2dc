// Extraction schemas, DocAI-style field lists (docs/api.md, "Extraction schemas"): normalisation of
// names and types, stable field ids, and the derived JSON Schema. The extract task, the local model and the
// worker all key results by the normalised names produced here. The shapes are the API's (libs/contracts).
import type { api } from '@docfleet/contracts';

export type FieldType = api.FieldType;
export const FIELD_TYPES: readonly FieldType[] = ['string', 'number', 'boolean', 'date', 'object', 'array', 'table'];

/** A normalised field; normalizeFieldSchema sets `id` (`field-<normalised-path>`). */
export type SchemaField = api.SchemaField;
export type FieldListSchema = api.FieldList;

/** Lowercase; every run of characters outside [a-z0-9_] becomes `_` (docs/api.md, nothing more). */
export function normalizeFieldName(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9_]+/g, '_');
}

export function normalizeFieldSchema(schema: {
  version?: unknown;
  title?: unknown;
  description?: unknown;
  fields?: unknown;
}): FieldListSchema {
  const walk = (fields: unknown, parent: string): SchemaField[] =>
    (Array.isArray(fields) ? fields : [])
      .filter((f) => f && typeof f === 'object' && typeof (f as { name?: unknown }).name === 'string')
      .map((raw) => {
        const f = raw as Record<string, unknown>;
        const name = normalizeFieldName(f.name as string);
        const path = parent ? `${parent}.${name}` : name;
        const type = FIELD_TYPES.includes(f.type as FieldType) ? (f.type as FieldType) : 'string';
        const out: SchemaField = {
          id: `field-${path}`,
          name,
          type,
          description: typeof f.description === 'string' ? f.description : '',
          required: f.required === true,
        };
        const children = walk(f.children, path);
        if (children.length) out.children = children;
        return out;
      });
  return {
    version: typeof schema.version === 'number' ? schema.version : 1,
    title: typeof schema.title === 'string' ? schema.title : '',
    description: typeof schema.description === 'string' ? schema.description : '',
    fields: walk(schema.fields, ''),
  };
}

/**
 * Derivation (docs/api.md, "Extraction schemas"): object with properties/required/additionalProperties
 * false; a table or array field becomes an array whose items are a bare object (no item properties).
 */
export function fieldListToJsonSchema(schema: FieldListSchema): Record<string, unknown> {
  const prop = (f: SchemaField): Record<string, unknown> => {
    switch (f.type) {
      case 'table':
      case 'array':
        return { type: 'array', items: { type: 'object' }, description: f.description };
      case 'object':
        return { ...objectOf(f.children ?? []), description: f.description };
      case 'date':
        return { type: 'string', description: f.description };
      default:
        return { type: f.type, description: f.description };
    }
  };
  const objectOf = (fields: SchemaField[]) => ({
    type: 'object',
    properties: Object.fromEntries(fields.map((f) => [f.name, prop(f)])),
    required: fields.filter((f) => f.required).map((f) => f.name),
    additionalProperties: false,
  });
  return { $schema: 'https://json-schema.org/draft/2020-12/schema', title: schema.title, ...objectOf(schema.fields) };
}

/** Model-facing result schema: like the derived one, but every value may be null (honest "not found"). */
export function nullableResultSchema(fields: SchemaField[]): Record<string, unknown> {
  const prop = (f: SchemaField): Record<string, unknown> => {
    switch (f.type) {
      case 'table':
      case 'array':
        return {
          type: ['array', 'null'],
          items: f.children?.length ? { ...nullableResultSchema(f.children), additionalProperties: true } : {},
        };
      case 'object':
        return { anyOf: [nullableResultSchema(f.children ?? []), { type: 'null' }] };
      case 'date':
        return { type: ['string', 'null'] };
      default:
        return { type: [f.type, 'null'] };
    }
  };
  return {
    type: 'object',
    properties: Object.fromEntries(fields.map((f) => [f.name, prop(f)])),
    additionalProperties: true,
  };
}
