// The architecture's rules (ARCHITECTURE.md, "Rules"), checked on every file of the workspace so they
// are not prose only. Imports are read with TypeScript's own pre-processor (import, export-from,
// require and dynamic import), resolved to the package that owns the target.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { JOBS } from '../../libs/queue/src/registry';
import { pollLoopLines } from './poll-loops';

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

const partOf = (e: Edge) => ownerOf(path.join(ROOT, e.from));

/** A library (its code or its tests) never imports a service. */
const libraryImportsService = (es: Edge[]) =>
  es.filter((e) => e.from.startsWith('libs/') && e.target.startsWith('services/')).map(fmt);

/** A service (its code or its tests) never imports another service. */
const serviceImportsService = (es: Edge[]) =>
  es
    .filter((e) => {
      const o = partOf(e);
      return o.pkg.startsWith('services/') && e.target.startsWith('services/') && e.target !== o.pkg;
    })
    .map(fmt);

/** Benchmarks, evaluations, scripts and the workspace's tests start services as processes (libs/testing), never import their code. */
const TOOLS = new Set(['bench', 'scripts', 'test']);
const toolImportsService = (es: Edge[]) =>
  es.filter((e) => TOOLS.has(partOf(e).pkg) && e.target.startsWith('services/')).map(fmt);

/** Production code reaches another package only through its name, never a path into it. */
const pathIntoPackage = (es: Edge[]) =>
  es
    .filter((e) => {
      const o = partOf(e);
      return (
        o.part === 'src' &&
        !e.viaPackageName &&
        e.target !== o.pkg &&
        (e.target.startsWith('libs/') || e.target.startsWith('services/'))
      );
    })
    .map(fmt);

/** Faces never touch the database or the queues; the operator commands are the one exception. */
const faceImportsDatabase = (es: Edge[]) =>
  es
    .filter((e) => {
      const o = partOf(e);
      return FACES.includes(o.pkg) && o.part === 'src' && !OPERATOR_CLI.test(e.from) && DATABASE_MODULES.has(e.target);
    })
    .map(fmt);

/** Only libs/queue talks to BullMQ. */
const bullmqOutsideQueue = (es: Edge[]) =>
  es.filter((e) => e.target === 'bullmq' && !e.from.startsWith('libs/queue/src/')).map(fmt);

const PRISMA_CREDIT_WRITE =
  /\.(creditAccount|creditReservation|ledgerEntry|usageDaily|knowledgeBaseJobCreditReservation)\.(create|createMany|update|updateMany|upsert|delete|deleteMany)\b/;
