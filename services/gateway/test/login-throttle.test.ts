// Login brute force: per account and per client address, exponential backoff after a few failed
// attempts (429 rate_limited with Retry-After), other accounts unaffected, state shared by every
// gateway replica through Redis.
import { randomUUID } from 'node:crypto';
import { createOrgUser } from '@docfleet/auth';
import { startGateway, type Gateway } from './harness';

const PASSWORD = 'correct horse battery';
let gw: Gateway;
let replica: Gateway;
let orgId: string;

beforeAll(async () => {
  const prefix = `t${randomUUID().slice(0, 8)}`;
  const env = {
    QUEUE_PREFIX: prefix,
    LOGIN_FREE_FAILURES: '5',
    LOGIN_IP_FREE_FAILURES: '8',
    LOGIN_BACKOFF_BASE_SECONDS: '1',
  };
  // Two gateways over one Redis prefix: two replicas of one deployment.
  [gw, replica] = await Promise.all([startGateway(env), startGateway(env)]);
  ({ orgId } = await gw.createOrg());
});
afterAll(async () => {
  await gw?.close();
  await replica?.close();
});

async function person(g: Gateway = gw, oid = orgId) {
  const email = `p-${randomUUID().slice(0, 8)}@example.test`;
  await createOrgUser(g.db, { orgId: oid, email, role: 'member', password: PASSWORD });
  return email;
}

const login = (email: string, password: string, from = '198.51.100.1', g: Gateway = gw) =>
  g.req('POST', '/v1/auth/login', { body: { email, password }, headers: { 'x-forwarded-for': from } });

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function expectLimited(r: { status: number; body: any; headers: Headers }, retryAfter: number) {
  expect({ status: r.status, code: r.body.code, retry: r.headers.get('retry-after') }).toEqual({
    status: 429,
    code: 'rate_limited',
    retry: String(retryAfter),
  });
  expect(r.body.request_id).toEqual(expect.any(String));
}

describe('per account', () => {
  it('backs off exponentially after 5 failures, refuses even the right password meanwhile, and forgets after a success', async () => {
    const victim = await person();
    const bystander = await person();
    for (let i = 0; i < 5; i++) expect((await login(victim, `wrong-${i}`)).status).toBe(401);
    // the 6th attempt waits 1 s: not even the right password is checked
    expectLimited(await login(victim, PASSWORD), 1);
    // another address gets no further for this account; another account is unaffected
    expectLimited(await login(victim, PASSWORD, '198.51.100.2'), 1);
    expect((await login(bystander, PASSWORD)).status).toBe(200);
    // every further failure doubles the wait
    await sleep(1100);
    expect((await login(victim, 'wrong-5')).status).toBe(401);
    expectLimited(await login(victim, PASSWORD), 2);
    await sleep(2100);
    expect((await login(victim, 'wrong-6')).status).toBe(401);
    expectLimited(await login(victim, PASSWORD), 4);
    // the other replica sees the same lock
    expectLimited(await login(victim, PASSWORD, '198.51.100.1', replica), 4);
    await sleep(4100);
    expect((await login(victim, PASSWORD)).status).toBe(200);
    // a success starts the account afresh (from another address: this one has 7 failures of its 8)
    expect((await login(victim, 'wrong-again', '198.51.100.3')).status).toBe(401);
    expect((await login(victim, PASSWORD, '198.51.100.3')).status).toBe(200);
  });

  it('a burst of parallel guesses gets no more than the 5 free attempts', async () => {
    const victim = await person();
    const rs = await Promise.all(
      Array.from({ length: 30 }, (_, i) => login(victim, `guess-${i}`, `198.51.100.${50 + (i % 4)}`)),
    );
    const counts = rs.reduce<Record<number, number>>((m, r) => ({ ...m, [r.status]: (m[r.status] ?? 0) + 1 }), {});
    expect(counts).toEqual({ 401: 5, 429: 25 });
  });

  it('keeps no e-mail address in Redis', async () => {
    const keys = await gw.deps.redis.keys(`${gw.deps.env.QUEUE_PREFIX}:login:*`);
    expect(keys.length).toBeGreaterThan(0);
    expect(keys.filter((k) => k.includes('@'))).toEqual([]);
  });
});

describe('per client address', () => {
  it('locks an address after 8 failures over any accounts; other addresses and accounts unaffected', async () => {
    const user = await person();
    for (let i = 0; i < 8; i++) expect((await login(`nobody-${i}@example.test`, 'x', '203.0.113.7')).status).toBe(401);
    // the address waits, whichever account it tries, on either replica
    expectLimited(await login(user, PASSWORD, '203.0.113.7'), 1);
    expectLimited(await login(user, PASSWORD, '203.0.113.7', replica), 1);
    // the account itself is fine from elsewhere
    expect((await login(user, PASSWORD, '203.0.113.8')).status).toBe(200);
  });

  it('counts an IPv6 client by its /64, and successful sign-ins do not add up', async () => {
    for (let i = 0; i < 8; i++)
      expect((await login(`v6-${i}@example.test`, 'x', `2001:db8:1:2::${i + 1}`)).status).toBe(401);
    expectLimited(await login('v6-x@example.test', 'x', '2001:db8:1:2:ffff::9'), 1);
    expect((await login('v6-x@example.test', 'x', '2001:db8:1:3::1')).status).toBe(401);
    // one office behind one address: many good sign-ins never lock it
    const users = await Promise.all(Array.from({ length: 4 }, () => person()));
    for (let round = 0; round < 3; round++)
      for (const u of users) expect((await login(u, PASSWORD, '192.0.2.10')).status).toBe(200);
  });
});
