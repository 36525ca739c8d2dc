// startPrivatePostgres: a migrated server of the test's own that survives a restart with its data,
// and whose restart cuts every open connection (what an operator's restart does to the services).
import { Client } from 'pg';
import { startPrivatePostgres } from '../src';

it('restarts with its data; connections open across the restart are cut', async () => {
  const pg = await startPrivatePostgres();
  try {
    const c = new Client({ connectionString: pg.url });
    c.on('error', () => undefined);
    await c.connect();
    await c.query(`INSERT INTO organizations (id, name, updated_at) VALUES (gen_random_uuid(), 'kept', now())`);
    await pg.restart({ downMs: 200 });
    await expect(c.query('SELECT 1')).rejects.toThrow();
    const d = new Client({ connectionString: pg.url });
    await d.connect();
    expect((await d.query(`SELECT name FROM organizations`)).rows).toEqual([{ name: 'kept' }]);
    await d.end();
  } finally {
    await pg.stop();
  }
}, 60_000);
