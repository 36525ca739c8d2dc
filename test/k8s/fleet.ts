// What the manifests and the compose file must agree with: the deployed services, their ports, their
// queues, and — read from each service's code where it exists — how long they drain on SIGTERM and
// whether they serve /metrics.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { baseEnv, gatewayEnv } from '@docfleet/config';
import { QUEUES, type QueueName } from '@docfleet/queue';
import { REPO_ROOT } from './kustomize';

export interface FleetService {
  name: string;
  /** The port of /healthz and /readyz: PORT for the gateway, HEALTH_PORT for the others. */
  port: number;
  /** The queue whose wait list the service autoscales on (the billing service is not autoscaled). */
  autoscaleQueue?: QueueName;
}

// decisions.md: gateway on PORT 8080; workers and billing on HEALTH_PORT (billing's and the index
// worker's code defaults are 9104 and 9102; the manifests set every one explicitly).
export const FLEET: readonly FleetService[] = [
  { name: 'gateway', port: 8080 },
  { name: 'parse-worker', port: 9101, autoscaleQueue: 'parse' },
  { name: 'index-worker', port: 9102, autoscaleQueue: 'index' },
  { name: 'workflow-worker', port: 9103, autoscaleQueue: 'workflow' },
  { name: 'billing', port: 9104 },
  { name: 'webhook-worker', port: 9105, autoscaleQueue: 'webhook' },
];

export { QUEUES };

export const fleetService = (name: string) => FLEET.find((s) => s.name === name);

/** Long-running services of services/ (the rule of scripts/start.ts): every one must be deployed. */
export function longRunningServices(): string[] {
  return readdirSync(path.join(REPO_ROOT, 'services')).filter(
    (s) => /^(gateway|.*-worker|billing)$/.test(s) && existsSync(path.join(REPO_ROOT, 'services', s, 'src', 'main.ts')),
  );
}

function sourceOf(service: string): string | undefined {
  const dir = path.join(REPO_ROOT, 'services', service, 'src');
  if (!existsSync(path.join(dir, 'main.ts'))) return undefined;
  const files: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d)) {
      const full = path.join(d, e);
      if (statSync(full).isDirectory()) walk(full);
      else if (full.endsWith('.ts')) files.push(readFileSync(full, 'utf8'));
    }
  };
  walk(dir);
  return files.join('\n');
}

const RUNTIME_DEFAULT_GRACE_MS = Number(
  /graceMs = ([\d_]+)/
    .exec(readFileSync(path.join(REPO_ROOT, 'libs/runtime/src/index.ts'), 'utf8'))?.[1]
    .replace(/_/g, '') ?? 30_000,
);

export interface ServiceCodeFacts {
  /** False when services/<name>/src/main.ts does not exist yet: the facts are then assumptions. */
  fromCode: boolean;
  /** Longest time the service takes to drain after SIGTERM before it exits by itself. */
  graceSeconds: number;
  /** Serves /metrics on its port. */
  metrics: boolean;
  /** HEALTH_PORT default in its config, if it has one. */
  defaultHealthPort?: number;
}

/**
 * Reads the service's code: `onShutdown(…, 60_000, …)`, the gateway's forced `process.exit(1)` after
 * N ms, and `*_GRACE_SECONDS: intFromEnv(N)` defaults give its drain time (the runtime's default when
 * none is found); '/metrics' or libs/runtime's health server means it serves metrics. A service
 * without code yet is assumed to use libs/runtime (default drain, metrics).
 */
export function serviceCodeFacts(service: string): ServiceCodeFacts {
  const src = sourceOf(service);
  if (src === undefined) return { fromCode: false, graceSeconds: RUNTIME_DEFAULT_GRACE_MS / 1000, metrics: true };
  const num = (s: string) => Number(s.replace(/_/g, ''));
  const graces: number[] = [];
  for (const m of src.matchAll(/onShutdown\([\s\S]*?\},\s*([\d_]+)\s*[,)]/g)) graces.push(num(m[1]) / 1000);
  for (const m of src.matchAll(/setTimeout\(\(\) => process\.exit\(1\),\s*([\d_]+)\s*\)/g))
    graces.push(num(m[1]) / 1000);
  for (const m of src.matchAll(/_GRACE_SECONDS:\s*intFromEnv\(\s*([\d_]+)/g)) graces.push(num(m[1]));
  if (graces.length === 0 && /onShutdown\(/.test(src)) graces.push(RUNTIME_DEFAULT_GRACE_MS / 1000);
  const healthPort = /HEALTH_PORT:\s*intFromEnv\(\s*([\d_]+)/.exec(src);
  return {
    fromCode: true,
    graceSeconds: graces.length ? Math.max(...graces) : RUNTIME_DEFAULT_GRACE_MS / 1000,
    metrics:
      src.includes("'/metrics'") ||
      /import \{[^}]*\b(startHealthServer|startWorkerHealth)\b[^}]*\} from '@docfleet\/runtime'/.test(src),
    defaultHealthPort: healthPort ? num(healthPort[1]) : undefined,
  };
}

/**
 * Parses a service's environment with the services' own schema (libs/config), as the service would
 * at start-up: the port it serves health on and its DATA_DIR, or every problem in one line.
 */
export function parseServiceEnv(
  service: string,
  env: Record<string, string>,
): { error: string } | { port: number; dataDir: string } {
  const issues = (e: { issues: Array<{ path: PropertyKey[]; message: string }> }) =>
    e.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
  if (service === 'gateway') {
    const r = gatewayEnv.safeParse(env);
    return r.success ? { port: r.data.PORT, dataDir: r.data.DATA_DIR } : { error: issues(r.error) };
  }
  const r = baseEnv.safeParse(env);
  return r.success ? { port: r.data.HEALTH_PORT, dataDir: r.data.DATA_DIR } : { error: issues(r.error) };
}
