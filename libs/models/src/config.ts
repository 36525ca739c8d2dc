// Deployment configuration of the model layer, read once from the environment. Available models are
// configuration, not a fixed list (README, "Configuration"). Problems fail start-up with one line naming
// the variable, like every other docfleet setting.
import { DEFAULT_RETRY_POLICY, DEFAULT_TIMEOUT_MS, type RetryPolicy } from './retry';

export const LOCAL_MODEL_ID = 'docfleet-local';
export const DEFAULT_ANTHROPIC_MODELS = ['claude-sonnet-4-5'];

export interface AnthropicConfig {
  apiKey: string;
  baseURL?: string;
  models: string[];
  /** Use extended thinking at reasoning levels medium/high (ANTHROPIC_THINKING, default on). */
  thinking: boolean;
}

export interface OpenAiConfig {
  baseURL: string;
  apiKey?: string;
  models: string[];
  /** Send `reasoning_effort` (OPENAI_REASONING_EFFORT, default off: many self-hosted servers reject unknown fields). */
  reasoningEffort: boolean;
}

export interface ModelConfig {
  /** MODEL_DEFAULT: a model id, 'none' (no default), or undefined (pick automatically). */
  defaultModel?: string;
  anthropic?: AnthropicConfig;
  openai?: OpenAiConfig;
  /** Per-attempt timeout for remote calls (MODEL_TIMEOUT_MS). */
  timeoutMs: number;
  retry: RetryPolicy;
}

export class ModelConfigError extends Error {
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(`${variable}: ${message}`);
    this.name = 'ModelConfigError';
  }
}

const list = (v: string | undefined) =>
  (v ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
const blank = (v: string | undefined) => v === undefined || v.trim() === '';

function flag(env: NodeJS.ProcessEnv, name: string, dflt: boolean): boolean {
  const v = env[name]?.trim().toLowerCase();
  if (!v) return dflt;
  if (['1', 'true', 'yes', 'on'].includes(v)) return true;
  if (['0', 'false', 'no', 'off'].includes(v)) return false;
  throw new ModelConfigError(name, `expected true/false, got ${JSON.stringify(env[name])}`);
}

function positiveInt(env: NodeJS.ProcessEnv, name: string, dflt: number, min = 1): number {
  const v = env[name];
  if (blank(v)) return dflt;
  const n = Number(v);
  if (!Number.isInteger(n) || n < min)
    throw new ModelConfigError(name, `expected an integer ≥ ${min}, got ${JSON.stringify(v)}`);
  return n;
}

function url(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const v = env[name]?.trim();
  if (!v) return undefined;
  try {
    const u = new URL(v);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('not http(s)');
  } catch {
    throw new ModelConfigError(name, `expected an http(s) URL, got ${JSON.stringify(v)}`);
  }
  return v.replace(/\/+$/, '');
}

export function readModelConfig(env: NodeJS.ProcessEnv = process.env): ModelConfig {
  const cfg: ModelConfig = {
    timeoutMs: positiveInt(env, 'MODEL_TIMEOUT_MS', DEFAULT_TIMEOUT_MS),
    retry: {
      ...DEFAULT_RETRY_POLICY,
      maxRetries: positiveInt(env, 'MODEL_MAX_RETRIES', DEFAULT_RETRY_POLICY.maxRetries, 0),
    },
  };
  const anthropicUrl = url(env, 'ANTHROPIC_BASE_URL');
  if (!blank(env.ANTHROPIC_API_KEY)) {
    const models = list(env.ANTHROPIC_MODELS);
    cfg.anthropic = {
      apiKey: env.ANTHROPIC_API_KEY!.trim(),
      ...(anthropicUrl ? { baseURL: anthropicUrl } : {}),
      models: models.length ? models : DEFAULT_ANTHROPIC_MODELS,
      thinking: flag(env, 'ANTHROPIC_THINKING', true),
    };
  } else if (!blank(env.ANTHROPIC_MODELS)) {
    throw new ModelConfigError('ANTHROPIC_API_KEY', 'ANTHROPIC_MODELS is set but ANTHROPIC_API_KEY is missing');
  }
  const openaiUrl = url(env, 'OPENAI_BASE_URL');
  if (openaiUrl) {
    const models = list(env.OPENAI_MODELS);
    // Self-hosted servers name models freely (Ollama "llama3.1:8b", vLLM the HF repo id), so there
    // is no sensible default: the list must be given.
    if (!models.length)
      throw new ModelConfigError(
        'OPENAI_MODELS',
        'OPENAI_BASE_URL is set but OPENAI_MODELS (comma-separated model ids) is empty',
      );
    cfg.openai = {
      baseURL: openaiUrl,
      ...(blank(env.OPENAI_API_KEY) ? {} : { apiKey: env.OPENAI_API_KEY!.trim() }),
      models,
      reasoningEffort: flag(env, 'OPENAI_REASONING_EFFORT', false),
    };
  } else if (!blank(env.OPENAI_MODELS)) {
    throw new ModelConfigError('OPENAI_BASE_URL', 'OPENAI_MODELS is set but OPENAI_BASE_URL is missing');
  }
  const dflt = env.MODEL_DEFAULT?.trim();
  if (dflt) {
    const known = [LOCAL_MODEL_ID, ...(cfg.anthropic?.models ?? []), ...(cfg.openai?.models ?? [])];
    const bare = dflt.replace(/^(anthropic|openai|local):/, '');
    if (dflt !== 'none' && !known.includes(bare)) {
      throw new ModelConfigError(
        'MODEL_DEFAULT',
        `${JSON.stringify(dflt)} is not a configured model (known: none, ${known.join(', ')})`,
      );
    }
    cfg.defaultModel = dflt;
  }
  return cfg;
}
