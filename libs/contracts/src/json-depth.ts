/**
 * The deepest JSON the API accepts or stores: 64 levels of objects and arrays, counting the outermost
 * as 1 (docs/errors.md). Deeper values overflow recursive serialisers (Prisma's, JSON.stringify,
 * JSON Schema compilers) with a stack error, so they are refused at the edge and can never be stored.
 */
export const MAX_JSON_DEPTH = 64;

/**
 * The path (keys and indices) of the first object or array nested deeper than `max` levels in
 * `value`, or null when there is none. Iterative, so a value a million levels deep is walked
 * safely; a first walk allocates nothing per value (a 1 MiB body takes a few milliseconds, less
 * than parsing it), and only an offending value is walked again to name the path.
 */
export function tooDeepPath(value: unknown, max = MAX_JSON_DEPTH): Array<string | number> | null {
  if (value === null || typeof value !== 'object') return null;
  return exceedsDepth(value, max) ? pathTooDeep(value, max) : null;
}

function exceedsDepth(root: object, max: number): boolean {
  const values: unknown[] = [root];
  const depths: number[] = [1];
  while (values.length) {
    const v = values.pop() as Record<string, unknown> | unknown[];
    const depth = depths.pop()!;
    if (depth > max) return true;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        const c = v[i];
        if (c !== null && typeof c === 'object') {
          values.push(c);
          depths.push(depth + 1);
        }
      }
    } else {
      for (const k in v) {
        const c = v[k];
        if (c !== null && typeof c === 'object') {
          values.push(c);
          depths.push(depth + 1);
        }
      }
    }
  }
  return false;
}

/** Depth-first with one frame per open container: the frames are the path when it gets too deep. */
function pathTooDeep(root: object, max: number): Array<string | number> {
  const frames: Array<{ v: any; keys: string[] | null; i: number }> = [
    { v: root, keys: Array.isArray(root) ? null : Object.keys(root), i: 0 },
  ];
  while (frames.length) {
    const f = frames[frames.length - 1];
    if (f.i >= (f.keys ? f.keys.length : f.v.length)) {
      frames.pop();
      continue;
    }
    const child = f.keys ? f.v[f.keys[f.i]] : f.v[f.i];
    f.i++;
    if (child === null || typeof child !== 'object') continue;
    if (frames.length + 1 > max) return frames.map((x) => (x.keys ? x.keys[x.i - 1] : x.i - 1));
    frames.push({ v: child, keys: Array.isArray(child) ? null : Object.keys(child), i: 0 });
  }
  return [];
}

/** `metadata.a.0.b` for ['metadata', 'a', 0, 'b'] (long keys shortened); the body itself is `(body)`. */
export function formatJsonPath(path: Array<string | number>): string {
  const short = path.map((k) => (typeof k === 'string' && k.length > 40 ? `${k.slice(0, 39)}…` : k));
  return short.length ? short.join('.') : '(body)';
}
