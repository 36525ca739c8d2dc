import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** /healthz (process alive) and /readyz (every check passes) on HEALTH_PORT (decisions.md). */
export async function startHealthServer(port: number, checks: Record<string, () => Promise<unknown>>): Promise<{ server: Server; port: number }> {
  const server = createServer(async (req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/healthz') return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
    if (path === '/readyz') {
      const out: Record<string, string> = {};
      for (const [name, check] of Object.entries(checks)) {
        try {
          await check();
          out[name] = 'ok';
        } catch (e) {
          out[name] = (e as Error).message;
        }
      }
      const ok = Object.values(out).every((v) => v === 'ok');
      return void res.writeHead(ok ? 200 : 503, { 'content-type': 'application/json' }).end(JSON.stringify({ status: ok ? 'ok' : 'unavailable', checks: out }));
    }
    res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"No such route.","code":"route_not_found"}');
  });
  await new Promise<void>((resolve) => server.listen(port, '0.0.0.0', resolve));
  return { server, port: (server.address() as AddressInfo).port };
}
