import { apiKeyCacheFor } from '@docfleet/auth';
import { api } from '@docfleet/contracts';
import { isApiError } from '@docfleet/errors';
import { z } from 'zod';
import type { Deps } from '../deps';
import type { ApiRoutes } from '../http/route';
import { createApiKey, listApiKeys, login, revokeApiKey } from '../domain/auth/sessions';
import { LoginThrottle } from '../domain/auth/login-throttle';

const tags = ['Access'];

/** Login is public and registered on the public router; key management needs an admin session. */
export function loginRoute(r: ApiRoutes, deps: Deps) {
  const e = deps.env;
  const throttle = new LoginThrottle(
    deps.redis,
    e.QUEUE_PREFIX,
    {
      freeFailures: e.LOGIN_FREE_FAILURES,
      ipFreeFailures: e.LOGIN_IP_FREE_FAILURES,
      baseSeconds: e.LOGIN_BACKOFF_BASE_SECONDS,
      maxSeconds: e.LOGIN_BACKOFF_MAX_SECONDS,
      windowSeconds: e.LOGIN_FAILURE_WINDOW_SECONDS,
    },
    deps.logger,
  );
  r.add(
    {
      method: 'post',
      path: '/v1/auth/login',
      summary: 'Sign in as a person; returns a bearer token',
      tags,
      auth: false,
      body: api.LoginBody,
      responses: { 200: { description: 'session', schema: api.LoginResponse } },
      errors: ['invalid_credentials', 'rate_limited'],
    },
    async ({ req, body }) => {
      const ticket = await throttle.attempt(body.email, req.ip);
      try {
        const session = await login(deps, body.email, body.password);
        await throttle.succeeded(ticket);
        return { body: session };
      } catch (err) {
        // A wrong password stays counted; any other failure gave no verdict and does not count.
        if (!(isApiError(err) && err.code === 'invalid_credentials')) await throttle.release(ticket);
        throw err;
      }
    },
  );
}

export function apiKeyRoutes(r: ApiRoutes, deps: Deps) {
  r.add(
    {
      method: 'post',
      path: '/v1/api-keys',
      summary: 'Create an API key (admin session); the secret is shown once',
      tags,
      body: api.CreateApiKeyBody,
      responses: { 201: { description: 'created', schema: api.CreateApiKeyResponse } },
      errors: ['permission_required'],
    },
    async ({ body, principal }) => ({ status: 201, body: await createApiKey(deps, principal, body.name) }),
  );
  r.add(
    {
      method: 'get',
      path: '/v1/api-keys',
      summary: 'List API keys (never secrets)',
      tags,
      responses: { 200: { description: 'keys', schema: api.ApiKeyList } },
    },
    async ({ principal }) => ({ body: await listApiKeys(deps, principal) }),
  );
  r.add(
    {
      method: 'delete',
      path: '/v1/api-keys/:id',
      summary: 'Revoke an API key',
      tags,
      params: z.object({ id: api.Uuid }),
      responses: { 200: { description: 'revoked', schema: api.ApiKeyEnvelope } },
      errors: ['api_key_not_found'],
    },
    async ({ params, principal }) => {
      const body = await revokeApiKey(deps, principal, params.id);
      // This process stops accepting the key at once; other replicas (and revocations by the
      // admin CLI) within API_KEY_CACHE_TTL_SECONDS, when their cached row goes stale.
      apiKeyCacheFor(deps.db).evictKey(params.id);
      return { body };
    },
  );
}
