// The result tree (docs/api.md, "Extraction results"): one node per schema field in schema order,
// children for objects and for the rows of tables and arrays. Shared by both extraction paths; the file-job
// path adds `missingReason` and takes the minimum citation confidence instead of the first. The node's wire
// shape is api.ResultNode (libs/contracts).
import type { api } from '@docfleet/contracts';
import type { Citation, SchemaField } from '@docfleet/models';

/** Confidence of a node without any citation: "unattributed" (docs/api.md, "Extraction results"). */
export const UNATTRIBUTED = 0.8;

export interface TreeOptions {
  /** 'first' (operation path) or 'min' (file-job path) citation confidence. */
  confidence: 'first' | 'min';
  /** Mark empty values with missingReason: not_in_evidence (file-job path). */
  markMissing: boolean;
}

const isEmpty = (v: unknown) => v === null || v === undefined || v === '' || (Array.isArray(v) && v.length === 0);

const label = (name: string) =>
  name
    .replace(/_+/g, ' ')
    .trim()
    .replace(/^./, (c) => c.toUpperCase());

export function buildResultTree(
  fields: SchemaField[],
  jsonResult: Record<string, unknown>,
  citations: Citation[],
  opts: TreeOptions,
): api.ResultNode[] {
  const byPath = new Map<string, Citation[]>();
  for (const c of citations) byPath.set(c.path, [...(byPath.get(c.path) ?? []), c]);
  // A node owns the citations at its path and, for scalars, nothing else; a container's
  // citations are those aimed at the container itself.
  const node = (f: SchemaField, value: unknown, path: string, fieldPath: string): api.ResultNode => {
    const own = byPath.get(path) ?? [];
    const confs = own.map((c) => c.confidence).filter((n) => typeof n === 'number');
    const confidence = confs.length ? (opts.confidence === 'min' ? Math.min(...confs) : confs[0]!) : UNATTRIBUTED;
    const children: api.ResultNode[] = [];
    if (f.type === 'object' && f.children?.length && value && typeof value === 'object' && !Array.isArray(value)) {
      for (const c of f.children)
        children.push(
          node(c, (value as Record<string, unknown>)[c.name], `${path}/${c.name}`, `${fieldPath}.${c.name}`),
        );
    } else if ((f.type === 'table' || f.type === 'array') && Array.isArray(value)) {
      value.forEach((row, i) => {
        const rowPath = `${path}/${i}`;
        const rowChildren =
          f.children?.length && row && typeof row === 'object'
            ? f.children.map((c) =>
                node(c, (row as Record<string, unknown>)[c.name], `${rowPath}/${c.name}`, `${fieldPath}.${c.name}`),
              )
            : [];
        const rowCites = byPath.get(rowPath) ?? [];
        // A JSON value's typeof (string, number, boolean, object) is always a field type name.
        children.push({
          id: `node-${fieldPath}-${i}`,
          fieldId: f.id ?? `field-${fieldPath}`,
          path: rowPath,
          label: `${label(f.name)} ${i + 1}`,
          type: isEmpty(row) ? null : f.children?.length ? 'object' : (typeof row as api.FieldType),
          value: row,
          confidence: rowCites.length ? rowCites[0]!.confidence : UNATTRIBUTED,
          citations: rowCites,
          children: rowChildren,
        });
      });
    }
    const empty = isEmpty(value);
    return {
      id: `node-${fieldPath}`,
      fieldId: f.id ?? `field-${fieldPath}`,
      path,
      label: label(f.name),
      type: empty ? null : f.type,
      value: value === undefined ? null : value,
      confidence,
      citations: own,
      children,
      ...(opts.markMissing && empty ? { missingReason: 'not_in_evidence' as const } : {}),
    };
  };
  return fields.map((f) => node(f, jsonResult[f.name], `/${f.name}`, f.name));
}
