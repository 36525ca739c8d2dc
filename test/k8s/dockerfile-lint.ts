// Static checks of deploy/Dockerfile (parsed with dockerfile-ast; no Docker engine runs here) and of
// the build context filter deploy/Dockerfile.dockerignore (matched with Docker's own rules).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { DockerfileParser, type Copy, type Instruction } from 'dockerfile-ast';
import { parse } from 'yaml';
import { REPO_ROOT } from './kustomize';
import { checkImage } from './pod-policy';

export const DOCKERFILE = path.join(REPO_ROOT, 'deploy/Dockerfile');
export const DOCKERIGNORE = path.join(REPO_ROOT, 'deploy/Dockerfile.dockerignore');

export interface DockerFacts {
  nodeMajor: number;
  pnpmVersion: string;
  tsxVersion: string;
}

/** Versions the image must agree with: package.json's engines and packageManager, the lockfile's tsx. */
export function dockerFacts(): DockerFacts {
  const pkg = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as {
    engines: { node: string };
    packageManager: string;
  };
  const lock = parse(readFileSync(path.join(REPO_ROOT, 'pnpm-lock.yaml'), 'utf8')) as {
    importers: Record<string, { devDependencies?: Record<string, { version: string }> }>;
  };
  return {
    nodeMajor: Number(/(\d+)/.exec(pkg.engines.node)![1]),
    pnpmVersion: pkg.packageManager.replace(/^pnpm@/, ''),
    tsxVersion: lock.importers['.'].devDependencies!.tsx.version.replace(/\(.*$/, ''),
  };
}

interface Stage {
  name?: string;
  from: string;
  instructions: Instruction[];
  args: Record<string, string>;
}

function stagesOf(text: string): Stage[] {
  const df = DockerfileParser.parse(text);
  const stages: Stage[] = [];
  for (const i of df.getInstructions()) {
    if (i.getKeyword() === 'FROM') {
      const [image, as, name] = i.getExpandedArguments().map((a) => a.getValue());
      stages.push({ from: image, name: as?.toUpperCase() === 'AS' ? name : undefined, instructions: [], args: {} });
    } else if (stages.length) {
      const stage = stages[stages.length - 1];
      stage.instructions.push(i);
      if (i.getKeyword() === 'ARG') {
        const [k, val] = (i.getArgumentsContent() ?? '').split('=');
        stage.args[k.trim()] = (val ?? '').trim();
      }
    }
  }
  return stages;
}

const content = (i: Instruction) => (i.getArgumentsContent() ?? '').replace(/\\\n/g, ' ');
const runs = (s: Stage) => s.instructions.filter((i) => i.getKeyword() === 'RUN').map(content);

export function lintDockerfile(text: string, facts: DockerFacts): string[] {
  const v: string[] = [];
  const stages = stagesOf(text);
  if (!stages.length) return ['no FROM'];
  const final = stages[stages.length - 1];
  const names = new Set<string>();

  for (const s of stages) {
    if (!names.has(s.from)) {
      if (s.from.includes('$')) v.push(`FROM ${s.from}: unresolved build argument (give the ARG a default)`);
      v.push(...checkImage(`FROM ${s.from}`, s.from));
      const node = /^node:(\d+)\.\d+\.\d+-bookworm-slim$/.exec(s.from);
      if (!node) v.push(`FROM ${s.from}: the base must be a pinned node:<version>-bookworm-slim`);
      else if (Number(node[1]) !== facts.nodeMajor)
        v.push(`FROM ${s.from}: Node ${node[1]}, package.json wants ${facts.nodeMajor}`);
    }
    if (s.name) names.add(s.name);
    for (const run of runs(s)) {
      if (/apt-get\s+(dist-)?upgrade/.test(run))
        v.push('RUN: no apt-get upgrade in an image build (pin the base image instead)');
      if (/\bsudo\b/.test(run)) v.push('RUN: no sudo');
      if (/curl[^|]*\|\s*(ba)?sh/.test(run)) v.push('RUN: no curl | sh');
      if (/apt-get\s+install/.test(run)) {
        if (!/apt-get\s+update/.test(run))
          v.push('RUN apt-get install: update in the same RUN (a cached update layer goes stale)');
        if (!run.includes('--no-install-recommends')) v.push('RUN apt-get install: use --no-install-recommends');
        if (!/\s-y\b/.test(run)) v.push('RUN apt-get install: use -y');
        if (!run.includes('rm -rf /var/lib/apt/lists/*'))
          v.push('RUN apt-get install: clean the apt cache (rm -rf /var/lib/apt/lists/*) in the same RUN');
      }
      for (const install of run.match(/pnpm install[^&;]*/g) ?? []) {
        if (!install.includes('--frozen-lockfile')) v.push(`RUN ${install.trim()}: use --frozen-lockfile`);
      }
    }
    for (const i of s.instructions)
      if (i.getKeyword() === 'ADD' && /https?:\/\//.test(content(i)))
        v.push('ADD <url>: fetch with a checked RUN instead');
  }

  const all = stages.flatMap(runs).join('\n');
  if (!all.includes('scripts/prisma-generate.sh'))
    v.push('the Prisma client is not generated (bash scripts/prisma-generate.sh)');
  // The /app the runtime copies must come from a stage that installed production dependencies only.
  const appFrom = final.instructions
    .filter((i): i is Copy => i.getKeyword() === 'COPY' && / \/app\s*$/.test(content(i)))
    .map((i) => i.getFromFlag()?.getValue());
  const prodStage = stages.find((s) => s.name === appFrom[0]);
  if (!prodStage || !runs(prodStage).some((r) => /pnpm install[^&;]*--prod/.test(r)))
    v.push("the runtime's /app must come from a stage that runs pnpm install --prod");

  const arg = (name: string) => stages.map((s) => s.args[name]).find((x) => x !== undefined);
  if (arg('PNPM_VERSION') !== facts.pnpmVersion)
    v.push(`ARG PNPM_VERSION=${arg('PNPM_VERSION')}, package.json has pnpm@${facts.pnpmVersion}`);
  if (arg('TSX_VERSION') !== facts.tsxVersion)
    v.push(`ARG TSX_VERSION=${arg('TSX_VERSION')}, the lockfile has tsx ${facts.tsxVersion}`);

  // The runtime stage.
  const finalRuns = runs(final).join('\n');
  for (const pkg of ['tesseract-ocr', 'tesseract-ocr-eng', 'poppler-utils']) {
    if (!new RegExp(`apt-get install[^&]*\\s${pkg}(\\s|$)`).test(finalRuns))
      v.push(`the runtime stage must install ${pkg}`);
  }
  const users = final.instructions.filter((i) => i.getKeyword() === 'USER').map(content);
  if (!/^10001(:10001)?$/.test(users[users.length - 1] ?? ''))
    v.push(
      `the image must end as USER 10001 (numeric, so runAsNonRoot can verify it), not ${users[users.length - 1] ?? 'root'}`,
    );
  if (!/chown 10001:10001 \/data/.test(finalRuns)) v.push('/data must exist and belong to 10001');
  const env = final.instructions
    .filter((i) => i.getKeyword() === 'ENV')
    .map(content)
    .join(' ');
  if (!/\bDATA_DIR=\/data\b/.test(env)) v.push('ENV DATA_DIR=/data is missing');
  const health = final.instructions.filter((i) => i.getKeyword() === 'HEALTHCHECK').map(content);
  if (!health.length || /^NONE/i.test(health[health.length - 1]))
    v.push('no HEALTHCHECK (Kubernetes uses probes; Docker and compose use this)');
  const entry = final.instructions.filter((i) => i.getKeyword() === 'ENTRYPOINT').map(content);
  if (!entry.length || !entry[entry.length - 1].trim().startsWith('['))
    v.push('ENTRYPOINT must use the exec (JSON) form, so signals reach the service');
  else if (!entry[entry.length - 1].includes('deploy/docker-entrypoint.sh'))
    v.push('ENTRYPOINT must run deploy/docker-entrypoint.sh');
  return v;
}

// ---- .dockerignore --------------------------------------------------------------------------------

interface IgnorePattern {
  exclusion: boolean;
  re: RegExp;
}

/** Compiles ignore patterns the way Docker does (moby/patternmatcher): `**`, `*`, `?`, `!`. */
export function compileIgnore(text: string): IgnorePattern[] {
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'))
    .map((line) => {
      const exclusion = line.startsWith('!');
      const pattern = path.posix
        .normalize((exclusion ? line.slice(1) : line).trim())
        .replace(/^\/+/, '')
        .replace(/\/+$/, '');
      let re = '^';
      for (let i = 0; i < pattern.length; i++) {
        const ch = pattern[i];
        if (ch === '*' && pattern[i + 1] === '*') {
          i++;
          if (pattern[i + 1] === '/') i++;
          re += i + 1 >= pattern.length ? '.*' : '(.*/)?';
        } else if (ch === '*') re += '[^/]*';
        else if (ch === '?') re += '[^/]';
        else re += ch.replace(/[.+^${}()|[\]\\]/g, '\\$&');
      }
      return { exclusion, re: new RegExp(re + '$') };
    });
}

/** True when the file (relative to the context root) is sent to the builder. */
export function inContext(patterns: IgnorePattern[], file: string): boolean {
  const parents = path.posix.dirname(file).split('/');
  let excluded = false;
  for (const p of patterns) {
    if (p.exclusion !== excluded) continue;
    let match = p.re.test(file);
    for (let i = 0; !match && parents[0] !== '.' && i < parents.length; i++)
      match = p.re.test(parents.slice(0, i + 1).join('/'));
    if (match) excluded = !p.exclusion;
  }
  return !excluded;
}
