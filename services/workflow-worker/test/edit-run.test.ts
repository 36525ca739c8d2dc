// Edit through the HTTP API (libs/sdk) with the real parse and workflow workers: a synchronous
// proposal that is stored and never applied (the file, its versions and every stored byte stay as
// they were), read back through GET /v1/edit/proposals/{id}, on both providers' paths, under the
// synchronous credit rule.
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { FakeOpenAiServer } from '@docfleet/models/test-servers';
import type { DocfleetClient } from '@docfleet/sdk';
import { corpus, creditInvariants, startWorkflowFixture, type WorkflowFixture, type WorkflowStack } from './stack';

const INVOICE = corpus('f_forms_invoices/invoice2data/AzureInterior.pdf');
const REMOTE_PROPOSAL = {
  summary: 'Spell out the currency.',
  changes: [{ segmentId: 'seg-1', pageNumber: 1, before: '$', after: 'USD ', reason: 'house style' }],
  patch: '--- a/seg-1\n+++ b/seg-1\n@@\n-$\n+USD \n',
};

let s: WorkflowStack;
let fake: FakeOpenAiServer;
let c: DocfleetClient;
let orgId: string;
let fileId: string;

/** sha256 of every file under DATA_DIR (uploads and artifact bundles of every knowledge base). */
async function snapshot(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (d: string) => {
    for (const e of await readdir(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) await walk(p);
      else
        out[path.relative(dir, p)] = createHash('sha256')
          .update(await readFile(p))
          .digest('hex');
    }
  };
  await walk(dir);
  return out;
}

let fx: WorkflowFixture;
beforeAll(async () => {
  fx = await startWorkflowFixture({
    kbName: 'Edit',
    file: INVOICE,
    credits: 20,
    respond: () => ({ json: REMOTE_PROPOSAL }),
  });
  ({ s, fake, c, orgId, fileId } = fx);
});
afterAll(() => fx.close());

const balance = async () => (await c.billing.credits()).credits.balance_credits;

