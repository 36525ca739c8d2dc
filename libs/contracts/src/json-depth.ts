/**
 * The deepest JSON the API accepts or stores: 64 levels of objects and arrays, counting the outermost
 * as 1 (docs/errors.md). Deeper values overflow recursive serialisers (Prisma's, JSON.stringify,
 * JSON Schema compilers) with a stack error, so they are refused at the edge and can never be stored.
 */
export const MAX_JSON_DEPTH = 64;

/**
 * The path (keys and indices) of the first object or array nested deeper than `max` levels in
 * `value`, or null when there is none. Iterative: a value a million levels deep is walked safely.
 */
export function tooDeepPath(value: unknown, max = MAX_JSON_DEPTH): Array<string | number> | null {
  if (value === null || typeof value !== 'object') return null;
  // Parent links instead of a path per entry: the path is rebuilt only for the offender.
  const nodes: Array<{ key: string | number; parent: number }> = [{ key: '', parent: -1 }];
  const stack: Array<{ v: object; depth: number; node: number }> = [{ v: value, depth: 1, node: 0 }];
  while (stack.length) {
    const { v, depth, node } = stack.pop()!;
    if (depth > max) {
      const path: Array<string | number> = [];
      for (let n = node; n > 0; n = nodes[n].parent) path.push(nodes[n].key);
      return path.reverse();
    }
    const entries: Array<[string | number, unknown]> = Array.isArray(v) ? v.map((x, i) => [i, x]) : Object.entries(v);
    for (const [k, child] of entries) {
      if (child === null || typeof child !== 'object') continue;
      nodes.push({ key: k, parent: node });
      stack.push({ v: child, depth: depth + 1, node: nodes.length - 1 });
    }
  }
  return null;
}

/** `metadata.a.0.b` for ['metadata', 'a', 0, 'b'] (long keys shortened); the body itself is `(body)`. */
export function formatJsonPath(path: Array<string | number>): string {
  const short = path.map((k) => (typeof k === 'string' && k.length > 40 ? `${k.slice(0, 39)}…` : k));
  return short.length ? short.join('.') : '(body)';
}
