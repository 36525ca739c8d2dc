// The real @anthropic-ai/sdk against a local server speaking the Messages API.
import { ModelError, resolveModel } from '../src';
import { startFakeAnthropicServer, type FakeAnthropicServer } from '../src/testing';
import { baseReq, fastConfig } from './helpers/config';

describe('Anthropic provider (SDK → fake Messages API)', () => {
  let server: FakeAnthropicServer;
  beforeAll(async () => {
    server = await startFakeAnthropicServer({ apiKey: 'test-key', models: ['claude-test'] });
  });
  afterAll(() => server.close());
  beforeEach(() => server.reset());

  const model = (extra: NodeJS.ProcessEnv = {}) =>
    resolveModel(
      fastConfig({
        ANTHROPIC_API_KEY: 'test-key',
        ANTHROPIC_BASE_URL: server.url,
        ANTHROPIC_MODELS: 'claude-test,claude-gone',
        ...extra,
      }),
    );

  it('round-trips structured output through a forced tool call', async () => {
    server.enqueue({
      reply: { toolInput: { invoice_number: '123', total: 4.11 }, usage: { input_tokens: 50, output_tokens: 12 } },
    });
    const res = await model().generateJson<{ invoice_number: string; total: number }>(baseReq);
    expect(res.output).toEqual({ invoice_number: '123', total: 4.11 });
    expect(res.usage).toEqual({ inputTokens: 50, outputTokens: 12 });
    expect(res.modelId).toBe('claude-test');
    const sent = server.requests[0]!;
    expect(sent.headers['x-api-key'] ?? sent.headers.authorization).toMatch(/test-key/);
    expect(sent.body).toMatchObject({
      model: 'claude-test',
      system: 'Extract.',
      tool_choice: { type: 'tool', name: 'submit_result' },
    });
    expect((sent.body.tools as Array<{ input_schema: unknown }>)[0]!.input_schema).toEqual(baseReq.jsonSchema);
    expect(sent.body.thinking).toBeUndefined();
  });

  it('wraps non-object schemas in { result } and unwraps the answer', async () => {
    server.enqueue({ reply: { toolInput: { result: ['a', 'b'] } } });
    const res = await model().generateJson<string[]>({
      ...baseReq,
      jsonSchema: { type: 'array', items: { type: 'string' } },
    });
    expect(res.output).toEqual(['a', 'b']);
  });

  it('retries 429 (honouring retry-after) and 500, then succeeds', async () => {
    server.enqueue(
      { status: 429, headers: { 'retry-after': '0' } },
      { status: 500 },
      { status: 529 },
      { reply: { toolInput: { invoice_number: '9', total: 1 } } },
    );
    const res = await model().generateJson(baseReq);
    expect(res.output).toEqual({ invoice_number: '9', total: 1 });
    expect(server.requests).toHaveLength(4);
  });

  it('retries a dropped connection', async () => {
    server.enqueue({ destroy: true }, { reply: { toolInput: { invoice_number: '2', total: 2 } } });
    expect((await model().generateJson(baseReq)).output).toEqual({ invoice_number: '2', total: 2 });
    expect(server.requests).toHaveLength(2);
  });

  it('gives up after the retry budget with model_call_failed', async () => {
    server.enqueue(...Array.from({ length: 5 }, () => ({ status: 503 })));
    await expect(model({ MODEL_MAX_RETRIES: '2' }).generateJson(baseReq)).rejects.toMatchObject({
      code: 'model_call_failed',
      details: { status: 503, attempts: 3 },
    });
    expect(server.requests).toHaveLength(3);
  });

  it('does not retry a 400 and does not retry when retry-after exceeds the cap', async () => {
    server.enqueue({ status: 400, error: { message: 'bad request' } });
    await expect(model().generateJson(baseReq)).rejects.toMatchObject({
      code: 'model_call_failed',
      details: { status: 400, attempts: 1 },
    });
    server.reset();
    server.enqueue({ status: 429, headers: { 'retry-after': '3600' } });
    await expect(model().generateJson(baseReq)).rejects.toMatchObject({
      code: 'model_call_failed',
      details: { status: 429, attempts: 1 },
    });
  });

  it('times out per attempt with model_timeout', async () => {
    server.enqueue({ delayMs: 1500, reply: { toolInput: { invoice_number: '1', total: 1 } } });
    const started = Date.now();
    await expect(model().generateJson({ ...baseReq, timeoutMs: 200 })).rejects.toMatchObject({ code: 'model_timeout' });
    expect(Date.now() - started).toBeLessThan(1400);
  });

  it('raises invalid_model_output for output that breaks the schema or is not JSON', async () => {
    server.enqueue({ reply: { toolInput: { invoice_number: 123, total: 'four' } } });
    const err = await model()
      .generateJson(baseReq)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ModelError);
    expect((err as ModelError).code).toBe('invalid_model_output');
    expect((err as ModelError).message).toMatch(/invoice_number/);
    server.enqueue({ reply: { text: 'I think the total is four dollars.' } });
    await expect(model().generateJson(baseReq)).rejects.toMatchObject({ code: 'invalid_model_output' });
  });

  it('maps an unknown remote model to model_call_failed (404), and an unconfigured one to unsupported_model', async () => {
    const gone = resolveModel(
      fastConfig({ ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: server.url, ANTHROPIC_MODELS: 'claude-gone' }),
    );
    await expect(gone.generateJson(baseReq)).rejects.toMatchObject({
      code: 'model_call_failed',
      details: { status: 404, attempts: 1 },
    });
    expect(() =>
      resolveModel(fastConfig({ ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: server.url }), 'claude-unknown'),
    ).toThrow(expect.objectContaining({ code: 'unsupported_model' }));
  });

  it('thinks at medium reasoning (tool_choice auto) and falls back to a forced call when the model answers in prose', async () => {
    server.enqueue(
      { reply: { text: 'Let me explain instead.' } },
      { reply: { toolInput: { invoice_number: '5', total: 5 } } },
    );
    const res = await model().generateJson({ ...baseReq, reasoningLevel: 'medium' });
    expect(res.output).toEqual({ invoice_number: '5', total: 5 });
    expect(server.requests[0]!.body).toMatchObject({
      thinking: { type: 'enabled', budget_tokens: 2048 },
      tool_choice: { type: 'auto' },
      max_tokens: 8192 + 2048,
    });
    expect(server.requests[1]!.body).toMatchObject({ tool_choice: { type: 'tool' } });
    expect(server.requests[1]!.body.thinking).toBeUndefined();
  });

  it('cancels through the caller signal', async () => {
    server.enqueue({ delayMs: 1000 });
    const ctl = new AbortController();
    setTimeout(() => ctl.abort(), 50);
    await expect(model().generateJson({ ...baseReq, signal: ctl.signal })).rejects.toMatchObject({
      code: 'model_cancelled',
    });
  });

  it('rejects a wrong API key without retrying', async () => {
    await expect(
      resolveModel(
        fastConfig({ ANTHROPIC_API_KEY: 'wrong', ANTHROPIC_BASE_URL: server.url, ANTHROPIC_MODELS: 'claude-test' }),
      ).generateJson(baseReq),
    ).rejects.toMatchObject({ code: 'model_call_failed', details: { status: 401, attempts: 1 } });
  });
});
