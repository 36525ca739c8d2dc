// The file-job path takes a JSON Schema while every model (and docfleet-local) reads a field list.
// This turns the schema's properties into fields and remembers each field's original property
// name, so results come back keyed exactly as the caller's schema names them.
import { normalizeFieldName, type FieldType, type SchemaField } from '@docfleet/models';

export interface MappedField extends SchemaField {
  /** The property name in the caller's JSON Schema. */
  original: string;
  children?: MappedField[];
}

type Json = Record<string, unknown>;
const isObj = (v: unknown): v is Json => !!v && typeof v === 'object' && !Array.isArray(v);

/** Follows a local `#/$defs/x` (or `#/definitions/x`) reference; anything else is used as is. */
function deref(root: Json, s: unknown, depth = 0): Json {
  if (!isObj(s)) return {};
  const ref = s.$ref;
  if (typeof ref === 'string' && ref.startsWith('#/') && depth < 16) {
    const target = ref
      .slice(2)
      .split('/')
      .reduce<unknown>((v, k) => (isObj(v) ? v[k.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined), root);
    return deref(root, target, depth + 1);
  }
  // A nullable union (anyOf / oneOf with null) reads as its non-null branch.
  for (const k of ['anyOf', 'oneOf'] as const) {
    const alts = s[k];
    if (Array.isArray(alts)) {
      const real = alts.filter((a) => !(isObj(a) && a.type === 'null'));
      if (real.length === 1) return { ...s, ...deref(root, real[0], depth + 1) };
    }
  }
  return s;
}

function typeOf(s: Json): string | undefined {
  const t = s.type;
  if (Array.isArray(t)) return t.find((x) => x !== 'null') as string | undefined;
  if (typeof t === 'string') return t;
  if (isObj(s.properties)) return 'object';
  if (s.items) return 'array';
  return undefined;
}

function fieldsOf(root: Json, obj: Json, parentPath: string, depth: number): MappedField[] {
  const props = isObj(obj.properties) ? obj.properties : {};
  const required = new Set(
    Array.isArray(obj.required) ? obj.required.filter((x): x is string => typeof x === 'string') : [],
  );
  const seen = new Set<string>();
  const out: MappedField[] = [];
  for (const [original, raw] of Object.entries(props)) {
    const s = deref(root, raw);
    let name = normalizeFieldName(original);
    // Two properties that normalise alike keep distinct keys for the model.
    for (let i = 2; seen.has(name); i++) name = `${normalizeFieldName(original)}_${i}`;
    seen.add(name);
    const path = parentPath ? `${parentPath}.${name}` : name;
    const t = typeOf(s);
    let type: FieldType = 'string';
    let children: MappedField[] = [];
    if (t === 'number' || t === 'integer') type = 'number';
    else if (t === 'boolean') type = 'boolean';
    else if (t === 'string') type = s.format === 'date' || s.format === 'date-time' ? 'date' : 'string';
    else if (t === 'object') {
      type = 'object';
      if (depth < 8) children = fieldsOf(root, s, path, depth + 1);
    } else if (t === 'array') {
      const items = deref(root, s.items);
      if (typeOf(items) === 'object' && depth < 8) {
        children = fieldsOf(root, items, path, depth + 1);
        type = children.length ? 'table' : 'array';
      } else type = 'array';
    }
    const description = [
      typeof s.title === 'string' ? s.title : '',
      typeof s.description === 'string' ? s.description : '',
    ]
      .filter(Boolean)
      .join(': ');
    out.push({
      id: `field-${path}`,
      name,
      original,
      type,
      description,
      required: required.has(original),
      ...(children.length ? { children } : {}),
    });
  }
  return out;
}

/** Fields of a JSON Schema's top-level object (a schema with no properties gives none). */
export function jsonSchemaToFields(schema: Record<string, unknown>): MappedField[] {
  return fieldsOf(schema, deref(schema, schema), '', 0);
}

const isEmpty = (v: unknown) => v === null || v === undefined || v === '' || (Array.isArray(v) && v.length === 0);

/**
 * Renames the model's keys (normalised names) back to the schema's property names, and leaves out
 * values the model did not find: in JSON Schema an absent property and a null one differ, and
 * "not found" is an absent one (the result tree still shows the field, with missingReason).
 */
export function toSchemaKeys(fields: MappedField[], value: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of fields) {
    const v = value[f.name];
    if (isEmpty(v)) continue;
    if (f.type === 'object' && f.children?.length && isObj(v)) out[f.original] = toSchemaKeys(f.children, v);
    else if (f.type === 'table' && f.children?.length && Array.isArray(v))
      out[f.original] = v.map((row) => (isObj(row) ? toSchemaKeys(f.children!, row) : row));
    else out[f.original] = v;
  }
  return out;
}

/** Rewrites a citation path (`/invoice_number`, `/lines/0/amount`) into the schema's property names (JSON Pointer escaped). */
export function toSchemaPath(fields: MappedField[], path: string): string {
  const esc = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');
  const parts = path.split('/').filter(Boolean);
  const out: string[] = [];
  let level: MappedField[] | undefined = fields;
  for (const p of parts) {
    if (/^\d+$/.test(p)) {
      out.push(p);
      continue;
    }
    const f: MappedField | undefined = level?.find((x) => x.name === p);
    out.push(esc(f ? f.original : p));
    level = f?.children;
  }
  return `/${out.join('/')}`;
}
