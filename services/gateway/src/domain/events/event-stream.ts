// GET /v1/events/stream: one organisation's events as Server-Sent Events. Stored events (the
// webhook outbox, positioned by the relay's stream_seq) carry `id: <seq>` and go out in position
// order: the replay (Last-Event-ID) and any catch-up are read from PostgreSQL by position; once a
// stream has caught up, a live message is written straight from Redis only while the hub's chain
// of positions is unbroken (each message names the position before it, and the hub heard that one
// last), so nothing can be skipped; any break (two relays' messages crossing, a lost position)
// sends the stream back to PostgreSQL. Job progress (never stored) comes straight from Redis,
// carries no id and is not replayed.
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
  // The position of the last stored event this stream has passed (sent or filtered out in SQL).
  let sent = lastSeq ?? -1n;
  let ready = false;
  let done = false;
  let pumping = false;
  let again = false;
  // The hub's chain at which this stream last caught up from the database (-1: not yet).
  let syncedChain = -1;
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
  // The response's close is the client leaving (a request's close can come as soon as its body is read).
  res.on('close', () => finish());
  res.on('error', () => finish());

  const write = (chunk: string): boolean => {
    if (done) return false;
    const ok = res.write(chunk);
    if (!ok && res.writableLength > MAX_BUFFERED_BYTES) finish('too slow a reader; reconnect with Last-Event-ID');
    return ok;
  };

  /**
   * Sends every stored event after `sent`, from PostgreSQL, in position order. Run on each live
   * event: the relays publish after their commits, so two relays' messages can arrive out of
   * order, but once any position is visible every lower one is (a relay draws positions only
   * while holding the lock its predecessor released at commit). So the database, never the order
   * of messages, decides what is next: nothing is skipped or sent twice.
   */
  const pump = async (): Promise<void> => {
    if (pumping) {
      again = true;
      return;
    }
    pumping = true;
    let chain = -1;
    try {
      do {
        again = false;
        // Everything heard so far is visible to the reads below (a relay publishes after commit).
        chain = deps.hub.chain;
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
      } while (again && !done);
      if (!done) syncedChain = chain;
    } catch (err) {
      deps.logger.warn({ err }, 'event stream read failed');
      finish('reading events failed; reconnect with Last-Event-ID');
    } finally {
      pumping = false;
    }
  };

  const onLive = (m: LiveMessage, contiguous: boolean) => {
    if (m.kind === 'event') {
      if (!ready) return; // the first pump reads it
      const seq = BigInt(m.seq);
      if (!pumping && contiguous && syncedChain === deps.hub.chain) {
        // Caught up and nothing skipped since: this message is the next position; write it as is.
        if (seq <= sent) return;
        if (matches(f, m.event.type, m.knowledge_base_id, m.file_id)) {
          sent = seq;
          write(`id: ${m.seq}\nevent: ${m.event.type}\ndata: ${JSON.stringify(m.event)}\n\n`);
        }
        return;
      }
      // Otherwise a doorbell: read from the database in position order (which syncs the chain again).
      if (seq <= sent) return;
      if (matches(f, m.event.type, m.knowledge_base_id, m.file_id)) void pump();
    } else {
      // Not before the headers: a write would send default ones, writeHead would then throw and the
      // stream would carry progress but never its stored events. Progress is advisory (never replayed).
      if (!ready) return;
      const d = m.progress.data;
      if (!matches(f, m.progress.type, d.knowledge_base_id, d.file_id)) return;
      write(`event: ${m.progress.type}\ndata: ${JSON.stringify(m.progress)}\n\n`);
    }
  };

  // Subscribe first, then fix the starting position: whatever commits after this is announced.
  unsubscribe = await deps.hub.add(f.orgId, { deliver: onLive, end: (reason) => finish(reason) });
  if (done) return unsubscribe(); // the client left while we subscribed
  try {
    if (lastSeq === null) sent = await latestPosition(deps.db, f.orgId);
  } catch (err) {
    unsubscribe();
    throw err;
  }
  if (done) return; // the client left while the position was read

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
  ready = true;
  // The replay (with Last-Event-ID), and anything that committed while the stream was opening.
  await pump();
}

/** The organisation's newest stream position (a live-only stream starts after it). */
async function latestPosition(db: Db, orgId: string): Promise<bigint> {
  const [row] = await db.$queryRaw<{ s: bigint | null }[]>`SELECT max(stream_seq) AS s FROM webhook_events
    WHERE org_id = ${orgId}::uuid AND stream_seq IS NOT NULL`;
  return row?.s ?? -1n;
}
