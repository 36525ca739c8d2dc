// What a model-workflow request (extract, split, classify, edit) can answer, for the routes' OpenAPI
// descriptions: one list, so a new dispatch error is documented on every workflow route at once.

/** A queued workflow (202 acknowledgement): dispatch, access, model and credit checks. */
export const QUEUED_ERRORS = [
  'file_not_found',
  'permission_required',
  'knowledge_base_access_denied',
  'file_must_be_parsed',
  'unsupported_model',
  'model_provider_unavailable',
  'insufficient_credits',
  'monthly_quota_exceeded',
  'idempotency_conflict',
  'invalid_request_body',
  'service_unavailable',
];

/** A synchronous workflow (the request is held while the worker runs the model) can also relay the model's failure. */
export const SYNC_ERRORS = [...QUEUED_ERRORS, 'model_call_failed'];

/** docs/api.md ("Validation order"): a workflow request without file_id is 400 file_id_is_required. */
export const WORKFLOW_REQUIRED = { file_id: 'file_id_is_required' } as const;
