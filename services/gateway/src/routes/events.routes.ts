import { reachableKbIds, requireKbAccess } from '@docfleet/auth';
import { api } from '@docfleet/contracts';
import { ApiError } from '@docfleet/errors';
import type { Deps } from '../deps';
import type { ApiRoutes } from '../http/route';
import type { EventHub } from '../domain/events/event-hub';
import { openEventStream, type StreamFilter } from '../domain/events/event-stream';

const STREAM_TYPES = new Set<string>([...api.WEBHOOK_EVENT_TYPES, 'job.progress']);

/** `Last-Event-ID` (header, else the query's last_event_id): a stream position, or null for live only. */
function lastSeqOf(header: string | undefined, query: string | undefined): bigint | null {
  const v = (header ?? query ?? '').trim();
  if (!v) return null;
  if (!/^\d{1,19}$/.test(v)) throw new ApiError('invalid_request', 'Last-Event-ID must be the id of an event.');
  return BigInt(v);
}

/** The live event stream (docs/api.md, Event stream). */
export function eventRoutes(r: ApiRoutes, deps: Deps, hub: () => EventHub) {
  r.add(
    {
      method: 'get',
      path: '/v1/events/stream',
      summary:
        "The organisation's events as Server-Sent Events: `id:` (stream position), `event:` (type), `data:` (JSON). Resume with Last-Event-ID; job.progress events carry no id",
      tags: ['Events'],
      query: api.EventStreamQuery,
      responses: {
        200: {
          description:
            'text/event-stream; each message`s data is a WebhookEvent or a JobProgressEvent; comment lines are heartbeats',
          schema: api.EventStreamMessage,
          contentType: 'text/event-stream',
        },
      },
      errors: ['invalid_request', 'knowledge_base_not_found', 'file_not_found', 'knowledge_base_access_denied'],
    },
    async ({ req, res, query, principal }) => {
      const types = query.types
        ? new Set(
            query.types
              .split(',')
              .map((t) => t.trim())
              .filter(Boolean),
          )
        : null;
      for (const t of types ?? [])
        if (!STREAM_TYPES.has(t)) throw new ApiError('invalid_request', `Unknown event type '${t}' in types.`);
      const lastSeq = lastSeqOf(req.get('last-event-id'), query.last_event_id);

      // Another organisation's knowledge base or file answers exactly like an unknown one.
      let kbForAccess: string | undefined;
      if (query.knowledge_base_id) {
        const kb = await deps.db.knowledgeBase.findFirst({
          where: { id: query.knowledge_base_id, org_id: principal.orgId },
          select: { id: true },
        });
        if (!kb) throw new ApiError('knowledge_base_not_found', 'Knowledge base not found.');
        kbForAccess = kb.id;
      }
      if (query.file_id) {
        const file = await deps.db.file.findFirst({
          where: { id: query.file_id, org_id: principal.orgId },
          select: { knowledge_base_id: true },
        });
        if (!file) throw new ApiError('file_not_found', 'File not found.');
        await requireKbAccess(deps.db, principal, file.knowledge_base_id);
      }
      if (kbForAccess) await requireKbAccess(deps.db, principal, kbForAccess);
      // People without the admin role see the events of knowledge bases they have a grant on.
      const reachable = await reachableKbIds(deps.db, principal);
      const filter: StreamFilter = {
        orgId: principal.orgId,
        knowledgeBaseId: query.knowledge_base_id,
        fileId: query.file_id,
        types,
        reachable: reachable ? new Set(reachable) : null,
      };
      await openEventStream(
        { db: deps.db, hub: hub(), logger: deps.logger, heartbeatMs: deps.env.EVENT_STREAM_HEARTBEAT_SECONDS * 1000 },
        req,
        res,
        filter,
        lastSeq,
      );
    },
  );
}
