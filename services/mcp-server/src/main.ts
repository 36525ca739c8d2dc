// Composition root of the stdio tool server (`pnpm --silent mcp`). stdout carries nothing but the
// protocol; the one diagnostic line and any fatal error go to stderr, never with the API key.
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { ConfigError, loadConfig } from './config';
import { redact } from './errors';
import { SERVER_VERSION, createToolServer } from './server';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`docfleet-mcp: ${err.message}\n`);
    process.exit(2);
  }
  const secret = config.apiKey;
  process.on('uncaughtException', (err) => {
    process.stderr.write(`docfleet-mcp: fatal: ${redact(err?.stack ?? String(err), [secret])}\n`);
    process.exit(1);
  });

  const { server, tools } = createToolServer(config);
  const transport = new StdioServerTransport();
  await server.connect(transport);
  const gated = config.allowDestructive
    ? 'permanent-delete tools on'
    : 'permanent-delete tools off (SERVICE_MCP_ALLOW_DESTRUCTIVE=true enables them)';
  process.stderr.write(
    `docfleet-mcp ${SERVER_VERSION}: ${tools.length} tools over stdio for ${config.baseUrl}; ${gated}\n`,
  );

  // The client closing stdin ends the session; exit once the transport has shut down.
  const stop = () => void server.close().finally(() => process.exit(0));
  process.stdin.on('end', stop);
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((err: unknown) => {
  const key = process.env.SERVICE_API_KEY;
  process.stderr.write(
    `docfleet-mcp: failed to start: ${redact((err as Error)?.message ?? String(err), key ? [key] : [])}\n`,
  );
  process.exit(1);
});
