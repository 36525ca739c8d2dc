// Anthropic through @anthropic-ai/sdk. Structured output is a single tool whose input_schema is the
// requested JSON schema; the model is made to call it (tool_choice forced). Extended thinking is
// incompatible with a forced tool_choice, so at medium/high reasoning the tool is offered with
// tool_choice auto; if the model then answers in prose instead, one forced call without thinking
// follows (usage of both calls is reported).
import Anthropic from '@anthropic-ai/sdk';
import type { AnthropicConfig, ModelConfig } from '../config';
import { ModelError } from '../errors';
import { checkOutput, objectSchema, parseJsonText } from '../json-output';
import { isRetryableStatus, parseRetryAfter, withRetries, type AttemptFailure } from '../retry';
import type { GenerateJsonRequest, GenerateJsonResult, ModelInfo, ModelProvider, Usage } from '../types';
import { ANTHROPIC_THINKING_BUDGET, MAX_TOKENS } from './reasoning';

const TOOL_NAME = 'submit_result';
const PROVIDER = 'anthropic';

type Message = Anthropic.Messages.Message;
type CreateParams = Anthropic.Messages.MessageCreateParamsNonStreaming;

export class AnthropicProvider implements ModelProvider {
  readonly id = PROVIDER;
  private readonly client: Anthropic;

  constructor(
    private readonly cfg: AnthropicConfig,
    private readonly common: Pick<ModelConfig, 'timeoutMs' | 'retry'>,
  ) {
    this.client = new Anthropic({
      apiKey: cfg.apiKey,
      ...(cfg.baseURL ? { baseURL: cfg.baseURL } : {}),
      maxRetries: 0,
    });
  }

  models(): ModelInfo[] {
    return this.cfg.models.map((id) => ({ id, provider: 'anthropic' as const, description: `Anthropic ${id}` }));
  }

  async generateJson<T>(req: GenerateJsonRequest & { model?: string }): Promise<GenerateJsonResult<T>> {
    const modelId = req.model ?? this.cfg.models[0]!;
    const { schema, wrapped } = objectSchema(req.jsonSchema);
    const maxTokens = req.maxTokens ?? MAX_TOKENS[req.reasoningLevel];
    const budget = this.cfg.thinking ? ANTHROPIC_THINKING_BUDGET[req.reasoningLevel] : 0;
    const tool = {
      name: TOOL_NAME,
      description: 'Submit the answer. The input must follow the schema exactly.',
      input_schema: schema as Anthropic.Messages.Tool.InputSchema,
    };
    const base = {
      model: modelId,
      system: req.system,
      messages: [{ role: 'user' as const, content: req.prompt }],
      tools: [tool],
    };
    // No temperature: this SDK generation no longer takes one (deprecated by the API); determinism comes
    // from the forced tool call and the schema.
    const forced: CreateParams = { ...base, max_tokens: maxTokens, tool_choice: { type: 'tool', name: TOOL_NAME } };
    const thinking: CreateParams = {
      ...base,
      max_tokens: maxTokens + budget,
      thinking: { type: 'enabled', budget_tokens: budget },
      tool_choice: { type: 'auto' },
      system: `${req.system}\n\nAnswer by calling the ${TOOL_NAME} tool exactly once.`,
    };

    const usage: Usage = { inputTokens: 0, outputTokens: 0 };
    let msg = await this.call(budget > 0 ? thinking : forced, req, modelId, usage);
    let input = toolInput(msg);
    if (input === undefined && budget > 0) {
      msg = await this.call(forced, req, modelId, usage);
      input = toolInput(msg);
    }
    if (input === undefined) {
      const text = msg.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('\n');
      if (msg.stop_reason === 'max_tokens') {
        throw new ModelError(
          'invalid_model_output',
          `anthropic model ${modelId} hit max_tokens (${maxTokens}) before finishing its answer`,
          { provider: PROVIDER, modelId, retryable: false },
        );
      }
      input = parseJsonText(text, { provider: PROVIDER, modelId });
    }
    const value = wrapped ? (input as { result?: unknown })?.result : input;
    const output = checkOutput<T>(req.jsonSchema, value, { provider: PROVIDER, modelId, raw: msg });
    return { output, usage, modelId, raw: msg };
  }

  private async call(params: CreateParams, req: GenerateJsonRequest, modelId: string, usage: Usage): Promise<Message> {
    const timeoutMs = req.timeoutMs ?? this.common.timeoutMs;
    const msg = await withRetries(
      // The SDK's own timeout is set past ours so that our timer (which knows it is a timeout) fires first.
      ({ signal }) => this.client.messages.create(params, { signal, timeout: timeoutMs + 1000, maxRetries: 0 }),
      classifyAnthropicError,
      { policy: this.common.retry, timeoutMs, signal: req.signal, provider: PROVIDER, modelId },
    );
    usage.inputTokens += msg.usage?.input_tokens ?? 0;
    usage.outputTokens += msg.usage?.output_tokens ?? 0;
    return msg;
  }
}

function toolInput(msg: Message): unknown {
  const block = msg.content.find((b) => b.type === 'tool_use' && b.name === TOOL_NAME);
  return block && block.type === 'tool_use' ? block.input : undefined;
}

export function classifyAnthropicError(err: unknown): AttemptFailure {
  if (err instanceof Anthropic.APIConnectionError) return { retryable: true, message: err.message, cause: err };
  if (err instanceof Anthropic.APIError) {
    const status = err.status;
    const body = err.error as { error?: { type?: string; message?: string } } | undefined;
    const message = body?.error?.message ?? err.message;
    // 529 "overloaded_error" is Anthropic's own 5xx; `x-should-retry` lets the server overrule us.
    const should = err.headers?.get('x-should-retry');
    const retryable = should === 'true' ? true : should === 'false' ? false : isRetryableStatus(status);
    return {
      retryable,
      status,
      message,
      retryAfterMs: err.headers ? parseRetryAfter((n) => err.headers!.get(n)) : undefined,
      cause: err,
    };
  }
  return { retryable: false, message: err instanceof Error ? err.message : String(err), cause: err };
}
