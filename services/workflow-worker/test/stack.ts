// Test stack for workflows: the real gateway and parse worker (services/parse-worker/test/stack.ts)
// plus the real workflow worker in this process, on the same database, storage and queue prefix.
import { createLogger } from '@docfleet/logger';
import { ModelRegistry, readModelConfig } from '@docfleet/models';
import { createRedis } from '@docfleet/queue';
import { startStack, type Stack } from '../../parse-worker/test/stack';
import { startWorkflowWorker, type RunningWorkflowWorker } from '../src/worker';
import type { WorkerDeps } from '../src/runners/types';

export { corpus, creditInvariants, CORPUS } from '../../parse-worker/test/stack';

export interface WorkflowStack extends Stack {
  workflowDeps: WorkerDeps;
  startWorkflow(): RunningWorkflowWorker;
  workflow?: RunningWorkflowWorker;
}

/**
 * `modelEnv` configures the model providers of both the gateway (which resolves model_id) and the
 * worker (which calls the model), as one deployment's environment would.
 */
export async function startWorkflowStack(o: { modelEnv?: Record<string, string>; workflowWorker?: boolean } = {}): Promise<WorkflowStack> {
  const s = await startStack();
  const models = new ModelRegistry(readModelConfig({ ...o.modelEnv }));
  s.gw.deps.models = models;
  const redis = createRedis(s.gw.deps.env.REDIS_URL, { forWorker: true });
  const workflowDeps: WorkerDeps = {
    db: s.gw.db, storage: s.gw.deps.storage, models, queues: s.gw.deps.queues,
    logger: createLogger('workflow-worker-test', process.env.TEST_LOG_LEVEL ?? 'silent'),
  };
  const running: RunningWorkflowWorker[] = [];
  const stack = s as WorkflowStack;
  stack.workflowDeps = workflowDeps;
  stack.startWorkflow = () => {
    const w = startWorkflowWorker(workflowDeps, { connection: redis, prefix: s.gw.deps.env.QUEUE_PREFIX, concurrency: 2 });
    running.push(w);
    return w;
  };
  const close = s.close.bind(s);
  stack.close = async () => {
    for (const w of running) await w.close(0).catch(() => undefined);
    await redis.quit().catch(() => undefined);
    await close();
  };
  if (o.workflowWorker !== false) stack.workflow = stack.startWorkflow();
  return stack;
}
