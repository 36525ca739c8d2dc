import type { Handlers } from '@docfleet/queue';
import { runOperation } from './run-operation';
import type { WorkerDeps } from './runners/types';

export interface WorkflowHandlers {
  handlers: Handlers<'workflow'>;
  /** Aborts model calls in flight (shutdown). */
  abort(): void;
}

export function createWorkflowHandlers(
  deps: WorkerDeps,
  extra: { extractFile: Handlers<'workflow'>['extract.file'] },
): WorkflowHandlers {
  const controller = new AbortController();
  return {
    handlers: {
      'operation.run': (payload) => runOperation(deps, payload, controller.signal),
      'extract.file': extra.extractFile,
    },
    abort: () => controller.abort(),
  };
}
