import { createCreditMetrics, createJobMetrics, createMetricsRegistry, sampleValue, startHealthServer } from '../src';

describe('the shared metrics on /metrics', () => {
  it('serves job and credit metrics with the service label, once per registry however often they are created', async () => {
    const registry = createMetricsRegistry('runtime-test');
    const jobs = createJobMetrics(registry);
    expect(createJobMetrics(registry)).toBe(jobs); // a second worker in the process shares them
    const credits = createCreditMetrics(registry);
    expect(createCreditMetrics(registry)).toBe(credits);
    jobs.observe({ queue: 'parse', job: 'parse.file', outcome: 'completed', final: true, seconds: 0.2 });
    jobs.observe({ queue: 'parse', job: 'parse.file', outcome: 'failed', final: false, seconds: 3 });
    jobs.observe({ queue: 'parse', job: 'parse.file', outcome: 'failed', final: true, seconds: 4 });
    jobs.observe({ queue: 'parse', job: 'parse.file', outcome: 'delayed', final: false, seconds: 1 });
    credits.debited(5);
    credits.refunded(2);
    const health = await startHealthServer({ port: 0, host: '127.0.0.1', registry, checks: {} });
    try {
      const res = await fetch(`http://127.0.0.1:${health.port}/metrics`);
      expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
      const text = await res.text();
      const parse = { queue: 'parse', job: 'parse.file', service: 'runtime-test' };
      expect({
        completed: sampleValue(text, 'docfleet_jobs_completed_total', parse),
        retried: sampleValue(text, 'docfleet_jobs_failed_total', { ...parse, final: 'false' }),
        gaveUp: sampleValue(text, 'docfleet_jobs_failed_total', { ...parse, final: 'true' }),
        failedRuns: sampleValue(text, 'docfleet_job_duration_seconds_count', { ...parse, outcome: 'failed' }),
        delayedRuns: sampleValue(text, 'docfleet_job_duration_seconds_count', { ...parse, outcome: 'delayed' }),
        under5s: sampleValue(text, 'docfleet_job_duration_seconds_bucket', { ...parse, outcome: 'failed', le: '5' }),
        under25: sampleValue(text, 'docfleet_job_duration_seconds_bucket', { ...parse, outcome: 'failed', le: '2.5' }),
        debited: sampleValue(text, 'docfleet_credits_debited_total', { service: 'runtime-test' }),
        refunded: sampleValue(text, 'docfleet_credits_refunded_total'),
      }).toEqual({
        completed: 1,
        retried: 1,
        gaveUp: 1,
        failedRuns: 2,
        delayedRuns: 1,
        under5s: 2,
        under25: 0,
        debited: 5,
        refunded: 2,
      });
      expect(sampleValue(text, 'docfleet_jobs_completed_total', { queue: 'index' })).toBeNaN();
    } finally {
      await health.close();
    }
  });
});
