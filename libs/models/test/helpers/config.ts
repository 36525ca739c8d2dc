import { readModelConfig, type ModelConfig } from '../../src/config';

/** Config from env with a fast retry policy so retry tests take milliseconds. */
export function fastConfig(env: NodeJS.ProcessEnv): ModelConfig {
  const cfg = readModelConfig(env);
  return { ...cfg, retry: { ...cfg.retry, baseDelayMs: 5, maxDelayMs: 20 } };
}

export const SCHEMA = {
  type: 'object',
  properties: { invoice_number: { type: ['string', 'null'] }, total: { type: ['number', 'null'] } },
  required: ['invoice_number', 'total'],
  additionalProperties: false,
} as const;

export const baseReq = {
  task: 'extract' as const,
  system: 'Extract.',
  prompt: 'Invoice No: 123, Total $4.11',
  jsonSchema: SCHEMA,
  reasoningLevel: 'none' as const,
};
