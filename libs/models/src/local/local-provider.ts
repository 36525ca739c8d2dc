// docfleet-local: the built-in offline model. Deterministic layout and text heuristics, no network,
// no weights. It answers the same requests as the remote providers, reading the structured
// `evidence` and `input` instead of the prompt, and its output is checked against the request's
// JSON schema like any model's.
import { LOCAL_MODEL_ID } from '../config';
import { ModelError } from '../errors';
import { checkOutput } from '../json-output';
import type { GenerateJsonRequest, GenerateJsonResult, ModelInfo, ModelProvider } from '../types';
import type { ClassDefinition, SplitRule } from '../tasks/outputs';
import type { FieldListSchema } from '../tasks/field-schema';
import { localClassify } from './classify/classify';
import { localSuggestClasses } from './classify/suggest-classes';
import { localEdit } from './edit/edit';
import { localExtract } from './extract/extract';
import { localGenerateSchema } from './schema/generate-schema';
import { localSplit } from './split/split';
import { localSuggestSplitRules } from './split/suggest-rules';

const PROVIDER = 'local';

export class LocalProvider implements ModelProvider {
  readonly id = PROVIDER;

  models(): ModelInfo[] {
    return [
      {
        id: LOCAL_MODEL_ID,
        provider: 'local',
        description: 'Built-in offline model: deterministic layout and text heuristics',
      },
    ];
  }

  async generateJson<T>(req: GenerateJsonRequest & { model?: string }): Promise<GenerateJsonResult<T>> {
    if (req.signal?.aborted)
      throw new ModelError('model_cancelled', 'docfleet-local call was cancelled', {
        provider: PROVIDER,
        modelId: LOCAL_MODEL_ID,
      });
    const ev = req.evidence ?? { segments: [] };
    const input = req.input ?? {};
    const need = <K extends string>(key: K): unknown => {
      if (input[key] === undefined) {
        throw new ModelError(
          'model_call_failed',
          `docfleet-local needs input.${key} for task ${req.task} (build the request with the tasks/ helpers)`,
          { provider: PROVIDER, modelId: LOCAL_MODEL_ID, retryable: false },
        );
      }
      return input[key];
    };
    let output: unknown;
    switch (req.task) {
      case 'extract':
        output = localExtract(ev, need('schema') as FieldListSchema);
        break;
      case 'split':
        output = localSplit(ev, (input.rules as SplitRule[] | undefined) ?? []);
        break;
      case 'split_rules':
        output = localSuggestSplitRules(ev);
        break;
      case 'classify':
        output = localClassify(ev, need('classes') as Array<string | ClassDefinition>, {
          multiLabel: input.multiLabel === true,
        });
        break;
      case 'classify_suggest':
        output = localSuggestClasses(ev, typeof input.guidelines === 'string' ? input.guidelines : '');
        break;
      case 'edit':
        output = localEdit(ev, String(need('prompt')), (input.rules as string[] | undefined) ?? []);
        break;
      case 'schema_generate':
        output = localGenerateSchema(ev, typeof input.title === 'string' ? input.title : '');
        break;
      default:
        throw new ModelError('model_call_failed', `docfleet-local does not know task ${String(req.task)}`, {
          provider: PROVIDER,
          modelId: LOCAL_MODEL_ID,
          retryable: false,
        });
    }
    const checked = checkOutput<T>(req.jsonSchema, output, { provider: PROVIDER, modelId: LOCAL_MODEL_ID });
    // Token counts are estimates (4 characters a token) so usage reporting has the same shape.
    const inputChars = req.prompt.length + req.system.length;
    return {
      output: checked,
      usage: { inputTokens: Math.ceil(inputChars / 4), outputTokens: Math.ceil(JSON.stringify(output).length / 4) },
      modelId: LOCAL_MODEL_ID,
    };
  }
}
