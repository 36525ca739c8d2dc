import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { KIND, startOtlpReceiver } from './otlp-receiver';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '../../..');
const PROBE = path.join(__dirname, 'fixtures', 'init-probe.ts');

/** Runs the probe as a service process would run: its own Node, tsx, the given environment. */
async function probe(env: Record<string, string>) {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('OTEL_')));
  const { stdout } = await run(process.execPath, ['--import', 'tsx', PROBE, 'probe-service'], {
    cwd: ROOT,
    env: { ...clean, ...env },
    timeout: 60_000,
  });
  return JSON.parse(stdout.trim().split('\n').pop()!) as { enabled: boolean; sdkModules: number };
}

describe('initTelemetry', () => {
  it('loads no SDK module when OTEL_EXPORTER_OTLP_ENDPOINT is not set', async () => {
    expect(await probe({})).toEqual({ enabled: false, sdkModules: 0 });
  });

  it('with the endpoint set, starts the SDK and exports spans over OTLP/HTTP JSON with the service name', async () => {
    const rx = await startOtlpReceiver();
    try {
      const out = await probe({ OTEL_EXPORTER_OTLP_ENDPOINT: rx.url });
      expect(out.enabled).toBe(true);
      expect(out.sdkModules).toBeGreaterThan(0);
      expect(rx.requests).toContainEqual({ path: '/v1/traces', contentType: 'application/json' });
      expect(rx.spans).toEqual([
        expect.objectContaining({
          service: 'probe-service',
          name: 'probe work',
          kind: KIND.INTERNAL,
          attributes: { 'probe.n': 1 },
        }),
      ]);
    } finally {
      await rx.close();
    }
  });
});
