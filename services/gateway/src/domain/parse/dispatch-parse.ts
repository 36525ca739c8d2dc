import { requirePermission, type Principal } from '@docfleet/auth';
import { creditTransaction, reserveCredits } from '@docfleet/billing';
import { isSpreadsheetKind, parseInputKind, type api } from '@docfleet/contracts';
import { isUniqueViolation, type CreditReservation, type Db, type Job } from '@docfleet/db';
import { ApiError, isApiError } from '@docfleet/errors';
import { addQueuedEvent, createQueuedJob, failUnqueuedJob, jobByKey, resolveJobKey } from '@docfleet/jobs';
import type { Deps } from '../../deps';
import { loadFile } from '../files/files';
import { estimateUnits } from './estimate-units';
import { defaultParseKey, normaliseParseOptions } from './parse-options';
import { bulkAborted } from './bulk';

type DispatchDeps = Pick<Deps, 'db' | 'storage' | 'queues' | 'env' | 'logger'>;

export interface DispatchInput {
  options?: unknown;
  idempotency_key?: string;
}

export interface DispatchResult {
  job: Job;
  reservation: CreditReservation | null;
  usage: api.ParseUsage;
  idempotencyKey: string;
  idempotent: boolean;
  retryOfJobId?: string;
}

/**
 * Queues a parse of the file's current version (POST /v1/files/{fileId}/parse; docs/api.md, Idempotency).
 *
 * Idempotency: without a key, the key is derived from the file version and the normalised options;
 * an active or completed job under it is returned as is, a failed or cancelled one is retried under
 * a new derived key (`…:retry-N`) with retry_of_job_id. An explicit key returns whatever job it
 * names, terminal or not. The reservation is made in the transaction that creates the job, so a
 * refusal (402) leaves nothing behind; the queue entry is added after commit.
 */
export async function dispatchParse(
  deps: DispatchDeps,
  p: Principal,
  fileId: string,
  input: DispatchInput,
): Promise<DispatchResult> {
  requirePermission(p, 'parse.run');
  const file = await loadFile(deps.db, p, fileId);
  const options = normaliseParseOptions(input.options);
  const version = file.current_version;

  const resolved = await resolveJobKey(deps.db, {
    orgId: p.orgId,
    kind: 'parse',
    fileId: file.id,
    explicitKey: input.idempotency_key,
    derivedKey: () => defaultParseKey(version.id, options),
    conflictMessage: 'This idempotency_key was already used for a parse of another file.',
  });
  if (resolved.existing) return existingResult(deps.db, resolved.existing);
  const { key, retryOf } = resolved;

  const estimate = await estimateUnits(deps, version, deps.env.MAX_PAGES);
  let created: { job: Job; reservation: CreditReservation };
  try {
    created = await creditTransaction(deps.db, p.orgId, async (tx) => {
      const job = await createQueuedJob(tx, {
        orgId: p.orgId,
        knowledgeBaseId: file.knowledge_base_id,
        fileId: file.id,
        fileVersionId: version.id,
        kind: 'parse',
        options,
        idempotencyKey: key,
        retryOfJobId: retryOf?.id,
        createdByUserId: p.userId,
        apiKeyId: p.apiKeyId,
      });
      // Throws 402 (insufficient_credits / monthly_quota_exceeded): the job row rolls back with it.
      const reservation = await reserveCredits(tx, {
        orgId: p.orgId,
        amount: estimate.units,
        jobId: job.id,
        knowledgeBaseId: file.knowledge_base_id,
        fileId: file.id,
      });
      await addQueuedEvent(
        tx,
        job.id,
        `Queued; ${estimate.units} credit(s) reserved for ${estimate.units} estimated ${estimate.unit}.`,
        {
          unit: estimate.unit,
          estimated_units: estimate.units,
          ...(estimate.note ? { estimate_note: estimate.note } : {}),
          ...(retryOf ? { retry_of_job_id: retryOf.id } : {}),
        },
      );
      return { job, reservation };
    });
  } catch (err) {
    // A concurrent identical dispatch created the job first: answer with it.
    if (isUniqueViolation(err)) {
      const winner = await jobByKey(deps.db, p.orgId, 'parse', key);
      if (winner) return existingResult(deps.db, winner);
    }
    throw err;
  }

  try {
    await deps.queues.enqueue('parse.file', { jobId: created.job.id, orgId: p.orgId }, { jobId: created.job.id });
  } catch (err) {
    deps.logger.error({ err, job_id: created.job.id }, 'parse dispatch: enqueue failed; failing the job');
    await failUnqueuedJob(deps.db, created.job.id, err as Error, {
      error: 'The job could not be queued (queue unavailable); nothing was charged.',
      closeReservation: true,
    });
    throw new ApiError(
      'service_unavailable',
      'The parse queue is unavailable; the job was failed and nothing was charged. Try again shortly.',
    );
  }
  return {
    job: created.job,
    reservation: created.reservation,
    usage: {
      unit: estimate.unit,
      estimated_units: estimate.units,
      reserved_credits: created.reservation.amount_credits,
      debited_credits: 0,
    },
    idempotencyKey: key,
    idempotent: false,
    ...(retryOf ? { retryOfJobId: retryOf.id } : {}),
  };
}

/**
 * Bulk dispatch (docs/api.md, "Bulk requests"): not atomic. Files dispatch in request order; the first
 * failure aborts and jobs queued before it stay queued with their credits reserved. With a key, each file's
 * key is `<key>:<file_id>`. The error of an aborted bulk names the failing file and the jobs already queued.
 */
export async function dispatchParseBulk(
  deps: DispatchDeps,
  p: Principal,
  body: { file_ids: string[]; options?: unknown; idempotency_key?: string },
) {
  requirePermission(p, 'parse.run');
  normaliseParseOptions(body.options); // refuse bad options before anything is queued
  const out: DispatchResult[] = [];
  for (const fileId of body.file_ids) {
    try {
      out.push(
        await dispatchParse(deps, p, fileId, {
          options: body.options,
          idempotency_key: body.idempotency_key ? `${body.idempotency_key}:${fileId}` : undefined,
        }),
      );
    } catch (err) {
      if (!isApiError(err)) throw err;
      throw bulkAborted(
        err,
        fileId,
        out.map((r) => r.job.id),
      );
    }
  }
  return out;
}

async function existingResult(db: Db, job: Job): Promise<DispatchResult> {
  const [reservation, version] = await Promise.all([
    db.creditReservation.findUnique({ where: { job_id: job.id } }),
    db.fileVersion.findUnique({ where: { id: job.file_version_id }, select: { content_type: true } }),
  ]);
  const kind = version ? parseInputKind(version.content_type) : null;
  return {
    job,
    reservation,
    usage: {
      unit: kind && isSpreadsheetKind(kind) ? 'sheets' : 'pages',
      estimated_units: reservation?.amount_credits ?? 0,
      reserved_credits: reservation?.amount_credits ?? 0,
      debited_credits: reservation?.debited_credits ?? 0,
    },
    idempotencyKey: job.idempotency_key,
    idempotent: true,
    ...(job.retry_of_job_id ? { retryOfJobId: job.retry_of_job_id } : {}),
  };
}
