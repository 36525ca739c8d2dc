// The architecture's rules (ARCHITECTURE.md, "Rules"), checked on every file of the workspace so they
// are not prose only. Imports are read with TypeScript's own pre-processor (import, export-from,
// require and dynamic import), resolved to the package that owns the target.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { JOBS } from '../../libs/queue/src/registry';

const ROOT = path.resolve(__dirname, '../..');
const SKIP_DIRS = new Set(['node_modules', 'dist', 'generated', '.data', '.tmp', 'artifacts', 'coverage']);

interface Owner {
  /** `libs/pdf`, `services/gateway`, `test`, `bench`, `scripts` */
  pkg: string;
  /** Which part of the package: production code or its tests, evaluations and benchmarks. */
  part: 'src' | 'test' | 'other';
}

function walk(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    if (SKIP_DIRS.has(name) || name.startsWith('.')) continue;
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) walk(p, out);
    else if (/\.(ts|tsx|mts|cts)$/.test(name) && !name.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

function ownerOf(file: string): Owner {
  const rel = path.relative(ROOT, file).split(path.sep);
  if (rel[0] === 'libs' || rel[0] === 'services') {
    const part = rel[2] === 'src' ? 'src' : rel[2] === 'test' ? 'test' : 'other';
    return { pkg: `${rel[0]}/${rel[1]}`, part };
  }
  return { pkg: rel[0]!, part: rel[0] === 'test' ? 'test' : 'other' };
}

/** Workspace package name → its folder (`@docfleet/pdf` → `libs/pdf`). */
const packages = new Map<string, string>();
for (const top of ['libs', 'services']) {
  for (const name of readdirSync(path.join(ROOT, top))) {
    try {
      const pj = JSON.parse(readFileSync(path.join(ROOT, top, name, 'package.json'), 'utf8')) as { name: string };
      packages.set(pj.name, `${top}/${name}`);
    } catch {
      /* not a package */
    }
  }
}

interface Edge {
  from: string; // repository-relative file
  spec: string; // the specifier as written
  /** The owning package folder of the target, or the bare module name for third-party modules. */
  target: string;
  /** For relative imports: the target's part within its package. */
  targetPart?: Owner['part'];
  viaPackageName: boolean;
}

function edgesOf(file: string): Edge[] {
  const src = readFileSync(file, 'utf8');
  const info = ts.preProcessFile(src, true, true);
  const from = path.relative(ROOT, file);
  return info.importedFiles.map(({ fileName: spec }) => {
    if (spec.startsWith('.')) {
      const o = ownerOf(path.resolve(path.dirname(file), spec));
      return { from, spec, target: o.pkg, targetPart: o.part, viaPackageName: false };
    }
    const m = /^(@[^/]+\/[^/]+|[^/]+)/.exec(spec);
    const bare = m ? m[1]! : spec;
    const pkg = packages.get(bare);
    return { from, spec, target: pkg ?? bare, viaPackageName: pkg !== undefined };
  });
}

const files = ['libs', 'services', 'test', 'bench', 'scripts'].flatMap((d) => walk(path.join(ROOT, d)));
const edges = files.flatMap(edgesOf);
const fmt = (e: Edge) => `${e.from} → ${e.spec}`;

/** Operator and face packages: clients of the HTTP API, never of the database. */
const FACES = ['libs/sdk', 'services/mcp-server', 'services/cli', 'services/console'];
/** The operator commands bootstrap organisations and keys before any API key exists (ARCHITECTURE.md). */
const OPERATOR_CLI = /^services\/cli\/src\/admin[-\w]*\.ts$/;
const DATABASE_MODULES = new Set([
  'libs/db',
  '@prisma/client',
  'pg',
  'pg-copy-streams',
  'ioredis',
  'bullmq',
  'libs/queue',
]);

describe('architecture rules', () => {
  it('reads the whole workspace', () => {
    expect(files.length).toBeGreaterThan(300);
    expect(packages.get('@docfleet/gateway')).toBe('services/gateway');
  });

  it('a library never imports a service', () => {
    const bad = edges.filter(
      (e) =>
        e.from.startsWith('libs/') &&
        ownerOf(path.join(ROOT, e.from)).part === 'src' &&
        e.target.startsWith('services/'),
    );
    expect(bad.map(fmt)).toEqual([]);
  });

  it("a service's code never imports another service", () => {
    const bad = edges.filter((e) => {
      const o = ownerOf(path.join(ROOT, e.from));
      return (
        o.pkg.startsWith('services/') && o.part === 'src' && e.target.startsWith('services/') && e.target !== o.pkg
      );
    });
    expect(bad.map(fmt)).toEqual([]);
  });

  it('production code reaches another package only through its name, never a path into it', () => {
    const bad = edges.filter((e) => {
      const o = ownerOf(path.join(ROOT, e.from));
      return (
        o.part === 'src' &&
        !e.viaPackageName &&
        e.target !== o.pkg &&
        (e.target.startsWith('libs/') || e.target.startsWith('services/'))
      );
    });
    expect(bad.map(fmt)).toEqual([]);
  });

  it('faces (SDK, tool server, CLI, console) never touch the database or the queues; the operator commands are the one exception', () => {
    const bad = edges.filter((e) => {
      const o = ownerOf(path.join(ROOT, e.from));
      return FACES.includes(o.pkg) && o.part === 'src' && !OPERATOR_CLI.test(e.from) && DATABASE_MODULES.has(e.target);
    });
    expect(bad.map(fmt)).toEqual([]);
  });

  it('only libs/queue talks to BullMQ: every job and schedule goes through the queue registry', () => {
    const bad = edges.filter((e) => e.target === 'bullmq' && !e.from.startsWith('libs/queue/src/'));
    expect(bad.map(fmt)).toEqual([]);
  });

  it('only libs/billing writes the credit tables', () => {
    const prismaWrite =
      /\.(creditAccount|creditReservation|ledgerEntry|usageDaily|knowledgeBaseJobCreditReservation)\.(create|createMany|update|updateMany|upsert|delete|deleteMany)\b/;
    const sqlWrite =
      /\b(INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s+"?(credit_accounts|credit_reservations|ledger_entries|usage_daily|knowledge_base_job_credit_reservations)\b/i;
    const bad: string[] = [];
    for (const f of files) {
      const o = ownerOf(f);
      if (o.part !== 'src' || o.pkg === 'libs/billing') continue;
      readFileSync(f, 'utf8')
        .split('\n')
        .forEach((line, i) => {
          if (prismaWrite.test(line) || sqlWrite.test(line)) bad.push(`${path.relative(ROOT, f)}:${i + 1}`);
        });
    }
    expect(bad).toEqual([]);
  });

  it('every job name the code enqueues, handles or schedules is declared in the queue registry', () => {
    // A job name is `<queue or family>.<name>`; one used where a job is enqueued, handled or
    // scheduled must be a key of JOBS (libs/queue/src/registry.ts), so a typo or an ad-hoc job cast
    // past the types never reaches Redis.
    const declared = new Set(Object.keys(JOBS));
    const families = [...new Set(Object.keys(JOBS).map((n) => n.split('.')[0]!))].join('|');
    const uses = [
      new RegExp(`\\benqueue\\(\\s*['"\`]((?:${families})\\.[\\w-]+)['"\`]`, 'g'),
      new RegExp(`^\\s*['"]((?:${families})\\.[\\w-]+)['"]\\s*:`, 'gm'),
      new RegExp(`\\[\\s*['"]((?:${families})\\.[\\w-]+)['"]\\s*,`, 'g'),
    ];
    const bad: string[] = [];
    let seen = 0;
    for (const f of files) {
      const o = ownerOf(f);
      if (o.part !== 'src' || o.pkg === 'libs/queue') continue;
      const src = readFileSync(f, 'utf8');
      if (!/@docfleet\/queue|\benqueue\(/.test(src)) continue;
      for (const re of uses)
        for (const m of src.matchAll(re)) {
          seen++;
          if (!declared.has(m[1]!)) bad.push(`${path.relative(ROOT, f)}: ${m[1]}`);
        }
    }
    expect(seen).toBeGreaterThan(10);
    expect(bad).toEqual([]);
  });

  it("the SDK's wire types are inferred from libs/contracts, never written by hand", () => {
    // SDK constructs that are not wire shapes: the 202-or-200 answer of a queued workflow, a bare list.
    const SDK_OWN = new Set(['QueuedResult', 'SegmentList']);
    const bad: string[] = [];
    for (const rel of ['libs/sdk/src/types.ts', 'libs/sdk/src/contract-types.ts']) {
      const src = ts.createSourceFile(rel, readFileSync(path.join(ROOT, rel), 'utf8'), ts.ScriptTarget.Latest, true);
      for (const st of src.statements) {
        if (ts.isInterfaceDeclaration(st)) bad.push(`${rel}: interface ${st.name.text}`);
        if (ts.isTypeAliasDeclaration(st) && !SDK_OWN.has(st.name.text) && !/\bapi\.\w+/.test(st.type.getText(src)))
          bad.push(`${rel}: type ${st.name.text}`);
      }
    }
    expect(bad).toEqual([]);
  });

  it('the rules can fail: a deliberate violation is caught', () => {
    const probe = ts.preProcessFile(
      "import { x } from '../../services/gateway/src/app';\nexport * from 'bullmq';",
      true,
      true,
    );
    expect(probe.importedFiles.map((f) => f.fileName)).toEqual(['../../services/gateway/src/app', 'bullmq']);
    expect(ownerOf(path.resolve(ROOT, 'libs/pdf/src', '../../../services/gateway/src/app'))).toEqual({
      pkg: 'services/gateway',
      part: 'src',
    });
  });
});
