// Issue 22: the BM25 statistics (search_terms' document frequencies, evidence_index_state's
// total_length) stay equal to a recount of the postings through index, re-index, trash, prune and
// permanent delete, per knowledge base.
import {
  addManifest,
  addVersion,
  type GatewayProcess,
  indexDeps,
  indexNow,
  seedAndIndex,
  seg,
  spawnGateway,
} from '@docfleet/testing';
import { removeFile } from '../src';

let gw: GatewayProcess;
let key: string;
let orgId: string;
let kbId: string;
let otherKb: string;
beforeAll(async () => {
  gw = await spawnGateway();
  ({ key, orgId } = await gw.createOrg());
  kbId = (await gw.createKnowledgeBase(key, 'Stats')).id;
  otherKb = (await gw.createKnowledgeBase(key, 'Other')).id;
});
afterAll(() => gw.close());

/** The statistics as kept, and as a recount of the knowledge base's rows would give them. */
async function stats(kb: string) {
  const [r] = await gw.db.$queryRaw<{ kept: unknown; counted: unknown; length: number; counted_length: number }[]>`
    SELECT
      (SELECT coalesce(jsonb_object_agg(term, df), '{}') FROM search_terms WHERE knowledge_base_id = ${kb}::uuid AND df > 0) AS kept,
      (SELECT coalesce(jsonb_object_agg(term, n), '{}') FROM (SELECT term, count(*) AS n FROM search_postings
        WHERE knowledge_base_id = ${kb}::uuid GROUP BY term) c) AS counted,
      coalesce((SELECT total_length FROM evidence_index_state WHERE knowledge_base_id = ${kb}::uuid), 0) AS length,
      coalesce((SELECT sum(search_length) FROM evidence_index_segments WHERE knowledge_base_id = ${kb}::uuid), 0)::float8 AS counted_length`;
  return r;
}
async function expectExact(kb: string) {
  const s = await stats(kb);
  expect(s.kept).toEqual(s.counted);
  expect(s.length).toBeCloseTo(s.counted_length, 6);
  return s;
}

it('keeps document frequencies and lengths exact through index, re-index, trash, prune and permanent delete', async () => {
  await seedAndIndex(gw.deps, {
    orgId,
    kbId: otherKb,
    filename: 'other.pdf',
    segments: [seg('o', 'fibrosis elsewhere')],
  });
  const other = await expectExact(otherKb);

  const a = await seedAndIndex(gw.deps, {
    orgId,
    kbId,
    filename: 'a.pdf',
    segments: [seg('a1', 'Fibrosis of the liver'), seg('a2', 'Liver enzymes rise')],
  });
  const b = await seedAndIndex(gw.deps, { orgId, kbId, filename: 'b.pdf', segments: [seg('b1', 'Kidney fibrosis')] });
  let s = await expectExact(kbId);
  expect((s.kept as Record<string, number>).fibrosi).toBe(2);
  expect((s.kept as Record<string, number>).liver).toBe(2);

  // Re-index of the same version (a replayed job) changes nothing.
  expect((await indexNow(gw.deps, a)).status).toBe('indexed');
  expect((await stats(kbId)).kept).toEqual(s.kept);

  // A new version replaces a's terms.
  const v2 = await addVersion(gw.deps, { kbId, fileId: a.fileId });
  const m2 = await addManifest(gw.deps, { orgId, kbId, fileId: a.fileId, versionId: v2 }, [
    seg('a1', 'Cardiac output'),
  ]);
  expect((await indexNow(gw.deps, { ...a, versionId: v2, manifestId: m2 })).status).toBe('indexed');
  s = await expectExact(kbId);
  expect((s.kept as Record<string, number>).liver).toBeUndefined();
  expect((s.kept as Record<string, number>).cardiac).toBe(1);

  // Trash: the removal takes b's terms out.
  await gw.db.file.update({ where: { id: b.fileId }, data: { deleted_at: new Date() } });
  expect((await removeFile(indexDeps(gw.deps), b)).status).toBe('removed');
  s = await expectExact(kbId);
  expect((s.kept as Record<string, number>).kidney).toBeUndefined();

  // Prune: rows of an old version (written while it was current) go when a newer one is current.
  const c = await seedAndIndex(gw.deps, {
    orgId,
    kbId,
    filename: 'c.pdf',
    segments: [seg('c1', 'Pulmonary embolism')],
  });
  await addVersion(gw.deps, { kbId, fileId: c.fileId });
  expect((await removeFile(indexDeps(gw.deps), c)).status).toBe('pruned');
  s = await expectExact(kbId);
  expect((s.kept as Record<string, number>).pulmonari).toBeUndefined();

  // Permanent delete: the gateway deletes the rows, the worker's removal recounts.
  const d = await seedAndIndex(gw.deps, { orgId, kbId, filename: 'd.pdf', segments: [seg('d1', 'Zebrafish embryos')] });
  expect((await stats(kbId)).kept).toHaveProperty('zebrafish', 1);
  const del = await gw.req('DELETE', `/v1/files/${d.fileId}/permanent?confirm_permanent=true`, { key });
  expect(del.status).toBe(200);
  await removeFile(indexDeps(gw.deps), d);
  s = await expectExact(kbId);
  expect((s.kept as Record<string, number>).zebrafish).toBeUndefined();

  // None of it touched the other knowledge base.
  expect(await stats(otherKb)).toEqual(other);
});
