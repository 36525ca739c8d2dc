// @docfleet/models: the model layer. See README.md.
export * from './types';
export { ModelError, isModelError, type ModelErrorCode } from './errors';
export {
  readModelConfig,
  ModelConfigError,
  LOCAL_MODEL_ID,
  type ModelConfig,
  type AnthropicConfig,
  type OpenAiConfig,
} from './config';
export { ModelRegistry, resolveModel } from './registry';
export { DEFAULT_RETRY_POLICY, DEFAULT_TIMEOUT_MS, type RetryPolicy } from './retry';
export { checkOutput, parseJsonText, schemaIssues } from './json-output';
export { buildEvidence, pageTextsFromGrounding, evidencePages, segmentPage } from './evidence';
export { AnthropicProvider } from './providers/anthropic';
export { OpenAiCompatibleProvider } from './providers/openai-compatible';
export { LocalProvider } from './local/local-provider';
export * from './tasks/field-schema';
export * from './tasks/outputs';
export * from './tasks/requests';
export * from './metrics';
