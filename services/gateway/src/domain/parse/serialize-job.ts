import type { CreditReservation, Job, JobEvent } from '@docfleet/db';
import type { api } from '@docfleet/contracts';
import { publicJobStatus } from '@docfleet/jobs';

const iso = (d: Date | null | undefined) => (d ? d.toISOString() : null);

export function serializeJob(j: Job): api.Job {
  return {
    job_id: j.id,
    file_id: j.file_id,
    file_version_id: j.file_version_id,
    status: publicJobStatus(j.status),
    raw_status: j.status,
    kind: j.kind as 'parse' | 'extract',
    stage: j.stage,
    percent: j.percent,
    total_pages: j.total_pages,
    completed_pages: j.completed_pages,
    error: j.error,
    error_code: j.status === 'failed' ? (j.error_code ?? 'internal_error') : null,
    result: (j.result as Record<string, unknown> | null) ?? null,
    options: (j.options ?? {}) as Record<string, unknown>,
    idempotency_key: j.idempotency_key,
    created_at: j.created_at.toISOString(),
    started_at: iso(j.started_at),
    cancel_requested_at: iso(j.cancel_requested_at),
    completed_at: iso(j.completed_at),
    updated_at: j.updated_at.toISOString(),
    ...(j.retry_of_job_id ? { retry_of_job_id: j.retry_of_job_id } : {}),
  };
}

export function serializeReservation(r: CreditReservation | null): api.CreditReservation | null {
  if (!r) return null;
  return {
    id: r.id,
    amount_credits: r.amount_credits,
    debited_credits: r.debited_credits,
    status: r.status as 'reserved',
    created_at: r.created_at.toISOString(),
    finalized_at: iso(r.finalized_at),
  };
}

export function serializeEvent(e: JobEvent): api.JobEvent {
  return {
    event_type: e.event_type,
    message: e.message,
    stage: e.stage,
    payload: (e.payload ?? {}) as Record<string, unknown>,
    created_at: e.created_at.toISOString(),
  };
}
