// Output shapes of every model task and the JSON schemas the providers are asked to satisfy. They
// carry exactly what the API's operation outputs (libs/contracts) need; the worker adds ids, metrics and credits.
import type { api } from '@docfleet/contracts';
import { nullableResultSchema, type SchemaField } from './field-schema';

/** What a model cites (the file-job path adds elementId, bbox and source when it resolves them). */
export type Citation = Pick<api.Citation, 'path' | 'segmentId' | 'pageNumber' | 'quote' | 'confidence'>;
export type ModelWarning = api.Warning;

export interface ExtractOutput {
  jsonResult: Record<string, unknown>;
  citations: Citation[];
  warnings: ModelWarning[];
}

export type SplitRule = api.SplitRule;
export interface SplitRecordOutput {
  title: string;
  documentType: string;
  startPage: number;
  endPage: number;
  confidence: number;
  boundaryReason: string;
}
export interface SplitOutput {
  records: SplitRecordOutput[];
  warnings: ModelWarning[];
}
export interface SplitRulesOutput {
  rules: SplitRule[];
}

export interface ClassLabel {
  class: string;
  confidence: number;
}
export interface ClassifyOutput {
  document: { class: string; confidence: number; rationale: string; labels?: ClassLabel[] };
  pages: Array<{ page_number: number; class: string; confidence: number }>;
}
export interface ClassDefinition {
  name: string;
  description: string;
}
export interface ClassifySuggestOutput {
  classes: ClassDefinition[];
}

export interface EditChange {
  segmentId: string;
  pageNumber: number;
  before: string;
  after: string;
  reason: string;
}
export interface EditOutput {
  summary: string;
  changes: EditChange[];
  patch: string;
}

export interface SchemaGenerateOutput {
  schema: { version: number; title: string; description: string; fields: SchemaField[] };
  documentType: string;
  schemaRationale: string;
}

const str = { type: 'string' };
const num = { type: 'number' };
const conf = { type: 'number', minimum: 0, maximum: 1 };
const int1 = { type: 'integer', minimum: 1 };
const obj = (properties: Record<string, unknown>, required = Object.keys(properties)) => ({
  type: 'object',
  properties,
  required,
});

const warnings = { type: 'array', items: obj({ code: str, message: str, path: str }, ['code', 'message']) };
const citation = obj({ path: str, segmentId: str, pageNumber: int1, quote: str, confidence: conf });

export function extractOutputSchema(fields: SchemaField[]): object {
  return obj({ jsonResult: nullableResultSchema(fields), citations: { type: 'array', items: citation }, warnings });
}

export const SPLIT_OUTPUT_SCHEMA = obj({
  records: {
    type: 'array',
    items: obj({
      title: str,
      documentType: str,
      startPage: int1,
      endPage: int1,
      confidence: conf,
      boundaryReason: str,
    }),
  },
  warnings,
});

const rule = obj({ name: str, description: str });
export const SPLIT_RULES_OUTPUT_SCHEMA = obj({ rules: { type: 'array', items: rule } });

export const CLASSIFY_OUTPUT_SCHEMA = obj({
  document: obj(
    {
      class: str,
      confidence: conf,
      rationale: str,
      labels: { type: 'array', items: obj({ class: str, confidence: conf }) },
    },
    ['class', 'confidence', 'rationale'],
  ),
  pages: { type: 'array', items: obj({ page_number: int1, class: str, confidence: conf }) },
});

export const CLASSIFY_SUGGEST_OUTPUT_SCHEMA = obj({ classes: { type: 'array', minItems: 1, items: rule } });

export const EDIT_OUTPUT_SCHEMA = obj({
  summary: str,
  changes: { type: 'array', items: obj({ segmentId: str, pageNumber: int1, before: str, after: str, reason: str }) },
  patch: str,
});

const fieldDef: Record<string, unknown> = {
  type: 'object',
  properties: {
    name: str,
    type: { enum: ['string', 'number', 'boolean', 'date', 'object', 'array', 'table'] },
    description: str,
    required: { type: 'boolean' },
    children: { type: 'array', items: { $ref: '#/$defs/field' } },
  },
  required: ['name', 'type', 'description'],
};
export const SCHEMA_GENERATE_OUTPUT_SCHEMA = {
  $defs: { field: fieldDef },
  ...obj({
    schema: obj({
      version: num,
      title: str,
      description: str,
      fields: { type: 'array', minItems: 1, items: { $ref: '#/$defs/field' } },
    }),
    documentType: str,
    schemaRationale: str,
  }),
};
