// Structural checks of deploy/compose.yaml, which cannot be started on a machine without a Docker
// engine: the fleet, its start order, the env contract, the shared DATA_DIR volume, healthchecks.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { FLEET, parseServiceEnv, serviceCodeFacts } from './fleet';
import { REPO_ROOT } from './kustomize';
import { checkImage } from './pod-policy';

export interface ComposeService {
  image?: string;
  build?: { context?: string; dockerfile?: string };
  command?: string[];
  environment?: Record<string, string | number | null>;
  depends_on?: Record<string, { condition?: string }>;
  healthcheck?: { test?: string[]; disable?: boolean };
  volumes?: string[];
  ports?: string[];
  read_only?: boolean;
  tmpfs?: string[];
  user?: string;
  cap_drop?: string[];
  stop_grace_period?: string;
  restart?: string;
  profiles?: string[];
}
export interface ComposeFile {
  services: Record<string, ComposeService>;
  volumes?: Record<string, unknown>;
}

export const COMPOSE_FILE = path.join(REPO_ROOT, 'deploy/compose.yaml');

/** The compose file with YAML merge keys (<<) resolved, as compose reads it. */
export function loadCompose(file = COMPOSE_FILE): ComposeFile {
  // JSON round trip: aliases become copies, so a test can change one service without the others.
  return JSON.parse(JSON.stringify(parse(readFileSync(file, 'utf8'), { merge: true }))) as ComposeFile;
}

/** `${VAR:-default}` → default (what a machine without VAR gets); `${VAR}` alone stays unresolved. */
const interpolate = (s: string) => s.replace(/\$\{[A-Z_][A-Z0-9_]*:?-([^}]*)\}/g, '$1');

const seconds = (d: string | undefined) => {
  const m = /^(?:(\d+)m)?(?:(\d+)s)?$/.exec(d ?? '');
  return m && d ? Number(m[1] ?? 0) * 60 + Number(m[2] ?? 0) : 10; // compose's default is 10 s
};

export function checkCompose(doc: ComposeFile): string[] {
  const v: string[] = [];
  const services = doc.services ?? {};
  const pg = services.postgres;
  const redis = services.redis;
  if (!/^postgres:15([.-]|$)/.test(pg?.image ?? '')) v.push('postgres: must be PostgreSQL 15 (postgres:15…)');
  if (!/^redis:7([.-]|$)/.test(redis?.image ?? '')) v.push('redis: must be Redis 7 (redis:7…)');
  for (const [name, s] of Object.entries({ postgres: pg, redis }))
    if (!s?.healthcheck?.test?.length) v.push(`${name}: needs a healthcheck`);

  const migrate = services.migrate;
  if (!migrate) v.push('no migrate service');
  else {
    if (migrate.command?.[0] !== 'migrate') v.push("migrate: must run the image's migrate command");
    if (migrate.restart !== 'no') v.push('migrate: a one-shot must not restart');
    if (migrate.depends_on?.postgres?.condition !== 'service_healthy')
      v.push('migrate: must wait for a healthy postgres');
  }

  const docfleetImages = new Set<string>();
  for (const [name, s] of Object.entries(services)) {
    for (const image of s.image ? [interpolate(s.image)] : []) v.push(...checkImage(name, image));
    if (name === 'postgres' || name === 'redis') continue;
    docfleetImages.add(interpolate(s.image ?? ''));
    if (s.build?.dockerfile !== 'deploy/Dockerfile' || s.build?.context !== '..')
      v.push(`${name}: must build deploy/Dockerfile with the repository root as context`);
    if (s.read_only !== true || !s.tmpfs?.includes('/tmp'))
      v.push(`${name}: read-only root with /tmp as tmpfs, as on Kubernetes`);
    if (s.user !== '10001:10001' || !s.cap_drop?.includes('ALL'))
      v.push(`${name}: must run as 10001:10001 and drop ALL capabilities`);
    if (s.ports?.length && name !== 'gateway') v.push(`${name}: only the gateway publishes a port`);
  }
  if (docfleetImages.size !== 1)
    v.push(`the docfleet services must share one image: ${[...docfleetImages].join(', ')}`);
  if (!('data' in (doc.volumes ?? {}))) v.push('no named volume "data" for DATA_DIR');

  for (const svc of FLEET) {
    const s = services[svc.name];
    const where = svc.name;
    if (!s) {
      v.push(`${where}: missing from compose.yaml`);
      continue;
    }
    if (s.profiles?.length) v.push(`${where}: must start with \`up\` (no profile)`);
    if (s.command?.[0] !== svc.name && s.environment?.SERVICE !== svc.name)
      v.push(`${where}: must run service ${svc.name}`);
    if (s.depends_on?.migrate?.condition !== 'service_completed_successfully')
      v.push(`${where}: must depend on migrate with condition service_completed_successfully`);
    for (const dep of ['postgres', 'redis'])
      if (s.depends_on?.[dep]?.condition !== 'service_healthy') v.push(`${where}: must wait for a healthy ${dep}`);
    if (!s.healthcheck?.test?.length || s.healthcheck.disable) v.push(`${where}: needs a healthcheck`);
    if (!s.volumes?.includes('data:/data')) v.push(`${where}: must mount the shared volume data at /data`);

    const env = Object.fromEntries(
      Object.entries(s.environment ?? {})
        .filter(([, val]) => val !== null)
        .map(([k, val]) => [k, interpolate(String(val))]),
    );
    for (const key of ['DATABASE_URL', 'REDIS_URL', 'DATA_DIR', 'QUEUE_PREFIX'])
      if (!(key in env)) v.push(`${where}: ${key} is not set`);
    const parsed = parseServiceEnv(svc.name, env);
    if ('error' in parsed) v.push(`${where}: env contract: ${parsed.error}`);
    else {
      if (parsed.dataDir !== '/data') v.push(`${where}: DATA_DIR must be /data`);
      if (parsed.port !== svc.port) v.push(`${where}: serves health on ${parsed.port}, expected ${svc.port}`);
    }
    if (svc.name === 'parse-worker' && env.OMP_THREAD_LIMIT !== '1') v.push(`${where}: OMP_THREAD_LIMIT must be 1`);
    if (
      svc.name === 'gateway' &&
      !s.ports?.some((p) => interpolate(p).endsWith(':8080') && interpolate(p).startsWith('8080'))
    )
      v.push('gateway: must publish 8080');

    const needed = serviceCodeFacts(svc.name).graceSeconds + 5;
    if (seconds(s.stop_grace_period) < needed)
      v.push(
        `${where}: stop_grace_period ${s.stop_grace_period ?? '10s (default)'} is shorter than its drain + 5 s (${needed} s)`,
      );
  }
  return v;
}
