// Queued workflows answer 202 (queued, re-attached or retried) or 200 (completed replay with the
// output inline). Tools report both the same way so an agent always knows whether to poll.
import type { QueuedResult } from '@docfleet/sdk';

export function queuedAnswer<T>(r: QueuedResult<T>, what: string) {
  if (r.status === 200)
    return {
      status: 'completed',
      replay: true,
      output: r.body,
      note: `${what} already completed for this exact request; the stored output is returned without a new charge`,
    };
  return {
    operation_id: r.body.operation_id,
    status: r.body.status,
    next: `${what} runs in the background: poll service_operation_status with this operation_id about every 2-10 s until status is completed, failed or cancelled; the result is in its output`,
  };
}
