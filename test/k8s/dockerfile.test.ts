// deploy/Dockerfile and its context filter, linted statically (no Docker engine runs here), and the
// image's entrypoint and healthcheck scripts run for real on this machine.
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createTestDb, type TestDb } from '@docfleet/testing';
import { compileIgnore, dockerFacts, DOCKERFILE, DOCKERIGNORE, inContext, lintDockerfile } from './dockerfile-lint';
import { FLEET, longRunningServices } from './fleet';
import { REPO_ROOT } from './kustomize';

const dockerfile = readFileSync(DOCKERFILE, 'utf8');
const facts = dockerFacts();

describe('deploy/Dockerfile', () => {
  it('passes the lint: pinned bases, apt cache cleaned, non-root 10001, healthcheck, exec entrypoint, versions in step', () => {
    expect(lintDockerfile(dockerfile, facts)).toEqual([]);
  });

  const cases: Array<[string, (d: string) => string, RegExp]> = [
    [
      'a latest base',
      (d) => d.replace('ARG NODE_VERSION=20.20.2', 'ARG NODE_VERSION=latest'),
      /FROM node:latest-bookworm-slim: the base must be a pinned/,
    ],
    [
      'an untagged base',
      (d) => d.replace('FROM node:${NODE_VERSION}-bookworm-slim AS runtime', 'FROM debian AS runtime'),
      /FROM debian: image debian must name a tag/,
    ],
    [
      'another Node major',
      (d) => d.replace('ARG NODE_VERSION=20.20.2', 'ARG NODE_VERSION=22.11.0'),
      /Node 22, package\.json wants 20/,
    ],
    ['running as root', (d) => d.replace('USER 10001:10001', 'USER root'), /must end as USER 10001/],
    ['a named user', (d) => d.replace('USER 10001:10001', 'USER docfleet'), /must end as USER 10001/],
    ['the apt cache kept', (d) => d.replace(' && rm -rf /var/lib/apt/lists/* \\\n', ' \\\n'), /clean the apt cache/],
    ['recommended packages', (d) => d.replace('--no-install-recommends ', ''), /--no-install-recommends/],
    ['no tesseract language data', (d) => d.replace(' tesseract-ocr-eng', ''), /must install tesseract-ocr-eng/],
    ['no HEALTHCHECK', (d) => d.replace(/^HEALTHCHECK.*$/m, ''), /no HEALTHCHECK/],
    [
      'a shell-form ENTRYPOINT',
      (d) => d.replace(/^ENTRYPOINT.*$/m, 'ENTRYPOINT /bin/sh /app/deploy/docker-entrypoint.sh'),
      /exec \(JSON\) form/,
    ],
    [
      'an install that may change the lockfile',
      (d) =>
        d.replace('pnpm install --frozen-lockfile --prefer-offline --prod', 'pnpm install --prefer-offline --prod'),
      /use --frozen-lockfile/,
    ],
    [
      'dev dependencies in the image',
      (d) => d.replace('COPY --from=prod /app /app', 'COPY --from=build /app /app'),
      /must come from a stage that runs pnpm install --prod/,
    ],
    [
      'no Prisma client',
      (d) => d.replace(' \\\n && bash scripts/prisma-generate.sh', ''),
      /Prisma client is not generated/,
    ],
    [
      'a tsx out of step with the lockfile',
      (d) => d.replace(/ARG TSX_VERSION=\S+/, 'ARG TSX_VERSION=4.0.0'),
      /TSX_VERSION=4\.0\.0, the lockfile has tsx/,
    ],
  ];
  it.each(cases)('fails for %s', (_label, mutate, message) => {
    const broken = mutate(dockerfile);
    expect(broken).not.toBe(dockerfile);
    expect(lintDockerfile(broken, facts).join('\n')).toMatch(message);
  });
});

describe('deploy/Dockerfile.dockerignore (the build context is the repository root)', () => {
  const patterns = compileIgnore(readFileSync(DOCKERIGNORE, 'utf8'));

  it('is where BuildKit looks for a -f deploy/Dockerfile build, with no misleading deploy/.dockerignore beside it', () => {
    expect(existsSync(path.join(REPO_ROOT, 'deploy/.dockerignore'))).toBe(false);
  });

  it('sends what the image builds from, including every service and library', () => {
    const needed = [
      'package.json',
      'pnpm-lock.yaml',
      'pnpm-workspace.yaml',
      'prisma.config.ts',
      'prisma/schema.prisma',
      'scripts/prisma-generate.sh',
      'scripts/no-schema-engine.sh',
      'deploy/docker-entrypoint.sh',
      'deploy/healthcheck.cjs',
      'test/package.json',
    ];
    for (const dir of ['libs', 'services']) {
      for (const pkg of readdirSync(path.join(REPO_ROOT, dir))) {
        needed.push(`${dir}/${pkg}/package.json`);
        if (existsSync(path.join(REPO_ROOT, dir, pkg, 'src/index.ts'))) needed.push(`${dir}/${pkg}/src/index.ts`);
        if (existsSync(path.join(REPO_ROOT, dir, pkg, 'src/main.ts'))) needed.push(`${dir}/${pkg}/src/main.ts`);
      }
    }
    expect(needed.filter((f) => !inContext(patterns, f))).toEqual([]);
  });

  it('keeps out installed modules, generated code, local data, git, tests and everything else', () => {
    const unwanted = [
      'node_modules/.pnpm/x/index.js',
      'libs/config/node_modules/zod/index.js',
      '.git/HEAD',
      '.data/storage/kb/x',
      'libs/db/src/generated/client.ts',
      'services/gateway/test/search.test.ts',
      'test/e2e/start.test.ts',
      'test/k8s/policy.ts',
      'libs/pdf/bench/parse-speed.ts',
      'libs/models/eval/corpus-evidence.ts',
      'docs/operations.md',
      'scripts/setup.sh',
      'deploy/compose.yaml',
      '.tmp/jest-results.json',
    ];
    expect(unwanted.filter((f) => inContext(patterns, f))).toEqual([]);
  });

  it('matches like Docker: last pattern wins, a parent directory match counts, ** spans directories', () => {
    const p = compileIgnore('**\n!libs\nlibs/**/node_modules\n!libs/a/node_modules/keep');
    expect(inContext(p, 'README.md')).toBe(false);
    expect(inContext(p, 'libs/a/src/x.ts')).toBe(true);
    expect(inContext(p, 'libs/a/node_modules/zod/x.js')).toBe(false);
    expect(inContext(p, 'libs/a/node_modules/keep')).toBe(true);
  });
});

