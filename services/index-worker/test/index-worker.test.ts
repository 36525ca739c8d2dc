import { spawn } from 'node:child_process';
import path from 'node:path';
import { Client } from 'pg';
import { createLogger } from '@docfleet/logger';
import { createRedis, createWorker } from '@docfleet/queue';
import {
  addManifest,
  addVersion,
  type GatewayProcess,
  indexDeps,
  indexNow,
  seedAndIndex,
  seedParsedFile,
  seg,
  spawnGateway,
  waitUntil,
} from '@docfleet/testing';
import { createIndexHandlers } from '../src/worker';
import { removeFile } from '@docfleet/search-index';

let gw: GatewayProcess;
let key: string;
let orgId: string;
let kbId: string;
beforeAll(async () => {
  gw = await spawnGateway();
  ({ key, orgId } = await gw.createOrg());
  kbId = (await gw.createKnowledgeBase(key, 'Index')).id;
});
afterAll(() => gw.close());

const rowsOf = (fileId: string) =>
  gw.db.evidenceIndexSegment.findMany({ where: { file_id: fileId }, orderBy: { ordinal: 'asc' } });
const state = () => gw.db.evidenceIndexState.findUnique({ where: { knowledge_base_id: kbId } });
const search = (body: object) => gw.req('POST', `/v1/knowledge-bases/${kbId}/search`, { key, body });

