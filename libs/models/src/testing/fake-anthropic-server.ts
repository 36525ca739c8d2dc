// A local server speaking the Anthropic Messages API wire format (POST /v1/messages) for tests:
// tool_use content blocks, usage, request ids, and Anthropic's error envelope
// ({ type: 'error', error: { type, message } }) with the matching HTTP statuses. Point the real SDK
// at it with ANTHROPIC_BASE_URL / baseURL = server.url.
import { randomUUID } from 'node:crypto';
import { startFakeServer, type FakeServer, type RecordedRequest, type ScriptedReply } from './fake-server-core';
import { sampleFromSchema } from './sample-from-schema';

export interface AnthropicReply {
  /** Input of the tool_use block (default: built from the tool's input_schema). */
  toolInput?: unknown;
  /** Answer in a text block instead of calling the tool. */
  text?: string;
  stopReason?: 'end_turn' | 'tool_use' | 'max_tokens';
  usage?: { input_tokens: number; output_tokens: number };
}

export interface FakeAnthropicOptions {
  /** Accepted API key (x-api-key); default: any non-empty key. */
  apiKey?: string;
  /** Known model ids; others get 404 not_found_error. Default: any. */
  models?: string[];
  /** Default reply when nothing is queued. */
  respond?: (req: RecordedRequest) => AnthropicReply;
}

const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  529: 'overloaded_error',
};

export type FakeAnthropicServer = FakeServer<AnthropicReply>;

export function startFakeAnthropicServer(opts: FakeAnthropicOptions = {}): Promise<FakeAnthropicServer> {
  return startFakeServer<AnthropicReply>({
    'POST /v1/messages': (req, scripted) => {
      const requestId = `req_${randomUUID().replace(/-/g, '').slice(0, 24)}`;
      const err = (status: number, message: string, type = ERROR_TYPES[status] ?? 'api_error') => ({
        status,
        headers: { 'request-id': requestId },
        body: { type: 'error', error: { type, message }, request_id: requestId },
      });
      // Older SDKs send x-api-key; the current one sends Authorization: Bearer. Accept both.
      const bearer = /^Bearer\s+(.+)$/i.exec(String(req.headers.authorization ?? ''))?.[1];
      const key = (req.headers['x-api-key'] as string | undefined) ?? bearer;
      if (!key || (opts.apiKey && key !== opts.apiKey)) return err(401, 'invalid x-api-key');
      if (scripted?.status && scripted.status >= 400)
        return err(scripted.status, scripted.error?.message ?? `scripted ${scripted.status}`, scripted.error?.type);
      const b = req.body as {
        model?: string;
        max_tokens?: number;
        messages?: unknown[];
        tools?: Array<{ name: string; input_schema: unknown }>;
        tool_choice?: { type: string; name?: string };
        thinking?: { type: string; budget_tokens?: number };
      };
      if (
        typeof b.model !== 'string' ||
        typeof b.max_tokens !== 'number' ||
        !Array.isArray(b.messages) ||
        !b.messages.length
      ) {
        return err(400, 'model, max_tokens and messages are required');
      }
      if (opts.models && !opts.models.includes(b.model)) return err(404, `model: ${b.model}`);
      if (
        b.thinking?.type === 'enabled' &&
        b.tool_choice &&
        b.tool_choice.type !== 'auto' &&
        b.tool_choice.type !== 'none'
      ) {
        return err(400, 'Thinking may not be enabled when tool_choice forces tool use.');
      }
      if (b.thinking?.type === 'enabled' && (b.thinking.budget_tokens ?? 0) >= b.max_tokens)
        return err(400, '`max_tokens` must be greater than `thinking.budget_tokens`');
      const reply = scripted?.reply ?? opts.respond?.(req) ?? {};
      const tool = b.tools?.[0];
      const content: unknown[] = [];
      if (b.thinking?.type === 'enabled')
        content.push({ type: 'thinking', thinking: 'Reading the evidence.', signature: 'sig' });
      if (reply.text !== undefined || !tool) content.push({ type: 'text', text: reply.text ?? '' });
      else
        content.push({
          type: 'tool_use',
          id: `toolu_${randomUUID().replace(/-/g, '').slice(0, 24)}`,
          name: tool.name,
          input: reply.toolInput ?? sampleFromSchema(tool.input_schema),
        });
      const usage = reply.usage ?? {
        input_tokens: Math.ceil(JSON.stringify(b.messages).length / 4),
        output_tokens: Math.ceil(JSON.stringify(content).length / 4),
      };
      return {
        status: 200,
        headers: { 'request-id': requestId },
        body: {
          id: `msg_${randomUUID().replace(/-/g, '').slice(0, 24)}`,
          type: 'message',
          role: 'assistant',
          model: b.model,
          content,
          stop_reason:
            reply.stopReason ??
            (content.some((c) => (c as { type: string }).type === 'tool_use') ? 'tool_use' : 'end_turn'),
          stop_sequence: null,
          usage: { cache_creation_input_tokens: 0, cache_read_input_tokens: 0, ...usage },
        },
      };
    },
  });
}

export type { ScriptedReply };
