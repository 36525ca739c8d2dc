// Typed model errors. Two of them are API errors the gateway answers directly (400
// unsupported_model, 503 model_provider_unavailable); the rest are failures of one call that the
// workflow worker records on the operation (a split turns them into `split_model_unavailable: …`).
import { ApiError } from '@docfleet/errors';

export type ModelErrorCode =
  | 'unsupported_model'
  | 'model_provider_unavailable'
  | 'model_call_failed'
  | 'model_timeout'
  | 'invalid_model_output'
  | 'model_cancelled';

export class ModelError extends Error {
  constructor(
    readonly code: ModelErrorCode,
    message: string,
    readonly details: {
      status?: number;
      provider?: string;
      modelId?: string;
      attempts?: number;
      retryable?: boolean;
      cause?: unknown;
    } = {},
  ) {
    super(message);
    this.name = 'ModelError';
  }

  /** True for failures worth another attempt later (the worker's queue retry). */
  get retryable(): boolean {
    return this.details.retryable ?? (this.code === 'model_timeout' || this.code === 'model_call_failed');
  }

  /** The HTTP error for the two codes the API exposes; undefined for per-call failures. */
  toApiError(): ApiError | undefined {
    if (this.code === 'unsupported_model' || this.code === 'model_provider_unavailable')
      return new ApiError(this.code, this.message);
    return undefined;
  }
}

export function isModelError(err: unknown, code?: ModelErrorCode): err is ModelError {
  return err instanceof ModelError && (code === undefined || err.code === code);
}
