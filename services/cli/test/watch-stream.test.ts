// `parse --watch` / `upload --parse --watch` on the event stream (followOnStream), against a real
// fleet (gateway, parse worker, webhook worker relaying stored events): a job that ended before
// the stream opened, its `parse.job.completed` already relayed to a position before the stream's
// start (so the stream never carries it), is seen at once by the re-read made after the stream is
// open, not by the slow safety re-read (15 s) and never by polling; a live job ends on its event.
import { DocfleetClient } from '@docfleet/sdk';
import { startFleet, waitUntil, type Fleet } from '@docfleet/testing';
import type { Io } from '../src/user/context';
import { watchParses, type ParseState } from '../src/user/parse.command';

let fleet: Fleet;
let client: DocfleetClient;
let kbId: string;

beforeAll(async () => {
  fleet = await startFleet();
  const { key } = await fleet.createOrg({ credits: 20 });
  client = new DocfleetClient({ baseUrl: fleet.url, apiKey: key });
  kbId = (await client.knowledgeBases.create({ name: 'Watched' })).knowledge_base.id;
}, 180_000);
afterAll(() => fleet?.close());

function recordingIo(): Io & { lines: string[] } {
  const lines: string[] = [];
  return {
    lines,
    json: false,
    tty: false,
    out: async () => undefined,
    result: async () => undefined,
    err: (t) => void lines.push(t),
  };
}

async function uploadCsv(name: string): Promise<ParseState> {
  const r = await client.files.upload(new TextEncoder().encode('region,revenue\nnorth,10\nsouth,20\n'), {
    knowledgeBaseId: kbId,
    filename: name,
    autoParse: true,
  });
  const job = r.parse_job!;
  // What `upload --parse --watch` starts from: the state the upload answered with.
  return { file_id: r.file.id, job_id: job.job_id, status: job.status, stage: null, percent: 0, error: null };
}

it('sees a job that completed (and was relayed) before the stream opened, at once, on the stream', async () => {
  const s = await uploadCsv('before.csv');
  expect(s.status).not.toBe('completed');
  // The job ends and its stored event gets its stream position before any stream is opened.
  await waitUntil(
    `job ${s.job_id} completed and its event relayed to the stream`,
    () =>
      fleet.gw.db.webhookEvent.findFirst({
        where: { event_type: 'parse.job.completed', resource_key: `job:${s.job_id}`, stream_seq: { not: null } },
      }),
    { timeoutMs: 60_000, intervalMs: 100, detail: () => fleet.logs().slice(-3000) },
  );
  const io = recordingIo();
  const t0 = Date.now();
  await watchParses(client, io, [s]);
  const ms = Date.now() - t0;
  expect(s).toMatchObject({ status: 'completed', percent: 100, error: null });
  expect(io.lines).toContain('following the parses on the event stream');
  expect(io.lines.join('\n')).not.toContain('polling the index');
  // The stream never carries this event (it is before the stream's start): only the re-read after
  // the stream is open can end the watch this soon (the safety re-read comes after 15 s).
  expect(ms).toBeLessThan(10_000);
  process.stdout.write(`watch of a job completed before the stream opened: ${ms} ms\n`);
}, 120_000);

it('follows a live job to its end on the stream', async () => {
  const s = await uploadCsv('live.csv');
  const io = recordingIo();
  const t0 = Date.now();
  await watchParses(client, io, [s]);
  const ms = Date.now() - t0;
  expect(s).toMatchObject({ status: 'completed', percent: 100, error: null });
  expect(io.lines).toContain('following the parses on the event stream');
  expect(io.lines.join('\n')).not.toContain('polling the index');
  process.stdout.write(`watch of a live job: ${ms} ms\n`);
}, 120_000);
