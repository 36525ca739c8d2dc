import { api } from '@docfleet/contracts';
import { serializeOperation } from '@docfleet/workflows';
import { z } from 'zod';
import type { Deps } from '../deps';
import type { ApiRoutes } from '../http/route';
import { cancelOperation, loadOperation } from '../domain/operations/operations';

const tags = ['Operations'];
const Params = z.object({ operationId: api.Uuid });

export function operationRoutes(r: ApiRoutes, deps: Deps) {
  r.add(
    {
      method: 'get',
      path: '/v1/operations/:operationId',
      summary: 'An operation (poll from ~2 s backing off to 10 s; stop on completed, failed or cancelled)',
      tags,
      params: Params,
      responses: { 200: { description: 'operation', schema: api.Operation } },
      errors: ['operation_not_found'],
    },
    async ({ params, principal }) => ({
      body: serializeOperation(await loadOperation(deps.db, principal, params.operationId)),
    }),
  );
  r.add(
    {
      method: 'post',
      path: '/v1/operations/:operationId/cancel',
      summary: 'Cancel an operation (cooperative; terminal operations are returned unchanged)',
      tags,
      params: Params,
      responses: { 200: { description: 'operation', schema: api.Operation } },
      errors: ['operation_not_found', 'permission_required'],
    },
    async ({ params, principal }) => ({
      body: serializeOperation(await cancelOperation(deps.db, principal, params.operationId)),
    }),
  );
}
