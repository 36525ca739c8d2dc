// A local server speaking the OpenAI chat-completions wire format (POST /v1/chat/completions), as
// vLLM, llama.cpp server and Ollama do, for tests: choices/message/content, usage, and the
// { error: { message, type, param, code } } envelope. `supportsJsonSchema: false` makes it reject
// response_format json_schema with a 400, like older llama.cpp/Ollama builds.
import { randomUUID } from 'node:crypto';
import { startFakeServer, type FakeServer, type RecordedRequest } from './fake-server-core';
import { sampleFromSchema } from './sample-from-schema';

export interface OpenAiReply {
  /** Message content (default: JSON built from the request's json_schema, or `{}`). */
  content?: string;
  /** Object to serialise as the content. */
  json?: unknown;
  finishReason?: 'stop' | 'length';
  usage?: { prompt_tokens: number; completion_tokens: number };
}

export interface FakeOpenAiOptions {
  /** Required bearer token; default: none required (self-hosted servers often run without). */
  apiKey?: string;
  models?: string[];
  supportsJsonSchema?: boolean;
  supportsJsonObject?: boolean;
  respond?: (req: RecordedRequest) => OpenAiReply;
}

export type FakeOpenAiServer = FakeServer<OpenAiReply>;

export function startFakeOpenAiServer(opts: FakeOpenAiOptions = {}): Promise<FakeOpenAiServer> {
  return startFakeServer<OpenAiReply>({
    'POST /v1/chat/completions': (req, scripted) => {
      const err = (
        status: number,
        message: string,
        type = status === 429 ? 'rate_limit_exceeded' : status >= 500 ? 'server_error' : 'invalid_request_error',
        param: string | null = null,
      ) => ({ status, body: { error: { message, type, param, code: scripted?.error?.code ?? null } } });
      if (opts.apiKey && req.headers.authorization !== `Bearer ${opts.apiKey}`)
        return err(401, 'Incorrect API key provided', 'invalid_api_key');
      if (scripted?.status && scripted.status >= 400)
        return err(scripted.status, scripted.error?.message ?? `scripted ${scripted.status}`, scripted.error?.type);
      const b = req.body as {
        model?: string;
        messages?: unknown[];
        response_format?: { type: string; json_schema?: { schema?: unknown } };
      };
      if (typeof b.model !== 'string' || !Array.isArray(b.messages)) return err(400, 'model and messages are required');
      if (opts.models && !opts.models.includes(b.model))
        return err(404, `The model \`${b.model}\` does not exist`, 'invalid_request_error', 'model');
      const rf = b.response_format?.type;
      if (rf === 'json_schema' && opts.supportsJsonSchema === false)
        return err(400, "Unsupported response_format type 'json_schema'", 'invalid_request_error', 'response_format');
      if (rf === 'json_object' && opts.supportsJsonObject === false)
        return err(400, "Unsupported response_format type 'json_object'", 'invalid_request_error', 'response_format');
      const reply = scripted?.reply ?? opts.respond?.(req) ?? {};
      const content =
        reply.content ??
        JSON.stringify(
          reply.json ??
            (b.response_format?.json_schema?.schema ? sampleFromSchema(b.response_format.json_schema.schema) : {}),
        );
      const usage = reply.usage ?? {
        prompt_tokens: Math.ceil(JSON.stringify(b.messages).length / 4),
        completion_tokens: Math.ceil(content.length / 4),
      };
      return {
        status: 200,
        body: {
          id: `chatcmpl-${randomUUID()}`,
          object: 'chat.completion',
          created: Math.floor(Date.now() / 1000),
          model: b.model,
          choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: reply.finishReason ?? 'stop' }],
          usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
        },
      };
    },
  });
}
