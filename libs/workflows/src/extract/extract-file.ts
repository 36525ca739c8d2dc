// The file-job path of extraction (docs/api.md, "Extraction results"; "Extraction document (file-job path, artifact
// result_json)"): a JSON Schema in, one model call over the scoped evidence, then what the
// operation path does not do — Draft 2020-12 validation of the result, citations resolved against
// the grounding, missing values marked, node confidence the minimum of its citations, and a
// measured duration. The workflow worker runs it between its job stages; the eval runs it too.
import Ajv2020 from 'ajv/dist/2020';
import type { api, GroundingDocument, Segment } from '@docfleet/contracts';
import {
  buildEvidence,
  buildExtractRequest,
  DEFAULT_CONTEXT_CHARS,
  renderSegments,
  segmentPage,
  type Citation,
  type ExtractOutput,
  type ModelWarning,
  type ReasoningLevel,
  type ResolvedModel,
} from '@docfleet/models';
import { buildResultTree } from './result-tree';
import { GroundingIndex, scalarPaths, type GroundedCitation } from './grounding-citations';
import { jsonSchemaToFields, toSchemaKeys, toSchemaPath, type MappedField } from './json-schema-fields';

export type ExtractStage = 'build-evidence' | 'extract' | 'validate';

export interface ExtractFileInput {
  jsonSchema: Record<string, unknown>;
  schemaName: string;
  /** Every segment of the parse, and the ones the scope selected. */
  allSegments: Segment[];
  segments: Segment[];
  grounding?: GroundingDocument;
  pageCount: number;
  model: ResolvedModel;
  reasoningLevel?: ReasoningLevel;
  signal?: AbortSignal;
  /**
   * Called when each stage starts; the worker records progress and checks for a cancel there.
   * The 'extract' call comes immediately before the model call.
   */
  stage?: (s: ExtractStage) => Promise<void>;
}

const ajv = new Ajv2020({ allErrors: true, strict: false, validateFormats: false, logger: false });

/** Compiles a caller's JSON Schema as Draft 2020-12 (its own `$schema` and `$id` are set aside). Throws on an invalid schema. */
export function compileJsonSchema(schema: Record<string, unknown>) {
  // eslint-disable-next-line @typescript-eslint/no-unused-vars
  const { $schema: _s, $id: _i, ...rest } = schema;
  return ajv.compile(rest);
}

/** Why a JSON Schema cannot be used for extraction, or null when it can. */
export function jsonSchemaProblem(schema: Record<string, unknown>): string | null {
  try {
    compileJsonSchema(schema);
  } catch (err) {
    return `not a valid JSON Schema: ${(err as Error).message}`;
  }
  return jsonSchemaToFields(schema).length
    ? null
    : 'the schema has no properties to extract (give it type object and properties)';
}

const isEmpty = (v: unknown) => v === null || v === undefined || v === '' || (Array.isArray(v) && v.length === 0);

function validate(
  schema: Record<string, unknown>,
  data: unknown,
): { errors: api.ValidationError[]; compileError?: string } {
  let fn;
  try {
    fn = compileJsonSchema(schema);
  } catch (err) {
    return { errors: [], compileError: (err as Error).message };
  }
  if (fn(data)) return { errors: [] };
  return {
    errors: (fn.errors ?? []).map((e) => {
      const missing = e.keyword === 'required' ? (e.params as { missingProperty?: string }).missingProperty : undefined;
      const path = missing
        ? `${e.instancePath}/${missing.replace(/~/g, '~0').replace(/\//g, '~1')}`
        : e.instancePath || '/';
      return { path, message: `${e.instancePath || '/'} ${e.message ?? 'is invalid'}` };
    }),
  };
}

/** Required fields without a value, walking objects and table rows. */
function missingRequired(fields: MappedField[], value: Record<string, unknown>, base = ''): api.Warning[] {
  const out: api.Warning[] = [];
  for (const f of fields) {
    const v = value?.[f.original];
    const path = `${base}/${f.original}`;
    if (f.required && isEmpty(v)) {
      out.push({
        code: 'required_value_missing',
        message: `Required field '${f.original}' has no value in the evidence.`,
        path,
      });
      continue;
    }
    if (f.children?.length && v && typeof v === 'object') {
      if (Array.isArray(v))
        v.forEach((row, i) =>
          out.push(...missingRequired(f.children!, row as Record<string, unknown>, `${path}/${i}`)),
        );
      else out.push(...missingRequired(f.children, v as Record<string, unknown>, path));
    }
  }
  return out;
}

