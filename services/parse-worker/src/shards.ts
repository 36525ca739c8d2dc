// Sharded parses (issue 17): a PDF of more than PARSE_SHARD_PAGES pages is planned by its
// `parse.file` job (page-diff, as always) and then split into page-range shards, one
// `parse.shard` queue job each, that any parse worker takes. A shard stores each page's result
// (page-results/page_NNNN.json, page image, crops) as soon as the page is finished and debits it
// `parse:<jobId>:page:<n>`; a redelivered shard skips the pages already stored, so a killed worker
// loses at most the page it was on. The shard that finishes last (decided under the job row's
// lock) assembles result.md, grounding.json and segments.json in page order, streaming from the
// stored page results, and completes the job (manifest, page_versions, reservation) once.
import { createWriteStream, type WriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { BUNDLE, GROUNDING_SCHEMA_VERSION, type GroundingPage } from '@docfleet/contracts';
import { ParseError, isParseError, parsePages, segmentsFromGrounding, textLayerEvent } from '@docfleet/pdf';
import { DelayedError, type Job as QueueJob, type JobPayload } from '@docfleet/queue';
import { startHeartbeat } from '@docfleet/runtime';
import { pageResultName, writeJson, type PageResult } from './bundle';
import { pdfManifestHead } from './manifest-head';
import type { WorkerDeps } from './deps';
import { CancelSignal, HandBackSignal, UnitCharger, buildContext, type JobContext } from './job-context';
import {
  TERMINAL_JOB_STATUSES as TERMINAL,
  addJobEvent as addEvent,
  cancelParseJob as finishCancelled,
  completeParseJob as finishCompleted,
  failParseJob as finishFailed,
  setParseProgress as setProgress,
} from '@docfleet/jobs';
import { reusePage, type ParseSettings } from './page-diff';
import { budgetOf, type FailedPageEntry } from './parse-document';
import { classifyFailure, enqueueIndex } from './jobs/parse-file.handler';

/** What the planning `parse.file` run decided; read by every shard and by the assembler. */
export interface ShardPlan {
  pageCount: number;
  backend: 'text' | 'ocr';
  backendReasons: string[];
  settings: ParseSettings;
  pageHashes: string[];
  changed: number[];
  unchanged: number[];
  /** Storage prefix of the previous parse's bundle (unchanged pages are copied from it). */
  prevPrefix: string | null;
  /** Unchanged pages that moved: new page number → the previous page it is taken from. */
  sources?: Record<string, number>;
  /** ms spent on page-diff by the planning run. */
  diffMs: number;
  plannedAt: number;
}

/** A stored page result of a sharded parse also says how the page ended (the assembler needs it). */
interface ShardPageResult extends PageResult {
  failed?: { code: string; message: string };
  no_image?: string;
}

const PLAN_DIR = '.shards';
const planFile = (outDir: string) => path.join(outDir, PLAN_DIR, 'plan.json');
export const shardQueueId = (jobId: string, shardNo: number) => `shard-${jobId}-${shardNo}`;
const rangeText = (first: number, last: number) => (first === last ? `page ${first}` : `pages ${first}-${last}`);

export async function hasShards(deps: WorkerDeps, jobId: string): Promise<boolean> {
  return (await deps.db.parseShard.count({ where: { job_id: jobId } })) > 0;
}

/**
 * Splits the job into shards (once: a redelivered planning run finds the rows and only makes sure
 * every unfinished shard is queued) and returns; the job stays running until the last shard ends it.
 */
export async function dispatchShards(ctx: JobContext, plan: ShardPlan | null): Promise<'dispatched'> {
  const { deps, job } = ctx;
  const db = deps.db;
  if (plan && !(await hasShards(deps, job.id))) {
    // A redelivered planning run starts from a clean bundle.
    await fs.rm(ctx.outDir, { recursive: true, force: true });
    await writeJson(planFile(ctx.outDir), plan);
    const size = deps.env.PARSE_SHARD_PAGES ?? 32;
    const rows = [];
    for (let first = 1, k = 0; first <= plan.pageCount; first += size, k++) {
      const last = Math.min(plan.pageCount, first + size - 1);
      rows.push({
        job_id: job.id,
        shard_no: k,
        first_page: first,
        last_page: last,
        pages: plan.changed.filter((n) => n >= first && n <= last),
      });
    }
    await db.parseShard.createMany({ data: rows, skipDuplicates: true });
    await setProgress(db, job.id, {
      stage: 'parse',
      percent: 10,
      rawStatus: 'in_progress',
      completedPages: plan.unchanged.length,
    });
    await addEvent(
      db,
      job.id,
      'parse.started',
      'parse',
      `Parsing ${plan.changed.length} of ${plan.pageCount} page(s) with the ${plan.backend} backend in ${rows.length} shard(s) of up to ${size} pages${plan.unchanged.length ? `; ${plan.unchanged.length} unchanged page(s) reused` : ''}.`,
      {
        backend: plan.backend,
        backend_reasons: plan.backendReasons,
        shards: rows.length,
        shard_pages: size,
        changed_pages: plan.changed,
        unchanged_pages: plan.unchanged,
      },
    );
  }
  const open = await db.parseShard.findMany({
    where: { job_id: job.id, status: { not: 'done' } },
    select: { shard_no: true },
    orderBy: { shard_no: 'asc' },
  });
  // One queue entry per shard (BullMQ job id): enqueueing again is a no-op.
  for (const s of open) {
    await deps.queues.enqueue(
      'parse.shard',
      { jobId: job.id, orgId: job.org_id, shardNo: s.shard_no },
      { jobId: shardQueueId(job.id, s.shard_no) },
    );
  }
  if (!open.length) await assembleIfLast(ctx);
  return 'dispatched';
}

/** Keeps the job row and the shard row alive while a shard runs (the reaper looks at both). */
async function beatShard(deps: WorkerDeps, jobId: string, shardNo: number) {
  await deps.db.$executeRaw`UPDATE jobs SET heartbeat_at = now()
    WHERE id = ${jobId}::uuid AND status IN ('started', 'in_progress', 'running')`;
  await deps.db.$executeRaw`UPDATE parse_shards SET updated_at = now()
    WHERE job_id = ${jobId}::uuid AND shard_no = ${shardNo}`;
}

/**
 * Stores how many of the shard's pages are done and moves the job's percent by the pages done
 * across every shard: 10 → 75 while pages are parsed, 75 → 95 while the bundle is assembled.
 * Percent is written only when its integer value grows (GREATEST keeps it monotonic).
 */
async function shardProgress(deps: WorkerDeps, jobId: string, shardNo: number, done: number) {
  await deps.db.$executeRaw`UPDATE parse_shards SET done_pages = ${done}, updated_at = now()
    WHERE job_id = ${jobId}::uuid AND shard_no = ${shardNo}`;
  await deps.db.$executeRaw`WITH t AS (
      SELECT COALESCE(SUM(done_pages), 0) AS done, GREATEST(COALESCE(SUM(cardinality(pages)), 0), 1) AS total
      FROM parse_shards WHERE job_id = ${jobId}::uuid)
    UPDATE jobs SET percent = GREATEST(percent, (10 + floor(65 * t.done / t.total))::int),
      heartbeat_at = now(), updated_at = now()
    FROM t
    WHERE jobs.id = ${jobId}::uuid AND jobs.status IN ('started', 'in_progress', 'running')
      AND jobs.percent < (10 + floor(65 * t.done / t.total))::int`;
}

async function readPlan(ctx: JobContext): Promise<ShardPlan> {
  try {
    return JSON.parse(await fs.readFile(planFile(ctx.outDir), 'utf8')) as ShardPlan;
  } catch (err) {
    throw new ParseError('no_artifacts', `The shard plan of this parse is gone (${(err as Error).message}).`);
  }
}

async function readResult(outDir: string, n: number): Promise<ShardPageResult | null> {
  try {
    return JSON.parse(await fs.readFile(path.join(outDir, BUNDLE.page_results, pageResultName(n)), 'utf8'));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    // A torn file cannot happen (writes are tmp + rename); anything else is a real error.
    throw err;
  }
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
    if (shard.status !== 'done') {
      await deps.db.parseShard.update({
        where: { job_id_shard_no: { job_id: job.id, shard_no: shard.shard_no } },
        data: { status: 'running', worker: deps.workerId, attempts: { increment: 1 }, updated_at: new Date() },
      });
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
    shouldCancel: ctx.shouldStop,
    // One line per page read (debug): a benchmark counts pages read twice, i.e. work lost to a kill.
    onProgress: (_done, _total, phase, page) => {
      if (phase === 'text' && page) ctx.log.debug({ page: page.pageNumber }, 'shard page read');
    },
    onPageFinished: async (p) => {
      // Tests only (PARSE_TEST_PAGE_DELAY_MS, refused in production): a slower page, read but not yet stored.
      if (testDelayMs > 0) await sleep(testDelayMs);
      const r: ShardPageResult = {
        page_number: p.pageNumber,
        grounding: p.grounding,
        markdown: p.markdown,
        files: p.files,
        source: p.source,
        ...(p.ocr ? { ocr: p.ocr } : {}),
        ...(p.textLayer ? { text_layer: p.textLayer } : {}),
        ...(p.failed ? { failed: p.failed } : {}),
        ...(p.noImage ? { no_image: p.noImage } : {}),
      };
      // Stored first, then debited: a crash in between is re-debited by the next run (above).
      await writeJson(path.join(ctx.outDir, BUNDLE.page_results, pageResultName(p.pageNumber)), r);
      if (!p.failed) charger.add(p.pageNumber);
      done++;
      await pageEvents(ctx, r);
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

/** The per-page events of the unsharded flow (OCR report, warnings, a page over its budget). */
async function pageEvents(ctx: JobContext, r: ShardPageResult) {
  const db = ctx.deps.db;
  const n = r.page_number;
  if (r.ocr) {
    const o = r.ocr;
    await addEvent(
      db,
      ctx.job.id,
      'parse.ocr_page',
      'parse',
      `Page ${n}: OCR read ${o.chosen}${o.tried.length > 1 ? ` (best of ${o.tried.map((t) => t.name).join(', ')})` : ''}${o.paper ? '; scanner border cropped' : ''}${o.rulesRemoved ? `; ${o.rulesRemoved} separator rule(s) removed` : ''}.`,
      { page_number: n, ...o },
    );
    for (const w of o.warnings)
      await addEvent(db, ctx.job.id, 'parse.warning', 'parse', w.message, { page_number: n, code: w.code });
  }
  if (r.text_layer) {
    const e = textLayerEvent(n, r.text_layer);
    await addEvent(db, ctx.job.id, 'parse.text_layer', 'parse', e.message, e.payload);
  }
  if (r.failed)
    await addEvent(db, ctx.job.id, 'parse.page_failed', 'parse', `Page ${n} was not parsed: ${r.failed.message}`, {
      page: n,
      code: r.failed.code,
    });
}

/**
 * Looks, under the job row's lock, whether every shard is done, and if so
 * assembles and completes the job. Two shards ending together serialise on the lock; both may
 * assemble (the files are written to temporary names and renamed, so the same bytes land either
 * way) and finishCompleted lets only the first complete the job.
 */
async function assembleIfLast(ctx: JobContext): Promise<string> {
  const { deps, job } = ctx;
  const remaining = await deps.db.$transaction(async (tx) => {
    await tx.$queryRaw`SELECT id FROM jobs WHERE id = ${job.id}::uuid FOR UPDATE`;
    return tx.parseShard.count({ where: { job_id: job.id, status: { not: 'done' } } });
  });
  if (remaining > 0) return 'shard-done';
  return assemble(ctx);
}

/** The shard's pages are all stored and debited (under the job row's lock, which assembleIfLast takes too). */
async function markShardDone(deps: WorkerDeps, jobId: string, shardNo: number) {
  await deps.db.$transaction(async (tx) => {
    await tx.$queryRaw`SELECT id FROM jobs WHERE id = ${jobId}::uuid FOR UPDATE`;
    await tx.parseShard.update({
      where: { job_id_shard_no: { job_id: jobId, shard_no: shardNo } },
      data: { status: 'done', updated_at: new Date() },
    });
  });
}

class Streamed {
  private readonly out: WriteStream;
  readonly tmp: string;
  constructor(readonly file: string) {
    this.tmp = `${file}.tmp-${process.pid}`;
    this.out = createWriteStream(this.tmp);
  }
  async write(s: string) {
    if (!this.out.write(s)) await once(this.out, 'drain');
  }
  async close() {
    this.out.end();
    await once(this.out, 'finish');
    await fs.rename(this.tmp, this.file);
  }
  destroy() {
    this.out.destroy();
    void fs.rm(this.tmp, { force: true });
  }
}

/**
 * result.md, grounding.json and segments.json from the stored page results, one page in memory at a
 * time, with the same bytes assembleDocument + segmentsFromGrounding + writeSegments would write.
 */
async function assemble(ctx: JobContext): Promise<string> {
  const { deps, job, file, version } = ctx;
  const db = deps.db;
  await ctx.checkpoint();
  const plan = await readPlan(ctx);
  const tAssemble = Date.now();
  await setProgress(db, job.id, { percent: 75 });
  const md = new Streamed(path.join(ctx.outDir, BUNDLE.result_md));
  const gr = new Streamed(path.join(ctx.outDir, BUNDLE.grounding_json));
  const sg = new Streamed(path.join(ctx.outDir, BUNDLE.segments_json));
  const failedPages: FailedPageEntry[] = [];
  const noImagePages: number[] = [];
  const warnings: Array<{ page_number: number; code: string; message: string }> = [];
  let segmentCount = 0;
  let mdWritten = false;
  let pct = 75;
  try {
    const head = JSON.stringify({
      schema_version: GROUNDING_SCHEMA_VERSION,
      document: {
        filename: file.filename,
        file_type: 'pdf',
        page_count: plan.pageCount,
        processed_at: new Date().toISOString(),
        mode: plan.backend,
      },
      pages: [],
    });
    await gr.write(head.slice(0, -2)); // ...,"pages":[
    await sg.write('[');
    for (let n = 1; n <= plan.pageCount; n++) {
      if (n % 50 === 0) await ctx.checkpoint();
      const r = await readResult(ctx.outDir, n);
      if (!r)
        throw new ParseError(
          'no_artifacts',
          `The parser finished without expected artifacts: page ${n} of ${plan.pageCount} has no stored result.`,
        );
      if (r.failed) failedPages.push({ page_number: n, code: r.failed.code, message: r.failed.message });
      else if (r.no_image) noImagePages.push(n);
      for (const w of r.ocr?.warnings ?? []) warnings.push({ page_number: n, ...w });
      const text = r.markdown.trim();
      if (text) {
        await md.write((mdWritten ? '\n\n' : '') + text);
        mdWritten = true;
      }
      await gr.write((n > 1 ? ',' : '') + JSON.stringify(r.grounding as GroundingPage));
      const segs = segmentsFromGrounding(
        { schema_version: GROUNDING_SCHEMA_VERSION, document: {} as never, pages: [r.grounding] },
        { fileId: file.id, docName: file.filename, manifestId: ctx.manifestId, sourceType: 'pdf' },
      );
      for (const s of segs) await sg.write((segmentCount++ ? ',' : '') + JSON.stringify(s));
      const p = Math.floor(75 + (20 * n) / plan.pageCount);
      if (p > pct) {
        pct = p;
        await setProgress(db, job.id, { percent: p });
      }
    }
    await md.write('\n');
    await gr.write(']}');
    await sg.write(']');
    await Promise.all([md.close(), gr.close(), sg.close()]);
  } catch (err) {
    md.destroy();
    gr.destroy();
    sg.destroy();
    throw err;
  }
  if (failedPages.length && failedPages.length === plan.changed.length && !plan.unchanged.length) {
    throw new ParseError(
      'page_too_complex',
      `Every page is over the page budget (the first: ${failedPages[0]!.message.replace(/\.$/, '')}).`,
      { pageNumber: failedPages[0]!.page_number },
    );
  }
  const pageImages = plan.settings.page_images;
  if (pageImages) {
    const pngs = (await fs.readdir(path.join(ctx.outDir, BUNDLE.pages)).catch(() => [] as string[])).filter((n) =>
      n.endsWith('.png'),
    );
    if (pngs.length < plan.pageCount - failedPages.length - noImagePages.length)
      throw new ParseError(
        'no_artifacts',
        `The parser finished without expected artifacts: ${pngs.length} of ${plan.pageCount} page image(s) were written.`,
      );
  }
  await ctx.checkpoint();
  const outcome = await finishCompleted(db, job.id, {
    stage: 'completed',
    pageCount: plan.pageCount,
    pageHashes: plan.pageHashes,
    manifest: {
      ...(await pdfManifestHead(ctx, pageImages)),
      manifest: {
        page_count: plan.pageCount,
        backend: plan.backend,
        backend_reasons: plan.backendReasons,
        parse_settings: plan.settings,
        changed_pages: plan.changed,
        unchanged_pages: plan.unchanged,
        segment_count: segmentCount,
        failed_pages: failedPages,
        pages_without_image: noImagePages,
        shards: await db.parseShard.count({ where: { job_id: job.id } }),
        ...(warnings.length ? { warnings } : {}),
      },
    },
    result: {
      artifact_manifest_id: ctx.manifestId,
      page_count: plan.pageCount,
      changed_pages: plan.changed,
      unchanged_pages: plan.unchanged,
      backend: plan.backend,
      credits_charged: plan.changed.length - failedPages.length,
      reused: false,
      failed_pages: failedPages,
      ...(warnings.length ? { warnings } : {}),
    },
    timings: {
      page_diff: plan.diffMs,
      parse: tAssemble - plan.plannedAt,
      bundle: Date.now() - tAssemble,
    },
  });
  if (outcome === 'completed') {
    await enqueueIndex(deps, job.id);
    await fs.rm(path.join(ctx.outDir, PLAN_DIR), { recursive: true, force: true });
    if (deps.metrics) deps.metrics.units('pdf', plan.changed.length, plan.unchanged.length);
  }
  if (outcome === 'cancelled') await fs.rm(ctx.outDir, { recursive: true, force: true });
  return outcome;
}
