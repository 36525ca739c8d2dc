// A running docfleet for end-to-end tests of the clients (the tool server, the CLI, the SDK): the
// real gateway and the real workers as processes, exactly as `pnpm start` runs them (parse-worker,
// index-worker, webhook-worker, workflow-worker), each test on its own database, storage dir and queue prefix.
// Clients reach it only over HTTP.
import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { CORPUS, spawnGateway, type GatewayProcess } from './gateway';
import { freePort } from './private-redis';
import { ROOT, startServiceProcess, stopProcess, workerEnvOf, type StartedProcess } from './service-process';

/** A small born-digital invoice from the corpus (1 page, text layer; MANIFEST.tsv). */
export const INVOICE_PDF = 'f_forms_invoices/invoice2data/AzureInterior.pdf';

/** Model providers and the clients' target: what an offline fleet and its clients do not inherit. */
export const ONLINE_ENV = /^(ANTHROPIC_|OPENAI_|MODEL_|SERVICE_)/;

/** Environment without any remote model provider, so workflows run on the offline docfleet-local model. */
export function offlineEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const k of Object.keys(env)) if (ONLINE_ENV.test(k)) delete env[k];
  return { ...env, ...extra };
}

export interface Fleet {
  url: string;
  gw: GatewayProcess;
  /** A temporary directory removed by close(). */
  tmp: string;
  createOrg(o?: { credits?: number }): Promise<{ orgId: string; key: string }>;
  /** Copies a corpus file into tmp (the corpus itself is never touched) and returns the copy's absolute path. */
  corpusCopy(rel: string, name?: string): Promise<string>;
  logs(): string;
  close(): Promise<void>;
}

// The webhook worker relays stored events to the event stream (`parse --watch` follows it).
export const FLEET_WORKERS = ['parse-worker', 'index-worker', 'webhook-worker', 'workflow-worker'] as const;

/**
 * The gateway and the workers (FLEET_WORKERS, or `workers`), offline (the docfleet-local model)
 * unless `env` names model providers.
 */
export async function startFleet(
  o: { env?: Record<string, string>; workers?: ReadonlyArray<(typeof FLEET_WORKERS)[number]> } = {},
): Promise<Fleet> {
  const gw = await spawnGateway({ env: o.env, dropEnv: ONLINE_ENV });
  const tmp = await mkdtemp(path.join(os.tmpdir(), 'docfleet-fleet-'));
  const procs: Array<{ name: string; p: StartedProcess }> = [];
  const close = async () => {
    await Promise.all(procs.map(({ p }) => stopProcess(p)));
    await gw.close();
    await rm(tmp, { recursive: true, force: true });
  };
  try {
    const started = await Promise.allSettled(
      (o.workers ?? FLEET_WORKERS).map(async (name) => {
        const healthPort = await freePort();
        const p = await startServiceProcess(name, {
          dropEnv: ONLINE_ENV,
          env: {
            ...workerEnvOf(gw),
            HEALTH_PORT: String(healthPort),
            LOG_LEVEL: 'warn',
            DB_POOL_MAX: '3',
            OMP_THREAD_LIMIT: '1',
            ...o.env,
          },
          readyUrl: `http://127.0.0.1:${healthPort}/healthz`,
        });
        return { name, p };
      }),
    );
    for (const s of started) if (s.status === 'fulfilled') procs.push(s.value);
    const failed = started.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (failed) throw failed.reason;
  } catch (err) {
    await close();
    throw err;
  }
  return {
    url: gw.url,
    gw,
    tmp,
    createOrg: (c = {}) => gw.createOrg({ credits: c.credits ?? 100 }),
    async corpusCopy(rel, name) {
      const dest = path.join(tmp, name ?? path.basename(rel));
      await copyFile(path.join(CORPUS, rel), dest);
      return dest;
    },
    logs: () => [`--- gateway\n${gw.output()}`, ...procs.map((p) => `--- ${p.name}\n${p.p.output()}`)].join('\n'),
    close,
  };
}
