// Opening an event stream while the organisation is busy: job progress published between the
// subscription and the stream's headers used to be written first (Node then sent default headers),
// writeHead threw, and the stream carried progress for good but never a stored event (a CLI
// `--watch` then waited for an end it could not see). Real PostgreSQL, a real HTTP response; the
// hub is a stand-in that delivers one progress message the moment the stream subscribes.
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Request, Response } from 'express';
import { createOrganization } from '@docfleet/auth';
import { createLogger } from '@docfleet/logger';
import { createTestDb, type TestDb } from '@docfleet/testing';
import type { LiveMessage } from '@docfleet/webhooks';
import type { EventHub, StreamListener } from '../src/domain/events/event-hub';
import { openEventStream } from '../src/domain/events/event-stream';

let t: TestDb;
beforeAll(async () => {
  t = await createTestDb();
}, 60_000);
afterAll(() => t?.drop());

function progress(orgId: string, percent: number): LiveMessage {
  return {
    kind: 'progress',
    org_id: orgId,
    progress: {
      type: 'job.progress',
      org_id: orgId,
      data: {
        job_id: randomUUID(),
        kind: 'parse',
        file_id: null,
        knowledge_base_id: null,
        stage: 'parse',
        percent,
        status: 'running',
      },
    },
  };
}

it('sends its headers first and still carries stored events when progress arrives while it opens', async () => {
  const org = await createOrganization(t.db, `org-${randomUUID().slice(0, 6)}`);
  let listener: StreamListener | undefined;
  const hub = {
    chain: 0,
    add: async (_org: string, l: StreamListener) => {
      listener = l;
      l.deliver(progress(org.id, 40), false); // published between subscribing and the headers
      return () => (listener = undefined);
    },
  } as unknown as EventHub;
  const failures: unknown[] = [];
  const server = http.createServer((req, res) => {
    openEventStream(
      { db: t.db, hub, logger: createLogger('test', 'silent'), heartbeatMs: 60_000 },
      req as unknown as Request,
      res as unknown as Response,
      { orgId: org.id, types: null, reachable: null },
      null,
    ).catch((err) => failures.push(err));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const ctl = new AbortController();
  try {
    const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`, { signal: ctl.signal });
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const reader = res.body!.getReader();
    let text = '';
    const readUntil = async (re: RegExp) => {
      const deadline = Date.now() + 10_000;
      while (!re.test(text) && Date.now() < deadline) {
        const { value, done } = await reader.read();
        if (done) break;
        text += Buffer.from(value).toString();
      }
      return text;
    };
    await readUntil(/: connected\n\n/);

    // A stored event relayed after the stream opened: announced live, read from the database.
    const [row] = await t.db.$queryRaw<{ id: string }[]>`INSERT INTO webhook_events
      (id, org_id, event_type, resource_key, payload, stream_seq, relayed_at)
      VALUES (gen_random_uuid(), ${org.id}::uuid, 'parse.job.completed', 'job:x', '{"status":"completed"}', 1, now())
      RETURNING id`;
    const event = {
      id: row.id,
      type: 'parse.job.completed' as const,
      created_at: new Date().toISOString(),
      org_id: org.id,
      data: {},
    };
    listener!.deliver(
      { kind: 'event', seq: '1', org_id: org.id, knowledge_base_id: null, file_id: null, event },
      false,
    );
    listener!.deliver(progress(org.id, 90), false);
    // The stored event is read from the database (a doorbell), the progress written at once: either may come first.
    await readUntil(
      /event: parse\.job\.completed\ndata: [^\n]*\n\n[\s\S]*"percent":90|"percent":90[\s\S]*event: parse\.job\.completed\ndata: [^\n]*\n\n/,
    );
    expect(text).toMatch(/^retry: 2000\n: connected\n\n/);
    expect(text).toContain(`id: 1\nevent: parse.job.completed\ndata: {"id":"${row.id}"`);
    expect(text).not.toContain('"percent":40'); // advisory, and not before the headers
    expect(failures).toEqual([]);
  } finally {
    ctl.abort();
    await new Promise((r) => server.close(r));
  }
});