describe('index.file-version', () => {
  it('writes one row per segment with tags, neighbours and a weighted tsvector', async () => {
    const s = await seedAndIndex(gw.deps, {
      orgId,
      kbId,
      filename: 'weights.pdf',
      segments: [
        seg('h1', 'Ledger overview for FY2023', { title: 'Ledger overview' }),
        seg('t1', '| Account | Q1 |\n|---|---|\n| Receivables | 10 |', {
          title: 'Ledger overview',
          tableMetadata: { isTable: true, headers: ['Account', 'Q1'], rowLabels: ['Receivables'], noteRefs: [] },
        }),
      ],
    });
    const rows = await rowsOf(s.fileId);
    expect(
      rows.map((r) => [
        r.segment_id,
        r.ordinal,
        r.is_table,
        r.artifact_manifest_id,
        r.file_version_id,
        r.knowledge_base_id,
        r.org_id,
      ]),
    ).toEqual([
      ['h1', 0, false, s.manifestId, s.versionId, kbId, orgId],
      ['t1', 1, true, s.manifestId, s.versionId, kbId, orgId],
    ]);
    expect(rows[0]).toMatchObject({
      years: [2023],
      neighbors: { previousSegmentId: null, nextSegmentId: 't1', noteSegmentIds: [] },
    });
    expect(rows[1]).toMatchObject({
      quarters: ['Q1'],
      table_metadata: { isTable: true, headers: ['Account', 'Q1'], rowLabels: ['Receivables'] },
    });
    const tsv = await gw.db.$queryRaw<
      { segment_id: string; tsv: string }[]
    >`SELECT segment_id, tsv::text AS tsv FROM evidence_index_segments WHERE file_id = ${s.fileId}::uuid ORDER BY ordinal`;
    expect(tsv[0].tsv).toMatch(/'ledger':1A/); // title, weight A
    expect(tsv[1].tsv).toMatch(/'receiv':\d+B/); // row label, weight B
    expect(tsv[0].tsv).toMatch(/'fy2023':\d+C/); // body, weight C
  });

  it('replaces the file’s rows in one transaction: a search never sees two parses or half of one', async () => {
    const old = Array.from({ length: 40 }, (_, i) => seg(`old-${i}`, `shared marker text, old parse ${i}`));
    const s = await seedAndIndex(gw.deps, { orgId, kbId, filename: 'swap.pdf', segments: old });
    const fresh = Array.from({ length: 3000 }, (_, i) => seg(`new-${i}`, `shared marker text, new parse ${i}`));
    const manifest2 = await addManifest(gw.deps, { orgId, kbId, fileId: s.fileId, versionId: s.versionId }, fresh);

    const watcher = new Client({ connectionString: gw.deps.env.DATABASE_URL });
    await watcher.connect();
    const seen = new Set<string>();
    let done = false;
    let inFlight = false;
    let lookedDuringSwap = 0;
    const watch = (async () => {
      while (!done) {
        const { rows } = await watcher.query(
          `SELECT count(*)::int AS n, count(DISTINCT artifact_manifest_id)::int AS m FROM evidence_index_segments WHERE file_id = $1`,
          [s.fileId],
        );
        seen.add(`${rows[0].n}/${rows[0].m}`);
        if (inFlight && rows[0].n === 40) lookedDuringSwap++;
        const r = await search({ query: 'shared marker', file_ids: [s.fileId], limit: 80 });
        expect(r.status).toBe(200);
        seen.add(`api:${r.body.hits.length}/${new Set(r.body.hits.map((h: any) => h.artifactManifestId)).size}`);
      }
    })();
    // Small batches: the replacement spans 60 statements, plenty of time to look in between.
    inFlight = true;
    const out = await indexNow(gw.deps, { ...s, manifestId: manifest2 }, { batchRows: 50 });
    inFlight = false;
    done = true;
    await watch;
    await watcher.end();
    expect(out).toMatchObject({ status: 'indexed', segments: 3000, removed: 40 });
    expect([...seen].every((v) => ['40/1', '3000/1', 'api:40/1', 'api:80/1'].includes(v))).toBe(true);
    expect(lookedDuringSwap).toBeGreaterThan(0);
    const after = await search({ query: 'shared marker', file_ids: [s.fileId], limit: 5 });
    expect(after.body.hits[0].artifactManifestId).toBe(manifest2);
  });

  it('skips deleted files, versions that are no longer current and manifests that are not the newest', async () => {
    const gone = await seedParsedFile(gw.deps, { orgId, kbId, filename: 'gone.pdf', segments: [seg('a', 'text')] });
    await gw.db.file.update({ where: { id: gone.fileId }, data: { deleted_at: new Date() } });
    expect(await indexNow(gw.deps, gone)).toEqual({ status: 'skipped', reason: 'file_deleted' });

    const replaced = await seedParsedFile(gw.deps, {
      orgId,
      kbId,
      filename: 'replaced.pdf',
      segments: [seg('a', 'text')],
    });
    await addVersion(gw.deps, { kbId, fileId: replaced.fileId });
    expect(await indexNow(gw.deps, replaced)).toEqual({ status: 'skipped', reason: 'version_not_current' });

    const reparsed = await seedParsedFile(gw.deps, {
      orgId,
      kbId,
      filename: 'reparsed.pdf',
      segments: [seg('a', 'first parse')],
    });
    await new Promise((r) => setTimeout(r, 5));
    const newer = await addManifest(gw.deps, { orgId, kbId, fileId: reparsed.fileId, versionId: reparsed.versionId }, [
      seg('b', 'second parse'),
    ]);
    expect(await indexNow(gw.deps, reparsed)).toEqual({ status: 'skipped', reason: 'manifest_not_newest' });
    expect(await indexNow(gw.deps, { ...reparsed, manifestId: newer })).toMatchObject({
      status: 'indexed',
      segments: 1,
    });

    expect(await indexNow(gw.deps, { ...reparsed, fileId: '00000000-0000-4000-8000-000000000000' })).toEqual({
      status: 'skipped',
      reason: 'file_not_found',
    });
    // another organisation's id for the same file is an unknown file
    const other = await gw.createOrg();
    expect(await indexNow(gw.deps, { ...reparsed, orgId: other.orgId, manifestId: newer })).toEqual({
      status: 'skipped',
      reason: 'file_not_found',
    });
    for (const f of [gone, replaced]) expect(await rowsOf(f.fileId)).toHaveLength(0);
  });

  it('fails (and is retried) when the bundle has no readable segments.json', async () => {
    const s = await seedParsedFile(gw.deps, { orgId, kbId, filename: 'broken.pdf', segments: [] });
    const m = await gw.db.artifactManifest.findUniqueOrThrow({ where: { id: s.manifestId } });
    await gw.deps.storage.put(`${m.storage_prefix}/segments.json`, '{"not": "a list"}');
    await expect(indexNow(gw.deps, s)).rejects.toThrow(/not a segment list/);
    await gw.deps.storage.removePrefix(m.storage_prefix);
    await expect(indexNow(gw.deps, s)).rejects.toThrow();
  });

  it('keeps index_version and the snapshot in step with the index, at constant cost per job', async () => {
    const counts = async () =>
      (
        await gw.db.$queryRaw<{ n: number; f: number }[]>`
      SELECT count(*)::int AS n, count(DISTINCT file_id)::int AS f FROM evidence_index_segments WHERE knowledge_base_id = ${kbId}::uuid`
      )[0];
    const before = await state();
    const s = await seedAndIndex(gw.deps, {
      orgId,
      kbId,
      filename: 'counted.pdf',
      segments: [seg('a', 'one'), seg('b', 'two')],
    });
    const after = await state();
    expect(after!.version).toBe((before?.version ?? 0n) + 1n);
    const c = await counts();
    expect({ n: after!.segment_count, f: after!.file_count }).toEqual(c);
    const r = await search({ query: '' });
    expect(r.body.index_version).toBe(String(after!.version));
    expect(r.body.snapshot).toEqual({
      segment_count: c.n,
      file_count: c.f,
      indexed_at: after!.indexed_at!.toISOString(),
      pending_updates: 0,
    });
    expect(r.body.status).toBe('ready');
    // re-index the same version with a smaller parse: the deltas follow
    const m2 = await addManifest(gw.deps, { orgId, kbId, fileId: s.fileId, versionId: s.versionId }, [
      seg('c', 'three'),
    ]);
    await indexNow(gw.deps, { ...s, manifestId: m2 });
    expect((await state())!.segment_count).toBe(c.n - 1);
    // trash + removal
    await gw.db.file.update({ where: { id: s.fileId }, data: { deleted_at: new Date() } });
    await removeFile(indexDeps(gw.deps), { orgId, fileId: s.fileId });
    const end = await state();
    expect({ n: end!.segment_count, f: end!.file_count }).toEqual(await counts());
    expect(end!.file_count).toBe(c.f - 1);
    // concurrent jobs of one knowledge base take turns on the state row: nothing is lost
    const many = await Promise.all(
      [1, 2, 3, 4].map((i) =>
        seedParsedFile(gw.deps, {
          orgId,
          kbId,
          filename: `parallel-${i}.pdf`,
          segments: Array.from({ length: 50 * i }, (_, k) => seg(`s${k}`, `text ${k}`)),
        }),
      ),
    );
    await Promise.all(many.map((m) => indexNow(gw.deps, m, { batchRows: 20 })));
    const fin = await state();
    expect({ n: fin!.segment_count, f: fin!.file_count }).toEqual(await counts());
    expect(fin!.version).toBe(end!.version + 4n);
  });
});

