// How the portable `reasoning_level` maps onto each provider (documented in README.md).
import type { ReasoningLevel } from '../types';

/** Output-token ceiling per level when the caller gives no maxTokens. */
export const MAX_TOKENS: Record<ReasoningLevel, number> = { none: 2048, low: 4096, medium: 8192, high: 16384 };

/**
 * Anthropic extended-thinking budget per level (0 = thinking off). `none` and `low` answer
 * directly (forced tool call); `medium` and `high` think first.
 */
export const ANTHROPIC_THINKING_BUDGET: Record<ReasoningLevel, number> = { none: 0, low: 0, medium: 2048, high: 8192 };

/** OpenAI-style `reasoning_effort` (sent only when OPENAI_REASONING_EFFORT is on). */
export const OPENAI_REASONING_EFFORT: Record<ReasoningLevel, 'minimal' | 'low' | 'medium' | 'high'> = {
  none: 'minimal',
  low: 'low',
  medium: 'medium',
  high: 'high',
};