describe('deploy/docker-entrypoint.sh', () => {
  // A stand-in `node` that prints what it was asked to run.
  let fakeBin: string;
  beforeAll(() => {
    fakeBin = mkdtempSync(path.join(os.tmpdir(), 'docfleet-entrypoint-'));
    writeFileSync(path.join(fakeBin, 'node'), '#!/bin/sh\necho "node $*"\n');
    chmodSync(path.join(fakeBin, 'node'), 0o755);
  });
  afterAll(() => rmSync(fakeBin, { recursive: true, force: true }));

  const entrypoint = (args: string[], env: Record<string, string> = {}, bin?: string) =>
    spawnSync('sh', [path.join(REPO_ROOT, 'deploy/docker-entrypoint.sh'), ...args], {
      encoding: 'utf8',
      env: {
        ...process.env,
        PATH: `${bin ?? fakeBin}:${process.env.PATH}`,
        DOCFLEET_APP_DIR: REPO_ROOT,
        SERVICE: '',
        ...env,
      },
    });

  it.each(longRunningServices())('runs %s through tsx, in place of the shell', (service) => {
    const r = entrypoint([service]);
    expect(r.status).toBe(0);
    expect(r.stdout.trim()).toBe(`node --import tsx services/${service}/src/main.ts`);
  });

  it('selects the service from SERVICE and passes every argument on (the cli profile in compose)', () => {
    const r = entrypoint(['admin', 'create-org', '--name', 'Acme', '--json'], { SERVICE: 'cli' });
    expect(r.stdout.trim()).toBe('node --import tsx services/cli/src/main.ts admin create-org --name Acme --json');
  });

  it('runs the migration runner for migrate', () => {
    expect(entrypoint(['migrate']).stdout.trim()).toBe('node --import tsx libs/db/src/migrate-cli.ts');
  });

  it.each([[[]], [['nope']], [['../libs']], [['Gateway']]])('refuses %j with exit 64 and a usage line', (args) => {
    const r = entrypoint(args);
    expect(r.status).toBe(64);
    expect(r.stderr).toMatch(/^docfleet: .*\nusage: /);
  });

  it('knows every service the manifests deploy (workflow-worker once its code lands)', () => {
    const deployable = FLEET.map((s) => s.name).filter((s) =>
      existsSync(path.join(REPO_ROOT, 'services', s, 'src/main.ts')),
    );
    for (const s of deployable) expect(entrypoint([s]).status).toBe(0);
  });

  describe('with the real node and tsx', () => {
    let db: TestDb;
    beforeAll(async () => {
      db = await createTestDb();
    });
    afterAll(async () => db.drop());

    it('applies the migrations (the Job and compose one-shot)', () => {
      const r = entrypoint(['migrate'], { DATABASE_URL: db.url }, path.dirname(process.execPath));
      expect(r.stderr).toBe('');
      expect(r.status).toBe(0);
      expect(r.stdout).toMatch(/db:migrate: .* is up to date/);
    });
  });
});

describe('deploy/healthcheck.cjs', () => {
  let server: Server;
  let port: number;
  beforeAll(async () => {
    server = createServer((req, res) => res.writeHead(req.url === '/healthz' ? 200 : 503).end());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const check = (env: Record<string, string>, args: string[] = []) =>
    new Promise<number | null>((resolve) => {
      // Asynchronous: the server answering lives in this process.
      const { spawn } = require('node:child_process') as typeof import('node:child_process');
      const child = spawn(process.execPath, [path.join(REPO_ROOT, 'deploy/healthcheck.cjs'), ...args], {
        env: { PATH: process.env.PATH, ...env },
        stdio: 'ignore',
      });
      child.on('exit', (code) => resolve(code));
    });

  it('passes when the service answers 2xx on HEALTH_PORT (workers) or PORT (gateway)', async () => {
    expect(await check({ HEALTH_PORT: String(port) })).toBe(0);
    expect(await check({ PORT: String(port) })).toBe(0);
  });

  it('fails on a non-2xx answer and on a closed port', async () => {
    expect(await check({ HEALTH_PORT: String(port) }, ['/readyz'])).toBe(1);
    expect(await check({ HEALTH_PORT: '1' })).toBe(1);
  });
});
