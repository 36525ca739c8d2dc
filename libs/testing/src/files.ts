// Row fixtures for tests on a database alone (no gateway): the file a job, a reservation or a
// parse bundle hangs from.
import { randomUUID } from 'node:crypto';
import { grantCredits } from '@docfleet/billing';
import type { Db } from '@docfleet/db';
import { addVersion } from './search-index';

export interface SeededFile {
  orgId: string;
  kbId: string;
  fileId: string;
  versionId: string;
}

/**
 * A knowledge base with one PDF file at version 1 (no bytes stored, nothing parsed), in `orgId`
 * or else in a new organisation; `credits` are granted to the organisation.
 */
export async function seedFile(
  db: Db,
  o: { orgId?: string; credits?: number; kbName?: string; filename?: string } = {},
): Promise<SeededFile> {
  const orgId = o.orgId ?? (await db.organization.create({ data: { name: `o-${randomUUID().slice(0, 8)}` } })).id;
  if (o.credits) await grantCredits(db, { orgId, amount: o.credits, idempotencyKey: `g:${orgId}`, reason: 'test' });
  const kb = await db.knowledgeBase.create({ data: { org_id: orgId, name: o.kbName ?? 'kb' } });
  const file = await db.file.create({
    data: { org_id: orgId, knowledge_base_id: kb.id, filename: o.filename ?? 'a.pdf', content_type: 'application/pdf' },
  });
  const versionId = await addVersion({ db }, { kbId: kb.id, fileId: file.id });
  return { orgId, kbId: kb.id, fileId: file.id, versionId };
}
