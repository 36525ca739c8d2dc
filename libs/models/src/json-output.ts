// Turning model text into checked JSON. Every provider's output goes through `checkOutput`, so a
// caller of generateJson always gets an object that satisfies its JSON schema, or an
// `invalid_model_output` error carrying the validation messages.
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import { ModelError } from './errors';

// strict: false because callers' schemas carry annotations (description, examples) and formats
// ajv does not know; formats are not asserted (Draft 2020-12 treats them as annotations anyway).
const ajv = new Ajv2020({ allErrors: true, strict: false, validateFormats: false, logger: false });
const cache = new WeakMap<object, ValidateFunction>();

export function validatorFor(schema: object): ValidateFunction {
  let v = cache.get(schema);
  if (!v) {
    // Earlier drafts' `$schema` URIs are not registered with the 2020 instance; the keywords
    // docfleet's schemas use mean the same in every draft, so the declaration is dropped.
    const { $schema: _ignored, ...rest } = schema as Record<string, unknown>;
    try {
      v = ajv.compile(rest);
    } catch (err) {
      throw new ModelError('model_call_failed', `jsonSchema does not compile: ${(err as Error).message}`, {
        retryable: false,
        cause: err,
      });
    }
    cache.set(schema, v);
  }
  return v;
}

export interface SchemaIssue {
  path: string;
  message: string;
}

export function schemaIssues(schema: object, value: unknown): SchemaIssue[] {
  const v = validatorFor(schema);
  if (v(value)) return [];
  return (v.errors ?? []).map((e) => ({ path: e.instancePath || '/', message: e.message ?? 'invalid' }));
}

export function checkOutput<T>(
  schema: object,
  value: unknown,
  ctx: { provider: string; modelId: string; raw?: unknown },
): T {
  const issues = schemaIssues(schema, value);
  if (issues.length) {
    const first = issues
      .slice(0, 3)
      .map((i) => `${i.path} ${i.message}`)
      .join('; ');
    throw new ModelError(
      'invalid_model_output',
      `${ctx.provider} model ${ctx.modelId} returned JSON that does not match the schema: ${first}`,
      {
        provider: ctx.provider,
        modelId: ctx.modelId,
        retryable: true,
        cause: { issues, raw: ctx.raw },
      },
    );
  }
  return value as T;
}

/**
 * Parses JSON a model wrote as text: tolerates a Markdown code fence and prose around one
 * top-level object or array (small local models often add a sentence before the JSON).
 */
export function parseJsonText(text: string, ctx: { provider: string; modelId: string }): unknown {
  const trimmed = text.trim();
  const fenced = /```(?:json)?\s*([\s\S]*?)```/i.exec(trimmed);
  const candidates = [trimmed, fenced?.[1]?.trim(), outermost(trimmed, '{', '}'), outermost(trimmed, '[', ']')];
  for (const c of candidates) {
    if (!c) continue;
    try {
      return JSON.parse(c);
    } catch {
      /* try the next reading */
    }
  }
  throw new ModelError(
    'invalid_model_output',
    `${ctx.provider} model ${ctx.modelId} did not return parseable JSON (${trimmed.length} chars: ${JSON.stringify(trimmed.slice(0, 80))})`,
    {
      provider: ctx.provider,
      modelId: ctx.modelId,
      retryable: true,
      cause: { raw: text },
    },
  );
}

function outermost(s: string, open: string, close: string): string | undefined {
  const a = s.indexOf(open);
  const b = s.lastIndexOf(close);
  return a >= 0 && b > a ? s.slice(a, b + 1) : undefined;
}

/** Tool/`json_schema` inputs must be objects; other schemas are wrapped as `{ result: ... }`. */
export function objectSchema(schema: object): { schema: object; wrapped: boolean } {
  const s = schema as { type?: unknown };
  if (s.type === 'object') return { schema, wrapped: false };
  return {
    schema: { type: 'object', properties: { result: schema }, required: ['result'], additionalProperties: false },
    wrapped: true,
  };
}
