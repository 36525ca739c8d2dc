// docs/errors.md cannot drift from the code: every error code the gateway can answer (CODE_STATUS, every
// ApiError thrown anywhere, every code a route declares in OpenAPI) is in its HTTP table with the status
// it maps to, every job and operation failure code the workers can record is in its tables, and nothing
// is listed there that the source no longer has.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { CODE_STATUS } from '@docfleet/errors';
import { startGateway } from './harness';

const ROOT = path.resolve(__dirname, '../../..');
const DOC = readFileSync(path.join(ROOT, 'docs/errors.md'), 'utf8');

/** `| a | b | c |` rows of the section under `## title`, as cell arrays (header and rule rows dropped). */
function tableRows(title: string): string[][] {
  const start = DOC.indexOf(`\n## ${title}\n`);
  if (start < 0) throw new Error(`docs/errors.md has no section '## ${title}'`);
  const end = DOC.indexOf('\n## ', start + 1);
  const section = DOC.slice(start, end < 0 ? undefined : end);
  const rows = section
    .split('\n')
    .filter((l) => l.startsWith('|'))
    .map((l) =>
      l
        .split('|')
        .slice(1, -1)
        .map((c) => c.trim()),
    );
  return rows.slice(2);
}

const httpRows = tableRows('HTTP errors');
const documentedHttp = new Map(httpRows.map(([status, code]) => [code, Number(status)]));
const documentedJob = new Set(tableRows('Job failures').map(([code]) => code));
const documentedOp = new Set(tableRows('Operation failures').map(([code]) => code));

function sources(rel: string): Array<{ file: string; text: string }> {
  const out: Array<{ file: string; text: string }> = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const p = path.join(dir, name);
      if (name === 'node_modules' || name === 'generated' || name === 'test') continue;
      if (statSync(p).isDirectory()) walk(p);
      else if (name.endsWith('.ts')) out.push({ file: path.relative(ROOT, p), text: readFileSync(p, 'utf8') });
    }
  };
  walk(path.join(ROOT, rel));
  return out;
}
const every = (dirs: string[]) =>
  dirs
    .flatMap((d) => readdirSync(path.join(ROOT, d)).map((n) => `${d}/${n}/src`))
    .filter((d) => {
      try {
        return statSync(path.join(ROOT, d)).isDirectory();
      } catch {
        return false;
      }
    });
const ALL_SRC = every(['libs', 'services']).flatMap(sources);

/** Captures of `re` over the given files, with where each was found. */
function grep(files: Array<{ file: string; text: string }>, re: RegExp): Map<string, string> {
  const found = new Map<string, string>();
  for (const { file, text } of files) for (const m of text.matchAll(re)) if (!found.has(m[1])) found.set(m[1], file);
  return found;
}

/** The members of `export type Name = | 'a' | 'b';` in a file. */
function unionMembers(rel: string, typeName: string): string[] {
  const text = readFileSync(path.join(ROOT, rel), 'utf8');
  const m = new RegExp(`export type ${typeName} =([^;]+);`).exec(text);
  if (!m) throw new Error(`${rel} has no type ${typeName}`);
  return [...m[1].matchAll(/'([a-z_]+)'/g)].map((x) => x[1]);
}

describe('docs/errors.md', () => {
  it('lists every code of CODE_STATUS with its status, and no code CODE_STATUS lacks', () => {
    const missing = Object.entries(CODE_STATUS)
      .filter(([code, status]) => documentedHttp.get(code) !== status)
      .map(([code, status]) => `${status} ${code}`);
    expect(missing).toEqual([]);
    expect([...documentedHttp.keys()].filter((c) => !(c in CODE_STATUS))).toEqual([]);
    expect(httpRows.length).toBe(documentedHttp.size); // no code twice
  });

  it('lists every code an ApiError is thrown with anywhere in the source', () => {
    const thrown = grep(ALL_SRC, /new ApiError\(\s*'([a-z_]+)'/g);
    expect(thrown.size).toBeGreaterThan(30);
    expect(
      [...thrown].filter(([code]) => !documentedHttp.has(code)).map(([code, file]) => `${code} (${file})`),
    ).toEqual([]);
  });

  it('lists every code a route declares in the OpenAPI document', async () => {
    const gw = await startGateway();
    try {
      const doc = (await gw.req('GET', '/v1/openapi.json')).body;
      const declared = new Set<string>();
      for (const ops of Object.values<Record<string, any>>(doc.paths)) {
        for (const op of Object.values<any>(ops)) {
          const d: string = op.responses?.default?.description ?? '';
          for (const c of d.split('codes: ')[1]?.split(', ') ?? []) declared.add(c.trim());
        }
      }
      expect(declared.size).toBeGreaterThan(20);
      expect([...declared].filter((c) => !documentedHttp.has(c))).toEqual([]);
    } finally {
      await gw.close();
    }
  });

  it('lists every job failure code the workers record, and only those', () => {
    const parse = unionMembers('libs/pdf/src/parse-error.ts', 'ParseErrorCode');
    const sheets = unionMembers('libs/sheets/src/errors.ts', 'SheetErrorCode');
    const permanent = grep(ALL_SRC, /new PermanentFailure\([\s\S]*?,\s*'([a-z_]+)',?\s*\)/g);
    expect(permanent.size).toBeGreaterThan(5);
    // Jobs failed outside the handlers: rows written with their code (gateway dispatch, billing
    // reaper), and the parse worker's reaper (finishFailed with a literal code, or one of two).
    const written = grep(ALL_SRC, /error_code: '([a-z_]+)'/g);
    const reaped = [
      ...grep(ALL_SRC, /(?:finishFailed|failParseJob)\([^;]*?code: (?:\w+ \? )?'([a-z_]+)'/g).keys(),
      ...grep(ALL_SRC, /(?:finishFailed|failParseJob)\([^;]*?code: \w+ \? '[a-z_]+' : '([a-z_]+)'/g).keys(),
    ];
    expect(written.size + reaped.length).toBeGreaterThanOrEqual(4);
    // 'cancelled' ends a job cancelled, not failed
    const recorded = new Set(
      [
        ...parse,
        ...sheets,
        ...permanent.keys(),
        ...written.keys(),
        ...reaped,
        'internal_error',
        'reserved_credits_exhausted',
      ].filter((c) => c !== 'cancelled'),
    );
    expect([...recorded].filter((c) => !documentedJob.has(c))).toEqual([]);
    expect([...documentedJob].filter((c) => !recorded.has(c))).toEqual([]);
  });

  it('lists every operation failure code, and only those', () => {
    const model = unionMembers('libs/models/src/errors.ts', 'ModelErrorCode').filter((c) => !documentedHttp.has(c));
    // operation errors are written `code: sentence`
    const opSources = [
      ...sources('services/workflow-worker/src'),
      ...sources('libs/workflows/src'),
      ...sources('services/gateway/src/domain/operations'),
    ];
    const prefixed = grep(opSources, /[`'"]([a-z][a-z_]+): /g);
    const recorded = new Set([
      ...model,
      ...[...prefixed.keys()].filter(
        (c) => !documentedHttp.has(c) || c === 'model_call_failed' || c === 'service_unavailable',
      ),
    ]);
    expect(
      [...recorded]
        .filter((c) => !documentedOp.has(c))
        .map((c) => `${c} (${prefixed.get(c) ?? 'libs/models/src/errors.ts'})`),
    ).toEqual([]);
    expect([...documentedOp].filter((c) => !recorded.has(c) && !documentedHttp.has(c))).toEqual([]);
  });
});
