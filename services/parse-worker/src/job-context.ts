import { debitReserved } from '@docfleet/billing';
import { api, parseInputKind, type ParseInputKind } from '@docfleet/contracts';
import type { CreditReservation, Db, File, FileVersion, Job } from '@docfleet/db';
import type { Logger } from '@docfleet/logger';
import { artifactPrefix } from '@docfleet/storage';
import type { WorkerDeps } from './deps';
import { cancelRequested, parseManifestIdFor } from '@docfleet/jobs';

/** Thrown at a checkpoint when SIGTERM's grace period ran out: the job goes back to the queue. */
export class HandBackSignal extends Error {
  constructor() {
    super('worker shutting down: job handed back');
    this.name = 'HandBackSignal';
  }
}

/** Thrown at a checkpoint when a cancel was requested. */
export class CancelSignal extends Error {
  constructor() {
    super('cancel requested');
    this.name = 'CancelSignal';
  }
}

/** Everything one parse run works with, resolved once from the job row. */
export interface JobContext {
  deps: WorkerDeps;
  log: Logger;
  job: Job;
  file: File;
  version: FileVersion;
  kind: ParseInputKind;
  options: api.ParseOptions;
  reservation: CreditReservation;
  manifestId: string;
  /** Storage prefix and local directory of this job's bundle. */
  prefix: string;
  outDir: string;
  /** Cheap, throttled cancel poll (true = stop); throws HandBackSignal on shutdown. */
  shouldStop: () => Promise<boolean>;
  /** Stage-boundary checkpoint: throws CancelSignal or HandBackSignal. */
  checkpoint: () => Promise<void>;
}

export async function buildContext(deps: WorkerDeps, job: Job, log: Logger): Promise<JobContext> {
  const [file, version, reservation] = await Promise.all([
    deps.db.file.findUnique({ where: { id: job.file_id } }),
    deps.db.fileVersion.findUnique({ where: { id: job.file_version_id } }),
    deps.db.creditReservation.findUnique({ where: { job_id: job.id } }),
  ]);
  if (!file || !version) throw new PermanentFailure('The file or its version no longer exists.', 'file_missing');
  if (!reservation) throw new PermanentFailure('The job has no credit reservation.', 'no_reservation');
  const kind = parseInputKind(version.content_type);
  if (!kind)
    throw new PermanentFailure(`No parser handles content type ${version.content_type}.`, 'unsupported_file_type');
  const options = api.ParseOptions.parse(job.options ?? {});
  const manifestId = parseManifestIdFor(job.id);
  const prefix = artifactPrefix(file.knowledge_base_id, file.id, manifestId);
  let last = 0;
  let cached = false;
  const shouldStop = async () => {
    if (deps.handBack.requested) throw new HandBackSignal();
    if (Date.now() - last >= 250) {
      cached = await cancelRequested(deps.db, job.id);
      last = Date.now();
    }
    return cached;
  };
  return {
    deps,
    log,
    job,
    file,
    version,
    kind,
    options,
    reservation,
    manifestId,
    prefix,
    outDir: deps.storage.localPath(prefix),
    shouldStop,
    checkpoint: async () => {
      last = 0;
      if (await shouldStop()) throw new CancelSignal();
    },
  };
}

/** A failure no retry can fix (the job fails at once). */
export class PermanentFailure extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
    this.name = 'PermanentFailure';
  }
}

/**
 * Per-unit debits against the reservation, batched: each page (or sheet) has its own idempotency
 * key `parse:<jobId>:page:<n>`, so a redelivered job re-debits nothing it already paid for, and a
 * batch lost with a crashed worker is simply debited again on redelivery.
 */
export class UnitCharger {
  private pending: number[] = [];
  private lastFlush = Date.now();
  charged = 0;

  constructor(
    private readonly db: Db,
    private readonly ctx: Pick<JobContext, 'job' | 'reservation'>,
    private readonly unit: 'page' | 'sheet',
  ) {}

  add(n: number) {
    this.pending.push(n);
  }

  async maybeFlush() {
    if (this.pending.length >= 8 || Date.now() - this.lastFlush >= 1000) await this.flush();
  }

  async flush() {
    if (!this.pending.length) return;
    const units = this.pending.splice(0);
    const { job, reservation } = this.ctx;
    await this.db.$transaction(async (tx) => {
      for (const n of units) {
        const r = await debitReserved(tx, {
          reservationId: reservation.id,
          idempotencyKey: `parse:${job.id}:${this.unit}:${n}`,
          reason: `parse ${this.unit} ${n}`,
          fileId: job.file_id,
          jobId: job.id,
        });
        if (r.debited) this.charged++;
      }
    });
    this.lastFlush = Date.now();
  }
}