/** The field list the result tree walks: keys as the caller's schema names them, ids from normalised paths. */
function treeFields(fields: MappedField[]): MappedField[] {
  return fields.map((f) => ({ ...f, name: f.original, ...(f.children ? { children: treeFields(f.children) } : {}) }));
}

export async function runExtractFile(input: ExtractFileInput): Promise<api.ExtractionDocument> {
  const started = performance.now();
  await input.stage?.('build-evidence');
  const fields = jsonSchemaToFields(input.jsonSchema);
  const evidence = buildEvidence(input.segments, input.grounding);
  const title = typeof input.jsonSchema.title === 'string' ? input.jsonSchema.title : input.schemaName;
  const fieldList = {
    version: 1,
    title,
    description: typeof input.jsonSchema.description === 'string' ? input.jsonSchema.description : '',
    fields,
  };
  const req = buildExtractRequest({
    evidence,
    schema: fieldList,
    reasoningLevel: input.reasoningLevel ?? 'medium',
    ...(input.signal ? { signal: input.signal } : {}),
  });

  await input.stage?.('extract');
  const res = await input.model.generateJson<ExtractOutput>(req);

  await input.stage?.('validate');
  const modelResult = (res.output.jsonResult ?? {}) as Record<string, unknown>;
  const data = toSchemaKeys(fields, modelResult);
  const index = new GroundingIndex(input.segments, input.grounding);
  const citations: GroundedCitation[] = [];
  const cited = new Set<string>();
  for (const c of (res.output.citations ?? []) as Citation[]) {
    if (!c || typeof c.path !== 'string') continue;
    const path = toSchemaPath(fields, c.path);
    const value = path
      .split('/')
      .filter(Boolean)
      .reduce<unknown>(
        (v, k) =>
          v && typeof v === 'object'
            ? (v as Record<string, unknown>)[k.replace(/~1/g, '/').replace(/~0/g, '~')]
            : undefined,
        data,
      );
    citations.push(index.resolve({ ...c, path }, value));
    cited.add(path);
  }
  for (const { path, value } of scalarPaths(data)) {
    if (cited.has(path)) continue;
    const found = index.find(path, value);
    if (found) citations.push(found);
  }

  const { errors: validationErrors, compileError } = validate(input.jsonSchema, data);
  const warnings: api.Warning[] = [
    ...((res.output.warnings ?? []) as ModelWarning[]).map((w) => ({
      code: w.code,
      message: w.message,
      ...(w.path ? { path: toSchemaPath(fields, w.path) } : {}),
    })),
    ...(compileError
      ? [{ code: 'schema_validation_error', message: `The schema could not be compiled: ${compileError}` }]
      : []),
    ...validationErrors.map((e) => ({ code: 'schema_validation_error', message: e.message, path: e.path })),
    ...missingRequired(fields, data),
  ];
  const resultTree = buildResultTree(treeFields(fields), data, citations, { confidence: 'min', markMissing: true });

  return {
    schema: input.jsonSchema,
    data,
    jsonResult: data,
    resultTree,
    citations,
    evidence: input.segments.map((s) => ({
      segmentId: s.id,
      pageNumber: segmentPage(s),
      title: s.title,
      elementIds: s.elementIds ?? [s.id],
      coordinates: s.coordinates,
    })),
    warnings,
    metrics: {
      segmentCount: input.allSegments.length,
      selectedSegmentCount: input.segments.length,
      pageCount: input.pageCount,
      contextChars: renderSegments(evidence, DEFAULT_CONTEXT_CHARS).used,
      modelCalls: 1,
      durationMs: Math.round(performance.now() - started),
      timedOut: false,
      extractedFieldCount: Object.keys(data).length,
      citationCount: citations.length,
    },
    validationErrors,
    schema_name: input.schemaName,
    modelId: res.modelId,
  };
}
