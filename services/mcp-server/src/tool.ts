// One shape for every tool: name, description, a strict zod input schema, annotations and a run
// function returning plain data. register() wraps run so that results are JSON text and every
// failure becomes a redacted tool error (errors.ts) instead of a protocol error.
import type { DocfleetClient } from '@docfleet/sdk';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import { toolErrorResult } from './errors';

export interface ToolContext {
  client: DocfleetClient;
  baseUrl: string;
  /** Strings that must never appear in tool output (the API key). */
  secrets: readonly string[];
  maxUploadBytes: number;
}

/** What run() may return: data (sent as JSON), or content blocks it built itself. */
export type ToolOutput = { content: CallToolResult['content'] } | unknown;

export interface ToolDef<S extends z.ZodType = z.ZodType> {
  name: string;
  title: string;
  description: string;
  input: S;
  annotations: Omit<ToolAnnotations, 'title'>;
  /** Registered only with SERVICE_MCP_ALLOW_DESTRUCTIVE (the two permanent deletes). */
  gated?: boolean;
  run(args: z.output<S>, ctx: ToolContext): Promise<ToolOutput>;
}

/** Identity with inference: keeps each definition's argument type tied to its own schema. */
export function defineTool<S extends z.ZodType>(def: ToolDef<S>): ToolDef {
  return def as unknown as ToolDef;
}

export const READ_ONLY: ToolDef['annotations'] = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};
/** Creates something new (queues a job, uploads, charges credits) but never removes anything. */
export const ADDITIVE: ToolDef['annotations'] = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: false,
  openWorldHint: false,
};
/** Additive and safe to repeat: the API deduplicates by idempotency key (parse and extract jobs). */
export const IDEMPOTENT: ToolDef['annotations'] = { ...ADDITIVE, idempotentHint: true };
export const DESTRUCTIVE: ToolDef['annotations'] = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: false,
  openWorldHint: false,
};

function isContent(v: unknown): v is { content: CallToolResult['content'] } {
  return Boolean(v && typeof v === 'object' && Array.isArray((v as { content?: unknown }).content));
}

export function jsonText(value: unknown): string {
  return JSON.stringify(value, null, 2);
}

export function register(server: McpServer, ctx: ToolContext, def: ToolDef): void {
  server.registerTool(
    def.name,
    {
      title: def.title,
      description: def.description,
      inputSchema: def.input,
      annotations: { title: def.title, ...def.annotations },
    },
    async (args: unknown): Promise<CallToolResult> => {
      try {
        const out = await def.run(args, ctx);
        if (isContent(out)) return { content: out.content };
        return { content: [{ type: 'text', text: jsonText(out) }] };
      } catch (err) {
        return toolErrorResult(err, ctx.secrets, ctx.baseUrl);
      }
    },
  );
}
