import { useCallback, useRef, useState } from 'react';
import type { DocfleetClient, Operation, QueuedResult } from '@docfleet/sdk';

export interface OperationRun<T> {
  running: boolean;
  op?: Operation<T>;
  output?: T;
  error?: unknown;
}

/**
 * Starts a queued workflow and watches its operation until it ends (the SDK's backoff: 2 s growing to
 * 10 s). A completed replay (200) is shown at once; a failed or cancelled operation shows its error.
 */
export function useQueued<T>(client: DocfleetClient) {
  const [run, setRun] = useState<OperationRun<T>>({ running: false });
  const abort = useRef<AbortController>(undefined);
  const start = useCallback(
    async (send: () => Promise<QueuedResult<T>>) => {
      abort.current?.abort();
      const ac = (abort.current = new AbortController());
      setRun({ running: true });
      try {
        const r = await send();
        if (r.status === 200) return setRun({ running: false, output: r.body });
        const op = await client.waitForOperation<T>(r.body.operation_id, {
          signal: ac.signal,
          initialIntervalMs: 1000,
          maxIntervalMs: 4000,
          onProgress: (o) => {
            if (!ac.signal.aborted) setRun({ running: true, op: o });
          },
        });
        if (ac.signal.aborted) return;
        if (op.status === 'completed') setRun({ running: false, op, output: op.output ?? undefined });
        else
          setRun({
            running: false,
            op,
            error: new Error(`The operation ${op.status}: ${op.error ?? 'no reason given'}`),
          });
      } catch (err) {
        if (!ac.signal.aborted) setRun({ running: false, error: err });
      }
    },
    [client],
  );
  const cancel = useCallback(async () => {
    const id = run.op?.operation_id;
    if (id) await client.operations.cancel(id).catch(() => undefined);
  }, [client, run.op]);
  return { run, start, cancel };
}

export function OperationStatus({ run, onCancel }: { run: OperationRun<unknown>; onCancel?: () => void }) {
  if (!run.running) return null;
  const p = run.op?.progress;
  return (
    <p className="op-status" role="status">
      {run.op ? `Operation ${run.op.status}` : 'Starting…'}
      {p && p.total > 0 ? ` · ${p.phase ?? ''} ${p.done}/${p.total}` : ''}{' '}
      {onCancel && run.op && (
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      )}
    </p>
  );
}

export const newKey = () => crypto.randomUUID?.() ?? `${Date.now()}-${Math.random().toString(36).slice(2)}`;