describe('index.remove-file', () => {
  it('removes a trashed file, keeps a live one, prunes old versions, and refreshes after a permanent delete', async () => {
    const trashed = await seedAndIndex(gw.deps, {
      orgId,
      kbId,
      filename: 'rm-trashed.pdf',
      segments: [seg('a', 'x'), seg('b', 'y')],
    });
    await gw.db.file.update({ where: { id: trashed.fileId }, data: { deleted_at: new Date() } });
    expect(await removeFile(indexDeps(gw.deps), trashed)).toEqual({ status: 'removed', removed: 2 });
    expect(await rowsOf(trashed.fileId)).toHaveLength(0);

    const live = await seedAndIndex(gw.deps, { orgId, kbId, filename: 'rm-live.pdf', segments: [seg('a', 'x')] });
    expect(await removeFile(indexDeps(gw.deps), live)).toEqual({ status: 'skipped', reason: 'file_live' });
    expect(await rowsOf(live.fileId)).toHaveLength(1);
    await addVersion(gw.deps, { kbId, fileId: live.fileId });
    expect(await removeFile(indexDeps(gw.deps), live)).toEqual({ status: 'pruned', removed: 1 });

    const perm = await seedAndIndex(gw.deps, {
      orgId,
      kbId,
      filename: 'rm-perm.pdf',
      segments: [seg('a', 'x'), seg('b', 'y'), seg('c', 'z')],
    });
    const counted = (await state())!.segment_count;
    const del = await gw.req('DELETE', `/v1/files/${perm.fileId}/permanent?confirm_permanent=true`, { key });
    expect(del.status).toBe(200);
    expect(await removeFile(indexDeps(gw.deps), perm)).toEqual({ status: 'removed', removed: 0 });
    expect((await state())!.segment_count).toBe(counted - 3);
  });
});

