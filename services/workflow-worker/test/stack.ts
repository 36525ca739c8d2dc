// Test stack for workflows: the real gateway and parse worker as processes (libs/testing, over a
// fresh database, storage dir and queue prefix) plus the real workflow worker in this process, on
// the same database, storage and queue prefix. Clients talk to it through libs/sdk.
import { grantCredits } from '@docfleet/billing';
import { createLogger } from '@docfleet/logger';
import { startFakeOpenAiServer, type FakeOpenAiOptions, type FakeOpenAiServer } from '@docfleet/models/test-servers';
import { DocfleetClient } from '@docfleet/sdk';
import { ModelRegistry, readModelConfig } from '@docfleet/models';
import { createRedis } from '@docfleet/queue';
import { spawnGateway, spawnWorker, type GatewayProcess, type WorkerProcess } from '@docfleet/testing';
import { startWorkflowWorker, type RunningWorkflowWorker } from '../src/worker';
import type { WorkerDeps } from '../src/deps';

export { CORPUS, corpus, creditInvariants } from '@docfleet/testing';

export interface WorkflowStack {
  gw: GatewayProcess;
  parseWorker: WorkerProcess;
  /** The deployment's model environment (the gateway's and the workflow worker's). */
  modelEnv: Record<string, string>;
  client(key: string, baseUrl?: string): DocfleetClient;
  workflowDeps: WorkerDeps;
  startWorkflow(): RunningWorkflowWorker;
  workflow?: RunningWorkflowWorker;
  close(): Promise<void>;
}

/**
 * `modelEnv` configures the model providers of both the gateway (which resolves model_id) and the
 * worker (which calls the model), as one deployment's environment would.
 */
export async function startWorkflowStack(
  o: { modelEnv?: Record<string, string>; workflowWorker?: boolean } = {},
): Promise<WorkflowStack> {
  const modelEnv = { ...o.modelEnv };
  const gw = await spawnGateway({ env: modelEnv });
  let parseWorker: WorkerProcess;
  try {
    parseWorker = await spawnWorker(gw, { LOG_LEVEL: 'warn' });
  } catch (err) {
    await gw.close();
    throw err;
  }
  const redis = createRedis(gw.deps.env.REDIS_URL, { forWorker: true });
  const workflowDeps: WorkerDeps = {
    db: gw.db,
    storage: gw.deps.storage,
    models: new ModelRegistry(readModelConfig(modelEnv)),
    queues: gw.deps.queues,
    logger: createLogger('workflow-worker-test', process.env.TEST_LOG_LEVEL ?? 'silent'),
  };
  const running: RunningWorkflowWorker[] = [];
  const stack: WorkflowStack = {
    gw,
    parseWorker,
    modelEnv,
    workflowDeps,
    client: (key, baseUrl = gw.url) =>
      new DocfleetClient({
        baseUrl,
        apiKey: key,
        polling: { initialIntervalMs: 100, maxIntervalMs: 250, factor: 1.2, timeoutMs: 120_000 },
      }),
    startWorkflow() {
      const w = startWorkflowWorker(workflowDeps, {
        connection: redis,
        prefix: gw.deps.env.QUEUE_PREFIX,
        concurrency: 2,
      });
      running.push(w);
      return w;
    },
    async close() {
      for (const w of running) await w.close(0).catch(() => undefined);
      await redis.quit().catch(() => undefined);
      if (parseWorker.child.exitCode === null) {
        parseWorker.child.kill('SIGTERM');
        await parseWorker.exited;
      }
      await gw.close();
    },
  };
  if (o.workflowWorker !== false) stack.workflow = stack.startWorkflow();
  return stack;
}

/**
 * Runs `fn` with a client of another gateway replica of the same deployment (database, storage,
 * queues) whose model environment is `modelEnv` on top of the stack's: how a test sees what the
 * gateway answers under other model providers (none, a different default) without restarting it.
 */
export async function withGatewayModels<T>(
  s: WorkflowStack,
  modelEnv: Record<string, string>,
  key: string,
  fn: (c: DocfleetClient) => Promise<T>,
): Promise<T> {
  const replica = await spawnGateway({ replicaOf: s.gw, env: { ...s.modelEnv, ...modelEnv } });
  try {
    return await fn(s.client(key, replica.url));
  } finally {
    await replica.close();
  }
}

/** A fake OpenAI-compatible server (model `remote-small`) beside docfleet-local, the default model. */
export const remoteModelEnv = (fakeUrl: string) => ({
  OPENAI_BASE_URL: `${fakeUrl}/v1`,
  OPENAI_MODELS: 'remote-small',
  MODEL_DEFAULT: 'docfleet-local',
  MODEL_MAX_RETRIES: '0',
});

export interface WorkflowFixture {
  s: WorkflowStack;
  fake: FakeOpenAiServer;
  c: DocfleetClient;
  orgId: string;
  key: string;
  kbId: string;
  /** `file`, uploaded into the knowledge base and parsed. */
  fileId: string;
  close(): Promise<void>;
}

/**
 * The usual setup of a workflow test file: the stack with a fake remote model, an organisation
 * with credits, a knowledge base and one parsed file.
 */
export async function startWorkflowFixture(o: {
  kbName: string;
  file: string;
  credits?: number;
  respond?: FakeOpenAiOptions['respond'];
  parseOptions?: Record<string, unknown>;
}): Promise<WorkflowFixture> {
  const fake = await startFakeOpenAiServer({ models: ['remote-small'], ...(o.respond ? { respond: o.respond } : {}) });
  const s = await startWorkflowStack({ modelEnv: remoteModelEnv(fake.url) });
  const org = await s.gw.createOrg({ credits: o.credits ?? 50 });
  const c = s.client(org.key);
  const kbId = (await c.knowledgeBases.create({ name: o.kbName })).knowledge_base.id;
  const fileId = (await c.files.upload(o.file, { knowledgeBaseId: kbId })).file.id;
  await c.waitForJob(
    fileId,
    (
      await c.files.parse(
        fileId,
        o.parseOptions ? ({ options: o.parseOptions } as Parameters<DocfleetClient['files']['parse']>[1]) : {},
      )
    ).job.job_id,
  );
  return {
    s,
    fake,
    c,
    orgId: org.orgId,
    key: org.key,
    kbId,
    fileId,
    close: async () => {
      await s.close();
      await fake.close();
    },
  };
}

/** An organisation that can pay for exactly one page: `file` (one page) parsed, nothing left. */
export async function brokeOrgWithParsedFile(s: WorkflowStack, file: string) {
  const poor = await s.gw.createOrg({ credits: 0 });
  const client = s.client(poor.key);
  const kb = (await client.knowledgeBases.create({ name: 'poor' })).knowledge_base.id;
  const fileId = (await client.files.upload(file, { knowledgeBaseId: kb })).file.id;
  await grantCredits(s.gw.db, { orgId: poor.orgId, amount: 1, idempotencyKey: 'one-page', reason: 'test' });
  await client.waitForJob(fileId, (await client.files.parse(fileId)).job.job_id);
  return { client, orgId: poor.orgId, fileId };
}
