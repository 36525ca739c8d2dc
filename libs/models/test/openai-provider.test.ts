// The OpenAI-compatible provider (plain fetch) against a local chat-completions server.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolveModel } from '../src';
import { startFakeOpenAiServer, type FakeOpenAiServer } from '../src/testing';
import { baseReq, fastConfig } from './helpers/config';

describe('OpenAI-compatible provider (fetch → fake chat completions)', () => {
  let server: FakeOpenAiServer;
  let legacy: FakeOpenAiServer;
  beforeAll(async () => {
    server = await startFakeOpenAiServer({ apiKey: 'sk-test', models: ['llama3'] });
    legacy = await startFakeOpenAiServer({ supportsJsonSchema: false });
  });
  afterAll(async () => {
    await server.close();
    await legacy.close();
  });
  beforeEach(() => {
    server.reset();
    legacy.reset();
  });

  const model = (url = server.url, extra: NodeJS.ProcessEnv = {}) =>
    resolveModel(
      fastConfig({ OPENAI_BASE_URL: `${url}/v1`, OPENAI_API_KEY: 'sk-test', OPENAI_MODELS: 'llama3', ...extra }),
    );

  it('round-trips structured output with response_format json_schema', async () => {
    server.enqueue({
      reply: { json: { invoice_number: '123', total: 4.11 }, usage: { prompt_tokens: 40, completion_tokens: 9 } },
    });
    const res = await model().generateJson(baseReq);
    expect(res.output).toEqual({ invoice_number: '123', total: 4.11 });
    expect(res.usage).toEqual({ inputTokens: 40, outputTokens: 9 });
    const body = server.requests[0]!.body as {
      response_format: { type: string; json_schema: { schema: unknown } };
      messages: Array<{ role: string }>;
    };
    expect(server.requests[0]!.headers.authorization).toBe('Bearer sk-test');
    expect(body.response_format.type).toBe('json_schema');
    expect(body.response_format.json_schema.schema).toEqual(baseReq.jsonSchema);
    expect(body.messages.map((m) => m.role)).toEqual(['system', 'user']);
  });

  it('falls back to json_object with the schema in the prompt when json_schema is rejected, and remembers it', async () => {
    legacy.enqueue(
      {},
      { reply: { content: '```json\n{"invoice_number": "7", "total": 7}\n```' } },
      { reply: { json: { invoice_number: '8', total: 8 } } },
    );
    const m = model(legacy.url);
    expect((await m.generateJson(baseReq)).output).toEqual({ invoice_number: '7', total: 7 });
    expect(legacy.requests.map((r) => (r.body.response_format as { type: string }).type)).toEqual([
      'json_schema',
      'json_object',
    ]);
    const system = (legacy.requests[1]!.body.messages as Array<{ content: string }>)[0]!.content;
    expect(system).toContain('"invoice_number"');
    await m.generateJson(baseReq);
    expect((legacy.requests[2]!.body.response_format as { type: string }).type).toBe('json_object');
  });

  it('retries 429 and 500 then succeeds', async () => {
    server.enqueue(
      { status: 429, headers: { 'retry-after': '0' } },
      { status: 500 },
      { reply: { json: { invoice_number: '1', total: 2 } } },
    );
    expect((await model().generateJson(baseReq)).output).toEqual({ invoice_number: '1', total: 2 });
    expect(server.requests).toHaveLength(3);
  });

  it('waits for retry-after before retrying', async () => {
    server.enqueue(
      { status: 429, headers: { 'retry-after': '1' } },
      { reply: { json: { invoice_number: '1', total: 2 } } },
    );
    const started = Date.now();
    await model().generateJson(baseReq);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
  });

  it('times out with model_timeout', async () => {
    server.enqueue({ delayMs: 1500 });
    await expect(model().generateJson({ ...baseReq, timeoutMs: 200 })).rejects.toMatchObject({ code: 'model_timeout' });
  });

  it('raises invalid_model_output for unparseable or non-conforming content', async () => {
    server.enqueue({ reply: { content: 'Sorry, I cannot help with that' } });
    await expect(model().generateJson(baseReq)).rejects.toMatchObject({ code: 'invalid_model_output' });
    server.enqueue({ reply: { json: { invoice_number: ['x'], total: null } } });
    await expect(model().generateJson(baseReq)).rejects.toMatchObject({ code: 'invalid_model_output' });
    server.enqueue({ reply: { content: '{"invoice_number": "1", "tot', finishReason: 'length' } });
    await expect(model().generateJson(baseReq)).rejects.toMatchObject({ code: 'invalid_model_output' });
  });

  it('retries connection failures and reports model_call_failed when the server is gone', async () => {
    const dead = http.createServer();
    await new Promise<void>((r) => dead.listen(0, '127.0.0.1', r));
    const port = (dead.address() as AddressInfo).port;
    await new Promise<void>((r) => dead.close(() => r()));
    await expect(
      model(`http://127.0.0.1:${port}`, { MODEL_MAX_RETRIES: '1' }).generateJson(baseReq),
    ).rejects.toMatchObject({ code: 'model_call_failed', details: { attempts: 2 } });
  });

  it('retries a dropped connection', async () => {
    server.enqueue({ destroy: true }, { reply: { json: { invoice_number: '3', total: 3 } } });
    expect((await model().generateJson(baseReq)).output).toEqual({ invoice_number: '3', total: 3 });
  });

  it('surfaces auth and unknown-model errors without retrying', async () => {
    await expect(model(server.url, { OPENAI_API_KEY: 'nope' }).generateJson(baseReq)).rejects.toMatchObject({
      code: 'model_call_failed',
      details: { status: 401, attempts: 1 },
    });
    await expect(model(server.url, { OPENAI_MODELS: 'mistral' }).generateJson(baseReq)).rejects.toMatchObject({
      code: 'model_call_failed',
      details: { status: 404 },
    });
  });
});