describe('the worker process and the gateway wiring', () => {
  it('trash hides a file at once, the queued removal deletes its rows, restore re-indexes it', async () => {
    const s = await seedAndIndex(gw.deps, {
      orgId,
      kbId,
      filename: 'wired.pdf',
      segments: [seg('a', 'zebracorn appears here'), seg('b', 'and zebracorn again')],
    });
    expect((await search({ query: 'zebracorn' })).body.hits).toHaveLength(2);

    expect((await gw.req('DELETE', `/v1/files/${s.fileId}`, { key })).status).toBe(200);
    // no worker is running yet: the rows are still there, but search hides them
    expect(await rowsOf(s.fileId)).toHaveLength(2);
    expect((await search({ query: 'zebracorn' })).body.hits).toHaveLength(0);

    const connection = createRedis(gw.deps.env.REDIS_URL, { forWorker: true });
    const worker = createWorker(
      'index',
      createIndexHandlers({ ...indexDeps(gw.deps), logger: createLogger('t', 'silent') }),
      { connection, prefix: gw.deps.env.QUEUE_PREFIX, concurrency: 2 },
    );
    try {
      await waitUntil('the file rows removed', async () => (await rowsOf(s.fileId)).length === 0);
      expect((await gw.req('POST', `/v1/files/${s.fileId}/restore`, { key })).status).toBe(200);
      await waitUntil('the file indexed again', async () => (await rowsOf(s.fileId)).length === 2);
      const hits = (await search({ query: 'zebracorn' })).body.hits;
      expect(hits.map((h: any) => h.segmentId).sort()).toEqual(['a', 'b']);
    } finally {
      await worker.close();
      await connection.quit();
    }
  });

  it('main.ts serves /healthz and /readyz on HEALTH_PORT and stops cleanly on SIGTERM', async () => {
    const root = path.resolve(__dirname, '../../..');
    // One process (`node --import tsx`), as libs/testing starts services: the `tsx` command is a parent that
    // relays SIGTERM and, when the child does not acknowledge within 30 ms (a busy machine), kills it (exit 143).
    const child = spawn(process.execPath, ['--import', 'tsx', 'services/index-worker/src/main.ts'], {
      cwd: root,
      env: {
        ...process.env,
        DATABASE_URL: gw.deps.env.DATABASE_URL,
        DATA_DIR: gw.dataDir,
        QUEUE_PREFIX: gw.deps.env.QUEUE_PREFIX,
        HEALTH_PORT: '0',
        LOG_LEVEL: 'info',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    await waitUntil('the worker to log its health port', () => /"health_port":\d+/.test(out), { timeoutMs: 30_000 });
    const port = Number(/"health_port":(\d+)/.exec(out)![1]);
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
    const ready = await fetch(`http://127.0.0.1:${port}/readyz`);
    expect({ status: ready.status, body: await ready.json() }).toEqual({
      status: 200,
      body: { status: 'ok', checks: { database: 'ok', redis: 'ok' } },
    });
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  }, 60_000);
});
