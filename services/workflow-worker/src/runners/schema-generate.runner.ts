import { createHash } from 'node:crypto';
import type { api } from '@docfleet/contracts';
import { isUniqueViolation, type Prisma } from '@docfleet/db';
import {
  buildSchemaGenerateRequest,
  DEFAULT_CONTEXT_CHARS,
  fieldListToJsonSchema,
  renderSegments,
  type ReasoningLevel,
  type SchemaGenerateOutput,
} from '@docfleet/models';
import { loadSegmentsWithin, normalizedForStorage } from '@docfleet/workflows';
import type { RunContext } from './types';

/** One saved schema per operation: its id is derived from the operation, so a re-run after a crash updates that row instead of saving a second. */
export function generatedSchemaId(operationId: string): string {
  const h = createHash('sha256').update(`docfleet:schema-generate:${operationId}`).digest('hex');
  const variant = ((parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/**
 * schema_generate: derives a field list from the parse of the version the gateway validated (only
 * the given segments when segment_ids were sent), one model call after the cancel checkpoint, and
 * saves it attached to the file (docs/api.md, "Extraction schemas").
 */
export async function schemaGenerateRunner(ctx: RunContext): Promise<api.SchemaGenerateOutput> {
  const r = ctx.request as {
    file_version_id: string;
    title?: string;
    segment_ids?: string[];
    reasoning_level: ReasoningLevel;
    created_by_user_id?: string | null;
  };
  const { db, storage } = ctx.deps;
  await ctx.progress(0, 1, 'generate');
  // The segments the prompt shows (renderSegments' budget) with their pages, streamed: a sample of
  // a long document, never the whole of a 10,000-page parse (issue 17.5); the rest is only counted.
  // With segment_ids the page texts of the grounding would bring back what was left out.
  const { evidence, segmentCount, pageCount } = await loadSegmentsWithin(db, storage, {
    orgId: ctx.op.org_id,
    fileVersionId: r.file_version_id,
    withGrounding: !r.segment_ids?.length,
    ...(r.segment_ids?.length ? { segmentIds: r.segment_ids } : {}),
  });
  const req = buildSchemaGenerateRequest({
    evidence,
    reasoningLevel: r.reasoning_level,
    signal: ctx.signal,
    ...(r.title ? { title: r.title } : {}),
  });
  await ctx.checkpoint();
  const res = await ctx.model().generateJson<SchemaGenerateOutput>(req);

  const documentType = typeof res.output.documentType === 'string' ? res.output.documentType : '';
  const proposed = (res.output.schema ?? { fields: [] }) as unknown as Record<string, unknown>;
  const schema = normalizedForStorage(proposed, {
    title:
      r.title ||
      (typeof proposed.title === 'string' && proposed.title.trim()) ||
      (documentType ? `${documentType} schema` : 'Generated schema'),
  });
  if (!schema.fields.length)
    throw new Error('schema_generation_empty: the model proposed no usable fields for this document.');
  const jsonSchema = fieldListToJsonSchema(schema);
  const file = await db.file.findUniqueOrThrow({
    where: { id: ctx.op.file_id! },
    select: { id: true, knowledge_base_id: true },
  });
  const id = generatedSchemaId(ctx.op.id);
  const content = {
    title: schema.title || 'Generated schema',
    description: schema.description || null,
    schema: schema as unknown as Prisma.InputJsonValue,
    json_schema: jsonSchema as Prisma.InputJsonValue,
    metadata: {
      source: 'schema_generate',
      operation_id: ctx.op.id,
      document_type: documentType,
      model_id: res.modelId,
    } as Prisma.InputJsonValue,
  };
  const save = () =>
    db.extractionSchema.upsert({
      where: { id },
      create: {
        id,
        org_id: ctx.op.org_id,
        file_id: file.id,
        knowledge_base_id: file.knowledge_base_id,
        created_by_user_id: r.created_by_user_id ?? null,
        ...content,
      },
      update: content,
    });
  try {
    await save();
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    await save(); // a concurrent re-run created it between the upsert's read and write
  }
  await ctx.progress(1, 1, 'generate');
  return {
    operation_id: ctx.op.id,
    schema_id: id,
    schema,
    jsonSchema,
    modelId: res.modelId,
    documentType,
    schemaRationale: typeof res.output.schemaRationale === 'string' ? res.output.schemaRationale : '',
    metrics: {
      segmentCount,
      pageCount,
      contextChars: renderSegments(evidence, DEFAULT_CONTEXT_CHARS).used,
      modelCalls: 1,
    },
  };
}
