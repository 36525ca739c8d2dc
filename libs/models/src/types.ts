// The model layer's one interface. Every workflow (extract, split, classify, edit, schema
// generation) asks a provider for JSON that fits a JSON schema; the provider decides how (tool use,
// response_format, or local heuristics). Evidence travels in structured form beside the prompt so
// the offline model never has to re-parse prompt text, and remote models get the same prompt text.
import type { GroundingDocument, Segment } from '@docfleet/contracts';

export type ModelTask =
  'extract' | 'split' | 'split_rules' | 'classify' | 'classify_suggest' | 'edit' | 'schema_generate';
export type ReasoningLevel = 'none' | 'low' | 'medium' | 'high';
export const REASONING_LEVELS: readonly ReasoningLevel[] = ['none', 'low', 'medium', 'high'];

/** Text of one page, headers and footers included (page-number markers live there). */
export interface PageText {
  pageNumber: number;
  text: string;
}

export interface Evidence {
  segments: Segment[];
  grounding?: GroundingDocument;
  pages?: PageText[];
}

export interface GenerateJsonRequest {
  task: ModelTask;
  system: string;
  prompt: string;
  /** JSON Schema the output must satisfy (Draft 2020-12 or earlier). */
  jsonSchema: object;
  reasoningLevel: ReasoningLevel;
  maxTokens?: number;
  /** Per attempt; retries get a fresh budget. Default 120 s. */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Structured evidence (docfleet-local reads it; remote providers only see `prompt`). */
  evidence?: Evidence;
  /** Task input in structured form (schema fields, classes, rules, edit instruction...). */
  input?: Record<string, unknown>;
}

export interface Usage {
  inputTokens: number;
  outputTokens: number;
}

export interface GenerateJsonResult<T> {
  output: T;
  usage: Usage;
  modelId: string;
  raw?: unknown;
}

export interface ModelInfo {
  id: string;
  provider: ProviderKind;
  /** Short human description for model listings. */
  description?: string;
}

export type ProviderKind = 'anthropic' | 'openai' | 'local';

/** A provider serves one or more model ids. `generateJson` is bound to one model by `resolveModel`. */
export interface ModelProvider {
  id: string;
  models(): ModelInfo[];
  generateJson<T>(req: GenerateJsonRequest & { model?: string }): Promise<GenerateJsonResult<T>>;
}

/** What `resolveModel` hands back: a provider plus the model id every call is pinned to. */
export interface ResolvedModel {
  modelId: string;
  provider: ModelProvider;
  generateJson<T>(req: GenerateJsonRequest): Promise<GenerateJsonResult<T>>;
}
