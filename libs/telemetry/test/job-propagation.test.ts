// QueueClient.enqueue and createWorker under a real tracer provider (in memory): one trace from
// the caller's span through a job that enqueues another job, with PRODUCER/CONSUMER links, and
// the JobMetrics createWorker reports for completed, failed and handed-back runs.
import { randomUUID } from 'node:crypto';
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { privateQueues, waitUntil } from '@docfleet/testing';
import { SpanKind, SpanStatusCode, withSpan } from '../src';
import { DelayedError, UnrecoverableError, createWorker, type JobObservation } from '../../queue/src';

const exporter = new InMemorySpanExporter();
const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
provider.register();

const ns = privateQueues('ttest');
const { workerRedis, prefix, queues } = ns;
afterAll(async () => {
  await ns.close();
  await provider.shutdown();
});

const ids = () => ({
  orgId: randomUUID(),
  fileId: randomUUID(),
  fileVersionId: randomUUID(),
  manifestId: randomUUID(),
});
const spanNamed = (name: string) => () => exporter.getFinishedSpans().find((s) => s.name === name);
/** Waits for the first finished span of that name. */
const spanEnded = (name: string) =>
  waitUntil(`the span ${name} to end`, spanNamed(name), { timeoutMs: 10_000, intervalMs: 25 });
const parentOf = (s: ReadableSpan) => s.parentSpanContext?.spanId;

describe('trace context through jobs', () => {
  it('caller span → send parse.file → process parse.file → send index.file-version → process index.file-version, one trace', async () => {
    const seen: JobObservation[] = [];
    const metrics = { observe: (o: JobObservation) => void seen.push(o) };
    const parse = createWorker(
      'parse',
      {
        'parse.file': async () => void (await queues.enqueue('index.file-version', ids())),
        'parse.shard': async () => undefined,
      },
      { connection: workerRedis, prefix, metrics },
    );
    const index = createWorker(
      'index',
      { 'index.file-version': async () => undefined, 'index.remove-file': async () => undefined },
      { connection: workerRedis, prefix, metrics },
    );
    try {
      await withSpan(
        'POST /v1/files',
        {},
        async () => void (await queues.enqueue('parse.file', { jobId: randomUUID(), orgId: randomUUID() })),
        { kind: SpanKind.SERVER },
      );
      const last = await spanEnded('process index.file-version');
      const root = spanNamed('POST /v1/files')()!;
      const sendParse = spanNamed('send parse.file')()!;
      const processParse = spanNamed('process parse.file')()!;
      const sendIndex = spanNamed('send index.file-version')()!;
      const chain = [root, sendParse, processParse, sendIndex, last];
      expect(new Set(chain.map((s) => s.spanContext().traceId)).size).toBe(1);
      expect(chain.slice(1).map(parentOf)).toEqual(chain.slice(0, -1).map((s) => s.spanContext().spanId));
      expect(chain.map((s) => s.kind)).toEqual([
        SpanKind.SERVER,
        SpanKind.PRODUCER,
        SpanKind.CONSUMER,
        SpanKind.PRODUCER,
        SpanKind.CONSUMER,
      ]);
      expect(processParse.attributes).toMatchObject({
        'messaging.system': 'bullmq',
        'messaging.destination.name': 'parse',
        'docfleet.job.name': 'parse.file',
        'docfleet.job.attempt': 1,
      });
      expect(processParse.attributes['messaging.message.id']).toBe(sendParse.attributes['messaging.message.id']);
      expect(seen.map((o) => [o.queue, o.job, o.outcome])).toEqual([
        ['parse', 'parse.file', 'completed'],
        ['index', 'index.file-version', 'completed'],
      ]);
      expect(seen.every((o) => o.seconds >= 0 && o.seconds < 10)).toBe(true);
    } finally {
      await parse.close();
      await index.close();
    }
  });

  it('a job enqueued outside any span starts its own trace at the send span', async () => {
    exporter.reset();
    const index = createWorker(
      'index',
      { 'index.file-version': async () => undefined, 'index.remove-file': async () => undefined },
      { connection: workerRedis, prefix },
    );
    try {
      await queues.enqueue('index.remove-file', { orgId: randomUUID(), fileId: randomUUID() });
      const processed = await spanEnded('process index.remove-file');
      const send = spanNamed('send index.remove-file')()!;
      expect(parentOf(send)).toBeUndefined();
      expect(parentOf(processed)).toBe(send.spanContext().spanId);
    } finally {
      await index.close();
    }
  });

  it('reports failed attempts (final on the last or unrecoverable) and hand-backs (delayed, not an error)', async () => {
    exporter.reset();
    const seen: JobObservation[] = [];
    let calls = 0;
    const worker = createWorker(
      'index',
      {
        // attempts: 5 in the registry; first run fails and is retried, second is handed back, third is unrecoverable
        'index.file-version': async (_p, job) => {
          calls++;
          if (calls === 1) throw new Error('transient');
          if (calls === 2) {
            await job.moveToDelayed(Date.now() + 50, job.token);
            throw new DelayedError();
          }
          throw new UnrecoverableError('broken input');
        },
        'index.remove-file': async () => undefined,
      },
      { connection: workerRedis, prefix, metrics: { observe: (o) => void seen.push(o) } },
    );
    try {
      await queues.enqueue('index.file-version', ids(), { backoff: { type: 'fixed', delay: 50 } });
      await waitUntil('three job observations', () => seen.length >= 3, { timeoutMs: 10_000, intervalMs: 25 });
      expect(seen.map((o) => [o.outcome, o.final])).toEqual([
        ['failed', false],
        ['delayed', false],
        ['failed', true],
      ]);
      const runs = exporter.getFinishedSpans().filter((s) => s.name === 'process index.file-version');
      expect(runs.map((s) => s.status.code)).toEqual([
        SpanStatusCode.ERROR,
        SpanStatusCode.UNSET,
        SpanStatusCode.ERROR,
      ]);
      expect(runs.map((s) => s.attributes['docfleet.job.outcome'])).toEqual(['failed', 'delayed', 'failed']);
    } finally {
      await worker.close();
    }
  });
});
