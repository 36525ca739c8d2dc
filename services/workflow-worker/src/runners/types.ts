import type { Operation } from '@docfleet/db';
import type { ResolvedModel } from '@docfleet/models';
import type { WorkerDeps } from '../deps';

/** Thrown by a checkpoint when a cancel was requested; the attempt ends `cancelled`. */
export class OperationCancelled extends Error {
  constructor() {
    super('Cancelled on request.');
    this.name = 'OperationCancelled';
  }
}

/** What one attempt's runner gets. The runner returns the operation's `output`. */
export interface RunContext {
  op: Operation;
  /** The validated request the gateway stored on the row. */
  request: Record<string, unknown>;
  deps: WorkerDeps;
  /** The model pinned to the operation's model_id (resolved lazily, once). */
  model(): ResolvedModel;
  /** Cooperative cancel point: throws OperationCancelled when a cancel was requested. */
  checkpoint(): Promise<void>;
  /** Advisory progress (docs/api.md, States: done/total/phase). */
  progress(done: number, total: number, phase: string): Promise<void>;
  /** Aborted when the worker shuts down. */
  signal: AbortSignal;
}

export type Runner = (ctx: RunContext) => Promise<unknown>;
