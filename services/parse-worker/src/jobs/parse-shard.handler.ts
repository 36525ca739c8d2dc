// The 'parse.shard' job: parse one page range of a sharded parse (shards.ts plans the shards and
// assembles the bundle). Each page's result is stored as soon as the page is finished and debited
// `parse:<jobId>:page:<n>`; a redelivered shard skips the pages already stored, so a killed worker
// loses at most the page it was on. The shard that finishes last assembles and completes the job.
import path from 'node:path';
import fs from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { BUNDLE } from '@docfleet/contracts';
import {
  TERMINAL_JOB_STATUSES as TERMINAL,
  addJobEvent as addEvent,
  beatShardedParseJob,
  cancelParseJob as finishCancelled,
  failParseJob as finishFailed,
  raiseShardedParsePercent,
} from '@docfleet/jobs';
import { ParseError, isParseError, parsePages } from '@docfleet/pdf';
import { DelayedError, type Job as QueueJob, type JobPayload } from '@docfleet/queue';
import { startHeartbeat } from '@docfleet/runtime';
import { pageResultName, pageResultOf, writeJson } from '../bundle';
import type { WorkerDeps } from '../deps';
import { pageEvents } from '../document-pages';
import { CancelSignal, HandBackSignal, UnitCharger, buildContext, type JobContext } from '../job-context';
import { releaseShard, takeShard } from '../lost-shards';
import { reusePage } from '../page-diff';
import { budgetOf } from '../parse-document';
import { assembleIfLast, markShardDone, readPlan, readResult, shardQueueId, type ShardPageResult } from '../shards';
import { classifyFailure, enqueueIndex } from './parse-file.handler';

const rangeText = (first: number, last: number) => (first === last ? `page ${first}` : `pages ${first}-${last}`);

/** Keeps the job row and the shard row alive while a shard runs (the reaper looks at both). */
async function beatShard(deps: WorkerDeps, jobId: string, shardNo: number) {
  await beatShardedParseJob(deps.db, jobId);
  await deps.db.$executeRaw`UPDATE parse_shards SET updated_at = now()
    WHERE job_id = ${jobId}::uuid AND shard_no = ${shardNo}`;
}

/**
 * Stores how many of the shard's pages are done and moves the job's percent by the pages done
 * across every shard (libs/jobs raiseShardedParsePercent; 75 → 95 while the bundle is assembled).
 */
async function shardProgress(deps: WorkerDeps, jobId: string, shardNo: number, done: number) {
  await deps.db.$executeRaw`UPDATE parse_shards SET done_pages = ${done}, updated_at = now()
    WHERE job_id = ${jobId}::uuid AND shard_no = ${shardNo}`;
  await raiseShardedParsePercent(deps.db, jobId);
}

/** Removes the waiting queue entries of a job's unfinished shards (best effort; they would only skip). */
async function dropQueuedShards(deps: WorkerDeps, jobId: string) {
  const open = await deps.db.parseShard.findMany({
    where: { job_id: jobId, status: { not: 'done' } },
    select: { shard_no: true },
  });
  const q = deps.queues.queue('parse');
  for (const s of open) {
    try {
      const e = await q.getJob(shardQueueId(jobId, s.shard_no));
      if (e && (await e.isWaiting())) await e.remove();
    } catch {
      /* active or already gone: it sees the terminal row and stops */
    }
  }
}

export async function handleParseShard(
  deps: WorkerDeps,
  payload: JobPayload<'parse.shard'>,
  queueJob: QueueJob,
): Promise<{ outcome: string }> {
  const log = deps.logger.child({ job_id: payload.jobId, shard: payload.shardNo });
  const job = await deps.db.job.findUnique({ where: { id: payload.jobId } });
  if (!job || job.org_id !== payload.orgId || job.kind !== 'parse') return { outcome: 'missing' };
  if (TERMINAL.includes(job.status)) {
    if (job.status === 'completed') await enqueueIndex(deps, job.id);
    return { outcome: 'skipped' };
  }
  const shard = await deps.db.parseShard.findUnique({
    where: { job_id_shard_no: { job_id: job.id, shard_no: payload.shardNo } },
  });
  if (!shard) return { outcome: 'missing' };
  let ctx: JobContext | undefined;
  const attempt = queueJob.attemptsMade + 1;
  const stopBeating = startHeartbeat(
    () => beatShard(deps, job.id, shard.shard_no),
    deps.heartbeatMs ?? 10_000,
    (err) => log.warn({ err }, 'shard heartbeat failed'),
  );
  try {
    ctx = await buildContext(deps, job, log);
    if (job.cancel_requested_at) throw new CancelSignal();
    // Taking a row another worker left `running` records that hand-on (lost-shards.ts).
    if (shard.status !== 'done' && (await takeShard(deps, job.id, shard.shard_no))) {
      await runShard(ctx, shard.shard_no, shard.first_page, shard.last_page, shard.pages);
      await markShardDone(deps, job.id, shard.shard_no);
    }
    return { outcome: await assembleIfLast(ctx) };
  } catch (err) {
    // The job may have ended meanwhile (cancelled, or failed by another shard): nothing more to do.
    const now = await deps.db.job.findUnique({ where: { id: job.id }, select: { status: true } });
    if (now && TERMINAL.includes(now.status)) return { outcome: 'skipped' };
    if (err instanceof HandBackSignal) {
      log.info('grace period over: handing the shard back to the queue');
      await releaseShard(deps, job.id, shard.shard_no);
      await queueJob.moveToDelayed(Date.now() + 1000, queueJob.token);
      throw new DelayedError();
    }
    if (err instanceof CancelSignal || (isParseError(err) && err.code === 'cancelled')) {
      const outcome = await finishCancelled(deps.db, job.id);
      await dropQueuedShards(deps, job.id);
      if (ctx) await fs.rm(ctx.outDir, { recursive: true, force: true });
      log.info({ outcome }, 'sharded parse cancelled');
      return { outcome };
    }
    const f = classifyFailure(err);
    const last = attempt >= (queueJob.opts.attempts ?? 1);
    const range = rangeText(shard.first_page, shard.last_page);
    if (f.permanent || last) {
      const message = `Shard ${range} failed${f.permanent ? '' : ` after ${attempt} attempt(s)`}: ${f.message}`;
      const outcome = await finishFailed(deps.db, job.id, message, {
        traceback: (err as Error)?.stack ?? String(err),
        code: f.code,
        page: f.page,
      });
      await dropQueuedShards(deps, job.id);
      if (ctx) await fs.rm(ctx.outDir, { recursive: true, force: true });
      log.info({ outcome, code: f.code, err }, 'sharded parse failed');
      return { outcome };
    }
    log.warn({ err, attempt }, 'shard attempt failed; it will be retried');
    // Handed back alive: the worker that retries it does not count it as lost.
    await releaseShard(deps, job.id, shard.shard_no).catch(() => undefined);
    await addEvent(
      deps.db,
      job.id,
      'parse.attempt_failed',
      null,
      `Shard ${range}: attempt ${attempt} failed (${f.message}); retrying.`,
      { attempt, first_page: shard.first_page, last_page: shard.last_page },
    ).catch(() => undefined);
    throw err;
  } finally {
    stopBeating();
  }
}

