import { ModelConfigError, ModelError, ModelRegistry, readModelConfig, resolveModel } from '../src';

describe('readModelConfig / resolveModel', () => {
  it('defaults to docfleet-local when no remote provider is configured', () => {
    const cfg = readModelConfig({});
    const m = resolveModel(cfg);
    expect(m.modelId).toBe('docfleet-local');
    expect(m.provider.id).toBe('local');
    expect(new ModelRegistry(cfg).list().map((x) => x.id)).toEqual(['docfleet-local']);
  });

  it('uses the first remote model as default when one is configured, and keeps docfleet-local available', () => {
    const cfg = readModelConfig({
      ANTHROPIC_API_KEY: 'k',
      ANTHROPIC_MODELS: 'claude-a, claude-b',
      OPENAI_BASE_URL: 'http://127.0.0.1:1/v1',
      OPENAI_MODELS: 'llama3',
    });
    expect(resolveModel(cfg).modelId).toBe('claude-a');
    expect(resolveModel(cfg, 'llama3').provider.id).toBe('openai');
    expect(resolveModel(cfg, 'openai:llama3').modelId).toBe('llama3');
    expect(resolveModel(cfg, 'docfleet-local').provider.id).toBe('local');
  });

  it('honours MODEL_DEFAULT', () => {
    const cfg = readModelConfig({ ANTHROPIC_API_KEY: 'k', MODEL_DEFAULT: 'docfleet-local' });
    expect(resolveModel(cfg).modelId).toBe('docfleet-local');
  });

  it('unknown model_id → unsupported_model (HTTP 400)', () => {
    const cfg = readModelConfig({});
    let err: unknown;
    try {
      resolveModel(cfg, 'gpt-17');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ModelError);
    expect((err as ModelError).code).toBe('unsupported_model');
    expect((err as ModelError).toApiError()?.status).toBe(400);
    expect((err as ModelError).message).toMatch(/docfleet-local/);
  });

  it('MODEL_DEFAULT=none without a model_id → model_provider_unavailable (HTTP 503)', () => {
    const cfg = readModelConfig({ MODEL_DEFAULT: 'none' });
    let err: unknown;
    try {
      resolveModel(cfg);
    } catch (e) {
      err = e;
    }
    expect((err as ModelError).code).toBe('model_provider_unavailable');
    expect((err as ModelError).toApiError()?.status).toBe(503);
    // An explicit model still resolves: the offline model is always there.
    expect(resolveModel(cfg, 'docfleet-local').modelId).toBe('docfleet-local');
  });

  it('rejects bad configuration with the variable named', () => {
    expect(() => readModelConfig({ MODEL_DEFAULT: 'claude-x' })).toThrow(/MODEL_DEFAULT/);
    expect(() => readModelConfig({ OPENAI_BASE_URL: 'http://localhost:11434/v1' })).toThrow(ModelConfigError);
    expect(() => readModelConfig({ OPENAI_BASE_URL: 'http://localhost:11434/v1' })).toThrow(/OPENAI_MODELS/);
    expect(() => readModelConfig({ ANTHROPIC_BASE_URL: 'not a url', ANTHROPIC_API_KEY: 'k' })).toThrow(
      /ANTHROPIC_BASE_URL/,
    );
    expect(() => readModelConfig({ ANTHROPIC_MODELS: 'claude-a' })).toThrow(/ANTHROPIC_API_KEY/);
    expect(() => readModelConfig({ MODEL_MAX_RETRIES: '-1' })).toThrow(/MODEL_MAX_RETRIES/);
  });
});
