// Resolves a request's `model_id` (or the deployment default) to a provider pinned to one model.
// Unknown ids are the caller's mistake (400 unsupported_model); having no default at all is the
// deployment's (503 model_provider_unavailable).
import { LOCAL_MODEL_ID, type ModelConfig } from './config';
import { ModelError } from './errors';
import { AnthropicProvider } from './providers/anthropic';
import { OpenAiCompatibleProvider } from './providers/openai-compatible';
import { LocalProvider } from './local/local-provider';
import type { GenerateJsonRequest, ModelInfo, ModelProvider, ResolvedModel } from './types';

type ProviderName = 'anthropic' | 'openai' | 'local';

export class ModelRegistry {
  readonly providers: ModelProvider[];

  constructor(
    readonly config: ModelConfig,
    providers?: ModelProvider[],
  ) {
    this.providers = providers ?? [
      ...(config.anthropic ? [new AnthropicProvider(config.anthropic, config)] : []),
      ...(config.openai ? [new OpenAiCompatibleProvider(config.openai, config)] : []),
      new LocalProvider(),
    ];
  }

  list(): ModelInfo[] {
    return this.providers.flatMap((p) => p.models());
  }

  /** The default model id, or undefined when MODEL_DEFAULT=none. */
  defaultModelId(): string | undefined {
    const d = this.config.defaultModel;
    if (d === 'none') return undefined;
    if (d) return d;
    // No explicit default: the first remote model, else the offline model.
    const remote = this.providers.find((p) => p.id !== 'local');
    return remote?.models()[0]?.id ?? LOCAL_MODEL_ID;
  }

  resolve(modelId?: string | null): ResolvedModel {
    const requested = modelId?.trim() || undefined;
    const id = requested ?? this.defaultModelId();
    if (!id) {
      throw new ModelError(
        'model_provider_unavailable',
        'No default model is configured (MODEL_DEFAULT=none); pass model_id or configure a provider',
      );
    }
    const m = /^(anthropic|openai|local):(.+)$/.exec(id);
    const [providerName, bare] = m ? [m[1] as ProviderName, m[2]!] : [undefined, id];
    const provider = this.providers.find(
      (p) => (!providerName || p.id === providerName) && p.models().some((x) => x.id === bare),
    );
    if (!provider) {
      const known = this.list()
        .map((x) => x.id)
        .join(', ');
      if (!requested)
        throw new ModelError(
          'model_provider_unavailable',
          `The default model ${id} is not available (configured: ${known})`,
        );
      throw new ModelError(
        'unsupported_model',
        `model_id ${JSON.stringify(id)} is not available on this deployment (available: ${known})`,
      );
    }
    return {
      modelId: bare,
      provider,
      generateJson: <T>(req: GenerateJsonRequest) => provider.generateJson<T>({ ...req, model: bare }),
    };
  }
}

const registries = new WeakMap<ModelConfig, ModelRegistry>();

/** Resolves through a registry built once per config object (SDK clients are reused). */
export function resolveModel(config: ModelConfig, modelId?: string | null): ResolvedModel {
  let r = registries.get(config);
  if (!r) registries.set(config, (r = new ModelRegistry(config)));
  return r.resolve(modelId);
}
