// Any OpenAI-compatible chat endpoint (vLLM, llama.cpp server, Ollama, OpenAI itself) through plain
// fetch. Plain fetch rather than the `openai` package because the servers differ exactly where the
// SDK's types are rigid: the response_format fallback below keys off the server's 400 for
// json_schema, some servers need no API key, and retries/timeouts must follow the shared policy in
// retry.ts. Node 20's fetch is enough, and it is one dependency fewer.
//
// Structured output: `response_format: { type: 'json_schema' }` first; a server that rejects it
// (400/422) gets `json_object` with the schema written into the system prompt, then plain text
// with the schema in the prompt. The mode that worked is remembered per model.
import type { ModelConfig, OpenAiConfig } from '../config';
import { ModelError } from '../errors';
import { checkOutput, objectSchema, parseJsonText } from '../json-output';
import { isRetryableStatus, parseRetryAfter, withRetries, type AttemptFailure } from '../retry';
import type { GenerateJsonRequest, GenerateJsonResult, ModelInfo, ModelProvider } from '../types';
import { MAX_TOKENS, OPENAI_REASONING_EFFORT } from './reasoning';

const PROVIDER = 'openai';
type Mode = 'json_schema' | 'json_object' | 'prompt';
const MODES: Mode[] = ['json_schema', 'json_object', 'prompt'];

export class HttpStatusError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Headers,
    readonly body: unknown,
  ) {
    super(message);
  }
}

interface ChatCompletion {
  choices?: Array<{ message?: { content?: string | null; refusal?: string | null }; finish_reason?: string }>;
  usage?: { prompt_tokens?: number; completion_tokens?: number };
  model?: string;
}

export class OpenAiCompatibleProvider implements ModelProvider {
  readonly id = PROVIDER;
  private readonly modeByModel = new Map<string, Mode>();

  constructor(
    private readonly cfg: OpenAiConfig,
    private readonly common: Pick<ModelConfig, 'timeoutMs' | 'retry'>,
  ) {}

  models(): ModelInfo[] {
    return this.cfg.models.map((id) => ({
      id,
      provider: 'openai' as const,
      description: `OpenAI-compatible ${id} at ${new URL(this.cfg.baseURL).host}`,
    }));
  }

  async generateJson<T>(req: GenerateJsonRequest & { model?: string }): Promise<GenerateJsonResult<T>> {
    const modelId = req.model ?? this.cfg.models[0]!;
    const { schema, wrapped } = objectSchema(req.jsonSchema);
    let mode = this.modeByModel.get(modelId) ?? 'json_schema';
    for (;;) {
      try {
        const res = await this.call(this.body(req, modelId, schema, mode), req, modelId);
        this.modeByModel.set(modelId, mode);
        const choice = res.choices?.[0];
        if (choice?.message?.refusal) {
          throw new ModelError('invalid_model_output', `openai model ${modelId} refused: ${choice.message.refusal}`, {
            provider: PROVIDER,
            modelId,
            retryable: false,
          });
        }
        const content = choice?.message?.content ?? '';
        if (choice?.finish_reason === 'length') {
          throw new ModelError(
            'invalid_model_output',
            `openai model ${modelId} hit max_tokens before finishing its answer`,
            { provider: PROVIDER, modelId, retryable: false },
          );
        }
        const parsed = parseJsonText(content, { provider: PROVIDER, modelId });
        const value = wrapped ? (parsed as { result?: unknown })?.result : parsed;
        const output = checkOutput<T>(req.jsonSchema, value, { provider: PROVIDER, modelId, raw: res });
        return {
          output,
          usage: { inputTokens: res.usage?.prompt_tokens ?? 0, outputTokens: res.usage?.completion_tokens ?? 0 },
          modelId,
          raw: res,
        };
      } catch (err) {
        const next = MODES[MODES.indexOf(mode) + 1];
        const status = err instanceof ModelError ? err.details.status : undefined;
        if (next && (status === 400 || status === 422)) {
          mode = next;
          continue;
        }
        throw err;
      }
    }
  }

  private body(req: GenerateJsonRequest, model: string, schema: object, mode: Mode): Record<string, unknown> {
    const schemaText = `Reply with one JSON value only, no prose, that validates against this JSON Schema:\n${JSON.stringify(schema)}`;
    const system = mode === 'json_schema' ? req.system : `${req.system}\n\n${schemaText}`;
    return {
      model,
      messages: [
        { role: 'system', content: system },
        { role: 'user', content: req.prompt },
      ],
      temperature: 0,
      max_tokens: req.maxTokens ?? MAX_TOKENS[req.reasoningLevel],
      ...(mode === 'json_schema'
        ? { response_format: { type: 'json_schema', json_schema: { name: 'result', schema, strict: false } } }
        : {}),
      ...(mode === 'json_object' ? { response_format: { type: 'json_object' } } : {}),
      ...(this.cfg.reasoningEffort ? { reasoning_effort: OPENAI_REASONING_EFFORT[req.reasoningLevel] } : {}),
    };
  }

  private call(body: Record<string, unknown>, req: GenerateJsonRequest, modelId: string): Promise<ChatCompletion> {
    return withRetries(
      async ({ signal }) => {
        const res = await fetch(`${this.cfg.baseURL}/chat/completions`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            ...(this.cfg.apiKey ? { authorization: `Bearer ${this.cfg.apiKey}` } : {}),
          },
          body: JSON.stringify(body),
          signal,
        });
        const text = await res.text();
        let json: unknown;
        try {
          json = text ? JSON.parse(text) : undefined;
        } catch {
          json = undefined;
        }
        if (!res.ok) {
          const msg = (json as { error?: { message?: string } | string })?.error;
          const message = typeof msg === 'string' ? msg : (msg?.message ?? (text.slice(0, 200) || res.statusText));
          throw new HttpStatusError(res.status, message, res.headers, json);
        }
        if (json === undefined)
          throw new ModelError(
            'invalid_model_output',
            `openai model ${modelId} answered with a body that is not JSON`,
            { provider: PROVIDER, modelId, retryable: true },
          );
        return json as ChatCompletion;
      },
      classifyFetchError,
      {
        policy: this.common.retry,
        timeoutMs: req.timeoutMs ?? this.common.timeoutMs,
        signal: req.signal,
        provider: PROVIDER,
        modelId,
      },
    );
  }
}

export function classifyFetchError(err: unknown): AttemptFailure {
  if (err instanceof HttpStatusError) {
    return {
      retryable: isRetryableStatus(err.status),
      status: err.status,
      message: err.message,
      retryAfterMs: parseRetryAfter((n) => err.headers.get(n)),
      cause: err,
    };
  }
  // fetch rejects with TypeError("fetch failed") for refused/reset connections and DNS failures.
  // (checked by name: under jest the error comes from another realm, so instanceof fails)
  const e = err as { name?: unknown; message?: unknown } | null;
  if (e && typeof e === 'object' && e.name === 'TypeError') {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    return { retryable: true, message: cause?.code ?? cause?.message ?? String(e.message), cause: err };
  }
  return { retryable: false, message: e && typeof e.message === 'string' ? e.message : String(err), cause: err };
}
