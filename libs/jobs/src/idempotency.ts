// The idempotency chain of a job kind in an organisation. Without a caller's key the key is derived
// (file version and normalised options); an active or completed job under it is answered as is, a
// failed or cancelled one is retried under `<base>:retry-N` with retry_of_job_id naming it. A
// caller's key names one job, terminal or not.
import type { Db, Job } from '@docfleet/db';
import { ApiError } from '@docfleet/errors';
import { RETRYABLE_JOB_STATUSES } from './status';

export type DispatchedJobKind = 'parse' | 'extract';

/** The key of the n-th retry (n ≥ 1) of a derived key whose job failed or was cancelled. */
export const retryKey = (base: string, n: number) => `${base}:retry-${n}`;

/** The job of one kind under an idempotency key in an organisation. */
export function jobByKey(db: Db, orgId: string, kind: DispatchedJobKind, key: string) {
  return db.job.findUnique({ where: { org_id_kind_idempotency_key: { org_id: orgId, kind, idempotency_key: key } } });
}

/** Either the job to answer with, or the key (and the job it retries) a new job is created under. */
export type KeyResolution = { existing: Job } | { existing?: undefined; key: string; retryOf?: Job };

export async function resolveJobKey(
  db: Db,
  args: {
    orgId: string;
    kind: DispatchedJobKind;
    fileId: string;
    /** The caller's idempotency_key, if any. */
    explicitKey?: string;
    /** The derived key (computed only when there is no explicit key). */
    derivedKey: () => string;
    /** The 409 message when the caller's key already names a job of another file. */
    conflictMessage: string;
  },
): Promise<KeyResolution> {
  if (args.explicitKey) {
    const existing = await jobByKey(db, args.orgId, args.kind, args.explicitKey);
    if (existing) {
      if (existing.file_id !== args.fileId) throw new ApiError('idempotency_conflict', args.conflictMessage);
      return { existing };
    }
    return { key: args.explicitKey };
  }
  const base = args.derivedKey();
  const chain = await db.job.findMany({
    where: {
      org_id: args.orgId,
      kind: args.kind,
      OR: [{ idempotency_key: base }, { idempotency_key: { startsWith: `${base}:retry-` } }],
    },
    orderBy: [{ created_at: 'desc' }, { id: 'desc' }],
  });
  const latest = chain[0];
  if (latest && !RETRYABLE_JOB_STATUSES.includes(latest.status)) return { existing: latest };
  return latest ? { key: retryKey(base, chain.length), retryOf: latest } : { key: base };
}
