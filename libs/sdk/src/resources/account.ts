// Billing, sign-in and API key management.
import type {
  ApiKeyEnvelope,
  ApiKeyList,
  CreateApiKeyBody,
  CreateApiKeyResponse,
  Credits,
  LedgerPage,
  LoginBody,
  LoginResponse,
} from '../contract-types';
import { path, type RequestOptions } from '../http';
import { Resource, requestOptions } from './resource';

export interface LedgerOptions extends RequestOptions {
  /** 1-500, default 100. */
  limit?: number;
  cursor?: string;
  /** `day` returns grouped activity per UTC day instead of entries. */
  groupBy?: 'day';
}

export class Billing extends Resource {
  /** Balance, reserved credits, lifetime and monthly use, quota (null when none). */
  credits(o?: RequestOptions): Promise<Credits> {
    return this.call({ method: 'GET', path: '/v1/billing/credits', ...requestOptions(o) });
  }

  /** Newest first; follow `next_cursor`. */
  ledger(opts: LedgerOptions = {}): Promise<LedgerPage> {
    return this.call({
      method: 'GET',
      path: '/v1/billing/ledger',
      query: { limit: opts.limit, cursor: opts.cursor, group_by: opts.groupBy },
      ...requestOptions(opts),
    });
  }
}

export class Auth extends Resource {
  /**
   * Signs a person in. Use the token with `client.withCredentials({ bearerToken: token, orgId })`.
   * Works on a client without credentials.
   */
  login(body: LoginBody, o?: RequestOptions): Promise<LoginResponse> {
    return this.call({ method: 'POST', path: '/v1/auth/login', json: body, ...requestOptions(o) });
  }
}

/** Admin sessions only (an API key gets 403 permission_required). */
export class ApiKeys extends Resource {
  /** 201; the `secret` is shown once. */
  create(body: CreateApiKeyBody, o?: RequestOptions): Promise<CreateApiKeyResponse> {
    return this.call({ method: 'POST', path: '/v1/api-keys', json: body, ...requestOptions(o) });
  }

  /** Never includes secrets. */
  list(o?: RequestOptions): Promise<ApiKeyList> {
    return this.call({ method: 'GET', path: '/v1/api-keys', ...requestOptions(o) });
  }

  revoke(apiKeyId: string, o?: RequestOptions): Promise<ApiKeyEnvelope> {
    return this.call({ method: 'DELETE', path: path`/v1/api-keys/${apiKeyId}`, ...requestOptions(o) });
  }
}
