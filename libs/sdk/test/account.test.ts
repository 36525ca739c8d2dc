import { DocfleetApiError, DocfleetClient, type LedgerEntry } from '../src';
import { debitCredits } from '../../billing/src';
import { startGateway, type Gateway } from './helpers';

let gw: Gateway;
beforeAll(async () => {
  gw = await startGateway();
});
afterAll(() => gw.close());

describe('billing', () => {
  it('reads credits and the ledger, page by page and grouped per day', async () => {
    const { key, orgId } = await gw.createOrg({ credits: 50, quota: 40 });
    await gw.db.$transaction((tx) =>
      debitCredits(tx, { orgId, amount: 3, idempotencyKey: 'op:1:attempt-1', reason: 'extract run' }),
    );
    const client = new DocfleetClient({ baseUrl: gw.url, apiKey: key });

    expect(await client.billing.credits()).toEqual({
      credits: {
        balance_credits: 47,
        reserved_credits: 0,
        total_used_credits: 3,
        monthly_used_credits: 3,
        monthly_quota_credits: 40,
      },
      subscription: null,
    });

    const ledger = await client.billing.ledger();
    const entries = ledger.entries as LedgerEntry[];
    expect(entries.map((e) => [e.kind, e.amount_credits, e.balance_after])).toEqual([
      ['debit', -3, 47],
      ['grant', 50, 50],
    ]);
    expect(entries[0]).toMatchObject({ idempotency_key: 'op:1:attempt-1', reason: 'extract run' });
    expect(ledger.next_cursor).toBeNull();

    const page = await client.billing.ledger({ limit: 1 });
    expect((page.entries as LedgerEntry[]).map((e) => e.kind)).toEqual(['debit']);
    const next = await client.billing.ledger({ limit: 1, cursor: page.next_cursor! });
    expect((next.entries as LedgerEntry[]).map((e) => e.kind)).toEqual(['grant']);

    const days = await client.billing.ledger({ groupBy: 'day' });
    expect(days.entries).toEqual([
      {
        day: new Date().toISOString().slice(0, 10),
        debited_credits: 3,
        refunded_credits: 0,
        granted_credits: 50,
        adjusted_credits: 0,
        net_used_credits: 3,
        entry_count: 2,
      },
    ]);
  });

  it('rejects a bad ledger query with invalid_request', async () => {
    const { key } = await gw.createOrg();
    const client = new DocfleetClient({ baseUrl: gw.url, apiKey: key });
    await expect(client.billing.ledger({ limit: 0 })).rejects.toMatchObject({
      status: 400,
      code: 'invalid_request',
      path: '/v1/billing/ledger',
    });
  });
});

describe('sessions and API keys', () => {
  it('logs in, manages keys as an admin session, and a revoked key stops working', async () => {
    const { orgId, key: rootKey } = await gw.createOrg();
    const { userId } = await gw.createSession(orgId, 'admin');
    const user = await gw.db.user.findUniqueOrThrow({ where: { id: userId } });

    const anonymous = new DocfleetClient({ baseUrl: gw.url });
    const login = await anonymous.auth.login({ email: user.email, password: 'correct horse battery' });
    expect(login).toMatchObject({
      token: expect.any(String),
      expires_at: expect.any(String),
      user: { id: userId, email: user.email },
    });
    expect(login.user.memberships).toEqual([{ org_id: orgId, role: 'admin' }]);

    const session = anonymous.withCredentials({ bearerToken: login.token, orgId });
    expect(session.baseUrl).toBe(gw.url);
    const created = await session.apiKeys.create({ name: 'ci' });
    expect(created.api_key).toMatchObject({ name: 'ci', revoked_at: null });
    expect(created.secret.startsWith(created.api_key.prefix)).toBe(true);

    const listed = await session.apiKeys.list();
    expect(listed.api_keys.map((k) => k.id)).toContain(created.api_key.id);
    expect(JSON.stringify(listed)).not.toContain(created.secret);

    const viaKey = new DocfleetClient({ baseUrl: gw.url, apiKey: created.secret });
    await expect(viaKey.knowledgeBases.list()).resolves.toEqual({ knowledge_bases: [] });

    const revoked = await session.apiKeys.revoke(created.api_key.id);
    expect(revoked.api_key.revoked_at).not.toBeNull();
    await expect(viaKey.knowledgeBases.list()).rejects.toMatchObject({ status: 401, code: 'invalid_api_key' });
    await expect(session.apiKeys.revoke('00000000-0000-4000-8000-000000000000')).rejects.toMatchObject({
      status: 404,
      code: 'api_key_not_found',
    });

    // Keys are organisation-root for data, but key management is for signed-in admins only.
    const root = new DocfleetClient({ baseUrl: gw.url, apiKey: rootKey });
    await expect(root.apiKeys.create({ name: 'nope' })).rejects.toMatchObject({
      status: 403,
      code: 'permission_required',
      method: 'POST',
      path: '/v1/api-keys',
    });
  });

  it('maps a wrong password to invalid_credentials and missing credentials to invalid_api_key', async () => {
    const anonymous = new DocfleetClient({ baseUrl: gw.url });
    const err = await anonymous.auth.login({ email: 'nobody@example.test', password: 'whatever' }).catch((e) => e);
    expect(err).toBeInstanceOf(DocfleetApiError);
    expect(err).toMatchObject({ status: 401, code: 'invalid_credentials', method: 'POST', path: '/v1/auth/login' });
    await expect(anonymous.knowledgeBases.list()).rejects.toMatchObject({ status: 401, code: 'invalid_api_key' });
  });

  it('applies role permissions to session clients', async () => {
    const { orgId } = await gw.createOrg();
    const { userId } = await gw.createSession(orgId, 'viewer');
    const user = await gw.db.user.findUniqueOrThrow({ where: { id: userId } });
    const { token } = await new DocfleetClient({ baseUrl: gw.url }).auth.login({
      email: user.email,
      password: 'correct horse battery',
    });
    const viewer = new DocfleetClient({ baseUrl: gw.url, bearerToken: token, orgId });
    await expect(viewer.knowledgeBases.list()).resolves.toBeDefined();
    await expect(viewer.knowledgeBases.create({ name: 'nope' })).rejects.toMatchObject({
      status: 403,
      code: 'permission_required',
    });
  });
});
