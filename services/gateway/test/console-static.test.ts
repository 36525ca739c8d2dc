import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startGateway, type Gateway } from './harness';

// The gateway serves the web console's build at `/`: index.html revalidated on every load, hashed
// assets cached for a year, both under a Content-Security-Policy with no inline script; the API
// beside it is untouched.
let gw: Gateway;
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'docfleet-console-'));
  await mkdir(path.join(dir, 'assets'));
  await writeFile(
    path.join(dir, 'index.html'),
    '<!doctype html><script type="module" src="/assets/index-AbC123.js"></script>',
  );
  await writeFile(path.join(dir, 'assets', 'index-AbC123.js'), 'console.log(1)');
  await writeFile(path.join(dir, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  gw = await startGateway({ CONSOLE_DIR: dir });
});
afterAll(async () => {
  await gw.close();
  await rm(dir, { recursive: true, force: true });
});

describe('web console at /', () => {
  it('serves index.html with no-cache and a strict CSP', async () => {
    for (const p of ['/', '/index.html']) {
      const res = await fetch(`${gw.url}${p}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      expect(res.headers.get('cache-control')).toBe('no-cache');
      const csp = res.headers.get('content-security-policy')!;
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toContain('unsafe-inline');
      expect(csp).toContain("frame-ancestors 'none'");
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(await res.text()).toContain('/assets/index-AbC123.js');
    }
  });

  it('caches hashed assets for a year, immutable', async () => {
    const res = await fetch(`${gw.url}/assets/index-AbC123.js`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/javascript/);
    expect(res.headers.get('cache-control')).toMatch(/max-age=31536000/);
    expect(res.headers.get('cache-control')).toContain('immutable');
    const fav = await fetch(`${gw.url}/favicon.svg`);
    expect(fav.status).toBe(200);
    expect(fav.headers.get('cache-control')).toMatch(/max-age=3600/);
  });

  it('leaves the API and unknown paths as they were', async () => {
    const missing = await fetch(`${gw.url}/assets/nope.js`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ code: 'route_not_found' });
    const api = await fetch(`${gw.url}/v1/knowledge-bases`);
    expect(api.status).toBe(401);
    expect((await fetch(`${gw.url}/healthz`)).status).toBe(200);
    // a traversal attempt never leaves the build directory
    const trav = await fetch(`${gw.url}/assets/..%2f..%2fetc%2fpasswd`);
    expect(trav.status).toBe(404);
  });

  it('serves nothing at / with CONSOLE_DIR=off', async () => {
    const off = await startGateway({ CONSOLE_DIR: 'off' });
    try {
      const res = await fetch(`${off.url}/`);
      expect(res.status).toBe(404);
      expect(await res.json()).toMatchObject({ code: 'route_not_found' });
    } finally {
      await off.close();
    }
  });
});
