// Sharded parses (issue 17): a PDF of more than PARSE_SHARD_PAGES pages is planned by its
// `parse.file` job (page-diff, as always) and then split into page-range shards, one
// `parse.shard` queue job each, that any parse worker takes (jobs/parse-shard.handler.ts). A shard
// stores each page's result (page-results/page_NNNN.json, page image, crops) as soon as the page is
// finished and debits it `parse:<jobId>:page:<n>`; a redelivered shard skips the pages already
// stored, so a killed worker loses at most the page it was on. The shard that finishes last
// (decided under the job row's lock) assembles result.md, grounding.json and segments.json in page
// order, streaming from the stored page results, and completes the job (manifest, page_versions,
// reservation) once.
import { createWriteStream, type WriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { once } from 'node:events';
import { BUNDLE, GROUNDING_SCHEMA_VERSION, type GroundingPage } from '@docfleet/contracts';
import {
  addJobEvent as addEvent,
  completeParseJob as finishCompleted,
  setParseProgress as setProgress,
} from '@docfleet/jobs';
import { ParseError, joinPageBreakHyphen, segmentsFromGrounding, type AssemblyPage } from '@docfleet/pdf';
import { pageResultName, pageWarnings, writeJson, type PageResult } from './bundle';
import type { WorkerDeps } from './deps';
import type { JobContext } from './job-context';
import { pdfManifestHead } from './manifest-head';
import type { ParseSettings } from './page-diff';
import type { FailedPageEntry } from './parse-document';

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
export interface ShardPageResult extends PageResult {
  failed?: { code: string; message: string };
  no_image?: string;
}

const PLAN_DIR = '.shards';
const planFile = (outDir: string) => path.join(outDir, PLAN_DIR, 'plan.json');
export const shardQueueId = (jobId: string, shardNo: number) => `shard-${jobId}-${shardNo}`;

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

export async function readPlan(ctx: JobContext): Promise<ShardPlan> {
  try {
    return JSON.parse(await fs.readFile(planFile(ctx.outDir), 'utf8')) as ShardPlan;
  } catch (err) {
    throw new ParseError('no_artifacts', `The shard plan of this parse is gone (${(err as Error).message}).`);
  }
}

export async function readResult(outDir: string, n: number): Promise<ShardPageResult | null> {
  try {
    return JSON.parse(await fs.readFile(path.join(outDir, BUNDLE.page_results, pageResultName(n)), 'utf8'));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    // A torn file cannot happen (writes are tmp + rename); anything else is a real error.
    throw err;
  }
}

/**
 * Looks, under the job row's lock, whether every shard is done, and if so
 * assembles and completes the job. Two shards ending together serialise on the lock; both may
 * assemble (the files are written to temporary names and renamed, so the same bytes land either
 * way) and finishCompleted lets only the first complete the job.
 */
export async function assembleIfLast(ctx: JobContext): Promise<string> {
  const { deps, job } = ctx;
  const remaining = await deps.db.$transaction(async (tx) => {
    await tx.$queryRaw`SELECT id FROM jobs WHERE id = ${job.id}::uuid FOR UPDATE`;
    return tx.parseShard.count({ where: { job_id: job.id, status: { not: 'done' } } });
  });
  if (remaining > 0) return 'shard-done';
  return assemble(ctx);
}

/** The shard's pages are all stored and debited (under the job row's lock, which assembleIfLast takes too). */
export async function markShardDone(deps: WorkerDeps, jobId: string, shardNo: number) {
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
    // A page is written once the next one is read: a word hyphenated across the break is joined first.
    const writePage = async (n: number, p: AssemblyPage) => {
      const text = p.markdown.trim();
      if (text) {
        await md.write((mdWritten ? '\n\n' : '') + text);
        mdWritten = true;
      }
      await gr.write((n > 1 ? ',' : '') + JSON.stringify(p.grounding));
      const segs = segmentsFromGrounding(
        { schema_version: GROUNDING_SCHEMA_VERSION, document: {} as never, pages: [p.grounding] },
        { fileId: file.id, docName: file.filename, manifestId: ctx.manifestId, sourceType: 'pdf' },
      );
      for (const s of segs) await sg.write((segmentCount++ ? ',' : '') + JSON.stringify(s));
    };
    let pending: AssemblyPage | undefined;
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
      for (const w of pageWarnings(r)) warnings.push({ page_number: n, ...w });
      let page: AssemblyPage = { grounding: r.grounding as GroundingPage, markdown: r.markdown };
      if (pending) {
        [pending, page] = joinPageBreakHyphen(pending, page);
        await writePage(n - 1, pending);
      }
      pending = page;
      const p = Math.floor(75 + (20 * n) / plan.pageCount);
      if (p > pct) {
        pct = p;
        await setProgress(db, job.id, { percent: p });
      }
    }
    if (pending) await writePage(plan.pageCount, pending);
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
  const outcome = await finishCompleted(deps, job.id, {
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
  // The index job was queued inside the completion (completeParseJob).
  if (outcome === 'completed') {
    await fs.rm(path.join(ctx.outDir, PLAN_DIR), { recursive: true, force: true });
    if (deps.metrics) deps.metrics.units('pdf', plan.changed.length, plan.unchanged.length);
  }
  if (outcome === 'cancelled') await fs.rm(ctx.outDir, { recursive: true, force: true });
  return outcome;
}
