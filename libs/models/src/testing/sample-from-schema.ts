// Builds a small value that satisfies a JSON schema, so the fake servers can answer any structured
// request sensibly when a test did not script the answer.
export function sampleFromSchema(schema: unknown, root: unknown = schema, depth = 0): unknown {
  const s = (schema ?? {}) as Record<string, unknown>;
  if (depth > 8) return null;
  if (typeof s.$ref === 'string') {
    const target = s.$ref
      .replace(/^#\//, '')
      .split('/')
      .reduce<unknown>((o, k) => (o as Record<string, unknown> | undefined)?.[k], root);
    return sampleFromSchema(target, root, depth + 1);
  }
  if (s.const !== undefined) return s.const;
  if (Array.isArray(s.enum)) return s.enum[0];
  if (Array.isArray(s.anyOf)) return sampleFromSchema(s.anyOf[0], root, depth + 1);
  if (Array.isArray(s.oneOf)) return sampleFromSchema(s.oneOf[0], root, depth + 1);
  const type = Array.isArray(s.type) ? (s.type.find((t) => t !== 'null') ?? 'null') : s.type;
  switch (type) {
    case 'object':
    case undefined: {
      if (type === undefined && !s.properties) return {};
      const props = (s.properties ?? {}) as Record<string, unknown>;
      const required = new Set((s.required as string[] | undefined) ?? Object.keys(props));
      return Object.fromEntries(
        Object.entries(props)
          .filter(([k]) => required.has(k))
          .map(([k, v]) => [k, sampleFromSchema(v, root, depth + 1)]),
      );
    }
    case 'array': {
      const n = typeof s.minItems === 'number' ? s.minItems : 0;
      return Array.from({ length: n }, () => sampleFromSchema(s.items, root, depth + 1));
    }
    case 'string':
      return 'sample';
    case 'integer':
      return typeof s.minimum === 'number' ? s.minimum : 1;
    case 'number':
      return typeof s.minimum === 'number' ? s.minimum : 0.5;
    case 'boolean':
      return false;
    case 'null':
      return null;
    default:
      return null;
  }
}
