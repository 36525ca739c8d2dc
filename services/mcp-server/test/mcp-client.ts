// Drives the tool server the way an agent host does: the MCP SDK's own Client over
// StdioClientTransport, spawning `tsx services/mcp-server/src/main.ts` (what `pnpm --silent mcp` runs).
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import path from 'node:path';
import { ROOT, offlineEnv } from '@docfleet/testing';

export const TSX = path.join(ROOT, 'node_modules', '.bin', 'tsx');
export const MAIN = path.join('services', 'mcp-server', 'src', 'main.ts');

export interface McpSession {
  client: Client;
  stderr(): string;
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
  /** Calls a tool that must succeed and returns its JSON answer. */
  json<T = any>(name: string, args?: Record<string, unknown>): Promise<T>;
  /** Calls a tool that must fail and returns its error text. */
  error(name: string, args?: Record<string, unknown>): Promise<string>;
  close(): Promise<void>;
}

export function textOf(r: CallToolResult): string {
  return r.content.map((c) => (c.type === 'text' ? c.text : `[${c.type}]`)).join('\n');
}

/** The text of one content block (read_artifact answers with [about, body]). */
export function part(r: CallToolResult, i: number): string {
  const c = r.content[i];
  if (!c || c.type !== 'text') throw new Error(`content[${i}] is not text: ${JSON.stringify(r).slice(0, 300)}`);
  return c.text;
}

export async function connect(env: Record<string, string>): Promise<McpSession> {
  const transport = new StdioClientTransport({
    command: TSX,
    args: [MAIN],
    cwd: ROOT,
    env: offlineEnv(env) as Record<string, string>,
    stderr: 'pipe',
  });
  let err = '';
  transport.stderr!.on('data', (d) => (err += d));
  const client = new Client({ name: 'docfleet-test-agent', version: '1.0.0' });
  await client.connect(transport);
  const call = async (name: string, args: Record<string, unknown> = {}) =>
    (await client.callTool({ name, arguments: args }, undefined, { timeout: 120_000 })) as CallToolResult;
  return {
    client,
    stderr: () => err,
    call,
    async json(name, args) {
      const r = await call(name, args);
      if (r.isError) throw new Error(`${name} failed: ${textOf(r)}`);
      return JSON.parse(textOf(r));
    },
    async error(name, args) {
      const r = await call(name, args);
      if (!r.isError) throw new Error(`${name} was expected to fail but returned: ${textOf(r).slice(0, 500)}`);
      return textOf(r);
    },
    close: () => client.close(),
  };
}