async function runShard(ctx: JobContext, shardNo: number, first: number, last: number, changedHere: number[]) {
  const { deps, job, options } = ctx;
  const db = deps.db;
  const plan = await readPlan(ctx);
  const toParse = new Set(changedHere);
  const charger = new UnitCharger(db, ctx, 'page');
  let done = 0;
  const todo: number[] = [];
  for (let n = first; n <= last; n++) {
    await ctx.checkpoint();
    const stored = await readResult(ctx.outDir, n);
    if (!toParse.has(n)) {
      // Unchanged since the previous parse: its result and files are copied, free.
      if (!stored) {
        if (!plan.prevPrefix)
          throw new ParseError('no_artifacts', `Page ${n} was to be reused but there is nothing to reuse.`);
        const r = await reusePage(deps.storage.localPath(plan.prevPrefix), ctx.outDir, n, plan.sources?.[n] ?? n);
        await writeJson(path.join(ctx.outDir, BUNDLE.page_results, pageResultName(n)), r);
      }
      continue;
    }
    if (stored) {
      // Parsed by an earlier run of this shard: debited again (idempotent: a debit lost with a
      // killed worker is made now, one already made is a no-op), never parsed again.
      if (!stored.failed) charger.add(n);
      done++;
    } else todo.push(n);
  }
  await charger.flush();
  await shardProgress(deps, job.id, shardNo, done);
  ctx.log.info({ first, last, stored: done, todo: todo.length }, 'shard started');
  if (!todo.length) return;
  let lastWrite = Date.now();
  const testDelayMs = deps.env.PARSE_TEST_PAGE_DELAY_MS ?? 0;
  await parsePages({
    path: deps.storage.localPath(ctx.version.storage_path),
    kind: 'pdf',
    backend: plan.backend,
    outDir: ctx.outDir,
    pageNumbers: todo,
    stepPages: 1,
    dpi: options.dpi,
    renderPages: plan.settings.page_images,
    pageFallbackOcr: options.page_fallback_ocr,
    timeoutSeconds: options.timeout_seconds,
    maxPages: deps.env.MAX_PAGES,
    budget: budgetOf(deps.env),
    ocrHeaderReread: deps.env.PARSE_OCR_HEADER_REREAD ?? false,
    ocrBodyReread: deps.env.PARSE_OCR_BODY_REREAD ?? false,
    ocrCellReread: deps.env.PARSE_OCR_CELL_REREAD ?? true,
    shouldCancel: ctx.shouldStop,
    // One line per page read (debug): a benchmark counts pages read twice, i.e. work lost to a kill.
    onProgress: (_done, _total, phase, page) => {
      if (phase === 'text' && page) ctx.log.debug({ page: page.pageNumber }, 'shard page read');
    },
    onPageFinished: async (p) => {
      // Tests only (PARSE_TEST_PAGE_DELAY_MS, refused in production): a slower page, read but not yet stored.
      if (testDelayMs > 0) await sleep(testDelayMs);
      const r: ShardPageResult = {
        ...pageResultOf(p),
        ...(p.failed ? { failed: p.failed } : {}),
        ...(p.noImage ? { no_image: p.noImage } : {}),
      };
      // Stored first, then debited: a crash in between is re-debited by the next run (above).
      await writeJson(path.join(ctx.outDir, BUNDLE.page_results, pageResultName(p.pageNumber)), r);
      if (!p.failed) charger.add(p.pageNumber);
      done++;
      await pageEvents(ctx, r);
      if (r.failed)
        await addEvent(
          db,
          job.id,
          'parse.page_failed',
          'parse',
          `Page ${r.page_number} was not parsed: ${r.failed.message}`,
          {
            page: r.page_number,
            code: r.failed.code,
          },
        );
      await charger.maybeFlush();
      if (Date.now() - lastWrite >= 1000) {
        lastWrite = Date.now();
        await shardProgress(deps, job.id, shardNo, done);
      }
    },
  });
  await charger.flush();
  await shardProgress(deps, job.id, shardNo, done);
}
