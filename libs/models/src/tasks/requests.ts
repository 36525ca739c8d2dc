// Request builders: one per task, so the workflow worker, the eval and any provider see the same
// system prompt, evidence rendering and output schema. Remote models read `prompt`; docfleet-local
// reads `input` and `evidence` (the same information, structured).
import { evidencePages, segmentPage } from '../evidence';
import type { Segment } from '@docfleet/contracts';
import type { Evidence, GenerateJsonRequest, ReasoningLevel } from '../types';
import { normalizeFieldSchema, type FieldListSchema } from './field-schema';
import {
  CLASSIFY_OUTPUT_SCHEMA,
  CLASSIFY_SUGGEST_OUTPUT_SCHEMA,
  EDIT_OUTPUT_SCHEMA,
  SCHEMA_GENERATE_OUTPUT_SCHEMA,
  SPLIT_OUTPUT_SCHEMA,
  SPLIT_RULES_OUTPUT_SCHEMA,
  extractOutputSchema,
  type ClassDefinition,
  type SplitRule,
} from './outputs';

/** Default evidence budget in characters (about 30k tokens). */
export const DEFAULT_CONTEXT_CHARS = 120_000;

interface Common {
  evidence: Evidence;
  reasoningLevel?: ReasoningLevel;
  contextChars?: number;
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** One segment as renderSegments shows it (a reader that stops at the budget measures the same blocks). */
export function segmentBlock(s: Segment): string {
  return `[segment ${s.id} | page ${segmentPage(s)}]\n${s.markdown.trim()}\n`;
}

/** Segments as `[segment <id> | page N]` blocks in reading order, cut at the budget. */
export function renderSegments(
  ev: Evidence,
  budget = DEFAULT_CONTEXT_CHARS,
): { text: string; used: number; truncated: boolean } {
  const parts: string[] = [];
  let used = 0;
  for (const s of ev.segments) {
    const block = segmentBlock(s);
    if (used + block.length > budget) return { text: parts.join('\n'), used, truncated: true };
    parts.push(block);
    used += block.length;
  }
  return { text: parts.join('\n'), used, truncated: false };
}

/** The least text renderPages gives a page, however many pages there are. */
export const MIN_PAGE_CHARS = 400;

/**
 * Pages renderPages fits in the budget at MIN_PAGE_CHARS each (300 at the default budget): a reader
 * of the pages a page-wise prompt needs stops there, as more pages would only be cut to the minimum
 * and overflow the budget.
 */
export function pagesWithinBudget(budget = DEFAULT_CONTEXT_CHARS): number {
  return Math.max(1, Math.floor(budget / MIN_PAGE_CHARS));
}

/** Pages as `=== page N ===` blocks (headers and footers included), each cut to fit the budget. */
export function renderPages(ev: Evidence, budget = DEFAULT_CONTEXT_CHARS): string {
  const pages = evidencePages(ev);
  const per = Math.max(MIN_PAGE_CHARS, Math.floor(budget / Math.max(1, pages.length)));
  return pages
    .map((p) => `=== page ${p.pageNumber} ===\n${p.text.length > per ? `${p.text.slice(0, per)} […]` : p.text}`)
    .join('\n\n');
}

const base = (c: Common) => ({
  reasoningLevel: c.reasoningLevel ?? 'medium',
  evidence: c.evidence,
  ...(c.timeoutMs ? { timeoutMs: c.timeoutMs } : {}),
  ...(c.signal ? { signal: c.signal } : {}),
});

export function buildExtractRequest(
  c: Common & { schema: FieldListSchema | Record<string, unknown> },
): GenerateJsonRequest {
  const schema = normalizeFieldSchema(c.schema as Record<string, unknown>);
  const ev = renderSegments(c.evidence, c.contextChars);
  return {
    ...base(c),
    task: 'extract',
    system: [
      'You extract structured data from a parsed document. Use only the evidence given.',
      'Put each value in jsonResult under the field name. Dates as YYYY-MM-DD, numbers as plain numbers.',
      'For every value add a citation: path (slash path into jsonResult, e.g. /invoice_number or /lines/0/amount),',
      'segmentId and pageNumber of the segment it came from, quote (verbatim text from that segment containing the value) and confidence 0-1.',
      'A field the evidence does not contain is null and has no citation. Never guess.',
    ].join('\n'),
    prompt: `Fields:\n${JSON.stringify(schema.fields, null, 1)}\n\nEvidence:\n${ev.text}${ev.truncated ? '\n[evidence truncated]' : ''}`,
    jsonSchema: extractOutputSchema(schema.fields),
    input: { schema },
  };
}

export function buildSplitRequest(c: Common & { rules?: SplitRule[] }): GenerateJsonRequest {
  const rules = c.rules ?? [];
  return {
    ...base(c),
    task: 'split',
    system: [
      'You split a PDF that holds several documents into records, one per document.',
      'Use page-number markers (Page 1 of 3), running headers and footers, titles, document types and topic changes.',
      'Records cover every page exactly once, in order. Give each a title, documentType, startPage, endPage, confidence 0-1 and boundaryReason.',
    ].join('\n'),
    prompt: `${rules.length ? `Rules:\n${rules.map((r) => `- ${r.name}: ${r.description}`).join('\n')}\n\n` : ''}Pages:\n${renderPages(c.evidence, c.contextChars)}`,
    jsonSchema: SPLIT_OUTPUT_SCHEMA,
    input: { rules },
  };
}

export function buildSplitRulesRequest(c: Common): GenerateJsonRequest {
  return {
    ...base(c),
    task: 'split_rules',
    system:
      'You propose rules for splitting this PDF into its documents: each rule has a short name and a one-sentence description of the boundary signal it relies on.',
    prompt: `Pages:\n${renderPages(c.evidence, c.contextChars)}`,
    jsonSchema: SPLIT_RULES_OUTPUT_SCHEMA,
    input: {},
  };
}

export function buildClassifyRequest(
  c: Common & { classes: Array<string | ClassDefinition>; multiLabel?: boolean },
): GenerateJsonRequest {
  const classes = c.classes.map((x) => (typeof x === 'string' ? { name: x, description: '' } : x));
  return {
    ...base(c),
    task: 'classify',
    system: [
      'You classify a document and each of its pages into exactly one of the given classes (the document may also carry several labels when multi-label is on).',
      'Answer with the class names as given, a confidence 0-1 and a one-sentence rationale.',
    ].join('\n'),
    prompt: `Classes:\n${classes.map((k) => `- ${k.name}${k.description ? `: ${k.description}` : ''}`).join('\n')}\nMulti-label: ${c.multiLabel ? 'yes' : 'no'}\n\nPages:\n${renderPages(c.evidence, c.contextChars)}`,
    jsonSchema: CLASSIFY_OUTPUT_SCHEMA,
    input: { classes, multiLabel: c.multiLabel === true },
  };
}

export function buildClassifySuggestRequest(c: Common & { guidelines?: string }): GenerateJsonRequest {
  return {
    ...base(c),
    task: 'classify_suggest',
    system:
      'You suggest document classes (snake_case name plus a one-sentence description) that would organise documents like this one.',
    prompt: `${c.guidelines ? `Guidelines: ${c.guidelines}\n\n` : ''}Pages:\n${renderPages(c.evidence, c.contextChars)}`,
    jsonSchema: CLASSIFY_SUGGEST_OUTPUT_SCHEMA,
    input: { guidelines: c.guidelines ?? '' },
  };
}

export function buildEditRequest(c: Common & { instruction: string; rules?: string[] }): GenerateJsonRequest {
  const ev = renderSegments(c.evidence, c.contextChars);
  return {
    ...base(c),
    task: 'edit',
    system: [
      'You propose edits to a parsed document; you never apply them.',
      'List each change with the segmentId and pageNumber it touches, the exact text before, the text after and a reason,',
      'plus a summary and a unified-diff-style patch over the segment markdown.',
    ].join('\n'),
    prompt: `Instruction: ${c.instruction}\n${(c.rules ?? []).length ? `Rules:\n${c.rules!.map((r) => `- ${r}`).join('\n')}\n` : ''}\nEvidence:\n${ev.text}`,
    jsonSchema: EDIT_OUTPUT_SCHEMA,
    input: { prompt: c.instruction, rules: c.rules ?? [] },
  };
}

export function buildSchemaGenerateRequest(c: Common & { title?: string }): GenerateJsonRequest {
  const ev = renderSegments(c.evidence, c.contextChars);
  return {
    ...base(c),
    task: 'schema_generate',
    system: [
      'You derive a reusable extraction schema (field list) from a sample document: fields with name (snake_case), type',
      '(string, number, boolean, date, object, array, table), description, required, and children for tables and objects.',
      'Also give the documentType and a short schemaRationale.',
    ].join('\n'),
    prompt: `${c.title ? `Title: ${c.title}\n\n` : ''}Evidence:\n${ev.text}`,
    jsonSchema: SCHEMA_GENERATE_OUTPUT_SCHEMA,
    input: { title: c.title ?? '' },
  };
}
