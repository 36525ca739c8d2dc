// Issue 22.5: GATEWAY_PROCESSES=2 runs two gateway processes on one port (node:cluster). Through the
// real process: both answer searches (each loads its own in-memory copy), health endpoints answer, a
// process killed outright is replaced while the other keeps serving, and SIGTERM to the primary ends
// every process.
import { request } from 'node:http';
import { nodeChildren, seedAndIndex, seg, spawnGateway, waitUntil, type GatewayProcess } from '@docfleet/testing';

let gw: GatewayProcess;
let key: string;
let kbId: string;

const running = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** One search on a new connection (the cluster hands out connections, not requests). */
function search(query: string): Promise<{ hits: unknown[]; path: string }> {
  const body = JSON.stringify({ query });
  return new Promise((resolve, reject) => {
    const req = request(
      `${gw.url}/v1/knowledge-bases/${kbId}/search`,
      {
        method: 'POST',
        agent: false,
        headers: { 'x-api-key': key, 'content-type': 'application/json', connection: 'close' },
      },
      (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => {
          if (res.statusCode !== 200) return reject(new Error(`${res.statusCode}: ${text}`));
          const hits = (JSON.parse(text) as { hits: Array<{ id: string; score: number }> }).hits;
          resolve({ hits: hits.map((h) => [h.id, h.score]), path: String(res.headers['server-timing'] ?? '') });
        });
      },
    );
    req.setTimeout(20_000, () => req.destroy(new Error(`search ${query}: no answer in 20 s`)));
    req.on('error', reject);
    req.end(body);
  });
}

beforeAll(async () => {
  gw = await spawnGateway({ env: { GATEWAY_PROCESSES: '2', SEARCH_MEMORY_MB: '64' } });
  let orgId: string;
  ({ key, orgId } = await gw.createOrg());
  kbId = (await gw.createKnowledgeBase(key, 'Cluster')).id;
  await seedAndIndex(gw.deps, {
    orgId,
    kbId,
    filename: 'a.pdf',
    segments: [seg('a1', 'Fibrosis of the liver'), seg('a2', 'Liver enzymes rise'), seg('a3', 'Kidney stones')],
  });
}, 120_000);
afterAll(() => gw?.close());

test('two processes share the port, both search, a killed one is replaced, SIGTERM ends all', async () => {
  const primary = gw.child.pid!;
  await waitUntil('two gateway processes', () => nodeChildren(primary).length === 2, { timeoutMs: 90_000 });
  const first = nodeChildren(primary);
  expect((await fetch(`${gw.url}/healthz`)).ok).toBe(true);
  expect((await fetch(`${gw.url}/readyz`)).ok).toBe(true);

  // Connections alternate between the processes: each starts loading its own copy on its first
  // search (two "no-copy" answers, where one process would say "loading" or answer from memory).
  const answers = [];
  for (let i = 0; i < 4; i++) answers.push(await search('liver fibrosis'));
  for (const a of answers) expect(a.hits).toEqual(answers[0].hits);
  expect(answers[0].hits[0]).toBeDefined();
  expect(answers.filter((a) => a.path.includes('no-copy')).length).toBe(2);
  await waitUntil('search answered from memory', async () => (await search('liver')).path.includes('desc="memory"'), {
    timeoutMs: 60_000,
  });

  // One process killed outright: the other answers meanwhile, and a new one takes its place.
  process.kill(first[0], 'SIGKILL');
  // Once the primary has seen the exit it hands connections to the other process only (one that
  // arrives in between would go to the dead process: docs/operations.md, "Gateway processes").
  await waitUntil('the killed process replaced', () => /gateway process exited: replacing it/.test(gw.output()), {
    timeoutMs: 30_000,
  });
  for (let i = 0; i < 4; i++) expect((await search('kidney')).hits).toHaveLength(1);
  await waitUntil(
    'two gateway processes again, without the killed one',
    () => {
      const now = nodeChildren(primary);
      return now.length === 2 && !now.includes(first[0]);
    },
    { timeoutMs: 90_000 },
  );
  expect(nodeChildren(primary)).toContain(first[1]);
  for (let i = 0; i < 4; i++) expect((await search('liver fibrosis')).hits).toEqual(answers[0].hits);

  // SIGTERM to the primary: every process drains and exits, then the primary.
  const all = nodeChildren(primary);
  gw.child.kill('SIGTERM');
  // The guard is cleared once the primary exits: a pending 60 s timer kept jest's process alive a
  // minute after the suite ("Jest did not exit", a worker that "failed to exit gracefully" in CI).
  let guard: NodeJS.Timeout | undefined;
  await Promise.race([
    gw.exited,
    new Promise((_, no) => {
      guard = setTimeout(() => no(new Error(`primary still running:\n${gw.output()}`)), 60_000);
    }),
  ]).finally(() => clearTimeout(guard));
  expect(gw.child.exitCode).toBe(0);
  for (const pid of all) expect(running(pid)).toBe(false);
}, 420_000);
