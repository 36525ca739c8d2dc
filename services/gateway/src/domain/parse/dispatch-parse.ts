import { requirePermission, type Principal } from '@docfleet/auth';
import { creditTransaction, finalizeReservation, reserveCredits } from '@docfleet/billing';
import { isSpreadsheetKind, parseInputKind, type api } from '@docfleet/contracts';
import { isUniqueViolation, type CreditReservation, type Db, type Job } from '@docfleet/db';
import { ApiError, isApiError, publicTraceback, tail } from '@docfleet/errors';
import type { Deps } from '../../deps';
import { loadFile } from '../files/files';
import { estimateUnits } from './estimate-units';
import { defaultParseKey, normaliseParseOptions, retryKey } from './parse-options';
import { bulkAborted, jobByKey } from './bulk';
import { emitJobEnded } from '@docfleet/webhooks';

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

const RETRYABLE = new Set(['failed', 'cancelled']);

/**
 * Queues a parse of the file's current version (spec: POST /v1/files/{fileId}/parse).
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

  let key: string;
  let retryOf: Job | undefined;
  if (input.idempotency_key) {
    key = input.idempotency_key;
    const existing = await findByKey(deps.db, p.orgId, key);
    if (existing) {
      if (existing.file_id !== file.id)
        throw new ApiError(
          'idempotency_conflict',
          'This idempotency_key was already used for a parse of another file.',
        );
      return existingResult(deps.db, existing);
    }
  } else {
    const base = defaultParseKey(version.id, options);
    const chain = await deps.db.job.findMany({
      where: {
        org_id: p.orgId,
        kind: 'parse',
        OR: [{ idempotency_key: base }, { idempotency_key: { startsWith: `${base}:retry-` } }],
      },
      orderBy: [{ created_at: 'desc' }, { id: 'desc' }],
    });
    const latest = chain[0];
    if (latest && !RETRYABLE.has(latest.status)) return existingResult(deps.db, latest);
    key = latest ? retryKey(base, chain.length) : base;
    retryOf = latest;
  }

  const estimate = await estimateUnits(deps, version, deps.env.MAX_PAGES);
  let created: { job: Job; reservation: CreditReservation };
  try {
    created = await creditTransaction(deps.db, p.orgId, async (tx) => {
      const job = await tx.job.create({
        data: {
          org_id: p.orgId,
          knowledge_base_id: file.knowledge_base_id,
          file_id: file.id,
          file_version_id: version.id,
          kind: 'parse',
          status: 'queued',
          options,
          idempotency_key: key,
          retry_of_job_id: retryOf?.id ?? null,
          created_by_user_id: p.userId ?? null,
          api_key_id: p.apiKeyId ?? null,
        },
      });
      // Throws 402 (insufficient_credits / monthly_quota_exceeded): the job row rolls back with it.
      const reservation = await reserveCredits(tx, {
        orgId: p.orgId,
        amount: estimate.units,
        jobId: job.id,
        knowledgeBaseId: file.knowledge_base_id,
        fileId: file.id,
      });
      await tx.jobEvent.create({
        data: {
          job_id: job.id,
          event_type: 'job.queued',
          stage: null,
          message: `Queued; ${estimate.units} credit(s) reserved for ${estimate.units} estimated ${estimate.unit}.`,
          payload: {
            unit: estimate.unit,
            estimated_units: estimate.units,
            ...(estimate.note ? { estimate_note: estimate.note } : {}),
            ...(retryOf ? { retry_of_job_id: retryOf.id } : {}),
          },
        },
      });
      return { job, reservation };
    });
  } catch (err) {
    // A concurrent identical dispatch created the job first: answer with it.
    if (isUniqueViolation(err)) {
      const winner = await findByKey(deps.db, p.orgId, key);
      if (winner) return existingResult(deps.db, winner);
    }
    throw err;
  }

  try {
    await deps.queues.enqueue('parse.file', { jobId: created.job.id, orgId: p.orgId }, { jobId: created.job.id });
  } catch (err) {
    deps.logger.error({ err, job_id: created.job.id }, 'parse dispatch: enqueue failed; failing the job');
    await failUnqueued(deps.db, created.job.id, err as Error);
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
 * Bulk dispatch (spec): not atomic. Files dispatch in request order; the first failure aborts and
 * jobs queued before it stay queued with their credits reserved. With a key, each file's key is
 * `<key>:<file_id>`. The error of an aborted bulk names the failing file and the jobs already queued.
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

const findByKey = (db: Db, orgId: string, key: string) => jobByKey(db, orgId, 'parse', key);

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

/**
 * The job was created but never reached the queue: fail it (`service_unavailable`) and close its
 * reservation together. The event's traceback is the error's name and message, redacted (no stack
 * frames or paths: docs/errors.md); the caller's log line has the whole error.
 */
async function failUnqueued(db: Db, jobId: string, err: Error) {
  await db
    .$transaction(async (tx) => {
      const n = await tx.job.updateMany({
        where: { id: jobId, status: 'queued' },
        data: {
          status: 'failed',
          error: 'The job could not be queued (queue unavailable); nothing was charged.',
          error_code: 'service_unavailable',
          completed_at: new Date(),
        },
      });
      if (!n.count) return;
      await finalizeReservation(tx, { jobId, outcome: 'failed' });
      await emitJobEnded(tx, jobId);
      await tx.jobEvent.create({
        data: {
          job_id: jobId,
          event_type: 'job.failed',
          stage: null,
          message: 'The job could not be queued.',
          payload: { code: 'service_unavailable', traceback: tail(publicTraceback(err), 4000) },
        },
      });
    })
    .catch(() => undefined);
}
