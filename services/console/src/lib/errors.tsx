import { DocfleetApiError, DocfleetRequestError, DocfleetTimeoutError } from '@docfleet/sdk';

/** What the console tells a person for each failure: the API's sentence and code, never swallowed. */
export interface Problem {
  code: string;
  status?: number;
  title: string;
  detail?: string;
  retryAfter?: number;
  requestId?: string;
}

const HINTS: Record<string, string> = {
  insufficient_credits: 'The organisation does not have enough credits for this. Ask an admin to grant credits.',
  monthly_quota_exceeded: 'The monthly credit quota would be exceeded.',
  reserved_credits_exhausted: 'The parse used up its credit reservation.',
  permission_required: 'Your role does not allow this action.',
  invalid_api_key: 'The API key is wrong, revoked or expired. Sign in again.',
  invalid_session: 'Your session has ended. Sign in again.',
  rate_limited: 'Too many requests.',
  network_error: 'The gateway could not be reached.',
  file_must_be_parsed: 'Parse the file first.',
};

export function toProblem(err: unknown): Problem {
  if (err instanceof DocfleetApiError) {
    return {
      code: err.code,
      status: err.status,
      title: err.error,
      detail: err.serverMessage ?? HINTS[err.code],
      retryAfter: err.retryAfter,
      requestId: err.requestId,
    };
  }
  if (err instanceof DocfleetRequestError) return { code: err.code, title: err.message, detail: HINTS[err.code] };
  if (err instanceof DocfleetTimeoutError) return { code: err.code, title: err.message };
  return { code: 'console_error', title: err instanceof Error ? err.message : String(err) };
}

export function ErrorBanner({ error, onClose }: { error: unknown; onClose?: () => void }) {
  if (!error) return null;
  const p = toProblem(error);
  return (
    <div className="error-banner" role="alert" data-code={p.code}>
      <div>
        <strong>
          {p.status ? `${p.status} ` : ''}
          <code className="error-code">{p.code}</code>
        </strong>
        : {p.title}
        {p.retryAfter !== undefined && <span className="retry"> Retry in {p.retryAfter} s.</span>}
      </div>
      {p.detail && <div className="detail">{p.detail}</div>}
      {p.requestId && <div className="request-id">request id {p.requestId}</div>}
      {onClose && (
        <button type="button" className="link" onClick={onClose} aria-label="Dismiss error">
          Dismiss
        </button>
      )}
    </div>
  );
}

/** Session-ending codes: the console returns to the sign-in screen. */
export const isAuthFailure = (err: unknown) => err instanceof DocfleetApiError && err.status === 401;
