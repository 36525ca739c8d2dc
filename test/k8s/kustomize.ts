// Renders the kustomizations in k8s/. A real kustomize is preferred: a `kustomize` binary, else the
// one built into `kubectl kustomize` (kubectl 1.21 and newer; Debian's kubernetes-client 1.20 embeds
// kustomize 2.0, which cannot read these kustomizations). Without either, the documented subset in
// kustomize-lite.ts renders them; where both exist, render.test.ts checks they agree.
// DOCFLEET_KUSTOMIZE=lite makes the tests use the subset alone, as on a machine without kustomize.
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { kustomizationFile, renderLite, type K8sObject } from './kustomize-lite';

export type { K8sObject };

export const REPO_ROOT = path.resolve(__dirname, '../..');
export const K8S_DIR = path.join(REPO_ROOT, 'k8s');

export interface Renderer {
  name: string;
  version: string;
  render(dir: string): K8sObject[];
}

function run(cmd: string, args: string[]): string {
  try {
    return execFileSync(cmd, args, {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 60_000,
      maxBuffer: 32 * 1024 * 1024,
    });
  } catch (err) {
    const e = err as { stderr?: string; message: string };
    throw new Error(`${cmd} ${args.join(' ')} failed: ${e.stderr?.trim() || e.message}`);
  }
}

function probe(cmd: string, args: string[]): string | undefined {
  try {
    return run(cmd, args);
  } catch {
    return undefined;
  }
}

const major = (v: string | undefined) => Number(/v?(\d+)\./.exec(v ?? '')?.[1] ?? 0);

export function parseManifests(text: string): K8sObject[] {
  return parseAllDocuments(text)
    .map((d) => {
      if (d.errors.length) throw new Error(d.errors[0].message);
      return d.toJS() as K8sObject | null;
    })
    .filter((o): o is K8sObject => o !== null);
}

let cached: Renderer | null | undefined;

/** A real kustomize (version 4 or newer), or null when none is installed. */
export function realKustomize(): Renderer | null {
  if (cached !== undefined) return cached;
  if (process.env.DOCFLEET_KUSTOMIZE === 'lite') return (cached = null);
  const own = probe('kustomize', ['version'])?.trim();
  if (own && major(own) >= 4) {
    return (cached = {
      name: 'kustomize',
      version: own,
      render: (dir) => parseManifests(run('kustomize', ['build', dir])),
    });
  }
  const kubectl = probe('kubectl', ['version', '--client', '-o', 'json']);
  const versions = kubectl
    ? (JSON.parse(kubectl) as { clientVersion?: { gitVersion?: string }; kustomizeVersion?: string })
    : undefined;
  if (versions?.kustomizeVersion && major(versions.kustomizeVersion) >= 4) {
    return (cached = {
      name: 'kubectl kustomize',
      version: `kubectl ${versions.clientVersion?.gitVersion}, kustomize ${versions.kustomizeVersion}`,
      render: (dir) => parseManifests(run('kubectl', ['kustomize', dir])),
    });
  }
  return (cached = null);
}

export const liteKustomize: Renderer = {
  name: 'kustomize-lite',
  version: 'test/k8s/kustomize-lite.ts',
  render: renderLite,
};

/** The renderer the tests use: the real one when installed, else the subset. */
export function renderer(): Renderer {
  return realKustomize() ?? liteKustomize;
}

/** Every kustomization under k8s/ that renders on its own (components render only through a parent), as paths relative to k8s/. */
export function findKustomizations(dir = K8S_DIR): string[] {
  const found: string[] = [];
  const walk = (d: string) => {
    const file = kustomizationFile(d);
    if (file && !/^kind:\s*Component\s*$/m.test(readFileSync(file, 'utf8')))
      found.push(path.relative(K8S_DIR, d) || '.');
    for (const entry of readdirSync(d)) {
      const full = path.join(d, entry);
      if (statSync(full).isDirectory()) walk(full);
    }
  };
  walk(dir);
  return found.sort();
}
