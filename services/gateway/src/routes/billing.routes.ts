import { getCredits, ledgerByDay, listLedger } from '@docfleet/billing';
import { requireOrgAdmin } from '@docfleet/auth';
import { api } from '@docfleet/contracts';
import type { Deps } from '../deps';
import type { ApiRoutes } from '../http/route';

const tags = ['Billing'];

export function billingRoutes(r: ApiRoutes, deps: Deps) {
  r.add(
    {
      method: 'get',
      path: '/v1/billing/credits',
      summary: 'Balance, holds and quota (every role)',
      tags,
      responses: { 200: { description: 'credits', schema: api.Credits } },
    },
    async ({ principal }) => ({ body: await getCredits(deps.db, principal.orgId) }),
  );
  r.add(
    {
      method: 'get',
      path: '/v1/billing/ledger',
      summary: 'Ledger entries, newest first (or grouped per day); API keys and admin sessions only',
      tags,
      query: api.LedgerQuery,
      responses: { 200: { description: 'page of entries', schema: api.LedgerPage } },
      errors: ['permission_required'],
    },
    async ({ query, principal }) => {
      requireOrgAdmin(principal, 'The credits ledger');
      return {
        body:
          query.group_by === 'day'
            ? await ledgerByDay(deps.db, principal.orgId, { limit: query.limit, cursor: query.cursor })
            : await listLedger(deps.db, principal.orgId, { limit: query.limit, cursor: query.cursor }),
      };
    },
  );
}
