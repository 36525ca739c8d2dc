// GET /v1/events/stream: one organisation's events as Server-Sent Events. Stored events (the
// webhook outbox, positioned by the relay's stream_seq) carry `id: <seq>`, so a client that
// reconnects with Last-Event-ID gets, from PostgreSQL, every event after it in order, then the live
// ones; job progress (never stored) carries no id and is not replayed. The live subscription is
// taken before the replay query, and events already sent are skipped by position, so nothing
// between the two is lost or sent twice.
import type { Request, Response } from 'express';
import { Prisma, type Db } from '@docfleet/db';
import type { Logger } from '@docfleet/logger';
import { eventBody, type LiveMessage } from '@docfleet/webhooks';
import type { EventHub } from './event-hub';

export interface StreamFilter {
  orgId: string;
  knowledgeBaseId?: string;
  fileId?: string;
  /** Event types wanted (`job.progress` included); null = all. */
  types: ReadonlySet<string> | null;
  /** Knowledge bases a non-root caller reaches; null = the whole organisation. */
  reachable: ReadonlySet<string> | null;
}

/** A client reading slower than this many buffered bytes is cut off; it resumes with Last-Event-ID. */
const MAX_BUFFERED_BYTES = 4 * 1024 * 1024;
const REPLAY_PAGE = 500;

export function matches(f: StreamFilter, type: string, kbId: string | null, fileId: string | null): boolean {
  if (f.types && !f.types.has(type)) return false;
  if (f.knowledgeBaseId && kbId !== f.knowledgeBaseId) return false;
  if (f.fileId && fileId !== f.fileId) return false;
  if (f.reachable && (!kbId || !f.reachable.has(kbId))) return false;
  return true;
}

interface StoredRow {
  id: string;
  org_id: string;
  event_type: string;
  knowledge_base_id: string | null;
  file_id: string | null;
  payload: Record<string, unknown>;
  created_at: Date;
  stream_seq: bigint;
}

/** Stored events after `after`, oldest first, filtered in SQL (the (org_id, stream_seq) index). */
async function storedAfter(db: Db, f: StreamFilter, after: bigint, limit: number): Promise<StoredRow[]> {
  const where = [Prisma.sql`org_id = ${f.orgId}::uuid`, Prisma.sql`stream_seq > ${after}`];
  if (f.types) where.push(Prisma.sql`event_type = ANY(${[...f.types]}::text[])`);
  if (f.knowledgeBaseId) where.push(Prisma.sql`knowledge_base_id = ${f.knowledgeBaseId}::uuid`);
  if (f.fileId) where.push(Prisma.sql`file_id = ${f.fileId}::uuid`);
  if (f.reachable) where.push(Prisma.sql`knowledge_base_id = ANY(${[...f.reachable]}::uuid[])`);
  return db.$queryRaw<
    StoredRow[]
  >`SELECT id, org_id, event_type, knowledge_base_id, file_id, payload, created_at, stream_seq
    FROM webhook_events WHERE ${Prisma.join(where, ' AND ')} ORDER BY stream_seq LIMIT ${limit}`;
}

export interface OpenStreamDeps {
  db: Db;
  hub: EventHub;
  logger: Logger;
  heartbeatMs: number;
}

/** Takes over the response: headers, replay, live events and heartbeats until either side ends. */
export async function openEventStream(
  deps: OpenStreamDeps,
  req: Request,
  res: Response,
  f: StreamFilter,
  lastSeq: bigint | null,
): Promise<void> {
  let sent = lastSeq ?? -1n;
  let replaying = true;
  let done = false;
  const buffered: LiveMessage[] = [];
  let unsubscribe: () => void = () => undefined;
  let heartbeat: NodeJS.Timeout | undefined;

  const finish = (reason?: string) => {
    if (done) return;
    done = true;
    clearInterval(heartbeat);
    unsubscribe();
    if (!res.writableEnded) {
      if (reason && res.headersSent) res.write(`: ${reason}\n\n`);
      res.end();
    }
  };
  req.on('close', () => finish());
  res.on('error', () => finish());

  const write = (chunk: string): boolean => {
    if (done) return false;
    const ok = res.write(chunk);
    if (!ok && res.writableLength > MAX_BUFFERED_BYTES) finish('too slow a reader; reconnect with Last-Event-ID');
    return ok;
  };
  const sendLive = (m: LiveMessage) => {
    if (m.kind === 'event') {
      const seq = BigInt(m.seq);
      if (seq <= sent) return;
      sent = seq;
      if (!matches(f, m.event.type, m.knowledge_base_id, m.file_id)) return;
      write(`id: ${m.seq}\nevent: ${m.event.type}\ndata: ${JSON.stringify(m.event)}\n\n`);
    } else {
      const d = m.progress.data;
      if (!matches(f, m.progress.type, d.knowledge_base_id, d.file_id)) return;
      write(`event: ${m.progress.type}\ndata: ${JSON.stringify(m.progress)}\n\n`);
    }
  };

  unsubscribe = await deps.hub.add(f.orgId, {
    deliver: (m) => (replaying ? buffered.push(m) : sendLive(m)),
    end: (reason) => finish(reason),
  });
  if (done) return unsubscribe(); // the client left while we subscribed

  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    // nginx (and ingresses built on it) would otherwise buffer the stream.
    'x-accel-buffering': 'no',
  });
  // The reconnect delay EventSource clients use, and a first line so proxies pass the headers on.
  res.write(`retry: 2000\n: connected\n\n`);
  heartbeat = setInterval(() => write(': ping\n\n'), deps.heartbeatMs);
  heartbeat.unref();

  try {
    if (lastSeq !== null) {
      for (;;) {
        const rows = await storedAfter(deps.db, f, sent, REPLAY_PAGE);
        for (const r of rows) {
          if (done) return;
          sent = r.stream_seq;
          if (!write(`id: ${r.stream_seq}\nevent: ${r.event_type}\ndata: ${JSON.stringify(eventBody(r))}\n\n`))
            await new Promise<void>((resolve) => {
              res.once('drain', resolve);
              res.once('close', resolve);
            });
        }
        if (rows.length < REPLAY_PAGE || done) break;
      }
    }
  } catch (err) {
    deps.logger.warn({ err }, 'event stream replay failed');
    return finish('replay failed; reconnect with Last-Event-ID');
  }
  replaying = false;
  for (const m of buffered.splice(0)) sendLive(m);
}