const SQL_CREDIT_WRITE =
  /\b(INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s+"?(credit_accounts|credit_reservations|ledger_entries|usage_daily|knowledge_base_job_credit_reservations)\b/i;

/** Only libs/billing's code writes the credit tables (Prisma calls or SQL). */
function creditWritesOutsideBilling(sources: Array<{ file: string; text: string }>): string[] {
  const bad: string[] = [];
  for (const { file, text } of sources) {
    const o = ownerOf(path.join(ROOT, file));
    if (o.part !== 'src' || o.pkg === 'libs/billing') continue;
    text.split('\n').forEach((line, i) => {
      if (PRISMA_CREDIT_WRITE.test(line) || SQL_CREDIT_WRITE.test(line)) bad.push(`${file}:${i + 1}`);
    });
  }
  return bad;
}

/** A poll helper of a test file's own (`async function until`, `const waitFor = async …`). */
const OWN_POLL_HELPER =
  /^\s*(?:export\s+)?(?:async\s+function\s+(?:until|waitFor|waitUntil|poll|eventually)\b|(?:const|let)\s+(?:until|waitFor|waitUntil|poll|eventually)\s*=\s*(?:async\b|<|\())/;

/** Tests poll through libs/testing's waitUntil (one timeout error that names what was awaited), never their own helper. */
function ownPollHelpers(sources: Array<{ file: string; text: string }>): string[] {
  const bad: string[] = [];
  for (const { file, text } of sources) {
    if (ownerOf(path.join(ROOT, file)).part !== 'test') continue;
    text.split('\n').forEach((line, i) => {
      if (OWN_POLL_HELPER.test(line)) bad.push(`${file}:${i + 1}`);
    });
  }
  return bad;
}

/** Tests poll through waitUntil, never a loop of their own that sleeps until a state or a deadline (poll-loops.ts). */
function inlinePollLoops(sources: Array<{ file: string; text: string }>): string[] {
  return sources
    .filter(({ file }) => ownerOf(path.join(ROOT, file)).part === 'test')
    .flatMap(({ file, text }) => pollLoopLines(file, text).map((line) => `${file}:${line}`));
}

const DECLARED_JOBS = new Set(Object.keys(JOBS));
const FAMILIES = [...new Set(Object.keys(JOBS).map((n) => n.split('.')[0]!))].join('|');
const JOB_NAME_USES = [
  new RegExp(`\\benqueue\\(\\s*['"\`]((?:${FAMILIES})\\.[\\w-]+)['"\`]`, 'g'),
  new RegExp(`^\\s*['"]((?:${FAMILIES})\\.[\\w-]+)['"]\\s*:`, 'gm'),
  new RegExp(`\\[\\s*['"]((?:${FAMILIES})\\.[\\w-]+)['"]\\s*,`, 'g'),
];

/**
 * Every job name the code enqueues, handles or schedules is a key of JOBS (libs/queue/src/registry.ts),
 * so a typo or an ad-hoc job cast past the types never reaches Redis. Returns the uses seen and the bad ones.
 */
function jobNamesOutsideRegistry(sources: Array<{ file: string; text: string }>) {
  const bad: string[] = [];
  let seen = 0;
  for (const { file, text } of sources) {
    const o = ownerOf(path.join(ROOT, file));
    if (o.part !== 'src' || o.pkg === 'libs/queue') continue;
    if (!/@docfleet\/queue|\benqueue\(/.test(text)) continue;
    for (const re of JOB_NAME_USES)
      for (const m of text.matchAll(re)) {
        seen++;
        if (!DECLARED_JOBS.has(m[1]!)) bad.push(`${file}: ${m[1]}`);
      }
  }
  return { seen, bad };
}

const sources = files.map((f) => ({ file: path.relative(ROOT, f), text: readFileSync(f, 'utf8') }));

/** Worker services not yet in the shape below; each entry is a debt to pay, not a permission to add. */
const KNOWN_OFF_SHAPE = new Set<string>([]);
const SHAPE_FILES = ['main.ts', 'config.ts', 'deps.ts', 'worker.ts'];

/**
 * One shape for every worker service (a service whose code starts a queue consumer, `createWorker(`):
 * `src/main.ts` (wiring, onShutdown), `src/config.ts`, `src/deps.ts`, `src/worker.ts` (the handler map
 * and the only `createWorker(` call), and its job handlers as `src/jobs/<job>.handler.ts`.
 * Returns the worker services seen and what each lacks or has out of place.
 */
function workerShapeBreaches(sources: Array<{ file: string; text: string }>, known = KNOWN_OFF_SHAPE) {
  const srcOf = new Map<string, Array<{ rel: string; text: string }>>();
  for (const { file, text } of sources) {
    const o = ownerOf(path.join(ROOT, file));
    if (!o.pkg.startsWith('services/') || o.part !== 'src') continue;
    const rel = path.relative(path.join(o.pkg, 'src'), file).split(path.sep).join('/');
    srcOf.set(o.pkg, [...(srcOf.get(o.pkg) ?? []), { rel, text }]);
  }
  const workers: string[] = [];
  const bad: string[] = [];
  for (const [pkg, src] of srcOf) {
    if (!src.some((f) => /\bcreateWorker\(/.test(f.text))) continue;
    workers.push(pkg);
    if (known.has(pkg)) continue;
    for (const name of SHAPE_FILES) if (!src.some((f) => f.rel === name)) bad.push(`${pkg}: no src/${name}`);
    for (const f of src) {
      if (/\bcreateWorker\(/.test(f.text) && f.rel !== 'worker.ts') bad.push(`${pkg}: createWorker in src/${f.rel}`);
      if (f.rel.endsWith('.handler.ts') && !f.rel.startsWith('jobs/'))
        bad.push(`${pkg}: src/${f.rel} outside src/jobs/`);
    }
    if (!src.some((f) => /^jobs\/[\w-]+\.handler\.ts$/.test(f.rel))) bad.push(`${pkg}: no src/jobs/<job>.handler.ts`);
  }
  return { workers: workers.sort(), bad };
}

/** The import edges of one made-up file at `from` (repository-relative). */
function edgesOfText(from: string, text: string): Edge[] {
  return ts.preProcessFile(text, true, true).importedFiles.map(({ fileName: spec }) => {
    if (spec.startsWith('.')) {
      const o = ownerOf(path.resolve(path.dirname(path.join(ROOT, from)), spec));
      return { from, spec, target: o.pkg, targetPart: o.part, viaPackageName: false };
    }
    const bare = /^(@[^/]+\/[^/]+|[^/]+)/.exec(spec)?.[1] ?? spec;
    const pkg = packages.get(bare);
    return { from, spec, target: pkg ?? bare, viaPackageName: pkg !== undefined };
  });
}

describe('architecture rules', () => {
  it('reads the whole workspace', () => {
    expect(files.length).toBeGreaterThan(300);
    expect(packages.get('@docfleet/gateway')).toBe('services/gateway');
  });

  it('a library (code or tests) never imports a service', () => {
    expect(libraryImportsService(edges)).toEqual([]);
  });

  it('a service (code or tests) never imports another service', () => {
    expect(serviceImportsService(edges)).toEqual([]);
  });

  it('benchmarks, evaluations and scripts never import a service: they start it as a process', () => {
    expect(toolImportsService(edges)).toEqual([]);
  });

  it('production code reaches another package only through its name, never a path into it', () => {
    expect(pathIntoPackage(edges)).toEqual([]);
  });

  it('faces (SDK, tool server, CLI, console) never touch the database or the queues; the operator commands are the one exception', () => {
    expect(faceImportsDatabase(edges)).toEqual([]);
  });

  it('only libs/queue talks to BullMQ: every job and schedule goes through the queue registry', () => {
    expect(bullmqOutsideQueue(edges)).toEqual([]);
  });

  it('only libs/billing writes the credit tables', () => {
    expect(creditWritesOutsideBilling(sources)).toEqual([]);
  });

  it("tests wait through libs/testing's waitUntil, never a poll helper of their own", () => {
    expect(ownPollHelpers(sources)).toEqual([]);
  });

  it("tests wait through libs/testing's waitUntil, never an inline poll loop with a deadline or a count of tries", () => {
    expect(inlinePollLoops(sources)).toEqual([]);
  });

  it('every job name the code enqueues, handles or schedules is declared in the queue registry', () => {
    const { seen, bad } = jobNamesOutsideRegistry(sources);
    expect(seen).toBeGreaterThan(10);
    expect(bad).toEqual([]);
  });

  it('every worker service has the one shape: main.ts, config.ts, deps.ts, worker.ts, jobs/<job>.handler.ts', () => {
    const { workers, bad } = workerShapeBreaches(sources);
    expect(workers).toEqual(
      expect.arrayContaining([
        'services/billing',
        'services/index-worker',
        'services/parse-worker',
        'services/webhook-worker',
        'services/workflow-worker',
      ]),
    );
    expect(bad).toEqual([]);
    // The debt list only shrinks: a service that is in shape (or no longer a worker) is removed from it.
    const all = workerShapeBreaches(sources, new Set()).bad;
    const paid = [...KNOWN_OFF_SHAPE].filter(
      (pkg) => !workers.includes(pkg) || !all.some((b) => b.startsWith(`${pkg}:`)),
    );
    expect(paid).toEqual([]);
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
});

// Each rule above, shown a violation of its own: a rule that could not fail would pass here too.
describe('each rule catches a violation', () => {
  it('a benchmark, evaluation or script importing a service', () => {
    expect(
      toolImportsService(edgesOfText('bench/x.bench.ts', "import { buildApp } from '../services/gateway/src/app';")),
    ).toEqual(['bench/x.bench.ts → ../services/gateway/src/app']);
    expect(
      toolImportsService(
        edgesOfText('bench/eval/x.ts', "import { s } from '../../services/workflow-worker/test/stack';"),
      ),
    ).toHaveLength(1);
    expect(toolImportsService(edgesOfText('scripts/x.ts', "import '@docfleet/gateway';"))).toHaveLength(1);
    expect(
      toolImportsService(edgesOfText('bench/x.bench.ts', "import { spawnGateway } from '@docfleet/testing';")),
    ).toEqual([]);
  });

  it('a library importing a service, from its code or its tests', () => {
    expect(
      libraryImportsService(edgesOfText('libs/pdf/src/x.ts', "import '../../../services/gateway/src/app';")),
    ).toEqual(['libs/pdf/src/x.ts → ../../../services/gateway/src/app']);
    expect(libraryImportsService(edgesOfText('libs/sdk/test/x.ts', "import '@docfleet/gateway';"))).toHaveLength(1);
    expect(libraryImportsService(edgesOfText('libs/sdk/test/x.ts', "import '@docfleet/testing';"))).toEqual([]);
  });

  it('a service importing another service, from its code or its tests', () => {
    expect(
      serviceImportsService(
        edgesOfText('services/cli/test/x.ts', "import { startFleet } from '../../mcp-server/test/fleet';"),
      ),
    ).toHaveLength(1);
    expect(
      serviceImportsService(edgesOfText('services/index-worker/test/x.ts', "import '../../parse-worker/src/deps';")),
    ).toHaveLength(1);
    expect(
      serviceImportsService(edgesOfText('services/gateway/src/x.ts', "export * from '@docfleet/cli';")),
    ).toHaveLength(1);
    expect(serviceImportsService(edgesOfText('services/gateway/test/x.ts', "import '../src/app';"))).toEqual([]);
  });

  it('a path into another package', () => {
    expect(
      pathIntoPackage(edgesOfText('services/gateway/src/x.ts', "import '../../../libs/db/src/index';")),
    ).toHaveLength(1);
  });

  it('a face other than the operator commands importing the database or the queues', () => {
    expect(faceImportsDatabase(edgesOfText('services/mcp-server/src/x.ts', "import '@docfleet/db';"))).toHaveLength(1);
    expect(
      faceImportsDatabase(edgesOfText('services/cli/src/user/x.ts', "import { Redis } from 'ioredis';")),
    ).toHaveLength(1);
    expect(faceImportsDatabase(edgesOfText('libs/sdk/src/x.ts', "const q = require('@docfleet/queue');"))).toHaveLength(
      1,
    );
    expect(faceImportsDatabase(edgesOfText('services/cli/src/admin-x.ts', "import '@docfleet/db';"))).toEqual([]);
  });

  it('BullMQ outside libs/queue', () => {
    expect(
      bullmqOutsideQueue(edgesOfText('services/billing/src/x.ts', "const b = await import('bullmq');")),
    ).toHaveLength(1);
  });

  it('a credit table written outside libs/billing, through Prisma or SQL', () => {
    const found = creditWritesOutsideBilling([
      { file: 'services/gateway/src/x.ts', text: 'await tx.ledgerEntry.create({ data });' },
      { file: 'libs/jobs/src/x.ts', text: 'await db.$executeRaw`UPDATE credit_accounts SET balance_credits = 0`;' },
      { file: 'libs/billing/src/x.ts', text: 'await tx.ledgerEntry.create({ data });' },
    ]);
    expect(found).toEqual(['services/gateway/src/x.ts:1', 'libs/jobs/src/x.ts:1']);
  });

  it('a test file with a poll helper of its own', () => {
    const found = ownPollHelpers([
      { file: 'services/gateway/test/x.test.ts', text: 'async function until(check: () => Promise<boolean>) {' },
      { file: 'libs/telemetry/test/x.test.ts', text: '  const waitFor = async <T>(f: () => Promise<T>) => {' },
      { file: 'test/e2e/x.test.ts', text: "await waitUntil('the job', check);" },
      { file: 'libs/sdk/src/polling.ts', text: 'export async function poll<T>(spec: PollSpec<T>) {' },
    ]);
    expect(found).toEqual(['services/gateway/test/x.test.ts:1', 'libs/telemetry/test/x.test.ts:1']);
  });

  it('a test file with an inline poll loop', () => {
    // The shapes the tests had before they waited through waitUntil, one line each so a hit names it.
    const polls = [
      // a deadline in the loop header, the state in the body (billing-duties)
      `for (const until = Date.now() + 60_000; Date.now() < until;) {
        if ((await metrics()).includes('ok')) break;
        await new Promise((r) => setTimeout(r, 200));
      }`,
      // a deadline checked in the body of an endless loop, a file's own sleep (parse-kill)
      `const nap = (ms: number) => new Promise((r) => setTimeout(r, ms));
      async function terminal(id: string) {
        const until = Date.now() + 90_000;
        for (;;) {
          const job = await read(id);
          if (job.done) return job;
          if (Date.now() > until) throw new Error('still running');
          await nap(200);
        }
      }`,
      // state and deadline in one condition, the body only sleeps (event-hub-chain, start)
      `while (seen.length < 6 && Date.now() < deadline) await sleep(10);`,
      // elapsed time rather than a deadline (search-memory)
      `const t0 = Date.now();
      while (!cond() && Date.now() - t0 < 20_000) await new Promise((r) => setTimeout(r, 10));`,
      // a count of tries with the state in the condition (queue, parse-failures)
      `for (let i = 0; i < 100 && seen.length === 0; i++) await new Promise((r) => setTimeout(r, 50));`,
      // a count of tries in the body (watch-stream, parse-shards-kill)
      `for (let i = 0; ; i++) {
        if (await relayed()) break;
        if (i > 600) throw new Error('not relayed');
        await sleep(100);
      }`,
      // timers/promises' setTimeout
      `do { v = await read(); if (v) break; await setTimeout(50); } while (Date.now() < end);`,
    ];
    const found = inlinePollLoops(polls.map((text, i) => ({ file: `services/x/test/p${i}.test.ts`, text })));
    expect(found).toEqual([
      'services/x/test/p0.test.ts:1',
      'services/x/test/p1.test.ts:4',
      'services/x/test/p2.test.ts:1',
      'services/x/test/p3.test.ts:2',
      'services/x/test/p4.test.ts:1',
      'services/x/test/p5.test.ts:1',
      'services/x/test/p6.test.ts:1',
    ]);
    // Not polls: pacing a fixed number of requests, running for a while, a sampler without a budget,
    // a loop that awaits something other than a sleep, waitUntil itself, and production code.
    const fine = [
      'for (let i = 0; i < 5; i++) { await send(); await sleep(100); }',
      'while (Date.now() < end) { await send(); await sleep(10); }',
      'while (!done) { peaks.push(process.memoryUsage().rss); await sleep(10); }',
      "while (!text.includes(': ping') && Date.now() < deadline) text += decode((await reader.read()).value);",
      "await waitUntil('the job', async () => (await read()).done, { timeoutMs: 5000 });",
      // a loop inside the check: its sleep belongs to no poll of the test's own
      'for (const f of files) { for (let i = 0; i < 3; i++) await upload(f); }',
    ];
    expect(inlinePollLoops(fine.map((text, i) => ({ file: `test/e2e/f${i}.test.ts`, text })))).toEqual([]);
    expect(inlinePollLoops([{ file: 'libs/testing/src/wait.ts', text: polls[0]! }])).toEqual([]);
  });

  it('a worker service out of shape', () => {
    const ok = [
      { file: 'services/x-worker/src/main.ts', text: "import { startX } from './worker';" },
      { file: 'services/x-worker/src/config.ts', text: '' },
      { file: 'services/x-worker/src/deps.ts', text: '' },
      { file: 'services/x-worker/src/worker.ts', text: "createWorker('x', handlers, opts);" },
      { file: 'services/x-worker/src/jobs/x-run.handler.ts', text: '' },
    ];
    expect(workerShapeBreaches(ok)).toEqual({ workers: ['services/x-worker'], bad: [] });
    const { bad } = workerShapeBreaches([
      ...ok.filter((f) => !f.file.endsWith('deps.ts')),
      { file: 'services/x-worker/src/main.ts', text: "createWorker('x', handlers, opts);" },
      { file: 'services/x-worker/src/x-send.handler.ts', text: '' },
    ]);
    expect(bad).toEqual([
      'services/x-worker: no src/deps.ts',
      'services/x-worker: createWorker in src/main.ts',
      'services/x-worker: src/x-send.handler.ts outside src/jobs/',
    ]);
    // A service that starts no queue consumer (the gateway, the CLI) is not a worker service.
    expect(workerShapeBreaches([{ file: 'services/gateway/src/app.ts', text: 'express()' }]).workers).toEqual([]);
  });

  it('a job name that the registry does not declare', () => {
    const { bad } = jobNamesOutsideRegistry([
      {
        file: 'services/billing/src/x.ts',
        text: "import '@docfleet/queue';\nawait queues.enqueue('billing.sweep', {});",
      },
      {
        file: 'services/parse-worker/src/x.ts',
        text: "import '@docfleet/queue';\nconst h = {\n  'parse.files': run,\n};",
      },
      {
        file: 'services/parse-worker/src/y.ts',
        text: "import '@docfleet/queue';\nawait queues.enqueue('parse.file', p);",
      },
    ]);
    expect(bad).toEqual(['services/billing/src/x.ts: billing.sweep', 'services/parse-worker/src/x.ts: parse.files']);
  });
});
