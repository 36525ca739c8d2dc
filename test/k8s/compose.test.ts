// deploy/compose.yaml, checked structurally (no Docker engine runs here), and each check proven to fail
// on a broken copy.
import { checkCompose, loadCompose, type ComposeFile } from './compose-policy';

describe('deploy/compose.yaml', () => {
  it('runs the whole fleet after the migration, with the env contract and a shared DATA_DIR', () => {
    expect(checkCompose(loadCompose())).toEqual([]);
  });

  it('has the gateway, every worker, billing, migrate, PostgreSQL and Redis', () => {
    expect(Object.keys(loadCompose().services)).toEqual(
      expect.arrayContaining([
        'postgres',
        'redis',
        'migrate',
        'gateway',
        'parse-worker',
        'index-worker',
        'workflow-worker',
        'billing',
      ]),
    );
  });

  const cases: Array<[string, (c: ComposeFile) => void, RegExp]> = [
    ['a missing worker', (c) => void delete c.services['index-worker'], /index-worker: missing from compose\.yaml/],
    [
      'a service that does not wait for the migration',
      (c) => void delete c.services.billing.depends_on!.migrate,
      /billing: must depend on migrate with condition service_completed_successfully/,
    ],
    [
      'waiting only for the migration to start',
      (c) => void (c.services.gateway.depends_on!.migrate = { condition: 'service_started' }),
      /gateway: must depend on migrate/,
    ],
    [
      'a worker without the shared volume',
      (c) => void (c.services['parse-worker'].volumes = ['other:/data']),
      /parse-worker: must mount the shared volume data at \/data/,
    ],
    [
      'no DATABASE_URL',
      (c) => void delete c.services['workflow-worker'].environment!.DATABASE_URL,
      /workflow-worker: DATABASE_URL is not set/,
    ],
    [
      'an invalid REDIS_URL',
      (c) => void (c.services.billing.environment!.REDIS_URL = 'redis'),
      /billing: env contract: REDIS_URL/,
    ],
    [
      'a worker on the wrong health port',
      (c) => void (c.services['index-worker'].environment!.HEALTH_PORT = '9000'),
      /index-worker: serves health on 9000, expected 9102/,
    ],
    ['no healthcheck', (c) => void delete c.services['parse-worker'].healthcheck, /parse-worker: needs a healthcheck/],
    ['the gateway not published', (c) => void delete c.services.gateway.ports, /gateway: must publish 8080/],
    [
      'a worker publishing a port',
      (c) => void (c.services.billing.ports = ['9104:9104']),
      /billing: only the gateway publishes a port/,
    ],
    ['PostgreSQL 16', (c) => void (c.services.postgres.image = 'postgres:16'), /postgres: must be PostgreSQL 15/],
    ['an image on latest', (c) => void (c.services.redis.image = 'redis:latest'), /redis.*latest/],
    [
      'the default stop grace period',
      (c) => void delete c.services['index-worker'].stop_grace_period,
      /index-worker: stop_grace_period 10s \(default\) is shorter than its drain/,
    ],
    ['a writable root filesystem', (c) => void (c.services.gateway.read_only = false), /gateway: read-only root/],
    [
      'a migration that restarts',
      (c) => void (c.services.migrate.restart = 'unless-stopped'),
      /migrate: a one-shot must not restart/,
    ],
  ];
  it.each(cases)('fails for %s', (_label, mutate, message) => {
    const c = loadCompose();
    mutate(c);
    expect(checkCompose(c).join('\n')).toMatch(message);
  });
});
