// Builds the tool server: every tool group, minus the gated permanent deletes unless allowed.
import { DocfleetClient } from '@docfleet/sdk';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ToolServerConfig } from './config';
import { register, type ToolContext, type ToolDef } from './tool';
import { artifactTools } from './tools/artifacts.tools';
import { extractTools } from './tools/extract.tools';
import { fileTools } from './tools/files.tools';
import { knowledgeBaseTools } from './tools/knowledge-bases.tools';
import { parseTools } from './tools/parse.tools';
import { searchTools } from './tools/search.tools';
import { workflowTools } from './tools/workflows.tools';

export const SERVER_NAME = 'docfleet';
export const SERVER_VERSION = '0.1.0';

export const ALL_TOOLS: readonly ToolDef[] = [
  ...knowledgeBaseTools,
  ...fileTools,
  ...parseTools,
  ...artifactTools,
  ...searchTools,
  ...extractTools,
  ...workflowTools,
];

const INSTRUCTIONS = `docfleet turns documents into searchable, citable content.
Typical flow: service_create_knowledge_base (or service_list_knowledge_bases) -> service_upload_file (absolute path) ->
service_parse_file -> poll service_job_status until completed -> service_read_artifact (result_md) / service_search /
service_extract. Jobs (parse, extract) are polled with service_job_status (file_id + job_id); operations (split, extract run,
schema generation) with service_operation_status (operation_id). Parsing costs 1 credit per page, model workflows 1 credit per
run, search and reads are free (service_credits shows the balance). Errors carry the HTTP status, method, path and a stable code.`;

export function selectTools(allowDestructive: boolean): ToolDef[] {
  return ALL_TOOLS.filter((t) => allowDestructive || !t.gated);
}

export function createToolServer(
  config: ToolServerConfig,
  client = new DocfleetClient({
    baseUrl: config.baseUrl,
    apiKey: config.apiKey,
    userAgent: `docfleet-mcp/${SERVER_VERSION}`,
  }),
) {
  const server = new McpServer(
    { name: SERVER_NAME, version: SERVER_VERSION },
    { instructions: INSTRUCTIONS, capabilities: { tools: {} } },
  );
  const ctx: ToolContext = {
    client,
    baseUrl: config.baseUrl,
    secrets: [config.apiKey],
    maxUploadBytes: config.maxUploadBytes,
  };
  const tools = selectTools(config.allowDestructive);
  for (const t of tools) register(server, ctx, t);
  return { server, tools };
}
