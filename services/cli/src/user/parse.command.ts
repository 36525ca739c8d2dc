// `parse FILE_ID… [--watch]`: queues the parses (one bulk call, request order), and with --watch
// follows them on the event stream (GET /v1/events/stream: progress as it happens, no polling)
// until every job is terminal; when the stream cannot be used, on the knowledge-base listing (the
// endpoint docs/api.md (States) names for watching many files: one conditional request per poll).
import type { DocfleetClient, IndexEnvelope, Job } from '@docfleet/sdk';
import cliProgress from 'cli-progress';
import type { Values } from './run';
import { PartialFailure, usage, type CommandContext, type Io } from './context';
import { table } from './table';

const TERMINAL = new Set(['completed', 'failed', 'cancelled']);
/** Live display: the 2 s start of docs/api.md (States), a lower ceiling than bulk waits: a person watches. */
const WATCH_POLLING = { initialIntervalMs: 2_000, maxIntervalMs: 5_000, factor: 1.5, timeoutMs: 0 };
/** While following the event stream, the listing is re-read this rarely (in case stored events stall). */
const STREAM_SAFETY_POLL_MS = 15_000;

export interface ParseState {
  file_id: string;
  filename?: string;
  knowledge_base_id?: string;
  job_id: string;
  status: string;
  stage: string | null;
  percent: number;
  error: string | null;
  page_count?: number | null;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

async function dispatch(client: DocfleetClient, fileIds: string[]): Promise<ParseState[]> {
  const jobs: Job[] =
    fileIds.length === 1
      ? [(await client.files.parse(fileIds[0])).job]
      : (await client.files.parseBulk({ file_ids: fileIds })).jobs.map((j) => j.job);
  return jobs.map((job, i) => ({
    file_id: fileIds[i],
    job_id: job.job_id,
    status: job.status,
    stage: job.stage,
    percent: job.percent,
    error: job.error,
  }));
}

function label(s: ParseState): string {
  return (s.filename ?? s.file_id).slice(0, 40);
}

/** Shows the jobs' progress until every one is terminal (`parse --watch`, `upload --parse --watch`). */
export async function watchParses(client: DocfleetClient, io: Io, states: ParseState[]): Promise<void> {
  for (const s of states) {
    const { file } = await client.files.get(s.file_id);
    s.filename = file.filename;
    s.knowledge_base_id = file.knowledge_base_id;
  }
  const width = Math.max(...states.map((s) => label(s).length));
  const multi = io.tty
    ? new cliProgress.MultiBar(
        {
          format: '{name} [{bar}] {percentage}% {stage}',
          hideCursor: true,
          stream: process.stderr,
          clearOnComplete: false,
        },
        cliProgress.Presets.shades_classic,
      )
    : undefined;
  const bars = new Map(
    states.map((s) => [s.file_id, multi?.create(100, s.percent, { name: label(s).padEnd(width), stage: s.status })]),
  );
  const shown = new Map<string, string>();

  const show = (s: ParseState, j: JobView) => {
    // A job's state only moves forward: a late progress message or an older listing never undoes an end.
    if (!TERMINAL.has(s.status)) {
      Object.assign(s, { status: j.status, stage: j.stage, percent: Math.max(s.percent, j.percent), error: j.error });
      if (j.page_count !== undefined) s.page_count = j.page_count;
    } else if (s.page_count === undefined && j.page_count !== undefined) s.page_count = j.page_count;
    const text = s.status === 'running' ? `${s.stage ?? 'running'}` : s.status;
    bars.get(s.file_id)?.update(s.percent, { stage: text });
    const line = `${label(s)}  ${s.status}  ${s.stage ?? ''}  ${s.percent}%${s.error ? `  ${s.error}` : ''}`;
    if (!multi && shown.get(s.file_id) !== line) {
      shown.set(s.file_id, line);
      if (!io.json) io.err(line);
    }
  };
  const apply = (listing: IndexEnvelope) => {
    for (const entry of listing.files) {
      const s = states.find((x) => x.file_id === entry.file_id);
      const j = entry.latest_parse_job;
      if (!s || !j || j.job_id !== s.job_id) continue;
      show(s, { ...j, page_count: entry.page_count });
    }
  };
  const done = (listing: IndexEnvelope) => {
    apply(listing);
    return states.filter((s) => s.knowledge_base_id === listing.knowledge_base.id).every((s) => TERMINAL.has(s.status));
  };
  try {
    const kbIds = [...new Set(states.map((s) => s.knowledge_base_id!))];
    try {
      // Jobs that had ended already (an unchanged file returns its finished job): one read shows them.
      if (states.every((s) => TERMINAL.has(s.status)))
        for (const kb of kbIds) apply(await client.knowledgeBases.index(kb));
      else await followOnStream(client, io, states, kbIds, show, apply);
    } catch (err) {
      // An older gateway, a proxy that cuts streams, a stream that kept dropping: poll instead.
      if (!io.json) io.err(`event stream unavailable (${(err as Error).message}); polling the index`);
      await Promise.all(kbIds.map((kb) => client.waitForIndex(kb, done, { ...WATCH_POLLING, onProgress: apply })));
    }
  } finally {
    multi?.stop();
  }
}

interface JobView {
  status: string;
  stage: string | null;
  percent: number;
  error: string | null;
  page_count?: number | null;
}

/**
 * Follows the jobs on the event stream: progress as the workers report it, the end as its stored
 * event. Each (re)opened stream first reads the listing once, so a job that moved before the stream
 * was open is caught up; a slow re-read covers a deployment whose webhook worker (the relay of
 * stored events) is down. Throws when the stream cannot be used, so the caller polls instead.
 */
async function followOnStream(
  client: DocfleetClient,
  io: Io,
  states: ParseState[],
  kbIds: string[],
  show: (s: ParseState, j: JobView) => void,
  apply: (listing: IndexEnvelope) => void,
): Promise<void> {
  const byJob = new Map(states.map((s) => [s.job_id, s]));
  const allDone = () => states.every((s) => TERMINAL.has(s.status));
  const ctl = new AbortController();
  const catchUp = async () => {
    for (const kb of kbIds) apply(await client.knowledgeBases.index(kb));
    if (allDone()) ctl.abort();
  };
  let opened = false;
  const stream = client.events.stream({
    // One knowledge base: the server filters; several: the organisation's stream, filtered here.
    knowledgeBaseId: kbIds.length === 1 ? kbIds[0] : undefined,
    types: ['job.progress', 'parse.job.completed', 'parse.job.failed', 'parse.job.cancelled'],
    signal: ctl.signal,
    maxReconnects: 3,
    onOpen: () => {
      if (!opened && !io.json && !io.tty) io.err('following the parses on the event stream');
      opened = true;
      void catchUp().catch(() => undefined);
    },
  });
  const safety = setInterval(() => void catchUp().catch(() => undefined), STREAM_SAFETY_POLL_MS);
  try {
    for await (const e of stream) {
      const d = e.data.data as Record<string, unknown>;
      const s = byJob.get(String(d.job_id));
      if (!s) continue;
      if (e.event === 'job.progress')
        show(s, { status: 'running', stage: d.stage as string | null, percent: Number(d.percent), error: null });
      else
        show(s, {
          status: String(d.status),
          stage: d.stage as string | null,
          percent: Number(d.percent),
          error: (d.error as string | null) ?? null,
          page_count: (d.total_pages as number | null) ?? s.page_count,
        });
      if (allDone()) break;
    }
  } catch (err) {
    if (!ctl.signal.aborted) throw err;
  } finally {
    clearInterval(safety);
    ctl.abort();
  }
  if (!allDone()) throw new Error('the event stream ended');
  // The page counts of the listing (the stream's end event carries the job, not the file).
  await catchUpCounts(client, kbIds, states);
}

async function catchUpCounts(client: DocfleetClient, kbIds: string[], states: ParseState[]): Promise<void> {
  for (const kb of kbIds)
    for (const entry of (await client.knowledgeBases.index(kb)).files) {
      const s = states.find((x) => x.file_id === entry.file_id);
      if (s) s.page_count = entry.page_count;
    }
}

export async function parseCommand({ client, io }: CommandContext, args: string[], values: Values): Promise<void> {
  if (!args.length) usage('parse needs at least one FILE_ID');
  const bad = args.find((a) => !UUID.test(a));
  if (bad) usage(`${JSON.stringify(bad)} is not a file id (a UUID; docfleet upload prints them)`);
  const states = await dispatch(client, [...new Set(args)]);
  if (values.watch) await watchParses(client, io, states);

  if (io.json) await io.result({ jobs: states });
  else {
    await io.out(
      table(
        ['FILE ID', 'JOB ID', 'STATUS', 'STAGE', 'PCT', values.watch ? 'FILE / ERROR' : ''],
        states.map((s) => [s.file_id, s.job_id, s.status, s.stage ?? '', `${s.percent}%`, s.error ?? s.filename ?? '']),
      ),
    );
    if (!values.watch)
      await io.out(
        'parses queued; follow them with: docfleet parse FILE_ID… --watch (an unchanged file returns its existing job)',
      );
  }
  const failed = states.filter((s) => s.status === 'failed' || s.status === 'cancelled');
  if (failed.length)
    throw new PartialFailure(
      `${failed.length} of ${states.length} parses did not complete: ${failed.map((s) => `${label(s)}: ${s.error ?? s.status}`).join('; ')}`,
    );
}