describe('edit runs', () => {
  it('proposes with docfleet-local, stores the proposal as proposed with its patch, and changes nothing about the file', async () => {
    const bytesBefore = await snapshot(s.gw.dataDir);
    const fileBefore = await c.files.get(fileId);
    const rowsBefore = {
      versions: await s.gw.db.fileVersion.count({ where: { file_id: fileId } }),
      manifests: await s.gw.db.artifactManifest.count({ where: { file_id: fileId } }),
      segments: await c.files.segments(fileId),
    };
    const before = await balance();

    const r = await c.edit.run({
      file_id: fileId,
      prompt: 'Replace "Azure Interior" with "Azure Interiors Ltd"',
      rules: ['keep amounts unchanged'],
    });
    expect(Object.keys(r).sort()).toEqual(['credit', 'modelId', 'operation_id', 'proposal', 'proposal_id']);
    expect(r.modelId).toBe('docfleet-local');
    expect(r.credit).toEqual({
      debited: true,
      credits: 1,
      idempotency_key: expect.stringMatching(/^edit_run:/),
      replayed: false,
    });
    const proposal = r.proposal as {
      summary: string;
      changes: Array<{ before: string; after: string; segmentId: string }>;
      patch: string;
    };
    expect(proposal.changes.length).toBeGreaterThan(0);
    expect(proposal.changes[0]!.after).toContain('Azure Interiors Ltd');
    expect(await balance()).toBe(before - 1);

    const got = await c.edit.getProposal(r.proposal_id);
    expect(got).toEqual({
      proposal: {
        id: r.proposal_id,
        file_id: fileId,
        operation_id: r.operation_id,
        status: 'proposed',
        prompt: 'Replace "Azure Interior" with "Azure Interiors Ltd"',
        rules: ['keep amounts unchanged'],
        proposal: r.proposal,
        diff: proposal.patch,
        model_id: 'docfleet-local',
        created_at: expect.any(String),
        updated_at: expect.any(String),
      },
    });
    expect(proposal.patch).toContain('Azure Interiors Ltd');
    expect(await c.operations.get(r.operation_id)).toMatchObject({
      operation_type: 'edit_run',
      status: 'completed',
      output: { proposal_id: r.proposal_id },
    });

    // Proposes only: every stored byte, the version and the parse are as they were.
    expect(await snapshot(s.gw.dataDir)).toEqual(bytesBefore);
    expect(await c.files.get(fileId)).toEqual(fileBefore);
    expect({
      versions: await s.gw.db.fileVersion.count({ where: { file_id: fileId } }),
      manifests: await s.gw.db.artifactManifest.count({ where: { file_id: fileId } }),
      segments: await c.files.segments(fileId),
    }).toEqual(rowsBefore);

    // Replay: free, from the stored output, no new proposal.
    const again = await c.edit.run({
      file_id: fileId,
      prompt: 'Replace "Azure Interior" with "Azure Interiors Ltd"',
      rules: ['keep amounts unchanged'],
    });
    expect(again).toEqual({ ...r, credit: { ...r.credit, debited: false, replayed: true } });
    expect(await s.gw.db.editProposal.count({ where: { file_id: fileId } })).toBe(1);
    expect(await balance()).toBe(before - 1);
  });

  it("proposes through a remote provider: the proposal is the model's JSON, its patch stored as the diff", async () => {
    const r = await c.edit.run({ file_id: fileId, prompt: 'Spell out currencies', model_id: 'remote-small' });
    expect(r.proposal).toEqual(REMOTE_PROPOSAL);
    expect(r.modelId).toBe('remote-small');
    expect(JSON.stringify(fake.requests.at(-1)!.body)).toContain('Spell out currencies');
    expect((await c.edit.getProposal(r.proposal_id)).proposal).toMatchObject({
      status: 'proposed',
      diff: REMOTE_PROPOSAL.patch,
      rules: [],
      model_id: 'remote-small',
    });
  });

  it('keeps the charge of a failed model call; the same key retries free, a fresh key pays', async () => {
    const before = await balance();
    fake.enqueue({ status: 503, error: { message: 'editor asleep' } });
    const body = { file_id: fileId, prompt: 'Fix typos', model_id: 'remote-small', idempotency_key: 'edit-retry' };
    await expect(c.edit.run(body)).rejects.toMatchObject({
      status: 502,
      code: 'model_call_failed',
      message: expect.stringContaining('editor asleep'),
    });
    expect(await balance()).toBe(before - 1);
    const ok = await c.edit.run(body);
    expect(ok.credit).toEqual({ debited: false, credits: 1, idempotency_key: 'edit-retry', replayed: false });
    expect(await balance()).toBe(before - 1);
    const fresh = await c.edit.run({ ...body, idempotency_key: 'edit-retry-2' });
    expect(fresh.credit.debited).toBe(true);
    expect(await balance()).toBe(before - 2);
  });

  it('hides proposals of other organisations and unknown ids behind 404; validates the body', async () => {
    const r = await c.edit.run({ file_id: fileId, prompt: 'Uppercase the title' });
    const other = await s.gw.createOrg({ credits: 1 });
    await expect(s.client(other.key).edit.getProposal(r.proposal_id)).rejects.toMatchObject({
      status: 404,
      code: 'proposal_not_found',
    });
    await expect(c.edit.getProposal('00000000-0000-4000-8000-000000000000')).rejects.toMatchObject({
      status: 404,
      code: 'proposal_not_found',
    });
    await expect(c.edit.run({ file_id: fileId, prompt: '' })).rejects.toMatchObject({
      status: 400,
      code: 'invalid_request_body',
    });
    await expect(c.edit.run({ file_id: fileId, prompt: 'x', model_id: 'nope' })).rejects.toMatchObject({
      status: 400,
      code: 'unsupported_model',
    });
    await expect(s.client(other.key).edit.run({ file_id: fileId, prompt: 'x' })).rejects.toMatchObject({
      status: 404,
      code: 'file_not_found',
    });
  });

  it('keeps the ledger and the balance in agreement', async () => {
    const inv = await creditInvariants(s.gw, orgId);
    expect(inv.balance).toBe(inv.ledgerSum);
  });
});
